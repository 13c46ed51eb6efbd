//! Which block of a new version of a page continues which block of the old one: the matching
//! behind [`carry_ids`](super::carry_ids), so that a block keeps its id through an edit of its
//! text, a move, and the blocks added or removed around it.
//!
//! The blocks of both versions, each in document order, are aligned as two sequences: pairs
//! keep their order, and a pair is either the same text or two texts alike enough (at least
//! half of their character pairs shared; see [`Alike`]), the pairing with the most of the first
//! and then the most likeness winning. That is what a person does to a page: a block deleted
//! or added shifts the rest without changing it, a block edited stays where it was and keeps
//! most of its text. Then:
//!
//! - a block the alignment left out, or paired only with a text like its own, whose text is
//!   that of an old block it left out (or paired only so) was moved (a reorder breaks the order
//!   the alignment keeps): the two are paired;
//! - between two pairs, one old and one new block left out are the same block rewritten in
//!   place: they are paired too, unless the new one has the text of an old block (a copy);
//! - everything else is a block removed (old) or added (new). Of two blocks of one text where
//!   the old version had one (a pasted copy), the alignment pairs the one in the original's
//!   place, and the copy is new.
//!
//! Aligning costs the product of the two lengths. The blocks both versions share at their start
//! and end are paired first, and so are texts found once in each (in the order both keep),
//! until what is left between them is small enough; a stretch that stays too large has its
//! equal texts paired in order.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::Range;

/// Largest stretch aligned in full, in pairs of blocks (old × new).
const ALIGN_CELLS: usize = 40_000;
/// Characters of a text compared for likeness: enough to tell an edit from another text.
const ALIKE_CHARS: usize = 512;
/// Score of a pair of equal texts, above any pair of texts only alike (at most `SCALE - 1`).
const EQUAL: u32 = 2 * SCALE;
const SCALE: u32 = 1000;

/// For each text of `new`, the index of the text of `old` it continues, if any (see the module
/// docs). Each old text is continued at most once.
pub fn align(old: &[&str], new: &[&str]) -> Vec<Option<usize>> {
    let old: Vec<Alike> = old.iter().map(|t| Alike::new(t)).collect();
    let new: Vec<Alike> = new.iter().map(|t| Alike::new(t)).collect();
    let mut pairs = Vec::new();
    align_range(&old, &new, 0..old.len(), 0..new.len(), &mut pairs);
    pairs.sort_unstable();
    // A text found unpaired in the other version goes to its twin rather than to a text only
    // like it: two alike blocks swapped are moved, not both edited.
    let mut paired_equal = vec![false; old.len()];
    for &(i, j) in &pairs {
        paired_equal[i] = old[i].text == new[j].text;
    }
    let unpaired_old: HashSet<&str> = old
        .iter()
        .zip(&paired_equal)
        .filter(|(_, equal)| !**equal)
        .map(|(text, _)| text.text)
        .collect();
    pairs.retain(|&(i, j)| old[i].text == new[j].text || !unpaired_old.contains(new[j].text));
    let mut matched: Vec<Option<usize>> = vec![None; new.len()];
    let mut used = vec![false; old.len()];
    for &(i, j) in &pairs {
        matched[j] = Some(i);
        used[i] = true;
    }
    // Moved blocks: equal texts both left out.
    let mut free: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (i, text) in old.iter().enumerate().filter(|(i, _)| !used[*i]) {
        free.entry(text.text).or_default().push_back(i);
    }
    for (j, text) in new.iter().enumerate() {
        if matched[j].is_none()
            && let Some(i) = free.get_mut(text.text).and_then(VecDeque::pop_front)
        {
            matched[j] = Some(i);
            used[i] = true;
        }
    }
    // One block rewritten in place between two pairs (or before the first, after the last). A
    // block with the text of an old one is a copy of it, not a rewrite.
    let old_texts: HashSet<&str> = old.iter().map(|text| text.text).collect();
    let mut bounds = vec![(0, 0)];
    bounds.extend(pairs.iter().map(|&(i, j)| (i + 1, j + 1)));
    let ends = pairs
        .iter()
        .copied()
        .chain(std::iter::once((old.len(), new.len())));
    for ((old_from, new_from), (old_to, new_to)) in bounds.into_iter().zip(ends) {
        let mut left_old = (old_from..old_to).filter(|&i| !used[i]);
        let mut left_new = (new_from..new_to).filter(|&j| matched[j].is_none());
        if let (Some(i), None, Some(j), None) = (
            left_old.next(),
            left_old.next(),
            left_new.next(),
            left_new.next(),
        ) && !old_texts.contains(new[j].text)
        {
            matched[j] = Some(i);
            used[i] = true;
        }
    }
    matched
}

