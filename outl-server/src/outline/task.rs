//! Task markers (`TODO` … `CANCELED`) at the start of a block, and priorities (`[#A]`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::inline::{Token, tokenize};

/// The task state a block's text starts with.
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
#[serde(rename_all = "UPPERCASE")]
pub enum TaskMarker {
    Todo,
    Doing,
    Done,
    Later,
    Now,
    Waiting,
    Canceled,
}

impl TaskMarker {
    pub const ALL: [TaskMarker; 7] = [
        TaskMarker::Todo,
        TaskMarker::Doing,
        TaskMarker::Done,
        TaskMarker::Later,
        TaskMarker::Now,
        TaskMarker::Waiting,
        TaskMarker::Canceled,
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
            TaskMarker::Canceled => "CANCELED",
        }
    }

    /// Whether the task still asks for work: every marker but `DONE` and `CANCELED`.
    pub fn is_open(self) -> bool {
        !matches!(self, TaskMarker::Done | TaskMarker::Canceled)
    }
}

impl fmt::Display for TaskMarker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a word that is not a task marker.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a task marker (TODO, DOING, DONE, LATER, NOW, WAITING, CANCELED)")]
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

/// The marker a text starts with, and the text after it and one following space or tab. A
/// marker is the whole first word: `TODO x`, `TODO` alone and `TODO` before a line break are
/// tasks, `TODO:` and `TODOS` are not.
pub fn task_marker(text: &str) -> Option<(TaskMarker, &str)> {
    let marker = leading_marker(text)?;
    let rest = &text[marker.as_str().len()..];
    Some((marker, rest.strip_prefix([' ', '\t']).unwrap_or(rest)))
}

/// The marker a text starts with, if its first word is one. Shared with the tokenizer.
pub(crate) fn leading_marker(text: &str) -> Option<TaskMarker> {
    // Compared as a whole word, most texts fail on the length before any byte is compared.
    let first_word = text.split([' ', '\t', '\n', '\r']).next().unwrap_or(text);
    TaskMarker::ALL
        .into_iter()
        .find(|marker| marker.as_str() == first_word)
}

/// The text with its task marker replaced by `marker`, or removed when `marker` is `None`.
pub fn set_task_marker(text: &str, marker: Option<TaskMarker>) -> String {
    let body = task_marker(text).map_or(text, |(_, rest)| rest);
    match marker {
        None => body.to_owned(),
        Some(marker) if body.is_empty() || body.starts_with(['\n', '\r']) => {
            format!("{marker}{body}")
        }
        Some(marker) => format!("{marker} {body}"),
    }
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

/// The first priority written in a text, outside code.
pub fn priority(text: &str) -> Option<Priority> {
    fn first(tokens: &[Token]) -> Option<Priority> {
        tokens.iter().find_map(|token| match token {
            Token::Priority { priority } => Some(*priority),
            Token::Bold { children }
            | Token::Italic { children, .. }
            | Token::Link { children, .. } => first(children),
            _ => None,
        })
    }
    first(&tokenize(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_whole_first_words() {
        assert_eq!(
            task_marker("TODO Call Bob"),
            Some((TaskMarker::Todo, "Call Bob"))
        );
        assert_eq!(task_marker("CANCELED"), Some((TaskMarker::Canceled, "")));
        assert_eq!(
            task_marker("NOW  two spaces"),
            Some((TaskMarker::Now, " two spaces"))
        );
        assert_eq!(
            task_marker("DONE\nnext line"),
            Some((TaskMarker::Done, "\nnext line"))
        );
        assert_eq!(
            task_marker("WAITING\ton Bob"),
            Some((TaskMarker::Waiting, "on Bob"))
        );
        assert_eq!(task_marker("TODO: not a task"), None);
        assert_eq!(task_marker("TODOS"), None);
        assert_eq!(task_marker("todo lower case"), None);
        assert_eq!(task_marker(" TODO indented"), None);
        assert_eq!(task_marker(""), None);
        for marker in TaskMarker::ALL {
            assert_eq!(task_marker(&format!("{marker} x")), Some((marker, "x")));
        }
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
        assert_eq!(set_task_marker("", Some(TaskMarker::Todo)), "TODO");
        assert_eq!(
            set_task_marker("TODO\nmore", Some(TaskMarker::Now)),
            "NOW\nmore"
        );
        assert_eq!(set_task_marker("TODO", None), "");
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
        assert!(!TaskMarker::Canceled.is_open());
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
