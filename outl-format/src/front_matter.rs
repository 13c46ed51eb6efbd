//! YAML front matter: the `---` … `---` lines a markdown page may start with, as older Logseq
//! journals all did (`title: Apr 9th, 2021`). Its top-level keys are page properties, like
//! `key::` lines; it is never a block, and it is written back byte for byte unless a write
//! changes one of its values.
//!
//! outl reads the part of YAML that front matter uses: `key: value` lines (a value in single
//! or double quotes loses them), flow lists (`tags: [a, b c]`) and block lists (`key:` followed
//! by `- item` lines), each list read as its items joined by `, `, as Logseq shows a list
//! property. An indented line (of a nested map, of a multi-line scalar) belongs to the entry
//! above it and is kept as written; such an entry's value is its first line's. A line at the
//! margin that starts no entry (a comment, a blank line, a key that is not a property key) is
//! kept where it is.

use super::Properties;
use super::syntax::{is_property_key, line_spans, lines};

/// What YAML trims around a value, as outl trims property values.
const BLANK: [char; 2] = [' ', '\t'];

/// Splits a page into its front matter (from the opening `---` line through the closing one
/// and its line break) and the rest. Front matter opens on the page's first line and must be
/// closed; otherwise there is none.
pub fn split_front_matter(md: &str) -> (Option<&str>, &str) {
    for (index, (_, line, next)) in line_spans(md).enumerate() {
        if line.trim_end() == "---" {
            if index > 0 {
                return (Some(&md[..next]), &md[next..]);
            }
        } else if index == 0 {
            return (None, md);
        }
    }
    (None, md)
}

/// The first line of front matter `front_matter` that is no page property, counted from 1
/// (the opening `---` is line 1), with the line: not a `---` line, a blank, a `key: value`
/// entry or an item of a `key:` list. Logseq reads every line there as front matter, so such a
/// line is neither a block nor a property, and a page written from it would lose it.
pub fn line_no_property_holds(front_matter: &str) -> Option<(usize, &str)> {
    let count = lines(front_matter).count();
    let mut list_open = false;
    for (index, line) in lines(front_matter).enumerate() {
        if index == 0 || index + 1 == count || line.trim().is_empty() {
            continue;
        }
        if let Some((_, rest)) = top_level_key(line) {
            list_open = rest.trim_matches(BLANK).is_empty();
            continue;
        }
        if !(list_open && line.trim_start().starts_with('-')) {
            return Some((index + 1, line));
        }
    }
    None
}

/// One top-level key of the front matter and the lines it spans.
struct Entry<'a> {
    key: &'a str,
    value: String,
    list: bool,
    /// The entry's lines, line breaks included.
    source: &'a str,
}

/// A run of front matter lines: an entry, or a line no entry owns (the `---` lines, a
/// comment or a blank line at the margin), kept as written.
enum Piece<'a> {
    Entry(Entry<'a>),
    Verbatim(&'a str),
}

/// The pieces of front matter `front_matter`, in order.
fn pieces(front_matter: &str) -> Vec<Piece<'_>> {
    let mut pieces: Vec<Piece> = Vec::new();
    let count = lines(front_matter).count();
    for (index, (start, line, offset)) in line_spans(front_matter).enumerate() {
        let source = &front_matter[start..offset];
        let delimiter = index == 0 || index + 1 == count;
        if !delimiter && let Some((key, rest)) = top_level_key(line) {
            let (value, list) = scalar_or_flow_list(rest);
            pieces.push(Piece::Entry(Entry {
                key,
                value,
                list,
                source,
            }));
            continue;
        }
        // An entry goes on over indented lines and list items; a line at the margin that
        // starts no entry (a comment, a blank, a key outl cannot hold) stands alone.
        let continues = line.starts_with([' ', '\t', '-']) && !line.trim().is_empty();
        match pieces.last_mut() {
            Some(Piece::Entry(entry)) if !delimiter && continues => {
                // The entry's lines are contiguous: widen its source over this one.
                let entry_start = entry.source.as_ptr() as usize - front_matter.as_ptr() as usize;
                entry.source = &front_matter[entry_start..offset];
                if let Some(item) = line.trim_start().strip_prefix('-')
                    && (entry.list || entry.value.is_empty())
                {
                    entry.list = true;
                    // An empty item is none, as in a flow list.
                    let item = unquoted(item.trim_matches(BLANK));
                    if !entry.value.is_empty() && !item.is_empty() {
                        entry.value.push_str(", ");
                    }
                    entry.value.push_str(item);
                }
            }
            _ => pieces.push(Piece::Verbatim(source)),
        }
    }
    pieces
}

/// `key` and what follows `key:` on a line that starts a top-level entry.
fn top_level_key(line: &str) -> Option<(&str, &str)> {
    if line.starts_with([' ', '\t', '#', '-']) {
        return None;
    }
    let (key, rest) = line.split_once(':')?;
    let key = key.trim_end();
    let plain = is_property_key(key);
    (plain && (rest.is_empty() || rest.starts_with([' ', '\t']))).then_some((key, rest))
}

/// The value after `key:`: a flow list's items joined by `, `, or the scalar unquoted; and
/// whether it was a list.
fn scalar_or_flow_list(rest: &str) -> (String, bool) {
    let rest = rest.trim_matches(BLANK);
    match rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        Some(items) => (
            items
                .split(',')
                .map(|item| unquoted(item.trim_matches(BLANK)))
                .filter(|item| !item.is_empty())
                .collect::<Vec<_>>()
                .join(", "),
            true,
        ),
        None => (unquoted(rest).to_owned(), false),
    }
}

