//! [`Document`] to markdown in the canonical style, and the normalisation that maps the few
//! values markdown cannot hold onto ones it can.

use std::borrow::Cow;

use super::front_matter::{front_matter_properties, rewrite_front_matter};
use super::syntax::{
    Fence, LinePlace, Literal, after_end_marker, directive_begins, directive_ends, is_escapable,
    is_property_key_char, lines, split_indent,
};
use super::{Document, MAX_DEPTH, ParsedBlock, Properties};

/// Writes a document in the canonical style. Total: every document is written, and
/// `parse(&serialize(doc)) == doc.normalized()`.
pub fn serialize(doc: &Document) -> String {
    let mut out = String::new();
    let properties = normalize_properties(&doc.properties);
    let line_properties = match &doc.front_matter {
        Some(front_matter) => {
            let line_properties = outside_front_matter(front_matter, &properties);
            let followed = !doc.blocks.is_empty() || !line_properties.is_empty();
            out.push_str(&written_front_matter(front_matter, &properties, followed));
            Cow::Owned(line_properties)
        }
        None => properties,
    };
    write_properties(&line_properties, "", &mut out);
    let head = doc.front_matter.is_some() || !line_properties.is_empty();
    if head && !doc.blocks.is_empty() {
        // After a lone `\r`, a `\n` would join it into one line break.
        out.push(if out.ends_with('\r') { '\r' } else { '\n' });
    }
    let mut indent = String::new();
    for block in &doc.blocks {
        write_block(block, &mut indent, &mut out);
    }
    out
}

impl Document {
    /// The document as markdown can hold it, which is what `parse(&serialize(self))` returns;
    /// identical to `self` for every document `parse` produces.
    ///
    /// Texts are kept exactly, except that line breaks become `\n` (`\r\n` and a lone `\r`
    /// are line breaks in markdown). Property values lose their line breaks (each becomes a
    /// space) and surrounding spaces and tabs; in keys, a character that cannot appear in a
    /// key becomes `_`, an empty key becomes `_`, and a key that then repeats an earlier one is
    /// dropped with its value. Front matter holds the properties' values for its keys. Blocks
    /// nested deeper than [`MAX_DEPTH`] levels follow their ancestor at the deepest level as
    /// its siblings, in document order.
    pub fn normalized(&self) -> Document {
        let properties = normalize_properties(&self.properties);
        Document {
            front_matter: self.front_matter.as_deref().map(|front_matter| {
                let followed = !self.blocks.is_empty()
                    || !outside_front_matter(front_matter, &properties).is_empty();
                written_front_matter(front_matter, &properties, followed)
            }),
            properties: properties.into_owned(),
            blocks: normalize_blocks(&self.blocks, 0),
        }
    }
}

/// Front matter as [`serialize`] writes it for these page properties: their values, and a line
/// break after the closing `---` when anything follows it.
pub(super) fn written_front_matter(
    front_matter: &str,
    properties: &Properties,
    followed: bool,
) -> String {
    let mut written = rewrite_front_matter(front_matter, properties);
    if followed && !written.ends_with(['\n', '\r']) {
        written.push('\n');
    }
    written
}

/// The properties that front matter `front_matter` does not hold, written as `key::` lines.
pub(super) fn outside_front_matter(front_matter: &str, properties: &Properties) -> Properties {
    let held = front_matter_properties(front_matter);
    properties
        .iter()
        .filter(|(key, _)| !held.contains_key(key))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// Normalizes blocks at `depth` (0 for top-level blocks).
fn normalize_blocks(blocks: &[ParsedBlock], depth: usize) -> Vec<ParsedBlock> {
    let mut normalized = Vec::with_capacity(blocks.len());
    for block in blocks {
        if depth + 1 < MAX_DEPTH {
            normalized.push(normalize_block(
                block,
                normalize_blocks(&block.children, depth + 1),
            ));
        } else {
            normalized.push(normalize_block(block, Vec::new()));
            normalized.extend(
                descendants(&block.children)
                    .map(|descendant| normalize_block(descendant, Vec::new())),
            );
        }
    }
    normalized
}

/// The block's own text and properties normalized, with the children given.
fn normalize_block(block: &ParsedBlock, children: Vec<ParsedBlock>) -> ParsedBlock {
    ParsedBlock {
        text: normalize_text(&block.text).into_owned(),
        properties: normalize_properties(&block.properties).into_owned(),
        children,
    }
}

/// `blocks` and all their descendants in document order, without recursion (the tree given
/// may be arbitrarily deep).
pub(super) fn descendants(blocks: &[ParsedBlock]) -> impl Iterator<Item = &ParsedBlock> {
    let mut levels = vec![blocks.iter()];
    std::iter::from_fn(move || {
        loop {
            let level = levels.last_mut()?;
            match level.next() {
                Some(block) => {
                    levels.push(block.children.iter());
                    return Some(block);
                }
                None => {
                    levels.pop();
                }
            }
        }
    })
}

pub(super) fn normalize_text(text: &str) -> Cow<'_, str> {
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

pub(super) fn normalize_value(value: &str) -> Cow<'_, str> {
    let one_line: Cow<'_, str> = if value.contains(['\n', '\r']) {
        Cow::Owned(lines(value).collect::<Vec<_>>().join(" "))
    } else {
        Cow::Borrowed(value)
    };
    match one_line {
        Cow::Borrowed(line) => Cow::Borrowed(line.trim_matches([' ', '\t'])),
        Cow::Owned(line) => Cow::Owned(line.trim_matches([' ', '\t']).to_owned()),
    }
}

