//! Line-level three-way merge for reconcile: a page edited outside outl from a copy older than
//! outl's last write (an editor buffer opened before outl wrote, a sync tool replaying another
//! machine's version) would otherwise lose outl's later, acknowledged writes when the file is
//! adopted as it is.
//!
//! The base is the version the other program most likely started from: among the versions of
//! the page the op log holds, the one the file differs from by the fewest lines. When that is outl's
//! newest version, the file is simply adopted. Otherwise each region changed on one side only
//! takes that side's lines, and a region changed on both sides keeps both, the file's first:
//! no text of either side is dropped. The price: an outside edit that only removed lines outl
//! wrote looks like a copy from before outl wrote them, and those lines are kept.

use std::collections::HashMap;
use std::ops::Range;

/// Beyond this many line pairs (base × side), the longest-common-subsequence table is not
/// built; the merge keeps the file and appends outl's lines it lacks.
const MAX_TABLE_CELLS: usize = 16_000_000;

/// Of `candidates` (oldest first), the index of the one `theirs` was most likely edited from:
/// the fewest lines added and removed between the two (as multisets), the newest on a tie.
pub fn likely_base(theirs: &str, candidates: &[&str]) -> Option<usize> {
    let mut wanted: HashMap<&str, usize> = HashMap::new();
    for line in theirs.lines() {
        *wanted.entry(line).or_default() += 1;
    }
    let shared = |candidate: &str| {
        let mut left = wanted.clone();
        candidate
            .lines()
            .filter(|line| match left.get_mut(line) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            })
            .count()
    };
    let their_lines = theirs.lines().count();
    let mut best: Option<(usize, usize)> = None;
    for (index, candidate) in candidates.iter().enumerate() {
        let common = shared(candidate);
        let distance = candidate.lines().count() - common + their_lines - common;
        if best.is_none_or(|(_, fewest)| distance <= fewest) {
            best = Some((index, distance));
        }
    }
    best.map(|(index, _)| index)
}

/// Merges the changes `ours` and `theirs` each made to `base`, line by line.
pub fn merge3(base: &str, ours: &str, theirs: &str) -> String {
    let base: Vec<&str> = base.lines().collect();
    let ours: Vec<&str> = ours.lines().collect();
    let theirs: Vec<&str> = theirs.lines().collect();
    let (Some(in_ours), Some(in_theirs)) = (matching(&base, &ours), matching(&base, &theirs))
    else {
        return keep_theirs_and_add_ours(&ours, &theirs);
    };
    let mut ours_hunks = hunks(&in_ours, ours.len()).into_iter().peekable();
    let mut theirs_hunks = hunks(&in_theirs, theirs.len()).into_iter().peekable();
    let mut out: Vec<&str> = Vec::new();
    let mut done = 0;
    loop {
        let first = match (ours_hunks.peek(), theirs_hunks.peek()) {
            (None, None) => break,
            (Some(o), Some(t)) => o.base.start.min(t.base.start),
            (Some(o), None) => o.base.start,
            (None, Some(t)) => t.base.start,
        };
        // The hunks of both sides that overlap, or insert at one place, form one region.
        let mut region = first..first;
        let mut ours_in: Vec<Hunk> = Vec::new();
        let mut theirs_in: Vec<Hunk> = Vec::new();
        loop {
            let joins = |h: &Hunk| {
                h.base.start < region.end
                    || h.base.start == region.start && (h.base.is_empty() || region.is_empty())
            };
            let next = if ours_hunks.peek().is_some_and(joins) {
                ours_hunks.next().map(|h| (h, &mut ours_in))
            } else if theirs_hunks.peek().is_some_and(joins) {
                theirs_hunks.next().map(|h| (h, &mut theirs_in))
            } else {
                None
            };
            let Some((hunk, side)) = next else { break };
            region.end = region.end.max(hunk.base.end);
            side.push(hunk);
        }
        out.extend(&base[done..region.start]);
        let mine = apply(&base, &region, &ours_in, &ours);
        let yours = apply(&base, &region, &theirs_in, &theirs);
        match (ours_in.is_empty(), theirs_in.is_empty()) {
            (false, true) => out.extend(mine),
            (true, _) => out.extend(yours),
            (false, false) if mine == yours => out.extend(mine),
            (false, false) => {
                out.extend(yours);
                out.extend(mine);
            }
        }
        done = region.end;
    }
    out.extend(&base[done..]);
    join_lines(&out)
}

/// Base lines `base` of one side replaced by its lines `side`.
struct Hunk {
    base: Range<usize>,
    side: Range<usize>,
}

/// The hunks of one side, in base order, from its line matching.
fn hunks(matched: &[Option<usize>], side_len: usize) -> Vec<Hunk> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        let next = (i..matched.len()).find_map(|k| matched[k].map(|m| (k, m)));
        let (k, m) = next.unwrap_or((matched.len(), side_len));
        if k > i || m > j {
            out.push(Hunk {
                base: i..k,
                side: j..m,
            });
        }
        let Some((k, m)) = next else { break };
        (i, j) = (k + 1, m + 1);
    }
    out
}

/// The lines of `region` of the base with one side's hunks in it applied.
fn apply<'a>(
    base: &[&'a str],
    region: &Range<usize>,
    hunks: &[Hunk],
    side: &[&'a str],
) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut at = region.start;
    for hunk in hunks {
        out.extend(&base[at..hunk.base.start]);
        out.extend(&side[hunk.side.clone()]);
        at = hunk.base.end;
    }
    out.extend(&base[at..region.end]);
    out
}

