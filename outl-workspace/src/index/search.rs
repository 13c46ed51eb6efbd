//! The full-text search's inverted indexes: block text to blocks, scored BM25, and page names
//! and aliases to pages.

use std::borrow::Cow;

use compact_str::CompactString;
use rustc_hash::{FxHashMap, FxHashSet};

use super::contributions::keyed_list;
use crate::block::{Block, BlockList};
use crate::model::Page;
use crate::postings::{Cursor, Extent, Postings, TF_BITS, TF_PACKED_MAX, posting_block};
use crate::terms::{Analyzer, Language, is_gram, lone_char};
use outl_format as outline;
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;
/// A heading block's BM25 score is multiplied by this: a heading names what the blocks under
/// it are about, where a passing mention does not.
const HEADING_BOOST: f64 = 2.0;

/// Blocks numbered from here on are left out of the search: the number must fit in a posting
/// beside the count, and so many blocks would take tens of gigabytes of memory first.
const SEARCHABLE_BLOCKS: u32 = 1 << (32 - TF_BITS);

/// An inverted index over block text (its terms, see [`terms`](crate::terms)) → blocks,
/// scored BM25, and one over page names and aliases → pages.
#[derive(Debug, Default)]
pub(super) struct Search {
    /// The language words are stemmed in.
    pub(super) language: Language,
    /// Per term, its postings `block << TF_BITS | count` (the count capped at
    /// [`TF_PACKED_MAX`]), sorted by block number.
    pub(super) postings: FxHashMap<CompactString, Postings>,
    /// By block number, the terms it holds more than [`TF_PACKED_MAX`] times, with their count.
    pub(super) long_tf: FxHashMap<u32, Vec<(CompactString, u32)>>,
    /// By block number, its number of tokens.
    pub(super) lens: Vec<u32>,
    /// By block number, a bit set for a heading (see [`is_heading`]).
    pub(super) headings: Vec<u64>,
    pub(super) total_len: u64,
    /// Blocks indexed.
    pub(super) live: u64,
    /// Per term of a page's name or one of its aliases, the numbers of the pages with it, in
    /// increasing order.
    pub(super) names: FxHashMap<CompactString, Vec<u32>>,
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
pub(super) fn labels(page: &Page) -> impl Iterator<Item = Cow<'_, str>> {
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
pub(super) fn matches_term(term: &str, wanted: &str) -> bool {
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

    pub(super) fn is_heading(&self, n: u32) -> bool {
        self.headings
            .get(n as usize / 64)
            .is_some_and(|bits| bits & (1 << (n % 64)) != 0)
    }

    /// The search of these pages, each numbered `p` with its blocks numbered in document
    /// order. Each posting list is allocated once, at its size, counted first (see
    /// [`Extent`]).
    pub(super) fn of_pages<'p>(
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
    pub(super) fn add_page(&mut self, p: u32, numbers: &[u32], page: &Page) {
        let analyzer = Analyzer::new(self.language);
        for (block, &n) in page.blocks().preorder().iter().zip(numbers) {
            self.add(n, block, &analyzer);
        }
        self.add_names(p, &name_terms(page, &analyzer));
    }

    pub(super) fn remove_page(&mut self, p: u32, numbers: &[u32], page: &Page) {
        let analyzer = Analyzer::new(self.language);
        for (block, &n) in page.blocks().preorder().iter().zip(numbers) {
            self.remove(n, block, &analyzer);
        }
        self.remove_names(p, &name_terms(page, &analyzer));
    }

    /// Puts `new`, numbered `new_numbers`, in place of `old`, numbered `old_numbers`, as page
    /// `p`: a block whose number, text and heading are the same in both is left as it is.
    pub(super) fn replace_page(
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

    pub(super) fn shrink_to_fit(&mut self) {
        self.postings.values_mut().for_each(Postings::shrink_to_fit);
        self.postings.shrink_to_fit();
        self.long_tf.shrink_to_fit();
        self.lens.shrink_to_fit();
        self.headings.shrink_to_fit();
        self.names.values_mut().for_each(Vec::shrink_to_fit);
        self.names.shrink_to_fit();
    }

    /// How often block `n` holds `term`, from its posting.
    pub(super) fn tf(&self, n: u32, term: &str, posting: u32) -> u32 {
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
    pub(super) fn candidates(&self, terms: &[String]) -> Vec<(f64, u32)> {
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
    pub(super) fn named(&self, terms: &[String]) -> Vec<u32> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GraphConfig;
    use crate::index::Index;
    use crate::index::tests::{page, page_in};

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
}
