//! The inline tokenizer: a block's text as tokens a renderer can draw without a markdown
//! parser of its own. Lossless: the tokens' sources, concatenated, are the text.
//!
//! One scan of the bytes notes where the few characters that can mean anything are (most of a
//! text is none of them, and a text without any is one text token). Then two passes over those
//! places only. The first finds, left to right, the spans nothing can cut into — code, page
//! links, tags, block references, the task marker, priorities. The second builds bold, italic
//! and markdown links around them; every closing delimiter is looked up in a sorted list, so
//! tokenizing stays near linear whatever the input.

use std::cell::OnceCell;

use serde::{Deserialize, Serialize};

use super::syntax::Fence;
use super::task::{Priority, TaskMarker, marker_at};

/// One inline element. Serialized as compact JSON tagged by `t`, e.g.
/// `{"t":"page","s":"Bob"}`, `{"t":"bold","c":[{"t":"text","s":"hi"}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "lowercase")]
pub enum Token {
    /// Plain text, verbatim.
    Text {
        #[serde(rename = "s")]
        text: String,
    },
    /// `[[page]]`.
    Page {
        #[serde(rename = "s")]
        page: String,
    },
    /// `#tag`, or `#[[multi word tag]]` when `bracketed`. A tag links to the page it names.
    Tag {
        #[serde(rename = "s")]
        page: String,
        #[serde(rename = "b", default, skip_serializing_if = "is_false")]
        bracketed: bool,
    },
    /// `((block-id))`.
    Ref { id: String },
    /// `**children**`.
    Bold {
        #[serde(rename = "c")]
        children: Vec<Token>,
    },
    /// `*children*`, or `_children_` when `underscore`.
    Italic {
        #[serde(rename = "c")]
        children: Vec<Token>,
        #[serde(rename = "u", default, skip_serializing_if = "is_false")]
        underscore: bool,
    },
    /// Inline code between runs of `ticks` backticks; `code` is verbatim (no tokens inside).
    Code {
        #[serde(rename = "s")]
        code: String,
        #[serde(rename = "n", default = "one", skip_serializing_if = "is_one")]
        ticks: usize,
    },
    /// `[children](url)`.
    Link {
        #[serde(rename = "c")]
        children: Vec<Token>,
        url: String,
    },
    /// The task marker a text starts with.
    Task {
        #[serde(rename = "s")]
        marker: TaskMarker,
    },
    /// `[#A]`, `[#B]` or `[#C]`.
    Priority {
        #[serde(rename = "s")]
        priority: Priority,
    },
}

