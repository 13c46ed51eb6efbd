//! outl-client: an MCP client of a server binary, the one that outl's end-to-end tests and
//! its benchmarks both drive `outl` with.
//!
//! It owns the transports as a host uses them: a stdio session with the server as a child
//! process ([`StdioSession`]), and Streamable HTTP against a server on loopback
//! ([`HttpServer`], [`HttpSession`], and single raw requests). It spawns whatever command it is
//! given and speaks JSON-RPC; it may use std and serde_json (and libc's `poll` on Unix), and
//! nothing of outl's code. Every wait is bounded: a missing reply is an error, never a hang.
//! Replies are read on the calling thread through a buffer, so a timing covers the server
//! and the pipe or socket, not a hand-off between threads.
//!
//! Errors are `io::Error`s that say what was expected; what a caller asserts is its own.

mod http;
mod stdio;

use std::io;

use serde_json::{Value, json};

pub use self::http::{HttpResponse, HttpServer, HttpSession, post};
pub use self::stdio::StdioSession;

/// The `params` of an `initialize` request at protocol `version`, from client `name`.
pub fn initialize_params(version: &str, name: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": name, "version": env!("CARGO_PKG_VERSION")},
    })
}

/// A JSON-RPC request.
pub fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A JSON-RPC notification without params.
pub fn notification(method: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": method})
}

/// The `params` of a `tools/call`.
pub fn tool_call(name: &str, arguments: &Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

/// The `result` of a reply, or why there is none: a JSON-RPC error or an `isError` result.
pub fn result_of(mut reply: Value) -> io::Result<Value> {
    if let Some(error) = reply.get("error") {
        return Err(io::Error::other(format!("JSON-RPC error: {error}")));
    }
    let result = reply
        .get_mut("result")
        .map(Value::take)
        .ok_or_else(|| io::Error::other(format!("a reply without result: {reply}")))?;
    if result.get("isError") == Some(&Value::Bool(true)) {
        let text = result["content"][0]["text"].as_str().unwrap_or("");
        return Err(io::Error::other(format!("tool error: {text}")));
    }
    Ok(result)
}
