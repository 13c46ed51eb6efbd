//! A document written over the file it was read from, so that a write changes the lines of
//! the blocks it changed and nothing else: the other blocks keep their lines byte for byte
//! (indentation, spacing, escapes, the blank lines after them), the page's head keeps every
//! line whose property did not change, and the lines outl writes follow the file's own style:
//! its indent unit (a tab, or the two or four spaces its bullets use), its line break, and a
//! final line break only where the file had one. An org page is written the same way in org
//! syntax: a level is a star instead of an indent unit, page properties are `#+KEY:` lines.
//!
//! Whatever the file held, the result reads back as the document: it is checked by parsing
//! it, and where a file's layout does not allow the surgical form (a kept block under a parent
//! whose indentation no longer nests it, say) the document is written whole in the file's
//! style, or, failing that, in the canonical style.

use std::borrow::Cow;
use std::collections::HashMap;

use super::front_matter::split_front_matter;
use super::org;
use super::serialize::{
    Opening, normalize_properties, normalize_value, outside_front_matter, serialize,
    write_block_lines, written_front_matter,
};
use super::syntax::{
    bullet_text, columns, drawer_property, heading_level, line_break_len, line_spans, lines,
    property_line, split_indent,
};
use super::{Document, MAX_DEPTH, ParsedBlock, Syntax};

/// What a block of a document written over a file was in that file, by the block's index
/// there (in document order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Former {
    /// The same block at the same depth, its own text and properties unchanged: it keeps its
    /// lines.
    Unchanged(usize),
    /// The same block, changed or moved to another depth: it is written anew, followed by the
    /// blank lines that followed it.
    Changed(usize),
    /// A block the file did not have.
    New,
}

/// `doc` written over `original`, the file it was read from in `syntax`, cut into blocks at
/// `starts` (as [`Syntax::parse_with_starts`] gives them). `formers` holds, for each block of
/// `doc` in document order, what it was in the file.
pub fn serialize_over(
    syntax: Syntax,
    doc: &Document,
    original: &str,
    starts: &[usize],
    formers: &[Former],
) -> String {
    let style = Style::of(syntax, original, starts);
    let expected = match syntax {
        Syntax::Markdown => doc.normalized(),
        Syntax::Org => org::normalized_for_org(doc),
    };
    // From the most faithful form to the plainest: changed blocks keep their indentation and
    // the lines of theirs that still say the same, then they take their siblings', then
    // changed blocks are written anew, then every block is.
    // A block kept whole that moved among siblings indented otherwise takes their
    // indentation only when it must.
    let attempts: [(&[Former], bool, bool, bool); 5] = [
        (formers, true, true, false),
        (formers, true, false, false),
        (formers, true, false, true),
        (formers, false, false, true),
        (&[], false, false, false),
    ];
    for (formers, keep_lines, keep_indent, reindent_kept) in attempts {
        let surgical = Surgical {
            original,
            starts,
            style: &style,
            keep_lines,
            keep_indent,
            reindent_kept,
        };
        if let Some(written) = surgical.write(doc, formers)
            && syntax.parse(&written) == expected
        {
            return written;
        }
    }
    match syntax {
        Syntax::Markdown => serialize(doc),
        Syntax::Org => org::serialize_org(doc),
    }
}

/// How a file writes what outl adds to it.
struct Style {
    syntax: Syntax,
    line_break: &'static str,
    /// What a child's bullet is indented by beyond its parent's (in org, the star a child's
    /// headline has more).
    indent_unit: String,
    /// What a top-level bullet is indented by: nothing, unless the page's first bullet is (in
    /// org, the stars of the page's first headline).
    margin: String,
    /// Org only: whether the text under a headline is indented to its text column, as Logseq
    /// wrote journals.
    indent_bodies: bool,
    final_break: bool,
}

impl Style {
    fn of(syntax: Syntax, original: &str, starts: &[usize]) -> Style {
        let line_break = match original.find(['\n', '\r']) {
            Some(at) if original[at..].starts_with("\r\n") => "\r\n",
            _ => "\n",
        };
        let (indent_unit, margin, indent_bodies) = match syntax {
            Syntax::Markdown => (
                indent_unit(original),
                starts
                    .first()
                    .and_then(|&start| original.get(start..))
                    .map(split_indent)
                    .filter(|(_, rest)| {
                        bullet_text(rest.lines().next().unwrap_or_default()).is_some()
                    })
                    .map_or_else(String::new, |(indent, _)| indent.to_owned()),
                false,
            ),
            Syntax::Org => {
                let first_stars = lines(original).find_map(org::headline).map_or(1, |h| h.0);
                (
                    "*".to_owned(),
                    "*".repeat(first_stars),
                    org_bodies_indented(original),
                )
            }
        };
        Style {
            syntax,
            line_break,
            indent_unit,
            margin,
            indent_bodies,
            final_break: original.is_empty() || original.ends_with(['\n', '\r']),
        }
    }
}

/// Whether the first line of text under an org file's first headline that has one is
/// indented.
fn org_bodies_indented(original: &str) -> bool {
    let mut under_headline = false;
    for line in lines(original) {
        if org::headline(line).is_some() {
            under_headline = true;
        } else if under_headline && !line.trim().is_empty() {
            return line.starts_with([' ', '\t']);
        }
    }
    false
}

