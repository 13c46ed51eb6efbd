//! The MCP surface of outl: the protocol handler (`server`) and its two transports, stdio and
//! Streamable HTTP, with the screens in front of them. It serves the registry of `outl-tools`
//! through the registry runtime, whose projection every reply goes through; only this crate
//! speaks the protocol.

pub mod http;
pub mod server;
pub mod stdio;
