//! Undo and redo belong to the session that wrote: two stdio connections and two Streamable
//! HTTP sessions on one workspace, writing to different pages and to the same page, and a
//! session that starts after a restart. Every write can be undone, the journal day it created
//! included.

use std::fs;
use std::path::Path;

use crate::mcp_support::{
    HttpServer, StdioSession, demo_workspace, json_payload, open_once, tool_error,
};
use serde_json::{Value, json};

/// The decision block of the demo's Pricing page.
const DECISION: &str = "6f3a2c";

fn file(ws: &Path, page: &str) -> String {
    fs::read_to_string(ws.join("pages").join(format!("{page}.md"))).expect("read a page")
}

/// One way of calling a tool, over stdio or HTTP.
trait Calls {
    fn call_tool(&mut self, name: &str, arguments: Value) -> Value;
}

impl Calls for StdioSession {
    fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.call(name, arguments)
    }
}

impl Calls for crate::mcp_support::HttpSession {
    fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        self.call(name, arguments)
    }
}

/// Session `a` writes Pricing, `b` writes Launch checklist after it: each one's bare undo
/// reverts its own write and leaves the other's alone, and each sees its own ops as `yours`.
fn undo_keeps_to_its_session(ws: &Path, a: &mut dyn Calls, b: &mut dyn Calls) {
    let (pricing, checklist) = (file(ws, "Pricing"), file(ws, "Launch checklist"));
    json_payload(&a.call_tool(
        "outl_block_update",
        json!({ "id": DECISION, "text": "Decision: revisit in March" }),
    ));
    let a_wrote = file(ws, "Pricing");
    json_payload(&b.call_tool(
        "outl_page_append",
        json!({ "slug": "launch checklist", "md": "- b's note" }),
    ));
    let b_wrote = file(ws, "Launch checklist");

    let log = json_payload(&a.call_tool("outl_log", json!({})));
    assert_eq!(log["ops"][0]["kind"], "page.append");
    assert!(
        log["ops"][0].get("yours").is_none(),
        "b's op is not a's: {log}"
    );
    assert_eq!(log["ops"][1]["yours"], true);

    // a's undo skips b's newer write on another page and reverts a's own.
    let undone = json_payload(&a.call_tool("outl_undo", json!({})));
    assert_eq!(undone["op"], 1);
    assert_eq!(undone["kind"], "block.update");
    assert_eq!(file(ws, "Pricing"), pricing);
    assert_eq!(file(ws, "Launch checklist"), b_wrote);
    let error = tool_error(&a.call_tool("outl_undo", json!({})));
    assert_eq!(error["code"], "NOTHING_TO_UNDO");

    // b's undo is b's write; a's redo is a's.
    let undone = json_payload(&b.call_tool("outl_undo", json!({})));
    assert_eq!(undone["op"], 2);
    assert_eq!(file(ws, "Launch checklist"), checklist);
    let redone = json_payload(&a.call_tool("outl_redo", json!({})));
    assert_eq!(redone["op"], 1);
    assert_eq!(file(ws, "Pricing"), a_wrote);
    let error = tool_error(&a.call_tool("outl_redo", json!({})));
    assert_eq!(error["code"], "NOTHING_TO_REDO");
}

/// `a` and then `b` write Pricing: a's undo is refused with CONFLICT naming b's op, which b
/// undoes first; then a's goes through and the page is as it was.
fn undo_on_a_shared_page_waits_for_the_later_write(
    ws: &Path,
    a: &mut dyn Calls,
    b: &mut dyn Calls,
) {
    let pricing = file(ws, "Pricing");
    let first = json_payload(&a.call_tool(
        "outl_block_update",
        json!({ "id": DECISION, "text": "Decision: a's word" }),
    ));
    assert!(first.is_object());
    json_payload(&b.call_tool(
        "outl_page_append",
        json!({ "slug": "pricing", "md": "- b's line" }),
    ));
    let log = json_payload(&b.call_tool("outl_log", json!({ "limit": 1 })));
    let b_seq = log["ops"][0]["seq"].as_u64().expect("b's seq");

    let error = tool_error(&a.call_tool("outl_undo", json!({})));
    assert_eq!(error["code"], "CONFLICT", "{error}");
    assert_eq!(error["data"]["changed_by"], b_seq);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains(&format!("op {b_seq} (page.append)")),
        "{error}"
    );
    assert!(
        file(ws, "Pricing").contains("b's line"),
        "a refused undo writes nothing"
    );

    json_payload(&b.call_tool("outl_undo", json!({})));
    json_payload(&a.call_tool("outl_undo", json!({})));
    assert_eq!(file(ws, "Pricing"), pricing);
}

