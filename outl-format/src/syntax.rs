//! Line-level grammar shared by the parser and the serializer, so that what one writes the
//! other reads back by construction: indentation columns, bullets, `key:: value` lines, code
//! fences, and the backslash escape of text lines that would otherwise read as structure.

use std::borrow::Cow;

/// Splits a line into its leading spaces and tabs, and the rest.
pub(crate) fn split_indent(line: &str) -> (&str, &str) {
    let rest = line.trim_start_matches([' ', '\t']);
    (&line[..line.len() - rest.len()], rest)
}

/// The column reached after `indent`, a run of spaces and tabs: as mldoc counts a bullet's
/// level, each space or tab is one column, so `\t- b` then `    - c` nests `c` under `b`.
pub(crate) fn columns(indent: &str) -> usize {
    indent.len()
}

/// Removes up to `target` columns of indentation from `line`, keeping what is beyond them.
pub(crate) fn strip_columns(line: &str, target: usize) -> &str {
    let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[indent.min(target)..]
}

/// The text of a bullet line, given the line without its indentation: `-` alone or `- text`.
pub(crate) fn bullet_text(rest: &str) -> Option<&str> {
    match rest.strip_prefix('-')? {
        "" => Some(""),
        after => after.strip_prefix(' '),
    }
}

/// Whether `key` can be written as a property key: letters, digits, `_`, `-` and `.`.
pub fn is_property_key(key: &str) -> bool {
    !key.is_empty() && key.chars().all(is_property_key_char)
}

pub(crate) fn is_property_key_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Reads a `key:: value` line (without its indentation). The value is trimmed of spaces and
/// tabs; `key::` alone has the empty value.
pub(crate) fn property_line(rest: &str) -> Option<(&str, &str)> {
    let (key, after) = rest.split_once("::")?;
    if !is_property_key(key) {
        return None;
    }
    match after {
        "" => Some((key, "")),
        _ => after
            .strip_prefix([' ', '\t'])
            .map(|value| (key, value.trim_matches([' ', '\t']))),
    }
}

/// An open fenced code block: its character and the length of its opening run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fence {
    ch: u8,
    len: usize,
}

impl Fence {
    /// A line (without indentation) that opens a fence: three or more backticks or tildes.
    pub(crate) fn opened_by(rest: &str) -> Option<Fence> {
        let ch = *rest.as_bytes().first()?;
        if ch != b'`' && ch != b'~' {
            return None;
        }
        let len = rest.bytes().take_while(|&b| b == ch).count();
        // As in CommonMark, a backtick fence's info string has no backticks: "```a```" is an
        // inline code span.
        let inline_code = ch == b'`' && rest[len..].contains('`');
        (len >= 3 && !inline_code).then_some(Fence { ch, len })
    }

    /// The run a line (without indentation) could close a fence with: backticks or tildes,
    /// then nothing but spaces and tabs.
    pub(crate) fn closing_run(rest: &str) -> Option<Fence> {
        let ch = *rest.as_bytes().first()?;
        if ch != b'`' && ch != b'~' {
            return None;
        }
        let len = rest.bytes().take_while(|&b| b == ch).count();
        rest[len..]
            .trim_matches([' ', '\t'])
            .is_empty()
            .then_some(Fence { ch, len })
    }

    /// Whether a line (without indentation) closes this fence: a run of the same character at
    /// least as long as the opening one, then nothing but spaces and tabs.
    pub(crate) fn is_closed_by(self, rest: &str) -> bool {
        Fence::closing_run(rest).is_some_and(|run| run.ch == self.ch && run.len >= self.len)
    }

    pub(crate) fn char(self) -> u8 {
        self.ch
    }

    pub(crate) fn len(self) -> usize {
        self.len
    }
}

/// What follows a heading's marks on a block's first line (`## ```js`), or the whole line: on
/// that line, mldoc reads a heading whose title opens a fence or math as an empty heading over
/// the code or the math.
fn first_line_title(rest: &str) -> &str {
    let marks = rest.bytes().take_while(|&b| b == b'#').count();
    match rest[marks..].strip_prefix([' ', '\t']) {
        Some(title) if marks > 0 => title.trim_start_matches([' ', '\t']),
        _ => rest,
    }
}

/// Lines mldoc keeps as they are, from the line that opens them to the line that closes them:
/// inside, bullets, headings and properties are text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Literal {
    /// A code fence.
    Fence(Fence),
    /// `$$` display math. mldoc opens it with `$$` at a line's start and closes it at the next
    /// `$$` wherever it falls, in the middle of a later line too; right after it, past spaces,
    /// `$$` opens another (`$$a$$ $$b`).
    Math,
}

