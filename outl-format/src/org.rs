//! Org pages, Logseq's other page format, read into the same [`Document`] as markdown.
//!
//! - A **headline** (`*`, `**`, … and a space, or the stars alone) opens a block; a headline is
//!   a child of the nearest open block with fewer stars, and a sibling of those with as many.
//!   What follows the stars is the block's first line: task marker, priority and all, as in a
//!   markdown bullet.
//! - A `:PROPERTIES:` … `:END:` **drawer** right under a headline holds the block's properties
//!   (`:key: value`; `:id:` is the block's id, as `id::` is in markdown).
//! - Every other line up to the next headline is a **text line** of the block, its
//!   indentation kept beyond the headline's text column (the stars and the space), so that a
//!   body indented under its headline, as Logseq writes journals, loses only that indent.
//! - **Before the first headline**, `#+KEY: value` lines are the page's properties, keys in
//!   lower case (`#+TITLE:` is `title`, `#+ALIAS:` and `#+TAGS:` are page lists); other text
//!   there opens a first block of its own, as in markdown.
//!
//! Links (`[[page]]`, `[[url][label]]`), `#tags` and `((ref))`s are read from texts by the same
//! inline rules as markdown's. Reading never fails.
//!
//! Writing is Logseq's org style: `*` per level, a block's first line after its stars, its
//! planning lines, then its `:PROPERTIES:` drawer, then its other lines at the margin (a line
//! that starts with a space or a tab, or that would be a headline, goes past the text column,
//! which reading takes off);
//! page properties as `#+KEY: value` lines. What org cannot hold is normalized as
//! [`normalized_for_org`] says.

use super::serialize::{descendants, normalize_properties, normalize_text};
use super::syntax::{
    Fence, directive_begins, directive_ends, drawer_property, lines, lines_at, split_indent,
};
use super::{Document, MAX_DEPTH, ParsedBlock, Properties};

/// Parses an org page, and gives where each block begins (as
/// [`parse_with_starts`](super::parse_with_starts) does for markdown).
pub fn parse_org_with_starts(text: &str) -> (Document, Vec<usize>) {
    let mut reader = OrgReader::default();
    for (offset, line) in lines_at(text, text) {
        reader.line(line, offset, &text[offset + line.len()..]);
    }
    let starts = std::mem::take(&mut reader.starts);
    (reader.finish(), starts)
}

#[derive(Default)]
struct OrgReader {
    page_properties: Properties,
    blocks: Vec<ParsedBlock>,
    /// The open blocks, outermost first, with their headline's number of stars (0 for text
    /// before the first headline).
    open: Vec<(usize, OpenHeadline)>,
    starts: Vec<usize>,
}

struct OpenHeadline {
    node: ParsedBlock,
    /// Where the drawer stands: not reached yet, open, or done with.
    drawer: Drawer,
    /// The column a text line's indentation is kept from.
    text_col: usize,
    /// Blank lines not yet known to be inside the text.
    pending_blanks: usize,
    /// The code fence or `#+BEGIN_` block the text is in, up to its closing line.
    verbatim: Option<Verbatim>,
}

#[derive(Default, PartialEq, Eq, Clone, Copy)]
enum Drawer {
    #[default]
    Expected,
    Open,
    Closed,
}

impl OrgReader {
    /// Reads one line, `after` being the text that follows it.
    fn line(&mut self, line: &str, offset: usize, after: &str) {
        if let Some((_, block)) = self.open.last_mut()
            && block.verbatim.is_some()
        {
            block.body_line(line, after);
            return;
        }
        if let Some((stars, title)) = headline(line) {
            self.starts.push(offset);
            self.open_headline(stars, title, after);
            return;
        }
        let Some((_, block)) = self.open.last_mut() else {
            if line.trim().is_empty() {
                return;
            }
            // Of a key's lines the last gives its value, as Logseq reads them.
            if let Some((key, value)) = page_property(line) {
                self.page_properties.insert(key, value);
                return;
            }
            self.starts.push(offset);
            self.open
                .push((0, OpenHeadline::new(line, 0, Drawer::Closed)));
            return;
        };
        block.body_line(line, after);
    }

