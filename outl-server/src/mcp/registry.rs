//! The runtime half of the tool registry. `#[outl_macros::tool]` implements [`Tool`] for each
//! handler and `outl_macros::registry!` collects them into a [`Registry`]; nothing here is
//! written by hand per tool.

use serde_json::{Map, Value};

use crate::Error;
use crate::workspace::Workspace;

/// How a success reply is projected onto the MCP wire (RFC 0276 decision 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// The whole handler output as compact JSON, outline nodes pruned of GUI fields.
    Json,
    /// Only this `String` field of the handler output, as raw markdown; every other field is
    /// listed in the tool's `drops` with where the caller gets it instead.
    Markdown { field: &'static str },
}

/// Why a markdown payload may leave a field out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Justification {
    /// The caller sent it: the argument type has a field of the same name and, checked in
    /// debug builds, the handler returned the value the caller sent.
    Arg,
    /// Where else the caller can get it, in words.
    Elsewhere(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drop {
    pub field: &'static str,
    pub why: Justification,
}

/// MCP tool annotations. `openWorldHint` is always false: outl touches only its workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
}

/// Everything about a tool's wire shape that is fixed at compile time.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    /// The handler's doc comment.
    pub description: &'static str,
    pub payload: Payload,
    pub drops: &'static [Drop],
    pub annotations: Annotations,
}

/// A successful call before projection: the handler output exactly as the CLI prints it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub payload: Payload,
    pub data: Value,
}