fn is_false(flag: &bool) -> bool {
    !flag
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// Splits a text into tokens. Never fails: what is not markup is text, and so is what
/// Logseq keeps verbatim (see `verbatim_lines`).
pub fn tokenize(text: &str) -> Vec<Token> {
    let verbatim = verbatim_lines(text);
    if verbatim.is_empty() {
        return tokenize_markup(text, true);
    }
    let mut tokens = Vec::new();
    let mut from = 0;
    // An empty range at the end tokenizes what follows the last verbatim line.
    for range in verbatim
        .into_iter()
        .chain(std::iter::once(text.len()..text.len()))
    {
        if from < range.start {
            for token in tokenize_markup(&text[from..range.start], from == 0) {
                match token {
                    Token::Text { text } => push_text(&mut tokens, &text),
                    token => tokens.push(token),
                }
            }
        }
        push_text(&mut tokens, &text[range.clone()]);
        from = range.end;
    }
    tokens
}

/// Tokens of a text with nothing verbatim in it; `at_start` when it starts the block's text,
/// where a task marker can be.
fn tokenize_markup(text: &str, at_start: bool) -> Vec<Token> {
    let marks = Marks::of(text);
    let marker = at_start.then(|| marker_at(text)).flatten();
    if marks.only_line_breaks() && marker.is_none() {
        let mut tokens = Vec::new();
        push_text(&mut tokens, text);
        return tokens;
    }
    Scanner::new(text, marks, marker).region(0, text.len(), Within::Text)
}

/// `#+BEGIN_` blocks whose content Logseq keeps verbatim (source code, examples, exports,
/// comments and queries); the others (`QUOTE`, `NOTE`, `TIP`, …) hold text read as usual.
const VERBATIM_BLOCKS: [&str; 5] = ["SRC", "EXAMPLE", "EXPORT", "COMMENT", "QUERY"];

/// The byte ranges of `text`, whole lines with their line breaks, that hold no links, tags or
/// formatting: `#+` directive lines (`#+BEGIN_QUERY`, `#+END_SRC`, `#+TITLE: x`), the lines of
/// a verbatim `#+BEGIN_` block ([`VERBATIM_BLOCKS`]) up to its `#+END_` line, and `~~~`
/// fences. A backtick fence is left to the code spans of the tokenizer, which keep it verbatim
/// already; it is only tracked so that nothing inside it starts a range.
fn verbatim_lines(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
    if !text.contains("#+") && !text.contains("~~~") {
        return ranges;
    }
    enum Open {
        Backticks(Fence),
        Tildes(Fence),
        Block(String),
    }
    let mut open: Option<Open> = None;
    let mut start = 0;
    while start < text.len() {
        let end = text[start..]
            .find('\n')
            .map_or(text.len(), |at| start + at + 1);
        let line = text[start..end].trim_end_matches(['\n', '\r']);
        let rest = line.trim_start_matches([' ', '\t']);
        let verbatim = match &open {
            Some(Open::Backticks(fence)) => {
                if fence.is_closed_by(rest) {
                    open = None;
                }
                false
            }
            Some(Open::Tildes(fence)) => {
                if fence.is_closed_by(rest) {
                    open = None;
                }
                true
            }
            Some(Open::Block(name)) => {
                if directive_name(rest).is_some_and(|directive| {
                    directive
                        .get(..4)
                        .is_some_and(|end| end.eq_ignore_ascii_case("END_"))
                        && directive[4..].eq_ignore_ascii_case(name)
                }) {
                    open = None;
                }
                true
            }
            None => match Fence::opened_by(rest) {
                Some(fence) if fence.char() == b'`' => {
                    open = Some(Open::Backticks(fence));
                    false
                }
                Some(fence) => {
                    open = Some(Open::Tildes(fence));
                    true
                }
                None => match directive_name(rest) {
                    Some(directive) => {
                        if let Some(kind) = directive
                            .get(..6)
                            .filter(|begin| begin.eq_ignore_ascii_case("BEGIN_"))
                            .map(|_| &directive[6..])
                            && VERBATIM_BLOCKS
                                .iter()
                                .any(|verbatim| verbatim.eq_ignore_ascii_case(kind))
                        {
                            open = Some(Open::Block(kind.to_owned()));
                        }
                        true
                    }
                    None => false,
                },
            },
        };
        if verbatim {
            match ranges.last_mut() {
                Some(last) if last.end == start => last.end = end,
                _ => ranges.push(start..end),
            }
        }
        start = end;
    }
    ranges
}

/// The name of a `#+NAME` directive line (`#+BEGIN_QUERY`, `#+TITLE: x`): what follows `#+`
/// up to a `:`, a space or the end.
fn directive_name(line: &str) -> Option<&str> {
    let after = line.strip_prefix("#+")?;
    let name = &after[..after.find([':', ' ', '\t']).unwrap_or(after.len())];
    (!name.is_empty()).then_some(name)
}

/// The markdown the tokens were read from.
pub fn source(tokens: &[Token]) -> String {
    let mut out = String::new();
    write_source(tokens, &mut out);
    out
}

fn write_source(tokens: &[Token], out: &mut String) {
    for token in tokens {
        match token {
            Token::Text { text } => out.push_str(text),
            Token::Page { page } => {
                out.push_str("[[");
                out.push_str(page);
                out.push_str("]]");
            }
            Token::Tag {
                page,
                bracketed: false,
            } => {
                out.push('#');
                out.push_str(page);
            }
            Token::Tag {
                page,
                bracketed: true,
            } => {
                out.push_str("#[[");
                out.push_str(page);
                out.push_str("]]");
            }
            Token::Ref { id } => {
                out.push_str("((");
                out.push_str(id);
                out.push_str("))");
            }
            Token::Bold { children } => {
                out.push_str("**");
                write_source(children, out);
                out.push_str("**");
            }
            Token::Italic {
                children,
                underscore,
            } => {
                let delimiter = if *underscore { '_' } else { '*' };
                out.push(delimiter);
                write_source(children, out);
                out.push(delimiter);
            }
            Token::Code { code, ticks } => {
                let fence = "`".repeat(*ticks);
                out.push_str(&fence);
                out.push_str(code);
                out.push_str(&fence);
            }
            Token::Link { children, url } => {
                out.push('[');
                write_source(children, out);
                out.push_str("](");
                out.push_str(url);
                out.push(')');
            }
            Token::Task { marker } => out.push_str(marker.as_str()),
            Token::Priority { priority } => {
                out.push_str("[#");
                out.push(priority.letter());
                out.push(']');
            }
        }
    }
}

/// Whitespace as mldoc reads it (ASCII only): a tag goes on through any other character, a
/// no-break or full-width space included.
fn is_tag_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c' | '\x1a')
}