/// The indent unit of a file's bullets: a tab if any bullet is indented by one (Logseq's
/// default, and what a file without nested bullets gets), else the fewest spaces any bullet is
/// indented by.
fn indent_unit(original: &str) -> String {
    let mut fewest_spaces: Option<usize> = None;
    for line in lines(original) {
        let (indent, rest) = split_indent(line);
        if indent.is_empty() || bullet_text(rest).is_none() {
            continue;
        }
        if indent.contains('\t') {
            return "\t".to_owned();
        }
        fewest_spaces = Some(fewest_spaces.map_or(indent.len(), |n| n.min(indent.len())));
    }
    fewest_spaces.map_or_else(|| "\t".to_owned(), |n| " ".repeat(n))
}

/// Where a run of sibling blocks is written: under the block whose indentation is `parent`
/// (`None` at the top level), a block written anew indented by `unit` more when none of its
/// siblings says otherwise.
#[derive(Clone, Copy)]
struct Level<'i> {
    parent: Option<&'i str>,
    unit: &'i str,
}

/// A block's `lines` with the indentation `own` they start with replaced by `sibling`'s.
fn reindented(lines: &str, own: &str, sibling: &str) -> String {
    lines
        .split_inclusive('\n')
        .map(|line| match line.strip_prefix(own) {
            Some(rest) if !line.trim().is_empty() => format!("{sibling}{rest}"),
            _ => line.to_owned(),
        })
        .collect()
}

/// How many blocks `nodes` hold, their descendants included.
fn descendants(nodes: &[ParsedBlock]) -> usize {
    nodes
        .iter()
        .map(|node| 1 + descendants(&node.children))
        .sum()
}

struct Surgical<'a> {
    original: &'a str,
    starts: &'a [usize],
    style: &'a Style,
    /// Whether a changed block keeps its form (a heading without a bullet stays one) and the
    /// lines of its own that it still holds.
    keep_lines: bool,
    /// Whether a changed block keeps its own indentation, where that still nests it under its
    /// parent, rather than taking its siblings'.
    keep_indent: bool,
    /// Whether a block that keeps its lines but sits among siblings indented otherwise (it
    /// moved there) takes their indentation.
    reindent_kept: bool,
}

impl<'a> Surgical<'a> {
    /// The document over the original, `formers` saying what each block was (every block
    /// written anew when it is empty); `None` for a document nested deeper than the parser
    /// reads.
    fn write(&self, doc: &Document, formers: &[Former]) -> Option<String> {
        let mut out = String::with_capacity(self.original.len() + 64);
        self.write_head(doc, &mut out);
        let top = Level {
            parent: None,
            unit: &self.style.indent_unit,
        };
        self.write_blocks(&doc.blocks, top, 0, formers, &mut 0, &mut out)?;
        if !self.style.final_break {
            // The file ended without a line break, so it ends without the blank lines a kept
            // block brings along as well.
            out.truncate(out.trim_end_matches(['\n', '\r']).len());
        }
        Some(out)
    }

    /// The front matter and page properties: the original's lines where their values are
    /// unchanged, changed values in place, new properties after the last property line.
    fn write_head(&self, doc: &Document, out: &mut String) {
        let head = &self.original[..self.starts.first().map_or(self.original.len(), |&s| s)];
        let rest = match self.style.syntax {
            Syntax::Markdown => split_front_matter(head).1,
            Syntax::Org => head,
        };
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
        if line_properties.is_empty() {
            // No property lines left: the blank lines that set them off go with them.
            let had_properties = lines(rest).any(|line| self.head_property(line).is_some());
            if !had_properties {
                self.push_piece(out, rest);
            }
            return;
        }
        let mut written: Vec<Cow<'_, str>> = Vec::new();
        // Where new properties go: after the last property line of the head.
        let mut insert_at = out.len();
        let was_empty = rest.trim_matches(['\n', '\r', ' ', '\t']).is_empty();
        let base = rest.as_ptr() as usize - head.as_ptr() as usize;
        // Of a key's lines the last gives its value, as Logseq reads them: the others are
        // kept as they are while the key stays.
        let mut last_line_of: HashMap<Cow<'_, str>, usize> = HashMap::new();
        for (at, (_, line, _)) in line_spans(rest).enumerate() {
            if let Some((key, ..)) = self.head_property(line) {
                last_line_of.insert(key, at);
            }
        }
        for (at, (start, line, next)) in line_spans(rest).enumerate() {
            let source = &head[base + start..base + next];
            let Some((key, spelling, value)) = self.head_property(line) else {
                self.push_piece(out, source);
                continue;
            };
            let Some(new) = line_properties.get(&key) else {
                continue;
            };
            if last_line_of.get(&key) != Some(&at) {
                self.push_piece(out, source);
                continue;
            }
            if *new == *normalize_value(value) {
                self.push_piece(out, source);
            } else {
                self.push_piece(out, &self.property_line(spelling, new));
            }
            written.push(key);
            insert_at = out.len();
        }
        let added: Vec<(&String, &String)> = line_properties
            .iter()
            .filter(|(key, _)| !written.iter().any(|w| w == key.as_str()))
            .collect();
        if added.is_empty() {
            return;
        }
        let mut lines = String::new();
        if !out[..insert_at].is_empty() && !out[..insert_at].ends_with(['\n', '\r']) {
            lines.push_str(self.style.line_break);
        }
        for (key, value) in added {
            let spelling = match self.style.syntax {
                Syntax::Markdown => Cow::Borrowed(key.as_str()),
                // As Logseq writes them: `#+TITLE:`.
                Syntax::Org => Cow::Owned(key.to_uppercase()),
            };
            lines.push_str(&self.property_line(&spelling, value));
        }
        if was_empty && written.is_empty() && !doc.blocks.is_empty() {
            // A head that held no properties gets them and a blank line, as Logseq writes it.
            lines.push_str(self.style.line_break);
        }
        out.insert_str(insert_at, &lines);
    }

