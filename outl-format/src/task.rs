//! Task markers (`TODO` … `CANCELLED`, every marker Logseq reads) at the start of a block,
//! after a heading's `#` marks if it has them, and priorities (`[#A]`).

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The task marker a block's text starts with, in the spelling the file has: Logseq reads
/// `WAIT` and `WAITING`, `CANCELED` and `CANCELLED` alike, and a file keeps the one it was
/// written with.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum TaskMarker {
    #[serde(rename = "TODO")]
    Todo,
    #[serde(rename = "DOING")]
    Doing,
    #[serde(rename = "DONE")]
    Done,
    #[serde(rename = "LATER")]
    Later,
    #[serde(rename = "NOW")]
    Now,
    #[serde(rename = "WAITING")]
    Waiting,
    #[serde(rename = "WAIT")]
    Wait,
    #[serde(rename = "CANCELED")]
    Canceled,
    #[serde(rename = "CANCELLED")]
    Cancelled,
    #[serde(rename = "IN-PROGRESS")]
    InProgress,
    #[serde(rename = "STARTED")]
    Started,
}

impl TaskMarker {
    pub const ALL: [TaskMarker; 11] = [
        TaskMarker::Todo,
        TaskMarker::Doing,
        TaskMarker::Done,
        TaskMarker::Later,
        TaskMarker::Now,
        TaskMarker::Waiting,
        TaskMarker::Wait,
        TaskMarker::Canceled,
        TaskMarker::Cancelled,
        TaskMarker::InProgress,
        TaskMarker::Started,
    ];

    /// The marker as written in markdown.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskMarker::Todo => "TODO",
            TaskMarker::Doing => "DOING",
            TaskMarker::Done => "DONE",
            TaskMarker::Later => "LATER",
            TaskMarker::Now => "NOW",
            TaskMarker::Waiting => "WAITING",
            TaskMarker::Wait => "WAIT",
            TaskMarker::Canceled => "CANCELED",
            TaskMarker::Cancelled => "CANCELLED",
            TaskMarker::InProgress => "IN-PROGRESS",
            TaskMarker::Started => "STARTED",
        }
    }

    /// Whether the task still asks for work: every marker but `DONE`, `CANCELED` and
    /// `CANCELLED`.
    pub fn is_open(self) -> bool {
        !matches!(
            self,
            TaskMarker::Done | TaskMarker::Canceled | TaskMarker::Cancelled
        )
    }

    /// The other spelling of the same state, for the two states Logseq spells two ways
    /// (`WAIT`/`WAITING`, `CANCELED`/`CANCELLED`).
    pub fn other_spelling(self) -> Option<TaskMarker> {
        match self {
            TaskMarker::Waiting => Some(TaskMarker::Wait),
            TaskMarker::Wait => Some(TaskMarker::Waiting),
            TaskMarker::Canceled => Some(TaskMarker::Cancelled),
            TaskMarker::Cancelled => Some(TaskMarker::Canceled),
            _ => None,
        }
    }
}

impl fmt::Display for TaskMarker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a word that is not a task marker.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a task marker (TODO, DOING, DONE, LATER, NOW, WAITING, WAIT, CANCELED, \
     CANCELLED, IN-PROGRESS, STARTED)"
)]
pub struct NotATaskMarker(pub String);

impl FromStr for TaskMarker {
    type Err = NotATaskMarker;

    /// Markers are upper case in markdown; this accepts any case, for arguments.
    fn from_str(word: &str) -> Result<Self, Self::Err> {
        TaskMarker::ALL
            .into_iter()
            .find(|marker| marker.as_str().eq_ignore_ascii_case(word))
            .ok_or_else(|| NotATaskMarker(word.to_owned()))
    }
}

