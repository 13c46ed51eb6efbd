//! Tests of the index as a whole, and the pages the index's tests are made of.

use std::collections::{BTreeMap, BTreeSet};

use compact_str::CompactString;
use rustc_hash::FxHashMap;

use super::contributions::Holders;
use super::numbering::NO_PAGE;
use super::{Holder, Index};
use crate::block::Block;
use crate::config::GraphConfig;
use crate::format;
use crate::model::{Page, PageKind};
use crate::names::slug;
use crate::postings::posting_block;
use outl_format::TaskMarker;
/// A page from markdown, its blocks' ids `<prefix>0`, `<prefix>1`, … in document order.
pub(super) fn page(name: &str, md: &str, id_prefix: &str) -> Page {
    let format::Parsed {
        properties,
        mut blocks,
        ..
    } = format::parse_as(outl_format::Syntax::Markdown, md);
    let mut next = 0;
    fn give_ids(blocks: &mut [Block], prefix: &str, next: &mut usize) {
        for block in blocks {
            block.id = format!("{prefix}{next}").into();
            *next += 1;
            give_ids(&mut block.children, prefix, next);
        }
    }
    give_ids(&mut blocks, id_prefix, &mut next);
    Page::new(
        slug(name),
        name.to_string(),
        PageKind::Page,
        format!("pages/{name}.md"),
        properties,
        blocks,
    )
}

/// Everything the index answers, by page slug and block id (not by number), in the
/// order it answers it.
pub(super) fn observable(index: &Index) -> String {
    let mut out = String::new();
    let holders = |list: &Holders| index.holders(Some(list));
    let keyed = |map: &FxHashMap<CompactString, Holders>| {
        let map: BTreeMap<&str, Vec<Holder>> = map
            .iter()
            .map(|(key, list)| (key.as_str(), holders(list)))
            .collect();
        format!("{map:?}\n")
    };
    out += &keyed(&index.lists.backlinks);
    out += &keyed(&index.lists.tags);
    out += &keyed(&index.lists.block_refs);
    for (marker, list) in &index.lists.tasks {
        out += &format!("{marker:?} {:?}\n", holders(list));
    }
    let properties: BTreeMap<&str, String> = index
        .lists
        .properties
        .iter()
        .map(|(key, values)| (key.as_str(), keyed(values)))
        .collect();
    out += &format!("{properties:?}\n");
    let outgoing: BTreeMap<&str, Vec<&str>> = index
        .lists
        .outgoing
        .keys()
        .map(|&p| {
            let slug = index.tables.slugs.name(p);
            (slug, index.links(slug))
        })
        .collect();
    out += &format!("{outgoing:?}\n");
    let search = &index.search;
    let postings: BTreeMap<&str, BTreeMap<(&str, &str), u32>> = search
        .postings
        .iter()
        .map(|(term, list)| {
            let list: Vec<u32> = list.cursor().collect();
            assert!(list.is_sorted(), "postings of {term:?} out of order");
            let blocks = list
                .iter()
                .map(|&p| {
                    let n = posting_block(p);
                    let names = index.tables.block_names(n).expect("a live block");
                    (names, search.tf(n, term, p))
                })
                .collect();
            (term.as_str(), blocks)
        })
        .collect();
    out += &format!("{postings:?}\n");
    let lens: BTreeMap<(&str, &str), u32> = index
        .tables
        .block_pages
        .iter()
        .enumerate()
        .filter(|&(_, &p)| p != NO_PAGE)
        .map(|(n, _)| {
            let n = n as u32;
            (
                index.tables.block_names(n).expect("a live block"),
                search.lens[n as usize],
            )
        })
        .collect();
    out += &format!("{lens:?} {} {}\n", search.total_len, search.live);
    let headings: BTreeSet<(&str, &str)> = (0..index.tables.block_pages.len() as u32)
        .filter(|&n| search.is_heading(n))
        .map(|n| index.tables.block_names(n).expect("a live block"))
        .collect();
    out += &format!("headings {headings:?}\n");
    let names: BTreeMap<&str, BTreeSet<&str>> = search
        .names
        .iter()
        .map(|(term, pages)| {
            assert!(pages.is_sorted(), "pages of {term:?} out of order");
            let slugs = pages.iter().map(|&p| index.tables.slugs.name(p)).collect();
            (term.as_str(), slugs)
        })
        .collect();
    out += &format!("names {names:?}\n");
    let long_tf: usize = search.long_tf.values().map(Vec::len).sum();
    out += &format!("{long_tf} counts above the packed maximum\n");
    out += &format!("{} block ids\n", index.block_count());
    out
}

/// Pages that put something into every part of the index, some text repeated across
/// pages so that scores tie.
pub(super) fn sample_pages() -> Vec<Page> {
    (0..40)
            .map(|i| {
                let md = format!(
                    "tags:: t{}, [[Shared]]\nalias:: other {i}\n\n- TODO call [[Page {}]] about #topic{} and ((p{}x0))\n\t- child text Naïve ΣΟΦΟΣ {}\n\t  prio:: p{}\n- DONE word{} shared words {}\n- same text in every page\n- ## Heading 跨域请求 {}\n",
                    i % 3,
                    (i * 7) % 40,
                    i % 5,
                    (i + 1) % 40,
                    "again ".repeat(i % 20),
                    i % 4,
                    i % 6,
                    "budget ".repeat(i % 18),
                    "域".repeat(i % 3),
                );
                page(&format!("Page {i}"), &md, &format!("p{i}x"))
            })
            .collect()
}