impl Literal {
    /// What a line (without indentation) outside any literal leaves open: a fence it opens, or
    /// math it opens and does not close.
    pub(crate) fn opened_by(rest: &str) -> Option<Literal> {
        match Fence::opened_by(rest) {
            Some(fence) => Some(Literal::Fence(fence)),
            None => math_left_open(rest).then_some(Literal::Math),
        }
    }

    /// What a block's first line leaves open: as a text line does, or after a heading's marks.
    pub(crate) fn opened_by_first_line(rest: &str) -> Option<Literal> {
        Literal::opened_by(first_line_title(rest))
    }

    /// Whether a line (without indentation) inside this literal closes it.
    pub(crate) fn is_closed_by(self, rest: &str) -> bool {
        match self {
            Literal::Fence(fence) => fence.is_closed_by(rest),
            Literal::Math => rest.contains(MATH),
        }
    }

    /// What the line (without indentation) that closes this literal leaves open after it:
    /// math may open again right after the math it closes.
    pub(crate) fn reopened_by(self, rest: &str) -> Option<Literal> {
        let after = match self {
            Literal::Fence(_) => return None,
            Literal::Math => rest.find(MATH).map(|at| &rest[at + MATH.len()..])?,
        };
        math_left_open(after.trim_start_matches([' ', '\t'])).then_some(Literal::Math)
    }
}

/// What opens and closes display math.
const MATH: &str = "$$";

/// Whether display math is open at the end of `rest`, a line (without indentation) that starts
/// outside math: `$$` opens it, the next `$$` closes it, and `$$` right after opens it again.
fn math_left_open(rest: &str) -> bool {
    let Some(mut inside) = rest.strip_prefix(MATH) else {
        return false;
    };
    loop {
        let Some(at) = inside.find(MATH) else {
            return true;
        };
        match inside[at + MATH.len()..]
            .trim_start_matches([' ', '\t'])
            .strip_prefix(MATH)
        {
            Some(again) => inside = again,
            None => return false,
        }
    }
}

/// Where a text line sits in its block, which decides what it could be mistaken for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinePlace {
    /// The block's first line, written after `- `: a fence or math opener or a property is
    /// structure there.
    First,
    /// A later line. `first` marks the line right after the properties, where a `key:: value`
    /// line would be read as one more property, even in a fence; `in_literal` marks lines
    /// inside a code fence or display math, where bullets, fences and properties are text.
    Body { first: bool, in_literal: bool },
}

/// Whether a line (without indentation) is structure at `place` — a bullet, a property, a
/// fence, math or `#+BEGIN_…` opener — or such a line behind one or more backslashes. These are the lines whose
/// leading backslash the parser removes, so the serializer escapes every text line of this
/// kind that must not be read as structure, and every one that already starts with `\`.
pub(crate) fn is_escapable(rest: &str, place: LinePlace) -> bool {
    let unescaped = rest.trim_start_matches('\\');
    match place {
        LinePlace::First => {
            Literal::opened_by_first_line(unescaped).is_some()
                || directive_begins(unescaped).is_some()
                || property_line(unescaped).is_some()
        }
        LinePlace::Body { first, in_literal } => {
            (first && property_line(unescaped).is_some())
                || (!in_literal
                    && (bullet_text(unescaped).is_some()
                        || Literal::opened_by(unescaped).is_some()
                        || directive_begins(unescaped).is_some()
                        || property_line(unescaped).is_some()
                        || heading_level(unescaped).is_some()))
        }
    }
}

/// Removes the escaping backslash of a text line, if it has one at `place`.
pub(crate) fn unescape(line: &str, place: LinePlace) -> Cow<'_, str> {
    let (indent, rest) = split_indent(line);
    match rest.strip_prefix('\\') {
        Some(escaped) if is_escapable(escaped, place) => Cow::Owned(format!("{indent}{escaped}")),
        _ => Cow::Borrowed(line),
    }
}

/// The lines of `part`, a slice of `whole`, each with its byte offset in `whole`.
pub(crate) fn lines_at<'t>(
    whole: &'t str,
    part: &'t str,
) -> impl Iterator<Item = (usize, &'t str)> {
    // A line is a slice of `whole`, so its distance from the start is its offset.
    lines(part).map(move |line| (line.as_ptr() as usize - whole.as_ptr() as usize, line))
}

/// Each line of `text` with where it starts and where the next one does (past its break).
pub(crate) fn line_spans(text: &str) -> impl Iterator<Item = (usize, &str, usize)> {
    lines_at(text, text).map(|(start, line)| {
        let end = start + line.len();
        (start, line, end + line_break_len(&text[end..]))
    })
}