/// Whether `value`, written bare, would read back as something else: quotes taken off, or a
/// list.
fn needs_quotes(value: &str) -> bool {
    value.starts_with(['\'', '"', '[']) || value.contains(['[', ']'])
}

/// `value` as a YAML scalar that [`scalar_or_flow_list`] reads back as `value`.
fn scalar(value: &str) -> String {
    match value.chars().next() {
        Some('"') => format!("'{value}'"),
        Some('\'' | '[') => format!("\"{value}\""),
        _ => value.to_owned(),
    }
}

fn unquoted(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

/// The page properties front matter holds, keys as written (of a key written twice, the
/// first).
pub fn front_matter_properties(front_matter: &str) -> Properties {
    let mut properties = Properties::default();
    for piece in pieces(front_matter) {
        if let Piece::Entry(entry) = piece
            && !properties.contains_key(entry.key)
        {
            properties.insert(entry.key.to_owned(), entry.value);
        }
    }
    properties
}

/// `front_matter` holding `properties`' values for its keys: an entry whose value is
/// unchanged keeps its lines byte for byte, a changed one is written `key: value` (a list as
/// `key: [a, b]`), and one whose key `properties` no longer has is left out; comments and
/// blank lines stay. Keys of `properties` it does not hold are not added (they are written
/// as `key::` lines).
pub fn rewrite_front_matter(front_matter: &str, properties: &Properties) -> String {
    let line_break = if front_matter.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let mut out = String::with_capacity(front_matter.len());
    let mut seen: Vec<&str> = Vec::new();
    for piece in pieces(front_matter) {
        let entry = match piece {
            Piece::Verbatim(source) => {
                out.push_str(source);
                continue;
            }
            Piece::Entry(entry) => entry,
        };
        let first = !seen.contains(&entry.key);
        seen.push(entry.key);
        match properties.get(entry.key) {
            Some(value) if !first || *value == entry.value => out.push_str(entry.source),
            Some(value) => {
                let items: Vec<&str> = value
                    .split(',')
                    .map(|item| item.trim_matches(BLANK))
                    .collect();
                let as_list = entry.list
                    && items.join(", ") == *value
                    && items
                        .iter()
                        .all(|item| !item.is_empty() && !needs_quotes(item));
                if as_list {
                    out.push_str(&format!(
                        "{}: [{}]{line_break}",
                        entry.key,
                        items.join(", ")
                    ));
                } else {
                    out.push_str(&format!("{}: {}{line_break}", entry.key, scalar(value)));
                }
            }
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD_JOURNAL: &str = "---\ntitle: Apr 9th, 2021\n---\n\n- a block\n";

    #[test]
    fn front_matter_opens_on_the_first_line_and_must_close() {
        assert_eq!(
            split_front_matter(OLD_JOURNAL),
            (Some("---\ntitle: Apr 9th, 2021\n---\n"), "\n- a block\n")
        );
        assert_eq!(
            split_front_matter("---\ntitle: x\n"),
            (None, "---\ntitle: x\n")
        );
        assert_eq!(split_front_matter("\n---\nx: y\n---\n").0, None);
        assert_eq!(split_front_matter("- a\n---\n").0, None);
        assert_eq!(
            split_front_matter("---\r\nx: y\r\n---"),
            (Some("---\r\nx: y\r\n---"), "")
        );
    }

    #[test]
    fn a_line_no_property_holds_is_found() {
        assert_eq!(
            line_no_property_holds("---\ntitle: Apr 9th, 2021\n---\n"),
            None
        );
        let lists = "---\ntags: [a, b]\nalias:\n  - DW\n\n- deep\n---\n";
        assert_eq!(line_no_property_holds(lists), None);
        assert_eq!(
            line_no_property_holds("---\n- a block\n---\n"),
            Some((2, "- a block"))
        );
        assert_eq!(
            line_no_property_holds("---\ntitle: x\n# a comment\n---\n"),
            Some((3, "# a comment"))
        );
        assert_eq!(
            line_no_property_holds("---\nmeta:\n  nested: map\n---\n"),
            Some((3, "  nested: map"))
        );
    }

    #[test]
    fn keys_are_page_properties_and_lists_join_their_items() {
        let fm = "---\ntitle: \"Deep work\"\ntags: [book, 'time management']\nalias:\n  - DW\n  - deep\n# a comment\npublic: true\n---\n";
        let properties = front_matter_properties(fm);
        let pairs: Vec<(&str, &str)> = properties
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("title", "Deep work"),
                ("tags", "book, time management"),
                ("alias", "DW, deep"),
                ("public", "true"),
            ]
        );
    }

    #[test]
    fn a_rewrite_changes_only_the_entries_whose_value_changed() {
        let fm =
            "---\r\ntitle: 'Deep work'  \r\ntags: [book]\r\n# kept\r\ndate: 2021-04-09\r\n---\r\n";
        let mut properties = front_matter_properties(fm);
        assert_eq!(rewrite_front_matter(fm, &properties), fm);
        *properties.get_mut("tags").unwrap() = "book, focus".into();
        let index = properties.keys().position(|k| k == "date").unwrap();
        properties.shift_remove_index(index);
        assert_eq!(
            rewrite_front_matter(fm, &properties),
            "---\r\ntitle: 'Deep work'  \r\ntags: [book, focus]\r\n# kept\r\n---\r\n"
        );
    }
}