fn normalize_key(key: &str) -> Cow<'_, str> {
    if super::is_property_key(key) {
        Cow::Borrowed(key)
    } else if key.is_empty() {
        Cow::Borrowed("_")
    } else {
        Cow::Owned(
            key.chars()
                .map(|c| if is_property_key_char(c) { c } else { '_' })
                .collect(),
        )
    }
}

/// Whether `value` can be written as a property value as it is: one line, without
/// surrounding spaces or tabs.
pub fn is_property_value(value: &str) -> bool {
    *normalize_value(value) == *value
}

pub(super) fn normalize_properties(properties: &Properties) -> Cow<'_, Properties> {
    let representable = properties
        .iter()
        .all(|(key, value)| super::is_property_key(key) && is_property_value(value));
    if representable {
        return Cow::Borrowed(properties);
    }
    let mut normalized = Properties::with_capacity(properties.len());
    for (key, value) in properties {
        let key = normalize_key(key);
        if !normalized.contains_key(&key) {
            normalized.insert(key.into_owned(), normalize_value(value).into_owned());
        }
    }
    Cow::Owned(normalized)
}

fn write_properties(properties: &Properties, prefix: &str, out: &mut String) {
    for (key, value) in properties {
        out.push_str(prefix);
        out.push_str(key);
        out.push_str("::");
        if !value.is_empty() {
            out.push(' ');
            out.push_str(value);
        }
        out.push('\n');
    }
}

/// Writes a block at the depth given by `indent` (one tab per level), then its children;
/// at the deepest level, its descendants as its siblings.
fn write_block(node: &ParsedBlock, indent: &mut String, out: &mut String) {
    write_block_lines(node, indent, Opening::Bullet, out);
    if indent.len() + 1 >= MAX_DEPTH {
        for descendant in descendants(&node.children) {
            write_block_lines(descendant, indent, Opening::Bullet, out);
        }
        return;
    }
    indent.push('\t');
    for child in &node.children {
        write_block(child, indent, out);
    }
    indent.pop();
}

/// How a block's first line opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opening {
    /// `- text`, the properties after the text's first line.
    Bullet,
    /// `- key:: value`, the properties first and the text after them, as Logseq writes a
    /// block whose content starts with its properties.
    PropertiesFirst,
    /// The text at the margin without a bullet, as a page without bullets holds its
    /// heading blocks.
    Margin,
}

/// Writes a block's text and properties, not its children, its first line indented by
/// `indent` and opened as `opening` says (a bullet where the block has no properties to
/// open with).
pub(super) fn write_block_lines(
    node: &ParsedBlock,
    indent: &str,
    opening: Opening,
    out: &mut String,
) {
    let text = normalize_text(&node.text);
    let properties = normalize_properties(&node.properties);
    let text_prefix = match opening {
        Opening::Margin => indent.to_owned(),
        Opening::Bullet | Opening::PropertiesFirst => format!("{indent}  "),
    };
    out.push_str(indent);
    if opening == Opening::PropertiesFirst && !properties.is_empty() {
        out.push_str("- ");
        let mut lines = String::new();
        write_properties(&properties, &text_prefix, &mut lines);
        out.push_str(&lines[text_prefix.len()..]);
        // The text's lines all sit where later lines do, its first right after the properties.
        let lines: Vec<&str> = text.split('\n').filter(|_| !text.is_empty()).collect();
        for line in escape_text_lines("", &lines).1 {
            out.push_str(&text_prefix);
            out.push_str(&line);
            out.push('\n');
        }
        return;
    }
    let mut text_lines = text.split('\n');
    let first = text_lines.next().unwrap_or_default();
    let body: Vec<&str> = text_lines.collect();
    let (first, body) = escape_text_lines(first, &body);
    if opening != Opening::Margin {
        out.push('-');
        if !first.is_empty() {
            out.push(' ');
        }
    }
    out.push_str(&first);
    out.push('\n');
    write_properties(&properties, &text_prefix, out);
    for line in &body {
        out.push_str(&text_prefix);
        out.push_str(line);
        out.push('\n');
    }
}