/// Aligns `old[o]` with `new[n]`, adding the pairs to `out`.
fn align_range(
    old: &[Alike],
    new: &[Alike],
    mut o: Range<usize>,
    mut n: Range<usize>,
    out: &mut Vec<(usize, usize)>,
) {
    while !o.is_empty() && !n.is_empty() && old[o.start].text == new[n.start].text {
        out.push((o.start, n.start));
        o.start += 1;
        n.start += 1;
    }
    while !o.is_empty() && !n.is_empty() && old[o.end - 1].text == new[n.end - 1].text {
        out.push((o.end - 1, n.end - 1));
        o.end -= 1;
        n.end -= 1;
    }
    if o.is_empty() || n.is_empty() {
        return;
    }
    if o.len().saturating_mul(n.len()) <= ALIGN_CELLS {
        align_fully(old, new, o, n, out);
        return;
    }
    let anchors = unique_in_order(old, new, o.clone(), n.clone());
    if anchors.is_empty() {
        equal_in_order(old, new, o, n, out);
        return;
    }
    let (mut oi, mut nj) = (o.start, n.start);
    for (i, j) in anchors {
        align_range(old, new, oi..i, nj..j, out);
        out.push((i, j));
        (oi, nj) = (i + 1, j + 1);
    }
    align_range(old, new, oi..o.end, nj..n.end, out);
}

/// The pairing of `old[o]` and `new[n]` with the highest total score, pairs in order.
fn align_fully(
    old: &[Alike],
    new: &[Alike],
    o: Range<usize>,
    n: Range<usize>,
    out: &mut Vec<(usize, usize)>,
) {
    let (rows, cols) = (o.len(), n.len());
    let width = cols + 1;
    let score = |i: usize, j: usize| old[o.start + i].score(&new[n.start + j]);
    // best[i][j]: the highest total for old[i..] and new[j..] of the stretch.
    let mut best = vec![0u32; (rows + 1) * width];
    let mut scores = vec![0u32; rows * cols];
    for i in (0..rows).rev() {
        for j in (0..cols).rev() {
            let pair = score(i, j);
            scores[i * cols + j] = pair;
            let skip = best[(i + 1) * width + j].max(best[i * width + j + 1]);
            let take = if pair > 0 {
                pair + best[(i + 1) * width + j + 1]
            } else {
                0
            };
            best[i * width + j] = skip.max(take);
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < rows && j < cols {
        let pair = scores[i * cols + j];
        if pair > 0 && best[i * width + j] == pair + best[(i + 1) * width + j + 1] {
            out.push((o.start + i, n.start + j));
            i += 1;
            j += 1;
        } else if best[i * width + j] == best[(i + 1) * width + j] {
            i += 1;
        } else {
            j += 1;
        }
    }
}

/// The texts found exactly once in `old[o]` and once in `new[n]`, as pairs, the longest run of
/// them that keeps its order in both.
fn unique_in_order(
    old: &[Alike],
    new: &[Alike],
    o: Range<usize>,
    n: Range<usize>,
) -> Vec<(usize, usize)> {
    // Each text's count in the old stretch and where it last is, and its count in the new.
    let mut in_old: HashMap<&str, (usize, usize)> = HashMap::new();
    for i in o {
        let entry = in_old.entry(old[i].text).or_insert((0, i));
        *entry = (entry.0 + 1, i);
    }
    let mut in_new: HashMap<&str, usize> = HashMap::new();
    for j in n.clone() {
        *in_new.entry(new[j].text).or_default() += 1;
    }
    let candidates: Vec<(usize, usize)> = n
        .filter_map(|j| {
            let text = new[j].text;
            match (in_old.get(text), in_new.get(text)) {
                (Some(&(1, i)), Some(1)) => Some((i, j)),
                _ => None,
            }
        })
        .collect();
    longest_increasing(&candidates)
}

/// The longest run of `pairs` (in increasing second element) whose first elements increase too.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[k]: index in `pairs` of the smallest last element of a run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; pairs.len()];
    for (at, &(i, _)) in pairs.iter().enumerate() {
        let k = tails.partition_point(|&t| pairs[t].0 < i);
        previous[at] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(at);
        } else {
            tails[k] = at;
        }
    }
    let mut run = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(index) = at {
        run.push(pairs[index]);
        at = previous[index];
    }
    run.reverse();
    run
}

