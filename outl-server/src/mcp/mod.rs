//! The MCP surface: the reply projection, the protocol handler and its transports, on the
//! registry runtime of `outl-registry`.

pub mod http;
pub mod server;
pub mod stdio;

use crate::workspace::Workspace;

/// outl's tools run against a workspace: the arguments the server's instructions describe
/// once, and the projection: a JSON payload in each type's compact form, where an outline node
/// is an array without what only a GUI renderer needs (`actions::outline::OutlineNode`; the
/// projection's tests are `outl-bench/tests/projection.rs`, beside the workspace generator).
impl outl_registry::ToolContext for Workspace {
    const SHARED_ARGS: &'static [&'static str] = &server::SHARED_ARGS;

    fn success_json<T: serde::Serialize + ?Sized>(output: &T) -> serde_json::Result<String> {
        outl_registry::json::compact_form(output)
    }
}