/// The length of a heading's marks at the start of `text`: `#`s and the spaces or tabs after
/// them (`## Title`), 0 when the text is no heading. A task marker comes after them.
pub(crate) fn heading_prefix_len(text: &str) -> usize {
    let hashes = text.bytes().take_while(|&b| b == b'#').count();
    if hashes == 0 {
        return 0;
    }
    let spaces = text.as_bytes()[hashes..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    if spaces == 0 { 0 } else { hashes + spaces }
}

/// The marker a text starts with (after a heading's marks, if any), and the text without the
/// marker and one space or tab after it. A marker is a whole word: `TODO x`, `TODO` alone and
/// `TODO` before a line break are tasks, `TODO:` and `TODOS` are not; so is `## TODO x`, a
/// heading task, whose text without its marker is `## x`.
pub fn task_marker(text: &str) -> Option<(TaskMarker, Cow<'_, str>)> {
    let (at, marker) = marker_at(text)?;
    let rest = &text[at + marker.as_str().len()..];
    let rest = rest.strip_prefix([' ', '\t']).unwrap_or(rest);
    Some((
        marker,
        if at == 0 {
            Cow::Borrowed(rest)
        } else {
            Cow::Owned(format!("{}{rest}", &text[..at]))
        },
    ))
}

/// Where the marker a text starts with is, and which it is. Shared with the tokenizer.
pub(crate) fn marker_at(text: &str) -> Option<(usize, TaskMarker)> {
    let at = heading_prefix_len(text);
    leading_marker(&text[at..]).map(|marker| (at, marker))
}

/// The marker `text` starts with, if its first word is one.
fn leading_marker(text: &str) -> Option<TaskMarker> {
    // Most texts start with no capital of a marker; compared as a whole word, most of the
    // rest fail on the length before any byte is compared.
    if !matches!(
        text.as_bytes().first(),
        Some(b'T' | b'D' | b'L' | b'N' | b'W' | b'C' | b'I' | b'S')
    ) {
        return None;
    }
    // As mldoc reads it, a marker is followed by a space or a tab: `TODO` alone, or on a line
    // of its own above the text, is a word.
    let (first_word, _) = text.split_once([' ', '\t'])?;
    TaskMarker::ALL
        .into_iter()
        .find(|marker| marker.as_str() == first_word)
}

/// The text with its task marker replaced by `marker`, or removed when `marker` is `None`. A
/// heading's marks stay in front: the marker goes after them.
pub fn set_task_marker(text: &str, marker: Option<TaskMarker>) -> String {
    let body = task_marker(text).map_or(Cow::Borrowed(text), |(_, rest)| rest);
    let Some(marker) = marker else {
        return body.into_owned();
    };
    let at = heading_prefix_len(&body);
    let (heading, rest) = body.split_at(at);
    // A marker is followed by a space even with no text after it (`TODO `), as Logseq writes
    // it, or it is no marker.
    format!("{heading}{marker} {rest}")
}

/// A task priority, `[#A]` (highest) to `[#C]`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum Priority {
    A,
    B,
    C,
}

impl Priority {
    pub(crate) fn from_letter(letter: u8) -> Option<Priority> {
        match letter {
            b'A' => Some(Priority::A),
            b'B' => Some(Priority::B),
            b'C' => Some(Priority::C),
            _ => None,
        }
    }