/// Characters that end a bare `#tag` when only more of them, then whitespace or the end,
/// follow (`#a.` and `#a?!` are tags `a`); inside a name, `.` and `;` go on (`#v1.2`) and the
/// others end it (`#a,b` is the tag `a`). mldoc's `tag_delims`.
const TAG_DELIMS: &str = ",;.!?'\":#";

/// The bare-tag name at the start of `after_hash`, as mldoc reads it: up to whitespace or a
/// [`TAG_DELIMS`] character that ends it, with every other character kept (`#foo)` is the tag
/// `foo)`, `#标签。` is `标签。`) and a `[[page]]` inside taken whole.
pub(crate) fn bare_tag_name(after_hash: &str) -> &str {
    let mut end = 0;
    while let Some(c) = after_hash[end..].chars().next() {
        let tail = &after_hash[end..];
        if is_tag_space(c) {
            break;
        }
        if let Some(link) = page_link_len(tail) {
            end += link;
            continue;
        }
        if TAG_DELIMS.contains(c) {
            let after_run = tail.trim_start_matches(|c| TAG_DELIMS.contains(c));
            if after_run.chars().next().is_none_or(is_tag_space) || !".;".contains(c) {
                break;
            }
        }
        end += c.len_utf8();
    }
    &after_hash[..end]
}

/// The length of the `[[page]]` `text` starts with, if it does: one line, not blank, without
/// another `[[`.
fn page_link_len(text: &str) -> Option<usize> {
    let inside = text.strip_prefix("[[")?;
    let close = inside.find("]]")?;
    let name = &inside[..close];
    (!name.contains(['\n', '\r']) && !name.contains("[[") && !name.trim().is_empty())
        .then_some(close + 4)
}

/// Characters at which mldoc's plain-text reader stops and tries what may begin there (a
/// bare URL among them): its markdown `plain_delims`.
fn stops_plain(c: char) -> bool {
    is_tag_space(c) || "\\_^[*~`=$#".contains(c)
}

/// Whether the `#` at `i` is inside a bare URL (`https://x.org/#/page`, `https://x.org/(#a)`).
/// mldoc tries a URL only where its plain-text reader stops, so the URL starts at the start of
/// the word or right after one of those stops, never inside a run of text (`(https://x/#a)` is
/// `(https://x/` and the tag `a)`). A URL is a scheme, `://`, a host, then from a `/`, `?` or
/// `#` on, anything up to whitespace.
fn in_url(text: &str, i: usize) -> bool {
    let before = &text[..i];
    let word_start = before
        .char_indices()
        .rev()
        .find(|&(_, c)| is_tag_space(c))
        .map_or(0, |(at, c)| at + c.len_utf8());
    let word = &before[word_start..];
    let starts = std::iter::once(0).chain(
        word.char_indices()
            .filter(|&(_, c)| stops_plain(c))
            .map(|(at, c)| at + c.len_utf8()),
    );
    starts.into_iter().any(|start| {
        // `<https://…>` is a URL too.
        let candidate = word[start..].strip_prefix('<').unwrap_or(&word[start..]);
        let Some(scheme) = candidate.find("://") else {
            return false;
        };
        let host = &candidate[scheme + 3..];
        // The host ends at the path, or at the `#` at `i`, which then starts it.
        let host_end = host.find(|c: char| "/?#[]<>{}()".contains(c));
        scheme > 0
            && candidate[..scheme]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric())
            && host_end.is_none_or(|end| end > 0 && "/?#".contains(&host[end..end + 1]))
            && !host.is_empty()
    })
}