/// The length of the line break `rest` starts with: 2 for `\r\n`, 1 for `\n` or `\r`, else 0.
pub(crate) fn line_break_len(rest: &str) -> usize {
    if rest.starts_with("\r\n") {
        2
    } else {
        usize::from(rest.starts_with(['\n', '\r']))
    }
}

/// Splits text into lines at `\n`, `\r\n` and lone `\r`. A final line break ends the last line
/// rather than starting an empty one.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.find(['\n', '\r']) {
            Some(at) => {
                let skip = if current[at..].starts_with("\r\n") {
                    2
                } else {
                    1
                };
                let after = &current[at + skip..];
                rest = (!after.is_empty()).then_some(after);
                Some(&current[..at])
            }
            None => {
                rest = None;
                (!current.is_empty()).then_some(current)
            }
        }
    })
}

/// `:key: value` inside a `:PROPERTIES:` drawer, the key lowercased as Logseq reads it
/// (`:ID:` is the block's `id`, and so is `:CUSTOM_ID:`, org's name for it).
pub(crate) fn drawer_property(line: &str) -> Option<(String, String)> {
    let rest = split_indent(line).1.strip_prefix(':')?;
    let (key, value) = rest.split_once(':')?;
    let plain = !key.is_empty() && is_property_key(key);
    plain.then(|| {
        let key = key.to_lowercase();
        let key = match key.as_str() {
            "custom_id" | "custom-id" => "id".to_owned(),
            _ => key,
        };
        (key, value.trim().to_owned())
    })
}

/// The name, in capitals, of the `#+BEGIN_…` block a line (without indentation) opens.
pub(crate) fn directive_begins(rest: &str) -> Option<String> {
    let begin = rest
        .get(..8)
        .filter(|b| b.eq_ignore_ascii_case("#+BEGIN_"))?;
    let name = rest[begin.len()..].split_whitespace().next()?;
    Some(name.to_ascii_uppercase())
}

/// Whether a line (without indentation) is the `#+END_…` line of the block `name`.
pub(crate) fn directive_ends(rest: &str, name: &str) -> bool {
    after_directive_end(rest, name).is_some()
}

/// What follows the `#+END_…` marker of the block `name` on a line (without indentation)
/// that ends it. As mldoc reads it, a line that starts with the marker ends the block,
/// whatever comes after it (`#+END_NOTE see`), and what comes after is dropped.
pub(crate) fn after_directive_end<'l>(rest: &'l str, name: &str) -> Option<&'l str> {
    let after = after_end_marker(rest)?;
    let named = after
        .get(..name.len())
        .filter(|named| named.eq_ignore_ascii_case(name))?;
    Some(&after[named.len()..])
}

/// What follows `#+END_` on a line (without indentation) that starts with it, in any case.
pub(crate) fn after_end_marker(rest: &str) -> Option<&str> {
    rest.get(..6)
        .filter(|end| end.eq_ignore_ascii_case("#+END_"))
        .map(|end| &rest[end.len()..])
}

