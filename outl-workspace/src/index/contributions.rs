//! What pages contribute to the holder lists (links and backlinks, tags, tasks, properties,
//! block refs), computed by one function, and how a page's contribution goes in and out.

use std::collections::BTreeMap;

use compact_str::CompactString;
use rustc_hash::{FxHashMap, FxHashSet};

use super::numbering::{Held, Tables};
use crate::block::{Block, BlockList};
use crate::config::GraphConfig;
use crate::model::Page;
use outl_format::{self as outline, Properties, Syntax, TaskMarker};
/// The holders of one key: grouped by page, pages in slug order, a page's in document order.
pub(super) type Holders = Vec<Held>;

/// The holders of every key, and each page's outgoing links.
#[derive(Debug, Default)]
pub(super) struct Lists {
    /// By page number: the slugs the page links to, in order of first appearance.
    pub(super) outgoing: FxHashMap<u32, Box<[CompactString]>>,
    pub(super) backlinks: FxHashMap<CompactString, Holders>,
    pub(super) tags: FxHashMap<CompactString, Holders>,
    pub(super) tasks: BTreeMap<TaskMarker, Holders>,
    pub(super) properties: FxHashMap<CompactString, FxHashMap<CompactString, Holders>>,
    pub(super) block_refs: FxHashMap<CompactString, Holders>,
}

/// Everything one page puts into the index, each kind sorted by key with a key's holders in
/// document order, once each.
#[derive(Default)]
struct Contribution<'a> {
    /// Slugs the page links to (itself aside), in order of first appearance.
    outgoing: Vec<CompactString>,
    links: Vec<(String, Held)>,
    tags: Vec<(String, Held)>,
    tasks: Vec<(TaskMarker, Held)>,
    properties: Vec<((String, &'a str), Held)>,
    block_refs: Vec<(String, Held)>,
}

fn contribution<'a>(
    page: &'a Page,
    p: u32,
    blocks: &[&'a Block],
    numbers: &[u32],
    config: &GraphConfig,
) -> Contribution<'a> {
    let mut c = Contribution::default();
    properties_contribution(&page.properties, Held::page(p), &mut c, config);
    let syntax = Syntax::of_file(&page.file);
    for (block, &n) in blocks.iter().zip(numbers) {
        block_contribution(block, syntax, Held(n), &mut c, config);
    }
    let mut seen = FxHashSet::default();
    for (target, _) in &c.links {
        if *target != page.slug && seen.insert(target.as_str()) {
            c.outgoing.push(CompactString::from(target.as_str()));
        }
    }
    by_key(&mut c.links);
    by_key(&mut c.tags);
    by_key(&mut c.tasks);
    by_key(&mut c.properties);
    by_key(&mut c.block_refs);
    c
}

/// Sorts by key, keeping each key's holders in the order they came, and drops repeats: a
/// holder's contributions to one key come one after the other.
fn by_key<K: Ord>(items: &mut Vec<(K, Held)>) {
    items.sort_by(|a, b| a.0.cmp(&b.0));
    items.dedup();
}

/// Links, tags and values of a page's or a block's properties.
fn properties_contribution<'a>(
    properties: &'a Properties,
    held: Held,
    c: &mut Contribution<'a>,
    config: &GraphConfig,
) {
    for (key, value) in properties {
        let key = key.to_lowercase();
        let is_tags = key == "tags";
        // Page lists link by bare names; others need link syntax, and Logseq's own keys and
        // those the config excludes link nothing.
        let page_list = config.is_page_list(&key);
        if config.links_values(&key) && (page_list || may_link(value)) {
            for name in outline::property_links(value, page_list) {
                let target = config.link_slug(&name);
                if is_tags {
                    c.tags.push((target.clone(), held));
                }
                c.links.push((target, held));
            }
            if !is_tags {
                // `related:: #x` tags as `#x` in a text does.
                for tag in outline::tags(value) {
                    c.tags.push((config.link_slug(&tag), held));
                }
            }
        }
        c.properties.push(((key, value.trim()), held));
    }
}

/// Whether a text can hold a page link or tag at all (every form has `[[` or `#`): most
/// texts have neither, and tokenizing them would find nothing.
fn may_link(text: &str) -> bool {
    text.contains("[[") || text.contains('#')
}

