//! A graph's settings: Logseq's `logseq/config.edn`, read as the EDN it is.
//!
//! The keys outl honours, with Logseq's defaults (a key that is missing, or whose value has
//! the wrong type, keeps its default):
//!
//! | key | default | what it changes |
//! | --- | --- | --- |
//! | `:file/name-format` | legacy | `:triple-lowbar`: a `.` in a file name is a dot, not a namespace separator |
//! | `:journal/page-title-format` (or the older `:date-formatter`) | `MMM do, yyyy` | a journal day's title: `[[Feb 26th, 2021]]` links that day |
//! | `:journal/file-name-format` | `yyyy_MM_dd` | the file name of a journal day |
//! | `:preferred-workflow` | `:now` | the markers of a new task: `LATER`/`NOW`, or `TODO`/`DOING` for `:todo` |
//! | `:hidden` | none | folders and files that are not pages (`"/archived"`, `"test.md"`) |
//! | `:property-pages/enabled?` | `true` | a property key links the page of its name |
//! | `:property-pages/excludelist` | none | keys that do not |
//! | `:property/separated-by-commas` | none | keys whose values are comma-separated page names, as `tags` and `alias` |
//! | `:ignored-page-references-keywords` | none | keys whose values link nothing |
//!
//! A file that is not EDN (or whose top level is not a map) is reported, with the reader's
//! message and position, and every key keeps its default: the graph still opens. A date
//! pattern that cannot name a day is reported likewise, and its default applies.

use std::path::Path;
use std::sync::LazyLock;

use chrono::NaiveDate;
use clojure_reader::edn::{self, Edn};
use serde::Serialize;

use super::date_format::DateFormat;
use super::names::{self, JOURNALS_DIR, NameFormat};
use outl_format::TaskMarker;

/// Where the config is, relative to the workspace.
pub const CONFIG_FILE: &str = "logseq/config.edn";

/// Logseq's journal title pattern when the config sets none: `Feb 26th, 2021`.
pub const DEFAULT_TITLE_FORMAT: &str = "MMM do, yyyy";
/// Logseq's journal file name pattern when the config sets none: `2021_02_26`.
pub const DEFAULT_FILE_FORMAT: &str = "yyyy_MM_dd";

/// The patterns every graph reads as journal titles besides its own, as Logseq does:
/// `Feb 26th, 2021`, `2021-02-26`, `2021_02_26`.
static ALWAYS_DAY_TITLES: LazyLock<[DateFormat; 3]> =
    LazyLock::new(|| [DEFAULT_TITLE_FORMAT, "yyyy-MM-dd", DEFAULT_FILE_FORMAT].map(default_format));

/// Property keys Logseq keeps for itself: their values never link pages, and they get no
/// property page. `tags`, `alias` and `aliases` are not among them: their values link.
const BUILT_IN_KEYS: &[&str] = &[
    // Hidden from the user.
    "id",
    "custom-id",
    "background-color",
    "background_color",
    "heading",
    "collapsed",
    "created-at",
    "updated-at",
    "last-modified-at",
    "created_at",
    "last_modified_at",
    "query-table",
    "query-properties",
    "query-sort-by",
    "query-sort-desc",
    "ls-type",
    "hl-type",
    "hl-page",
    "hl-stamp",
    "hl-color",
    "logseq.macro-name",
    "logseq.macro-arguments",
    "logseq.order-list-type",
    "logseq.tldraw.page",
    "logseq.tldraw.shape",
    "todo",
    "doing",
    "now",
    "later",
    "done",
    // Shown and edited.
    "title",
    "icon",
    "template",
    "template-including-parent",
    "public",
    "filters",
    "exclude-from-graph-view",
    "logseq.query/nlp-date",
    "macro",
    "filetags",
    "logseq.color",
    "logseq.table.version",
    "logseq.table.compact",
    "logseq.table.headers",
    "logseq.table.hover",
    "logseq.table.borders",
    "logseq.table.stripes",
    "logseq.table.max-width",
];