/// Bytes that can mean something: what opens or closes a span, and line breaks (a page
/// link stays on one line).
const MARK: [bool; 256] = {
    let mut mark = [false; 256];
    let mut i = 0;
    let bytes = b"[]()`#*_<\n\r";
    while i < bytes.len() {
        mark[bytes[i] as usize] = true;
        i += 1;
    }
    mark
};

/// Where a text has [`MARK`] bytes, in order.
struct Marks<'t> {
    text: &'t [u8],
    at: Vec<usize>,
}

impl<'t> Marks<'t> {
    fn of(text: &'t str) -> Marks<'t> {
        let text = text.as_bytes();
        let at = text
            .iter()
            .enumerate()
            .filter(|&(_, &b)| MARK[usize::from(b)])
            .map(|(i, _)| i)
            .collect();
        Marks { text, at }
    }

    fn only_line_breaks(&self) -> bool {
        self.at
            .iter()
            .all(|&i| matches!(self.text[i], b'\n' | b'\r'))
    }

    /// The marks from the first at or after `from`, as positions with their byte.
    fn from(&self, from: usize) -> impl Iterator<Item = (usize, u8)> + '_ {
        self.at[self.at.partition_point(|&i| i < from)..]
            .iter()
            .map(|&i| (i, self.text[i]))
    }
}

/// Where a region of text lies, which decides what it can hold, as mldoc reads it: emphasis
/// holds links but no tags (`**#a**` is bold text), and a link's label holds neither (`[PR
/// #12](url)` and `[see [[x]]](url)` link only to the URL).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Within {
    Text,
    Emphasis,
    Label,
}

/// A span the second pass cannot cut into.
struct Atom {
    start: usize,
    end: usize,
    token: Token,
}

struct Scanner<'t> {
    text: &'t str,
    marks: Marks<'t>,
    atoms: Vec<Atom>,
    /// Sorted positions, outside atoms, of delimiters that can close bold (`**`), star and
    /// underscore italic, and a link label (`](`), and of `[` (a label holds none).
    bold_closers: Vec<usize>,
    star_closers: Vec<usize>,
    underscore_closers: Vec<usize>,
    label_ends: Vec<usize>,
    label_starts: Vec<usize>,
    /// For each `(` right after a `]`, the `)` that balances it, sorted by the `(`.
    url_closes: Vec<(usize, usize)>,
    /// Positions of ASCII whitespace, which a URL does not contain; found when a URL is first
    /// looked at.
    spaces: OnceCell<Vec<usize>>,
}

/// The first position in the sorted `positions` at or after `from`.
fn next_at_or_after(positions: &[usize], from: usize) -> Option<usize> {
    positions
        .get(positions.partition_point(|&p| p < from))
        .copied()
}

impl<'t> Scanner<'t> {
    /// `marker`: the task marker the text starts with (where, and which), if it may have one.
    fn new(text: &'t str, marks: Marks<'t>, marker: Option<(usize, TaskMarker)>) -> Self {
        let bytes = text.as_bytes();
        let after_non_space = |i: usize| {
            text[..i]
                .chars()
                .next_back()
                .is_some_and(|c| !c.is_whitespace())
        };
        let mut url_closes = Vec::new();
        let mut open_parens = Vec::new();
        for (i, b) in marks.from(0) {
            match b {
                b'(' => open_parens.push(i),
                b')' => {
                    if let Some(open) = open_parens.pop()
                        && open > 0
                        && bytes[open - 1] == b']'
                    {
                        url_closes.push((open, i));
                    }
                }
                _ => {}
            }
        }
        url_closes.sort_unstable();
        let atoms = Atoms::find(text, &marks, marker);
        let mut scanner = Scanner {
            text,
            marks,
            atoms,
            bold_closers: Vec::new(),
            star_closers: Vec::new(),
            underscore_closers: Vec::new(),
            label_ends: Vec::new(),
            label_starts: Vec::new(),
            url_closes,
            spaces: OnceCell::new(),
        };
        // Marks inside atoms, and after the first of a run of delimiters, close nothing.
        let mut atoms = scanner.atoms.iter().peekable();
        let mut next = 0;
        for (i, b) in scanner.marks.from(0) {
            if i < next {
                continue;
            }
            while atoms.next_if(|atom| atom.end <= i).is_some() {}
            if atoms.peek().is_some_and(|atom| atom.start <= i) {
                continue;
            }
            match b {
                delimiter @ (b'*' | b'_') => {
                    // Only whole runs of one or two delimiters count, so `***` closes nothing.
                    let run = bytes[i..].iter().take_while(|&&b| b == delimiter).count();
                    let whole = i == 0 || bytes[i - 1] != delimiter;
                    if whole && after_non_space(i) {
                        match (delimiter, run) {
                            (b'*', 2) => scanner.bold_closers.push(i),
                            (b'*', 1) => scanner.star_closers.push(i),
                            (b'_', 1)
                                if !text[i + 1..]
                                    .chars()
                                    .next()
                                    .is_some_and(char::is_alphanumeric) =>
                            {
                                scanner.underscore_closers.push(i);
                            }
                            _ => {}
                        }
                    }
                    next = i + run;
                }
                b']' if bytes.get(i + 1) == Some(&b'(') => scanner.label_ends.push(i),
                b'[' => scanner.label_starts.push(i),
                _ => {}
            }
        }
        scanner
    }