    /// A page property line of the head: its key (in org, in lower case, as reading gives it),
    /// the key as written, and its value.
    fn head_property<'l>(&self, line: &'l str) -> Option<(Cow<'l, str>, &'l str, &'l str)> {
        match self.style.syntax {
            Syntax::Markdown => property_line(split_indent(line).1)
                .map(|(key, value)| (Cow::Borrowed(key), key, value)),
            Syntax::Org => org::page_property_line(line)
                .map(|(key, value)| (Cow::Owned(key.to_lowercase()), key, value)),
        }
    }

    /// A page property line, its key written as `spelling`.
    fn property_line(&self, spelling: &str, value: &str) -> String {
        let mut line = match self.style.syntax {
            Syntax::Markdown if value.is_empty() => format!("{spelling}::"),
            Syntax::Markdown => format!("{spelling}:: {value}"),
            Syntax::Org => org::page_property_text(spelling, value),
        };
        line.push_str(self.style.line_break);
        line
    }

    /// Writes `blocks`, the children of a block at `level`, each kept one as the original's
    /// lines; `formers[*at..]` says what they and their descendants were, in document order.
    /// A block written anew takes the indentation of its siblings in the file, so that a page
    /// that indents some children by a tab and others by two spaces keeps both.
    fn write_blocks(
        &self,
        blocks: &[ParsedBlock],
        level: Level<'_>,
        depth: usize,
        formers: &[Former],
        at: &mut usize,
        out: &mut String,
    ) -> Option<()> {
        if depth >= MAX_DEPTH && !blocks.is_empty() {
            return None;
        }
        // The indentation of the last sibling so far that kept its lines, and the one most of
        // them have.
        let mut kept_indent: Option<&str> = None;
        // Whether the last of those is a heading without a bullet.
        let mut kept_heading = false;
        let usual_indent = if self.reindent_kept {
            self.usual_kept_indent(blocks, &formers[(*at).min(formers.len())..])
        } else {
            None
        };
        for (i, block) in blocks.iter().enumerate() {
            let former = formers.get(*at).copied().unwrap_or(Former::New);
            *at += 1;
            let indent: Cow<'_, str> = match former {
                Former::Unchanged(k) => {
                    let lines = self.block_lines(k)?;
                    let own = self.level_of(lines);
                    let sibling = usual_indent
                        .filter(|&sibling| self.style.syntax == Syntax::Markdown && sibling != own);
                    match sibling {
                        Some(sibling) => {
                            self.push_piece(out, &reindented(lines, own, sibling));
                            Cow::Borrowed(sibling)
                        }
                        None => {
                            self.push_piece(out, lines);
                            kept_indent = Some(own);
                            kept_heading = self.style.syntax == Syntax::Markdown
                                && level.parent.is_none()
                                && self.opening_of(lines, block) == Opening::Margin
                                && heading_level(split_indent(lines).1).is_some();
                            Cow::Borrowed(own)
                        }
                    }
                }
                Former::Changed(_) | Former::New => {
                    let former_lines = match former {
                        Former::Changed(k) => Some(self.block_lines(k)?),
                        _ => None,
                    };
                    // Its own indentation first, where it still nests it under its parent (its
                    // kept children are indented from it); an org headline's stars say its
                    // depth, so it keeps none. Else its siblings'.
                    let own_indent = former_lines
                        .map(|lines| self.level_of(lines))
                        .filter(|own| {
                            self.keep_indent
                                && self.style.syntax == Syntax::Markdown
                                && level
                                    .parent
                                    .is_some_and(|parent| columns(own) > columns(parent))
                        });
                    let line_indent = own_indent.or(kept_indent).or_else(|| {
                        let next = *at + descendants(&block.children);
                        self.kept_indents(&blocks[i + 1..], formers.get(next..)?)
                            .next()
                    });
                    let nested = match (line_indent, level.parent) {
                        (Some(line_indent), _) => Cow::Borrowed(line_indent),
                        (None, Some(parent)) => Cow::Owned(format!("{parent}{}", level.unit)),
                        (None, None) => Cow::Borrowed(self.style.margin.as_str()),
                    };
                    let opening = match former_lines {
                        Some(lines) if self.keep_lines => self.opening_of(lines, block),
                        // A new heading among headings without bullets is written as they are.
                        None if self.keep_lines
                            && kept_heading
                            && heading_level(block.text.lines().next().unwrap_or_default())
                                .is_some() =>
                        {
                            Opening::Margin
                        }
                        _ => Opening::Bullet,
                    };
                    let margin = opening == Opening::Margin;
                    let indent = if margin { Cow::Borrowed("") } else { nested };
                    let mut lines = String::new();
                    match self.style.syntax {
                        Syntax::Markdown => write_block_lines(block, &indent, opening, &mut lines),
                        Syntax::Org => org::write_block_lines(
                            block,
                            &indent,
                            self.style.indent_bodies,
                            &mut lines,
                        ),
                    }
                    if self.style.line_break != "\n" {
                        lines = lines.replace('\n', self.style.line_break);
                    }
                    if let Some(former_lines) = former_lines {
                        let layout = layout_after(former_lines);
                        if self.keep_lines && self.level_of(former_lines) == &*indent {
                            let text_prefix = match self.style.syntax {
                                Syntax::Markdown if margin => indent.to_string(),
                                Syntax::Markdown => format!("{indent}  "),
                                Syntax::Org => org::text_prefix(&indent),
                            };
                            let former_text = &former_lines[..former_lines.len() - layout.len()];
                            lines = self.kept_lines(former_text, &lines, &text_prefix);
                        }
                        lines.push_str(layout);
                    }
                    self.push_piece(out, &lines);
                    indent
                }
            };
            // The unit this block's indentation adds to its parent's is the one its own
            // children are likeliest to have.
            let unit = level
                .parent
                .and_then(|parent| indent.strip_prefix(parent))
                .filter(|unit| !unit.is_empty() && self.style.syntax == Syntax::Markdown)
                .unwrap_or(level.unit);
            let children = Level {
                parent: Some(&indent),
                unit,
            };
            self.write_blocks(&block.children, children, depth + 1, formers, at, out)?;
        }
        Some(())
    }

    /// The indentation most of `blocks` that keep their lines have (of as many, the first's),
    /// `formers` saying what `blocks` and their descendants were, in document order.
    fn usual_kept_indent(&self, blocks: &[ParsedBlock], formers: &[Former]) -> Option<&'a str> {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for indent in self.kept_indents(blocks, formers) {
            match counts.iter_mut().find(|(seen, _)| *seen == indent) {
                Some((_, n)) => *n += 1,
                None => counts.push((indent, 1)),
            }
        }
        let most = counts.iter().map(|&(_, n)| n).max()?;
        counts
            .into_iter()
            .find(|&(_, n)| n == most)
            .map(|(indent, _)| indent)
    }

    /// The indentation of each of `blocks` that keeps its lines, in order, `formers` saying
    /// what `blocks` and their descendants were, in document order.
    fn kept_indents<'s>(
        &'s self,
        blocks: &'s [ParsedBlock],
        formers: &'s [Former],
    ) -> impl Iterator<Item = &'a str> + 's {
        let mut at = 0;
        blocks.iter().filter_map(move |block| {
            let former = formers.get(at);
            at += 1 + descendants(&block.children);
            match former {
                Some(Former::Unchanged(k)) => {
                    self.block_lines(*k).map(|lines| self.level_of(lines))
                }
                _ => None,
            }
        })
    }

    /// A changed block's `fresh` lines, with each line that says what a line of its `former`
    /// ones said (the same text once the block's `text_prefix` is set aside) taken from there
    /// byte for byte: the text of an edited line changes, its neighbours' spacing does not.
    fn kept_lines(&self, former: &str, fresh: &str, text_prefix: &str) -> String {
        let keyed = |text: &str| -> Vec<(bool, String, String)> {
            line_spans(text)
                .enumerate()
                .map(|(i, (start, line, next))| {
                    // A text line says the same escaped or not (`\- x` is how a fresh line
                    // writes the `- x` of a quote's list); the parse of the result checks
                    // that a kept line still reads as it should.
                    let key = if i == 0 {
                        self.first_line_text(line).to_owned()
                    } else {
                        let (indent, rest) = split_indent(
                            line.strip_prefix(common_prefix(line, text_prefix))
                                .unwrap_or(line),
                        );
                        let rest = rest.trim_start_matches('\\');
                        // An org drawer line says its property, however its key is spelled
                        // (`:ID:`, `:CUSTOM_ID:` for the `:id:` written anew).
                        match drawer_property(rest) {
                            Some((key, value)) if self.style.syntax == Syntax::Org => {
                                format!(":{key}: {value}")
                            }
                            _ => format!("{indent}{rest}"),
                        }
                    };
                    (i == 0, key, text[start..next].to_owned())
                })
                .collect()
        };
        let (former, mut fresh) = (keyed(former), keyed(fresh));
        if self.style.syntax == Syntax::Markdown {
            keep_properties_drawer(&former, &mut fresh);
            keep_properties_below_the_text(&former, &mut fresh);
        }
        if former.len().saturating_mul(fresh.len()) > MAX_MATCHED_CELLS {
            return fresh.into_iter().map(|(_, _, raw)| raw).collect();
        }
        let same =
            |a: &(bool, String, String), b: &(bool, String, String)| a.0 == b.0 && a.1 == b.1;
        let matched = longest_common_subsequence(&former, &fresh, same);
        let mut out = String::new();
        for (i, (_, _, raw)) in fresh.iter().enumerate() {
            match matched[i] {
                Some(j) => {
                    let kept = &former[j].2;
                    out.push_str(kept);
                    if !kept.ends_with(['\n', '\r']) {
                        out.push_str(self.style.line_break);
                    }
                }
                None => out.push_str(raw),
            }
        }
        out
    }

    /// What a block's lines in the original open with, where children's are nested from: the
    /// bullet's indentation, or the headline's stars (none for org text before the first
    /// headline).
    fn level_of<'l>(&self, lines: &'l str) -> &'l str {
        match self.style.syntax {
            Syntax::Markdown => split_indent(lines).0,
            Syntax::Org => {
                let first = lines.lines().next().unwrap_or_default();
                &lines[..org::headline(first).map_or(0, |(stars, _)| stars)]
            }
        }
    }

    /// How a block's lines in the original open, for `block` to open the same way where it
    /// can.
    fn opening_of(&self, lines: &str, block: &ParsedBlock) -> Opening {
        let first = lines.lines().next().unwrap_or_default();
        match self.style.syntax {
            Syntax::Markdown => {
                let (indent, rest) = split_indent(first);
                match bullet_text(rest) {
                    None if indent.is_empty() => Opening::Margin,
                    Some(text) if property_line(text).is_some() => Opening::PropertiesFirst,
                    _ => Opening::Bullet,
                }
            }
            // Text before the first headline has no drawer: with properties, it is a headline.
            Syntax::Org if org::headline(first).is_none() && block.properties.is_empty() => {
                Opening::Margin
            }
            Syntax::Org => Opening::Bullet,
        }
    }

    /// A block's first line without what opens it: its bullet or its stars.
    fn first_line_text<'l>(&self, line: &'l str) -> &'l str {
        match self.style.syntax {
            Syntax::Markdown => {
                let rest = split_indent(line).1;
                bullet_text(rest).unwrap_or(rest)
            }
            Syntax::Org => org::headline(line).map_or(line, |(_, title)| title),
        }
    }

    /// The original's `k`-th block: its lines and the layout after them.
    fn block_lines(&self, k: usize) -> Option<&'a str> {
        let start = *self.starts.get(k)?;
        let end = self
            .starts
            .get(k + 1)
            .copied()
            .unwrap_or(self.original.len());
        self.original.get(start..end)
    }

    /// Appends whole lines, after a line break if what is written so far ends without one
    /// (the original's last line).
    fn push_piece(&self, out: &mut String, piece: &str) {
        if !out.is_empty() && !out.ends_with(['\n', '\r']) {
            out.push_str(self.style.line_break);
        }
        out.push_str(piece);
    }
}

