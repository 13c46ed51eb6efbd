//! The markdown outline format: the parser AST, its serializer, and the inline tokenizer.
//!
//! A page is Logseq-flavoured markdown (the child block's line starts with a tab):
//!
//! ```text
//! title:: Project X
//! tags:: project
//!
//! - TODO Call [[Bob]] about #launch
//!   collapsed:: true
//!   priority:: high
//!     - child block with a ((6f3a2c))
//! - DONE shipped
//! ```
//!
//! # Grammar
//!
//! - Lines end at `\n`, `\r\n` or a lone `\r`.
//! - A **bullet** is a line whose first non-blank characters are `- ` (or a lone `-`, an empty
//!   block). What follows `- ` is the first line of the block's text.
//! - **Nesting** comes from indentation, measured in columns, a space or a tab each, as mldoc
//!   counts a bullet's level: a bullet is a child of the nearest open block whose bullet sits
//!   in a column to its left, and a sibling of those in its own column. A bullet that would
//!   nest deeper than [`MAX_DEPTH`] levels becomes a sibling of the deepest open block.
//! - A heading line that no bullet opens starts a top-level block, as Logseq levels it, which
//!   the next bullet at the margin or heading ends.
//! - A non-blank line that is not a bullet belongs to the last block opened. The block's
//!   **properties** are the `key:: value` lines right under its first line; the first other
//!   line ends them, and it and every later line are **text lines**, joined to the first line
//!   with `\n`. A text line loses the indentation up to the block's text column (two columns
//!   right of its bullet); anything beyond that is kept.
//! - A `:PROPERTIES:` … `:END:` **drawer** where properties are read holds more of them, as
//!   `:key: value` lines (the key lowercased, as Logseq reads it: `:ID:` is the `id`); one
//!   that is never closed, or holds another line, is text.
//! - A **property** line is `key:: value` or `key::`: the key is letters, digits, `_`, `-`
//!   and `.`; the value is trimmed of spaces and tabs. A key that repeats one already read
//!   is not a property: the line is text, so nothing is lost.
//! - A text line opening a **code fence** (three or more backticks or tildes; on a block's first
//!   line also after a heading's marks, `## ```js`, as mldoc reads it) starts verbatim
//!   text up to the closing fence: inside it, `- ` lines are not bullets. An opener that no
//!   later line of the page closes is no fence (mldoc reads it as text, and the lines after
//!   it as what they are), and a less indented line, which cannot belong to the block, ends a
//!   fence.
//! - **Display math** is kept the same way: `$$` at a line's start opens it, the next `$$`
//!   closes it, wherever it falls (`$$x^2$$` holds no line), and `$$` right after that opens
//!   it again; unclosed, it is no math.
//! - A **blank line** between text lines of a block is text. At the end of a block it is text
//!   only if it is indented to the block's text column (that is how a text ending in an
//!   empty line is written); otherwise it is layout and dropped.
//! - **Before the first bullet**, `key:: value` lines are the page's properties (blank lines
//!   among them are layout). Free text there, as a page may start with, is not dropped: its
//!   first line opens a first block at the top level (text column 0), which takes the lines
//!   that follow just as a bullet's block would, until the first bullet. A heading at the
//!   margin there (`## x`) opens a block as well, a child of the nearest such heading of a
//!   lower level.
//! - **Escapes**: a text line whose content would otherwise read as structure — a bullet, a
//!   property right under the first line, a code fence or math the text never closes — is written
//!   with a `\` before its first non-blank character. The parser removes one such `\` where,
//!   and only where, the rest of the line would be structure (or is itself so escaped):
//!   `\- item` reads as the text `- item`, while `\frac{a}{b}` stays as it is. Inside a code
//!   fence or math only the property escape applies.
//!
//! Parsing never fails. What it does not keep: line-break style, indentation up to a block's
//! text column, and blank lines that are layout.
//!
//! # Canonical style
//!
//! [`serialize`] writes: the page properties as `key:: value` lines (`key::` for an empty
//! value); a blank line if there are both page properties and blocks; then each block as
//! `- ` and its first line (`-` alone when that line is empty), indented by one tab per
//! level, Logseq's default; its properties and then its other text lines, each indented to
//! the block's text column (the bullet's tabs, then two spaces), blank text lines included;
//! then its children. Every line, the last included, ends with `\n`; an empty document is
//! the empty string.
//!
//! For every document, `parse(&serialize(&doc)) == doc.normalized()`, and `normalized` is the
//! identity on what `parse` returns: line breaks in texts become `\n`, property keys and
//! values are made writable, and nesting is cut at [`MAX_DEPTH`] (see
//! [`Document::normalized`]). Markdown already in canonical style is reproduced byte for byte
//! by `serialize(&parse(md))`. [`is_property_key`] and [`is_property_value`] tell a caller
//! whether a property can be written as given.
//!
//! [`serialize_over`] writes a changed document over the file it was read from instead: the
//! lines of the blocks that did not change stay as they were, and the rest follows the file's
//! own style (see `rewrite`).
//!
//! # Inline
//!
//! [`tokenize`] splits a text into [`Token`]s for renderers; [`page_links`], [`tags`],
//! [`block_refs`], [`property_links`], [`task_marker`] and [`priority`] read what the rest of
//! outl needs from texts; [`rename_page_links`], [`rename_property_links`] and
//! [`set_task_marker`] rewrite them.