    /// Opens the block of a headline, `after` being the text that follows its line.
    fn open_headline(&mut self, stars: usize, title: &str, after: &str) {
        while self.open.last().is_some_and(|(level, _)| *level >= stars) {
            self.close_innermost();
        }
        if self.open.len() == MAX_DEPTH {
            self.close_innermost();
        }
        // mldoc reads a headline whose title opens a drawer that ends as an empty headline
        // over that drawer: its properties are the block's, its id one that refs resolve.
        let block = if title.trim().eq_ignore_ascii_case(":PROPERTIES:") && drawer_ends(after) {
            OpenHeadline::new("", stars + 1, Drawer::Open)
        } else {
            OpenHeadline::new(title, stars + 1, Drawer::Expected)
        };
        self.open.push((stars, block));
    }

    fn close_innermost(&mut self) {
        let Some((_, block)) = self.open.pop() else {
            return;
        };
        let node = block.node;
        match self.open.last_mut() {
            Some((_, parent)) => parent.node.children.push(node),
            None => self.blocks.push(node),
        }
    }

    fn finish(mut self) -> Document {
        while !self.open.is_empty() {
            self.close_innermost();
        }
        Document {
            front_matter: None,
            properties: self.page_properties,
            blocks: self.blocks,
        }
    }
}

impl OpenHeadline {
    fn new(first_line: &str, text_col: usize, drawer: Drawer) -> Self {
        OpenHeadline {
            node: ParsedBlock {
                text: first_line.to_owned(),
                properties: Properties::default(),
                children: Vec::new(),
            },
            drawer,
            text_col,
            pending_blanks: 0,
            verbatim: None,
        }
    }

    fn body_line(&mut self, line: &str, after: &str) {
        let trimmed = line.trim();
        if let Some(verbatim) = &self.verbatim {
            if verbatim.closed_by(line) {
                self.verbatim = None;
            }
            if trimmed.is_empty() {
                self.pending_blanks += 1;
            } else {
                self.push_text(line);
            }
            return;
        }
        match self.drawer {
            Drawer::Expected
                if trimmed.eq_ignore_ascii_case(":PROPERTIES:") && drawer_ends(after) =>
            {
                self.drawer = Drawer::Open;
                return;
            }
            // Blank lines in a drawer are layout.
            Drawer::Open if trimmed.is_empty() => return,
            Drawer::Open => {
                if trimmed.eq_ignore_ascii_case(":END:") {
                    self.drawer = Drawer::Closed;
                } else if let Some((key, value)) = drawer_property(trimmed) {
                    // Of a key's lines the last gives its value, as Logseq reads them.
                    self.node.properties.insert(key, value);
                } else {
                    // A line no drawer holds: the drawer was never a drawer; keep the line.
                    self.push_text(line);
                }
                return;
            }
            _ => {}
        }
        if trimmed.is_empty() {
            self.pending_blanks += 1;
            return;
        }
        // Planning lines (`SCHEDULED: <…>`) may come before the drawer.
        if !is_planning(trimmed) {
            self.drawer = Drawer::Closed;
        }
        self.verbatim = Verbatim::closed_later(line, lines(after));
        self.push_text(line);
    }

    fn push_text(&mut self, line: &str) {
        for _ in 0..std::mem::take(&mut self.pending_blanks) {
            self.node.text.push('\n');
        }
        let (indent, rest) = split_indent(line);
        let kept = indent
            .char_indices()
            .scan(0, |col, (at, c)| {
                *col += if c == '\t' { 4 - *col % 4 } else { 1 };
                Some((at + c.len_utf8(), *col))
            })
            .take_while(|&(_, col)| col <= self.text_col)
            .last()
            .map_or(0, |(at, _)| at);
        self.node.text.push('\n');
        self.node.text.push_str(&indent[kept..]);
        self.node.text.push_str(rest);
    }
}

/// The stars and the title of a headline line: stars at the margin, then a space or nothing.
pub(super) fn headline(line: &str) -> Option<(usize, &str)> {
    let stars = line.bytes().take_while(|&b| b == b'*').count();
    if stars == 0 {
        return None;
    }
    let rest = &line[stars..];
    if rest.is_empty() {
        return Some((stars, ""));
    }
    rest.strip_prefix([' ', '\t']).map(|title| (stars, title))
}