/// Past this many line pairs a changed block's lines are not matched against its former
/// ones: it is written anew.
const MAX_MATCHED_CELLS: usize = 1 << 22;

/// A block's lines, each as (first line?, what it says, its bytes).
type KeyedLines = Vec<(bool, String, String)>;

/// Where `former` held its properties below lines of its text (read as properties, as mldoc
/// reads them) and `fresh` writes the same properties right under its first line, puts the
/// former's property lines back after as many lines as they followed.
fn keep_properties_below_the_text(former: &KeyedLines, fresh: &mut KeyedLines) {
    let said = |line: &(bool, String, String)| split_indent(&line.1).1.trim_end().to_owned();
    let is_property = |line: &(bool, String, String)| property_line(&said(line)).is_some();
    if former.get(1).is_none_or(is_property) {
        return;
    }
    let Some(start) = former.iter().skip(1).position(is_property).map(|at| at + 1) else {
        return;
    };
    let len = former[start..]
        .iter()
        .take_while(|line| is_property(line))
        .count();
    let run: Vec<String> = former[start..start + len].iter().map(said).collect();
    let written: Vec<String> = fresh.iter().skip(1).take(len).map(said).collect();
    if written != run {
        return;
    }
    fresh.drain(1..1 + len);
    let at = start.min(fresh.len());
    fresh.splice(at..at, former[start..start + len].iter().cloned());
}

