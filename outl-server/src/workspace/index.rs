//! The index of a workspace: links and backlinks, tags, tasks, properties, block refs and a
//! full-text search over block text. Built at open and updated page by page on every write:
//! a page's contribution is computed by one function, added when the page arrives and
//! subtracted (from the old version of the page) when it changes or goes.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::model::{Block, Page};
use super::names::slug;
use crate::outline::{self, Properties, TaskMarker};

/// Where something was found: a block of a page, or the page itself (its properties).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Holder {
    pub slug: String,
    /// `None` for the page's own properties.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
}

/// Per key, the pages (by slug, ordered) and the blocks of each in document order.
type Holders = BTreeMap<String, Vec<Option<String>>>;

#[derive(Debug, Default)]
pub struct Index {
    /// Slugs a page links to, in order of first appearance.
    outgoing: FxHashMap<String, Vec<String>>,
    backlinks: FxHashMap<String, Holders>,
    tags: FxHashMap<String, Holders>,
    tasks: BTreeMap<TaskMarker, Holders>,
    properties: FxHashMap<String, FxHashMap<String, Holders>>,
    block_refs: FxHashMap<String, Holders>,
    search: Search,
}

/// Everything one page puts into the index, borrowing from the page where it can.
#[derive(Default)]
struct Contribution<'a> {
    links: Vec<(String, Option<&'a str>)>,
    tags: Vec<(String, Option<&'a str>)>,
    tasks: Vec<(TaskMarker, &'a str)>,
    properties: Vec<(String, &'a str, Option<&'a str>)>,
    block_refs: Vec<(String, &'a str)>,
}

fn contribution(page: &Page) -> Contribution<'_> {
    let mut c = Contribution::default();
    properties_contribution(&page.properties, None, &mut c);
    for block in page.blocks_preorder() {
        block_contribution(block, &mut c);
    }
    c
}

/// Links, tags and values of a page's (`block: None`) or a block's properties.
fn properties_contribution<'a>(
    properties: &'a Properties,
    block: Option<&'a str>,
    c: &mut Contribution<'a>,
) {
    for (key, value) in properties {
        let key = key.to_lowercase();
        let is_tags = key == "tags";
        // Only `tags::` and `alias::` link by bare names; others need link syntax.
        if is_tags || key == "alias" || may_link(value) {
            for name in outline::property_links(&key, value) {
                if is_tags {
                    c.tags.push((slug(&name), block));
                }
                c.links.push((slug(&name), block));
            }
        }
        c.properties.push((key, value.trim(), block));
    }
}

/// Whether a text can hold a page link or tag at all (every form has `[[` or `#`): most
/// texts have neither, and tokenizing them would find nothing.
fn may_link(text: &str) -> bool {
    text.contains("[[") || text.contains('#')
}

fn block_contribution<'a>(block: &'a Block, c: &mut Contribution<'a>) {
    let id = block.id.as_str();
    if may_link(&block.text) {
        for name in outline::page_links(&block.text) {
            c.links.push((slug(&name), Some(id)));
        }
        if block.text.contains('#') {
            for name in outline::tags(&block.text) {
                c.tags.push((slug(&name), Some(id)));
            }
        }
    }
    properties_contribution(&block.properties, Some(id), c);
    if let Some((marker, _)) = outline::task_marker(&block.text) {
        c.tasks.push((marker, id));
    }
    if block.text.contains("((") {
        for target in outline::block_refs(&block.text) {
            c.block_refs.push((target, id));
        }
    }
}

/// Records that `block` of `page` holds a key. A block's contributions to one key arrive
/// one after the other, so a repeat is always the last entry.
fn add_holder(map: &mut Holders, page: &str, block: Option<&str>) {
    match map.get_mut(page) {
        Some(blocks) => {
            if blocks.last().map(Option::as_deref) != Some(block) {
                blocks.push(block.map(str::to_string));
            }
        }
        None => {
            map.insert(page.to_string(), vec![block.map(str::to_string)]);
        }
    }
}

