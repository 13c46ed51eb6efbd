//! Lines of a block's text that Logseq would read as something other than text: a property, a
//! block of its own, a drawer, a line break. The serializer escapes what Logseq unescapes (a
//! bullet, a fence; see `syntax::is_escapable`); these lines have no escape Logseq honours
//! (`\key:: value` is a property named `\key` to Logseq), so a write that brings one is
//! refused. The rules are mldoc's, as Logseq parses a markdown block: a property line counts on
//! any line of the block, not only after its first. In an org block, a headline, a `#+KEY:`
//! line (Logseq makes every one of an org page a page property) and a drawer are structure;
//! `key:: value` and `#` headings are text there.

use super::Syntax;
use super::org::headline;
use super::syntax::{Literal, after_directive_end, directive_begins, directive_ends, split_indent};

/// A line of a text that Logseq would not read back as that text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misread {
    /// The line, counted from 1.
    pub line: usize,
    /// What Logseq would read it as, and how to write it instead.
    pub why: &'static str,
}

/// The first line of `text`, a block's text in a page of `syntax`, that Logseq would read as
/// structure, among the lines `former` (the text the block had, if any) does not hold: a line
/// the block already had reads as it did.
pub fn misread_line(syntax: Syntax, text: &str, former: Option<&str>) -> Option<Misread> {
    if let Some(at) = text
        .find('\r')
        .filter(|&at| !text[at..].starts_with("\r\n"))
    {
        return Some(Misread {
            line: text[..at].matches('\n').count() + 1,
            why: "a carriage return without a line feed, which Logseq reads as a line break; \
                  break lines with \\n",
        });
    }
    let lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let known = |line: &str| {
        former.is_some_and(|former| former.split('\n').any(|l| l.trim_end_matches('\r') == line))
    };
    let mut verbatim = Verbatim::default();
    for (index, line) in lines.iter().enumerate() {
        let (_, rest) = split_indent(line);
        let dropped_after_end = verbatim
            .directive
            .as_deref()
            .and_then(|name| after_directive_end(rest, name))
            .is_some_and(|after| !after.trim().is_empty());
        let in_verbatim = verbatim.line(rest);
        if known(line) || (in_verbatim && !dropped_after_end) {
            continue;
        }
        let why = if dropped_after_end {
            "text after the #+END_ line's marker, which Logseq drops with the marker; put it \
             on a line of its own"
        } else if syntax == Syntax::Markdown && is_logseq_property_line(rest) {
            "a property of the block (or of the page, in its first block); give properties \
             as properties, or begin the line with other words"
        } else if syntax == Syntax::Markdown && index > 0 && is_heading(rest) {
            "a heading that starts a block of its own; give the heading a block of its own, \
             its text starting with the # marks"
        } else if syntax == Syntax::Org && index > 0 && headline(line).is_some() {
            "a headline that starts a block of its own; give it a block of its own, or begin \
             the line with other words"
        } else if syntax == Syntax::Org && index > 0 && is_directive(rest) {
            "a page property, as Logseq reads every #+KEY: line of an org page; give page \
             properties as page properties"
        } else if index > 0
            && is_drawer_opener(rest)
            && lines[index + 1..]
                .iter()
                .any(|l| split_indent(l).1.trim_end().eq_ignore_ascii_case(":END:"))
        {
            "a drawer, hidden up to its :END: line"
        } else {
            continue;
        };
        return Some(Misread {
            line: index + 1,
            why,
        });
    }
    None
}

/// mldoc's property line: a key of anything but spaces and colons, `::`, then a space or the
/// end of the line.
fn is_logseq_property_line(rest: &str) -> bool {
    let Some((key, after)) = rest.split_once("::") else {
        return false;
    };
    !key.is_empty()
        && !key.contains(|c: char| c == ':' || c.is_whitespace())
        && (after.is_empty() || after.starts_with(' '))
}

/// mldoc's org directive: `#+`, a name, and a colon (`#+TITLE: x`, `#+a b:`).
fn is_directive(rest: &str) -> bool {
    rest.strip_prefix("#+")
        .and_then(|after| after.split_once(':'))
        .is_some_and(|(name, _)| !name.is_empty())
}

/// `#` to `######`, then a space or a tab.
fn is_heading(rest: &str) -> bool {
    let marks = rest.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&marks) && rest[marks..].starts_with([' ', '\t'])
}