/// Where `former` held its properties in a `:PROPERTIES:` drawer and `fresh` writes the same
/// properties as `key:: value` lines, puts the drawer's lines in their place, so that they
/// are kept as they were.
fn keep_properties_drawer(former: &KeyedLines, fresh: &mut KeyedLines) {
    let says = |line: &(bool, String, String)| split_indent(&line.1).1.trim_end().to_owned();
    let Some(open) = former
        .iter()
        .position(|line| !line.0 && says(line).eq_ignore_ascii_case(":PROPERTIES:"))
    else {
        return;
    };
    let Some(close) = former[open + 1..]
        .iter()
        .position(|line| says(line).eq_ignore_ascii_case(":END:"))
        .map(|at| open + 1 + at)
    else {
        return;
    };
    let entries: Option<Vec<(String, String)>> = former[open + 1..close]
        .iter()
        .map(|line| drawer_property(&line.1))
        .collect();
    let Some(entries) = entries.filter(|entries| !entries.is_empty()) else {
        return;
    };
    let written = |line: &(bool, String, String)| {
        let said = says(line);
        property_line(&said).map(|(key, value)| (key.to_lowercase(), value.to_owned()))
    };
    let Some(at) = (0..fresh.len().saturating_sub(entries.len() - 1)).find(|&at| {
        fresh[at..at + entries.len()]
            .iter()
            .zip(&entries)
            .all(|(line, entry)| written(line).as_ref() == Some(entry))
    }) else {
        return;
    };
    fresh.splice(at..at + entries.len(), former[open..=close].iter().cloned());
}

/// The longest leading part `line` shares with `prefix`.
fn common_prefix<'l>(line: &'l str, prefix: &str) -> &'l str {
    let len = line
        .char_indices()
        .zip(prefix.chars())
        .find(|((_, a), b)| a != b)
        .map_or_else(|| line.len().min(prefix.len()), |((at, _), _)| at);
    &line[..len]
}

/// For each item of `b`, the item of `a` it is paired with in a longest common subsequence.
fn longest_common_subsequence<T>(
    a: &[T],
    b: &[T],
    same: impl Fn(&T, &T) -> bool,
) -> Vec<Option<usize>> {
    let width = b.len() + 1;
    // lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
    let mut lengths = vec![0u32; (a.len() + 1) * width];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lengths[i * width + j] = if same(&a[i], &b[j]) {
                lengths[(i + 1) * width + j + 1] + 1
            } else {
                lengths[(i + 1) * width + j].max(lengths[i * width + j + 1])
            };
        }
    }
    let mut paired = vec![None; b.len()];
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if same(&a[i], &b[j]) {
            paired[j] = Some(i);
            i += 1;
            j += 1;
        } else if lengths[(i + 1) * width + j] >= lengths[i * width + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    paired
}

