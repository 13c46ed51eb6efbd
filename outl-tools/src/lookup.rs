//! Finding what a tool's arguments name, with errors a model can act on: a missing page comes
//! with the nearest page names, a missing block with its id.

use serde_json::json;

use outl_workspace::{BlockAt, Graph, Page, slug};
use outl_workspace::{Error, ErrorCode};

/// Page names offered when a page is not found.
const MAX_SUGGESTIONS: usize = 5;

/// The page named or slugged `name` (case-insensitive), else `PAGE_NOT_FOUND` with
/// `data.suggestions`: the nearest page slugs.
pub fn page<'g>(graph: &'g Graph, name: &str) -> Result<&'g Page, Error> {
    graph
        .resolve(name)
        .ok_or_else(|| page_not_found(graph, name))
}

/// `PAGE_NOT_FOUND` for `name`, with `data.slug` (an excerpt of a long name) and
/// `data.suggestions`.
pub fn page_not_found(graph: &Graph, name: &str) -> Error {
    let suggestions = suggestions(graph, name);
    let hint = if suggestions.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", suggestions.join(", "))
    };
    Error::new(
        ErrorCode::PageNotFound,
        format!("no page {}{hint}", outl_workspace::quoted(name)),
    )
    .with_data(json!({ "slug": outl_workspace::excerpt(name), "suggestions": suggestions }))
}

/// The block with this id and its page, else `BLOCK_NOT_FOUND` with `data.id`.
pub fn block<'g>(graph: &'g Graph, id: &str) -> Result<BlockAt<'g>, Error> {
    graph.block(id).ok_or_else(|| block_not_found(id))
}

/// The slug of the page holding the block, else `BLOCK_NOT_FOUND` with `data.id`.
pub fn page_of_block<'g>(graph: &'g Graph, id: &str) -> Result<&'g str, Error> {
    graph.page_of_block(id).ok_or_else(|| block_not_found(id))
}

/// `BLOCK_NOT_FOUND` for `id`, with `data.id` (an excerpt of a long one).
pub fn block_not_found(id: &str) -> Error {
    Error::new(
        ErrorCode::BlockNotFound,
        format!("no block with id {}", outl_workspace::quoted(id)),
    )
    .with_data(json!({ "id": outl_workspace::excerpt(id) }))
}

/// Slugs of the pages nearest to `name`: those it is a prefix or a part of, then those within
/// a few edits of it, closest first.
fn suggestions(graph: &Graph, name: &str) -> Vec<String> {
    let wanted = slug(name);
    if wanted.is_empty() {
        return Vec::new();
    }
    let wanted_chars: Vec<char> = wanted.chars().collect();
    // Edits allowed: a third of the name, at least one.
    let budget = (wanted_chars.len() / 3).max(1);
    let mut near: Vec<(usize, &str)> = graph
        .pages()
        .filter_map(|page| {
            let candidate = page.slug.as_str();
            let rank = if candidate.starts_with(&wanted) {
                0
            } else if candidate.contains(&wanted) {
                1
            } else {
                2 + edit_distance(&wanted_chars, candidate, budget)?
            };
            Some((rank, candidate))
        })
        .collect();
    near.sort();
    near.into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, candidate)| candidate.to_string())
        .collect()
}

/// Levenshtein distance between `a` and `b` in characters, or `None` when it exceeds `budget`.
fn edit_distance(a: &[char], b: &str, budget: usize) -> Option<usize> {
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > budget {
        return None;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        if current.iter().min().is_some_and(|&best| best > budget) {
            return None;
        }
        std::mem::swap(&mut previous, &mut current);
    }
    Some(previous[b.len()]).filter(|&d| d <= budget)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: &str, b: &str) -> Option<usize> {
        edit_distance(&a.chars().collect::<Vec<_>>(), b, 3)
    }

    #[test]
    fn edit_distance_counts_characters_and_gives_up_past_the_budget() {
        assert_eq!(distance("pricing", "pricing"), Some(0));
        assert_eq!(distance("pricng", "pricing"), Some(1));
        assert_eq!(distance("tomas silva", "tomás silva"), Some(1));
        assert_eq!(distance("hiring", "shakshuka"), None);
        assert_eq!(distance("", "abc"), Some(3));
    }
}