/// Escapes, with a leading `\`, the text lines the parser would otherwise read as structure
/// (a bullet, a property, a code fence, math or `#+BEGIN_…` block that is never closed) or
/// unescape. Tracks code fences and math exactly as the parser does: inside them, bullets and
/// fences are text.
fn escape_text_lines<'t>(first: &'t str, body: &[&'t str]) -> (Cow<'t, str>, Vec<Cow<'t, str>>) {
    let closers = LaterClosers::new(body);
    let mut open = Open::default();
    let first = escape_line(first, LinePlace::First, &mut open, &closers, None);
    let body = body
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let place = LinePlace::Body {
                first: index == 0,
                in_literal: open.literal.is_some() || open.directive.is_some(),
            };
            escape_line(line, place, &mut open, &closers, Some(index))
        })
        .collect();
    (first, body)
}

/// What a text's lines so far leave open, as the parser reads them: a fence or math, and a
/// `#+BEGIN_…` block that a later line ends, by its name.
#[derive(Default)]
struct Open {
    literal: Option<Literal>,
    directive: Option<String>,
}

/// Escapes one line, body line `index` (`None` for the first line), if it must be, and moves
/// what is open past it.
fn escape_line<'t>(
    line: &'t str,
    place: LinePlace,
    open_before: &mut Open,
    closers: &LaterClosers,
    index: Option<usize>,
) -> Cow<'t, str> {
    let later_closers = closers.after(index);
    let (indent, rest) = split_indent(line);
    let literal = &mut open_before.literal;
    if let Some(name) = open_before.directive.as_deref() {
        // Its lines are kept as they are, a fence or math opener too, up to its end line.
        if directive_ends(rest, name) {
            open_before.directive = None;
        }
    } else if let Some(open) = *literal {
        if open.is_closed_by(rest) {
            // Math the line opens again holds the text's lines after it, if they close it.
            *literal = open
                .reopened_by(rest)
                .filter(|&again| later_closers.closes(again));
        }
    } else if let Some(opened) = match place {
        LinePlace::First => Literal::opened_by_first_line(rest),
        LinePlace::Body { .. } => Literal::opened_by(rest),
    } && later_closers.closes(opened)
    {
        // A fence or math that is closed within the text is written as it is.
        *literal = Some(opened);
        return Cow::Borrowed(line);
    } else if let Some(name) =
        directive_begins(rest).filter(|name| closers.ends_directive(name, index))
    {
        open_before.directive = Some(name);
        return Cow::Borrowed(line);
    }
    if is_escapable(rest, place) {
        Cow::Owned(format!("{indent}\\{rest}"))
    } else {
        Cow::Borrowed(line)
    }
}

/// For each body line, the longest closing-fence runs of backticks and of tildes among the
/// lines after it, and whether one of them closes math; and the lines that may end a
/// `#+BEGIN_…` block: so "is this opener closed later" is answered without rescanning.
struct LaterClosers<'b> {
    /// `suffix[i]`: the closers among body lines `i..`.
    suffix: Vec<LaterCloserRuns>,
    /// The body lines that start with a `#+END_` marker, by index, without indentation.
    directive_ends: Vec<(usize, &'b str)>,
}

#[derive(Debug, Clone, Copy, Default)]
struct LaterCloserRuns {
    backticks: usize,
    tildes: usize,
    math: bool,
}

impl LaterCloserRuns {
    fn closes(self, literal: Literal) -> bool {
        let fence = match literal {
            Literal::Fence(fence) => fence,
            Literal::Math => return self.math,
        };
        let longest = match fence.char() {
            b'`' => self.backticks,
            _ => self.tildes,
        };
        longest >= fence.len()
    }
}

impl<'b> LaterClosers<'b> {
    fn new(body: &[&'b str]) -> Self {
        let mut suffix = vec![LaterCloserRuns::default(); body.len() + 1];
        let mut directive_ends = Vec::new();
        for (index, line) in body.iter().enumerate().rev() {
            let mut runs = suffix[index + 1];
            let (_, rest) = split_indent(line);
            if after_end_marker(rest).is_some() {
                directive_ends.push((index, rest));
            }
            runs.math |= Literal::Math.is_closed_by(rest);
            if let Some(closer) = Fence::closing_run(rest) {
                let longest = match closer.char() {
                    b'`' => &mut runs.backticks,
                    _ => &mut runs.tildes,
                };
                *longest = (*longest).max(closer.len());
            }
            suffix[index] = runs;
        }
        LaterClosers {
            suffix,
            directive_ends,
        }
    }

    /// Whether a body line after body line `index` (after the first line for `None`) ends the
    /// `#+BEGIN_…` block `name` (in capitals).
    fn ends_directive(&self, name: &str, index: Option<usize>) -> bool {
        self.directive_ends
            .iter()
            .any(|&(end, rest)| index.is_none_or(|index| end > index) && directive_ends(rest, name))
    }

    /// The closers after body line `index`, or after the first line when `index` is `None`.
    fn after(&self, index: Option<usize>) -> LaterCloserRuns {
        let from = index.map_or(0, |i| i + 1);
        self.suffix.get(from).copied().unwrap_or_default()
    }
}