/// `#+KEY: value` as a page property, the key in lower case.
fn page_property(line: &str) -> Option<(String, String)> {
    page_property_line(line).map(|(key, value)| (key.to_lowercase(), value.to_owned()))
}

/// A `#+KEY: value` line: the key as written and the value trimmed.
pub(super) fn page_property_line(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix("#+")?;
    let (key, value) = rest.split_once(':')?;
    let plain = !key.is_empty() && super::is_property_key(key);
    plain.then(|| (key, value.trim()))
}

/// Whether an `:END:` line comes in `after` before the next headline: a drawer that never
/// ends is text, as to Logseq.
fn drawer_ends(after: &str) -> bool {
    lines(after)
        .take_while(|line| headline(line).is_none())
        .any(|line| line.trim().eq_ignore_ascii_case(":END:"))
}

/// A code fence or a `#+BEGIN_…` block of an org text: mldoc reads its lines as they are, a
/// line of stars too, up to its closing line, when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verbatim {
    Fence(Fence),
    /// The block's name, `SRC` for `#+BEGIN_SRC`.
    Block(String),
}

impl Verbatim {
    /// The block `line` opens, when one of the `later` lines closes it.
    fn closed_later<'l>(line: &str, mut later: impl Iterator<Item = &'l str>) -> Option<Verbatim> {
        let rest = line.trim_start();
        let opened = match Fence::opened_by(rest) {
            Some(fence) => Verbatim::Fence(fence),
            None => Verbatim::Block(directive_begins(rest)?),
        };
        later.any(|line| opened.closed_by(line)).then_some(opened)
    }

    fn closed_by(&self, line: &str) -> bool {
        let rest = line.trim();
        match self {
            Verbatim::Fence(fence) => fence.is_closed_by(rest),
            Verbatim::Block(name) => directive_ends(rest, name),
        }
    }
}

/// Which of a text's `lines` are inside a verbatim block, after its opening line.
fn in_verbatim(lines: &[&str]) -> Vec<bool> {
    let mut inside = Vec::with_capacity(lines.len());
    let mut open: Option<Verbatim> = None;
    for (at, line) in lines.iter().enumerate() {
        inside.push(open.is_some());
        open = match open {
            Some(verbatim) if verbatim.closed_by(line) => None,
            Some(verbatim) => Some(verbatim),
            None => Verbatim::closed_later(line, lines[at + 1..].iter().copied()),
        };
    }
    inside
}

/// A planning line (`SCHEDULED: <…>`, without its indentation), which may come between a
/// headline and its drawer.
fn is_planning(rest: &str) -> bool {
    ["SCHEDULED:", "DEADLINE:", "CLOSED:"]
        .iter()
        .any(|word| rest.starts_with(word))
}

/// Writes a document in Logseq's org style (see the module docs).
pub fn serialize_org(doc: &Document) -> String {
    let mut out = String::new();
    let properties = normalize_properties(&doc.properties);
    for (key, value) in properties.iter() {
        out.push_str(&page_property_text(&key.to_uppercase(), value));
        out.push('\n');
    }
    if !properties.is_empty() && !doc.blocks.is_empty() {
        out.push('\n');
    }
    let mut stars = String::from("*");
    for block in &doc.blocks {
        write_block(block, &mut stars, &mut out);
    }
    out
}

/// The document as an org file can hold it, which is what reading it back gives: markdown's
/// normalization (see [`Document::normalized`]), page property keys in lower case, and in a
/// text, blank lines emptied and those at its end dropped (reading takes them for layout).
pub(super) fn normalized_for_org(doc: &Document) -> Document {
    fn texts(blocks: &mut [ParsedBlock]) {
        for block in blocks {
            if block.text.contains('\n') {
                let mut lines: Vec<&str> = block.text.split('\n').collect();
                for line in &mut lines[1..] {
                    if line.trim().is_empty() {
                        *line = "";
                    }
                }
                while lines.len() > 1 && lines.last() == Some(&"") {
                    lines.pop();
                }
                block.text = lines.join("\n");
            }
            texts(&mut block.children);
        }
    }
    let mut doc = doc.normalized();
    doc.properties = doc
        .properties
        .iter()
        .map(|(key, value)| (key.to_lowercase(), value.clone()))
        .collect();
    texts(&mut doc.blocks);
    doc
}

