//! The MCP surface: the protocol handler and its transports, on the registry runtime of
//! `outl-registry` and outl's tools (`actions::Outl`, whose projection every reply goes through).

pub mod http;
pub mod server;
pub mod stdio;
