//! The index of a workspace: links and backlinks, tags, tasks, properties, block refs and a
//! full-text search over block text. Built at open and updated page by page on every write:
//! a page's contribution is computed by one function, added when the page arrives and
//! subtracted (from the old version of the page) when it changes or goes.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::model::{Block, Page};
use super::names::slug;
use crate::outline::{self, TaskMarker};

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
    outgoing: HashMap<String, Vec<String>>,
    backlinks: HashMap<String, Holders>,
    tags: HashMap<String, Holders>,
    tasks: BTreeMap<TaskMarker, Holders>,
    properties: HashMap<String, HashMap<String, Holders>>,
    block_refs: HashMap<String, Holders>,
    search: Search,
}

/// Everything one page puts into the index.
#[derive(Default)]
struct Contribution {
    outgoing: Vec<String>,
    links: Vec<(String, Option<String>)>,
    tags: Vec<(String, Option<String>)>,
    tasks: Vec<(TaskMarker, String)>,
    properties: Vec<(String, String, Option<String>)>,
    block_refs: Vec<(String, String)>,
}

fn contribution(page: &Page) -> Contribution {
    let mut c = Contribution::default();
    properties_contribution(&page.properties, None, &mut c);
    for block in page.blocks_preorder() {
        block_contribution(block, &mut c);
    }
    for (target, _) in &c.links {
        if !c.outgoing.contains(target) && *target != page.slug {
            c.outgoing.push(target.clone());
        }
    }
    c
}

/// Links, tags and values of a page's (`block: None`) or a block's properties.
fn properties_contribution(
    properties: &crate::outline::Properties,
    block: Option<&str>,
    c: &mut Contribution,
) {
    let block = block.map(str::to_string);
    for (key, value) in properties {
        let key = key.to_lowercase();
        for name in outline::property_links(&key, value) {
            if key == "tags" {
                c.tags.push((slug(&name), block.clone()));
            }
            c.links.push((slug(&name), block.clone()));
        }
        c.properties
            .push((key, value.trim().to_string(), block.clone()));
    }
}

fn block_contribution(block: &Block, c: &mut Contribution) {
    let id = Some(block.id.clone());
    for name in outline::page_links(&block.text) {
        c.links.push((slug(&name), id.clone()));
    }
    for name in outline::tags(&block.text) {
        c.tags.push((slug(&name), id.clone()));
    }
    properties_contribution(&block.properties, Some(&block.id), c);
    if let Some((marker, _)) = outline::task_marker(&block.text) {
        c.tasks.push((marker, block.id.clone()));
    }
    for target in outline::block_refs(&block.text) {
        c.block_refs.push((target, block.id.clone()));
    }
}

fn add_holder(map: &mut Holders, page: &str, block: Option<String>) {
    let blocks = map.entry(page.to_string()).or_default();
    if !blocks.contains(&block) {
        blocks.push(block);
    }
}

fn remove_page_from<K: std::hash::Hash + Eq>(map: &mut HashMap<K, Holders>, key: &K, page: &str) {
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
        for (target, block) in c.links {
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
            add_holder(values.entry(value).or_default(), p, block);
        }
        for (target, block) in c.block_refs {
            add_holder(self.block_refs.entry(target).or_default(), p, Some(block));
        }
        if !c.outgoing.is_empty() {
            self.outgoing.insert(page.slug.clone(), c.outgoing);
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
}

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
    postings: HashMap<Box<str>, Vec<(u32, u32)>>,
    /// Doc numbers of each page's blocks.
    page_docs: HashMap<String, Vec<u32>>,
    total_len: u64,
    live: u64,
}

#[derive(Debug)]
struct Doc {
    slug: String,
    block: String,
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

/// Lowercased tokens of a text: runs of alphanumeric characters.
pub fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    token_spans(text).map(|(start, end)| text[start..end].to_lowercase())
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

fn term_counts(text: &str) -> (HashMap<String, u32>, u32) {
    let mut counts: HashMap<String, u32> = HashMap::new();
    let mut len = 0;
    for token in tokens(text) {
        *counts.entry(token).or_default() += 1;
        len += 1;
    }
    (counts, len)
}

impl Search {
    fn add(&mut self, page: &Page) {
        let mut docs = Vec::new();
        for block in page.blocks_preorder() {
            let (counts, len) = term_counts(&block.text);
            let doc = Doc {
                slug: page.slug.clone(),
                block: block.id.clone(),
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
                let list = self.postings.entry(term.into_boxed_str()).or_default();
                let at = list.partition_point(|&(d, _)| d < n);
                list.insert(at, (n, tf));
            }
            self.total_len += u64::from(len);
            self.live += 1;
            docs.push(n);
        }
        self.page_docs.insert(page.slug.clone(), docs);
    }

    fn remove(&mut self, page: &Page) {
        let Some(docs) = self.page_docs.remove(&page.slug) else {
            return;
        };
        for (block, n) in page.blocks_preorder().into_iter().zip(docs) {
            let (counts, _) = term_counts(&block.text);
            for term in counts.keys() {
                if let Some(list) = self.postings.get_mut(term.as_str()) {
                    if let Ok(at) = list.binary_search_by_key(&n, |&(d, _)| d) {
                        list.remove(at);
                    }
                    if list.is_empty() {
                        self.postings.remove(term.as_str());
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
    /// `text_of` gives a block's text, for phrases and snippets.
    pub fn query<'a>(
        &self,
        query: &str,
        text_of: impl Fn(&str, &str) -> Option<&'a str>,
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
            let Some(text) = text_of(&doc.slug, &doc.block) else {
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
                slug: doc.slug.clone(),
                block: doc.block.clone(),
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
            let part_tokens: Vec<String> = tokens(part).collect();
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
        let text_tokens: Vec<String> = tokens(text).collect();
        self.phrases.iter().all(|phrase| {
            text_tokens
                .windows(phrase.len())
                .any(|w| w == phrase.as_slice())
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