/// `#+KEY: value` (`#+KEY:` for an empty value), without a line break.
pub(super) fn page_property_text(key: &str, value: &str) -> String {
    if value.is_empty() {
        format!("#+{key}:")
    } else {
        format!("#+{key}: {value}")
    }
}

/// Writes a block under `stars`, then its children one star deeper; at the deepest level, its
/// descendants as its siblings.
fn write_block(node: &ParsedBlock, stars: &mut String, out: &mut String) {
    write_block_lines(node, stars, false, out);
    if stars.len() >= MAX_DEPTH {
        for descendant in descendants(&node.children) {
            write_block_lines(descendant, stars, false, out);
        }
        return;
    }
    stars.push('*');
    for child in &node.children {
        write_block(child, stars, out);
    }
    stars.pop();
}

/// Writes a block's text and properties, not its children: its first line after `stars` (at
/// the margin for none, as text before the first headline is), its planning lines, its drawer,
/// the rest of its lines; with `indent_bodies`, every line under the headline is indented to
/// its text column, as Logseq wrote journals.
pub(super) fn write_block_lines(
    node: &ParsedBlock,
    stars: &str,
    indent_bodies: bool,
    out: &mut String,
) {
    let text = normalize_text(&node.text);
    let properties = normalize_properties(&node.properties);
    let text_prefix = text_prefix(stars);
    // Indented, a line of stars is text, not a headline; in a code block it is text already.
    let body_line = |line: &str, verbatim: bool, out: &mut String| {
        let indented = line.starts_with([' ', '\t'])
            || indent_bodies
            || (headline(line).is_some() && !verbatim);
        if indented && !line.trim().is_empty() {
            out.push_str(&text_prefix);
        }
        out.push_str(line);
        out.push('\n');
    };
    let mut lines = text.split('\n');
    let first = lines.next().unwrap_or_default();
    let body: Vec<&str> = lines.collect();
    let verbatim = in_verbatim(&body);
    out.push_str(stars);
    if !first.is_empty() && !stars.is_empty() {
        out.push(' ');
    }
    out.push_str(first);
    out.push('\n');
    let planning = body
        .iter()
        .take_while(|line| is_planning(line.trim_start()))
        .count();
    for line in &body[..planning] {
        body_line(line, false, out);
    }
    if !properties.is_empty() {
        body_line(":PROPERTIES:", false, out);
        for (key, value) in properties.iter() {
            if value.is_empty() {
                body_line(&format!(":{key}:"), false, out);
            } else {
                body_line(&format!(":{key}: {value}"), false, out);
            }
        }
        body_line(":END:", false, out);
    }
    for (line, verbatim) in body[planning..].iter().zip(&verbatim[planning..]) {
        body_line(line, *verbatim, out);
    }
    // mldoc reads a quote on until a blank line, the next headline included: a block that
    // ends with a quote line gets one after it (reading takes it for layout).
    let last = match body.last() {
        Some(line) => Some(*line),
        None if properties.is_empty() => Some(first),
        None => None,
    };
    if last.is_some_and(|line| line.trim_start().starts_with('>')) {
        out.push('\n');
    }
}

