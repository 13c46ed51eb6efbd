//! The in-memory state of a workspace that reads see: pages by slug, what is frozen, the files
//! that serve no page (shadowed or skipped), and the index, whose block table is also the map
//! from block id to page.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::block::{Block, BlockList, user_id};
use super::cache::{EncodedCache, Saved};
use super::codec::{Corrupt, Persist, put_all};
use super::config::GraphConfig;
use super::frozen::Frozen;
use super::ids::{self, IdMinter};
use super::index::{Index, IndexHit, SearchPage};
use super::model::{Page, PageKind};
use super::names::{self, slug};
use super::packed::BlocksRead;
use super::stamp::Stamp;
use outl_format as outline;

/// A file whose page name is already served by another file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shadowed {
    pub file: String,
    pub slug: String,
    /// The file that serves the slug.
    pub served_by: String,
}

/// A file under `pages/` or `journals/` that is not served, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub file: String,
    pub reason: String,
}

/// A block found by id, in its page's blocks.
pub struct BlockAt<'a> {
    pub page: &'a Page,
    blocks: BlocksRead<'a>,
    /// Child indexes from the page's top level down to the block.
    pub path: Vec<usize>,
}

impl BlockAt<'_> {
    pub fn block(&self) -> &Block {
        self.blocks
            .at(&self.path)
            .expect("the path was found in these blocks")
    }
}

/// Everything a read needs, consistent at one instant.
#[derive(Debug, Default)]
pub struct Graph {
    pages: BTreeMap<String, Page>,
    /// Page file → slug.
    files: FxHashMap<String, String>,
    /// Page slug → its file as last verified; absent when it must be hashed to be trusted.
    pub(super) stamps: FxHashMap<String, Stamp>,
    frozen: BTreeMap<String, Frozen>,
    pub(super) shadowed: Vec<Shadowed>,
    pub(super) skipped: Vec<Skipped>,
    index: Index,
    /// The graph's settings, which decide what a link names.
    config: Arc<GraphConfig>,
}

impl Graph {
    /// An empty graph with these settings.
    pub(super) fn with_config(config: Arc<GraphConfig>) -> Graph {
        Graph {
            config,
            ..Graph::default()
        }
    }

    /// The settings the graph was read with.
    pub fn config(&self) -> &GraphConfig {
        &self.config
    }

    /// The page with this slug.
    pub fn page(&self, slug: &str) -> Option<&Page> {
        self.pages.get(slug)
    }

    /// The page named or slugged `name_or_slug` (case-insensitive; a journal day also by its
    /// title, `Feb 26th, 2021` in the graph's format, or its file name), else the page taking
    /// it as an `alias::` name: as in Logseq, a page of that name wins over another page's
    /// alias.
    pub fn resolve(&self, name_or_slug: &str) -> Option<&Page> {
        self.named(name_or_slug)
            .or_else(|| self.aliased(name_or_slug))
    }

    /// The page named or slugged `name_or_slug`, aliases aside.
    pub fn named(&self, name_or_slug: &str) -> Option<&Page> {
        let wanted = slug(name_or_slug);
        self.pages.get(&wanted).or_else(|| {
            let date = self.config.journal_day_of_stem(name_or_slug.trim())?;
            self.pages.get(&names::journal_slug(date))
        })
    }

    /// The page whose `alias::` property names `name` (the first by slug when several do).
    pub fn aliased(&self, name: &str) -> Option<&Page> {
        let wanted = slug(name);
        // The index lists the pages with the property, so only those are read.
        self.index
            .with_property(outline::ALIAS, None)
            .into_iter()
            .filter(|holder| holder.block.is_none())
            .filter_map(|holder| self.pages.get(&holder.slug))
            .find(|page| {
                outline::aliases(&page.properties)
                    .iter()
                    .any(|alias| slug(alias) == wanted)
            })
    }

