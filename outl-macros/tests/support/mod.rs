//! What the fixtures' server brings to the registry: the context its tools borrow and the error
//! they return. Nothing of it is outl's, so the cases compile with the runtime alone.

#![allow(dead_code, reason = "each case uses what it needs of it")]

use outl_registry::{Server, ToolError, Value};

/// A notes server's data; the fixtures' handlers read nothing of it.
pub struct Notes;

/// The notes server's tools.
pub struct NotesServer;

impl Server for NotesServer {
    type Context = Notes;
    type Error = Error;

    /// Its instructions describe these arguments once, for every tool.
    const SHARED_ARGS: &'static [&'static str] = &["slug", "id", "md", "limit", "cursor", "budget"];
}

#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub code: &'static str,
    pub message: String,
    pub data: Option<Value>,
}

impl Error {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            data: None,
        }
    }
}

impl ToolError for Error {
    fn code(&self) -> &str {
        self.code
    }

    fn message(&self) -> &str {
        &self.message
    }

    fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    fn invalid_arguments(message: String, data: Value) -> Self {
        Error {
            data: Some(data),
            ..Error::new("INVALID_ARGUMENTS", message)
        }
    }

    fn internal(message: String) -> Self {
        Error::new("INTERNAL", message)
    }
}
