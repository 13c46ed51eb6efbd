//! Line-level three-way merge for reconcile: a page edited outside outl from a copy older than
//! outl's last write (an editor buffer opened before outl wrote, a sync tool replaying another
//! machine's version) would otherwise lose outl's later, acknowledged writes when the file is
//! adopted as it is.
//!
//! The base is the version the other program most likely started from, and a version older
//! than outl's newest is taken only when the file shows it: it still holds text that outl's
//! later writes changed or removed (a block's old wording, a task's old state). Then, among the
//! versions of the page the op log holds, the one the file differs from by the fewest lines is
//! the base, each region changed on one side only takes that side's lines, and a region
//! changed on both sides keeps both, the file's first: no text of either side is dropped.
//! Otherwise the file is adopted as it is: a file that only lacks blocks outl wrote is a person
//! who deleted them, and a reconcile never undoes the person. The price: a stale copy saved
//! over the page when outl's later writes only added blocks loses those blocks; the reconcile
//! reports them removed, and the op log still holds them. And a person who puts back exactly
//! the text outl's write replaced looks like a stale copy: outl's text comes back beside the
//! rest of their edit.

use std::collections::HashMap;
use std::ops::Range;

/// Beyond this many line pairs (base × side), the longest-common-subsequence table is not
/// built; the merge keeps the file and appends outl's lines it lacks.
const MAX_TABLE_CELLS: usize = 16_000_000;

/// Of `older` (outl's earlier versions of the page, oldest first, `ours` not among them), the
/// one `theirs` was edited from, when the file shows it was edited from one of them rather
/// than from `ours`, outl's newest version: it still holds lines that outl changed or removed
/// since that version (more copies of a line, not blank, than `ours` has, and that version
/// had). Among the versions it shows, the one it differs from by the fewest lines added and
/// removed (as multisets), unless `ours` is as close; the newer on a tie. `None`: the file was
/// edited from `ours`, and is adopted as it is.
pub fn stale_base(theirs: &str, ours: &str, older: &[&str]) -> Option<usize> {
    let theirs_lines = counts(theirs);
    let ours_lines = counts(ours);
    let their_len = theirs.lines().count();
    let distance = |version: &HashMap<&str, usize>, len: usize| {
        let common: usize = version
            .iter()
            .map(|(line, n)| (*n).min(theirs_lines.get(line).copied().unwrap_or(0)))
            .sum();
        len - common + their_len - common
    };
    let mut best: Option<usize> = None;
    let mut closest = distance(&ours_lines, ours.lines().count());
    for (index, version) in older.iter().enumerate().rev() {
        let lines = counts(version);
        let shown = lines.iter().any(|(line, &n)| {
            let in_ours = ours_lines.get(line).copied().unwrap_or(0);
            !line.trim().is_empty()
                && n > in_ours
                && theirs_lines.get(line).is_some_and(|&t| t > in_ours)
        });
        if !shown {
            continue;
        }
        let d = distance(&lines, version.lines().count());
        if d < closest {
            closest = d;
            best = Some(index);
        }
    }
    best
}

/// How many times each line occurs in `text`.
fn counts(text: &str) -> HashMap<&str, usize> {
    let mut out: HashMap<&str, usize> = HashMap::new();
    for line in text.lines() {
        *out.entry(line).or_default() += 1;
    }
    out
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
    fn a_file_edited_from_outls_newest_version_is_adopted() {
        let ours = "- a\n- b\n- c\n";
        let theirs = "- a\n- b, edited\n- c\n";
        assert_eq!(stale_base(theirs, ours, &["- a\n", "- a\n- b\n"]), None);
    }

    #[test]
    fn a_stale_copy_finds_the_version_it_came_from() {
        let old = "- a\n- b\n";
        let ours = "- a\n- b by outl\n- outl 1\n- outl 2\n";
        let theirs = "- a\n- b\n- c, edited\n- theirs\n";
        assert_eq!(stale_base(theirs, ours, &[old]), Some(0));
    }

    #[test]
    fn deleting_what_outl_added_is_not_a_stale_copy() {
        // outl appended "- c"; the person deleted it, or deleted it and edited "- a": nothing in
        // the file is outl's older text, so it is adopted as the person left it.
        let old = "- a\n- b\n";
        let ours = "- a\n- b\n- c\n";
        assert_eq!(stale_base("- a\n- b\n", ours, &[old]), None);
        assert_eq!(stale_base("- a, edited\n- b\n", ours, &[old]), None);
        // Blank lines prove nothing either.
        assert_eq!(
            stale_base("- a\n\n- b\n", "- a\n- b\n- c\n", &["- a\n\n- b\n"]),
            None
        );
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