fn remove_page_from(map: &mut FxHashMap<String, Holders>, key: &str, page: &str) {
    if let Some(holders) = map.get_mut(key) {
        holders.remove(page);
        if holders.is_empty() {
            map.remove(key);
        }
    }
}

fn flatten(holders: &Holders) -> Vec<Holder> {
    holders
        .iter()
        .flat_map(|(slug, blocks)| {
            blocks.iter().map(|block| Holder {
                slug: slug.clone(),
                block: block.clone(),
            })
        })
        .collect()
}

fn count(holders: &Holders) -> usize {
    holders.values().map(Vec::len).sum()
}

impl Index {
    /// Replaces what `old` contributed with what `new` contributes.
    pub fn update(&mut self, old: Option<&Page>, new: Option<&Page>) {
        if let Some(old) = old {
            self.remove(old);
        }
        if let Some(new) = new {
            self.add(new);
        }
    }

    fn add(&mut self, page: &Page) {
        let c = contribution(page);
        let p = page.slug.as_str();
        let mut outgoing = Vec::new();
        let mut seen = HashSet::new();
        for (target, block) in c.links {
            if target != p && seen.insert(target.clone()) {
                outgoing.push(target.clone());
            }
            add_holder(self.backlinks.entry(target).or_default(), p, block);
        }
        for (tag, block) in c.tags {
            add_holder(self.tags.entry(tag).or_default(), p, block);
        }
        for (marker, block) in c.tasks {
            add_holder(self.tasks.entry(marker).or_default(), p, Some(block));
        }
        for (key, value, block) in c.properties {
            let values = self.properties.entry(key).or_default();
            let holders = match values.get_mut(value) {
                Some(holders) => holders,
                None => values.entry(value.to_string()).or_default(),
            };
            add_holder(holders, p, block);
        }
        for (target, block) in c.block_refs {
            add_holder(self.block_refs.entry(target).or_default(), p, Some(block));
        }
        if !outgoing.is_empty() {
            self.outgoing.insert(page.slug.clone(), outgoing);
        }
        self.search.add(page);
    }

    fn remove(&mut self, page: &Page) {
        let c = contribution(page);
        let p = page.slug.as_str();
        for (target, _) in &c.links {
            remove_page_from(&mut self.backlinks, target, p);
        }
        for (tag, _) in &c.tags {
            remove_page_from(&mut self.tags, tag, p);
        }
        for (marker, _) in &c.tasks {
            if let Some(holders) = self.tasks.get_mut(marker) {
                holders.remove(p);
            }
        }
        for (key, value, _) in &c.properties {
            if let Some(values) = self.properties.get_mut(key) {
                remove_page_from(values, value, p);
                if values.is_empty() {
                    self.properties.remove(key);
                }
            }
        }
        for (target, _) in &c.block_refs {
            remove_page_from(&mut self.block_refs, target, p);
        }
        self.outgoing.remove(p);
        self.search.remove(page);
    }

    /// Slugs the page links to (by `[[link]]`, `#tag`, `tags::` or `alias::`), whether or not
    /// a page exists for them, in order of first appearance.
    pub fn links(&self, slug: &str) -> &[String] {
        self.outgoing.get(slug).map_or(&[], Vec::as_slice)
    }

    /// Blocks (and pages, through their properties) that link to the page, by source slug.
    pub fn backlinks(&self, slug: &str) -> Vec<Holder> {
        self.backlinks.get(slug).map(flatten).unwrap_or_default()
    }

