//! The index of a workspace: links and backlinks, tags, tasks, properties, block refs and a
//! full-text search over block text.
//!
//! Pages and blocks are known here by number. The page table maps slugs to page numbers and
//! lists each page's block numbers in document order; the block table maps block ids to block
//! numbers (the workspace's one map from a block id to its block) and gives each block's page.
//! Everything else holds those numbers: holder lists are four bytes a holder, postings (see
//! `postings`) a byte or two a block. A block gets a fresh number each time its page is indexed,
//! and numbers of pages and blocks that left are reused.
//!
//! A page's contribution is computed by one function. At open every page is indexed at once, in
//! slug order, the holder lists on one thread and the search postings on another, each list
//! built by appending. On a write, a page's contribution is inserted where its slug sorts when
//! the page arrives, and subtracted (computed from the old version of the page) when it changes
//! or goes.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::hash::BuildHasher;

use compact_str::CompactString;
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use serde::Serialize;

use super::cache::{Corrupt, Decoder, Encoder, Persist, persist_fields, put_all};
use super::config::GraphConfig;
use super::model::{Block, BlockList, Page};
use super::names::slug;
use super::packed::BlockReader;
use super::postings::{Cursor, Extent, Postings, TF_BITS, TF_PACKED_MAX, posting_block};
use super::terms::{
    self, Analyzer, Language, Span, Surface, holds_phrase, is_gram, lone_char, lowercase, surfaces,
};
use crate::outline::{self, Properties, Syntax, TaskMarker};

/// Where something was found: a block of a page, or the page itself (its properties).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Holder {
    pub slug: String,
    /// `None` for the page's own properties.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
}

#[derive(Debug, Default)]
pub struct Index {
    tables: Tables,
    lists: Lists,
    search: Search,
}

// ---------------------------------------------------------------------------------------------
// Page and block numbers

fn hash_of(name: &str) -> u64 {
    FxBuildHasher.hash_one(name)
}

/// Strings numbered densely, each stored once: found by number, or by string through a table
/// of numbers hashed by their strings. Released numbers are given out again.
#[derive(Debug, Default)]
struct Numbering {
    names: Vec<CompactString>,
    lookup: HashTable<u32>,
    free: Vec<u32>,
}

impl Numbering {
    /// The string of number `n` (empty for a released number).
    fn name(&self, n: u32) -> &str {
        self.names.get(n as usize).map_or("", CompactString::as_str)
    }

    /// The newest number given to `name` and not released.
    fn get(&self, name: &str) -> Option<u32> {
        self.lookup
            .find(hash_of(name), |&n| self.name(n) == name)
            .copied()
    }

    /// A new number for `name`; [`get`](Self::get) finds it from now on, even when an older
    /// number still has the same string.
    fn assign(&mut self, name: &str) -> u32 {
        let n = match self.free.pop() {
            Some(n) => {
                self.names[n as usize] = CompactString::from(name);
                n
            }
            None => {
                self.names.push(CompactString::from(name));
                (self.names.len() - 1) as u32
            }
        };
        let names = &self.names;
        let name_of = |m: u32| names.get(m as usize).map_or("", CompactString::as_str);
        let hash = hash_of(name);
        match self
            .lookup
            .find_mut(hash, |&m| m != n && name_of(m) == name)
        {
            Some(newest) => *newest = n,
            None => {
                self.lookup.insert_unique(hash, n, |&m| hash_of(name_of(m)));
            }
        }
        n
    }

    /// A new number for `name` if no number has that string and none was released (so the
    /// numbers go out in order), with a single probe of the table; else `None`, numbering
    /// nothing.
    fn assign_new(&mut self, name: &str) -> Option<u32> {
        if !self.free.is_empty() {
            return None;
        }
        let n = self.names.len() as u32;
        let names = &self.names;
        let name_of = |m: u32| names.get(m as usize).map_or("", CompactString::as_str);
        match self.lookup.entry(
            hash_of(name),
            |&m| name_of(m) == name,
            |&m| hash_of(name_of(m)),
        ) {
            hashbrown::hash_table::Entry::Occupied(_) => return None,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(n);
            }
        }
        self.names.push(CompactString::from(name));
        Some(n)
    }

    /// Takes back the numbers from `first` on, which [`assign_new`](Self::assign_new) gave.
    fn forget_from(&mut self, first: u32) {
        for n in first..self.names.len() as u32 {
            if let Ok(entry) = self.lookup.find_entry(hash_of(self.name(n)), |&m| m == n) {
                entry.remove();
            }
        }
        self.names.truncate(first as usize);
    }

    /// Room for `additional` more strings without growing.
    fn reserve(&mut self, additional: usize) {
        self.names.reserve(additional);
        let names = &self.names;
        self.lookup.reserve(additional, |&m| {
            hash_of(names.get(m as usize).map_or("", CompactString::as_str))
        });
    }

    /// Gives number `n` back; [`get`](Self::get) no longer finds it.
    fn release(&mut self, n: u32) {
        let Some(name) = self.names.get_mut(n as usize) else {
            return;
        };
        let name = std::mem::take(name);
        if let Ok(entry) = self.lookup.find_entry(hash_of(&name), |&m| m == n) {
            entry.remove();
        }
        self.free.push(n);
    }

    /// How many distinct strings have a number.
    fn len(&self) -> usize {
        self.lookup.len()
    }

    fn shrink_to_fit(&mut self) {
        self.names.shrink_to_fit();
        self.free.shrink_to_fit();
        let names = &self.names;
        self.lookup
            .shrink_to_fit(|&m| hash_of(names.get(m as usize).map_or("", CompactString::as_str)));
    }
}

/// The block-table value of a free block number.
const NO_PAGE: u32 = u32::MAX;

/// The page table and the block table.
#[derive(Debug, Default)]
struct Tables {
    /// Page numbers by slug.
    slugs: Numbering,
    /// By page number: its blocks' numbers in document order; `None` for a free number.
    page_blocks: Vec<Option<Box<[u32]>>>,
    /// Block numbers by block id.
    ids: Numbering,
    /// By block number: its page's number, [`NO_PAGE`] for a free number.
    block_pages: Vec<u32>,
}

impl Tables {
    /// Numbers a page and its blocks. A block id another page's block still has is found as
    /// this page's from now on.
    fn register(&mut self, page: &Page) -> u32 {
        let p = self.slugs.assign(&page.slug);
        if self.page_blocks.len() <= p as usize {
            self.page_blocks.resize(p as usize + 1, None);
        }
        self.number_blocks(p, page, |_| None);
        p
    }

    /// [`register`](Self::register) for a page whose block ids are all distinct and held by no
    /// block yet: each id is checked and numbered with one probe. Numbers nothing and returns
    /// false when that is not so, or when released numbers would be given out again.
    fn register_new(&mut self, page: &Page) -> bool {
        let first = self.ids.names.len() as u32;
        let mut all_new = true;
        for_each_block(&page.blocks(), &mut |block| {
            all_new = all_new && self.ids.assign_new(&block.id).is_some();
        });
        if !all_new {
            self.ids.forget_from(first);
            return false;
        }
        let p = self.slugs.assign(&page.slug);
        if self.page_blocks.len() <= p as usize {
            self.page_blocks.resize(p as usize + 1, None);
        }
        let mut next = first;
        self.number_blocks(p, page, |_| {
            let n = next;
            next += 1;
            Some(n)
        });
        true
    }

    /// Room for `pages` more pages and `blocks` more blocks without growing.
    fn reserve(&mut self, pages: usize, blocks: usize) {
        self.slugs.reserve(pages);
        self.page_blocks.reserve(pages);
        self.ids.reserve(blocks);
        self.block_pages.reserve(blocks);
    }

    /// Numbers the blocks of `new`, which page `p` holds in place of `old`: a block that keeps
    /// its id keeps its number, so that what it contributes can stay. Returns the old page's
    /// other numbers, which stay the page's until [`free_blocks`](Self::free_blocks) frees
    /// them, so that the old page's holders can be found and taken out first.
    fn renumber(&mut self, p: u32, old: &Page, new: &Page) -> Vec<u32> {
        let old_numbers = self
            .page_blocks
            .get_mut(p as usize)
            .and_then(Option::take)
            .unwrap_or_default();
        let ids = &self.ids;
        let old_blocks = old.blocks();
        let mut held: FxHashMap<&str, u32> = old_blocks
            .preorder()
            .into_iter()
            .zip(old_numbers.iter().copied())
            // A number another page's block has taken the id from is not the id's any more.
            .filter(|&(block, n)| ids.get(&block.id) == Some(n))
            .map(|(block, n)| (block.id.as_str(), n))
            .collect();
        self.number_blocks(p, new, |block| held.remove(block.id.as_str()));
        let kept: FxHashSet<u32> = self.blocks_of(p).iter().copied().collect();
        old_numbers
            .iter()
            .copied()
            .filter(|n| !kept.contains(n))
            .collect()
    }

