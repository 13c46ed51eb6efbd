//! The `outl` binary's command line: `mcp` and `serve` start the MCP transports, `call` runs
//! one tool and prints its un-projected `{ok, data, error}` envelope, `tools` prints the
//! registry. The layers below are crates, each using only those before it: `outl-format` (the
//! page format), `outl-workspace` (the store), `outl-tools` (the handlers and their registry),
//! `outl-mcp` (the protocol and its transports). ARCHITECTURE.md maps them and states the
//! invariants.

pub mod cli;