    /// Where in `text[from..end]` something may begin: the next atom (the one at index
    /// `next_atom` or later), or the next `*`, `_`, and `[` and `#` where they can open a link
    /// or a tag.
    fn next_candidate(&self, from: usize, end: usize, next_atom: usize, within: Within) -> usize {
        let atom = self
            .atoms
            .get(next_atom)
            .map_or(end, |atom| atom.start.max(from));
        let delimiter = self
            .marks
            .from(from)
            .take_while(|&(i, _)| i < atom)
            .find(|&(_, b)| match b {
                b'*' | b'_' => true,
                b'[' => within != Within::Label,
                b'#' => within == Within::Text,
                _ => false,
            })
            .map_or(atom, |(i, _)| i);
        delimiter.min(end)
    }

    /// Tokens of `text[start..end]`, a region [`Within`] a text, emphasis or a label.
    fn region(&self, start: usize, end: usize, within: Within) -> Vec<Token> {
        let bytes = self.text.as_bytes();
        let mut tokens = Vec::new();
        let mut plain_from = start;
        let mut i = start;
        let mut next_atom = self.atoms.partition_point(|atom| atom.start < start);
        loop {
            while self.atoms.get(next_atom).is_some_and(|atom| atom.start < i) {
                next_atom += 1;
            }
            // What lies before the next candidate is text.
            i = self.next_candidate(i, end, next_atom, within);
            if i >= end {
                break;
            }
            let found = match self.atoms.get(next_atom) {
                // A label shows a page link as the text it is.
                Some(atom)
                    if atom.start == i
                        && atom.end <= end
                        && !(within == Within::Label
                            && matches!(atom.token, Token::Page { .. })) =>
                {
                    Some((atom.token.clone(), atom.end))
                }
                _ => match bytes[i] {
                    b'*' => self
                        .bold(i, end, within)
                        .or_else(|| self.italic(i, end, false, within)),
                    b'_' => self.italic(i, end, true, within),
                    b'[' if within != Within::Label => self.link(i, end),
                    b'#' if within == Within::Text => self.tag(i, end),
                    _ => None,
                },
            };
            match found {
                Some((token, after)) => {
                    push_text(&mut tokens, &self.text[plain_from..i]);
                    tokens.push(token);
                    i = after;
                    plain_from = after;
                }
                // A run of `*` or `_` that opens nothing is text as a whole, so that no
                // shorter run inside it is tried.
                None if matches!(bytes[i], b'*' | b'_') => {
                    let b = bytes[i];
                    i += bytes[i..end].iter().take_while(|&&x| x == b).count();
                }
                None => i += 1,
            }
        }
        push_text(&mut tokens, &self.text[plain_from..end]);
        tokens
    }

    /// Whether the run of `len` delimiters at `i` is a whole run of exactly that length and
    /// is followed by a non-space, as an opening delimiter must be.
    fn opens(&self, i: usize, len: usize) -> bool {
        let bytes = self.text.as_bytes();
        let delimiter = bytes[i];
        let whole = (i == 0 || bytes[i - 1] != delimiter)
            && bytes[i..].iter().take_while(|&&b| b == delimiter).count() == len;
        whole
            && self.text[i + len..]
                .chars()
                .next()
                .is_some_and(|c| !c.is_whitespace())
    }