/// Keys whose values are comma-separated page names whatever the config says.
const PAGE_LIST_KEYS: &[&str] = &["tags", "alias", "aliases"];

/// Which markers a new task gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Workflow {
    /// `LATER`, then `NOW`: Logseq's default.
    #[default]
    Now,
    /// `TODO`, then `DOING`.
    Todo,
}

impl Workflow {
    /// The marker of a task not started.
    pub fn todo(self) -> TaskMarker {
        match self {
            Workflow::Now => TaskMarker::Later,
            Workflow::Todo => TaskMarker::Todo,
        }
    }

    /// The marker of a task being done.
    pub fn doing(self) -> TaskMarker {
        match self {
            Workflow::Now => TaskMarker::Now,
            Workflow::Todo => TaskMarker::Doing,
        }
    }
}

/// What is wrong with the config, as `outl_workspace_info` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigProblem {
    /// The config file, relative to the workspace.
    pub file: &'static str,
    pub message: String,
    /// Where the reader stopped, counting from 1, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl ConfigProblem {
    fn new(message: String) -> ConfigProblem {
        ConfigProblem {
            file: CONFIG_FILE,
            message,
            line: None,
            column: None,
        }
    }
}

/// A graph's settings, each with Logseq's default when the config does not set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphConfig {
    /// `:file/name-format`.
    pub name_format: NameFormat,
    /// `:journal/page-title-format`.
    pub journal_title: DateFormat,
    /// `:journal/file-name-format`.
    pub journal_file: DateFormat,
    /// `:preferred-workflow`.
    pub workflow: Workflow,
    /// `:hidden`: paths relative to the graph, as written (`"/archived"`, `"test.md"`).
    pub hidden: Vec<String>,
    /// `:property-pages/enabled?`.
    pub property_pages: bool,
    /// `:property-pages/excludelist`, lowercased.
    pub property_pages_excluded: Vec<String>,
    /// `:property/separated-by-commas`, lowercased.
    pub comma_separated: Vec<String>,
    /// `:ignored-page-references-keywords`, lowercased.
    pub ignored_references: Vec<String>,
    /// What could not be read; empty for a config read whole, or no config at all.
    pub problems: Vec<ConfigProblem>,
}

impl Default for GraphConfig {
    fn default() -> GraphConfig {
        GraphConfig {
            // A graph without a config is one outl made: its file names are the new format.
            name_format: NameFormat::default(),
            journal_title: default_format(DEFAULT_TITLE_FORMAT),
            journal_file: default_format(DEFAULT_FILE_FORMAT),
            workflow: Workflow::default(),
            hidden: Vec::new(),
            property_pages: true,
            property_pages_excluded: Vec::new(),
            comma_separated: Vec::new(),
            ignored_references: Vec::new(),
            problems: Vec::new(),
        }
    }
}

fn default_format(pattern: &str) -> DateFormat {
    DateFormat::new(pattern).expect("the default date patterns name a day")
}

impl GraphConfig {
    /// The config of the graph at `root`: its `logseq/config.edn`, or the defaults when it
    /// has none.
    pub fn read(root: &Path) -> GraphConfig {
        match std::fs::read(root.join(CONFIG_FILE)) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => GraphConfig::parse(&text),
                Err(_) => {
                    GraphConfig::broken(ConfigProblem::new("the file is not UTF-8 text".into()))
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => GraphConfig::default(),
            Err(e) => GraphConfig::broken(ConfigProblem::new(format!("cannot read: {e}"))),
        }
    }

