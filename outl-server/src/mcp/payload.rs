//! The one owner of outl's projection of a success reply (RFC 0276), which the registry runtime
//! calls through its hook (`impl ToolContext for Workspace`, in `mcp`): handlers compute the
//! same data for the CLI and for MCP, and a JSON payload reaches the MCP wire in its compact
//! form, outline nodes as arrays without what only a GUI renderer needs (see
//! `actions::outline::OutlineNode`). What a markdown payload sends and an error's envelope are
//! the runtime's (`outl_registry::tool_success_payload`, `tool_error_payload`).
//!
//! A projection is a place to drop what the reader can re-derive, never the only copy.
//!
//! Its tests, on hand-made replies and on every tool over generated workspaces, are in
//! `outl-bench/tests/projection.rs`, beside the workspace generator.

use std::cell::RefCell;
use std::io;

use serde::Serialize;

use crate::mcp::json;

/// The bytes `output` takes as the text of an MCP success reply of a JSON payload: what a
/// reply budget counts.
pub fn wire_len<T: Serialize + ?Sized>(output: &T) -> usize {
    success_json(output).map_or(0, |json| json.len())
}

/// The text of an MCP success reply of a JSON payload, outl's projection hook
/// ([`ToolContext::success_json`](outl_registry::ToolContext::success_json)): the output as
/// compact JSON written by a serializer that is not human-readable, so that a type with a
/// compact form of its own writes that (an outline node its array), as serde has a type do for
/// a binary format. It is written into a buffer kept by the thread (see [`json::with_buffer`])
/// and copied out once.
pub fn success_json<T: Serialize + ?Sized>(output: &T) -> Result<String, serde_json::Error> {
    json::with_buffer(&PROJECTION_BUFFER, |out| {
        json::write_compact_form(out, output)?;
        // The serializer writes UTF-8.
        std::str::from_utf8(out)
            .map(str::to_owned)
            .map_err(|e| serde_json::Error::io(io::Error::other(e)))
    })
}

thread_local! {
    /// What this thread's projections are written into.
    static PROJECTION_BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}