    /// Gives page `p` the blocks of `page`, each with the number `kept` says or a fresh one.
    fn number_blocks(&mut self, p: u32, page: &Page, mut kept: impl FnMut(&Block) -> Option<u32>) {
        let mut numbers = Vec::new();
        for_each_block(&page.blocks(), &mut |block| {
            let n = kept(block).unwrap_or_else(|| self.ids.assign(&block.id));
            if self.block_pages.len() <= n as usize {
                self.block_pages.resize(n as usize + 1, NO_PAGE);
            }
            self.block_pages[n as usize] = p;
            numbers.push(n);
        });
        self.page_blocks[p as usize] = Some(numbers.into_boxed_slice());
    }

    /// Frees these block numbers.
    fn free_blocks(&mut self, numbers: impl Iterator<Item = u32>) {
        for n in numbers {
            self.ids.release(n);
            if let Some(page) = self.block_pages.get_mut(n as usize) {
                *page = NO_PAGE;
            }
        }
    }

    /// Frees the numbers of page `p` and of its blocks.
    fn unregister(&mut self, p: u32) {
        let Some(numbers) = self.page_blocks.get_mut(p as usize).and_then(Option::take) else {
            return;
        };
        self.free_blocks(numbers.iter().copied());
        self.slugs.release(p);
    }

    /// Block numbers of page `p`, in document order.
    fn blocks_of(&self, p: u32) -> &[u32] {
        self.page_blocks
            .get(p as usize)
            .and_then(Option::as_deref)
            .unwrap_or_default()
    }

    fn page_of_block(&self, n: u32) -> Option<u32> {
        self.block_pages
            .get(n as usize)
            .copied()
            .filter(|&p| p != NO_PAGE)
    }

    fn page_of(&self, held: Held) -> Option<u32> {
        match held.block() {
            Some(n) => self.page_of_block(n),
            None => Some(held.0 & !PAGE_HOLDER),
        }
    }

    fn slug_of(&self, held: Held) -> &str {
        self.page_of(held).map_or("", |p| self.slugs.name(p))
    }

    /// Slug of the page and id of the block with number `n`.
    fn block_names(&self, n: u32) -> Option<(&str, &str)> {
        let p = self.page_of_block(n)?;
        Some((self.slugs.name(p), self.ids.name(n)))
    }

    fn holder(&self, held: Held) -> Option<Holder> {
        let p = self.page_of(held)?;
        Some(Holder {
            slug: self.slugs.name(p).to_string(),
            block: held.block().map(|n| self.ids.name(n).to_string()),
        })
    }

    fn shrink_to_fit(&mut self) {
        self.slugs.shrink_to_fit();
        self.page_blocks.shrink_to_fit();
        self.ids.shrink_to_fit();
        self.block_pages.shrink_to_fit();
    }
}

fn for_each_block<'a>(blocks: &'a [Block], f: &mut impl FnMut(&'a Block)) {
    for block in blocks {
        f(block);
        for_each_block(&block.children, f);
    }
}

/// Marks a [`Held`] that stands for a page rather than a block.
const PAGE_HOLDER: u32 = 1 << 31;

/// A holder in four bytes: a block number, or a page number with [`PAGE_HOLDER`] set (the page
/// itself, through its properties). Numbers stay below that bit: so many blocks would not fit
/// in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Held(u32);

impl Held {
    fn page(p: u32) -> Held {
        Held(p | PAGE_HOLDER)
    }

    fn block(self) -> Option<u32> {
        (self.0 & PAGE_HOLDER == 0).then_some(self.0)
    }
}

// ---------------------------------------------------------------------------------------------
// What pages contribute

/// The holders of one key: grouped by page, pages in slug order, a page's in document order.
type Holders = Vec<Held>;

/// The holders of every key, and each page's outgoing links.
#[derive(Debug, Default)]
struct Lists {
    /// By page number: the slugs the page links to, in order of first appearance.
    outgoing: FxHashMap<u32, Box<[CompactString]>>,
    backlinks: FxHashMap<CompactString, Holders>,
    tags: FxHashMap<CompactString, Holders>,
    tasks: BTreeMap<TaskMarker, Holders>,
    properties: FxHashMap<CompactString, FxHashMap<CompactString, Holders>>,
    block_refs: FxHashMap<CompactString, Holders>,
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
enum Placement {
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
fn keyed_list<'m, V: Default>(map: &'m mut FxHashMap<CompactString, V>, key: &str) -> &'m mut V {
    map.entry(CompactString::from(key)).or_default()
}

