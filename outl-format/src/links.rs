//! Links in texts and property values: which pages and blocks they point to, and rewriting
//! them when a page is renamed. Built on the tokenizer, so links inside code never count.

use std::borrow::Cow;

use super::inline::{Token, bare_tag_name, source, tokenize};
use super::{Properties, Syntax};

/// The page property that gives a page other names (`alias:: launch, [[Q4 launch]]`).
pub const ALIAS: &str = "alias";

/// Whether two page names name the same page: page names are case-insensitive and their
/// surrounding spaces do not count.
pub fn same_page_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    a == b || a.to_lowercase() == b.to_lowercase()
}

/// What a text links to, from one pass of the tokenizer (what [`page_links`], [`tags`] and
/// [`block_refs`] each return).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TextLinks {
    pub pages: Vec<String>,
    pub tags: Vec<String>,
    pub refs: Vec<String>,
}

/// The page links, tags and block references of a text at once.
pub fn text_links(text: &str) -> TextLinks {
    text_links_in(Syntax::Markdown, text)
}

/// `text_links` of a text of a page in `syntax`: in an org page, `[[target][label]]` links
/// the page `target` (see `org_link`).
pub fn text_links_in(syntax: Syntax, text: &str) -> TextLinks {
    let mut links = TextLinks::default();
    visit_links(&tokenize(text), &mut |token| match token {
        Token::Page { page } => match syntax {
            Syntax::Org => {
                if let Some(page) = org_link(page).map_or(Some(page.as_str()), |link| link.page) {
                    push_page(&mut links.pages, page);
                }
            }
            Syntax::Markdown => push_page(&mut links.pages, page),
        },
        Token::Tag { page, .. } => {
            push_page(&mut links.pages, page);
            push_page(&mut links.tags, page);
        }
        Token::Ref { id } if !links.refs.contains(id) => links.refs.push(id.clone()),
        _ => {}
    });
    links
}

/// The pages a text links to, in order of first appearance and without repeats: `[[page]]`,
/// `#tag`, `#[[multi word tag]]` (tags are links in Logseq), and `[label]([[page]])`.
pub fn page_links(text: &str) -> Vec<String> {
    text_links(text).pages
}

/// The tags of a text (`#tag`, `#[[multi word tag]]`), in order and without repeats.
pub fn tags(text: &str) -> Vec<String> {
    text_links(text).tags
}

/// The block ids a text references with `((id))` or `[label](((id)))`, in order, without
/// repeats.
pub fn block_refs(text: &str) -> Vec<String> {
    text_links(text).refs
}

/// An org link with a label, `[[target][label]]`, as the tokenizer gives it: one page link
/// whose name holds `][`.
struct OrgLink<'p> {
    /// The page it links, as Logseq reads an org link (graph-parser's `get-page-reference`):
    /// its target, unless that is a URL or a file (`https:…`, `file:…`), which mldoc reads as
    /// links of their own. In markdown, mldoc reads the whole `target][label` as a page name.
    page: Option<&'p str>,
    /// `][` and the label.
    label: &'p str,
}

/// The org link a page link's name is, if it holds `][`.
fn org_link(name: &str) -> Option<OrgLink<'_>> {
    let at = name.find("][")?;
    let target = &name[..at];
    let scheme = target.split_once(':').is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
    });
    Some(OrgLink {
        page: (!scheme && !target.trim().is_empty()).then_some(target),
        label: &name[at..],
    })
}

/// The text with every link to page `old` pointing to `new` instead (`[[Old]]` →
/// `[[New]]`, `#old` → `#new`, or `#[[New Name]]` when the new name cannot be a bare tag).
/// Matches case-insensitively; borrowed when nothing changed.
pub fn rename_page_links<'t>(text: &'t str, old: &str, new: &str) -> Cow<'t, str> {
    rename_page_links_in(Syntax::Markdown, text, old, new)
}

