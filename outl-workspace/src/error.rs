//! The one error type of outl: a stable code a caller can branch on, a message a person can
//! read, and `data` a model can act on. The workspace, the handlers and both wire surfaces
//! share it, and it is the tools' error (`outl_registry::ToolError`), which is why the store
//! depends on the registry runtime: a trait of another crate is implemented beside its type.
//!
//! An error quotes what the caller sent only as an [`excerpt`]: a reply to a 10 MB argument
//! must not carry it back.

use serde::Serialize;
use serde_json::Value;

/// Stable error codes. They are part of the wire contract: rename none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    InvalidArguments,
    /// `outl call` named a tool the registry does not have (MCP answers JSON-RPC -32602).
    UnknownTool,
    PageNotFound,
    PageExists,
    BlockNotFound,
    PageMarkdownAheadOfLog,
    Conflict,
    NothingToUndo,
    NothingToRedo,
    PathOutsideWorkspace,
    WorkspaceUnavailable,
    Io,
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => "INVALID_ARGUMENTS",
            ErrorCode::UnknownTool => "UNKNOWN_TOOL",
            ErrorCode::PageNotFound => "PAGE_NOT_FOUND",
            ErrorCode::PageExists => "PAGE_EXISTS",
            ErrorCode::BlockNotFound => "BLOCK_NOT_FOUND",
            ErrorCode::PageMarkdownAheadOfLog => "PAGE_MARKDOWN_AHEAD_OF_LOG",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::NothingToUndo => "NOTHING_TO_UNDO",
            ErrorCode::NothingToRedo => "NOTHING_TO_REDO",
            ErrorCode::PathOutsideWorkspace => "PATH_OUTSIDE_WORKSPACE",
            ErrorCode::WorkspaceUnavailable => "WORKSPACE_UNAVAILABLE",
            ErrorCode::Io => "IO",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `{code, message, data}` on both wires: inside the CLI envelope and inside an MCP error's
/// `structuredContent`, which is the only machine-readable copy of `data` (RFC 0276 decision 3).
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub data: Option<Value>,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// What the error reply of an MCP tool sends, and the errors the registry runtime makes itself.
impl outl_registry::ToolError for Error {
    fn code(&self) -> &str {
        self.code.as_str()
    }

    fn message(&self) -> &str {
        &self.message
    }

    fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    fn invalid_arguments(message: String, data: Value) -> Self {
        Error::new(ErrorCode::InvalidArguments, message).with_data(data)
    }

    fn internal(message: String) -> Self {
        Error::new(ErrorCode::Internal, message)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorCode::Io, e.to_string())
    }
}

/// The characters of a caller's text an error quotes, at most.
pub const EXCERPT_CHARS: usize = 60;

/// The characters of an error message, at most: a message that quotes something it cannot
/// excerpt (a parser's own message) is cut there.
pub const MAX_MESSAGE_CHARS: usize = 500;

/// `text` as an error quotes it: whole when it has at most `EXCERPT_CHARS` characters, else
/// its first ones and a marker that says how long it was: `ssss…[10485760 bytes]`.
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}…[{} bytes]", &text[..cut], text.len()),
    }
}

/// `text` quoted for a message (`"slug"`, escapes as Rust writes them), as an [`excerpt`]
/// when long: `"ssss…"[10485760 bytes]`.
pub fn quoted(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => format!("{text:?}"),
        Some((cut, _)) => format!("{:?}…[{} bytes]", &text[..cut], text.len()),
    }
}

/// `message` cut after `MAX_MESSAGE_CHARS` characters, marked as cut.
pub fn shortened(message: &str) -> std::borrow::Cow<'_, str> {
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => std::borrow::Cow::Borrowed(message),
        Some((cut, _)) => std::borrow::Cow::Owned(format!(
            "{}…[message cut: {} bytes]",
            &message[..cut],
            message.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_quoted_as_a_marked_excerpt() {
        assert_eq!(excerpt("pricing"), "pricing");
        assert_eq!(quoted("a\nb"), "\"a\\nb\"");
        let long = "é".repeat(1000);
        let cut = excerpt(&long);
        assert_eq!(cut, format!("{}…[2000 bytes]", "é".repeat(EXCERPT_CHARS)));
        assert!(quoted(&long).ends_with("\"…[2000 bytes]"));
        assert_eq!(shortened("short"), "short");
        let message = "x".repeat(10_000);
        let short = shortened(&message);
        assert!(short.len() < MAX_MESSAGE_CHARS + 40, "{short}");
        assert!(short.ends_with("…[message cut: 10000 bytes]"));
    }
}
