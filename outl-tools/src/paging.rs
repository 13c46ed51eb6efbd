//! Slicing lists so one call cannot swamp a context window: a `limit` with a default and a
//! maximum, an opaque `cursor` that continues where the last call stopped, and the reply
//! budget that caps every reply a slice can cut (see [`budget_bytes`]).

use outl_registry::{Problem, invalid_arguments};
use serde::Serialize;

use outl_workspace::Error;
/// Items per call when `limit` is left out.
pub const DEFAULT_LIMIT: u32 = 50;
/// The most items one call returns, whatever `limit` asks.
pub const MAX_LIMIT: u32 = 200;

/// The reply budget when `budget` is left out, in tokens.
pub const DEFAULT_BUDGET: u32 = 10_000;
/// The largest budget a caller may ask for, in tokens.
pub const MAX_BUDGET: u32 = 50_000;
/// The bytes of reply text a budget counts as one token. o200k averages about 3.3 bytes a
/// token on notes, as JSON and as markdown alike, so a reply within its budget so counted
/// takes at most about as many tokens as the budget says.
pub const BYTES_PER_TOKEN: usize = 3;

/// The bytes of reply text a `budget` of tokens allows: [`DEFAULT_BUDGET`] when absent,
/// [`MAX_BUDGET`] at most.
pub fn budget_bytes(budget: Option<u32>) -> usize {
    budget.unwrap_or(DEFAULT_BUDGET).min(MAX_BUDGET) as usize * BYTES_PER_TOKEN
}

/// One slice of a list, and the cursor of the next.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slice<T> {
    pub items: Vec<T>,
    /// How long the whole list is.
    pub total: usize,
    /// Pass as `cursor` to get the next slice; absent at the end.
    pub next_cursor: Option<String>,
}

impl<T> Slice<T> {
    /// The slice with `f` applied to each item: what is read per item is read for these only.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Slice<U> {
        Slice {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
            next_cursor: self.next_cursor,
        }
    }
}

/// `limit` clamped to `1..=MAX_LIMIT`, [`DEFAULT_LIMIT`] when absent.
pub fn limit(requested: Option<u32>) -> usize {
    requested.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT) as usize
}

/// The position a cursor stands for; `INVALID_ARGUMENTS` at `/cursor` for one this server did
/// not hand out.
pub fn position(cursor: Option<&str>) -> Result<usize, Error> {
    cursor.map_or(Ok(0), parse_cursor)
}

/// The number a cursor carries; `INVALID_ARGUMENTS` at `/cursor` for one this server did not
/// hand out.
pub fn parse_cursor(cursor: &str) -> Result<usize, Error> {
    cursor.parse().map_err(|_| {
        invalid_arguments(vec![Problem {
            pointer: "/cursor".into(),
            message: format!(
                "{} is not a cursor of this list; pass the next_cursor of the previous reply, \
                 or leave it out to start at the beginning",
                outl_workspace::quoted(cursor)
            ),
        }])
    })
}

/// The slice of `items` after `cursor`, at most `limit` long (see [`limit`]).
pub fn slice<T>(
    items: impl IntoIterator<Item = T>,
    limit_arg: Option<u32>,
    cursor: Option<&str>,
) -> Result<Slice<T>, Error> {
    let start = position(cursor)?;
    let limit = limit(limit_arg);
    let mut all = items.into_iter();
    let mut total = 0;
    let items: Vec<T> = all
        .by_ref()
        .inspect(|_| total += 1)
        .skip(start)
        .take(limit)
        .collect();
    total += all.count();
    Ok(window(items, start, total))
}

/// The slice of a list of `total` items that holds `items` from position `start` on (for a
/// list that is not materialised whole).
pub fn window<T>(items: Vec<T>, start: usize, total: usize) -> Slice<T> {
    let next_cursor = (start + items.len() < total).then(|| (start + items.len()).to_string());
    Slice {
        items,
        total,
        next_cursor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use outl_workspace::ErrorCode;

    #[test]
    fn slices_follow_each_other_to_the_end() {
        let first = slice(0..5, Some(2), None).unwrap();
        assert_eq!(first.items, [0, 1]);
        let second = slice(0..5, Some(2), first.next_cursor.as_deref()).unwrap();
        assert_eq!(second.items, [2, 3]);
        let last = slice(0..5, Some(2), second.next_cursor.as_deref()).unwrap();
        assert_eq!(last.items, [4]);
        assert_eq!((last.total, last.next_cursor), (5, None));
        let past_the_end = slice(0..5, None, Some("9")).unwrap();
        assert!(past_the_end.items.is_empty() && past_the_end.next_cursor.is_none());
        let exact = slice(0..4, Some(2), Some("2")).unwrap();
        assert_eq!((exact.items, exact.next_cursor), (vec![2, 3], None));
    }

    #[test]
    fn limits_are_clamped_and_bad_cursors_refused() {
        assert_eq!(limit(None), DEFAULT_LIMIT as usize);
        assert_eq!(limit(Some(0)), 1);
        assert_eq!(limit(Some(10_000)), MAX_LIMIT as usize);
        let err = slice(0..5, None, Some("abc")).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert_eq!(err.data.unwrap()["problems"][0]["pointer"], "/cursor");
    }
}
