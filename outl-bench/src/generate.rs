//! A deterministic, realistic Logseq workspace of any size, for benchmarks.
//!
//! About a third of the pages are journals, one per consecutive day ending on
//! [`LAST_JOURNAL`]; the rest are topic pages, many in namespaces (`projects/apollo` is the
//! file `pages/projects___apollo.md`), some of them people. Page sizes follow a Pareto tail
//! (most pages hold a handful of blocks, a few hold hundreds), outlines nest up to six levels,
//! and the blocks use the whole format: tasks in every state with priorities and schedules,
//! page and block properties, collapsed blocks, `[[links]]` to existing pages and journal
//! days (popular pages draw most of them), `#tags` and `#[[multi word tags]]`, block refs and
//! embeds of blocks that carry an `id::`, markdown links, quotes, headings, code fences and
//! multi-line blocks. Every page is written by [`serialize`], so the files are in canonical
//! style, unless [`Styles`] asks for the older ones real graphs hold (YAML front matter,
//! space indents, CRLF line breaks, no final line break, org pages) on a share of the pages.
//!
//! The same page count and seed give the same bytes: one `Rng` stream drives everything in
//! a fixed order, and nothing iterates a hash map. Which pages are styled comes from a second
//! stream, so styles change how the pages are written, never what they say.

use std::collections::HashSet;
use std::io;
use std::path::Path;

use chrono::{Datelike, Days, NaiveDate};

use super::rng::Rng;
use outl_format::{Document, ParsedBlock, Properties, Syntax, serialize, serialize_org};

/// The newest journal day of every generated workspace.
pub const LAST_JOURNAL: NaiveDate = match NaiveDate::from_ymd_opt(2026, 11, 30) {
    Some(date) => date,
    None => panic!("a valid date"),
};

/// Outline levels a generated page may use (Logseq graphs rarely go deeper).
const MAX_LEVELS: usize = 6;

/// One generated page file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedPage {
    /// Path relative to the workspace root, `/`-separated.
    pub file: String,
    pub markdown: String,
}

/// What a generation produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub pages: usize,
    pub journals: usize,
    pub blocks: usize,
    pub markdown_bytes: u64,
}

/// The older styles a generated page can be written in, on top of the canonical one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Styles {
    /// Page properties as YAML front matter between `---` lines, as older Logseq versions
    /// wrote them.
    pub front_matter: bool,
    /// Nesting by this many spaces a level instead of a tab (Logseq's two-space setting, or
    /// another editor's four).
    pub indent_spaces: Option<usize>,
    /// `\r\n` line breaks.
    pub crlf: bool,
    /// No line break after the last line.
    pub no_final_newline: bool,
    /// Org pages (`.org` files, headlines and drawers) in Logseq's org style instead of
    /// markdown; front matter and space indents do not apply to them.
    pub org: bool,
    /// Percent of the pages written in these styles; the others stay canonical.
    pub share: u64,
}

impl Styles {
    /// Every page in canonical style.
    pub const CANONICAL: Styles = Styles {
        front_matter: false,
        indent_spaces: None,
        crlf: false,
        no_final_newline: false,
        org: false,
        share: 0,
    };

    /// The syntax of the pages written in these styles.
    fn syntax(&self) -> Syntax {
        if self.org {
            Syntax::Org
        } else {
            Syntax::Markdown
        }
    }

    /// The text of `doc` in these styles.
    fn write(&self, doc: Document) -> String {
        let mut text = if self.org {
            serialize_org(&doc)
        } else {
            self.markdown(doc)
        };
        if self.no_final_newline && text.ends_with('\n') {
            text.pop();
        }
        if self.crlf {
            text = text.replace('\n', "\r\n");
        }
        text
    }