    /// Slugs of the pages that link to the page.
    pub fn linking_pages(&self, slug: &str) -> Vec<&str> {
        self.backlinks
            .get(slug)
            .map(|h| h.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// Every tag (slug) with the number of blocks and pages carrying it, most used first.
    pub fn tags(&self) -> Vec<(&str, usize)> {
        let mut tags: Vec<(&str, usize)> = self
            .tags
            .iter()
            .map(|(tag, holders)| (tag.as_str(), count(holders)))
            .collect();
        tags.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        tags
    }

    /// Blocks and pages carrying the tag.
    pub fn tagged(&self, tag: &str) -> Vec<Holder> {
        self.tags.get(&slug(tag)).map(flatten).unwrap_or_default()
    }

    /// Task blocks with this marker, by page slug and document order.
    pub fn tasks(&self, marker: TaskMarker) -> Vec<Holder> {
        self.tasks.get(&marker).map(flatten).unwrap_or_default()
    }

    /// Number of task blocks per marker.
    pub fn task_counts(&self) -> Vec<(TaskMarker, usize)> {
        self.tasks
            .iter()
            .map(|(m, h)| (*m, count(h)))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// Property keys (lowercased) in use, sorted.
    pub fn property_keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self.properties.keys().map(String::as_str).collect();
        keys.sort_unstable();
        keys
    }

    /// The values of a property key with how many blocks and pages have each, most used first.
    pub fn property_values(&self, key: &str) -> Vec<(&str, usize)> {
        let Some(values) = self.properties.get(&key.to_lowercase()) else {
            return Vec::new();
        };
        let mut out: Vec<(&str, usize)> =
            values.iter().map(|(v, h)| (v.as_str(), count(h))).collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        out
    }

    /// Blocks and pages with the property, with this exact value when one is given.
    pub fn with_property(&self, key: &str, value: Option<&str>) -> Vec<Holder> {
        let Some(values) = self.properties.get(&key.to_lowercase()) else {
            return Vec::new();
        };
        match value {
            Some(value) => values.get(value.trim()).map(flatten).unwrap_or_default(),
            None => {
                let mut all: Vec<Holder> = values.values().flat_map(flatten).collect();
                all.sort();
                all.dedup();
                all
            }
        }
    }

    /// Blocks that embed or refer to the block `id` with `((id))`.
    pub fn block_refs(&self, id: &str) -> Vec<Holder> {
        self.block_refs.get(id).map(flatten).unwrap_or_default()
    }

    pub(super) fn search_index(&self) -> &Search {
        &self.search
    }

    /// The index of these pages, built on two threads (each indexes half the pages, then the
    /// halves are merged): what open does.
    pub(super) fn build(pages: &[&Page]) -> Index {
        let index_all = |pages: &[&Page]| {
            let mut index = Index::default();
            for page in pages {
                index.add(page);
            }
            index
        };
        if pages.len() < PARALLEL_BUILD_MIN_PAGES {
            return index_all(pages);
        }
        let (first, second) = pages.split_at(pages.len() / 2);
        std::thread::scope(|scope| {
            let other = scope.spawn(|| index_all(second));
            let mut index = index_all(first);
            match other.join() {
                Ok(other) => index.merge(other),
                Err(_) => second.iter().for_each(|page| index.add(page)),
            }
            index
        })
    }

    /// Adds the index of other pages (none of them indexed here).
    fn merge(&mut self, other: Index) {
        fn merge_keyed<K: std::hash::Hash + Eq>(
            into: &mut FxHashMap<K, Holders>,
            from: FxHashMap<K, Holders>,
        ) {
            for (key, holders) in from {
                into.entry(key).or_default().extend(holders);
            }
        }
        self.outgoing.extend(other.outgoing);
        merge_keyed(&mut self.backlinks, other.backlinks);
        merge_keyed(&mut self.tags, other.tags);
        merge_keyed(&mut self.block_refs, other.block_refs);
        for (marker, holders) in other.tasks {
            self.tasks.entry(marker).or_default().extend(holders);
        }
        for (key, values) in other.properties {
            merge_keyed(self.properties.entry(key).or_default(), values);
        }
        self.search.merge(other.search);
    }
}

/// Below this many pages, open indexes on one thread.
const PARALLEL_BUILD_MIN_PAGES: usize = 256;

// ---------------------------------------------------------------------------------------------
// Full-text search

const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;
/// Characters of context on each side of the first match in a snippet.
const SNIPPET_CONTEXT: usize = 40;

/// An inverted index over block text: lowercased alphanumeric tokens → blocks, scored BM25.
#[derive(Debug, Default)]
pub struct Search {
    docs: Vec<Option<Doc>>,
    free: Vec<u32>,
    /// Sorted by doc number.
    postings: FxHashMap<Box<str>, Vec<(u32, u32)>>,
    /// Doc numbers of each page's blocks.
    page_docs: FxHashMap<String, Vec<u32>>,
    total_len: u64,
    live: u64,
}

/// A block in the search index; its page is found through the block id.
#[derive(Debug)]
struct Doc {
    block: Box<str>,
    len: u32,
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    pub slug: String,
    pub block: String,
    pub score: f64,
    /// The text around the first match, `…` where cut.
    pub snippet: String,
}

/// Lowercased tokens of a text: runs of alphanumeric characters. Borrowed when already
/// lowercase, as most are.
pub fn tokens(text: &str) -> impl Iterator<Item = Cow<'_, str>> + '_ {
    token_spans(text).map(|(start, end)| {
        let token = &text[start..end];
        if token.chars().any(char::is_uppercase) {
            Cow::Owned(token.to_lowercase())
        } else {
            Cow::Borrowed(token)
        }
    })
}

fn token_spans(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, _) = chars.by_ref().find(|(_, c)| c.is_alphanumeric())?;
        let mut end = text.len();
        while let Some(&(i, c)) = chars.peek() {
            if !c.is_alphanumeric() {
                end = i;
                break;
            }
            chars.next();
        }
        Some((start, end))
    })
}