    /// What emphasis inside `within` holds: a label's stays a label's.
    fn emphasis_within(within: Within) -> Within {
        match within {
            Within::Label => Within::Label,
            _ => Within::Emphasis,
        }
    }

    fn bold(&self, i: usize, end: usize, within: Within) -> Option<(Token, usize)> {
        if !self.opens(i, 2) {
            return None;
        }
        let close = next_at_or_after(&self.bold_closers, i + 3).filter(|&c| c + 2 <= end)?;
        let children = self.region(i + 2, close, Self::emphasis_within(within));
        Some((Token::Bold { children }, close + 2))
    }

    fn italic(
        &self,
        i: usize,
        end: usize,
        underscore: bool,
        within: Within,
    ) -> Option<(Token, usize)> {
        if !self.opens(i, 1) {
            return None;
        }
        if underscore
            && self.text[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        {
            return None;
        }
        let closers = if underscore {
            &self.underscore_closers
        } else {
            &self.star_closers
        };
        let close = next_at_or_after(closers, i + 2).filter(|&c| c < end)?;
        let children = self.region(i + 1, close, Self::emphasis_within(within));
        Some((
            Token::Italic {
                children,
                underscore,
            },
            close + 1,
        ))
    }

    /// Whether `text[start..end]` is exactly one `[[page]]` or `((id))`.
    fn is_link_atom(&self, start: usize, end: usize) -> bool {
        let at = self.atoms.partition_point(|atom| atom.start < start);
        self.atoms.get(at).is_some_and(|atom| {
            atom.start == start
                && atom.end == end
                && matches!(atom.token, Token::Page { .. } | Token::Ref { .. })
        })
    }

    /// A tag at the `#` at `i`: `#[[page]]`, or a bare name ([`bare_tag_name`]). mldoc tries
    /// one at every `#` its plain-text reader meets, so whatever comes before does not matter
    /// (`Def#card`, `句子。#why`), but for a URL the `#` is part of.
    fn tag(&self, i: usize, end: usize) -> Option<(Token, usize)> {
        // `\#` is a `#` escaped, as mldoc reads it (`C\#`, LaTeX's `\#`).
        if in_url(self.text, i) || self.text[..i].ends_with('\\') {
            return None;
        }
        let at = self.atoms.partition_point(|atom| atom.start <= i);
        if let Some(Atom {
            start,
            end: page_end,
            token: Token::Page { page },
        }) = self.atoms.get(at)
            && *start == i + 1
            && *page_end <= end
        {
            let token = Token::Tag {
                page: page.clone(),
                bracketed: true,
            };
            return Some((token, *page_end));
        }
        let name = bare_tag_name(&self.text[i + 1..end]);
        (!name.is_empty()).then(|| {
            let token = Token::Tag {
                page: name.to_owned(),
                bracketed: false,
            };
            (token, i + 1 + name.len())
        })
    }

    fn link(&self, i: usize, end: usize) -> Option<(Token, usize)> {
        let label_end = next_at_or_after(&self.label_ends, i + 1).filter(|&e| e < end)?;
        if next_at_or_after(&self.label_starts, i + 1).is_some_and(|s| s < label_end) {
            return None;
        }
        let url_start = label_end + 2;
        let url_end = self
            .url_closes
            .binary_search_by_key(&(label_end + 1), |&(open, _)| open)
            .ok()
            .map(|at| self.url_closes[at].1)?;
        // A URL has no spaces, unless it is a whole page link or block reference, as in
        // Logseq's `[label]([[page name]])`.
        let spaces = self.spaces.get_or_init(|| {
            self.text
                .bytes()
                .enumerate()
                .filter(|(_, b)| b.is_ascii_whitespace())
                .map(|(i, _)| i)
                .collect()
        });
        let has_space = next_at_or_after(spaces, url_start).is_some_and(|s| s < url_end);
        if url_end >= end || (has_space && !self.is_link_atom(url_start, url_end)) {
            return None;
        }
        let children = self.region(i + 1, label_end, Within::Label);
        let url = self.text[url_start..url_end].to_owned();
        Some((Token::Link { children, url }, url_end + 1))
    }
}

/// The element names mldoc reads inline HTML for (its raw HTML reader's `known_tags`).
const HTML_ELEMENTS: [&str; 110] = [
    "a",
    "abbr",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "bdi",
    "bdo",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "kbd",
    "keygen",
    "label",
    "legend",
    "li",
    "link",
    "main",
    "map",
    "mark",
    "meta",
    "meter",
    "nav",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "pre",
    "progress",
    "q",
    "rb",
    "rp",
    "rt",
    "rtc",
    "ruby",
    "s",
    "samp",
    "script",
    "section",
    "select",
    "small",
    "source",
    "span",
    "strong",
    "style",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "u",
    "ul",
    "var",
    "video",
    "details",
    "summary",
    "wbr",
];

/// The end of the `</name>` that closes an element whose opening tag's name ends at `from`:
/// each `<name>` or `<name ` before a closing tag opens one more, which it closes first.
fn closing_tag_end(text: &str, from: usize, name: &str) -> Option<usize> {
    let lower = text[from..].to_ascii_lowercase();
    let name = name.to_ascii_lowercase();
    let close = format!("</{name}>");
    let (open, open_with_attributes) = (format!("<{name}>"), format!("<{name} "));
    let mut open_count = 1usize;
    let mut at = 0;
    loop {
        let found = at + lower[at..].find(&close)?;
        let between = &text[from + at..from + found];
        open_count +=
            between.matches(&open).count() + between.matches(&open_with_attributes).count();
        open_count -= 1;
        at = found + close.len();
        if open_count == 0 {
            return Some(from + at);
        }
    }
}

fn push_text(tokens: &mut Vec<Token>, text: &str) {
    if text.is_empty() {
        return;
    }
    if let Some(Token::Text { text: last }) = tokens.last_mut() {
        last.push_str(text);
    } else {
        tokens.push(Token::Text {
            text: text.to_owned(),
        });
    }
}

/// The first pass: atoms, left to right.
struct Atoms<'t> {
    text: &'t str,
    /// Positions of `]]`, `[[` and line breaks, for bracket matching without rescans.
    double_closes: Vec<usize>,
    double_opens: Vec<usize>,
    line_breaks: Vec<usize>,
    /// Backtick runs as (length, start), sorted.
    backtick_runs: Vec<(usize, usize)>,
}