    /// The config a `config.edn` text gives.
    pub fn parse(text: &str) -> GraphConfig {
        let read = edn::read_string(text);
        let map = match &read {
            Ok(Edn::Map(map)) => map,
            // A file of nothing but comments.
            Ok(Edn::Nil) if text.trim().is_empty() || is_only_comments(text) => {
                return GraphConfig::legacy();
            }
            Ok(other) => {
                return GraphConfig::broken(ConfigProblem::new(format!(
                    "the config is not a map ({{:key value …}}) but {}",
                    kind_of(other)
                )));
            }
            Err(e) => {
                return GraphConfig::broken(ConfigProblem {
                    file: CONFIG_FILE,
                    message: format!("not EDN: {}", reader_message(&e.code)),
                    line: e.line,
                    column: e.column,
                });
            }
        };
        let mut config = GraphConfig::legacy();
        let get = |key: &'static str| map.get(&Edn::Key(key.into()));
        let mut problems = Vec::new();
        if let Some(value) = get("file/name-format") {
            match value {
                Edn::Key(format) => {
                    config.name_format = NameFormat {
                        legacy_dots: format != "triple-lowbar",
                    }
                }
                _ => wrong(
                    &mut problems,
                    "file/name-format",
                    "a keyword such as :triple-lowbar",
                ),
            }
        }
        let title = get("journal/page-title-format").or_else(|| get("date-formatter"));
        for (key, value, slot) in [
            (
                "journal/page-title-format",
                title,
                &mut config.journal_title,
            ),
            (
                "journal/file-name-format",
                get("journal/file-name-format"),
                &mut config.journal_file,
            ),
        ] {
            match value {
                None => {}
                Some(Edn::Str(pattern)) => match DateFormat::new(pattern) {
                    Ok(format) => *slot = format,
                    Err(bad) => problems.push(ConfigProblem::new(format!(
                        ":{key}: {bad}; its default applies"
                    ))),
                },
                Some(_) => wrong(&mut problems, key, "a string such as \"MMM do, yyyy\""),
            }
        }
        if let Some(value) = get("preferred-workflow") {
            // Logseq takes any value that says `now` for `:now`, anything else for `:todo`.
            match value {
                Edn::Key(name) | Edn::Str(name) | Edn::Symbol(name) => {
                    config.workflow = if name.contains("now") || name.contains("NOW") {
                        Workflow::Now
                    } else {
                        Workflow::Todo
                    }
                }
                _ => wrong(&mut problems, "preferred-workflow", ":now or :todo"),
            }
        }
        if let Some(value) = get("hidden") {
            match strings(value, false) {
                Some(paths) => config.hidden = paths,
                None => wrong(
                    &mut problems,
                    "hidden",
                    "a vector of paths such as [\"/archived\"]",
                ),
            }
        }
        if let Some(value) = get("property-pages/enabled?") {
            match value {
                Edn::Bool(enabled) => config.property_pages = *enabled,
                Edn::Nil => {}
                _ => wrong(&mut problems, "property-pages/enabled?", "true or false"),
            }
        }
        for (key, slot) in [
            (
                "property-pages/excludelist",
                &mut config.property_pages_excluded,
            ),
            ("property/separated-by-commas", &mut config.comma_separated),
            (
                "ignored-page-references-keywords",
                &mut config.ignored_references,
            ),
        ] {
            if let Some(value) = get(key) {
                match strings(value, true) {
                    Some(keys) => *slot = keys,
                    None => wrong(&mut problems, key, "a set of keys such as #{:author}"),
                }
            }
        }
        config.problems = problems;
        config
    }

    /// The defaults, with the legacy file name format: what Logseq assumes of a graph whose
    /// config does not name one.
    fn legacy() -> GraphConfig {
        GraphConfig {
            name_format: NameFormat { legacy_dots: true },
            ..GraphConfig::default()
        }
    }

    fn broken(problem: ConfigProblem) -> GraphConfig {
        GraphConfig {
            problems: vec![problem],
            ..GraphConfig::legacy()
        }
    }

    /// The journal day a page name names, as Logseq reads one: a title in the graph's format
    /// (`Feb 26th, 2021` by default), in the default one, or an ISO or file-name date
    /// (`2021-02-26`, `2021_02_26`); any case.
    pub fn journal_day(&self, name: &str) -> Option<NaiveDate> {
        let name = name.trim();
        // Every day pattern has a number in it; most names have none.
        if !name.bytes().any(|b| b.is_ascii_digit()) {
            return None;
        }
        std::iter::once(&self.journal_title)
            .chain(ALWAYS_DAY_TITLES.iter())
            .find_map(|format| format.parse(name))
    }