fn block_contribution<'a>(
    block: &'a Block,
    syntax: Syntax,
    held: Held,
    c: &mut Contribution<'a>,
    config: &GraphConfig,
) {
    // Every block reference has `((`, or is a link to a UUID.
    if may_link(&block.text) || outline::may_ref(&block.text) {
        let links = outline::text_links_in(syntax, &block.text);
        c.links.extend(
            links
                .pages
                .iter()
                .map(|name| (config.link_slug(name), held)),
        );
        c.tags
            .extend(links.tags.iter().map(|name| (config.link_slug(name), held)));
        c.block_refs
            .extend(links.refs.into_iter().map(|target| (target, held)));
    }
    properties_contribution(&block.properties, held, c, config);
    if let Some((marker, _)) = outline::task_marker(&block.text) {
        c.tasks.push((marker, held));
    }
}

/// Where a page's holders go in a key's list.
#[derive(Clone, Copy)]
pub(super) enum Placement {
    /// At the end: pages are indexed in slug order.
    Append,
    /// Where the page's slug sorts.
    BySlug,
}

fn insert_run(
    list: &mut Holders,
    run: &[(impl Sized, Held)],
    slug: &str,
    tables: &Tables,
    placement: Placement,
) {
    let holders = run.iter().map(|(_, held)| *held);
    match placement {
        Placement::Append => list.extend(holders),
        Placement::BySlug => {
            let at = list.partition_point(|&held| tables.slug_of(held) < slug);
            list.splice(at..at, holders);
        }
    }
}

/// Removes page `p`'s holders from a key's list; whether the list is empty then.
fn remove_run(list: &mut Holders, p: u32, slug: &str, tables: &Tables) -> bool {
    let start = list.partition_point(|&held| tables.slug_of(held) < slug);
    let len = list[start..]
        .iter()
        .take_while(|&&held| tables.page_of(held) == Some(p))
        .count();
    list.drain(start..start + len);
    list.is_empty()
}

/// Drops from both lists (sorted by key) the runs of the keys whose holders are the same in
/// each: what a page still contributes unchanged.
fn drop_common_runs<K: Ord>(old: &mut Vec<(K, Held)>, new: &mut Vec<(K, Held)>) {
    let run_end = |items: &[(K, Held)], at: usize| {
        at + items[at..]
            .iter()
            .take_while(|item| item.0 == items[at].0)
            .count()
    };
    let (mut keep_old, mut keep_new) = (vec![true; old.len()], vec![true; new.len()]);
    let (mut i, mut j) = (0, 0);
    while i < old.len() && j < new.len() {
        match old[i].0.cmp(&new[j].0) {
            std::cmp::Ordering::Less => i = run_end(old, i),
            std::cmp::Ordering::Greater => j = run_end(new, j),
            std::cmp::Ordering::Equal => {
                let (old_end, new_end) = (run_end(old, i), run_end(new, j));
                let holders = |run: &[(K, Held)]| run.iter().map(|item| item.1).collect::<Vec<_>>();
                if holders(&old[i..old_end]) == holders(&new[j..new_end]) {
                    keep_old[i..old_end].fill(false);
                    keep_new[j..new_end].fill(false);
                }
                (i, j) = (old_end, new_end);
            }
        }
    }
    let mut keep = keep_old.into_iter();
    old.retain(|_| keep.next().unwrap_or(true));
    let mut keep = keep_new.into_iter();
    new.retain(|_| keep.next().unwrap_or(true));
}

/// The runs of `items` (sorted by key) that share a key.
fn runs<K: PartialEq>(items: &[(K, Held)]) -> impl Iterator<Item = (&K, &[(K, Held)])> {
    items
        .chunk_by(|a, b| a.0 == b.0)
        .map(|run| (&run[0].0, run))
}

/// The value of `key`, a default one inserted when there is none.
pub(super) fn keyed_list<'m, V: Default>(
    map: &'m mut FxHashMap<CompactString, V>,
    key: &str,
) -> &'m mut V {
    map.entry(CompactString::from(key)).or_default()
}

impl Lists {
    /// Adds what page `p` contributes.
    pub(super) fn add_page(
        &mut self,
        tables: &Tables,
        p: u32,
        page: &Page,
        placement: Placement,
        config: &GraphConfig,
    ) {
        let blocks = page.blocks();
        let blocks = blocks.preorder();
        let c = contribution(page, p, &blocks, tables.blocks_of(p), config);
        self.add(tables, p, &page.slug, c, placement);
    }

    /// Takes out what page `p` (still numbered) contributed.
    pub(super) fn remove_page(
        &mut self,
        tables: &Tables,
        p: u32,
        page: &Page,
        config: &GraphConfig,
    ) {
        let blocks = page.blocks();
        let blocks = blocks.preorder();
        let c = contribution(page, p, &blocks, tables.blocks_of(p), config);
        self.remove(tables, p, &page.slug, &c);
    }