impl<'t> Atoms<'t> {
    fn find(text: &'t str, marks: &Marks<'_>, marker: Option<(usize, TaskMarker)>) -> Vec<Atom> {
        let bytes = text.as_bytes();
        let mut scan = Atoms {
            text,
            double_closes: Vec::new(),
            double_opens: Vec::new(),
            line_breaks: Vec::new(),
            backtick_runs: Vec::new(),
        };
        let mut run_end = 0;
        for (i, b) in marks.from(0) {
            match b {
                b']' if bytes.get(i + 1) == Some(&b']') => scan.double_closes.push(i),
                b'[' if bytes.get(i + 1) == Some(&b'[') => scan.double_opens.push(i),
                b'\n' | b'\r' => scan.line_breaks.push(i),
                b'`' if i >= run_end => {
                    let len = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                    scan.backtick_runs.push((len, i));
                    run_end = i + len;
                }
                _ => {}
            }
        }
        scan.backtick_runs.sort_unstable();
        scan.collect(marks, marker)
    }

    fn collect(&self, marks: &Marks<'_>, marker: Option<(usize, TaskMarker)>) -> Vec<Atom> {
        let mut atoms = Vec::new();
        let mut next = 0;
        if let Some((at, marker)) = marker {
            next = at + marker.as_str().len();
            atoms.push(Atom {
                start: at,
                end: next,
                token: Token::Task { marker },
            });
        }
        // Where mldoc tries what may begin: at the start, right after an atom, or where its
        // plain-text reader stops.
        let starts_choice = |i: usize, next: usize| {
            i == 0 || i == next || self.text[..i].chars().next_back().is_some_and(stops_plain)
        };
        for (i, b) in marks.from(0) {
            if i < next {
                continue;
            }
            let starts_choice = |i: usize| starts_choice(i, next);
            let found = match b {
                b'`' => match self.code(i) {
                    Ok(atom) => Some(atom),
                    // An unmatched run is text as a whole.
                    Err(run) => {
                        next = i + run;
                        continue;
                    }
                },
                b'[' => self
                    .page(i, "[[")
                    .map(|(page, end)| (Token::Page { page }, end))
                    .or_else(|| self.priority(i)),
                b'(' => self.block_ref(i),
                b'<' if starts_choice(i) => self.html(i),
                _ => None,
            };
            if let Some((token, end)) = found {
                atoms.push(Atom {
                    start: i,
                    end,
                    token,
                });
                next = end;
            }
        }
        atoms
    }