/// For each line of `base`, the index of the line of `side` it is matched with by a longest
/// common subsequence; `None` when the table would be too large.
fn matching(base: &[&str], side: &[&str]) -> Option<Vec<Option<usize>>> {
    let (n, m) = (base.len(), side.len());
    if (n + 1).saturating_mul(m + 1) > MAX_TABLE_CELLS {
        return None;
    }
    // lcs[i][j]: length of the LCS of base[i..] and side[j..].
    let width = m + 1;
    let mut lcs = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * width + j] = if base[i] == side[j] {
                lcs[(i + 1) * width + j + 1] + 1
            } else {
                lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
            };
        }
    }
    let mut matched = vec![None; n];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if base[i] == side[j] {
            matched[i] = Some(j);
            i += 1;
            j += 1;
        } else if lcs[(i + 1) * width + j] >= lcs[i * width + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    Some(matched)
}

/// The fallback for pages too large to diff: the file, then outl's lines it lacks.
fn keep_theirs_and_add_ours(ours: &[&str], theirs: &[&str]) -> String {
    let mut present: HashMap<&str, usize> = HashMap::new();
    for line in theirs {
        *present.entry(line).or_default() += 1;
    }
    let mut out = theirs.to_vec();
    for line in ours {
        match present.get_mut(line) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(line),
        }
    }
    join_lines(&out)
}

fn join_lines(lines: &[&str]) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_edited_from_outls_newest_version_is_the_base() {
        let ours = "- a\n- b\n- c\n";
        let theirs = "- a\n- b, edited\n- c\n";
        assert_eq!(likely_base(theirs, &["- a\n", "- a\n- b\n", ours]), Some(2));
    }

    #[test]
    fn a_stale_copy_finds_the_version_it_came_from() {
        let old = "- a\n- b\n";
        let ours = "- a\n- b\n- outl 1\n- outl 2\n";
        let theirs = "- a\n- b, edited\n- theirs\n";
        assert_eq!(likely_base(theirs, &[old, ours]), Some(0));
    }

    #[test]
    fn changes_on_either_side_are_both_kept() {
        let base = "- a\n- b\n- c\n";
        let ours = "- a\n- b\n- c\n- outl\n";
        let theirs = "- a\n- b, edited\n- c\n";
        assert_eq!(
            merge3(base, ours, theirs),
            "- a\n- b, edited\n- c\n- outl\n"
        );
    }

    #[test]
    fn a_stale_copy_gets_outls_writes_back_around_its_own_edit() {
        let base = "- alpha\n- beta\n- gamma\n";
        let ours = "- alpha\n- beta, by outl\n- gamma\n- delta\n";
        let theirs = "- alpha\n- beta\n- gamma, edited\n- epsilon\n";
        assert_eq!(
            merge3(base, ours, theirs),
            "- alpha\n- beta, by outl\n- gamma, edited\n- epsilon\n- delta\n"
        );
    }

    #[test]
    fn a_region_changed_on_both_sides_keeps_both_the_files_first() {
        let base = "- a\n- b\n";
        let ours = "- a\n- b by outl\n";
        let theirs = "- a\n- b by vim\n";
        assert_eq!(merge3(base, ours, theirs), "- a\n- b by vim\n- b by outl\n");
    }

    #[test]
    fn deletions_on_one_side_are_applied() {
        let base = "- a\n- b\n- c\n";
        let ours = "- a\n- c\n";
        let theirs = "- a\n- b\n- c\n- d\n";
        assert_eq!(merge3(base, ours, theirs), "- a\n- c\n- d\n");
    }

    #[test]
    fn the_same_change_on_both_sides_is_kept_once() {
        let base = "- a\n";
        let both = "- a\n- b\n";
        assert_eq!(merge3(base, both, both), both);
    }

    #[test]
    fn pages_too_large_to_diff_keep_the_file_and_add_outls_lines() {
        let line = |i: usize| format!("- line {i}\n");
        let base: String = (0..5000).map(line).collect();
        let ours = format!("{base}- outl\n");
        let theirs = format!("{base}- theirs\n");
        assert_eq!(
            merge3(&base, &ours, &theirs),
            format!("{base}- theirs\n- outl\n")
        );
    }

    use proptest::prelude::*;

    /// A page of a few short lines from a small alphabet, so that versions share lines.
    fn page() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop::sample::select(vec!["- a", "- b", "- c", "\t- d", "- e"]),
            0..8,
        )
        .prop_map(|lines| lines.iter().map(|l| format!("{l}\n")).collect())
    }

    /// Lines of `side` that `base` does not have as often, counted with multiplicity.
    fn added<'a>(base: &str, side: &'a str) -> Vec<&'a str> {
        let mut left: HashMap<&str, usize> = HashMap::new();
        for line in base.lines() {
            *left.entry(line).or_default() += 1;
        }
        side.lines()
            .filter(|line| match left.get_mut(line) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    false
                }
                _ => true,
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn a_side_that_changed_nothing_gives_the_other(base in page(), other in page()) {
            prop_assert_eq!(merge3(&base, &base, &other), other.clone());
            prop_assert_eq!(merge3(&base, &other, &base), other.clone());
            prop_assert_eq!(merge3(&base, &other, &other), other);
        }

        #[test]
        fn no_line_either_side_added_is_lost(base in page(), ours in page(), theirs in page()) {
            let merged = merge3(&base, &ours, &theirs);
            for side in [&ours, &theirs] {
                let new_lines: String = added(&base, side).iter().map(|l| format!("{l}\n")).collect();
                let lost = added(&merged, &new_lines);
                prop_assert!(lost.is_empty(), "{:?} lost: base {:?} ours {:?} theirs {:?} merged {:?}",
                    lost, base, ours, theirs, merged);
            }
        }
    }
}
