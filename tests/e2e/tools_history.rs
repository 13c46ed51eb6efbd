//! The history tools over MCP stdio on a copy of the demo workspace: the op log, undo and
//! redo, each one's success reply in its projected shape and its errors.

use std::fs;
use std::path::Path;

use crate::mcp_support::{StdioSession, demo_workspace, json_payload, outl_call, tool_error};
use serde_json::{Value, json};

/// The decision block of the demo's Pricing page, with its own `id::` property.
const DECISION: &str = "6f3a2c";

fn pricing(ws: &Path) -> String {
    fs::read_to_string(ws.join("pages/Pricing.md")).expect("read the Pricing page")
}

/// `field` of every op of a log reply.
fn column(log: &Value, field: &str) -> Vec<Value> {
    log["ops"]
        .as_array()
        .expect("an op list")
        .iter()
        .map(|op| op[field].clone())
        .collect()
}

#[test]
fn log_lists_ops_newest_first_in_slices() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let empty = json_payload(&s.call("outl_log", json!({})));
    assert_eq!(empty, json!({ "ops": [] }));

    json_payload(&s.call(
        "outl_block_todo",
        json!({ "id": DECISION, "state": "TODO" }),
    ));
    json_payload(&s.call(
        "outl_block_move",
        json!({ "id": DECISION, "page": "Launch checklist" }),
    ));
    json_payload(&s.call("outl_undo", json!({})));

    let log = json_payload(&s.call("outl_log", json!({ "limit": 2 })));
    assert_eq!(column(&log, "seq"), [json!(3), json!(2)]);
    assert_eq!(column(&log, "kind"), [json!("undo"), json!("block.move")]);
    assert_eq!(log["ops"][0]["undoes"], 2);
    assert_eq!(
        log["ops"][1]["pages"],
        json!(["pricing", "launch checklist"])
    );
    assert!(log["ops"][1]["time"].as_str().unwrap().ends_with('Z'));
    let older = json_payload(&s.call(
        "outl_log",
        json!({ "limit": 2, "cursor": log["next_cursor"] }),
    ));
    assert_eq!(column(&older, "kind"), [json!("block.todo")]);
    assert_eq!(older["ops"][0]["pages"], json!(["pricing"]));
    assert!(older.get("next_cursor").is_none());

    let error = tool_error(&s.call("outl_log", json!({ "cursor": "-1" })));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    assert_eq!(error["data"]["problems"][0]["pointer"], "/cursor");
    s.finish();
}

#[test]
fn undo_reverts_the_newest_write_and_says_which() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    let original = pricing(ws.path());

    let error = tool_error(&s.call("outl_undo", json!({})));
    assert_eq!(error["code"], "NOTHING_TO_UNDO");

    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": DECISION, "text": "Decision: to be revisited" }),
    ));
    assert_ne!(pricing(ws.path()), original);
    let undone = json_payload(&s.call("outl_undo", json!({})));
    assert_eq!(undone["op"], 1);
    assert_eq!(undone["kind"], "block.update");
    assert_eq!(undone["pages"], json!(["pricing"]));
    assert_eq!(undone["logged_as"], 2);
    assert!(undone["summary"].as_str().unwrap().contains("Pricing"));
    assert_eq!(pricing(ws.path()), original);
    // The block kept its id through the round trip.
    let read = json_payload(&s.call("outl_block_get", json!({ "id": DECISION })));
    assert!(
        read["block"]["text"]
            .as_str()
            .unwrap()
            .starts_with("Decision: a flat")
    );

    let error = tool_error(&s.call("outl_undo", json!({})));
    assert_eq!(error["code"], "NOTHING_TO_UNDO");
    let error = tool_error(&s.call("outl_undo", json!({ "all": true })));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    s.finish();
}

#[test]
fn redo_reapplies_what_undo_reverted() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let error = tool_error(&s.call("outl_redo", json!({})));
    assert_eq!(error["code"], "NOTHING_TO_REDO");

    json_payload(&s.call("outl_block_delete", json!({ "id": DECISION })));
    let deleted = pricing(ws.path());
    json_payload(&s.call("outl_undo", json!({})));
    let redone = json_payload(&s.call("outl_redo", json!({})));
    assert_eq!(redone["op"], 1);
    assert_eq!(redone["kind"], "block.delete");
    assert_eq!(redone["pages"], json!(["pricing"]));
    assert_eq!(redone["logged_as"], 3);
    assert_eq!(pricing(ws.path()), deleted);

    // A new write after an undo clears what could be redone.
    json_payload(&s.call("outl_undo", json!({})));
    json_payload(&s.call(
        "outl_block_insert",
        json!({ "text": "a new thought", "page": "pricing" }),
    ));
    let error = tool_error(&s.call("outl_redo", json!({})));
    assert_eq!(error["code"], "NOTHING_TO_REDO");
    s.finish();

    // The CLI prints the log un-projected, the same ops.
    let envelope = outl_call(ws.path(), "outl_log", &json!({ "limit": 1 }), &[]);
    assert_eq!(envelope["ok"], true);
    assert_eq!(envelope["data"]["ops"][0]["kind"], "block.insert");
}