impl Lists {
    /// Adds what page `p` contributes.
    fn add_page(
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
    fn remove_page(&mut self, tables: &Tables, p: u32, page: &Page, config: &GraphConfig) {
        let blocks = page.blocks();
        let blocks = blocks.preorder();
        let c = contribution(page, p, &blocks, tables.blocks_of(p), config);
        self.remove(tables, p, &page.slug, &c);
    }

    /// Puts what `new` contributes in place of what `old`, numbered `old_numbers`, did: only
    /// the keys whose holders changed are taken out and put back, so that a write to a large
    /// page costs what it changed. Page `p` holds both pages' numbers until this is done.
    fn replace_page(
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

    fn shrink_to_fit(&mut self) {
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

impl Index {
    /// Replaces what `old` contributed with what `new` contributes. Both are read several
    /// times: a packed page is unpacked each time, so the graph opens them first.
    /// `config` decides what links name, as it did for the pages indexed before.
    pub fn update(&mut self, old: Option<&Page>, new: Option<&Page>, config: &GraphConfig) {
        if let (Some(old), Some(new)) = (old, new)
            && old.slug == new.slug
            && let Some(p) = self.tables.slugs.get(&old.slug)
        {
            // The same page edited: a block that keeps its id and text keeps its postings, so
            // a write to a large page costs what it changed.
            let old_numbers = self.tables.blocks_of(p).to_vec();
            let freed = self.tables.renumber(p, old, new);
            self.search
                .replace_page(p, (&old_numbers, old), (self.tables.blocks_of(p), new));
            self.lists
                .replace_page(&self.tables, p, old, &old_numbers, new, config);
            self.tables.free_blocks(freed.into_iter());
            return;
        }
        if let Some(old) = old {
            self.remove(old, config);
        }
        if let Some(new) = new {
            let p = self.tables.register(new);
            self.lists
                .add_page(&self.tables, p, new, Placement::BySlug, config);
            self.search.add_page(p, self.tables.blocks_of(p), new);
        }
    }

    fn remove(&mut self, page: &Page, config: &GraphConfig) {
        let Some(p) = self.tables.slugs.get(&page.slug) else {
            return;
        };
        self.lists.remove_page(&self.tables, p, page, config);
        self.search.remove_page(p, self.tables.blocks_of(p), page);
        self.tables.unregister(p);
    }

    /// The index of these pages, built at once: what open does.
    pub fn build(pages: &[&Page], config: &GraphConfig) -> Index {
        let mut index = Index::default();
        for page in pages {
            index.register(page);
        }
        index.index_registered(pages, config);
        index
    }

    /// Numbers a page and its blocks, leaving its contribution to
    /// [`index_registered`](Self::index_registered).
    pub(super) fn register(&mut self, page: &Page) {
        self.tables.register(page);
    }

    /// [`register`](Self::register) if every block id of the page is held by no other block:
    /// each id is checked and numbered with one probe. Whether it was registered.
    pub(super) fn register_new(&mut self, page: &Page) -> bool {
        self.tables.register_new(page)
    }

    /// Room for `pages` more pages and `blocks` more blocks to be registered without growing
    /// the tables.
    pub(super) fn reserve(&mut self, pages: usize, blocks: usize) {
        self.tables.reserve(pages, blocks);
    }

    /// Indexes `pages`, every page [`register`](Self::register)ed, all at once and afresh, in
    /// slug order: the holders on this thread, the search on another.
    pub(super) fn index_registered(&mut self, pages: &[&Page], config: &GraphConfig) {
        let mut numbered: Vec<(u32, &Page)> = pages
            .iter()
            .filter_map(|page| Some((self.tables.slugs.get(&page.slug)?, *page)))
            .collect();
        numbered.sort_by(|a, b| a.1.slug.cmp(&b.1.slug));
        let tables = &self.tables;
        let holders = || {
            let mut lists = Lists::default();
            for &(p, page) in &numbered {
                lists.add_page(tables, p, page, Placement::Append, config);
            }
            lists
        };
        let language = self.search.language;
        let search = || {
            Search::of_pages(
                language,
                numbered
                    .iter()
                    .map(|&(p, page)| (p, tables.blocks_of(p), page)),
            )
        };
        let (mut lists, mut search) = if numbered.len() < PARALLEL_BUILD_MIN_PAGES {
            (holders(), search())
        } else {
            std::thread::scope(|scope| {
                let other = scope.spawn(search);
                let lists = holders();
                let search = match other.join() {
                    Ok(built) => built,
                    Err(_) => search(),
                };
                (lists, search)
            })
        };
        lists.shrink_to_fit();
        search.shrink_to_fit();
        self.lists = lists;
        self.search = search;
        self.tables.shrink_to_fit();
    }

    /// Slug of the page holding the block with this id.
    pub fn page_of_block(&self, id: &str) -> Option<&str> {
        let p = self.tables.page_of_block(self.tables.ids.get(id)?)?;
        Some(self.tables.slugs.name(p))
    }

    /// Slug of the page holding the block with this id, and the block's position there in
    /// document order.
    pub fn place_of_block(&self, id: &str) -> Option<(&str, usize)> {
        let n = self.tables.ids.get(id)?;
        let p = self.tables.page_of_block(n)?;
        let at = self.tables.blocks_of(p).iter().position(|&m| m == n)?;
        Some((self.tables.slugs.name(p), at))
    }

    /// Number of distinct block ids.
    pub fn block_count(&self) -> usize {
        self.tables.ids.len()
    }

    fn holders(&self, list: Option<&Holders>) -> Vec<Holder> {
        list.map(|list| {
            list.iter()
                .filter_map(|&held| self.tables.holder(held))
                .collect()
        })
        .unwrap_or_default()
    }

    /// Slugs the page links to (by `[[link]]`, `#tag`, `tags::` or `alias::`), whether or not
    /// a page exists for them, in order of first appearance.
    pub fn links(&self, slug: &str) -> Vec<&str> {
        self.tables
            .slugs
            .get(slug)
            .and_then(|p| self.lists.outgoing.get(&p))
            .map(|targets| targets.iter().map(CompactString::as_str).collect())
            .unwrap_or_default()
    }

    /// Blocks (and pages, through their properties) that link to the page, by source slug.
    pub fn backlinks(&self, slug: &str) -> Vec<Holder> {
        self.holders(self.lists.backlinks.get(slug))
    }

    /// Slugs of the pages that link to the page.
    pub fn linking_pages(&self, slug: &str) -> Vec<&str> {
        let mut pages: Vec<&str> = Vec::new();
        for &held in self.lists.backlinks.get(slug).into_iter().flatten() {
            let source = self.tables.slug_of(held);
            if pages.last() != Some(&source) {
                pages.push(source);
            }
        }
        pages
    }

    /// Every tag (slug) with the number of blocks and pages carrying it, most used first.
    pub fn tags(&self) -> Vec<(&str, usize)> {
        let mut tags: Vec<(&str, usize)> = self
            .lists
            .tags
            .iter()
            .map(|(tag, list)| (tag.as_str(), list.len()))
            .collect();
        tags.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        tags
    }

    /// Blocks and pages carrying the tag.
    pub fn tagged(&self, tag: &str) -> Vec<Holder> {
        self.holders(self.lists.tags.get(slug(tag).as_str()))
    }

    /// Task blocks with this marker, by page slug and document order.
    pub fn tasks(&self, marker: TaskMarker) -> Vec<Holder> {
        self.holders(self.lists.tasks.get(&marker))
    }

    /// Number of task blocks per marker.
    pub fn task_counts(&self) -> Vec<(TaskMarker, usize)> {
        self.lists
            .tasks
            .iter()
            .map(|(m, list)| (*m, list.len()))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Property keys (lowercased) in use, sorted.
    pub fn property_keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self
            .lists
            .properties
            .keys()
            .map(CompactString::as_str)
            .collect();
        keys.sort_unstable();
        keys
    }

    /// The values of a property key with how many blocks and pages have each, most used first.
    pub fn property_values(&self, key: &str) -> Vec<(&str, usize)> {
        let Some(values) = self.lists.properties.get(key.to_lowercase().as_str()) else {
            return Vec::new();
        };
        let mut out: Vec<(&str, usize)> = values
            .iter()
            .map(|(v, list)| (v.as_str(), list.len()))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        out
    }

    /// Blocks and pages with the property, with this exact value when one is given.
    pub fn with_property(&self, key: &str, value: Option<&str>) -> Vec<Holder> {
        let Some(values) = self.lists.properties.get(key.to_lowercase().as_str()) else {
            return Vec::new();
        };
        // Values compare as Logseq shows them: `[[Feature]]`, `#Feature` and `feature` match.
        let wanted = value.map(outline::shown_value);
        let mut all: Vec<Holder> = values
            .iter()
            .filter(|(stored, _)| {
                wanted
                    .as_ref()
                    .is_none_or(|wanted| outline::shown_value(stored) == *wanted)
            })
            .flat_map(|(_, list)| self.holders(Some(list)))
            .collect();
        all.sort();
        all.dedup();
        all
    }

    /// Blocks that embed or refer to the block `id` with `((id))`.
    pub fn block_refs(&self, id: &str) -> Vec<Holder> {
        self.holders(self.lists.block_refs.get(id))
    }

    /// Full-text search: the pages (journal days aside) whose name or an alias holds every
    /// term of `query` and every `"quoted phrase"` (see [`ParsedQuery::label_score`]), then
    /// the blocks holding them all, each list best first (BM25, a heading's doubled, then by
    /// page slug and block id); the `limit` hits from `offset` on, and how many there are.
    /// `page` gives the indexed page of a slug; block texts are read only for the hits
    /// returned, and for every candidate of a phrase query.
    pub fn search<'a>(
        &self,
        query: &str,
        offset: usize,
        limit: usize,
        page: impl Fn(&str) -> Option<&'a Page>,
    ) -> SearchPage {
        let analyzer = Analyzer::new(self.search.language);
        let parsed = ParsedQuery::new(query, &analyzer);
        let named = self.named_hits(&parsed, &analyzer, &page);
        let mut candidates = self.search.candidates(&parsed.terms);
        let mut texts = BlockTexts::new(&self.tables, page);
        if !parsed.phrases.is_empty() {
            // Candidates come by block number, a page's blocks mostly together.
            candidates.retain(|&(_, n)| {
                texts
                    .get(n)
                    .is_some_and(|(_, _, text)| parsed.phrases_match(&text))
            });
        }
        let total = named.len() + candidates.len();
        let end = offset.saturating_add(limit).min(total);
        let mut hits: Vec<SearchHit> = named.into_iter().take(end).skip(offset).collect();
        // The blocks' part of the slice, counted from the first block hit.
        let (offset, end) = (
            offset.saturating_sub(total - candidates.len()),
            end.saturating_sub(total - candidates.len()),
        );
        if offset >= end {
            return SearchPage { hits, total };
        }
        // Scores tie often (one term, blocks of one length): the names that break ties are
        // looked up once a candidate, not once a comparison.
        let mut ranked: Vec<(f64, (&str, &str), u32)> = candidates
            .into_iter()
            .map(|(score, n)| (score, self.tables.block_names(n).unwrap_or_default(), n))
            .collect();
        let best_first = |a: &(f64, (&str, &str), u32), b: &(f64, (&str, &str), u32)| {
            b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1))
        };
        if end < ranked.len() {
            ranked.select_nth_unstable_by(end - 1, best_first);
            ranked.truncate(end);
        }
        ranked.sort_unstable_by(best_first);
        hits.extend(ranked[offset..].iter().filter_map(|&(score, _, n)| {
            let (slug, id, text) = texts.get(n)?;
            Some(SearchHit {
                slug: slug.to_string(),
                block: Some(id.to_string()),
                score,
                snippet: snippet(&text, &parsed, &analyzer),
            })
        }));
        SearchPage { hits, total }
    }

    /// The pages a search finds by name or alias, best first: by how the best of their
    /// labels matched, then by how many pages link to them (the page a graph refers to is
    /// the one a search for its name most likely means), then by slug.
    fn named_hits<'a>(
        &self,
        parsed: &ParsedQuery<'_>,
        analyzer: &Analyzer,
        page: &impl Fn(&str) -> Option<&'a Page>,
    ) -> Vec<SearchHit> {
        let mut hits: Vec<SearchHit> = self
            .search
            .named(&parsed.terms)
            .into_iter()
            .filter_map(|p| {
                let slug = self.tables.slugs.name(p);
                let page = page(slug).filter(|page| page.date().is_none())?;
                let (score, label) = labels(page)
                    .filter_map(|label| Some((parsed.label_score(&label, analyzer)?, label)))
                    .max_by(|a, b| a.0.total_cmp(&b.0))?;
                let linking = self.linking_pages(slug).len() as f64;
                Some(SearchHit {
                    slug: slug.to_string(),
                    block: None,
                    score: score + linking.ln_1p(),
                    snippet: label.into_owned(),
                })
            })
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.slug.cmp(&b.slug))
        });
        hits
    }

    /// Pages whose name or an alias matches every word of `query`, each word exactly (by its
    /// stem, as search matches), as the start of a word of the name, or within a typo (two
    /// for a word of eight letters or more), best first: by how well the words matched, then
    /// by how few words of the best label they leave unmatched, then by how many pages link
    /// to the page, then by slug.
    pub fn pages_named<'a>(
        &self,
        query: &str,
        page: impl Fn(&str) -> Option<&'a Page>,
    ) -> Vec<&'a Page> {
        let analyzer = Analyzer::new(self.search.language);
        let words = NameWord::of_query(query, &analyzer);
        if words.is_empty() {
            return Vec::new();
        }
        // Per word, the pages it matches a name term of, with the best quality.
        let mut best: Vec<FxHashMap<u32, f64>> = vec![FxHashMap::default(); words.len()];
        for (term, pages) in &self.search.names {
            for (word, best) in words.iter().zip(&mut best) {
                if let Some(quality) = word.quality(term) {
                    for &p in pages {
                        let kept = best.entry(p).or_insert(quality);
                        *kept = kept.max(quality);
                    }
                }
            }
        }
        let Some((first_best, rest_best)) = best.split_first() else {
            return Vec::new();
        };
        let mut found: Vec<(f64, usize, usize, &'a Page)> = first_best
            .iter()
            .filter_map(|(&p, &quality)| {
                let mut sum = quality;
                for best in rest_best {
                    sum += best.get(&p)?;
                }
                let slug = self.tables.slugs.name(p);
                let page = page(slug)?;
                let unmatched = labels(page)
                    .map(|label| {
                        analyzer
                            .terms(&label)
                            .iter()
                            .filter(|term| !words.iter().any(|word| word.quality(term).is_some()))
                            .count()
                    })
                    .min()
                    .unwrap_or(0);
                Some((sum, unmatched, self.linking_pages(slug).len(), page))
            })
            .collect();
        found.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(a.1.cmp(&b.1))
                .then(b.2.cmp(&a.2))
                .then_with(|| a.3.slug.cmp(&b.3.slug))
        });
        found.into_iter().map(|(.., page)| page).collect()
    }
}

