//! Markdown to [`Document`]: one pass over the lines with a stack of open blocks.

use super::front_matter::{front_matter_properties, split_front_matter};
use super::syntax::{
    LinePlace, Literal, bullet_text, columns, directive_begins, directive_ends, drawer_property,
    heading_level, lines, lines_at, property_line, split_indent, strip_columns, unescape,
};
use super::{Document, MAX_DEPTH, ParsedBlock, Properties};

/// Parses outliner markdown. Never fails: any input gives a document, and no character of
/// the input other than indentation, line breaks and blank lines between blocks is lost (see
/// the module documentation for where each line goes).
pub fn parse(markdown: &str) -> Document {
    parse_with_starts(markdown).0
}

/// [`parse`], and where each block begins in `markdown`, in document order (a block, then its
/// children): the byte offset of the line that opens it. The text from one block's start to
/// the next one's is that block's lines and the layout after them, so cutting `markdown` at
/// these offsets cuts it into its blocks, with the page properties before the first.
pub fn parse_with_starts(markdown: &str) -> (Document, Vec<usize>) {
    let (front_matter, rest) = split_front_matter(markdown);
    let page_properties = front_matter
        .map(front_matter_properties)
        .unwrap_or_default();
    let mut parser = Parser {
        // A `key::` line repeating a front matter key is text.
        front_matter_keys: page_properties.keys().cloned().collect(),
        page_properties,
        front_matter: front_matter.map(str::to_owned),
        ..Parser::default()
    };
    for (offset, line) in lines_at(markdown, rest) {
        parser.line(line, offset);
        parser.drop_unclosed_openers(markdown, offset + line.len());
    }
    let starts = std::mem::take(&mut parser.starts);
    (parser.finish(), starts)
}

#[derive(Default)]
struct Parser<'a> {
    front_matter: Option<String>,
    front_matter_keys: Vec<String>,
    page_properties: Properties,
    blocks: Vec<ParsedBlock>,
    /// The open blocks, outermost first; the last one receives text lines.
    open: Vec<OpenBlock<'a>>,
    /// The offset of the line that opened each block so far.
    starts: Vec<usize>,
    /// For backtick and tilde fences: from which offset on no closing run of at least this
    /// length comes, once a look found none, so that many lone openers cost one look.
    no_closer: [Option<(usize, usize)>; 2],
}

impl<'a> Parser<'a> {
    /// A fence, math or `#+BEGIN_…` block the line just read opened is none if nothing after it
    /// in `markdown` (from `after`) closes it where mldoc would: mldoc reads an unclosed one as
    /// text, and the lines after it as what they are.
    fn drop_unclosed_openers(&mut self, markdown: &str, after: usize) {
        let Some(block) = self.open.last_mut() else {
            return;
        };
        if let Some(name) = block.directive.as_deref()
            && std::mem::take(&mut block.directive_unchecked)
            && !directive_closed_in_block(&markdown[after..], name, block.text_col)
        {
            block.directive = None;
        }
        let Some(literal) = block
            .literal
            .filter(|_| std::mem::take(&mut block.literal_unchecked))
        else {
            return;
        };
        // Math needs no memory: the next line holding `$$`, which an opener does, closes it.
        let slot = match literal {
            Literal::Fence(fence) => {
                let slot = &mut self.no_closer[usize::from(fence.char() == b'~')];
                if slot.is_some_and(|(from, len)| after >= from && fence.len() >= len) {
                    block.literal = None;
                    return;
                }
                Some((slot, fence.len()))
            }
            Literal::Math => None,
        };
        let closed =
            lines(&markdown[after..]).any(|line| literal.is_closed_by(split_indent(line).1));
        if !closed {
            block.literal = None;
            if let Some((slot, len)) = slot {
                *slot = Some((after, len));
            }
        }
    }