    /// Every page, ordered by slug.
    pub fn pages(&self) -> impl Iterator<Item = &Page> {
        self.pages.values()
    }

    /// Journal pages, newest day first.
    pub fn journals(&self) -> impl Iterator<Item = &Page> {
        // ISO dates sort as text; journal slugs are ISO dates.
        self.pages
            .values()
            .rev()
            .filter(|p| matches!(p.kind, PageKind::Journal { .. }))
    }

    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    pub fn block_count(&self) -> usize {
        self.index.block_count()
    }

    /// The block with this id and its page.
    pub fn block(&self, id: &str) -> Option<BlockAt<'_>> {
        let id = &ids::served_id(id);
        let page = self.pages.get(self.index.page_of_block(id)?)?;
        let blocks = page.blocks();
        let (path, _) = blocks.find(id)?;
        Some(BlockAt { page, blocks, path })
    }

    /// The block with this id, without its children, read without unpacking its page.
    pub fn block_alone(&self, id: &str) -> Option<Block> {
        let id = &ids::served_id(id);
        let (slug, position) = self.index.place_of_block(id)?;
        let block = self.pages.get(slug)?.body.block_at(position)?;
        (block.id == id).then_some(block)
    }

    /// Slug of the page holding the block.
    pub fn page_of_block(&self, id: &str) -> Option<&str> {
        self.index.page_of_block(&ids::served_id(id))
    }

    /// Pages edited outside outl and not reconciled yet.
    pub fn frozen(&self) -> impl Iterator<Item = &Frozen> {
        self.frozen.values()
    }

    /// Why writes to this page are refused, if they are.
    pub fn frozen_page(&self, slug: &str) -> Option<&Frozen> {
        self.frozen.get(slug)
    }

    /// Files that map to a slug another file already serves.
    pub fn shadowed(&self) -> &[Shadowed] {
        &self.shadowed
    }

    /// Files under `pages/` and `journals/` that are not served, with the reason.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Full-text search over block text: every hit, best first (see [`Index::search`]).
    pub fn search(&self, query: &str) -> Vec<IndexHit> {
        self.search_page(query, 0, usize::MAX).hits
    }

    /// The `limit` best hits of a full-text search from `offset` on, and how many there are.
    pub fn search_page(&self, query: &str, offset: usize, limit: usize) -> SearchPage {
        self.index
            .search(query, offset, limit, |slug| self.pages.get(slug))
    }

    /// Pages whose name or an alias matches `query`, best first (see [`Index::pages_named`]).
    pub fn pages_named(&self, query: &str) -> Vec<&Page> {
        self.index.pages_named(query, |slug| self.pages.get(slug))
    }

    pub(super) fn slug_of_file(&self, file: &str) -> Option<&str> {
        self.files.get(file).map(String::as_str)
    }

    pub(super) fn id_taken(&self, id: &str) -> bool {
        self.index.page_of_block(id).is_some()
    }

    /// Adds a page whose slug is free. Its ids must be filled and free.
    pub(super) fn insert(&mut self, mut page: Page, stamp: Option<Stamp>, frozen: Option<Frozen>) {
        self.index.update(None, Some(&page), &self.config);
        page.body.pack();
        self.keep(page, stamp, frozen);
    }

    /// Puts `page` in place of the page with its slug, which has its file: an edit, indexed
    /// for what it changed.
    pub(super) fn replace(&mut self, mut page: Page) {
        let mut old = self.pages.remove(&page.slug);
        if let Some(old) = &mut old {
            old.body.open();
        }
        self.index.update(old.as_ref(), Some(&page), &self.config);
        page.body.pack();
        self.keep(page, None, None);
    }

    /// Fills the ids of a page read from disk whose slug is free, as [`fill_ids`](Self::fill_ids)
    /// does with no page replaced and derived ids, and numbers the page and its blocks in the
    /// index, leaving what they contribute to [`build_index`](Self::build_index); then
    /// [`insert_numbered`](Self::insert_numbered) adds it. Returns whether any id changed.
    ///
    /// Almost every page at open keeps the ids it has: those are checked and numbered with one
    /// probe of the block table each.
    pub(super) fn fill_ids_and_number(&mut self, page: &mut Page) -> bool {
        if all_blocks(&page.blocks(), &|block| {
            !block.id.is_empty() && user_id(block).is_none_or(|user| *user == *block.id)
        }) && self.index.register_new(page)
        {
            return false;
        }
        let changed = self.fill_ids(page, &HashSet::new(), &mut HashSet::new(), Minting::Derived);
        self.index.register(page);
        changed
    }

    /// [`insert`](Self::insert) of a page [`fill_ids_and_number`](Self::fill_ids_and_number)
    /// numbered, left open for [`build_index`](Self::build_index).
    pub(super) fn insert_numbered(
        &mut self,
        page: Page,
        stamp: Option<Stamp>,
        frozen: Option<Frozen>,
    ) {
        self.keep(page, stamp, frozen);
    }

    /// Room for `pages` more pages holding `blocks` more blocks without growing the maps that
    /// find them.
    pub(super) fn reserve(&mut self, pages: usize, blocks: usize) {
        self.files.reserve(pages);
        self.stamps.reserve(pages);
        self.index.reserve(pages, blocks);
    }

    fn keep(&mut self, page: Page, stamp: Option<Stamp>, frozen: Option<Frozen>) {
        self.files.insert(page.file.clone(), page.slug.clone());
        match stamp {
            Some(stamp) => self.stamps.insert(page.slug.clone(), stamp),
            None => self.stamps.remove(&page.slug),
        };
        match frozen {
            Some(frozen) => self.frozen.insert(page.slug.clone(), frozen),
            None => self.frozen.remove(&page.slug),
        };
        self.pages.insert(page.slug.clone(), page);
    }

    /// The cache of this graph at op-log seq `seq` (see [`cache`](super::cache)): every page
    /// with its stamp, then the index. A frozen page goes without its stamp and is listed, so
    /// that [`restore`](Self::restore) leaves it out and the refresh after it reads the file
    /// again, freezing it anew.
    pub(super) fn encode_cache(&self, seq: u64, settings: &[u8; 32]) -> Option<EncodedCache> {
        EncodedCache::new(
            seq,
            settings,
            |out| {
                self.pages.len().put(out);
                for page in self.pages.values() {
                    page.put(out);
                    let stamp = self.stamps.get(&page.slug);
                    stamp
                        .filter(|_| !self.frozen.contains_key(&page.slug))
                        .copied()
                        .put(out);
                }
                put_all(self.frozen.keys(), out);
            },
            |out| self.index.put(out),
        )
    }

    /// The graph a cache holds, without its frozen pages; what outl does not save (the files
    /// shadowed or skipped) is left for a refresh to find.
    pub(super) fn restore(saved: &Saved, config: Arc<GraphConfig>) -> Result<Graph, Corrupt> {
        let (pages, index) = saved.decode(
            |input| {
                let len = input.take_len()?;
                let mut pages = Vec::with_capacity(len);
                let mut files = FxHashMap::default();
                let mut stamps = FxHashMap::default();
                files.reserve(len);
                for _ in 0..len {
                    let page = Page::take(input)?;
                    if let Some(stamp) = <Option<Stamp> as Persist>::take(input)? {
                        stamps.insert(page.slug.clone(), stamp);
                    }
                    files.insert(page.file.clone(), page.slug.clone());
                    pages.push((page.slug.clone(), page));
                }
                let frozen: Vec<String> = Vec::take(input)?;
                Ok((pages, files, stamps, frozen))
            },
            Index::take,
        )?;
        let (pages, files, stamps, frozen) = pages;
        let mut graph = Graph {
            pages: pages.into_iter().collect(),
            files,
            stamps,
            index,
            config,
            ..Graph::default()
        };
        for slug in frozen {
            graph.remove(&slug);
        }
        Ok(graph)
    }

    /// Indexes every page at once (at open, after [`insert_numbered`](Self::insert_numbered)),
    /// then packs them, on two threads.
    pub(super) fn build_index(&mut self) {
        let pages: Vec<&Page> = self.pages.values().collect();
        self.index.index_registered(&pages, &self.config);
        let mut pages: Vec<&mut Page> = self.pages.values_mut().collect();
        let half = pages.len() / 2;
        let (first, second) = pages.split_at_mut(half);
        let pack = |pages: &mut [&mut Page]| pages.iter_mut().for_each(|page| page.body.pack());
        std::thread::scope(|scope| {
            scope.spawn(|| pack(first));
            pack(second);
        });
    }

    pub(super) fn remove(&mut self, slug: &str) -> Option<Page> {
        let mut page = self.pages.remove(slug)?;
        page.body.open();
        self.files.remove(&page.file);
        self.stamps.remove(slug);
        self.frozen.remove(slug);
        self.index.update(Some(&page), None, &self.config);
        Some(page)
    }

    pub(super) fn remove_file(&mut self, file: &str) -> Option<Page> {
        let slug = self.files.get(file)?.clone();
        self.remove(&slug)
    }

    /// Gives every block of `page` an id that is unique in the workspace (apart from the
    /// pages in `replaced`, which the page replaces, and on top of `also_taken`, which
    /// collects the ids handed out). A missing or already held id is minted as `minting`
    /// says. Returns whether any id changed.
    pub(super) fn fill_ids(
        &self,
        page: &mut Page,
        replaced: &HashSet<String>,
        also_taken: &mut HashSet<String>,
        mut minting: Minting<'_>,
    ) -> bool {
        let taken = |id: &str, also: &HashSet<String>| {
            also.contains(id)
                || self
                    .index
                    .page_of_block(id)
                    .is_some_and(|owner| !replaced.contains(owner))
        };
        let count = self.index.block_count() + also_taken.len();
        let file = page.file.clone();
        let mut changed = false;
        let mut position = 0;
        fill(page.blocks_mut(), &mut position, &mut |block, position| {
            // A user's `id::` is the block's id, unless another block holds it already (a
            // copied block): then the block keeps the id it has, so it stays stable.
            if let Some(user) = user_id(block)
                && block.id != user
                && !taken(&user, also_taken)
            {
                block.id = user.as_ref().into();
                changed = true;
            }
            if block.id.is_empty() || taken(&block.id, also_taken) {
                let also: &HashSet<String> = also_taken;
                let is_taken = |id: &str| taken(id, also);
                block.id = match &mut minting {
                    Minting::Derived => {
                        let material = format!("{file}\0{position}\0{}", block.text);
                        ids::derived_id(material.as_bytes(), count, is_taken).into()
                    }
                    Minting::Fresh(minter) => minter.fresh(count, is_taken).into(),
                };
                changed = true;
            }
            also_taken.insert(block.id.to_string());
        });
        changed
    }
}

/// How [`Graph::fill_ids`] mints a missing id.
pub(super) enum Minting<'a> {
    /// From the page file, the block's position and text: the same page read twice gets the
    /// same ids (pages outl reads rather than writes).
    Derived,
    /// Random (blocks a write creates; their ids reach the disk through the op log).
    Fresh(&'a mut IdMinter),
}

/// Whether `f` holds for every block of the tree.
fn all_blocks(blocks: &[Block], f: &impl Fn(&Block) -> bool) -> bool {
    blocks
        .iter()
        .all(|block| f(block) && all_blocks(&block.children, f))
}

fn fill(blocks: &mut [Block], position: &mut usize, f: &mut dyn FnMut(&mut Block, usize)) {
    for block in blocks {
        f(block, *position);
        *position += 1;
        fill(&mut block.children, position, f);
    }
}