/// A word of a page-name query, and how it matches the terms of names.
struct NameWord {
    /// Its term, as search has it.
    term: String,
    /// As written, lowercased.
    written: String,
    gram: bool,
    /// Edits (a letter added, dropped, changed, or two swapped) a name term may be away.
    typos: usize,
}

impl NameWord {
    fn of_query(query: &str, analyzer: &Analyzer) -> Vec<NameWord> {
        let mut words: Vec<NameWord> = Vec::new();
        terms::spans(query, |span| {
            let written = lowercase(&query[span.start..span.end]).into_owned();
            let letters = written.chars().count();
            let word = NameWord {
                term: analyzer.term(query, span).into_owned(),
                typos: if span.gram {
                    0
                } else {
                    match letters {
                        0..=3 => 0,
                        4..=7 => 1,
                        _ => 2,
                    }
                },
                written,
                gram: span.gram,
            };
            if !words.iter().any(|w| w.term == word.term) {
                words.push(word);
            }
        });
        words
    }

    /// How well a name term matches: 1 the same term, 0.75 one it begins (a word being
    /// typed), 0.6 a typo away, 0.4 two; `None` when it does not.
    fn quality(&self, term: &str) -> Option<f64> {
        if matches_term(term, &self.term) {
            return Some(1.0);
        }
        if self.gram || is_gram(term) {
            return None;
        }
        if self.written.chars().count() >= 2
            && (term.starts_with(&self.term) || term.starts_with(&self.written))
        {
            return Some(0.75);
        }
        let letters = term.chars().count();
        let typos = [&self.term, &self.written]
            .into_iter()
            .filter(|word| word.chars().count().abs_diff(letters) <= self.typos)
            .map(|word| strsim::osa_distance(word, term))
            .min()?;
        match typos {
            1 if self.typos >= 1 => Some(0.6),
            2 if self.typos >= 2 => Some(0.4),
            _ => None,
        }
    }
}

/// Below this many pages, open indexes on one thread.
const PARALLEL_BUILD_MIN_PAGES: usize = 256;

// ---------------------------------------------------------------------------------------------
// Full-text search

const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;
/// A heading block's BM25 score is multiplied by this: a heading names what the blocks under
/// it are about, where a passing mention does not.
const HEADING_BOOST: f64 = 2.0;
/// Characters of context on each side of the first match in a snippet.
const SNIPPET_CONTEXT: usize = 40;

/// Blocks numbered from here on are left out of the search: the number must fit in a posting
/// beside the count, and so many blocks would take tens of gigabytes of memory first.
const SEARCHABLE_BLOCKS: u32 = 1 << (32 - TF_BITS);

/// An inverted index over block text (its terms, see [`terms`](super::terms)) → blocks,
/// scored BM25, and one over page names and aliases → pages.
#[derive(Debug, Default)]
struct Search {
    /// The language words are stemmed in.
    language: Language,
    /// Per term, its postings `block << TF_BITS | count` (the count capped at
    /// [`TF_PACKED_MAX`]), sorted by block number.
    postings: FxHashMap<CompactString, Postings>,
    /// By block number, the terms it holds more than [`TF_PACKED_MAX`] times, with their count.
    long_tf: FxHashMap<u32, Vec<(CompactString, u32)>>,
    /// By block number, its number of tokens.
    lens: Vec<u32>,
    /// By block number, a bit set for a heading (see [`is_heading`]).
    headings: Vec<u64>,
    total_len: u64,
    /// Blocks indexed.
    live: u64,
    /// Per term of a page's name or one of its aliases, the numbers of the pages with it, in
    /// increasing order.
    names: FxHashMap<CompactString, Vec<u32>>,
}

/// One page of search results, and how many there are in all.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage {
    pub hits: Vec<SearchHit>,
    pub total: usize,
}

/// One search result: a block, or a page whose name or alias matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    pub slug: String,
    /// `None` for a page found by its name or an alias.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// A block's BM25 score (doubled for a heading); for a page, how well its name matched
    /// (pages come before blocks whatever their scores).
    pub score: f64,
    /// For a block, its text around the first match, `…` where cut; for a page, the name or
    /// alias that matched.
    pub snippet: String,
}

/// Whether a block is a heading: a markdown heading (`## Plans`), or a block Logseq shows as
/// one through its `heading::` property.
fn is_heading(block: &Block) -> bool {
    let hashes = block.text.bytes().take_while(|&b| b == b'#').count();
    ((1..=6).contains(&hashes) && block.text[hashes..].starts_with(' '))
        || block.properties.iter().any(|(key, value)| {
            key.eq_ignore_ascii_case("heading") && !value.trim().eq_ignore_ascii_case("false")
        })
}

/// A page's name and its aliases, as written.
fn labels(page: &Page) -> impl Iterator<Item = Cow<'_, str>> {
    std::iter::once(Cow::Borrowed(page.name.as_str())).chain(
        outline::aliases(&page.properties)
            .into_iter()
            .map(Cow::Owned),
    )
}

/// The distinct terms of a page's name and aliases, sorted.
fn name_terms(page: &Page, analyzer: &Analyzer) -> Vec<String> {
    let mut terms: Vec<String> = labels(page)
        .flat_map(|label| analyzer.terms(&label))
        .collect();
    terms.sort_unstable();
    terms.dedup();
    terms
}