    /// Puts what `new` contributes in place of what `old`, numbered `old_numbers`, did: only
    /// the keys whose holders changed are taken out and put back, so that a write to a large
    /// page costs what it changed. Page `p` holds both pages' numbers until this is done.
    pub(super) fn replace_page(
        &mut self,
        tables: &Tables,
        p: u32,
        old: &Page,
        old_numbers: &[u32],
        new: &Page,
        config: &GraphConfig,
    ) {
        let (old_blocks, new_blocks) = (old.blocks(), new.blocks());
        let (old_blocks, new_blocks) = (old_blocks.preorder(), new_blocks.preorder());
        let mut was = contribution(old, p, &old_blocks, old_numbers, config);
        let mut is = contribution(new, p, &new_blocks, tables.blocks_of(p), config);
        drop_common_runs(&mut was.links, &mut is.links);
        drop_common_runs(&mut was.tags, &mut is.tags);
        drop_common_runs(&mut was.tasks, &mut is.tasks);
        drop_common_runs(&mut was.properties, &mut is.properties);
        drop_common_runs(&mut was.block_refs, &mut is.block_refs);
        self.remove(tables, p, &old.slug, &was);
        self.add(tables, p, &new.slug, is, Placement::BySlug);
    }

    fn add(
        &mut self,
        tables: &Tables,
        p: u32,
        slug: &str,
        c: Contribution<'_>,
        placement: Placement,
    ) {
        for (key, run) in runs(&c.links) {
            insert_run(
                keyed_list(&mut self.backlinks, key),
                run,
                slug,
                tables,
                placement,
            );
        }
        for (key, run) in runs(&c.tags) {
            insert_run(
                keyed_list(&mut self.tags, key),
                run,
                slug,
                tables,
                placement,
            );
        }
        for (marker, run) in runs(&c.tasks) {
            insert_run(
                self.tasks.entry(*marker).or_default(),
                run,
                slug,
                tables,
                placement,
            );
        }
        for ((key, value), run) in runs(&c.properties) {
            let values = keyed_list(&mut self.properties, key);
            insert_run(keyed_list(values, value), run, slug, tables, placement);
        }
        for (target, run) in runs(&c.block_refs) {
            insert_run(
                keyed_list(&mut self.block_refs, target),
                run,
                slug,
                tables,
                placement,
            );
        }
        if !c.outgoing.is_empty() {
            self.outgoing.insert(p, c.outgoing.into_boxed_slice());
        }
    }

    fn remove(&mut self, tables: &Tables, p: u32, slug: &str, c: &Contribution<'_>) {
        let remove_keyed = |map: &mut FxHashMap<CompactString, Holders>, key: &str| {
            if map
                .get_mut(key)
                .is_some_and(|list| remove_run(list, p, slug, tables))
            {
                map.remove(key);
            }
        };
        for (key, _) in runs(&c.links) {
            remove_keyed(&mut self.backlinks, key);
        }
        for (key, _) in runs(&c.tags) {
            remove_keyed(&mut self.tags, key);
        }
        for (marker, _) in runs(&c.tasks) {
            if self
                .tasks
                .get_mut(marker)
                .is_some_and(|list| remove_run(list, p, slug, tables))
            {
                self.tasks.remove(marker);
            }
        }
        for ((key, value), _) in runs(&c.properties) {
            if let Some(values) = self.properties.get_mut(key.as_str()) {
                remove_keyed(values, value);
                if values.is_empty() {
                    self.properties.remove(key.as_str());
                }
            }
        }
        for (target, _) in runs(&c.block_refs) {
            remove_keyed(&mut self.block_refs, target);
        }
        self.outgoing.remove(&p);
    }

    pub(super) fn shrink_to_fit(&mut self) {
        fn shrink_keyed(map: &mut FxHashMap<CompactString, Holders>) {
            map.values_mut().for_each(Vec::shrink_to_fit);
            map.shrink_to_fit();
        }
        self.outgoing.shrink_to_fit();
        shrink_keyed(&mut self.backlinks);
        shrink_keyed(&mut self.tags);
        shrink_keyed(&mut self.block_refs);
        self.tasks.values_mut().for_each(Vec::shrink_to_fit);
        self.properties.values_mut().for_each(shrink_keyed);
        self.properties.shrink_to_fit();
    }
}
