//! Answers to searches: the hits of a query, best first, and the pages a name finds.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::Index;
use super::numbering::Tables;
use super::search::{labels, matches_term};
use crate::model::Page;
use crate::packed::BlockReader;
use crate::terms::{self, Analyzer, Span, Surface, holds_phrase, is_gram, lowercase, surfaces};
/// Characters of context on each side of the first match in a snippet.
const SNIPPET_CONTEXT: usize = 40;

/// One page of search results, and how many there are in all.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage {
    pub hits: Vec<IndexHit>,
    pub total: usize,
}

/// One search result: a block, or a page whose name or alias matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IndexHit {
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

impl Index {
    /// Full-text search: the pages (journal days aside) whose name or an alias holds every
    /// term of `query` and every `"quoted phrase"` (see `ParsedQuery::label_score`), then
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
        let mut hits: Vec<IndexHit> = named.into_iter().take(end).skip(offset).collect();
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
            Some(IndexHit {
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
    ) -> Vec<IndexHit> {
        let mut hits: Vec<IndexHit> = self
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
                Some(IndexHit {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GraphConfig;
    use crate::index::tests::{page, page_in, sample_pages};
    use crate::terms::Language;

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