/// Whether `term` of a text is matched by the query term `wanted`: the same, or a gram that
/// holds the lone character `wanted` is.
fn matches_term(term: &str, wanted: &str) -> bool {
    term == wanted || lone_char(wanted).is_some_and(|c| is_gram(term) && term.contains(c))
}

/// The terms of `keys` a query term stands for: itself, and for a lone character every gram
/// holding it.
fn expand<'k>(
    keys: impl Iterator<Item = &'k CompactString>,
    wanted: &'k str,
) -> impl Iterator<Item = &'k str> {
    keys.map(CompactString::as_str)
        .filter(move |term| matches_term(term, wanted))
}

/// A query term's postings: its own list, or for a lone character the lists of every term
/// holding it, merged, their counts added (up to [`TF_PACKED_MAX`]).
enum TermList<'s> {
    One(&'s str, &'s Postings),
    Merged(Vec<u32>),
}

impl TermList<'_> {
    fn len(&self) -> usize {
        match self {
            TermList::One(_, list) => list.len(),
            TermList::Merged(list) => list.len(),
        }
    }

    fn cursor(&self) -> Cursor<'_> {
        match self {
            TermList::One(_, list) => list.cursor(),
            TermList::Merged(list) => Cursor::Inline(list),
        }
    }
}

impl Search {
    fn with_language(language: Language) -> Search {
        Search {
            language,
            ..Search::default()
        }
    }

    fn add(&mut self, n: u32, block: &Block, analyzer: &Analyzer) {
        if n >= SEARCHABLE_BLOCKS {
            return;
        }
        let mut len = 0;
        analyzer.for_each_term(&block.text, |term| {
            len += 1;
            let list = match self.postings.get_mut(term) {
                Some(list) => list,
                None => self.postings.entry(term.into()).or_default(),
            };
            if !list.count(n) {
                let terms = self.long_tf.entry(n).or_default();
                match terms.iter_mut().find(|(t, _)| t == term) {
                    Some((_, tf)) => *tf += 1,
                    None => terms.push((term.into(), TF_PACKED_MAX + 1)),
                }
            }
        });
        let at = n as usize;
        if self.lens.len() <= at {
            self.lens.resize(at + 1, 0);
        }
        self.lens[at] = len;
        self.set_heading(n, is_heading(block));
        self.total_len += u64::from(len);
        self.live += 1;
    }

    fn remove(&mut self, n: u32, block: &Block, analyzer: &Analyzer) {
        if n >= SEARCHABLE_BLOCKS {
            return;
        }
        analyzer.for_each_term(&block.text, |term| {
            if let Some(list) = self.postings.get_mut(term) {
                // A term's later tokens find its posting gone already.
                list.remove(n);
                if list.is_empty() {
                    self.postings.remove(term);
                }
            }
        });
        self.long_tf.remove(&n);
        if let Some(len) = self.lens.get_mut(n as usize) {
            self.total_len = self
                .total_len
                .saturating_sub(u64::from(std::mem::take(len)));
        }
        self.set_heading(n, false);
        self.live = self.live.saturating_sub(1);
    }

    fn set_heading(&mut self, n: u32, heading: bool) {
        let (word, bit) = (n as usize / 64, 1u64 << (n % 64));
        if heading {
            if self.headings.len() <= word {
                self.headings.resize(word + 1, 0);
            }
            self.headings[word] |= bit;
        } else if let Some(bits) = self.headings.get_mut(word) {
            *bits &= !bit;
        }
    }

    fn is_heading(&self, n: u32) -> bool {
        self.headings
            .get(n as usize / 64)
            .is_some_and(|bits| bits & (1 << (n % 64)) != 0)
    }

