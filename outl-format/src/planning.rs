//! What Logseq reads out of a block's text beside the text: its planning lines
//! (`SCHEDULED: <2021-02-26 Fri>`, `DEADLINE: <…>`) and its `:LOGBOOK:` drawer (clock
//! entries). Readers get them as fields of their own and the text without them; the lines
//! stay in the block's text, so the file keeps them byte for byte.
//!
//! The rules are Logseq's (its graph parser over mldoc's AST): a paragraph whose first element
//! is a `SCHEDULED:` or `DEADLINE:` timestamp gives the block its planning, so a planning line
//! is one that starts a paragraph: right under the block's first line, after a blank line or
//! after a drawer's `:END:`, and the planning lines right after it. A planning line in the
//! middle of a paragraph is text to Logseq, and to outl. A `:LOGBOOK:` line with an `:END:`
//! line after it is the drawer.

use std::borrow::Cow;

use super::misread::Verbatim;
use super::syntax::split_indent;

/// A block's planning and logbook, borrowed from its text.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Planning<'t> {
    /// The `SCHEDULED:` timestamp, inside its `<>`: `2021-02-26 Fri 10:00 .+1w`.
    pub scheduled: Option<&'t str>,
    /// The `DEADLINE:` timestamp, inside its `<>`.
    pub deadline: Option<&'t str>,
    /// The lines inside the `:LOGBOOK:` drawer, trimmed: `CLOCK: [2021-02-26 Fri 10:00]--…`.
    pub logbook: Vec<&'t str>,
}

impl Planning<'_> {
    pub fn is_empty(&self) -> bool {
        self.scheduled.is_none() && self.deadline.is_none() && self.logbook.is_empty()
    }
}

/// Lines `start..end` of a text that are planning or a logbook drawer.
struct Run {
    start: usize,
    end: usize,
}

/// `text` without its planning lines and logbook drawer, and what they say.
pub fn split_planning(text: &str) -> (Cow<'_, str>, Planning<'_>) {
    if !text.contains('\n') {
        return (Cow::Borrowed(text), Planning::default());
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let runs = runs(&lines);
    if runs.is_empty() {
        return (Cow::Borrowed(text), Planning::default());
    }
    let mut planning = Planning::default();
    let mut shown = String::with_capacity(text.len());
    let mut at = 0;
    for run in &runs {
        push_lines(&mut shown, &lines[at..run.start]);
        let hidden = &lines[run.start..run.end];
        if is_logbook_opener(hidden[0]) {
            planning.logbook.extend(
                hidden[1..hidden.len() - 1]
                    .iter()
                    .map(|line| line.trim())
                    .filter(|line| !line.is_empty()),
            );
        } else {
            for line in hidden {
                for (kind, stamp) in timestamps(split_indent(line).1).into_iter().flatten() {
                    match kind {
                        Kind::Scheduled => planning.scheduled = Some(stamp),
                        Kind::Deadline => planning.deadline = Some(stamp),
                    }
                }
            }
        }
        at = run.end;
    }
    push_lines(&mut shown, &lines[at..]);
    (Cow::Owned(shown), planning)
}

/// `new`, a block's text as a caller gives it, with the planning lines and logbook drawer of
/// `old`, its text before, put back: each after as many lines of the new text as it followed
/// in the old (the first line, as Logseq writes them). A new text with planning or a logbook
/// of its own keeps its own, and none of the old.
pub fn keep_planning<'n>(new: &'n str, old: &str) -> Cow<'n, str> {
    if !old.contains('\n') {
        return Cow::Borrowed(new);
    }
    let old_lines: Vec<&str> = old.split('\n').collect();
    let old_runs = runs(&old_lines);
    let new_lines: Vec<&str> = new.split('\n').collect();
    if old_runs.is_empty() || !runs(&new_lines).is_empty() {
        return Cow::Borrowed(new);
    }
    // Each run with the number of text lines before it in the old text.
    let mut shown_before = 0;
    let mut at = 0;
    let mut placed: Vec<(usize, &[&str])> = Vec::with_capacity(old_runs.len());
    for run in &old_runs {
        shown_before += run.start - at;
        placed.push((shown_before, &old_lines[run.start..run.end]));
        at = run.end;
    }
    let mut kept: Vec<&str> = Vec::with_capacity(new_lines.len() + old_lines.len());
    let mut runs = placed.iter().peekable();
    for (index, line) in new_lines.iter().enumerate() {
        kept.push(line);
        while let Some((_, hidden)) = runs.next_if(|(before, _)| *before == index + 1) {
            kept.extend_from_slice(hidden);
        }
    }
    for (_, hidden) in runs {
        kept.extend_from_slice(hidden);
    }
    Cow::Owned(kept.join("\n"))
}