    /// The markdown of `doc` with front matter and space indents, as these styles ask.
    fn markdown(&self, doc: Document) -> String {
        let mut markdown = String::new();
        let doc = if self.front_matter && !doc.properties.is_empty() {
            markdown.push_str("---\n");
            for (key, value) in doc.properties.iter() {
                markdown.push_str(&format!("{key}: {value}\n"));
            }
            markdown.push_str("---\n\n");
            Document {
                properties: Properties::new(),
                ..doc
            }
        } else {
            doc
        };
        let body = serialize(&doc);
        match self.indent_spaces {
            Some(width) => {
                for line in body.split_inclusive('\n') {
                    let tabs = line.len() - line.trim_start_matches('\t').len();
                    markdown.push_str(&" ".repeat(tabs * width));
                    markdown.push_str(&line[tabs..]);
                }
            }
            None => markdown.push_str(&body),
        }
        markdown
    }
}

/// Generates `pages` pages (journals included) from `seed`, handing each to `sink` in a fixed
/// order: topic pages first, then journals from the oldest day.
pub fn generate(
    pages: usize,
    seed: u64,
    styles: Styles,
    mut sink: impl FnMut(GeneratedPage) -> io::Result<()>,
) -> io::Result<Summary> {
    let mut rng = Rng::new(seed);
    // A stream of its own, so that styling a page draws nothing from the content's stream.
    let mut styled = Rng::new(!seed);
    // Each page's text and its file's extension.
    let mut write = |doc: Document| {
        if styled.percent(styles.share) {
            (styles.write(doc), styles.syntax().extension())
        } else {
            (serialize(&doc), Syntax::Markdown.extension())
        }
    };
    let journals = pages / 3;
    let topics = topic_names(&mut rng, pages - journals);
    let first_journal = LAST_JOURNAL - Days::new(journals.saturating_sub(1) as u64);
    let mut writer = PageWriter {
        rng,
        topics: &topics,
        first_journal,
        journals,
        refs: Vec::new(),
        blocks: 0,
    };
    let mut summary = Summary::default();
    for topic in &topics {
        let (markdown, extension) = write(writer.topic_page(topic));
        summary.markdown_bytes += markdown.len() as u64;
        sink(GeneratedPage {
            file: format!("pages/{}.{extension}", topic.name.replace('/', "___")),
            markdown,
        })?;
    }
    for day in 0..journals {
        let date = first_journal + Days::new(day as u64);
        let (markdown, extension) = write(writer.journal_page());
        summary.markdown_bytes += markdown.len() as u64;
        sink(GeneratedPage {
            file: format!("journals/{}.{extension}", date.format("%Y_%m_%d")),
            markdown,
        })?;
    }
    summary.pages = topics.len();
    summary.journals = journals;
    summary.blocks = writer.blocks;
    Ok(summary)
}