    /// The search of these pages, each numbered `p` with its blocks numbered in document
    /// order. Each posting list is allocated once, at its size, counted first (see
    /// [`Extent`]).
    fn of_pages<'p>(
        language: Language,
        pages: impl Iterator<Item = (u32, &'p [u32], &'p Page)> + Clone,
    ) -> Search {
        let analyzer = Analyzer::new(language);
        let mut extents: FxHashMap<CompactString, Extent> = FxHashMap::default();
        for (_, numbers, page) in pages.clone() {
            for (block, &n) in page.blocks().preorder().iter().zip(numbers) {
                if n >= SEARCHABLE_BLOCKS {
                    continue;
                }
                analyzer.for_each_term(&block.text, |term| match extents.get_mut(term) {
                    Some(extent) => extent.count(n),
                    None => extents.entry(term.into()).or_default().count(n),
                });
            }
        }
        let mut search = Search::with_language(language);
        search.postings.reserve(extents.len());
        for (term, extent) in extents {
            search.postings.insert(term, Postings::with_extent(&extent));
        }
        for (p, numbers, page) in pages {
            search.add_page(p, numbers, page);
        }
        search
    }

    /// Adds page `p`, its blocks numbered `numbers` in document order.
    fn add_page(&mut self, p: u32, numbers: &[u32], page: &Page) {
        let analyzer = Analyzer::new(self.language);
        for (block, &n) in page.blocks().preorder().iter().zip(numbers) {
            self.add(n, block, &analyzer);
        }
        self.add_names(p, &name_terms(page, &analyzer));
    }

    fn remove_page(&mut self, p: u32, numbers: &[u32], page: &Page) {
        let analyzer = Analyzer::new(self.language);
        for (block, &n) in page.blocks().preorder().iter().zip(numbers) {
            self.remove(n, block, &analyzer);
        }
        self.remove_names(p, &name_terms(page, &analyzer));
    }

    /// Puts `new`, numbered `new_numbers`, in place of `old`, numbered `old_numbers`, as page
    /// `p`: a block whose number, text and heading are the same in both is left as it is.
    fn replace_page(
        &mut self,
        p: u32,
        (old_numbers, old): (&[u32], &Page),
        (new_numbers, new): (&[u32], &Page),
    ) {
        let analyzer = Analyzer::new(self.language);
        let (old_blocks, new_blocks) = (old.blocks(), new.blocks());
        let (old_blocks, new_blocks) = (old_blocks.preorder(), new_blocks.preorder());
        let old_texts: FxHashMap<u32, (&str, bool)> = old_numbers
            .iter()
            .copied()
            .zip(
                old_blocks
                    .iter()
                    .map(|block| (block.text.as_str(), is_heading(block))),
            )
            .collect();
        let unchanged: FxHashSet<u32> = new_numbers
            .iter()
            .zip(&new_blocks)
            .filter(|&(n, block)| {
                old_texts.get(n) == Some(&(block.text.as_str(), is_heading(block)))
            })
            .map(|(&n, _)| n)
            .collect();
        for (block, &n) in old_blocks.iter().zip(old_numbers) {
            if !unchanged.contains(&n) {
                self.remove(n, block, &analyzer);
            }
        }
        for (block, &n) in new_blocks.iter().zip(new_numbers) {
            if !unchanged.contains(&n) {
                self.add(n, block, &analyzer);
            }
        }
        let (was, is) = (name_terms(old, &analyzer), name_terms(new, &analyzer));
        if was != is {
            self.remove_names(p, &was);
            self.add_names(p, &is);
        }
    }

    fn add_names(&mut self, p: u32, terms: &[String]) {
        for term in terms {
            let pages = keyed_list(&mut self.names, term);
            if let Err(at) = pages.binary_search(&p) {
                pages.insert(at, p);
            }
        }
    }

    fn remove_names(&mut self, p: u32, terms: &[String]) {
        for term in terms {
            if let Some(pages) = self.names.get_mut(term.as_str()) {
                pages.retain(|&q| q != p);
                if pages.is_empty() {
                    self.names.remove(term.as_str());
                }
            }
        }
    }

    fn shrink_to_fit(&mut self) {
        self.postings.values_mut().for_each(Postings::shrink_to_fit);
        self.postings.shrink_to_fit();
        self.long_tf.shrink_to_fit();
        self.lens.shrink_to_fit();
        self.headings.shrink_to_fit();
        self.names.values_mut().for_each(Vec::shrink_to_fit);
        self.names.shrink_to_fit();
    }

    /// How often block `n` holds `term`, from its posting.
    fn tf(&self, n: u32, term: &str, posting: u32) -> u32 {
        let packed = posting & TF_PACKED_MAX;
        if packed < TF_PACKED_MAX {
            return packed;
        }
        self.long_tf
            .get(&n)
            .and_then(|terms| terms.iter().find(|(t, _)| t == term))
            .map_or(packed, |&(_, tf)| tf)
    }

    /// The postings of a query term, `None` when no block holds it.
    fn term_list<'s>(&'s self, term: &'s str) -> Option<TermList<'s>> {
        if lone_char(term).is_none() {
            return self
                .postings
                .get_key_value(term)
                .map(|(term, list)| TermList::One(term, list));
        }
        let mut merged: Vec<u32> = expand(self.postings.keys(), term)
            .flat_map(|gram| self.postings[gram].cursor())
            .collect();
        merged.sort_unstable();
        merged.dedup_by(|later, kept| {
            let same = posting_block(*later) == posting_block(*kept);
            if same {
                let tf = (*kept & TF_PACKED_MAX) + (*later & TF_PACKED_MAX);
                *kept = (*kept & !TF_PACKED_MAX) | tf.min(TF_PACKED_MAX);
            }
            same
        });
        (!merged.is_empty()).then_some(TermList::Merged(merged))
    }

    /// Blocks holding every term, with their BM25 score (see [`HEADING_BOOST`]), by block
    /// number.
    fn candidates(&self, terms: &[String]) -> Vec<(f64, u32)> {
        if terms.is_empty() {
            return Vec::new();
        }
        let mut lists: Vec<TermList> = Vec::with_capacity(terms.len());
        for term in terms {
            match self.term_list(term) {
                Some(list) => lists.push(list),
                None => return Vec::new(),
            }
        }
        lists.sort_by_key(TermList::len);
        let n_docs = self.live.max(1) as f64;
        let avg_len = (self.total_len as f64 / n_docs).max(1.0);
        let idf: Vec<f64> = lists
            .iter()
            .map(|list| {
                let df = list.len() as f64;
                (1.0 + (n_docs - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        let tf = |list: &TermList, n: u32, posting: u32| match list {
            TermList::One(term, _) => self.tf(n, term, posting),
            TermList::Merged(_) => posting & TF_PACKED_MAX,
        };
        // Blocks come in increasing number: each other list is searched from where the
        // previous block was found.
        let mut others: Vec<(&TermList, Cursor)> = lists[1..]
            .iter()
            .map(|list| (list, list.cursor()))
            .collect();
        let mut tfs = Vec::with_capacity(lists.len());
        let mut candidates = Vec::new();
        'blocks: for posting in lists[0].cursor() {
            let n = posting_block(posting);
            tfs.clear();
            tfs.push(tf(&lists[0], n, posting));
            for (list, cursor) in &mut others {
                match cursor.seek(n) {
                    Some(p) if posting_block(p) == n => tfs.push(tf(list, n, p)),
                    _ => continue 'blocks,
                }
            }
            let len = self.lens.get(n as usize).copied().unwrap_or(0);
            let norm = 1.0 - BM25_B + BM25_B * f64::from(len) / avg_len;
            let score: f64 = tfs
                .iter()
                .zip(&idf)
                .map(|(&tf, idf)| {
                    let tf = f64::from(tf);
                    idf * tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * norm)
                })
                .sum();
            let boost = if self.is_heading(n) {
                HEADING_BOOST
            } else {
                1.0
            };
            candidates.push((score * boost, n));
        }
        candidates
    }

    /// Pages whose names and aliases hold every term between them, by number.
    fn named(&self, terms: &[String]) -> Vec<u32> {
        let mut found: Option<Vec<u32>> = None;
        for term in terms {
            let mut pages: Vec<u32> = expand(self.names.keys(), term)
                .flat_map(|name_term| self.names[name_term].iter().copied())
                .collect();
            if lone_char(term).is_some() {
                pages.sort_unstable();
                pages.dedup();
            }
            found = Some(match found {
                None => pages,
                Some(mut so_far) => {
                    so_far.retain(|p| pages.binary_search(p).is_ok());
                    so_far
                }
            });
        }
        found.unwrap_or_default()
    }
}

/// Reads blocks' texts by block number, each block alone (see [`BlockReader`]).
struct BlockTexts<'i, 'a, F> {
    tables: &'i Tables,
    /// The page of a slug.
    page: F,
    /// The page of the block last read, its position there, and the page's reader: a
    /// phrase's candidates come by block number, a page's mostly in document order.
    last: Option<(u32, usize, BlockReader<'a>)>,
}

impl<'i, 'a, F: Fn(&str) -> Option<&'a Page>> BlockTexts<'i, 'a, F> {
    fn new(tables: &'i Tables, page: F) -> Self {
        BlockTexts {
            tables,
            page,
            last: None,
        }
    }

    /// Page slug, block id and text of block `n`.
    fn get(&mut self, n: u32) -> Option<(&'i str, &'i str, String)> {
        let p = self.tables.page_of_block(n)?;
        let slug = self.tables.slugs.name(p);
        let numbers = self.tables.blocks_of(p);
        let from = match &self.last {
            Some((last_page, at, _)) if *last_page == p => (*at).min(numbers.len()),
            _ => 0,
        };
        // On one page, blocks mostly come in document order: look on from the last.
        let (before, after) = numbers.split_at(from);
        let at = match after.iter().position(|&m| m == n) {
            Some(i) => from + i,
            None => before.iter().position(|&m| m == n)?,
        };
        let (_, last_at, reader) = match &mut self.last {
            Some(last) if last.0 == p => last,
            last => last.insert((p, at, BlockReader::new(&(self.page)(slug)?.body))),
        };
        *last_at = at;
        let block = reader.block_at(at)?;
        let id = self.tables.ids.name(n);
        // A page changed behind the index is not read.
        (block.id == id).then_some((slug, id, block.text))
    }
}

struct ParsedQuery<'q> {
    /// Every distinct term, phrases' included.
    terms: Vec<String>,
    /// Token sequences that must appear one after the other, as written: each `"quoted
    /// phrase"` (a quoted word too), and each run of Han, kana or Hangul longer than two
    /// characters (its grams).
    phrases: Vec<Vec<Surface<'q>>>,
    /// Every token as written, lowercased.
    words: Vec<Surface<'q>>,
}