/// What reading takes off a text line of a block under `stars`: the stars and a space.
pub(super) fn text_prefix(stars: &str) -> String {
    if stars.is_empty() {
        String::new()
    } else {
        " ".repeat(stars.len() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(nodes: &[ParsedBlock]) -> Vec<String> {
        let mut out = Vec::new();
        for node in nodes {
            out.push(node.text.clone());
            for child in texts(&node.children) {
                out.push(format!("  {child}"));
            }
        }
        out
    }

    #[test]
    fn headlines_nest_by_their_stars_and_drawers_are_properties() {
        let page = "#+TITLE: Changelog 2020\n#+ALIAS: changes\n\n** [[Dec 29th, 2020]]\n:PROPERTIES:\n:created_at: 1609250283049\n:id: 5feb30e3-fedc-4c2a-aa03-b44020c21c68\n:END:\nThis is our last release\n*Version 0.0.4.9*\n*** TODO [#A] Announcement :tag:\n    indented body\n\n    after a blank\n* top again\n";
        let (doc, starts) = parse_org_with_starts(page);
        assert_eq!(
            doc.properties.get("title").map(String::as_str),
            Some("Changelog 2020")
        );
        assert_eq!(
            doc.properties.get("alias").map(String::as_str),
            Some("changes")
        );
        assert_eq!(
            texts(&doc.blocks),
            [
                "[[Dec 29th, 2020]]\nThis is our last release\n*Version 0.0.4.9*",
                "  TODO [#A] Announcement :tag:\nindented body\n\nafter a blank",
                "top again",
            ]
        );
        let first = &doc.blocks[0];
        assert_eq!(
            first.properties.get("id").map(String::as_str),
            Some("5feb30e3-fedc-4c2a-aa03-b44020c21c68")
        );
        assert_eq!(
            first.properties.get("created_at").map(String::as_str),
            Some("1609250283049")
        );
        assert_eq!(starts.len(), 3);
        assert!(page[starts[1]..].starts_with("*** TODO"));
    }

    #[test]
    fn a_headline_titled_properties_is_empty_over_its_drawer() {
        let page = "* Sources\n** :PROPERTIES:\n:id: 6a1b0000-0000-4000-8000-0000000000aa\n:END:\nfirst note\n** :PROPERTIES: never closed\n* :PROPERTIES:\nplain text\n";
        let (doc, starts) = parse_org_with_starts(page);
        assert_eq!(
            texts(&doc.blocks),
            [
                "Sources",
                "  \nfirst note",
                "  :PROPERTIES: never closed",
                ":PROPERTIES:\nplain text"
            ]
        );
        assert_eq!(
            doc.blocks[0].children[0]
                .properties
                .get("id")
                .map(String::as_str),
            Some("6a1b0000-0000-4000-8000-0000000000aa")
        );
        assert_eq!(starts.len(), 4);
        assert_eq!(parse_org_with_starts(&serialize_org(&doc)).0, doc);
    }

    #[test]
    fn custom_id_is_the_block_s_id() {
        let page = "* a\n:PROPERTIES:\n:CUSTOM_ID: 6a1b0000-0000-4000-8000-0000000000bb\n:END:\n";
        let doc = parse_org_with_starts(page).0;
        assert_eq!(
            doc.blocks[0].properties.get("id").map(String::as_str),
            Some("6a1b0000-0000-4000-8000-0000000000bb")
        );
        assert_eq!(doc.blocks[0].properties.len(), 1);
    }

    #[test]
    fn a_block_ending_in_a_quote_is_followed_by_a_blank_line() {
        let page = "* a\n> quoted\n* > b\n* c\n";
        let doc = parse_org_with_starts(page).0;
        let written = serialize_org(&doc);
        assert_eq!(written, "* a\n> quoted\n\n* > b\n\n* c\n");
        assert_eq!(parse_org_with_starts(&written).0, doc);
    }

    #[test]
    fn a_headline_inside_a_code_block_is_text() {
        let page = "* a\n#+BEGIN_SRC sh\n* not a headline\n#+END_SRC\n```\n** nor this\n```\n* b\n#+BEGIN_QUOTE\n* x, the quote never closed\n";
        let doc = parse_org_with_starts(page).0;
        assert_eq!(
            texts(&doc.blocks),
            [
                "a\n#+BEGIN_SRC sh\n* not a headline\n#+END_SRC\n```\n** nor this\n```",
                "b\n#+BEGIN_QUOTE",
                "x, the quote never closed",
            ]
        );
        let written = serialize_org(&doc);
        assert!(written.contains("\n* not a headline\n"), "{written}");
        assert_eq!(parse_org_with_starts(&written).0, doc);
    }

    #[test]
    fn text_before_the_first_headline_is_a_block_and_bold_is_no_headline() {
        let doc = parse_org_with_starts("#+TAGS: a, b\nfree text\n*bold* line\n** child\n").0;
        assert_eq!(doc.properties.get("tags").map(String::as_str), Some("a, b"));
        assert_eq!(texts(&doc.blocks), ["free text\n*bold* line", "  child"]);
    }
}
