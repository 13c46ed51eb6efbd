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
//!
//! [`numbering`] gives pages and blocks their numbers, [`contributions`] keeps the holder lists
//! of what pages contribute, [`search`] the full-text search over block text and page names,
//! [`query`] answers searches with it, and [`persist`] saves all of it in the cache.

mod contributions;
mod numbering;
mod persist;
mod query;
mod search;
#[cfg(test)]
mod tests;

use compact_str::CompactString;
use serde::Serialize;

use super::config::GraphConfig;
use super::model::Page;
use super::names::slug;
use contributions::{Holders, Lists, Placement};
use numbering::Tables;
use outl_format::{self as outline, TaskMarker};
use search::Search;

pub use query::{IndexHit, SearchPage};

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
        let lists: Vec<&Holders> = values
            .iter()
            .filter(|(stored, _)| {
                wanted
                    .as_ref()
                    .is_none_or(|wanted| outline::shown_value(stored) == *wanted)
            })
            .map(|(_, list)| list)
            .collect();
        let [list] = lists.as_slice() else {
            // Several values' holders, merged in slug and document order as each list is.
            let mut held: Vec<_> = lists.iter().flat_map(|list| list.iter().copied()).collect();
            held.sort_by_cached_key(|&held| self.tables.place_of(held));
            held.dedup();
            return held
                .into_iter()
                .filter_map(|held| self.tables.holder(held))
                .collect();
        };
        self.holders(Some(list))
    }

    /// Blocks that embed or refer to the block `id` with `((id))`.
    pub fn block_refs(&self, id: &str) -> Vec<Holder> {
        self.holders(self.lists.block_refs.get(id))
    }
}

/// Below this many pages, open indexes on one thread.
const PARALLEL_BUILD_MIN_PAGES: usize = 256;