/// Each distinct token of a text with its count, and the number of tokens.
fn term_counts(text: &str) -> (Vec<(Cow<'_, str>, u32)>, u32) {
    let mut all: Vec<Cow<'_, str>> = tokens(text).collect();
    let len = all.len() as u32;
    all.sort_unstable();
    let mut counts: Vec<(Cow<'_, str>, u32)> = Vec::with_capacity(all.len());
    for token in all {
        match counts.last_mut() {
            Some((last, n)) if *last == token => *n += 1,
            _ => counts.push((token, 1)),
        }
    }
    (counts, len)
}

impl Search {
    fn add(&mut self, page: &Page) {
        let mut docs = Vec::new();
        for block in page.blocks_preorder() {
            let (counts, len) = term_counts(&block.text);
            let doc = Doc {
                block: block.id.as_str().into(),
                len,
            };
            let n = match self.free.pop() {
                Some(n) => {
                    self.docs[n as usize] = Some(doc);
                    n
                }
                None => {
                    self.docs.push(Some(doc));
                    (self.docs.len() - 1) as u32
                }
            };
            for (term, tf) in counts {
                let list = match self.postings.get_mut(&*term) {
                    Some(list) => list,
                    None => self.postings.entry(term.into()).or_default(),
                };
                // New docs mostly take the highest number: appending is the common case.
                match list.last() {
                    Some(&(last, _)) if last > n => {
                        let at = list.partition_point(|&(d, _)| d < n);
                        list.insert(at, (n, tf));
                    }
                    _ => list.push((n, tf)),
                }
            }
            self.total_len += u64::from(len);
            self.live += 1;
            docs.push(n);
        }
        self.page_docs.insert(page.slug.clone(), docs);
    }

    /// Adds the docs of other pages, numbered after this index's own.
    fn merge(&mut self, other: Search) {
        let offset = self.docs.len() as u32;
        self.docs.extend(other.docs);
        self.free.extend(other.free.into_iter().map(|n| n + offset));
        for (term, list) in other.postings {
            // Every number from `other` is above every number here: appending keeps order.
            self.postings
                .entry(term)
                .or_default()
                .extend(list.into_iter().map(|(n, tf)| (n + offset, tf)));
        }
        for (slug, docs) in other.page_docs {
            self.page_docs
                .insert(slug, docs.into_iter().map(|n| n + offset).collect());
        }
        self.total_len += other.total_len;
        self.live += other.live;
    }

    fn remove(&mut self, page: &Page) {
        let Some(docs) = self.page_docs.remove(&page.slug) else {
            return;
        };
        for (block, n) in page.blocks_preorder().into_iter().zip(docs) {
            let (counts, _) = term_counts(&block.text);
            for (term, _) in counts {
                if let Some(list) = self.postings.get_mut(&*term) {
                    if let Ok(at) = list.binary_search_by_key(&n, |&(d, _)| d) {
                        list.remove(at);
                    }
                    if list.is_empty() {
                        self.postings.remove(&*term);
                    }
                }
            }
            if let Some(doc) = self.docs[n as usize].take() {
                self.total_len -= u64::from(doc.len);
                self.live -= 1;
            }
            self.free.push(n);
        }
    }

    /// Blocks containing every term of `query` (and every `"quoted phrase"`), best first.
    /// `locate` gives a block's page slug and text, for phrases and snippets.
    pub fn query<'a>(
        &self,
        query: &str,
        locate: impl Fn(&str) -> Option<(&'a str, &'a str)>,
    ) -> Vec<SearchHit> {
        let parsed = ParsedQuery::new(query);
        if parsed.terms.is_empty() {
            return Vec::new();
        }
        let mut lists: Vec<&Vec<(u32, u32)>> = Vec::with_capacity(parsed.terms.len());
        for term in &parsed.terms {
            match self.postings.get(term.as_str()) {
                Some(list) => lists.push(list),
                None => return Vec::new(),
            }
        }
        lists.sort_by_key(|l| l.len());
        let n_docs = self.live.max(1) as f64;
        let avg_len = (self.total_len as f64 / n_docs).max(1.0);
        let idf: Vec<f64> = lists
            .iter()
            .map(|l| {
                let df = l.len() as f64;
                (1.0 + (n_docs - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        let mut hits = Vec::new();
        'docs: for &(n, tf0) in lists[0] {
            let mut tfs = vec![tf0];
            for list in &lists[1..] {
                match list.binary_search_by_key(&n, |&(d, _)| d) {
                    Ok(at) => tfs.push(list[at].1),
                    Err(_) => continue 'docs,
                }
            }
            let Some(doc) = self.docs[n as usize].as_ref() else {
                continue;
            };
            let Some((slug, text)) = locate(&doc.block) else {
                continue;
            };
            if !parsed.phrases_match(text) {
                continue;
            }
            let norm = 1.0 - BM25_B + BM25_B * f64::from(doc.len) / avg_len;
            let score = tfs
                .iter()
                .zip(&idf)
                .map(|(&tf, idf)| {
                    let tf = f64::from(tf);
                    idf * tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * norm)
                })
                .sum();
            hits.push(SearchHit {
                slug: slug.to_string(),
                block: doc.block.to_string(),
                score,
                snippet: snippet(text, &parsed.terms),
            });
        }
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.slug.cmp(&b.slug))
                .then_with(|| a.block.cmp(&b.block))
        });
        hits
    }
}

