//! The one error type of outl: a stable code a caller can branch on, a message a person can
//! read, and `data` a model can act on. Handlers, the workspace and both wire surfaces share it.

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

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorCode::Io, e.to_string())
    }
}