    fn line(&mut self, line: &'a str, offset: usize) {
        let (indent, rest) = split_indent(line);
        if rest.is_empty() {
            // Whether a blank line is text is known only from what follows it; blank lines
            // before the first block are layout.
            if let Some(block) = self.open.last_mut() {
                block.pending_blanks.push(line);
            }
            return;
        }
        let col = columns(indent);
        if let Some(block) = self.open.last_mut() {
            // A bullet less indented than the block's text cannot belong to it, so it ends a
            // code fence, math or `#+BEGIN_…` block the block left open. Any other line stays
            // in it, as mldoc reads it (a fence opened on a bullet's line holds the lines under
            // the bullet, however indented).
            if col < block.text_col && bullet_text(rest).is_some() {
                block.literal = None;
                block.directive = None;
            }
        }
        // In a fence or math, and in a `#+BEGIN_…` block (mldoc reads a list inside a quote as
        // the quote's), a `- ` line is no bullet.
        let enclosed = self
            .open
            .last()
            .is_some_and(|block| block.literal.is_some() || block.directive.is_some());
        if !enclosed && let Some(text) = bullet_text(rest) {
            self.starts.push(offset);
            self.open_block(col, text);
            return;
        }
        // A `#` heading line starts a block, as mldoc cuts it, and a top-level one wherever it
        // stands, at the margin or indented in a block's text: Logseq gives every markdown
        // heading that no bullet opens the level of a bullet at the margin (graph-parser's
        // `construct-block`), so the blocks open above it end, and the bullets indented
        // after it are its children.
        if !enclosed && heading_level(rest).is_some() {
            while !self.open.is_empty() {
                self.close_innermost();
            }
            self.starts.push(offset);
            self.open.push(OpenBlock::titled(0, col, rest));
            return;
        }
        match self.open.last_mut() {
            Some(block) => block.text_line(line, rest),
            None => {
                // Of a key's lines the last gives its value, as Logseq reads them.
                if let Some((key, value)) = property_line(rest)
                    && !self.front_matter_keys.iter().any(|k| k == key)
                {
                    self.page_properties
                        .insert(key.to_owned(), value.to_owned());
                } else {
                    // Free text before the first bullet opens a first block of its own.
                    self.starts.push(offset);
                    self.open.push(OpenBlock::titled(0, 0, line));
                }
            }
        }
    }

    fn open_block(&mut self, bullet_col: usize, text: &'a str) {
        if let Some(block) = self.open.last_mut() {
            block.settle_blanks();
        }
        while self
            .open
            .last()
            .is_some_and(|block| block.bullet_col >= bullet_col)
        {
            self.close_innermost();
        }
        if self.open.len() == MAX_DEPTH {
            // Too deep: the block becomes a sibling of the deepest one instead.
            self.close_innermost();
        }
        self.open
            .push(OpenBlock::new(bullet_col, bullet_col + 2, text));
    }

    fn close_innermost(&mut self) {
        let Some(block) = self.open.pop() else {
            return;
        };
        let node = block.into_node();
        match self.open.last_mut() {
            Some(parent) => parent.children.push(node),
            None => self.blocks.push(node),
        }
    }

    fn finish(mut self) -> Document {
        while !self.open.is_empty() {
            self.close_innermost();
        }
        Document {
            front_matter: self.front_matter,
            properties: self.page_properties,
            blocks: self.blocks,
        }
    }
}