impl<'q> ParsedQuery<'q> {
    fn new(query: &'q str, analyzer: &Analyzer) -> ParsedQuery<'q> {
        let mut parsed = ParsedQuery {
            terms: Vec::new(),
            phrases: Vec::new(),
            words: Vec::new(),
        };
        for (i, part) in query.split('"').enumerate() {
            let mut spans: Vec<Span> = Vec::new();
            terms::spans(part, |span| spans.push(span));
            let surfaces: Vec<Surface<'q>> = spans
                .iter()
                .map(|span| Surface {
                    text: lowercase(&part[span.start..span.end]),
                    joined: span.joined,
                })
                .collect();
            // Odd parts sit between quotes (an unclosed quote runs to the end).
            if i % 2 == 1 {
                if !surfaces.is_empty() {
                    parsed.phrases.push(surfaces.clone());
                }
            } else {
                parsed.phrases.extend(
                    surfaces
                        .chunk_by(|_, next| next.joined)
                        .filter(|run| run.len() > 1)
                        .map(<[Surface]>::to_vec),
                );
            }
            for &span in &spans {
                let term = analyzer.term(part, span);
                if !parsed.terms.iter().any(|t| *t == term) {
                    parsed.terms.push(term.into_owned());
                }
            }
            parsed.words.extend(surfaces);
        }
        parsed
    }

    fn phrases_match(&self, text: &str) -> bool {
        if self.phrases.is_empty() {
            return true;
        }
        let tokens = surfaces(text);
        self.phrases
            .iter()
            .all(|phrase| holds_phrase(&tokens, phrase))
    }

    /// Whether a term of a text is one of the query's.
    fn holds(&self, term: &str) -> bool {
        self.terms.iter().any(|wanted| matches_term(term, wanted))
    }

    /// How a page name or alias matches: `None` when it lacks a term or a phrase; else its
    /// score, 200 when the label (or its last namespace part) is the query's words and
    /// nothing more, 100 when it holds more, half a point more when every word is in it as
    /// written.
    fn label_score(&self, label: &str, analyzer: &Analyzer) -> Option<f64> {
        let terms = analyzer.terms(label);
        if !self
            .terms
            .iter()
            .all(|wanted| terms.iter().any(|term| matches_term(term, wanted)))
            || !self.phrases_match(label)
        {
            return None;
        }
        let leaf = label.rsplit('/').next().unwrap_or(label);
        let whole = terms.iter().all(|term| self.holds(term))
            || analyzer.terms(leaf).iter().all(|term| self.holds(term));
        let written = surfaces(label);
        let as_written = self
            .words
            .iter()
            .all(|word| written.iter().any(|w| w.text == word.text));
        let tier = if whole { 200.0 } else { 100.0 };
        Some(tier + if as_written { 0.5 } else { 0.0 })
    }
}

/// The text around the first token of `text` matching a query term, `…` where cut.
fn snippet(text: &str, parsed: &ParsedQuery<'_>, analyzer: &Analyzer) -> String {
    let mut first = None;
    terms::spans(text, |span| {
        if first.is_none() && parsed.holds(&analyzer.term(text, span)) {
            first = Some((span.start, span.end));
        }
    });
    let first = first.unwrap_or((0, 0));
    let start = text[..first.0]
        .char_indices()
        .rev()
        .nth(SNIPPET_CONTEXT - 1)
        .map_or(0, |(i, _)| i);
    let end = text[first.1..]
        .char_indices()
        .nth(SNIPPET_CONTEXT)
        .map_or(text.len(), |(i, _)| first.1 + i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(text[start..end].trim());
    if end < text.len() {
        out.push('…');
    }
    out.replace('\n', " ")
}

// ---------------------------------------------------------------------------------------------
// Saved in the cache

persist_fields!(Index {
    tables,
    lists,
    search
});

impl Persist for Numbering {
    /// The strings by number, the free numbers, and the numbers the lookup finds (which, of
    /// numbers with one string, is the newest).
    fn put(&self, out: &mut Encoder) {
        self.names.put(out);
        self.free.put(out);
        put_all(self.lookup.iter(), out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        let names: Vec<CompactString> = Vec::take(input)?;
        let free = Vec::take(input)?;
        let found: Vec<u32> = Vec::take(input)?;
        let name_of = |n: u32| names.get(n as usize).map_or("", CompactString::as_str);
        let mut lookup = HashTable::with_capacity(found.len());
        for n in found {
            if n as usize >= names.len() {
                return Err(Corrupt);
            }
            lookup.insert_unique(hash_of(name_of(n)), n, |&m| hash_of(name_of(m)));
        }
        Ok(Numbering {
            names,
            lookup,
            free,
        })
    }
}

persist_fields!(Tables {
    slugs,
    page_blocks,
    ids,
    block_pages
});

impl Persist for Held {
    fn put(&self, out: &mut Encoder) {
        self.0.put(out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        u32::take(input).map(Held)
    }
}

persist_fields!(Lists {
    outgoing,
    backlinks,
    tags,
    tasks,
    properties,
    block_refs
});

persist_fields!(Search {
    language,
    postings,
    long_tf,
    lens,
    headings,
    total_len,
    live,
    names
});

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::workspace::format;
    use crate::workspace::model::PageKind;

    /// A page from markdown, its blocks' ids `<prefix>0`, `<prefix>1`, … in document order.
    fn page(name: &str, md: &str, id_prefix: &str) -> Page {
        let format::Parsed {
            properties,
            mut blocks,
            ..
        } = format::parse_as(crate::outline::Syntax::Markdown, md);
        let mut next = 0;
        fn give_ids(blocks: &mut [Block], prefix: &str, next: &mut usize) {
            for block in blocks {
                block.id = format!("{prefix}{next}").into();
                *next += 1;
                give_ids(&mut block.children, prefix, next);
            }
        }
        give_ids(&mut blocks, id_prefix, &mut next);
        Page {
            slug: slug(name),
            name: name.to_string(),
            kind: PageKind::Page,
            file: format!("pages/{name}.md"),
            front_matter: None,
            properties,
            body: blocks.into(),
            ref_uuids: Default::default(),
            updated: 0,
            hash: String::new(),
        }
    }

    /// Everything the index answers, by page slug and block id (not by number), in the
    /// order it answers it.
    fn observable(index: &Index) -> String {
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
    fn sample_pages() -> Vec<Page> {
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

    fn page_in<'a>(pages: &'a [Page]) -> impl Fn(&str) -> Option<&'a Page> {
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
    fn a_saved_index_reads_back_the_same_and_goes_on_updating_alike() {
        let mut pages = sample_pages();
        let mut index = Index::default();
        for page in &pages {
            index.update(None, Some(page), &GraphConfig::default());
        }
        // Free numbers, and an id taken over by another page, are saved too.
        index.update(Some(&pages[7]), None, &GraphConfig::default());
        pages.remove(7);
        let mut taker = pages[2].clone();
        taker.blocks_mut().push(pages[3].blocks()[0].clone());
        index.update(Some(&pages[2]), Some(&taker), &GraphConfig::default());
        pages[2] = taker;

        let mut restored = crate::workspace::cache::round_trip(&index).expect("decodes");
        let same = |a: &Index, b: &Index, pages: &[Page]| {
            assert_eq!(observable(a), observable(b));
            assert_eq!(a.block_count(), b.block_count());
            for query in [
                "budget",
                "\"shared words\"",
                "same text",
                "σοφος",
                "page",
                "求域",
            ] {
                let by_slug = page_in(pages);
                assert_eq!(
                    a.search(query, 0, usize::MAX, &by_slug),
                    b.search(query, 0, usize::MAX, &by_slug),
                    "{query}"
                );
            }
        };
        same(&index, &restored, &pages);
        let added = page("Omega", "- same text in every page #topic1\n", "o");
        let edited = page("Page 30", "- budget budget [[Omega]]\n", "p30y");
        for one in [&mut index, &mut restored] {
            one.update(None, Some(&added), &GraphConfig::default());
            one.update(Some(&pages[29]), Some(&edited), &GraphConfig::default());
            one.update(Some(&pages[0]), None, &GraphConfig::default());
        }
        pages.push(added);
        pages[29] = edited;
        pages.remove(0);
        same(&index, &restored, &pages);
    }

    #[test]
    fn an_edit_keeps_the_numbers_of_the_blocks_it_keeps() {
        let mut pages = sample_pages();
        let all: Vec<&Page> = pages.iter().collect();
        let mut index = Index::build(&all, &GraphConfig::default());
        let p = index
            .tables
            .slugs
            .get(&pages[12].slug)
            .expect("a numbered page");
        let numbers = index.tables.blocks_of(p).to_vec();
        let mut edited = pages[12].clone();
        edited.blocks_mut().last_mut().expect("a block").text = "changed in place #topic9".into();
        index.update(Some(&pages[12]), Some(&edited), &GraphConfig::default());
        assert_eq!(index.tables.blocks_of(p), numbers);
        pages[12] = edited;
        let all: Vec<&Page> = pages.iter().collect();
        let built = Index::build(&all, &GraphConfig::default());
        assert_eq!(observable(&index), observable(&built));
        let pages_by_slug = page_in(&pages);
        for query in ["changed", "same text", "budget"] {
            assert_eq!(
                index.search(query, 0, usize::MAX, &pages_by_slug),
                built.search(query, 0, usize::MAX, &pages_by_slug),
                "{query}"
            );
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

    #[test]
    fn a_page_of_hits_is_that_slice_of_all_hits_in_full_order() {
        let pages = sample_pages();
        let all: Vec<&Page> = pages.iter().collect();
        let index = Index::build(&all, &GraphConfig::default());
        let pages_by_slug = page_in(&pages);
        for query in [
            "same text",
            "budget",
            "words",
            "\"shared words\"",
            "call topic1",
        ] {
            let every = index.search(query, 0, usize::MAX, &pages_by_slug);
            assert_eq!(every.total, every.hits.len());
            assert!(every.total > 0, "{query}");
            let mut sorted = every.hits.clone();
            sorted.sort_by(|a, b| {
                b.score
                    .total_cmp(&a.score)
                    .then_with(|| a.slug.cmp(&b.slug))
                    .then_with(|| a.block.cmp(&b.block))
            });
            assert_eq!(sorted, every.hits, "{query}");
            for offset in [0, 1, 5, every.total - 1, every.total, every.total + 3] {
                for limit in [1, 2, 7, 50] {
                    let page = index.search(query, offset, limit, &pages_by_slug);
                    let from = offset.min(every.total);
                    let to = offset.saturating_add(limit).min(every.total);
                    assert_eq!(page.hits, every.hits[from..to], "{query} {offset} {limit}");
                    assert_eq!(page.total, every.total);
                }
            }
        }
        // Ties (the same text on every page) go by slug, then id.
        let ties = index.search("same text", 0, 3, &pages_by_slug);
        let slugs: Vec<&str> = ties.hits.iter().map(|h| h.slug.as_str()).collect();
        assert_eq!(slugs, ["page 0", "page 1", "page 10"]);
    }

    #[test]
    fn counts_above_the_packed_maximum_are_kept_exactly() {
        let md = format!(
            "- {}\n- {}\n- {}\n",
            "word ".repeat(15),
            "word ".repeat(16),
            "Word ".repeat(40)
        );
        let pages = [page("Counts", &md, "c")];
        let mut index = Index::default();
        index.update(None, Some(&pages[0]), &GraphConfig::default());
        let search = &index.search;
        let list: Vec<u32> = search.postings["word"].cursor().collect();
        let counts: Vec<u32> = list
            .iter()
            .map(|&p| search.tf(posting_block(p), "word", p))
            .collect();
        assert_eq!(counts, [15, 16, 40]);
        // BM25 grows with the count: 40 beats 16 beats 15 though the blocks are longer.
        let hits = index.search("word", 0, 3, page_in(&pages));
        let ids: Vec<&str> = hits
            .hits
            .iter()
            .filter_map(|h| h.block.as_deref())
            .collect();
        assert_eq!(ids, ["c2", "c1", "c0"]);
        index.update(Some(&pages[0]), None, &GraphConfig::default());
        assert!(index.search.long_tf.is_empty());
    }

    #[test]
    fn a_block_id_on_two_pages_is_found_on_the_newer_until_that_one_goes() {
        let older = page("Older", "- text\n", "same");
        let newer = page("Newer", "- text\n", "same");
        let mut index = Index::default();
        index.update(None, Some(&older), &GraphConfig::default());
        index.update(None, Some(&newer), &GraphConfig::default());
        assert_eq!(index.page_of_block("same0"), Some("newer"));
        assert_eq!(index.block_count(), 1);
        index.update(Some(&older), None, &GraphConfig::default());
        assert_eq!(index.page_of_block("same0"), Some("newer"));
        index.update(Some(&newer), None, &GraphConfig::default());
        assert_eq!(index.page_of_block("same0"), None);
        assert_eq!(index.block_count(), 0);
    }

    #[test]
    fn a_query_has_the_terms_the_index_gives_its_text() {
        let text = "Naïve ΣΟΦΟΣ, CAFÉ-au-lait x2 ǅemal Queries 跨域请求";
        let analyzer = Analyzer::new(Language::ENGLISH);
        let parsed = ParsedQuery::new(text, &analyzer);
        assert_eq!(parsed.terms, analyzer.terms(text));
        assert_eq!(
            parsed.terms,
            [
                "naïv",
                "σοφος",
                "café",
                "au",
                "lait",
                "x2",
                "ǅemal",
                "queri",
                "跨域",
                "域请",
                "请求"
            ]
        );
    }

    /// The pages, and the (page, block) of each hit of `query`.
    fn hits_of(pages: &[Page], query: &str) -> Vec<(String, Option<String>)> {
        let all: Vec<&Page> = pages.iter().collect();
        Index::build(&all, &GraphConfig::default())
            .search(query, 0, usize::MAX, page_in(pages))
            .hits
            .into_iter()
            .map(|hit| (hit.slug, hit.block))
            .collect()
    }

    fn block_hit(slug: &str, id: &str) -> (String, Option<String>) {
        (slug.to_string(), Some(id.to_string()))
    }

    #[test]
    fn words_match_by_stem_and_quoted_words_as_written() {
        let pages = [
            page(
                "Notes",
                "- Several queries were slow\n- One query was fast\n",
                "n",
            ),
            page("Other", "- Querying is a verb\n", "o"),
        ];
        let mut found = hits_of(&pages, "query");
        found.sort();
        assert_eq!(
            found,
            [
                block_hit("notes", "n0"),
                block_hit("notes", "n1"),
                block_hit("other", "o0")
            ]
        );
        assert_eq!(hits_of(&pages, "\"queries\""), [block_hit("notes", "n0")]);
        assert_eq!(
            hits_of(&pages, "\"queries were\""),
            [block_hit("notes", "n0")]
        );
        assert!(hits_of(&pages, "\"query were\"").is_empty());
    }

    #[test]
    fn han_kana_and_hangul_are_found_by_any_two_characters() {
        let pages = [page(
            "CJK",
            "- 我们讨论了跨域请求的问题\n- 跨域 请求\n- 東京に行きました\n- データベースの設計\n- 학교에서 공부했다\n",
            "c",
        )];
        let found = |query: &str| {
            let mut ids: Vec<String> = hits_of(&pages, query)
                .into_iter()
                .filter_map(|(_, id)| id)
                .collect();
            ids.sort();
            ids
        };
        for query in ["域请", "跨域请求", "讨论了跨域", "的问"] {
            assert_eq!(found(query), ["c0"], "{query}");
        }
        assert_eq!(found("跨域"), ["c0", "c1"]);
        assert!(found("请求跨域").is_empty());
        assert_eq!(found("京に"), ["c2"]);
        assert_eq!(found("ベース"), ["c3"]);
        assert_eq!(found("학교"), ["c4"]);
        assert_eq!(found("교에서"), ["c4"]);
        // One character alone is found wherever it is.
        let mut one = hits_of(&pages, "域");
        one.sort();
        assert_eq!(one, [block_hit("cjk", "c0"), block_hit("cjk", "c1")]);
    }

    #[test]
    fn a_page_named_by_the_query_comes_first_then_headings() {
        let pages = [
            page("Queries", "- Ask your graph questions\n", "q"),
            page("Query", "- A command\n", "c"),
            page("Advanced Queries", "- More\n", "a"),
            page(
                "Changelog",
                "- Fixed a bug where long queries of many words and more words were slow\n- ## Queries\n- links [[Queries]]\n",
                "l",
            ),
            page(
                "Journal",
                "- see [[Queries]] and [[Advanced Queries]]\n",
                "j",
            ),
        ];
        let found = hits_of(&pages, "queries");
        let page_hit = |slug: &str| (slug.to_string(), None);
        assert_eq!(
            found[..3],
            [
                page_hit("queries"),
                page_hit("query"),
                page_hit("advanced queries")
            ]
        );
        // The heading above the passing mention, though the mention comes first.
        let blocks: Vec<_> = found[3..]
            .iter()
            .map(|(_, id)| id.as_deref().unwrap())
            .collect();
        assert_eq!((blocks[0], blocks[3]), ("l1", "l0"), "{blocks:?}");
        // The page more pages link to comes first of two that both are the query's word.
        assert_eq!(hits_of(&pages, "query")[0], page_hit("queries"));
        let all: Vec<&Page> = pages.iter().collect();
        let index = Index::build(&all, &GraphConfig::default());
        let hit = &index.search("advanced", 0, 1, page_in(&pages)).hits[0];
        assert_eq!(hit.snippet, "Advanced Queries");
    }

    #[test]
    fn page_names_are_found_by_words_prefixes_and_typos() {
        let pages = [
            page("Queries", "- x\n", "q"),
            page("Advanced Queries", "- x\n", "a"),
            page("Kubernetes", "alias:: k8s cluster\n\n- x\n", "k"),
            page("projects/Apollo", "- x\n", "p"),
            page("跨域请求", "- x\n", "c"),
            page("Notes", "- [[Advanced Queries]]\n", "n"),
        ];
        let all: Vec<&Page> = pages.iter().collect();
        let index = Index::build(&all, &GraphConfig::default());
        let named = |query: &str| -> Vec<String> {
            index
                .pages_named(query, page_in(&pages))
                .into_iter()
                .map(|page| page.slug.clone())
                .collect()
        };
        assert_eq!(named("query"), ["queries", "advanced queries"]);
        assert_eq!(named("qeuries"), ["queries", "advanced queries"]);
        assert_eq!(named("advnced queries"), ["advanced queries"]);
        assert_eq!(named("kubernetse"), ["kubernetes"]);
        assert_eq!(named("cluster"), ["kubernetes"]);
        assert_eq!(named("apol"), ["projects/apollo"]);
        assert_eq!(named("跨域"), ["跨域请求"]);
        assert!(named("apple").is_empty());
        assert_eq!(named("kub"), ["kubernetes"]);
    }
}