fn push_lines(out: &mut String, lines: &[&str]) {
    for line in lines {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
}

/// The planning and logbook runs of a text's lines (the first line is the block's title, and
/// never one).
fn runs(lines: &[&str]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut verbatim = Verbatim::default();
    let mut index = 1;
    while index < lines.len() {
        let rest = split_indent(lines[index]).1;
        if verbatim.line(rest) {
            index += 1;
            continue;
        }
        let previous = lines[index - 1].trim();
        let after_run = runs.last().is_some_and(|run| run.end == index);
        let starts_paragraph = index == 1 || previous.is_empty() || after_run;
        if starts_paragraph && timestamps(rest).is_some() {
            match runs.last_mut() {
                Some(run) if after_run && !is_logbook_opener(lines[run.start]) => run.end += 1,
                _ => runs.push(Run {
                    start: index,
                    end: index + 1,
                }),
            }
            index += 1;
            continue;
        }
        if is_logbook_opener(rest)
            && let Some(end) = lines[index + 1..]
                .iter()
                .position(|line| line.trim().eq_ignore_ascii_case(":END:"))
        {
            let end = index + 1 + end + 1;
            runs.push(Run { start: index, end });
            index = end;
            continue;
        }
        index += 1;
    }
    runs
}

fn is_logbook_opener(line: &str) -> bool {
    line.trim().eq_ignore_ascii_case(":LOGBOOK:")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Scheduled,
    Deadline,
}

/// The timestamps of a line that holds planning timestamps and nothing else (`None`
/// otherwise): `SCHEDULED: <…>`, `DEADLINE: <…>`, one or both, apart by spaces.
fn timestamps(rest: &str) -> Option<Vec<(Kind, &str)>> {
    let mut found = Vec::new();
    let mut rest = rest.trim_end();
    while !rest.is_empty() {
        let (kind, after) = if let Some(after) = rest.strip_prefix("SCHEDULED:") {
            (Kind::Scheduled, after)
        } else {
            (Kind::Deadline, rest.strip_prefix("DEADLINE:")?)
        };
        let after = after.trim_start_matches([' ', '\t']).strip_prefix('<')?;
        let close = after.find('>')?;
        let stamp = &after[..close];
        // A date first: `2021-02-26`.
        let date = stamp.get(..10)?;
        let digits =
            |range: std::ops::Range<usize>| date[range].bytes().all(|b| b.is_ascii_digit());
        if !(digits(0..4)
            && &date[4..5] == "-"
            && digits(5..7)
            && &date[7..8] == "-"
            && digits(8..10))
        {
            return None;
        }
        found.push((kind, stamp));
        rest = after[close + 1..].trim_start_matches([' ', '\t']);
    }
    (!found.is_empty()).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOGSEQ: &str = "TODO write\nSCHEDULED: <2021-02-26 Fri>\n:LOGBOOK:\nCLOCK: [2021-02-26 Fri 10:00]--[2021-02-26 Fri 11:00] =>  01:00:00\n:END:\nthe body";

    #[test]
    fn planning_and_the_logbook_are_read_out_of_the_text() {
        let (shown, planning) = split_planning(LOGSEQ);
        assert_eq!(shown, "TODO write\nthe body");
        assert_eq!(planning.scheduled, Some("2021-02-26 Fri"));
        assert_eq!(planning.deadline, None);
        assert_eq!(
            planning.logbook,
            ["CLOCK: [2021-02-26 Fri 10:00]--[2021-02-26 Fri 11:00] =>  01:00:00"]
        );
        let (shown, planning) =
            split_planning("a\nSCHEDULED: <2021-02-26 Fri> DEADLINE: <2021-03-01 Mon 10:00 .+1w>");
        assert_eq!(shown, "a");
        assert_eq!(planning.scheduled, Some("2021-02-26 Fri"));
        assert_eq!(planning.deadline, Some("2021-03-01 Mon 10:00 .+1w"));
        let (shown, planning) =
            split_planning("a\nDEADLINE: <2021-03-01 Mon>\nSCHEDULED: <2021-02-26 Fri>\nb");
        assert_eq!(shown, "a\nb");
        assert_eq!(planning.scheduled, Some("2021-02-26 Fri"));
    }

    #[test]
    fn what_logseq_reads_as_text_stays_text() {
        for text in [
            "SCHEDULED: <2021-02-26 Fri>",
            "a\nbody\nSCHEDULED: <2021-02-26 Fri>",
            "a\nSCHEDULED: <2021-02-26 Fri> and more",
            "a\nSCHEDULED: <soon>",
            "a\nscheduled: <2021-02-26 Fri>",
            "a\n```\nSCHEDULED: <2021-02-26 Fri>\n```",
            "a\n:LOGBOOK:\nno end",
        ] {
            let (shown, planning) = split_planning(text);
            assert_eq!(shown, text);
            assert!(planning.is_empty(), "{text:?}");
        }
        let (shown, planning) = split_planning("a\nbody\n\nSCHEDULED: <2021-02-26 Fri>");
        assert_eq!(shown, "a\nbody\n");
        assert_eq!(planning.scheduled, Some("2021-02-26 Fri"));
    }

    #[test]
    fn an_edited_text_keeps_the_planning_and_logbook_lines_where_they_were() {
        let edited = keep_planning("TODO write, edited\nthe body\nmore", LOGSEQ);
        assert_eq!(
            edited,
            LOGSEQ.replace("TODO write\n", "TODO write, edited\n") + "\nmore"
        );
        assert_eq!(
            split_planning(&edited).0,
            "TODO write, edited\nthe body\nmore"
        );
        assert_eq!(keep_planning("one line", LOGSEQ).lines().count(), 5);
        // A text with planning of its own keeps its own.
        let own = "TODO write\nDEADLINE: <2021-03-01 Mon>";
        assert_eq!(keep_planning(own, LOGSEQ), own);
        assert_eq!(keep_planning("x", "a\nb"), "x");
    }
}