    /// The journal day a file body under `journals/` stands for: a date in the graph's file
    /// name format, or any name [`journal_day`](Self::journal_day) reads.
    pub fn journal_day_of_stem(&self, stem: &str) -> Option<NaiveDate> {
        self.journal_file
            .parse(stem)
            .or_else(|| self.journal_day(stem))
    }

    /// The title of a journal day in the graph's format: `Feb 26th, 2021` by default.
    pub fn journal_title_of(&self, date: NaiveDate) -> String {
        self.journal_title.format(date)
    }

    /// The file of a journal day: `journals/` and the day in the graph's file name format
    /// (`journals/2021_02_26.md` by default). A format that would not give one plain file name
    /// (a `/` in it) gives the default one's.
    pub fn journal_file_of(&self, date: NaiveDate) -> String {
        let body = self.journal_file.format(date);
        let body = if body.contains(['/', '\\'])
            || body.starts_with('.')
            || body.chars().any(char::is_control)
        {
            default_format(DEFAULT_FILE_FORMAT).format(date)
        } else {
            body
        };
        format!("{JOURNALS_DIR}/{body}.md")
    }

    /// The slug of the page a link to `name` points to: the journal day's ISO date when the
    /// name is a day's title ([`journal_day`](Self::journal_day)), else the name's slug.
    pub fn link_slug(&self, name: &str) -> String {
        match self.journal_day(name) {
            Some(date) => names::journal_slug(date),
            None => names::slug(name),
        }
    }

    /// A digest of the settings: a graph cached with other settings is read again.
    pub fn digest(&self) -> [u8; 32] {
        *blake3::hash(format!("{self:?}").as_bytes()).as_bytes()
    }

    /// Whether the values of property `key` (any case) are comma-separated page names:
    /// `tags`, `alias`, `aliases` and the keys of `:property/separated-by-commas`.
    pub fn is_page_list(&self, key: &str) -> bool {
        let key = key.to_lowercase();
        PAGE_LIST_KEYS.contains(&key.as_str()) || self.comma_separated.contains(&key)
    }

    /// Whether the values of property `key` (any case) may link pages: not those of Logseq's
    /// own keys (`id`, `collapsed`, `title`, …) nor those of
    /// `:ignored-page-references-keywords`.
    pub fn links_values(&self, key: &str) -> bool {
        let key = key.to_lowercase();
        PAGE_LIST_KEYS.contains(&key.as_str())
            || !(BUILT_IN_KEYS.contains(&key.as_str()) || self.ignored_references.contains(&key))
    }

    /// Whether property `key` (any case) links the page of its own name
    /// (`:property-pages/enabled?`): any key but Logseq's own and those excluded.
    pub fn has_property_page(&self, key: &str) -> bool {
        let key = key.to_lowercase();
        self.property_pages
            && !key.is_empty()
            && !PAGE_LIST_KEYS.contains(&key.as_str())
            && !BUILT_IN_KEYS.contains(&key.as_str())
            && !self.property_pages_excluded.contains(&key)
    }
}

/// Notes that `key` has a value of the wrong type.
fn wrong(problems: &mut Vec<ConfigProblem>, key: &str, expected: &str) {
    problems.push(ConfigProblem::new(format!(
        ":{key} should be {expected}; its default applies"
    )));
}

fn is_only_comments(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .all(|line| line.is_empty() || line.starts_with(';'))
}