mod front_matter;
mod inline;
mod links;
mod misread;
mod org;
mod parse;
mod planning;
mod properties;
mod rewrite;
mod serialize;
mod syntax;
mod task;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use front_matter::{line_no_property_holds, split_front_matter};
pub use inline::{Token, priority, source, tokenize};
pub use links::{
    ALIAS, TextLinks, aliases, block_refs, is_uuid, map_block_refs, may_ref, page_links,
    property_links, rename_page_links, rename_page_links_in, rename_property_links, same_page_name,
    shown_value, tags, text_links_in,
};
pub use misread::{Misread, misread_line};
pub use org::serialize_org;
pub use parse::{parse, parse_with_starts};
pub use planning::{Planning, keep_planning, split_planning};
pub use properties::Properties;
pub use rewrite::{Former, serialize_over};
pub use serialize::{is_property_value, serialize};
pub use syntax::is_property_key;
use syntax::lines;
pub use task::{NotATaskMarker, Priority, TaskMarker, set_task_marker, task_marker};

/// The two syntaxes of Logseq's page files: markdown (`.md`) and org (`.org`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Syntax {
    Markdown,
    Org,
}

impl Syntax {
    /// The syntax of a page file, by its name.
    pub fn of_file(file: &str) -> Syntax {
        if file.ends_with(".org") {
            Syntax::Org
        } else {
            Syntax::Markdown
        }
    }

    /// The extension of a page file in this syntax, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Syntax::Markdown => "md",
            Syntax::Org => "org",
        }
    }

    /// The syntax a text given for a page in this syntax is read in: an org page takes its own
    /// org text (as outl_export_md gives it) when the text opens as org does, with a headline
    /// or a `#+KEY:` line; anything else is markdown.
    pub fn of_text_for(self, text: &str) -> Syntax {
        let opens_as_org = lines(text)
            .find(|line| !line.trim().is_empty())
            .is_some_and(|line| {
                org::headline(line).is_some() || line.trim_start().starts_with("#+")
            });
        if self == Syntax::Org && opens_as_org {
            Syntax::Org
        } else {
            Syntax::Markdown
        }
    }

    /// [`parse_with_starts`] in this syntax.
    pub fn parse_with_starts(self, text: &str) -> (Document, Vec<usize>) {
        match self {
            Syntax::Markdown => parse_with_starts(text),
            Syntax::Org => org::parse_org_with_starts(text),
        }
    }

    /// [`parse`] in this syntax.
    pub fn parse(self, text: &str) -> Document {
        self.parse_with_starts(text).0
    }
}

/// The deepest nesting outl reads and writes: a block that would sit deeper follows its
/// ancestor at this level as a sibling. It keeps recursion over a page bounded (and a page's
/// JSON within the nesting limit of common JSON parsers) whatever a file holds.
pub const MAX_DEPTH: usize = 50;

/// One block of the parser AST. `properties` deliberately has no `#[serde(default)]`:
/// `outl_export_json` returns this type and must deserialize back into it (RFC 0276).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ParsedBlock {
    pub text: String,
    pub properties: Properties,
    pub children: Vec<ParsedBlock>,
}

/// A whole page: the properties before the first bullet, then the top-level blocks.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Document {
    /// The page's YAML front matter as written (see `front_matter`); its keys are in
    /// `properties`. It is the file's form, not the outline's: JSON exports leave it out.
    #[serde(skip)]
    pub front_matter: Option<String>,
    pub properties: Properties,
    pub blocks: Vec<ParsedBlock>,
}