    pub fn letter(self) -> char {
        match self {
            Priority::A => 'A',
            Priority::B => 'B',
            Priority::C => 'C',
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::priority;

    #[test]
    fn markers_are_whole_first_words() {
        fn marker(text: &str) -> Option<(TaskMarker, String)> {
            task_marker(text).map(|(marker, rest)| (marker, rest.into_owned()))
        }
        assert_eq!(
            marker("TODO Call Bob"),
            Some((TaskMarker::Todo, "Call Bob".into()))
        );
        assert_eq!(marker("CANCELED "), Some((TaskMarker::Canceled, "".into())));
        // mldoc: a marker alone, or above the text on a line of its own, is a word.
        assert_eq!(marker("CANCELED"), None);
        assert_eq!(marker("DONE\nnext line"), None);
        assert_eq!(
            marker("NOW  two spaces"),
            Some((TaskMarker::Now, " two spaces".into()))
        );
        assert_eq!(
            marker("WAITING\ton Bob"),
            Some((TaskMarker::Waiting, "on Bob".into()))
        );
        assert_eq!(marker("TODO: not a task"), None);
        assert_eq!(marker("TODOS"), None);
        assert_eq!(marker("todo lower case"), None);
        assert_eq!(marker(" TODO indented"), None);
        assert_eq!(marker(""), None);
        for each in TaskMarker::ALL {
            assert_eq!(marker(&format!("{each} x")), Some((each, "x".into())));
            assert_eq!(each.as_str().parse(), Ok(each));
        }
        assert_eq!(
            marker("## TODO heading task"),
            Some((TaskMarker::Todo, "## heading task".into()))
        );
        assert_eq!(
            marker("### IN-PROGRESS x"),
            Some((TaskMarker::InProgress, "### x".into()))
        );
        assert_eq!(marker("#TODO x"), None);
        assert_eq!(marker("## Heading"), None);
        assert_eq!(
            marker("WAIT for it"),
            Some((TaskMarker::Wait, "for it".into()))
        );
        assert_eq!(
            marker("CANCELLED x"),
            Some((TaskMarker::Cancelled, "x".into()))
        );
    }

    #[test]
    fn set_task_marker_replaces_adds_and_removes() {
        assert_eq!(
            set_task_marker("TODO Call Bob", Some(TaskMarker::Done)),
            "DONE Call Bob"
        );
        assert_eq!(
            set_task_marker("Call Bob", Some(TaskMarker::Later)),
            "LATER Call Bob"
        );
        assert_eq!(set_task_marker("DOING Call Bob", None), "Call Bob");
        assert_eq!(set_task_marker("Call Bob", None), "Call Bob");
        assert_eq!(set_task_marker("", Some(TaskMarker::Todo)), "TODO ");
        assert_eq!(
            set_task_marker("TODO \nmore", Some(TaskMarker::Now)),
            "NOW \nmore"
        );
        assert_eq!(set_task_marker("TODO ", None), "");
        assert_eq!(
            set_task_marker("## TODO x", Some(TaskMarker::Done)),
            "## DONE x"
        );
        assert_eq!(
            set_task_marker("## x", Some(TaskMarker::Later)),
            "## LATER x"
        );
        assert_eq!(set_task_marker("## NOW x", None), "## x");
        assert_eq!(set_task_marker("## ", Some(TaskMarker::Todo)), "## TODO ");
    }

    #[test]
    fn markers_serialize_and_parse_as_written() {
        assert_eq!(
            serde_json::to_string(&TaskMarker::Canceled).ok().as_deref(),
            Some("\"CANCELED\"")
        );
        assert_eq!("waiting".parse(), Ok(TaskMarker::Waiting));
        assert_eq!("DONE".parse(), Ok(TaskMarker::Done));
        assert!("FINISHED".parse::<TaskMarker>().is_err());
        assert!(TaskMarker::Later.is_open());
        assert!(TaskMarker::Wait.is_open() && TaskMarker::Started.is_open());
        assert!(!TaskMarker::Canceled.is_open() && !TaskMarker::Cancelled.is_open());
        assert_eq!(
            serde_json::to_string(&TaskMarker::InProgress)
                .ok()
                .as_deref(),
            Some("\"IN-PROGRESS\"")
        );
        assert_eq!("in-progress".parse(), Ok(TaskMarker::InProgress));
    }

    #[test]
    fn priorities() {
        assert_eq!(priority("TODO [#A] ship it"), Some(Priority::A));
        assert_eq!(priority("**urgent [#B]**"), Some(Priority::B));
        assert_eq!(priority("`[#A]` is how you write it"), None);
        assert_eq!(priority("[#D] no such priority"), None);
        assert_eq!(priority("plain"), None);
        assert_eq!(
            serde_json::to_string(&Priority::C).ok().as_deref(),
            Some("\"C\"")
        );
    }
}