/// Generates into `dir` (created if missing), which must not hold pages yet.
pub fn write_workspace(dir: &Path, pages: usize, seed: u64, styles: Styles) -> io::Result<Summary> {
    for sub in ["pages", "journals"] {
        let path = dir.join(sub);
        if std::fs::read_dir(&path).is_ok_and(|mut entries| entries.next().is_some()) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} is not empty; generate into a new folder",
                    path.display()
                ),
            ));
        }
        std::fs::create_dir_all(&path)?;
    }
    generate(pages, seed, styles, |page| {
        std::fs::write(dir.join(&page.file), page.markdown)
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TopicKind {
    Person,
    Project,
    Book,
    Meeting,
    Recipe,
    Area,
    Topic,
}

struct Topic {
    name: String,
    kind: TopicKind,
}

/// Unique page names (by slug), in generation order. Names use letters, digits, spaces and
/// `/` only, so the file name is the name with `/` written `___`.
fn topic_names(rng: &mut Rng, count: usize) -> Vec<Topic> {
    let mut taken = HashSet::new();
    let mut topics = Vec::with_capacity(count);
    while topics.len() < count {
        let kind = [
            TopicKind::Person,
            TopicKind::Project,
            TopicKind::Book,
            TopicKind::Meeting,
            TopicKind::Recipe,
            TopicKind::Area,
            TopicKind::Topic,
        ][rng.weighted(&[12, 14, 8, 8, 4, 10, 44])];
        let mut name = topic_name(rng, kind);
        if !taken.insert(name.to_lowercase()) {
            // Past a few thousand pages the word lists repeat; a counter keeps names unique.
            let base = name;
            let mut n = 2;
            loop {
                name = format!("{base} {n}");
                if taken.insert(name.to_lowercase()) {
                    break;
                }
                n += 1;
            }
        }
        topics.push(Topic { name, kind });
    }
    topics
}

fn topic_name(rng: &mut Rng, kind: TopicKind) -> String {
    match kind {
        TopicKind::Person => format!("{} {}", rng.word(FIRST_NAMES), rng.word(LAST_NAMES)),
        TopicKind::Project => {
            let project = capitalized(rng.word(PROJECTS));
            if rng.percent(40) {
                format!("projects/{project}/{}", rng.word(NOUNS))
            } else {
                format!("projects/{project}")
            }
        }
        TopicKind::Book => format!(
            "books/The {} {}",
            capitalized(rng.word(ADJECTIVES)),
            capitalized(rng.word(NOUNS))
        ),
        TopicKind::Meeting => format!(
            "meetings/{} {}",
            capitalized(rng.word(NOUNS)),
            rng.word(&["sync", "review", "retro", "planning", "kickoff", "1on1"])
        ),
        TopicKind::Recipe => format!(
            "recipes/{} {}",
            capitalized(rng.word(FOODS)),
            rng.word(FOODS)
        ),
        TopicKind::Area => format!(
            "{}/{} {}",
            rng.word(AREAS),
            rng.word(ADJECTIVES),
            rng.word(NOUNS)
        ),
        TopicKind::Topic => {
            let name = format!("{} {}", rng.word(ADJECTIVES), rng.word(NOUNS));
            if rng.percent(50) {
                capitalized(&name)
            } else {
                name
            }
        }
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The state threaded through the pages: the random stream, what links can point at, and
/// the `id::` blocks written so far, which later blocks reference.
struct PageWriter<'t> {
    rng: Rng,
    topics: &'t [Topic],
    first_journal: NaiveDate,
    journals: usize,
    refs: Vec<String>,
    blocks: usize,
}

impl PageWriter<'_> {
    fn topic_page(&mut self, topic: &Topic) -> Document {
        let mut properties = Properties::new();
        let kind_name = match topic.kind {
            TopicKind::Person => "person",
            TopicKind::Project => "project",
            TopicKind::Book => "book",
            TopicKind::Meeting => "meeting",
            TopicKind::Recipe => "recipe",
            TopicKind::Area => "area",
            TopicKind::Topic => "note",
        };
        if topic.kind != TopicKind::Topic || self.rng.percent(25) {
            properties.insert("type".into(), kind_name.into());
        }
        if self.rng.percent(45) {
            let mut tags: Vec<String> = Vec::new();
            for _ in 0..self.rng.between(1, 3) {
                let tag = self.tag_name();
                if !tags.contains(&tag) {
                    tags.push(tag);
                }
            }
            properties.insert("tags".into(), tags.join(", "));
        }
        match topic.kind {
            TopicKind::Person => {
                properties.insert("role".into(), capitalized(self.rng.word(ROLES)));
            }
            TopicKind::Project => {
                properties.insert(
                    "status".into(),
                    self.rng
                        .pick(&["active", "paused", "done", "someday"])
                        .to_string(),
                );
                properties.insert("owner".into(), format!("[[{}]]", self.person()));
            }
            TopicKind::Book => {
                properties.insert("author".into(), format!("[[{}]]", self.person()));
                properties.insert("rating".into(), self.rng.between(1, 5).to_string());
            }
            _ => {}
        }
        if self.rng.percent(20) {
            properties.insert("created".into(), format!("[[{}]]", self.journal_link()));
        }
        // Older Logseq graphs repeat a namespaced page's name as its title.
        if topic.name.contains('/') && self.rng.percent(10) {
            properties.insert("title".into(), topic.name.clone());
        }
        let size = self.rng.heavy_tail(4, 1_500) as usize;
        Document {
            front_matter: None,
            properties,
            blocks: self.outline(size),
        }
    }

    fn journal_page(&mut self) -> Document {
        let size = self.rng.heavy_tail(3, 150) as usize;
        Document {
            front_matter: None,
            properties: Properties::new(),
            blocks: self.outline(size),
        }
    }

    /// About `size` blocks: top-level blocks with nested children, sections on large pages.
    fn outline(&mut self, size: usize) -> Vec<ParsedBlock> {
        let mut budget = size;
        let mut blocks = Vec::new();
        while budget > 0 {
            budget -= 1;
            let mut block = if size >= 40 && self.rng.percent(15) {
                let heading = capitalized(&self.words(1, 4));
                self.block_with_text(format!("## {heading}"))
            } else {
                self.block()
            };
            self.add_children(&mut block, 1, &mut budget);
            blocks.push(block);
        }
        blocks
    }

    fn add_children(&mut self, parent: &mut ParsedBlock, level: usize, budget: &mut usize) {
        const CHILD_PERCENT: [u64; MAX_LEVELS] = [0, 45, 35, 25, 18, 12];
        if level >= MAX_LEVELS || *budget == 0 || !self.rng.percent(CHILD_PERCENT[level]) {
            return;
        }
        let count = self.rng.between(1, 4).min(*budget);
        for _ in 0..count {
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            let mut child = self.block();
            self.add_children(&mut child, level + 1, budget);
            parent.children.push(child);
        }
        if self.rng.percent(15) {
            parent.properties.insert("collapsed".into(), "true".into());
        }
    }

    fn block(&mut self) -> ParsedBlock {
        let text = match self.rng.weighted(&[46, 18, 10, 6, 5, 3, 2, 3, 2, 4, 1]) {
            0 => self.sentence(),
            1 => self.task(),
            2 => format!("[[{}]] {}", self.page_link(), self.sentence_lower()),
            3 => {
                let lines = self.rng.between(2, 4);
                (0..lines)
                    .map(|_| self.sentence())
                    .collect::<Vec<_>>()
                    .join("\n")
            }
            4 if !self.refs.is_empty() => {
                let target = self.rng.pick(&self.refs).clone();
                format!("{} (({target}))", self.sentence())
            }
            5 => self.code_block(),
            6 => format!("> {}", self.sentence()),
            7 => format!(
                "Read [{}](https://{}.example.com/{}) {}",
                self.words(2, 4),
                self.rng.word(NOUNS),
                self.rng.word(NOUNS),
                self.sentence_lower()
            ),
            8 if !self.refs.is_empty() => {
                format!("{{{{embed (({}))}}}}", self.rng.pick(&self.refs).clone())
            }
            9 => format!("{} #[[{}]]", self.sentence(), self.multi_word_tag()),
            _ => self.sentence(),
        };
        self.block_with_text(text)
    }

    /// A block with `text` and, now and then, properties; some get an `id::` so that later
    /// blocks can reference them.
    fn block_with_text(&mut self, text: String) -> ParsedBlock {
        self.blocks += 1;
        let mut properties = Properties::new();
        if self.rng.percent(5) {
            let (key, value) = match self.rng.below(5) {
                0 => ("source", format!("[[{}]]", self.page_link())),
                1 => ("owner", format!("[[{}]]", self.person())),
                2 => ("effort", format!("{}h", self.rng.between(1, 16))),
                3 => ("rating", self.rng.between(1, 5).to_string()),
                _ => (
                    "url",
                    format!(
                        "https://{}.example.org/{}",
                        self.rng.word(NOUNS),
                        self.rng.word(NOUNS)
                    ),
                ),
            };
            properties.insert(key.into(), value);
        }
        if self.rng.percent(3) {
            let id = self.uuid();
            properties.insert("id".into(), id.clone());
            self.refs.push(id);
        }
        ParsedBlock {
            text,
            properties,
            children: Vec::new(),
        }
    }

    fn task(&mut self) -> String {
        const MARKERS: [&str; 7] = [
            "TODO", "DOING", "DONE", "LATER", "NOW", "WAITING", "CANCELED",
        ];
        let marker = MARKERS[self.rng.weighted(&[35, 8, 30, 10, 5, 6, 6])];
        let priority = match self.rng.below(8) {
            0 => "[#A] ",
            1 => "[#B] ",
            2 => "[#C] ",
            _ => "",
        };
        let mut text = format!("{marker} {priority}{}", self.sentence());
        if self.rng.percent(12) {
            let day = self.journal_day();
            let keyword = if self.rng.percent(50) {
                "SCHEDULED"
            } else {
                "DEADLINE"
            };
            text.push_str(&format!(
                "\n{keyword}: <{} {}>",
                day.format("%Y-%m-%d"),
                day.weekday()
            ));
        }
        text
    }

    fn code_block(&mut self) -> String {
        let (language, lines) = *self.rng.pick(CODE);
        format!(
            "{}\n```{language}\n{}\n```",
            self.sentence(),
            lines.join("\n")
        )
    }

    /// Four to eighteen words with links and tags mixed in, capitalized, with a full stop.
    fn sentence(&mut self) -> String {
        capitalized(&self.sentence_lower())
    }

    fn sentence_lower(&mut self) -> String {
        let count = self.rng.between(4, 18);
        let mut out = String::new();
        for i in 0..count {
            if i > 0 {
                out.push(' ');
            }
            match self.rng.below(100) {
                0..4 => out.push_str(&format!("[[{}]]", self.page_link())),
                4..6 => out.push_str(&format!("[[{}]]", self.journal_link())),
                6..8 => out.push_str(&format!("#{}", self.tag_name())),
                _ => out.push_str(self.rng.word(WORDS)),
            }
        }
        out.push('.');
        out
    }

    fn words(&mut self, low: usize, high: usize) -> String {
        let count = self.rng.between(low, high);
        (0..count)
            .map(|_| self.rng.word(WORDS))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// An existing page: half the time a popular one (a Pareto draw over the page order), so
    /// that a few pages collect most backlinks, as hubs do in real notes.
    fn page_link(&mut self) -> String {
        let count = self.topics.len() as u64;
        let index = if self.rng.percent(50) {
            self.rng.heavy_tail(1, count) - 1
        } else {
            self.rng.below(count)
        };
        self.topics[index as usize].name.clone()
    }

    fn person(&mut self) -> String {
        // The first person page when there is one; a made-up name (a page yet to be written,
        // as in real notes) otherwise.
        for _ in 0..8 {
            let candidate = &self.topics[self.rng.below(self.topics.len() as u64) as usize];
            if candidate.kind == TopicKind::Person {
                return candidate.name.clone();
            }
        }
        format!(
            "{} {}",
            self.rng.word(FIRST_NAMES),
            self.rng.word(LAST_NAMES)
        )
    }

    fn journal_day(&mut self) -> NaiveDate {
        let span = self.journals.max(1) as u64;
        self.first_journal + Days::new(self.rng.below(span))
    }

    fn journal_link(&mut self) -> String {
        self.journal_day().format("%Y-%m-%d").to_string()
    }

    fn tag_name(&mut self) -> String {
        self.rng.word(TAGS).to_string()
    }

    fn multi_word_tag(&mut self) -> String {
        format!("{} {}", self.rng.word(ADJECTIVES), self.rng.word(NOUNS))
    }

    /// A Logseq-style block uuid (version 4 layout).
    fn uuid(&mut self) -> String {
        let high = self.rng.next_u64();
        let low = self.rng.next_u64();
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            high >> 32,
            (high >> 16) & 0xffff,
            high & 0x0fff,
            0x8000 | ((low >> 48) & 0x3fff),
            low & 0xffff_ffff_ffff
        )
    }
}

const FIRST_NAMES: &[&str] = &[
    "Priya", "Bob", "Tomás", "Aiko", "Lena", "Marcus", "Sofia", "Omar", "Nina", "Jakob", "Chen",
    "Fatima", "Lucas", "Zoë", "Mateo", "Ingrid", "Kwame", "Elif", "Ravi", "Hana", "Diego", "Maya",
    "Oskar", "Amara", "Felix", "Yuki", "Sara", "Idris", "Clara", "Noah",
];

const LAST_NAMES: &[&str] = &[
    "Raman", "Lindgren", "Silva", "Tanaka", "Fischer", "Okafor", "Rossi", "Haddad", "Novak",
    "Berg", "Wang", "Khan", "Moreau", "Jansen", "Garcia", "Larsen", "Mensah", "Yilmaz", "Patel",
    "Kim", "Alvarez", "Cohen", "Nilsson", "Adeyemi", "Weber", "Sato", "Costa", "Bakker",
];

const PROJECTS: &[&str] = &[
    "apollo", "hermes", "atlas", "orion", "juniper", "falcon", "cedar", "nimbus", "polaris",
    "quartz", "sequoia", "tundra", "vega", "willow", "zephyr", "beacon", "comet", "delta", "ember",
    "fjord", "granite", "harbor", "iris", "kestrel", "lumen", "meridian",
];

const AREAS: &[&str] = &[
    "areas", "topics", "clients", "research", "ops", "health", "finance", "home", "learning",
    "writing", "travel", "hiring",
];

const ROLES: &[&str] = &[
    "product designer",
    "backend engineer",
    "founder",
    "sales lead",
    "customer success",
    "data analyst",
    "mobile engineer",
    "advisor",
    "recruiter",
    "clinic owner",
];

const FOODS: &[&str] = &[
    "lentil",
    "soup",
    "shakshuka",
    "curry",
    "risotto",
    "salad",
    "bread",
    "noodles",
    "tacos",
    "stew",
    "pancakes",
    "dumplings",
    "pie",
    "chili",
    "pasta",
    "granola",
];

const TAGS: &[&str] = &[
    "launch", "incident", "idea", "reading", "meeting", "followup", "blocked", "design", "pricing",
    "hiring", "health", "writing", "bug", "research", "question", "decision", "customer", "ops",
    "travel", "finance",
];

const ADJECTIVES: &[&str] = &[
    "quiet",
    "rapid",
    "shared",
    "open",
    "hidden",
    "weekly",
    "remote",
    "simple",
    "local",
    "visual",
    "lean",
    "stable",
    "early",
    "deep",
    "clear",
    "modular",
    "mobile",
    "public",
    "urban",
    "digital",
    "careful",
    "second",
    "golden",
    "small",
    "patient",
    "honest",
    "slow",
    "curious",
    "human",
    "practical",
];

const NOUNS: &[&str] = &[
    "pricing",
    "onboarding",
    "roadmap",
    "interviews",
    "checklist",
    "retention",
    "billing",
    "search",
    "analytics",
    "reminders",
    "calendar",
    "design",
    "hiring",
    "budget",
    "garden",
    "fitness",
    "writing",
    "reading",
    "habits",
    "architecture",
    "testing",
    "security",
    "support",
    "marketing",
    "strategy",
    "culture",
    "feedback",
    "metrics",
    "sync",
    "notes",
    "planning",
    "storage",
    "compiler",
    "database",
    "network",
    "protocol",
    "interface",
    "workflow",
    "migration",
    "release",
    "memory",
    "language",
    "systems",
    "teams",
    "research",
    "leadership",
];

const WORDS: &[&str] = &[
    "the", "a", "and", "to", "of", "in", "for", "with", "on", "we", "it", "is", "that", "this",
    "team", "call", "meeting", "draft", "review", "plan", "send", "check", "fix", "ship", "write",
    "read", "ask", "update", "decide", "move", "test", "price", "customer", "clinic", "release",
    "build", "notes", "idea", "question", "week", "today", "tomorrow", "next", "after", "before",
    "about", "because", "still", "maybe", "really", "first", "last", "new", "old", "small", "big",
    "quick", "slow", "open", "done", "later", "again", "more", "less", "data", "page", "email",
    "invoice", "design", "feedback", "bug", "issue", "flow", "screen", "app", "server", "budget",
    "goal", "risk", "option", "detail", "summary", "draft", "version", "users", "sales", "launch",
    "demo", "contract", "report", "chapter", "recipe", "walk", "run", "sleep", "coffee", "lunch",
    "train", "weekend", "morning", "evening",
];

const CODE: &[(&str, &[&str])] = &[
    (
        "rust",
        &[
            "fn main() {",
            "    let total: u64 = (1..=10).sum();",
            "    println!(\"{total}\");",
            "}",
        ],
    ),
    (
        "sql",
        &[
            "select clinic, count(*) as no_shows",
            "from appointments",
            "where status = 'missed'",
            "group by clinic;",
        ],
    ),
    (
        "yaml",
        &["steps:", "- checkout", "- run: cargo test --workspace"],
    ),
    (
        "bash",
        &["git log --oneline | head -20", "rg -n 'TODO' src/"],
    ),
    (
        "python",
        &[
            "def no_show_rate(visits):",
            "    missed = sum(1 for v in visits if v.missed)",
            "    return missed / max(len(visits), 1)",
        ],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use outl_format::parse;
    use outl_workspace::Workspace;

    fn pages_of(count: usize, seed: u64) -> (Vec<GeneratedPage>, Summary) {
        pages_in(count, seed, Styles::CANONICAL)
    }

    fn pages_in(count: usize, seed: u64, styles: Styles) -> (Vec<GeneratedPage>, Summary) {
        let mut pages = Vec::new();
        let summary = generate(count, seed, styles, |page| {
            pages.push(page);
            Ok(())
        })
        .expect("in-memory generation cannot fail");
        (pages, summary)
    }

    #[test]
    fn same_count_and_seed_write_the_same_bytes() {
        let dirs = [
            tempfile::tempdir().expect("temp dir"),
            tempfile::tempdir().expect("temp dir"),
        ];
        for dir in &dirs {
            write_workspace(dir.path(), 120, 42, Styles::CANONICAL).expect("generate");
        }
        let files = |root: &Path| {
            let mut out = Vec::new();
            for sub in ["pages", "journals"] {
                for entry in std::fs::read_dir(root.join(sub)).expect("a folder") {
                    let path = entry.expect("an entry").path();
                    let bytes = std::fs::read(&path).expect("a file");
                    let name = path.strip_prefix(root).expect("inside").to_owned();
                    out.push((name, bytes));
                }
            }
            out.sort();
            out
        };
        let first = files(dirs[0].path());
        assert_eq!(first.len(), 120);
        assert!(first == files(dirs[1].path()), "two runs differ");

        let (other_seed, _) = pages_of(120, 43);
        let other: Vec<_> = other_seed.iter().map(|p| p.markdown.as_bytes()).collect();
        let same: Vec<_> = first.iter().map(|(_, bytes)| bytes.as_slice()).collect();
        assert_ne!(other, same, "the seed changes nothing");
    }

    #[test]
    fn pages_are_canonical_and_use_the_whole_format() {
        let (pages, summary) = pages_of(600, 7);
        assert_eq!(summary.journals, 200);
        assert_eq!(summary.pages, 400);
        let all: String = pages.iter().map(|p| p.markdown.as_str()).collect();
        for page in &pages {
            assert_eq!(
                serialize(&parse(&page.markdown)),
                page.markdown,
                "{} is not canonical",
                page.file
            );
        }
        for needle in [
            "TODO ",
            "DOING ",
            "DONE ",
            "LATER ",
            "NOW ",
            "WAITING ",
            "CANCELED ",
            "[#A]",
            "SCHEDULED: <",
            "collapsed:: true",
            "id:: ",
            "((",
            "{{embed ((",
            "[[",
            "#[[",
            "```rust",
            "tags:: ",
            "type:: ",
            "\n\t\t\t\t\t- ",
            "](https://",
            "- > ",
        ] {
            assert!(all.contains(needle), "no page uses {needle:?}");
        }
        assert!(
            pages.iter().any(|p| p.file.contains("___")),
            "no namespaces"
        );
        assert!(!all.contains("\n\t\t\t\t\t\t- "), "deeper than six levels");
        let sizes: Vec<usize> = pages.iter().map(|p| p.markdown.len()).collect();
        let largest = sizes.iter().max().copied().unwrap_or(0);
        let mut sorted = sizes.clone();
        sorted.sort_unstable();
        assert!(largest > 20 * sorted[sorted.len() / 2], "no long tail");
    }

    /// 200 pages of seed 5 in the canonical style, then in `styles`.
    fn canonical_and_styled(styles: Styles) -> (Vec<GeneratedPage>, Vec<GeneratedPage>) {
        (pages_of(200, 5).0, pages_in(200, 5, styles).0)
    }

    #[test]
    fn styled_pages_say_what_canonical_ones_do() {
        let styles = Styles {
            front_matter: false,
            indent_spaces: Some(2),
            crlf: true,
            no_final_newline: true,
            org: false,
            share: 50,
        };
        let (canonical, styled) = canonical_and_styled(styles);
        let restyled = styled
            .iter()
            .zip(&canonical)
            .filter(|(styled, canonical)| styled.markdown != canonical.markdown)
            .inspect(|(styled, canonical)| {
                assert_eq!(styled.file, canonical.file);
                assert!(styled.markdown.contains("\r\n") && !styled.markdown.ends_with('\n'));
                let lines = styled.markdown.split("\r\n");
                assert!(lines.clone().all(|line| !line.starts_with('\t')));
                assert_eq!(
                    parse(&styled.markdown),
                    parse(&canonical.markdown),
                    "{}",
                    styled.file
                );
            })
            .count();
        assert!(
            (60..140).contains(&restyled),
            "{restyled} of 200 pages styled"
        );
    }

    #[test]
    fn org_pages_say_what_canonical_ones_do_and_open_as_org() {
        let styles = Styles {
            org: true,
            crlf: true,
            share: 50,
            ..Styles::CANONICAL
        };
        let (canonical, styled) = canonical_and_styled(styles);
        let org_pages = styled
            .iter()
            .zip(&canonical)
            .filter(|(styled, _)| styled.file.ends_with(".org"))
            .inspect(|(styled, canonical)| {
                assert_eq!(
                    styled.file.trim_end_matches(".org"),
                    canonical.file.trim_end_matches(".md")
                );
                assert!(styled.markdown.contains("\r\n"));
                assert_eq!(
                    Syntax::Org.parse(&styled.markdown),
                    parse(&canonical.markdown),
                    "{}",
                    styled.file
                );
            })
            .count();
        assert!(
            (60..140).contains(&org_pages),
            "{org_pages} of 200 pages in org"
        );
        let all: String = styled.iter().map(|p| p.markdown.as_str()).collect();
        for needle in [":PROPERTIES:\r\n:id: ", "\r\n** ", "#+TAGS: "] {
            assert!(all.contains(needle), "no org page uses {needle:?}");
        }
        let dir = tempfile::tempdir().expect("temp dir");
        write_workspace(dir.path(), 200, 5, styles).expect("generate");
        let ws = Workspace::open(dir.path()).expect("open");
        assert_eq!(ws.snapshot().page_count(), 200);
    }

    #[test]
    fn every_link_and_ref_resolves_in_the_opened_workspace() {
        let dir = tempfile::tempdir().expect("temp dir");
        let summary = write_workspace(dir.path(), 300, 11, Styles::CANONICAL).expect("generate");
        let ws = Workspace::open(dir.path()).expect("open");
        let graph = ws.snapshot();
        assert_eq!(graph.page_count(), 300);
        assert!(graph.shadowed().is_empty() && graph.skipped().is_empty());
        assert_eq!(graph.block_count(), summary.blocks);
        let (pages, _) = pages_of(300, 11);
        let mut refs = 0;
        for page in &pages {
            if let Some(date) = page.file.strip_prefix("journals/") {
                let date = date.trim_end_matches(".md").replace('_', "-");
                assert!(graph.resolve(&date).is_some(), "no journal {date}");
            } else {
                let name = page.file["pages/".len()..]
                    .trim_end_matches(".md")
                    .replace("___", "/");
                let found = graph
                    .resolve(&name)
                    .unwrap_or_else(|| panic!("no page {name}"));
                assert_eq!(found.name, name);
            }
            for target in outl_format::block_refs(&page.markdown) {
                assert!(graph.block(&target).is_some(), "dangling ref {target}");
                refs += 1;
            }
        }
        assert!(refs > 0);
    }
}
