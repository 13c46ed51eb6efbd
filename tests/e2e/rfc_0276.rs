//! RFC 0276 (and RFC 0255's refusal) on the demo workspace through the real binary: block ids
//! read from a journal are the ones a write tool takes, a refusal's data reaches the caller
//! only through `structuredContent`, and the CLI keeps what the MCP projection drops.

use std::fs;

use crate::mcp_support::{
    StdioSession, demo_workspace, json_payload, outl_call, outline_nodes, text_of,
};
use serde_json::json;

/// The demo's last day: a TODO among its blocks.
const DEMO_LAST_DAY: &str = "2026-11-29";

#[test]
fn daily_today_ids_are_what_block_todo_takes() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized_with(ws.path(), &[("OUTL_TODAY", DEMO_LAST_DAY)]);

    let today = json_payload(&s.call("outl_daily_today", json!({})));
    assert_eq!(today["date"], DEMO_LAST_DAY);
    let task = outline_nodes(&today["outline"])
        .into_iter()
        .find(|node| node["todo"] == "TODO")
        .expect("the day has an open task")
        .clone();
    let id = task["id"].as_str().expect("the outline carries ids");

    json_payload(&s.call("outl_block_todo", json!({"id": id, "state": "DONE"})));
    let after = json_payload(&s.call("outl_daily_today", json!({})));
    let done = outline_nodes(&after["outline"])
        .into_iter()
        .find(|node| node["id"] == id)
        .expect("the block keeps its id");
    assert_eq!(done["todo"], "DONE");
    assert_eq!(done["text"], task["text"]);
    assert!(after["md"].as_str().unwrap().contains("- DONE [#B] Agenda"));
    s.finish();
}

#[test]
fn frozen_page_update_returns_structured_refusal_not_a_generic_error() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    // outl reads the page, then another editor changes it.
    json_payload(&s.call("outl_page_get", json!({"slug": "pricing"})));
    let file = ws.path().join("pages/Pricing.md");
    let mut md = fs::read_to_string(&file).unwrap();
    md.push_str("- Edited in another app\n");
    fs::write(&file, &md).unwrap();
    let added_line = md.lines().count();

    let reply = s.call(
        "outl_page_update",
        json!({"slug": "pricing", "md": "- replaced\n"}),
    );
    let result = &reply["result"];
    assert_eq!(result["isError"], true);
    let summary = text_of(result);
    assert!(
        summary.starts_with("PAGE_MARKDOWN_AHEAD_OF_LOG: ") && !summary.contains('\n'),
        "the text is a summary: {summary}"
    );
    assert_eq!(result["structuredContent"]["ok"], false);
    let error = &result["structuredContent"]["error"];
    assert_eq!(error["code"], "PAGE_MARKDOWN_AHEAD_OF_LOG");
    let data = &error["data"];
    assert_eq!(data["path"], "pages/Pricing.md");
    assert_eq!(data["lines"], added_line.to_string());
    assert_eq!(data["sample"], json!(["+ - Edited in another app"]));
    let command = data["recovery_command"]
        .as_str()
        .expect("a recovery command");
    assert_eq!(
        command,
        r#"outl call outl_page_reconcile --args '{"slug":"pricing"}'"#
    );
    // Nothing was written over the outside edit.
    assert_eq!(fs::read_to_string(&file).unwrap(), md);
    s.finish();

    // The recovery command, run as printed (with this build's binary), unfreezes the page.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{} --workspace \"$WS\"",
            command.replacen("outl", crate::mcp_support::OUTL, 1)
        ))
        .env("WS", ws.path())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run the recovery command");
    assert!(status.success());
    let mut s = StdioSession::initialized(ws.path());
    json_payload(&s.call(
        "outl_page_update",
        json!({"slug": "pricing", "md": "- replaced\n"}),
    ));
    assert_eq!(fs::read_to_string(&file).unwrap(), "- replaced\n");
    s.finish();
}

#[test]
fn cli_daily_today_keeps_what_the_projection_drops() {
    let ws = demo_workspace();
    let env = [("OUTL_TODAY", "2026-11-24")];
    let envelope = outl_call(ws.path(), "outl_daily_today", &json!({}), &env);
    assert_eq!(envelope["ok"], true, "{envelope}");
    let full = outline_nodes(&envelope["data"]["outline"]);
    for node in &full {
        assert!(node["tokens"].is_array(), "{node}");
        assert!(node["collapsed"].is_boolean(), "{node}");
        assert!(node["properties"].is_object(), "{node}");
        assert!(node.get("todo").is_some(), "{node}");
    }
    assert!(full.iter().any(|node| node["collapsed"] == true));
    assert!(full.iter().any(|node| node["todo"].is_null()));

    let mut s = StdioSession::initialized_with(ws.path(), &env);
    let sent = json_payload(&s.call("outl_daily_today", json!({})));
    s.finish();
    let projected = outline_nodes(&sent["outline"]);
    assert_eq!(projected.len(), full.len());
    for (sent, full) in projected.iter().zip(&full) {
        assert_eq!(sent["id"], full["id"]);
        assert_eq!(sent["text"], full["text"]);
        assert_eq!(sent.get("collapsed").is_some(), full["collapsed"] == true);
        assert_eq!(sent.get("todo").is_some(), !full["todo"].is_null());
    }
    assert_eq!(sent["md"], envelope["data"]["md"]);
    assert_eq!(sent["date"], envelope["data"]["date"]);
}