/// [`rename_page_links`] in a text of a page in `syntax`: in an org page, the target of
/// `[[target][label]]` too, its label kept.
pub fn rename_page_links_in<'t>(
    syntax: Syntax,
    text: &'t str,
    old: &str,
    new: &str,
) -> Cow<'t, str> {
    let mut tokens = tokenize(text);
    if rename_in_tokens(&mut tokens, syntax, old, new) {
        Cow::Owned(source(&tokens))
    } else {
        Cow::Borrowed(text)
    }
}

/// The pages a property value links to. A page list (`tags`, `alias`, and the keys a graph's
/// config names) holds comma-separated page names, bare or linked; any other value links only
/// through `[[page]]` and `#tag`.
pub fn property_links(value: &str, page_list: bool) -> Vec<String> {
    if !page_list {
        return page_links(value);
    }
    let mut pages = Vec::new();
    for item in list_items(value) {
        let links = page_links(item);
        if links.is_empty() {
            if !item.trim().is_empty() {
                push_page(&mut pages, item);
            }
        } else {
            for link in &links {
                push_page(&mut pages, link);
            }
        }
    }
    pages
}

/// The other names a page's `alias::` property (any case of the key) gives it, as written.
pub fn aliases(properties: &Properties) -> Vec<String> {
    properties
        .iter()
        .filter(|(key, _)| key.eq_ignore_ascii_case(ALIAS))
        .flat_map(|(_, value)| property_links(value, true))
        .collect()
}

/// [`rename_page_links`] for a property value, renaming bare names in a page list too (a new
/// name with a comma, or that would read as markup, is written `[[New, Name]]`).
pub fn rename_property_links<'v>(
    value: &'v str,
    page_list: bool,
    old: &str,
    new: &str,
) -> Cow<'v, str> {
    if !page_list {
        return rename_page_links(value, old, new);
    }
    let mut changed = false;
    let mut renamed_value = String::with_capacity(value.len());
    let mut written = 0;
    for range in list_item_ranges(value) {
        // The separators stay as written (`,` or `，`).
        renamed_value.push_str(&value[written..range.start]);
        written = range.end;
        let item = &value[range];
        let renamed = if page_links(item).is_empty() {
            if same_page_name(item, old) && !item.trim().is_empty() {
                let trimmed = item.trim();
                let start = item.len() - item.trim_start().len();
                let end = start + trimmed.len();
                Cow::Owned(format!(
                    "{}{}{}",
                    &item[..start],
                    list_item_source(new),
                    &item[end..]
                ))
            } else {
                Cow::Borrowed(item)
            }
        } else {
            rename_page_links(item, old, new)
        };
        changed |= matches!(renamed, Cow::Owned(_));
        renamed_value.push_str(&renamed);
    }
    if changed {
        Cow::Owned(renamed_value)
    } else {
        Cow::Borrowed(value)
    }
}

/// A property value as Logseq shows it, to compare values by: each `[[page]]` and `#tag` as
/// its page name, in lower case and trimmed (`[[Feature]]`, `#Feature` and `feature` are one
/// value).
pub fn shown_value(value: &str) -> String {
    fn shown(tokens: &[Token], out: &mut String) {
        for token in tokens {
            match token {
                Token::Page { page } | Token::Tag { page, .. } => out.push_str(page),
                other => out.push_str(&source(std::slice::from_ref(other))),
            }
        }
    }
    if !value.contains("[[") && !value.contains('#') {
        // No link or tag to show by name: most values, read without tokenizing.
        return value.trim().to_lowercase();
    }
    let mut out = String::new();
    shown(&tokenize(value), &mut out);
    out.trim().to_lowercase()
}

/// Splits a list value at commas outside `[[…]]`: `,`, and the full-width `，` as Logseq's
/// `sep-by-comma` splits too (`读书笔记，性能调优` is two pages).
fn list_items(value: &str) -> Vec<&str> {
    list_item_ranges(value)
        .into_iter()
        .map(|range| &value[range])
        .collect()
}