/// The level of a heading line (`## x`: 2), if the line is one. Pages exported from Roam go
/// deeper than markdown's six levels, and Logseq reads those as headings too.
pub(crate) fn heading_level(rest: &str) -> Option<usize> {
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    let after = &rest[level..];
    (level > 0 && (after.is_empty() || after.starts_with([' ', '\t']))).then_some(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_is_a_space_or_a_tab() {
        assert_eq!(columns(""), 0);
        assert_eq!(columns("  "), 2);
        assert_eq!(columns("\t"), 1);
        assert_eq!(columns("\t  "), 3);
        assert_eq!(strip_columns("\t  text", 3), "text");
        assert_eq!(strip_columns("\t    text", 3), "  text");
        assert_eq!(strip_columns("  \tcode", 2), "\tcode");
        assert_eq!(strip_columns(" x", 6), "x");
        assert_eq!(strip_columns("   ", 2), " ");
        assert_eq!(strip_columns("", 2), "");
    }

    #[test]
    fn bullets() {
        assert_eq!(bullet_text("- a"), Some("a"));
        assert_eq!(bullet_text("-"), Some(""));
        assert_eq!(bullet_text("- "), Some(""));
        assert_eq!(bullet_text("-  a"), Some(" a"));
        assert_eq!(bullet_text("-a"), None);
        assert_eq!(bullet_text("--"), None);
        assert_eq!(bullet_text("a"), None);
    }

    #[test]
    fn property_lines() {
        assert_eq!(
            property_line("title:: Project X"),
            Some(("title", "Project X"))
        );
        assert_eq!(property_line("id::"), Some(("id", "")));
        assert_eq!(property_line("k::   v  "), Some(("k", "v")));
        assert_eq!(
            property_line("logseq.order-list-type:: number"),
            Some(("logseq.order-list-type", "number"))
        );
        assert_eq!(property_line("k:: a:: b"), Some(("k", "a:: b")));
        assert_eq!(property_line("k::v"), None);
        assert_eq!(property_line("two words:: v"), None);
        assert_eq!(property_line(":: v"), None);
        assert_eq!(property_line("https://x:: v"), None);
        assert_eq!(property_line("\\k:: v"), None);
    }

    #[test]
    fn fences() {
        let fence = Fence::opened_by("```rust").expect("opener");
        assert!(fence.is_closed_by("```"));
        assert!(fence.is_closed_by("````  "));
        assert!(!fence.is_closed_by("``"));
        assert!(!fence.is_closed_by("~~~"));
        assert!(!fence.is_closed_by("``` x"));
        assert!(Fence::opened_by("~~~").is_some());
        assert!(Fence::opened_by("``").is_none());
        assert!(Fence::opened_by("a```").is_none());
        assert!(Fence::opened_by("```a```").is_none());
        assert!(Fence::opened_by("~~~a```").is_some());
        assert!(Literal::opened_by_first_line("### ```javascript").is_some());
        assert!(Literal::opened_by_first_line("```").is_some());
        assert!(Literal::opened_by_first_line("###```").is_none());
        assert!(Literal::opened_by_first_line("## title ```").is_none());
    }

    #[test]
    fn math_opens_at_a_line_s_start_and_closes_at_the_next_dollars() {
        assert_eq!(Literal::opened_by("$$"), Some(Literal::Math));
        assert_eq!(Literal::opened_by("$$\\begin{array}"), Some(Literal::Math));
        assert_eq!(Literal::opened_by("$$x^2$$"), None);
        assert_eq!(Literal::opened_by("$$$$"), None);
        assert_eq!(Literal::opened_by("$$a$$ $$b"), Some(Literal::Math));
        assert_eq!(Literal::opened_by("$$a$$ and $$b"), None);
        assert_eq!(Literal::opened_by("see $$b"), None);
        assert_eq!(Literal::opened_by("$x"), None);
        assert_eq!(Literal::opened_by_first_line("## $$a"), Some(Literal::Math));
        let math = Literal::Math;
        assert!(math.is_closed_by("\\end{array}$$"));
        assert!(math.is_closed_by("c$$ d"));
        assert!(!math.is_closed_by("- not a bullet}"));
        assert_eq!(math.reopened_by("c$$ d"), None);
        assert_eq!(math.reopened_by("c$$ $$d"), Some(Literal::Math));
        assert_eq!(math.reopened_by("c$$ $$d$$"), None);
    }

    #[test]
    fn escapes_apply_only_where_the_line_would_be_structure() {
        let body = LinePlace::Body {
            first: false,
            in_literal: false,
        };
        let first_body = LinePlace::Body {
            first: true,
            in_literal: false,
        };
        let fenced = LinePlace::Body {
            first: false,
            in_literal: true,
        };
        assert_eq!(unescape("\\- a", body), "- a");
        assert_eq!(unescape("  \\- a", body), "  - a");
        assert_eq!(unescape("\\\\- a", body), "\\- a");
        assert_eq!(unescape("\\k:: v", body), "k:: v");
        assert_eq!(unescape("\\k:: v", first_body), "k:: v");
        assert_eq!(unescape("\\- a", fenced), "\\- a");
        assert_eq!(unescape("\\frac{a}{b}", body), "\\frac{a}{b}");
        assert_eq!(unescape("\\```", LinePlace::First), "```");
        assert_eq!(unescape("\\$$a", body), "$$a");
        assert_eq!(unescape("\\$$a$$", body), "\\$$a$$");
        assert_eq!(unescape("\\#+BEGIN_QUOTE", body), "#+BEGIN_QUOTE");
        assert_eq!(unescape("\\#+END_QUOTE", body), "\\#+END_QUOTE");
        assert_eq!(unescape("\\- a", LinePlace::First), "\\- a");
    }

    #[test]
    fn line_breaks() {
        let split = |s| lines(s).collect::<Vec<_>>();
        assert_eq!(split(""), Vec::<&str>::new());
        assert_eq!(split("a"), ["a"]);
        assert_eq!(split("a\n"), ["a"]);
        assert_eq!(split("a\r\nb\rc\n\nd"), ["a", "b", "c", "", "d"]);
        assert_eq!(split("\n"), [""]);
    }
}
