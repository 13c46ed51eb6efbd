//! The MCP surface: the registry's runtime types, the reply projection, the protocol handler
//! and its transports.

pub mod http;
pub(crate) mod json;
pub mod payload;
pub mod registry;
pub mod server;
pub mod stdio;