/// Where each item of [`list_items`] lies in `value`.
fn list_item_ranges(value: &str) -> Vec<std::ops::Range<usize>> {
    const FULL_WIDTH_COMMA: &[u8] = "，".as_bytes();
    let bytes = value.as_bytes();
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut item_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match &bytes[i..] {
            [b'[', b'[', ..] => {
                depth += 1;
                i += 2;
                continue;
            }
            [b']', b']', ..] if depth > 0 => {
                depth -= 1;
                i += 2;
                continue;
            }
            [b',', ..] if depth == 0 => {
                items.push(item_start..i);
                item_start = i + 1;
            }
            rest if depth == 0 && rest.starts_with(FULL_WIDTH_COMMA) => {
                items.push(item_start..i);
                item_start = i + FULL_WIDTH_COMMA.len();
                i = item_start;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    items.push(item_start..value.len());
    items
}

/// How a bare list item naming `page` is written: as is, unless it would read as more than
/// one item or as markup.
fn list_item_source(page: &str) -> Cow<'_, str> {
    let plain = matches!(tokenize(page).as_slice(), [Token::Text { text }] if text == page);
    if plain && !page.contains([',', '，']) {
        Cow::Borrowed(page)
    } else {
        Cow::Owned(format!("[[{page}]]"))
    }
}

fn push_page(pages: &mut Vec<String>, page: &str) {
    let page = page.trim();
    if !pages.iter().any(|known| same_page_name(known, page)) {
        pages.push(page.to_owned());
    }
}

/// Whether `id` is a UUID as Logseq writes them (`63db4c7f-0b35-4a2b-9c4e-0123456789ab`).
pub fn is_uuid(id: &str) -> bool {
    let bytes = id.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(at, b)| match at {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// What a link's target links to: a `[[page]]`, a `((id))`, or a block's bare UUID, which
/// Logseq reads as a reference to that block (`[see](63db4c7f-…)`, its `get-block-reference`
/// of a link whose URL parses as a UUID).
fn link_target(url: &str) -> Option<Token> {
    match tokenize(url).as_slice() {
        [target @ (Token::Page { .. } | Token::Ref { .. })] => Some(target.clone()),
        _ => is_uuid(url.trim()).then(|| Token::Ref {
            id: url.trim().to_owned(),
        }),
    }
}

/// Whether a text can hold a block reference at all: `((id))`, or a link (`](`) to a UUID.
pub fn may_ref(text: &str) -> bool {
    text.contains("((") || text.contains("](")
}

/// Calls `f` on every link token, nested ones and a link's target ([`link_target`]) included.
fn visit_links(tokens: &[Token], f: &mut impl FnMut(&Token)) {
    for token in tokens {
        match token {
            Token::Bold { children } | Token::Italic { children, .. } => visit_links(children, f),
            Token::Link { children, url } => {
                visit_links(children, f);
                if let Some(target) = link_target(url) {
                    f(&target);
                }
            }
            _ => f(token),
        }
    }
}

fn rename_in_tokens(tokens: &mut [Token], syntax: Syntax, old: &str, new: &str) -> bool {
    rewrite_tokens(tokens, &mut |token| match token {
        Token::Page { page } if same_page_name(page, old) => {
            *page = new.to_owned();
            true
        }
        Token::Page { page } if syntax == Syntax::Org => {
            let Some(link) =
                org_link(page).filter(|link| link.page.is_some_and(|p| same_page_name(p, old)))
            else {
                return false;
            };
            *page = format!("{new}{}", link.label);
            true
        }
        Token::Tag { page, bracketed } if same_page_name(page, old) => {
            *bracketed = *bracketed || bare_tag_name(new) != new || new.is_empty();
            *page = new.to_owned();
            true
        }
        _ => false,
    })
}

/// Offers every link and ref token of `tokens` to `rewrite`, nested ones and a link's target
/// ([`link_target`]) included; whether it changed any. A bare UUID target that changes is
/// written `((id))`, which Logseq reads as the same reference.
fn rewrite_tokens(tokens: &mut [Token], rewrite: &mut dyn FnMut(&mut Token) -> bool) -> bool {
    let mut changed = false;
    for token in tokens {
        match token {
            Token::Bold { children } | Token::Italic { children, .. } => {
                changed |= rewrite_tokens(children, rewrite);
            }
            Token::Link { children, url } => {
                changed |= rewrite_tokens(children, rewrite);
                if let Some(mut target) = link_target(url)
                    && rewrite(&mut target)
                {
                    *url = source(std::slice::from_ref(&target));
                    changed = true;
                }
            }
            other => changed |= rewrite(other),
        }
    }
    changed
}

/// The text with each `((id))` (in an embed or a link too) for which `map` gives another id
/// pointing to that one instead; borrowed when nothing changed.
pub fn map_block_refs<'t>(text: &'t str, map: &dyn Fn(&str) -> Option<String>) -> Cow<'t, str> {
    if !may_ref(text) {
        return Cow::Borrowed(text);
    }
    let mut tokens = tokenize(text);
    let changed = rewrite_tokens(&mut tokens, &mut |token| match token {
        Token::Ref { id } => match map(id) {
            Some(mapped) if mapped != *id => {
                *id = mapped;
                true
            }
            _ => false,
        },
        _ => false,
    });
    if changed {
        Cow::Owned(source(&tokens))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_compare_as_logseq_shows_them() {
        for value in ["[[Feature]]", "#Feature", "#[[feature]]", " feature "] {
            assert_eq!(shown_value(value), "feature", "{value}");
        }
        assert_eq!(shown_value("[[a b]], c"), "a b, c");
    }

    #[test]
    fn page_links_cover_links_tags_and_link_targets() {
        let text = "TODO Call [[Bob]] about #launch and #[[Q4 plan]], see [notes]([[Meeting notes]]) and [[bob]]";
        assert_eq!(
            page_links(text),
            ["Bob", "launch", "Q4 plan", "Meeting notes"]
        );
        assert_eq!(tags(text), ["launch", "Q4 plan"]);
        // Emphasis holds page links but no tags, as mldoc reads it.
        assert_eq!(
            page_links("**[[Bold link]]** and _#italic-tag_ *#star* **#bold**"),
            ["Bold link"]
        );
    }

    #[test]
    fn link_labels_hold_no_tags_or_page_links() {
        let text =
            "see [issue #12](https://x.org/12), [about [[Page]] **#b**](https://y.org) and #real";
        assert_eq!(page_links(text), ["real"]);
        // A ref in a label stays a ref, so that its id is served short.
        assert_eq!(block_refs("[why ((6f3a2c))](https://x.org)"), ["6f3a2c"]);
    }

    #[test]
    fn links_inside_code_do_not_count() {
        assert!(page_links("`[[not a link]]` and ``#nope``").is_empty());
        assert!(block_refs("`((abc123))`").is_empty());
    }

    #[test]
    fn a_tag_starts_at_any_hash_and_ends_as_mldoc_ends_it() {
        assert_eq!(tags("会议纪要。#复盘 and Term#flash"), ["复盘", "flash"]);
        assert_eq!(
            tags("#first, (#second) and #third."),
            ["first", "second)", "third"]
        );
        assert_eq!(
            tags("(about #rust) then #go; #v1.2 #a;b #end?! #x,y #p:q #m#n"),
            ["rust)", "go", "v1.2", "a;b", "end", "x", "p", "m", "n"]
        );
        assert_eq!(
            tags("#a`b` x #tag** y #标签。 z"),
            ["a`b`", "tag**", "标签。"]
        );
        assert_eq!(
            tags("#[[two words]] #a[[b c]]d"),
            ["two words", "a[[b c]]d"]
        );
        assert!(tags("C# and F#, # alone, #. too").is_empty());
        assert!(tags("# Heading").is_empty());
        assert!(tags("## Heading").is_empty());
        assert_eq!(tags("#projects/apollo"), ["projects/apollo"]);
    }

    #[test]
    fn urls_hold_no_tags_unless_text_runs_into_them() {
        let urls = "https://x.org/#/page/y https://x.org/(#a) <https://x.org/#b> [docs](#setup) x https://a.b/c_#d";
        assert!(tags(urls).is_empty());
        // mldoc reads a URL only where its plain-text reader stops, and `(` is not such a place.
        assert_eq!(tags("(https://x.org/#a) see:https://x/#b"), ["a)", "b"]);
    }

    #[test]
    fn inline_html_holds_no_tags_or_links() {
        let html =
            r##"x <span title="#nottag">[[p]]</span> <b>#c</b> <br /> a <!-- #no --> #after"##;
        assert_eq!(page_links(html), ["after"]);
        // An unknown element, or one right after text, is text.
        assert_eq!(
            tags(r##"<foo x="#yes"> x<span title="#t">y</span>"##),
            ["yes", "t"]
        );
    }

    #[test]
    fn directives_verbatim_blocks_fences_and_urls_hold_no_links() {
        let query = "My tasks\n#+BEGIN_QUERY\n{:title \"#urgent [[Work]]\"\n :query (task TODO)}\n#+END_QUERY\nsee #after";
        assert_eq!(page_links(query), ["after"]);
        assert_eq!(
            page_links("#+BEGIN_SRC clojure\n(def x \"[[no]]\") ; #no\n#+END_SRC\n[[yes]]"),
            ["yes"]
        );
        assert!(
            page_links("#+TITLE: [[not a link]]\n#+begin_example\n#x\n#+end_example").is_empty()
        );
        assert!(page_links("~~~\n[[fenced]] #fenced\n~~~").is_empty());
        assert!(page_links("```\n#+BEGIN_QUOTE\n```\n").is_empty());
        // A quote or a note holds text as usual; only its directive lines are verbatim.
        assert_eq!(
            page_links("#+BEGIN_NOTE\nread [[Dune]] #books\n#+END_NOTE"),
            ["Dune", "books"]
        );
        assert_eq!(tags("https://x.org/page #real"), ["real"]);
        assert!(tags("### Heading\n## Another").is_empty());
    }

    #[test]
    fn block_refs_short_and_uuid() {
        let text =
            "see ((6f3a2c)) and ((64f1c2a0-7b3e-4d5a-9c1e-2f8b7a6d5e4c)) and [why](((6f3a2c)))";
        assert_eq!(
            block_refs(text),
            ["6f3a2c", "64f1c2a0-7b3e-4d5a-9c1e-2f8b7a6d5e4c"]
        );
        assert!(block_refs("((not an id)) (( )) ((x)").is_empty());
        // A link to a bare UUID is a reference to that block, as Logseq reads it.
        let linked = "[图](650a4d13-aaaa-4bbb-8ccc-123456789abc) and [x](notes)";
        assert_eq!(block_refs(linked), ["650a4d13-aaaa-4bbb-8ccc-123456789abc"]);
        assert_eq!(
            map_block_refs(linked, &|id| is_uuid(id).then(|| "k3v9q2x".to_owned())),
            "[图](((k3v9q2x))) and [x](notes)"
        );
    }

    #[test]
    fn aliases_are_the_names_of_the_alias_property_in_any_case() {
        let properties: Properties = [
            ("title".to_string(), "Launch".to_string()),
            ("Alias".to_string(), "launch, [[Q4 launch]]".to_string()),
        ]
        .into_iter()
        .collect();
        assert_eq!(aliases(&properties), ["launch", "Q4 launch"]);
        assert!(aliases(&Properties::new()).is_empty());
    }

    #[test]
    fn an_escaped_hash_starts_no_tag() {
        assert!(tags("a \\#data-safety b, C\\# and $j_{\\#}$").is_empty());
        assert_eq!(tags("\\#not but #yes"), ["yes"]);
    }

    #[test]
    fn an_org_link_with_a_label_links_its_target() {
        let text =
            "see [[term/alias][Page alias]], [[https://x.org/a][site]] and [[file:x.org][x]]";
        assert_eq!(text_links_in(Syntax::Org, text).pages, ["term/alias"]);
        // In markdown, mldoc reads the whole `target][label` as the page's name.
        assert_eq!(
            text_links_in(Syntax::Markdown, "[[term/alias][Page alias]]").pages,
            ["term/alias][Page alias"]
        );
        assert_eq!(
            rename_page_links_in(Syntax::Org, text, "Term/Alias", "term/aliases"),
            "see [[term/aliases][Page alias]], [[https://x.org/a][site]] and [[file:x.org][x]]"
        );
        assert_eq!(
            rename_page_links_in(Syntax::Markdown, text, "term/alias", "other"),
            text
        );
    }

    #[test]
    fn rename_rewrites_every_form_case_insensitively() {
        assert_eq!(
            rename_page_links("Call [[Bob]] and [[bob]]", "BOB", "Robert"),
            "Call [[Robert]] and [[Robert]]"
        );
        assert_eq!(
            rename_page_links("about #launch.", "Launch", "release"),
            "about #release."
        );
        assert_eq!(
            rename_page_links("about #launch", "launch", "Big Launch"),
            "about #[[Big Launch]]"
        );
        assert_eq!(
            rename_page_links("#[[Q4 plan]]", "q4 plan", "Q1 plan"),
            "#[[Q1 plan]]"
        );
        assert_eq!(
            rename_page_links("**[x]([[Old]])**", "old", "New"),
            "**[x]([[New]])**"
        );
        assert_eq!(
            rename_page_links("`[[Old]]` stays", "Old", "New"),
            "`[[Old]]` stays"
        );
        assert!(matches!(
            rename_page_links("no links to [[Other]]", "Old", "New"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            rename_page_links("#oldish #old", "old", "new"),
            "#oldish #new"
        );
        // A tag right after a character is one too, and stays one.
        assert_eq!(
            rename_page_links("Def#card and 句子。#card", "card", "flash"),
            "Def#flash and 句子。#flash"
        );
        assert_eq!(
            rename_page_links("Def#card", "card", "two words"),
            "Def#[[two words]]"
        );
    }

    #[test]
    fn property_values() {
        assert_eq!(
            property_links("project, [[Q4 plan]], #launch", true),
            ["project", "Q4 plan", "launch"]
        );
        assert_eq!(property_links("apollo, Apollo", true), ["apollo"]);
        assert_eq!(property_links("[[a, b]], c", true), ["a, b", "c"]);
        assert_eq!(property_links("[[Bob]]", false), ["Bob"]);
        assert!(property_links("in progress, blocked", false).is_empty());
        assert!(property_links(" , ", true).is_empty());
        assert_eq!(
            property_links("读书笔记，性能调优, [[a，b]]", true),
            ["读书笔记", "性能调优", "a，b"]
        );
    }

    #[test]
    fn property_rename() {
        assert_eq!(
            rename_property_links("project, Launch", true, "launch", "release"),
            "project, release"
        );
        assert_eq!(
            rename_property_links("[[Launch]], x", true, "launch", "release"),
            "[[release]], x"
        );
        assert_eq!(
            rename_property_links("a, old", true, "old", "x, y"),
            "a, [[x, y]]"
        );
        assert_eq!(rename_property_links("old", false, "old", "new"), "old");
        assert_eq!(
            rename_property_links("[[old]]", false, "old", "new"),
            "[[new]]"
        );
        assert_eq!(
            rename_property_links("读书笔记，old", true, "old", "性能"),
            "读书笔记，性能"
        );
        assert!(matches!(
            rename_property_links("a, b", true, "old", "new"),
            Cow::Borrowed(_)
        ));
    }
}