/// `:NAME:` alone on its line.
pub(super) fn is_drawer_opener(rest: &str) -> bool {
    rest.trim_end()
        .strip_prefix(':')
        .and_then(|r| r.strip_suffix(':'))
        .is_some_and(|name| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
}

/// Whether a line sits in a code fence, display math or a `#+BEGIN_` block, whose lines
/// Logseq keeps as they are.
#[derive(Default)]
pub(super) struct Verbatim {
    literal: Option<Literal>,
    /// The `#+BEGIN_…` block open, by its name.
    directive: Option<String>,
}

impl Verbatim {
    /// Moves past one line (without indentation); true when the line is verbatim.
    pub(super) fn line(&mut self, rest: &str) -> bool {
        if let Some(open) = self.literal {
            if open.is_closed_by(rest) {
                self.literal = open.reopened_by(rest);
            }
            return true;
        }
        if let Some(name) = &self.directive {
            if directive_ends(rest, name) {
                self.directive = None;
            }
            return true;
        }
        if let Some(opened) = Literal::opened_by(rest) {
            self.literal = Some(opened);
            return true;
        }
        self.directive = directive_begins(rest);
        self.directive.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(text: &str) -> Option<usize> {
        misread_line(Syntax::Markdown, text, None).map(|m| m.line)
    }

    fn why_org(text: &str) -> Option<usize> {
        misread_line(Syntax::Org, text, None).map(|m| m.line)
    }

    #[test]
    fn property_lines_anywhere_are_misread() {
        assert_eq!(why("title:: Other"), Some(1));
        assert_eq!(why("a\nkey:: v"), Some(2));
        assert_eq!(why("a\nb\nkey::"), Some(3));
        assert_eq!(why("a\n  中文:: 值"), Some(2));
        assert_eq!(why("a\n\\key:: v"), Some(2));
        // mldoc reads a property before it reads code: the key is "`key", dropped as invalid.
        assert_eq!(why("a\n`key:: v`"), Some(2));
        assert_eq!(why("a\nsay key:: v"), None);
        assert_eq!(why("a\nsee https://x::y"), None);
        assert_eq!(why("a\nkey::value"), None);
    }

    #[test]
    fn headings_and_drawers_in_the_body_are_misread() {
        assert_eq!(why("## a heading first"), None);
        assert_eq!(why("a\n## b"), Some(2));
        assert_eq!(why("a\n#tag"), None);
        assert_eq!(why("a\n:LOGBOOK:\nCLOCK: x\n:END:"), Some(2));
        assert_eq!(why("a\n:note: without an end"), None);
        assert_eq!(why("a\n:foo:"), None);
    }

    #[test]
    fn verbatim_lines_and_lines_the_block_had_are_not() {
        assert_eq!(why("a\n```\nkey:: v\n# x\n```"), None);
        assert_eq!(why("a\n#+BEGIN_SRC\nkey:: v\n#+END_SRC\nk:: v"), Some(5));
        // mldoc ends the block at its marker and drops what follows it on the line.
        assert_eq!(why("#+BEGIN_NOTE\na note\n#+END_NOTE see ((x))"), Some(3));
        assert_eq!(why("#+BEGIN_NOTE\na note\n#+end_note  \nk:: v"), Some(4));
        assert_eq!(why("#+BEGIN_NOTE\n#+END_NOTES\nk:: v"), Some(2));
        let former = "DONE a\n:LOGBOOK:\nCLOCK: x\n:END:";
        assert_eq!(
            misread_line(
                Syntax::Markdown,
                "DONE a, edited\n:LOGBOOK:\nCLOCK: x\n:END:",
                Some(former)
            ),
            None
        );
    }

    #[test]
    fn in_org_headlines_directives_and_drawers_are_misread_and_markdown_s_structure_is_not() {
        assert_eq!(why_org("a\n* b"), Some(2));
        assert_eq!(why_org("a\n**"), Some(2));
        assert_eq!(why_org("a\n*\tb"), Some(2));
        assert_eq!(why_org("* a headline's own text"), None);
        assert_eq!(why_org("a\n *indented* b"), None);
        assert_eq!(why_org("a\n*bold* b"), None);
        assert_eq!(why_org("a\n#+TITLE: Other"), Some(2));
        assert_eq!(why_org("a\n  #+see https://x"), Some(2));
        assert_eq!(
            why_org("a\n#+BEGIN_QUOTE\n* b\n#+KEY: v\n#+END_QUOTE"),
            None
        );
        assert_eq!(why_org("a\n#+BEGIN_QUOTE"), None);
        assert_eq!(why_org("a\n:PROPERTIES:\n:x: 1\n:END:"), Some(2));
        assert_eq!(why_org("a\n:PROPERTIES:\n:x: 1"), None);
        assert_eq!(why_org("a\n```\n* b\n```"), None);
        assert_eq!(why_org("status:: done\nkey:: v\n## heading"), None);
        assert_eq!(why_org("a\rb"), Some(1));
    }

    #[test]
    fn a_lone_carriage_return_is_misread() {
        assert_eq!(why("a\rb"), Some(1));
        assert_eq!(why("a\nb\rc"), Some(2));
        assert_eq!(why("a\r\nb"), None);
    }
}