    /// A code span opened by the backtick run at `i`, or the run's length if nothing closes it.
    fn code(&self, i: usize) -> Result<(Token, usize), usize> {
        let bytes = self.text.as_bytes();
        let ticks = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let close = self
            .backtick_runs
            .get(
                self.backtick_runs
                    .partition_point(|&run| run < (ticks, i + ticks)),
            )
            .filter(|&&(len, _)| len == ticks)
            .map(|&(_, start)| start);
        match close {
            Some(close) => {
                let code = self.text[i + ticks..close].to_owned();
                Ok((Token::Code { code, ticks }, close + ticks))
            }
            None => Err(ticks),
        }
    }

    /// A page name in double brackets after `opener` (`[[` or `#[[`) at `i`: one line, not
    /// blank, without `[[`. Returns the name and where the link ends.
    fn page(&self, i: usize, opener: &str) -> Option<(String, usize)> {
        if !self.text[i..].starts_with(opener) {
            return None;
        }
        let name_start = i + opener.len();
        let close = next_at_or_after(&self.double_closes, name_start)?;
        let inside = |positions: &[usize]| {
            next_at_or_after(positions, name_start).is_some_and(|p| p < close)
        };
        if inside(&self.line_breaks) || inside(&self.double_opens) {
            return None;
        }
        let name = &self.text[name_start..close];
        (!name.trim().is_empty()).then(|| (name.to_owned(), close + 2))
    }

    fn priority(&self, i: usize) -> Option<(Token, usize)> {
        match self.text.as_bytes().get(i..i + 4)? {
            [b'[', b'#', letter, b']'] => {
                Priority::from_letter(*letter).map(|priority| (Token::Priority { priority }, i + 4))
            }
            _ => None,
        }
    }

    /// Inline HTML at the `<` at `i`, which nothing inside counts in (`<span title="#x">`):
    /// a comment up to `-->`, or, as mldoc's raw HTML reader takes it, `<` and a known element
    /// name, up to the closing tag that balances it (any case), or else up to the first `/>`.
    /// Its source, as text.
    fn html(&self, i: usize) -> Option<(Token, usize)> {
        let after = &self.text[i + 1..];
        let end = if let Some(comment) = after.strip_prefix("!--") {
            i + 4 + comment.find("-->")? + 3
        } else {
            let name_len = after
                .find(['>', ' ', '\t', '\x0c', '\x1a'])
                .unwrap_or(after.len());
            let name = &after[..name_len];
            if !HTML_ELEMENTS
                .iter()
                .any(|known| known.eq_ignore_ascii_case(name))
            {
                return None;
            }
            let body = i + 1 + name_len;
            closing_tag_end(self.text, body, name)
                .or_else(|| self.text[body..].find("/>").map(|at| body + at + 2))?
        };
        let html = self.text[i..end].to_owned();
        Some((Token::Text { text: html }, end))
    }

    fn block_ref(&self, i: usize) -> Option<(Token, usize)> {
        let after = self.text[i..].strip_prefix("((")?;
        let id_len = after
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
            .count();
        (id_len > 0 && after[id_len..].starts_with("))")).then(|| {
            (
                Token::Ref {
                    id: after[..id_len].to_owned(),
                },
                i + 2 + id_len + 2,
            )
        })
    }
}

/// The first priority written in a text, outside code.
pub fn priority(text: &str) -> Option<Priority> {
    fn first(tokens: &[Token]) -> Option<Priority> {
        tokens.iter().find_map(|token| match token {
            Token::Priority { priority } => Some(*priority),
            Token::Bold { children }
            | Token::Italic { children, .. }
            | Token::Link { children, .. } => first(children),
            _ => None,
        })
    }
    first(&tokenize(text))
}
