//! `outl mcp` over stdio, driven as a host would drive it: the handshake, tools/list,
//! tools/call, errors, and bad input that must never end the session.

use std::time::Duration;

use crate::mcp_support::{StdioSession, text_of};
use serde_json::{Value, json};

fn workspace() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp workspace")
}

#[test]
fn initialize_lists_tools_and_calls_one() {
    let ws = workspace();
    let mut session = StdioSession::start(ws.path());

    let init = session.initialize("2025-06-18");
    let result = &init["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(result["serverInfo"]["name"], "outl");
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        result["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("block"))
    );
    assert!(result["capabilities"]["tools"].is_object());

    let listed = session.request(1, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("a tool list");
    let info = tools
        .iter()
        .find(|t| t["name"] == "outl_workspace_info")
        .expect("outl_workspace_info is listed");
    assert!(
        info.get("title").is_none(),
        "a host shows a tool by its name"
    );
    assert!(info["description"].is_string());
    assert_eq!(info["inputSchema"]["type"], "object");
    // Only the hints that differ from the spec's defaults, and none that a read cannot mean.
    assert_eq!(
        info["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    let undo = tools
        .iter()
        .find(|t| t["name"] == "outl_undo")
        .expect("outl_undo is listed");
    assert_eq!(undo["annotations"], json!({"openWorldHint": false}));
    for tool in tools {
        assert!(
            tool.get("outputSchema").is_none(),
            "{} declares an outputSchema",
            tool["name"]
        );
    }

    let called = session.call_tool(2, "outl_workspace_info", json!({}));
    let result = &called["result"];
    assert!(
        result.get("structuredContent").is_none(),
        "a success carries no structuredContent: {result}"
    );
    assert_ne!(result["isError"], true);
    let text = text_of(result);
    assert!(!text.contains('\n'), "the payload is compact JSON: {text}");
    let data: Value = serde_json::from_str(text).expect("the payload is JSON");
    assert!(data.is_object(), "{data}");

    session.finish();
}

#[test]
fn every_supported_version_is_served_and_others_get_the_latest() {
    for (asked, served) in [
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        // 2026-07-28 has no initialize handshake: asking for it there gets the newest that has.
        ("2026-07-28", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let ws = workspace();
        let mut session = StdioSession::start(ws.path());
        let init = session.initialize(asked);
        assert_eq!(
            init["result"]["protocolVersion"], served,
            "asked for {asked}"
        );
        let listed = session.request(1, "tools/list", json!({}));
        assert!(
            listed["result"]["tools"].is_array(),
            "tools/list after {asked}: {listed}"
        );
        session.finish();
    }
}

#[test]
fn unknown_tool_is_a_protocol_error_naming_it() {
    let ws = workspace();
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    let reply = session.call_tool(1, "outl_no_such_tool", json!({}));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("outl_no_such_tool"))
    );
    // The session goes on.
    let listed = session.request(2, "tools/list", json!({}));
    assert!(listed["result"]["tools"].is_array());
    session.finish();
}

#[test]
fn undecodable_arguments_are_a_tool_error_listing_the_problems() {
    let ws = workspace();
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    let reply = session.call_tool(1, "outl_workspace_info", json!({"no_such_argument": 1}));
    let result = &reply["result"];
    assert_eq!(result["isError"], true, "{reply}");
    let error = &result["structuredContent"]["error"];
    assert_eq!(result["structuredContent"]["ok"], false);
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    let problems = error["data"]["problems"]
        .as_array()
        .expect("error.data.problems");
    assert!(!problems.is_empty());
    let text = text_of(result);
    assert!(
        text.starts_with("INVALID_ARGUMENTS: ") && !text.contains('\n'),
        "{text}"
    );
    session.finish();
}

#[test]
fn bad_input_is_answered_and_never_ends_the_session() {
    let ws = workspace();
    let mut session = StdioSession::start(ws.path());

    // Before initialize.
    session.send_line("this is not json");
    let reply = session.recv();
    assert_eq!(reply["error"]["code"], -32700);
    assert_eq!(reply["id"], Value::Null);

    session.send_line("[1, 2, 3]");
    assert_eq!(session.recv()["error"]["code"], -32600);

    session.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let early = session.request(7, "tools/list", json!({}));
    assert!(
        early["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("initialize")),
        "{early}"
    );

    let pong = session.request(8, "ping", json!({}));
    assert!(pong["result"].is_object(), "{pong}");

    // The real handshake still works.
    let init = session.initialize("2025-11-25");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");

    session.send_line("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":");
    assert_eq!(session.recv()["error"]["code"], -32700);
    session.send_line(r#"{"jsonrpc":"2.0","id":10}"#);
    assert_eq!(session.recv()["error"]["code"], -32600);
    session
        .send_line(r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"arguments":{}}}"#);
    let bad_params = session.recv();
    assert_eq!(bad_params["error"]["code"], -32602);
    assert_eq!(bad_params["id"], 11);
    session.send_line("");
    session.send_line(r#"{"jsonrpc":"2.0","method":"notifications/no_such_notification"}"#);
    session.assert_silent(Duration::from_millis(300));

    let listed = session.request(12, "tools/list", json!({}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    let method = session.request(13, "no/such/method", json!({}));
    assert_eq!(method["error"]["code"], -32601, "{method}");
    let called = session.call_tool(14, "outl_workspace_info", json!({}));
    assert!(serde_json::from_str::<Value>(text_of(&called["result"])).is_ok());
    session.finish();
}

#[test]
fn an_oversized_message_is_refused_with_the_limit_and_the_session_reads_on() {
    const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
    let ws = workspace();
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    let padding = "x".repeat(MAX_LINE_BYTES);
    session.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": padding}}));
    let refused = session.recv();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["error"]["data"]["limit_bytes"], MAX_LINE_BYTES);
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("16 MiB (16777216 bytes)"), "{message}");
    session.assert_alive();
    session.finish();
}

#[test]
fn logs_never_reach_stdout() {
    let ws = workspace();
    let mut session = StdioSession::start_with(ws.path(), &[("RUST_LOG", "trace")]);
    session.initialize("2025-06-18");
    session.send_line("not json");
    session.recv();
    // `recv` already fails on any stdout line that is not a JSON-RPC message.
    session.request(1, "tools/list", json!({}));
    session.call_tool(2, "outl_workspace_info", json!({}));
    session.finish();
}

#[test]
fn input_that_ends_before_initialize_still_gets_its_answers_and_a_clean_exit() {
    let ws = workspace();
    let mut session = StdioSession::start(ws.path());
    session.send_line("garbage");
    assert_eq!(session.recv()["error"]["code"], -32700);
    session.finish();
}