struct OpenBlock<'a> {
    bullet_col: usize,
    /// The column where the block's text starts: continuation lines are stripped to it.
    text_col: usize,
    first_line: String,
    properties: Properties,
    /// Still right under the first line, where `key:: value` lines are properties.
    in_properties: bool,
    /// Where the block's text stands for properties below it: mldoc reads a run of
    /// `key:: value` lines anywhere in a block's text as properties, and Logseq takes the
    /// first run, so a block without properties under its first line takes its first run in
    /// its text.
    later_properties: LaterProperties,
    /// Whether the bullet's line began the text; if it held a property instead, the text
    /// begins with the first line after the properties.
    titled: bool,
    body: Vec<String>,
    pending_blanks: Vec<&'a str>,
    /// A `:PROPERTIES:` drawer being read where properties are, as mldoc reads one in a
    /// markdown block: its lines as written, until its `:END:` makes them properties. A line
    /// that does not belong in one makes them text again.
    drawer: Option<Vec<String>>,
    /// The code fence or display math the text is in.
    literal: Option<Literal>,
    /// The literal was opened by the last line, and whether a later line closes it is still
    /// to be seen.
    literal_unchecked: bool,
    /// The `#+BEGIN_…` block the text is in, by its name, up to its `#+END_…` line: one whose
    /// end does not come before the block's own lines end is none.
    directive: Option<String>,
    /// The directive was opened by the last line, and is still to be checked for its end.
    directive_unchecked: bool,
    children: Vec<ParsedBlock>,
}

impl<'a> OpenBlock<'a> {
    /// A block opened by a bullet whose text is `first_line`.
    fn new(bullet_col: usize, text_col: usize, first_line: &'a str) -> Self {
        let (_, rest) = split_indent(first_line);
        match property_line(rest) {
            // `- id:: …` is how Logseq writes a block whose properties come before any text:
            // its text is the lines after them.
            Some((key, value)) => {
                let mut block = OpenBlock::titled(bullet_col, text_col, "");
                block.properties.insert(key.to_owned(), value.to_owned());
                block.titled = false;
                block
            }
            None => OpenBlock::titled(bullet_col, text_col, first_line),
        }
    }

    /// A block whose text begins with `first_line` (free text before the first bullet is one,
    /// even when it reads as a property: a repeated page property).
    fn titled(bullet_col: usize, text_col: usize, first_line: &'a str) -> Self {
        let (_, rest) = split_indent(first_line);
        OpenBlock {
            bullet_col,
            text_col,
            first_line: unescape(first_line, LinePlace::First).into_owned(),
            properties: Properties::new(),
            in_properties: true,
            later_properties: LaterProperties::Possible,
            titled: true,
            body: Vec::new(),
            pending_blanks: Vec::new(),
            drawer: None,
            literal: Literal::opened_by_first_line(rest),
            literal_unchecked: true,
            directive: directive_begins(rest),
            directive_unchecked: true,
            children: Vec::new(),
        }
    }

