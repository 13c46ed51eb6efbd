//! outl: an MCP server for outliner workspaces.
//!
//! Folders are the architecture: `outline` is the markdown format, `workspace` the pages on
//! disk, `actions` the tool handlers, `mcp` the protocol and the reply projection, `cli` the
//! command line and its un-projected envelope. The benchmarks are the `outl-bench` crate, which
//! uses this library; nothing here uses them.

pub mod actions;
pub mod cli;
mod error;
pub mod mcp;
pub mod outline;
pub mod workspace;

pub use error::{Error, ErrorCode, excerpt, quoted, shortened};
