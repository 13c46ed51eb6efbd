//! outl: an MCP server for outliner workspaces.
//!
//! Folders are the architecture: `outline` is the markdown format, `workspace` the pages on
//! disk, `actions` the tool handlers, `mcp` the protocol and the reply projection, `cli` the
//! command line and its un-projected envelope; each may use those before it in this list.
//! The benchmarks are the `outl-bench` crate, which uses this library; nothing here uses
//! them. ARCHITECTURE.md maps the crates and modules and states the invariants.

pub mod actions;
pub mod cli;
mod error;
pub mod mcp;
pub mod workspace;

pub use error::{Error, ErrorCode, excerpt, quoted, shortened};
/// The outline format, a crate of its own: the leaf every layer here reads pages through.
pub use outl_format as outline;