    /// A non-blank line that is not a bullet: a property or a line of the block's text.
    fn text_line(&mut self, line: &str, rest: &str) {
        if let Some(drawer) = &mut self.drawer
            && self.pending_blanks.is_empty()
        {
            if rest.trim_end().eq_ignore_ascii_case(":END:") {
                let entries: Vec<_> = drawer[1..]
                    .iter()
                    .filter_map(|l| drawer_property(l))
                    .collect();
                self.drawer = None;
                for (key, value) in entries {
                    self.properties.insert(key, value);
                }
                return;
            }
            if drawer_property(rest).is_some() {
                drawer.push(line.to_owned());
                return;
            }
        }
        self.drawer_as_text();
        // Of a key's lines the last gives its value, as Logseq reads them.
        if self.in_properties
            && self.pending_blanks.is_empty()
            && let Some((key, value)) = property_line(rest)
        {
            self.properties.insert(key.to_owned(), value.to_owned());
            return;
        }
        if self.in_properties
            && self.pending_blanks.is_empty()
            && rest.trim_end().eq_ignore_ascii_case(":PROPERTIES:")
        {
            self.drawer = Some(vec![line.to_owned()]);
            return;
        }
        if self.in_properties {
            self.in_properties = false;
            if !self.properties.is_empty() {
                self.later_properties = LaterProperties::Done;
            }
        }
        if self.later_properties != LaterProperties::Done
            && self.literal.is_none()
            && self.directive.is_none()
        {
            match property_line(rest) {
                Some((key, value)) => {
                    self.properties.insert(key.to_owned(), value.to_owned());
                    self.later_properties = LaterProperties::Open;
                    return;
                }
                _ if self.later_properties == LaterProperties::Open => {
                    self.later_properties = LaterProperties::Done;
                }
                _ => {}
            }
        }
        for blank in std::mem::take(&mut self.pending_blanks) {
            self.body
                .push(strip_columns(blank, self.text_col).to_owned());
        }
        // Inside a `#+BEGIN_…` block as inside a fence, mldoc keeps every line as it is.
        let place = LinePlace::Body {
            first: self.body.is_empty(),
            in_literal: self.literal.is_some() || self.directive.is_some(),
        };
        let content = strip_columns(line, self.text_col);
        self.body.push(unescape(content, place).into_owned());
        if self.literal.is_none() {
            self.directive = match self.directive.take() {
                Some(name) if directive_ends(rest, &name) => None,
                Some(name) => Some(name),
                None => {
                    self.directive_unchecked = true;
                    directive_begins(rest)
                }
            };
        }
        // An escaped line starts with `\`, so it neither opens nor closes a literal; in a
        // `#+BEGIN_…` block, whose lines mldoc keeps as they are, no line opens one.
        self.literal = match self.literal {
            Some(literal) if !literal.is_closed_by(rest) => Some(literal),
            Some(literal) => {
                self.literal_unchecked = true;
                literal.reopened_by(rest)
            }
            None if self.directive.is_some() => None,
            None => {
                self.literal_unchecked = true;
                Literal::opened_by(rest)
            }
        };
    }

    /// A drawer that was never closed is the text it looked like.
    fn drawer_as_text(&mut self) {
        let Some(lines) = self.drawer.take() else {
            return;
        };
        self.in_properties = false;
        let blanks = std::mem::take(&mut self.pending_blanks);
        for line in &lines {
            self.text_line(line, split_indent(line).1);
        }
        self.pending_blanks = blanks;
    }

    /// The block gets no more text: of its trailing blank lines, those indented to its text
    /// are text (that is how a text ending in an empty line is written); the rest is layout.
    fn settle_blanks(&mut self) {
        self.drawer_as_text();
        for blank in std::mem::take(&mut self.pending_blanks) {
            if !blank.is_empty() && columns(blank) >= self.text_col {
                self.body
                    .push(strip_columns(blank, self.text_col).to_owned());
            }
        }
    }

    fn into_node(mut self) -> ParsedBlock {
        self.settle_blanks();
        // Sized exactly: a page holds its blocks' texts and properties for as long as it is
        // open, so spare capacity would be paid on every block.
        let mut text = self.first_line;
        text.reserve_exact(self.body.iter().map(|line| 1 + line.len()).sum());
        for (at, line) in self.body.iter().enumerate() {
            if at > 0 || self.titled {
                text.push('\n');
            }
            text.push_str(line);
        }
        text.shrink_to_fit();
        let mut properties = self.properties;
        properties.shrink_to_fit();
        ParsedBlock {
            text,
            properties,
            children: self.children,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LaterProperties {
    /// No property yet: a run of them may come.
    Possible,
    /// Reading the run.
    Open,
    /// The block has its properties; later `key:: value` lines are text.
    Done,
}

/// Whether the `#+END_…` line of `name` comes in `after` before a bullet less indented than
/// `text_col`, the block's text column. mldoc reads every line up to that one as the block's,
/// bullets and headings too, at any depth (a list in an example nests).
fn directive_closed_in_block(after: &str, name: &str, text_col: usize) -> bool {
    for line in lines(after) {
        let (indent, rest) = split_indent(line);
        if rest.is_empty() {
            continue;
        }
        if directive_ends(rest, name) {
            return true;
        }
        if columns(indent) < text_col && bullet_text(rest).is_some() {
            return false;
        }
    }
    false
}