/// The empty lines a block's lines end with: layout, not text.
fn layout_after(lines: &str) -> &str {
    let text = lines.trim_end_matches(['\n', '\r']);
    let after = &lines[text.len()..];
    &after[line_break_len(after)..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Properties, parse, parse_with_starts};

    use Former::{Changed, New, Unchanged};

    fn over(original: &str, doc: &Document, formers: &[Former]) -> String {
        let (_, starts) = parse_with_starts(original);
        serialize_over(Syntax::Markdown, doc, original, &starts, formers)
    }

    #[test]
    fn an_edit_changes_only_its_line_in_two_space_crlf_files_without_a_final_break() {
        let original = "title:: Old style\r\n\r\n- one\r\n  - two  \r\n    prop:: x\r\n\r\n  - three\r\n- four";
        let mut doc = parse(original);
        doc.blocks[0].children[1].text = "three, edited".into();
        let written = over(
            original,
            &doc,
            &[Unchanged(0), Unchanged(1), Changed(2), Unchanged(3)],
        );
        assert_eq!(
            written,
            "title:: Old style\r\n\r\n- one\r\n  - two  \r\n    prop:: x\r\n\r\n  - three, edited\r\n- four"
        );
    }

    #[test]
    fn new_blocks_take_the_file_s_indent_unit_and_line_break() {
        let original = "- a\r\n    - b\r\n";
        let mut doc = parse(original);
        doc.blocks[0].children.push(ParsedBlock {
            text: "c\nsecond line".into(),
            properties: Properties::new(),
            children: vec![],
        });
        let written = over(original, &doc, &[Unchanged(0), Unchanged(1), New]);
        assert_eq!(
            written,
            "- a\r\n    - b\r\n    - c\r\n      second line\r\n"
        );
    }

    #[test]
    fn new_blocks_take_their_siblings_indent_where_a_page_mixes_tabs_and_spaces() {
        let original = "- a\n\t- a1\n- b\n  - b1\n  - b2\n- c\n";
        let leaf = |text: &str| ParsedBlock {
            text: text.into(),
            properties: Properties::new(),
            children: vec![],
        };
        let mut doc = parse(original);
        doc.blocks[1].children.insert(1, leaf("new"));
        let formers = [0, 1, 2, 3].map(Unchanged);
        let inserted = [&formers[..], &[New, Unchanged(4), Unchanged(5)]].concat();
        assert_eq!(
            over(original, &doc, &inserted),
            "- a\n\t- a1\n- b\n  - b1\n  - new\n  - b2\n- c\n"
        );
        // Indented under a block two spaces in, a block goes two spaces further, not a tab.
        let mut doc = parse(original);
        let b2 = doc.blocks[1].children.remove(1);
        doc.blocks[1].children[0].children.push(b2);
        let indented = [&formers[..], &[Changed(4), Unchanged(5)]].concat();
        assert_eq!(
            over(original, &doc, &indented),
            "- a\n\t- a1\n- b\n  - b1\n    - b2\n- c\n"
        );
    }

    #[test]
    fn a_changed_block_keeps_its_indentation_where_no_sibling_says_it() {
        // An only child indented by spaces in a page of tabs keeps its spaces, and its
        // children keep their lines.
        let original = "- top\n  - target\n    - c1\n- other\n\t- x\n";
        let mut doc = parse(original);
        doc.blocks[0].children[0].text = "target, edited".into();
        let formers = [
            Unchanged(0),
            Changed(1),
            Unchanged(2),
            Unchanged(3),
            Unchanged(4),
        ];
        assert_eq!(
            over(original, &doc, &formers),
            original.replace("target", "target, edited")
        );
    }

    #[test]
    fn a_changed_block_keeps_its_indentation_beside_siblings_indented_otherwise() {
        // Its kept children are indented from its own indentation, not its sibling's.
        let original = "- q\n  - mine\n    - 1\n\t- theirs\n\t\t- short\n";
        let mut doc = parse(original);
        doc.blocks[0].children[1].text = "TODO theirs".into();
        let formers = [
            Unchanged(0),
            Unchanged(1),
            Unchanged(2),
            Changed(3),
            Unchanged(4),
        ];
        assert_eq!(
            over(original, &doc, &formers),
            original.replace("- theirs", "- TODO theirs")
        );
    }

    #[test]
    fn a_block_moved_among_siblings_indented_otherwise_takes_their_indentation() {
        let original = "- p\n\t- t1\n- q\n  - s1\n  - s2\n- r\n";
        let mut doc = parse(original);
        let t1 = doc.blocks[0].children.remove(0);
        doc.blocks[1].children.insert(1, t1);
        // Moved at its own depth, it keeps its lines, but for their indentation.
        let formers = [0, 2, 3, 1, 4, 5].map(Unchanged);
        assert_eq!(
            over(original, &doc, &formers),
            "- p\n- q\n  - s1\n  - t1\n  - s2\n- r\n"
        );
    }

    #[test]
    fn of_a_page_property_s_repeated_lines_a_change_rewrites_the_last() {
        let original = "tags:: [[A]]\nvia:: x\ntags:: [[B]]\n\n- foo\n";
        let mut doc = parse(original);
        doc.blocks[0].text = "foo, edited".into();
        assert_eq!(
            over(original, &doc, &[Changed(0)]),
            original.replace("foo", "foo, edited")
        );
        doc.properties.insert("tags".into(), "[[C]]".into());
        assert_eq!(
            over(original, &doc, &[Changed(0)]),
            "tags:: [[A]]\nvia:: x\ntags:: [[C]]\n\n- foo, edited\n"
        );
    }

    #[test]
    fn a_changed_page_property_is_rewritten_in_place_and_a_new_one_follows_the_last() {
        let original = "---\ntitle: Apr 9th, 2021\n---\ntype:: [[Note]]\nstatus:: open\n\n- a\n";
        let mut doc = parse(original);
        doc.properties.insert("status".into(), "closed".into());
        doc.properties.insert("rating".into(), "5".into());
        let written = over(original, &doc, &[Unchanged(0)]);
        assert_eq!(
            written,
            "---\ntitle: Apr 9th, 2021\n---\ntype:: [[Note]]\nstatus:: closed\nrating:: 5\n\n- a\n"
        );
    }

    #[test]
    fn a_changed_block_keeps_the_blank_lines_after_it() {
        let original = "- a\n\n- b\n";
        let mut doc = parse(original);
        doc.blocks[0].text = "a, edited".into();
        assert_eq!(
            over(original, &doc, &[Changed(0), Unchanged(1)]),
            "- a, edited\n\n- b\n"
        );
    }

    #[test]
    fn a_deleted_block_takes_its_lines_and_only_those() {
        let original = "- a\n\t- b\n\n\t- c\n- d\n";
        let mut doc = parse(original);
        doc.blocks[0].children.remove(0);
        assert_eq!(
            over(original, &doc, &[Unchanged(0), Unchanged(2), Unchanged(3)]),
            "- a\n\t- c\n- d\n"
        );
    }

    #[test]
    fn a_layout_that_cannot_hold_the_change_is_written_whole_and_reads_back() {
        // The kept child sits two columns in; under a parent written four columns in, it
        // would not nest.
        let original = "- a\n  - b\n";
        let mut doc = parse(original);
        let b = doc.blocks[0].children.remove(0);
        doc.blocks.push(ParsedBlock {
            text: "new parent".into(),
            properties: Properties::new(),
            children: vec![],
        });
        doc.blocks[0].children.push(ParsedBlock {
            text: "x".into(),
            properties: Properties::new(),
            children: vec![ParsedBlock {
                text: "y".into(),
                properties: Properties::new(),
                children: vec![b],
            }],
        });
        let written = over(original, &doc, &[Unchanged(0), New, New, Unchanged(1), New]);
        assert_eq!(parse(&written), doc.normalized());
    }

    #[test]
    fn an_edited_block_keeps_its_other_lines_as_they_were() {
        let original = "- first\nbody at the margin\n\n  more  \n    id:: 1\n- next\n";
        let mut doc = parse(original);
        doc.blocks[0].text = doc.blocks[0].text.replace("first", "first, edited");
        assert_eq!(
            over(original, &doc, &[Changed(0), Unchanged(1)]),
            "- first, edited\nbody at the margin\n\n  more  \n    id:: 1\n- next\n"
        );
    }

    #[test]
    fn an_edited_heading_of_a_page_without_bullets_stays_without_a_bullet() {
        let original = "# Changelog\nSome text.\n## 0.9\n- a\n";
        let mut doc = parse(original);
        doc.blocks[0].text = doc.blocks[0].text.replace("Changelog", "Changes");
        assert_eq!(
            over(original, &doc, &[Changed(0), Unchanged(1), Unchanged(2)]),
            "# Changes\nSome text.\n## 0.9\n- a\n"
        );
    }

    #[test]
    fn an_edited_block_keeps_the_list_of_its_quote() {
        let original = "- said\n  #+BEGIN_QUOTE\n  - local files\n  #+END_QUOTE\n- next\n";
        let mut doc = parse(original);
        doc.blocks[0].text = doc.blocks[0].text.replace("said", "said, edited");
        let written = over(original, &doc, &[Former::Changed(0), Former::Unchanged(1)]);
        assert_eq!(written, original.replace("said\n", "said, edited\n"));
    }

    #[test]
    fn an_edited_block_keeps_the_nested_list_of_its_example() {
        let original = "- output\n  #+BEGIN_EXAMPLE\n  - one\n    - two\n  #+END_EXAMPLE\n- next\n";
        let mut doc = parse(original);
        doc.blocks[0].text = doc.blocks[0].text.replace("output", "output, edited");
        let written = over(original, &doc, &[Former::Changed(0), Former::Unchanged(1)]);
        assert_eq!(written, original.replace("output\n", "output, edited\n"));
    }

    #[test]
    fn an_edited_block_keeps_the_lines_of_its_math() {
        let original =
            "- sums\n  $$\\begin{aligned}\n  - a &= b \\\\\n  \\end{aligned}$$\n- next\n";
        let mut doc = parse(original);
        doc.blocks[0].text = doc.blocks[0].text.replace("sums", "sums, edited");
        let written = over(original, &doc, &[Former::Changed(0), Former::Unchanged(1)]);
        assert_eq!(written, original.replace("sums\n", "sums, edited\n"));
    }

    #[test]
    fn an_edited_block_keeps_its_properties_drawer() {
        let original = "- ## Clojure\n  :PROPERTIES:\n  :ID:06dec093-7938-4926-9da4-589713449fa8\n  :END:\n  body\n- next\n";
        let mut doc = parse(original);
        doc.blocks[0].text = "## Clojure, edited\nbody".into();
        let written = over(original, &doc, &[Former::Changed(0), Former::Unchanged(1)]);
        assert_eq!(written, original.replace("Clojure\n", "Clojure, edited\n"));
    }

    #[test]
    fn a_block_that_opens_with_its_properties_keeps_them_first() {
        let original = "- ls-type:: annotation\n  hl-page:: 3\n  1. Introduction\n- next\n";
        let mut doc = parse(original);
        doc.blocks[0].text = "1. Introduction, read".into();
        assert_eq!(
            over(original, &doc, &[Changed(0), Unchanged(1)]),
            "- ls-type:: annotation\n  hl-page:: 3\n  1. Introduction, read\n- next\n"
        );
    }

    #[test]
    fn blocks_of_a_page_whose_bullets_start_indented_are_written_at_its_margin() {
        let original = "\t- a\n\t\t- b\n\t- c\n";
        let mut doc = parse(original);
        doc.blocks[1].text = "c, edited".into();
        doc.blocks[1].children.push(ParsedBlock {
            text: "d".into(),
            properties: Properties::new(),
            children: vec![],
        });
        assert_eq!(
            over(
                original,
                &doc,
                &[Unchanged(0), Unchanged(1), Changed(2), New]
            ),
            "\t- a\n\t\t- b\n\t- c, edited\n\t\t- d\n"
        );
    }

    fn over_org(original: &str, doc: &Document, formers: &[Former]) -> String {
        let (_, starts) = Syntax::Org.parse_with_starts(original);
        serialize_over(Syntax::Org, doc, original, &starts, formers)
    }

    /// Logseq's org style: the first headline two stars in, a drawer, text at the margin.
    const ORG: &str = "#+TITLE: Plans\n\n** TODO [#A] Write it\n:PROPERTIES:\n:created_at: 1\n:END:\nThe first draft.\n*** child\n\n** second\n";

    #[test]
    fn an_org_edit_changes_only_its_line_and_properties_go_in_the_drawer() {
        let mut doc = Syntax::Org.parse(ORG);
        doc.blocks[0].text = "DONE [#A] Write it\nThe first draft.".into();
        doc.blocks[1]
            .properties
            .insert("collapsed".into(), "true".into());
        doc.properties.insert("title".into(), "Plans, done".into());
        doc.properties.insert("alias".into(), "p".into());
        assert_eq!(
            over_org(ORG, &doc, &[Changed(0), Unchanged(1), Changed(2)]),
            "#+TITLE: Plans, done\n#+ALIAS: p\n\n** DONE [#A] Write it\n:PROPERTIES:\n:created_at: 1\n:END:\nThe first draft.\n*** child\n\n** second\n:PROPERTIES:\n:collapsed: true\n:END:\n"
        );
    }

    #[test]
    fn an_edited_org_block_keeps_its_drawer_as_spelled() {
        let original = "* a\n** :PROPERTIES:\n:CUSTOM_ID: 6a1b0000-0000-4000-8000-0000000000cc\n:END:\nnote\n* b\n";
        let mut doc = Syntax::Org.parse(original);
        doc.blocks[0].children[0].text = "titled\nnote".into();
        let written = over_org(original, &doc, &[Unchanged(0), Changed(1), Unchanged(2)]);
        assert_eq!(
            written,
            original.replace("** :PROPERTIES:\n", "** titled\n:PROPERTIES:\n")
        );
    }

    #[test]
    fn org_blocks_moved_or_new_take_stars_for_their_depth() {
        let mut doc = Syntax::Org.parse(ORG);
        let child = doc.blocks[0].children.remove(0);
        doc.blocks[1].children.push(child);
        doc.blocks.push(ParsedBlock {
            text: "third\n  indented code".into(),
            properties: Properties::new(),
            children: vec![],
        });
        assert_eq!(
            over_org(ORG, &doc, &[Unchanged(0), Unchanged(2), Unchanged(1), New]),
            "#+TITLE: Plans\n\n** TODO [#A] Write it\n:PROPERTIES:\n:created_at: 1\n:END:\nThe first draft.\n** second\n*** child\n\n** third\n     indented code\n"
        );
        // A child moved to the top level loses a star.
        let mut doc = Syntax::Org.parse(ORG);
        let child = doc.blocks[0].children.remove(0);
        doc.blocks.insert(1, child);
        assert_eq!(
            over_org(ORG, &doc, &[Unchanged(0), Changed(1), Unchanged(2)]),
            "#+TITLE: Plans\n\n** TODO [#A] Write it\n:PROPERTIES:\n:created_at: 1\n:END:\nThe first draft.\n** child\n\n** second\n"
        );
    }

    #[test]
    fn org_bodies_indented_under_their_headline_stay_so() {
        let original = "* Thursday, 05/14/2020\r\n** [[Draw]]\r\n   Open it.\r\n   And enjoy!";
        let mut doc = Syntax::Org.parse(original);
        doc.blocks[0].children[0].text = "[[Draw]]\nOpen it.\nAnd enjoy!\nToday.".into();
        doc.blocks[0].children[0]
            .properties
            .insert("id".into(), "1".into());
        assert_eq!(
            over_org(original, &doc, &[Unchanged(0), Changed(1)]),
            "* Thursday, 05/14/2020\r\n** [[Draw]]\r\n   :PROPERTIES:\r\n   :id: 1\r\n   :END:\r\n   Open it.\r\n   And enjoy!\r\n   Today."
        );
    }

    #[test]
    fn a_file_ending_in_a_wide_character_without_a_line_break_takes_a_new_property() {
        let original = "- TODO 为什么需要打开对时间戳的支持";
        let mut doc = parse(original);
        doc.blocks[0]
            .properties
            .insert("checked".into(), "yes".into());
        assert_eq!(
            over(original, &doc, &[Changed(0)]),
            "- TODO 为什么需要打开对时间戳的支持\n  checked:: yes"
        );
    }
}