struct ParsedQuery {
    /// Every distinct token, phrases' included.
    terms: Vec<String>,
    /// Token sequences that must appear consecutively.
    phrases: Vec<Vec<String>>,
}

impl ParsedQuery {
    fn new(query: &str) -> ParsedQuery {
        let mut terms: Vec<String> = Vec::new();
        let mut phrases = Vec::new();
        for (i, part) in query.split('"').enumerate() {
            let part_tokens: Vec<String> = tokens(part).map(Cow::into_owned).collect();
            // Odd parts sit between quotes (an unclosed quote runs to the end).
            if i % 2 == 1 && part_tokens.len() > 1 {
                phrases.push(part_tokens.clone());
            }
            for token in part_tokens {
                if !terms.contains(&token) {
                    terms.push(token);
                }
            }
        }
        ParsedQuery { terms, phrases }
    }

    fn phrases_match(&self, text: &str) -> bool {
        if self.phrases.is_empty() {
            return true;
        }
        let text_tokens: Vec<Cow<'_, str>> = tokens(text).collect();
        self.phrases.iter().all(|phrase| {
            text_tokens
                .windows(phrase.len())
                .any(|window| window.iter().zip(phrase).all(|(a, b)| a == b))
        })
    }
}

fn snippet(text: &str, terms: &[String]) -> String {
    let first = token_spans(text)
        .find(|&(s, e)| terms.iter().any(|t| text[s..e].to_lowercase() == *t))
        .unwrap_or((0, 0));
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