/// Pairs each text of `new[n]` with the first equal text of `old[o]` after the last paired one.
fn equal_in_order(
    old: &[Alike],
    new: &[Alike],
    o: Range<usize>,
    n: Range<usize>,
    out: &mut Vec<(usize, usize)>,
) {
    let mut at: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for i in o {
        at.entry(old[i].text).or_default().push_back(i);
    }
    let mut after = 0;
    for j in n {
        let Some(places) = at.get_mut(new[j].text) else {
            continue;
        };
        while places.front().is_some_and(|&i| i < after) {
            places.pop_front();
        }
        if let Some(i) = places.pop_front() {
            out.push((i, j));
            after = i + 1;
        }
    }
}

/// A text and its character pairs, to tell how alike two texts are: twice the pairs they share
/// over the pairs they have (the Dice coefficient of their character bigrams, the text framed
/// by a start and an end so that one character counts). Character pairs work for any script,
/// CJK included, and a change of a few words leaves most of them.
struct Alike<'a> {
    text: &'a str,
    /// Sorted.
    pairs: Vec<u64>,
}

impl<'a> Alike<'a> {
    fn new(text: &'a str) -> Alike<'a> {
        let mut pairs = Vec::new();
        let mut before = u64::from(u32::MAX);
        for c in text
            .chars()
            .take(ALIKE_CHARS)
            .map(|c| u64::from(u32::from(c)))
            .chain(std::iter::once(u64::from(u32::MAX - 1)))
        {
            pairs.push(before << 32 | c);
            before = c;
        }
        pairs.sort_unstable();
        Alike { text, pairs }
    }

    /// [`EQUAL`] for the same text, else the likeness in thousandths when at least half, else 0.
    fn score(&self, other: &Alike) -> u32 {
        if self.text == other.text {
            return EQUAL;
        }
        let total = self.pairs.len() + other.pairs.len();
        // Even sharing every pair of the shorter, they would not be alike.
        if 4 * self.pairs.len().min(other.pairs.len()) < total {
            return 0;
        }
        let (mut a, mut b, mut shared) = (0, 0, 0);
        while a < self.pairs.len() && b < other.pairs.len() {
            match self.pairs[a].cmp(&other.pairs[b]) {
                std::cmp::Ordering::Less => a += 1,
                std::cmp::Ordering::Greater => b += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    a += 1;
                    b += 1;
                }
            }
        }
        let likeness = (2 * shared * SCALE as usize / total) as u32;
        if 2 * likeness >= SCALE {
            likeness.min(SCALE - 1)
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_deleted_block_shifts_the_rest_and_an_edit_stays_in_place() {
        // b deleted, c edited: c's edit continues c, not b.
        assert_eq!(
            align(&["alpha", "beta", "gamma ray"], &["alpha", "gamma rays"]),
            [Some(0), Some(2)]
        );
    }

    #[test]
    fn blocks_added_in_the_middle_are_new() {
        assert_eq!(
            align(
                &["one", "two", "three"],
                &["one", "new A", "new B", "two", "three"]
            ),
            [Some(0), None, None, Some(1), Some(2)]
        );
    }

    #[test]
    fn reordered_blocks_follow_their_text() {
        assert_eq!(
            align(&["one", "two", "three"], &["three", "one", "two"]),
            [Some(2), Some(0), Some(1)]
        );
    }

    #[test]
    fn alike_blocks_swapped_are_moved_not_edited() {
        assert_eq!(
            align(
                &["TODO call Bob", "notes", "TODO call Ann"],
                &["TODO call Ann", "notes", "TODO call Bob"]
            ),
            [Some(2), Some(1), Some(0)]
        );
    }

    #[test]
    fn a_pasted_copy_is_new_wherever_it_lands() {
        let old = ["one", "two", "three"];
        assert_eq!(
            align(&old, &["one", "two", "two", "three"]),
            [Some(0), Some(1), None, Some(2)]
        );
        assert_eq!(
            align(&old, &["two", "one", "two", "three"]),
            [None, Some(0), Some(1), Some(2)]
        );
        assert_eq!(
            align(&old, &["one", "two", "three", "two"]),
            [Some(0), Some(1), Some(2), None]
        );
        // Not a rewrite of the block deleted where it landed.
        assert_eq!(
            align(&old, &["three", "two", "three"]),
            [None, Some(1), Some(2)]
        );
    }

    #[test]
    fn one_block_rewritten_in_place_continues_it() {
        assert_eq!(
            align(&["one", "a", "three"], &["one", "b", "three"]),
            [Some(0), Some(1), Some(2)]
        );
        // Two unrelated blocks for two: removed and added.
        assert_eq!(
            align(&["one", "a", "b", "four"], &["one", "x", "y", "four"]),
            [Some(0), None, None, Some(3)]
        );
    }

    #[test]
    fn alike_texts_pair_across_script_and_task_changes() {
        assert_eq!(
            align(
                &["TODO buy milk", "写一篇关于输入法的笔记", "other"],
                &[
                    "DONE buy milk",
                    "写一篇关于中文输入法的笔记",
                    "another thing"
                ],
            )[..2],
            [Some(0), Some(1)]
        );
    }

    #[test]
    fn large_pages_align_around_unique_anchors() {
        let old: Vec<String> = (0..600).map(|i| format!("block number {i}")).collect();
        let mut new = old.clone();
        new.remove(100);
        new[300] = format!("{} edited", new[300]);
        new.insert(500, "inserted".into());
        new.swap(10, 20);
        let old: Vec<&str> = old.iter().map(String::as_str).collect();
        let new: Vec<&str> = new.iter().map(String::as_str).collect();
        let matched = align(&old, &new);
        assert_eq!(matched[10], Some(20));
        assert_eq!(matched[20], Some(10));
        assert_eq!(matched[99], Some(99));
        assert_eq!(matched[100], Some(101));
        assert_eq!(matched[300], Some(301), "the edited block");
        assert_eq!(matched[500], None, "the inserted block");
        assert_eq!(matched[599], Some(599));
        assert!(!matched.contains(&Some(100)), "the deleted block");
    }

    /// A page of short texts from a small set, so that versions share texts.
    fn page() -> impl Strategy<Value = Vec<&'static str>> {
        proptest::collection::vec(
            prop::sample::select(vec!["a", "b", "c", "d e f", "d e g", "TODO x", "DONE x"]),
            0..12,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn each_old_block_is_continued_at_most_once(old in page(), new in page()) {
            let matched = align(&old, &new);
            prop_assert_eq!(matched.len(), new.len());
            let mut seen = std::collections::HashSet::new();
            for i in matched.iter().flatten() {
                prop_assert!(*i < old.len());
                prop_assert!(seen.insert(*i), "old {} twice in {:?}", i, matched);
            }
        }

        #[test]
        fn an_unchanged_page_continues_itself(old in page()) {
            let identity: Vec<Option<usize>> = (0..old.len()).map(Some).collect();
            prop_assert_eq!(align(&old, &old), identity);
        }

        #[test]
        fn removing_blocks_keeps_every_other_block(
            old in page(),
            removed in proptest::collection::vec(any::<bool>(), 12),
        ) {
            let kept: Vec<usize> = (0..old.len()).filter(|&i| !removed[i]).collect();
            let new: Vec<&str> = kept.iter().map(|&i| old[i]).collect();
            let matched = align(&old, &new);
            for (j, i) in matched.iter().enumerate() {
                let i = i.expect("every block kept continues an old one");
                prop_assert_eq!(old[i], new[j]);
            }
        }
    }
}
