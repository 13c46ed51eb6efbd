//! Page and block numbers: the page table and the block table, and the four-byte holder the
//! lists hold.

use std::hash::BuildHasher;

use compact_str::CompactString;
use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use super::Holder;
use crate::block::{Block, BlockList};
use crate::model::Page;
pub(super) fn hash_of(name: &str) -> u64 {
    FxBuildHasher.hash_one(name)
}

/// Strings numbered densely, each stored once: found by number, or by string through a table
/// of numbers hashed by their strings. Released numbers are given out again.
#[derive(Debug, Default)]
pub(super) struct Numbering {
    pub(super) names: Vec<CompactString>,
    pub(super) lookup: HashTable<u32>,
    pub(super) free: Vec<u32>,
}

impl Numbering {
    /// The string of number `n` (empty for a released number).
    pub(super) fn name(&self, n: u32) -> &str {
        self.names.get(n as usize).map_or("", CompactString::as_str)
    }

    /// The newest number given to `name` and not released.
    pub(super) fn get(&self, name: &str) -> Option<u32> {
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
    pub(super) fn len(&self) -> usize {
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
pub(super) const NO_PAGE: u32 = u32::MAX;

/// The page table and the block table.
#[derive(Debug, Default)]
pub(super) struct Tables {
    /// Page numbers by slug.
    pub(super) slugs: Numbering,
    /// By page number: its blocks' numbers in document order; `None` for a free number.
    pub(super) page_blocks: Vec<Option<Box<[u32]>>>,
    /// Block numbers by block id.
    pub(super) ids: Numbering,
    /// By block number: its page's number, [`NO_PAGE`] for a free number.
    pub(super) block_pages: Vec<u32>,
}

impl Tables {
    /// Numbers a page and its blocks. A block id another page's block still has is found as
    /// this page's from now on.
    pub(super) fn register(&mut self, page: &Page) -> u32 {
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
    pub(super) fn register_new(&mut self, page: &Page) -> bool {
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
    pub(super) fn reserve(&mut self, pages: usize, blocks: usize) {
        self.slugs.reserve(pages);
        self.page_blocks.reserve(pages);
        self.ids.reserve(blocks);
        self.block_pages.reserve(blocks);
    }

    /// Numbers the blocks of `new`, which page `p` holds in place of `old`: a block that keeps
    /// its id keeps its number, so that what it contributes can stay. Returns the old page's
    /// other numbers, which stay the page's until [`free_blocks`](Self::free_blocks) frees
    /// them, so that the old page's holders can be found and taken out first.
    pub(super) fn renumber(&mut self, p: u32, old: &Page, new: &Page) -> Vec<u32> {
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
    pub(super) fn free_blocks(&mut self, numbers: impl Iterator<Item = u32>) {
        for n in numbers {
            self.ids.release(n);
            if let Some(page) = self.block_pages.get_mut(n as usize) {
                *page = NO_PAGE;
            }
        }
    }

    /// Frees the numbers of page `p` and of its blocks.
    pub(super) fn unregister(&mut self, p: u32) {
        let Some(numbers) = self.page_blocks.get_mut(p as usize).and_then(Option::take) else {
            return;
        };
        self.free_blocks(numbers.iter().copied());
        self.slugs.release(p);
    }

    /// Block numbers of page `p`, in document order.
    pub(super) fn blocks_of(&self, p: u32) -> &[u32] {
        self.page_blocks
            .get(p as usize)
            .and_then(Option::as_deref)
            .unwrap_or_default()
    }

    pub(super) fn page_of_block(&self, n: u32) -> Option<u32> {
        self.block_pages
            .get(n as usize)
            .copied()
            .filter(|&p| p != NO_PAGE)
    }

    pub(super) fn page_of(&self, held: Held) -> Option<u32> {
        match held.block() {
            Some(n) => self.page_of_block(n),
            None => Some(held.0 & !PAGE_HOLDER),
        }
    }

    pub(super) fn slug_of(&self, held: Held) -> &str {
        self.page_of(held).map_or("", |p| self.slugs.name(p))
    }

    /// Slug of the page and id of the block with number `n`.
    pub(super) fn block_names(&self, n: u32) -> Option<(&str, &str)> {
        let p = self.page_of_block(n)?;
        Some((self.slugs.name(p), self.ids.name(n)))
    }

    /// Where a holder is: its page's slug, then 0 for the page itself and 1 on for its blocks in
    /// document order.
    pub(super) fn place_of(&self, held: Held) -> Option<(&str, usize)> {
        let p = self.page_of(held)?;
        let position = match held.block() {
            None => 0,
            Some(n) => {
                let blocks = self.page_blocks.get(p as usize)?.as_deref()?;
                1 + blocks.iter().position(|&b| b == n)?
            }
        };
        Some((self.slugs.name(p), position))
    }

    pub(super) fn holder(&self, held: Held) -> Option<Holder> {
        let p = self.page_of(held)?;
        Some(Holder {
            slug: self.slugs.name(p).to_string(),
            block: held.block().map(|n| self.ids.name(n).to_string()),
        })
    }

    pub(super) fn shrink_to_fit(&mut self) {
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
pub(super) const PAGE_HOLDER: u32 = 1 << 31;

/// A holder in four bytes: a block number, or a page number with [`PAGE_HOLDER`] set (the page
/// itself, through its properties). Numbers stay below that bit: so many blocks would not fit
/// in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Held(pub(super) u32);

impl Held {
    pub(super) fn page(p: u32) -> Held {
        Held(p | PAGE_HOLDER)
    }

    fn block(self) -> Option<u32> {
        (self.0 & PAGE_HOLDER == 0).then_some(self.0)
    }
}

#[cfg(test)]
mod tests {
    use crate::index::Index;
    use crate::index::tests::{observable, page, page_in, sample_pages};
    use crate::{GraphConfig, Page};

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
}