/// The strings of a vector, list or set of strings (or, with `keys`, keywords too, lowercased
/// without their colon, sorted); `None` if it holds anything else.
fn strings(value: &Edn<'_>, keys: bool) -> Option<Vec<String>> {
    let items: Vec<&Edn<'_>> = match value {
        Edn::Vector(items) | Edn::List(items) => items.iter().collect(),
        Edn::Set(items) => items.iter().collect(),
        Edn::Nil => Vec::new(),
        _ => return None,
    };
    let mut strings = items
        .into_iter()
        .map(|item| match item {
            Edn::Str(s) if keys => Some(s.to_lowercase()),
            Edn::Str(s) => Some(s.to_string()),
            Edn::Key(k) | Edn::Symbol(k) if keys => Some(k.to_lowercase()),
            _ => None,
        })
        .collect::<Option<Vec<String>>>()?;
    if keys {
        strings.sort();
        strings.dedup();
    }
    Some(strings)
}

fn kind_of(value: &Edn<'_>) -> &'static str {
    match value {
        Edn::Vector(_) => "a vector",
        Edn::Set(_) => "a set",
        Edn::List(_) => "a list",
        Edn::Nil => "nil",
        Edn::Str(_) => "a string",
        Edn::Key(_) => "a keyword",
        _ => "a single value",
    }
}

/// The reader's error in words.
fn reader_message(code: &clojure_reader::error::Code) -> String {
    use clojure_reader::error::Code;
    match code {
        Code::HashMapDuplicateKey => "a map has the same key twice".into(),
        Code::SetDuplicateKey => "a set has the same item twice".into(),
        Code::InvalidChar => "a character that cannot appear here".into(),
        Code::InvalidEscape => "a string escape the reader does not know".into(),
        Code::InvalidKeyword => "a keyword that is not valid".into(),
        Code::InvalidNumber => "a number that is not valid".into(),
        Code::InvalidTag => "a # tag that is not valid".into(),
        Code::UnexpectedEOF => "the file ends inside an unclosed form".into(),
        Code::UnmatchedDelimiter(c) => format!("an unmatched {c:?}"),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A config in the style of the one Logseq writes for a new graph.
    const STYLED: &str = r###"{:meta/version 1

 ;; Workflow: :now (LATER/NOW) or :todo (TODO/DOING).
 :preferred-workflow :todo

 ;; Folders and files left out of the graph.
 ;; E.g. :hidden ["/archived" "/test.md" "../assets/archived"]
 :hidden ["/archived" "drafts/old.md"]

 :journal/page-title-format "EEE, dd.MM.yyyy"
 ;; :journal/file-name-format "yyyy_MM_dd"

 :default-templates {:journals "## Morning\n- \"quoted\" \\ and a tab:\t."}
 :default-queries
 {:journals
  [{:title "🔨 NOW"
    :query [:find (pull ?h [*])
            :where [?h :block/marker ?m] [(contains? #{"NOW" "DOING"} ?m)]]
    :inputs [:14d :today]
    :collapsed? false}]}
 :ui/show-brackets? true
 :property-pages/enabled? true
 :property-pages/excludelist #{:Duration :author}
 :property/separated-by-commas #{:related :Authors}
 :ignored-page-references-keywords #{:summary "Note"}
 :macros {"poem" "Rose is $1, violet's $2."}
 :ref/linkable-properties #{}
 :zoom-ratio 1.25
 :file/name-format :triple-lowbar}
"###;

    #[test]
    fn a_styled_config_is_read_whole() {
        let config = GraphConfig::parse(STYLED);
        assert_eq!(config.problems, []);
        assert!(!config.name_format.legacy_dots);
        assert_eq!(config.journal_title.pattern(), "EEE, dd.MM.yyyy");
        assert_eq!(config.journal_file.pattern(), DEFAULT_FILE_FORMAT);
        assert_eq!(config.workflow, Workflow::Todo);
        assert_eq!(config.workflow.todo(), TaskMarker::Todo);
        assert_eq!(config.workflow.doing(), TaskMarker::Doing);
        assert_eq!(config.hidden, ["/archived", "drafts/old.md"]);
        assert!(config.property_pages);
        assert_eq!(config.property_pages_excluded, ["author", "duration"]);
        assert!(config.is_page_list("Related") && config.is_page_list("authors"));
        assert!(config.is_page_list("tags") && config.is_page_list("alias"));
        assert!(!config.is_page_list("type"));
        assert!(!config.links_values("summary") && !config.links_values("note"));
        assert!(!config.links_values("id") && !config.links_values("Collapsed"));
        assert!(!config.links_values("title"));
        assert!(config.links_values("type") && config.links_values("tags"));
        assert!(config.has_property_page("type"));
        assert!(!config.has_property_page("author") && !config.has_property_page("tags"));
        assert!(!config.has_property_page("collapsed"));
    }

    #[test]
    fn a_graph_without_a_config_has_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let config = GraphConfig::read(dir.path());
        assert_eq!(config, GraphConfig::default());
        assert_eq!(config.journal_title.pattern(), "MMM do, yyyy");
        assert_eq!(config.journal_file.pattern(), "yyyy_MM_dd");
        assert_eq!(config.workflow.todo(), TaskMarker::Later);
        assert_eq!(config.workflow.doing(), TaskMarker::Now);
        assert!(config.property_pages);
    }

    #[test]
    fn a_config_without_a_name_format_is_on_the_legacy_one() {
        assert!(
            GraphConfig::parse("{:preferred-workflow :now}")
                .name_format
                .legacy_dots
        );
        assert!(
            GraphConfig::parse(";; nothing yet\n")
                .name_format
                .legacy_dots
        );
        assert!(
            GraphConfig::parse("{:file/name-format :legacy}")
                .name_format
                .legacy_dots
        );
    }

    #[test]
    fn a_broken_config_is_reported_where_it_breaks_and_the_defaults_apply() {
        let config = GraphConfig::parse("{:preferred-workflow :todo\n :hidden [\"a\"\n");
        assert_eq!(config.problems.len(), 1);
        let problem = &config.problems[0];
        assert_eq!(problem.file, CONFIG_FILE);
        assert!(problem.message.starts_with("not EDN: "), "{problem:?}");
        assert_eq!(problem.line, Some(3));
        assert!(problem.column.is_some());
        assert_eq!(config.workflow, Workflow::Now);
        assert!(config.hidden.is_empty());

        let unmatched = GraphConfig::parse("{:a [1 2}\n");
        assert_eq!(unmatched.problems[0].line, Some(1));
        assert_eq!(unmatched.problems[0].column, Some(9));

        let vector = GraphConfig::parse("[:not :a :map]");
        assert!(vector.problems[0].message.contains("not a map"));
        assert_eq!(vector.problems[0].line, None);
    }

    #[test]
    fn a_value_of_the_wrong_type_keeps_its_default() {
        let config = GraphConfig::parse(
            r#"{:journal/page-title-format 12
                :journal/file-name-format "yyyy-MM"
                :hidden "archived"
                :property-pages/enabled? "no"
                :property/separated-by-commas #{1}
                :preferred-workflow :todo}"#,
        );
        assert_eq!(config.problems.len(), 5, "{:?}", config.problems);
        assert_eq!(config.journal_title.pattern(), DEFAULT_TITLE_FORMAT);
        assert_eq!(config.journal_file.pattern(), DEFAULT_FILE_FORMAT);
        assert!(config.hidden.is_empty() && config.property_pages);
        assert_eq!(config.workflow, Workflow::Todo);
    }

    #[test]
    fn the_older_date_formatter_key_names_the_title_format() {
        let config = GraphConfig::parse(r#"{:date-formatter "yyyy-MM-dd"}"#);
        assert_eq!(config.journal_title.pattern(), "yyyy-MM-dd");
        let both = GraphConfig::parse(
            r#"{:date-formatter "yyyy-MM-dd" :journal/page-title-format "do MMM yyyy"}"#,
        );
        assert_eq!(both.journal_title.pattern(), "do MMM yyyy");
    }

    #[test]
    fn property_pages_can_be_turned_off() {
        let config = GraphConfig::parse("{:property-pages/enabled? false}");
        assert!(!config.has_property_page("type"));
    }
}