pub(super) fn page_in<'a>(pages: &'a [Page]) -> impl Fn(&str) -> Option<&'a Page> {
    move |slug| pages.iter().find(|p| p.slug == slug)
}

#[test]
fn updates_leave_the_index_that_a_bulk_build_of_the_final_pages_gives() {
    let mut pages = sample_pages();
    let mut index = Index::default();
    // Out of slug order, so that holders land between others.
    for page in pages.iter().rev() {
        index.update(None, Some(page), &GraphConfig::default());
    }
    // Edit a page (new texts, a removed block), move a block id to another page, drop a
    // page, add one, and edit one twice.
    let edited = page(
        "Page 3",
        "- DONE call [[page 9]] #topic1 budget budget budget\n- brand new block\n",
        "p3y",
    );
    index.update(Some(&pages[3]), Some(&edited), &GraphConfig::default());
    pages[3] = edited;
    let mut taker = pages[5].clone();
    taker
        .blocks_mut()
        .push(page("x", "- moved here", "p6x").blocks_mut().remove(0));
    let mut giver = pages[6].clone();
    giver.blocks_mut().remove(0);
    index.update(Some(&pages[5]), Some(&taker), &GraphConfig::default());
    index.update(Some(&pages[6]), Some(&giver), &GraphConfig::default());
    (pages[5], pages[6]) = (taker, giver);
    index.update(Some(&pages[10]), None, &GraphConfig::default());
    pages.remove(10);
    let added = page("Zeta", "- links to [[Page 1]] and #Shared\n", "z");
    index.update(None, Some(&added), &GraphConfig::default());
    pages.push(added);
    for text in ["first edit", "second edit #topic2 again again"] {
        let edited = page("Page 20", &format!("- {text}\n"), "p20z");
        index.update(Some(&pages[19]), Some(&edited), &GraphConfig::default());
        pages[19] = edited;
    }

    let all: Vec<&Page> = pages.iter().collect();
    let built = Index::build(&all, &GraphConfig::default());
    assert_eq!(observable(&index), observable(&built));
    for query in [
        "budget",
        "same text",
        "\"shared words\"",
        "again budget",
        "σοφος",
        "page other",
        "跨域",
        "域",
        "heading",
    ] {
        let pages_by_slug = page_in(&pages);
        assert_eq!(
            index.search(query, 0, usize::MAX, &pages_by_slug),
            built.search(query, 0, usize::MAX, &pages_by_slug),
            "{query}"
        );
    }
    // Removing every page leaves nothing behind.
    for page in &pages {
        index.update(Some(page), None, &GraphConfig::default());
    }
    assert_eq!(observable(&index), observable(&Index::default()));
    assert!(index.tables.slugs.names.iter().all(CompactString::is_empty));
}

/// Lines of a page a random edit is made of: links, tags, tasks, refs, page and block
/// properties, children; each makes holders.
const EDIT_LINES: &[&str] = &[
    "- TODO call [[P2]] #t1\n",
    "- plain words\n",
    "\t- child #t2 [[P3]]\n",
    "- DONE done ((p0x0))\n",
    "- with a property\n  prio:: high\n",
    "- tags:: t1, t3\n",
    "- twice [[P1]] [[P1]] #t1\n",
    "\t- LATER [[P4]] #[[t 4]]\n",
    "- ## a heading 跨域\n",
    "- heading:: true\n",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// Each edit rewrites a page from random lines, its ids given by position, so that an
    /// id stays while its text, links and tasks change, and blocks come and go.
    #[test]
    fn random_edits_leave_the_index_that_a_bulk_build_gives(
        edits in proptest::collection::vec(
            (0usize..5, proptest::collection::vec(0..EDIT_LINES.len(), 0..7)),
            1..10,
        )
    ) {
        let mut pages: Vec<Page> = (0..5)
            .map(|i| page(&format!("P{i}"), "- start [[P1]] #t1\n", &format!("p{i}x")))
            .collect();
        let mut index = Index::default();
        for page in &pages {
            index.update(None, Some(page), &GraphConfig::default());
        }
        for (target, lines) in edits {
            let md: String = lines.iter().map(|&line| EDIT_LINES[line]).collect();
            let edited = page(&format!("P{target}"), &md, &format!("p{target}x"));
            index.update(Some(&pages[target]), Some(&edited), &GraphConfig::default());
            pages[target] = edited;
            let all: Vec<&Page> = pages.iter().collect();
            proptest::prop_assert_eq!(observable(&index), observable(&Index::build(&all, &GraphConfig::default())));
        }
    }
}

#[test]
fn holders_are_in_slug_and_document_order() {
    let pages = sample_pages();
    let mut index = Index::default();
    for page in pages.iter().rev() {
        index.update(None, Some(page), &GraphConfig::default());
    }
    let shared = index.tagged("shared");
    assert_eq!(shared.len(), 40);
    assert!(shared.windows(2).all(|w| w[0].slug < w[1].slug));
    let page_7 = Holder {
        slug: "page 7".into(),
        block: None,
    };
    assert!(shared.contains(&page_7));
    let todo = index.tasks(TaskMarker::Todo);
    assert!(todo.windows(2).all(|w| w[0].slug < w[1].slug));
    assert_eq!(index.links("page 0"), ["t0", "shared", "other 0", "topic0"]);
    assert_eq!(index.linking_pages("shared").len(), 40);
}
