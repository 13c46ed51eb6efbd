//! The MCP surface: the reply projection, the protocol handler and its transports, on the
//! registry runtime of `outl-registry`.

pub mod http;
pub(crate) mod json;
pub mod payload;
pub mod server;
pub mod stdio;

use crate::workspace::Workspace;

/// outl's tools run against a workspace: the arguments the server's instructions describe
/// once, and the projection that prunes GUI fields of outline nodes ([`payload`]).
impl outl_registry::ToolContext for Workspace {
    const SHARED_ARGS: &'static [&'static str] = &server::SHARED_ARGS;

    fn success_json<T: serde::Serialize + ?Sized>(output: &T) -> serde_json::Result<String> {
        payload::success_json(output)
    }
}
