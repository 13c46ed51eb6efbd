//! End-to-end tests: each module drives the built `outl` binary over one area, through stdio,
//! Streamable HTTP or the CLI. They are one test target, so a new module only has to be named
//! here, and the binary links once.

mod mcp_support;

mod bad_input;
mod bounded_replies;
mod concurrency;
mod crash;
mod external_edit;
mod graph_config;
mod http_hostile;
mod logseq_files;
mod logseq_markdown;
mod mcp_http;
mod mcp_projection;
mod mcp_startup;
mod mcp_stdio;
mod reconcile;
mod rfc_0276;
mod surgical_writes;
mod tools_blocks;
mod tools_export;
mod tools_history;
mod tools_journal;
mod tools_pages;
mod tools_query;
mod tools_search;
mod undo_sessions;
mod workflows;