#[test]
fn two_stdio_sessions_undo_their_own_writes() {
    let ws = demo_workspace();
    let mut a = StdioSession::initialized(ws.path());
    let mut b = StdioSession::initialized(ws.path());
    undo_keeps_to_its_session(ws.path(), &mut a, &mut b);
    a.finish();
    b.finish();
}

#[test]
fn two_stdio_sessions_on_one_page() {
    let ws = demo_workspace();
    let mut a = StdioSession::initialized(ws.path());
    let mut b = StdioSession::initialized(ws.path());
    undo_on_a_shared_page_waits_for_the_later_write(ws.path(), &mut a, &mut b);
    a.finish();
    b.finish();
}

#[test]
fn two_http_sessions_undo_their_own_writes() {
    let ws = demo_workspace();
    open_once(ws.path());
    let server = HttpServer::start(ws.path(), &[]);
    let (mut a, mut b) = (server.session(), server.session());
    undo_keeps_to_its_session(ws.path(), &mut a, &mut b);
}

#[test]
fn two_http_sessions_on_one_page() {
    let ws = demo_workspace();
    open_once(ws.path());
    let server = HttpServer::start(ws.path(), &[]);
    let (mut a, mut b) = (server.session(), server.session());
    undo_on_a_shared_page_waits_for_the_later_write(ws.path(), &mut a, &mut b);
}

#[test]
fn after_a_restart_undo_names_the_op() {
    let ws = demo_workspace();
    let pricing = file(ws.path(), "Pricing");
    let mut before = StdioSession::initialized(ws.path());
    json_payload(&before.call("outl_block_delete", json!({ "id": DECISION })));
    before.finish();

    // A new connection is a new session: its bare undo has nothing of its own to revert...
    let mut after = StdioSession::initialized(ws.path());
    let error = tool_error(&after.call("outl_undo", json!({})));
    assert_eq!(error["code"], "NOTHING_TO_UNDO");
    let log = json_payload(&after.call("outl_log", json!({})));
    assert!(log["ops"][0].get("yours").is_none());

    // ...and it can undo the earlier session's op by its seq, then that undo by its own.
    let undone = json_payload(&after.call("outl_undo", json!({ "op": 1 })));
    assert_eq!(undone["kind"], "block.delete");
    assert_eq!(undone["logged_as"], 2);
    assert_eq!(file(ws.path(), "Pricing"), pricing);
    let error = tool_error(&after.call("outl_undo", json!({ "op": 1 })));
    assert_eq!(error["code"], "NOTHING_TO_UNDO");
    assert_eq!(error["data"]["undone_by"], 2);
    let redone = json_payload(&after.call("outl_undo", json!({ "op": 2 })));
    assert_eq!(redone["op"], 1);
    assert!(!file(ws.path(), "Pricing").contains("Decision: a flat"));
    let error = tool_error(&after.call("outl_undo", json!({ "op": 99 })));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    assert_eq!(error["data"]["pointer"], "/op");
    after.finish();
}

#[test]
fn undoing_an_append_to_a_new_day_removes_the_day() {
    let ws = demo_workspace();
    let day = ws.path().join("journals/2026_12_03.md");
    let mut s = StdioSession::initialized_with(ws.path(), &[("OUTL_TODAY", "2026-12-03")]);
    json_payload(&s.call("outl_daily_append", json!({ "md": "- first note" })));
    assert!(day.exists());

    let undone = json_payload(&s.call("outl_undo", json!({})));
    assert_eq!(undone["kind"], "page.append");
    assert!(!day.exists(), "the day the append created is gone again");
    let error = tool_error(&s.call("outl_daily_get", json!({ "date": "2026-12-03" })));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");

    json_payload(&s.call("outl_redo", json!({})));
    assert_eq!(fs::read_to_string(&day).unwrap(), "- first note\n");
    s.finish();
}
