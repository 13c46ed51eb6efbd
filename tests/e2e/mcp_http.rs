//! `outl serve`: Streamable HTTP at /mcp and the guards in front of it.

use crate::mcp_support::{HttpServer, initialize_params, text_of};
use serde_json::{Value, json};

const TOKEN: &str = "s3cret-token";

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_params("2025-06-18")})
}

#[test]
fn a_session_initializes_lists_and_calls() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let server = HttpServer::start(ws.path(), &[]);

    let init = server.post_json(&initialize(), &[]);
    assert_eq!(init.status, 200, "{init:?}");
    let session = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let messages = init.messages().expect("JSON-RPC messages");
    assert_eq!(
        messages[0]["result"]["protocolVersion"], "2025-06-18",
        "{init:?}"
    );
    assert_eq!(messages[0]["result"]["serverInfo"]["name"], "outl");

    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let initialized = server.post_json(
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        &headers,
    );
    assert_eq!(initialized.status, 202, "{initialized:?}");

    let listed = server.post_json(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        &headers,
    );
    assert_eq!(listed.status, 200, "{listed:?}");
    let tools = listed.messages().expect("JSON-RPC messages")[0]["result"]["tools"]
        .as_array()
        .cloned()
        .expect("a tool list");
    assert!(tools.iter().any(|t| t["name"] == "outl_workspace_info"));
    assert!(tools.iter().all(|t| t.get("outputSchema").is_none()));

    let called = server.post_json(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "outl_workspace_info", "arguments": {}}}),
        &headers,
    );
    let result = &called.messages().expect("JSON-RPC messages")[0]["result"];
    assert!(result.get("structuredContent").is_none(), "{result}");
    assert!(serde_json::from_str::<Value>(text_of(result)).is_ok());
}

#[test]
fn a_token_is_required_when_set_and_checked_first() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let server = HttpServer::start(ws.path(), &["--token", TOKEN]);

    let missing = server.post_json(&initialize(), &[]);
    assert_eq!(missing.status, 401, "{missing:?}");
    assert!(
        missing
            .header("www-authenticate")
            .is_some_and(|v| v.starts_with("Bearer"))
    );
    assert!(
        missing.header("mcp-session-id").is_none(),
        "a refused request opened a session"
    );

    let wrong = server.post_json(&initialize(), &[("Authorization", "Bearer not-the-token")]);
    assert_eq!(wrong.status, 401);

    // Even a request that would be refused for its Origin is refused for the token first.
    let foreign = server.post_json(&initialize(), &[("Origin", "http://evil.example")]);
    assert_eq!(foreign.status, 401);

    let bearer = format!("Bearer {TOKEN}");
    let ok = server.post_json(&initialize(), &[("Authorization", bearer.as_str())]);
    assert_eq!(ok.status, 200, "{ok:?}");
    assert_eq!(
        ok.messages().expect("JSON-RPC messages")[0]["result"]["serverInfo"]["name"],
        "outl"
    );
}

#[test]
fn foreign_origins_and_hosts_are_refused() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let server = HttpServer::start(ws.path(), &[]);

    let foreign = server.post_json(&initialize(), &[("Origin", "http://evil.example")]);
    assert_eq!(foreign.status, 403, "{foreign:?}");

    let rebound = server.post_json(&initialize(), &[("Host", "evil.example")]);
    assert_eq!(rebound.status, 403, "{rebound:?}");

    let local_page = server.post_json(&initialize(), &[("Origin", "http://localhost:3000")]);
    assert_eq!(local_page.status, 200, "{local_page:?}");
}

#[test]
fn a_configured_origin_is_allowed() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let server = HttpServer::start(ws.path(), &["--allow-origin", "https://notes.example:443"]);
    let allowed = server.post_json(&initialize(), &[("Origin", "https://notes.example")]);
    assert_eq!(allowed.status, 200, "{allowed:?}");
    let other = server.post_json(&initialize(), &[("Origin", "https://other.example")]);
    assert_eq!(other.status, 403);
}

#[test]
fn a_huge_body_is_refused() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let server = HttpServer::start(ws.path(), &[]);
    let filler = "x".repeat(5 * 1024 * 1024);
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"padding": filler}});
    let refused = server.post_json(&body, &[]);
    assert_eq!(refused.status, 413, "{}", refused.status);
    let error = &refused.messages().expect("JSON-RPC messages")[0]["error"];
    assert_eq!(error["code"], -32600, "{error}");
    assert_eq!(error["data"]["limit_bytes"], 4 * 1024 * 1024);
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("4 MiB (4194304 bytes)"), "{message}");
    // The server is still there.
    let init = server.post_json(&initialize(), &[]);
    assert_eq!(init.status, 200);
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_the_server_even_with_a_stream_open() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let server = HttpServer::start(ws.path(), &[]);
    let init = server.post_json(&initialize(), &[]);
    let session = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let _stream = server.open_event_stream(&session);
    let status = server.interrupt();
    assert!(status.success(), "outl serve exited with {status}");
}

#[test]
fn serving_beyond_loopback_without_a_token_warns() {
    use std::io::BufRead;
    let ws = tempfile::tempdir().expect("temp workspace");
    let mut child = std::process::Command::new(crate::mcp_support::OUTL)
        .args(["serve", "--host", "0.0.0.0", "--port", "0", "--workspace"])
        .arg(ws.path())
        .env_remove("OUTL_TOKEN")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn outl serve");
    let stderr = child.stderr.take().expect("stderr");
    let lines: Vec<String> = std::io::BufReader::new(stderr)
        .lines()
        .take(2)
        .map(|line| line.expect("a stderr line"))
        .collect();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        lines[0].starts_with("outl: serving MCP at http://0.0.0.0:"),
        "{lines:?}"
    );
    assert!(lines[1].contains("--token is not set"), "{lines:?}");
}
