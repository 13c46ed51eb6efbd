//! RFC 0276 over the real server: what the MCP projection drops and what it must keep, checked
//! on what handlers actually produce rather than on hand-written payloads.

use crate::mcp_support::{StdioSession, json_payload, outl_call, text_of, wire_payload};
use outl_format::Document;
use serde_json::{Value, json};

const TODAY: &str = "2026-03-14";

/// A page with a task, a collapsed block with a property, and a nested plain block.
const PAGE_MD: &str = "- TODO call [[Bob]] about #launch\n- shipped\n  collapsed:: true\n  priority:: high\n\t- notes with **bold**\n";

/// Checks that `sent`, a node as MCP sends it (`[id, text, fields, children]`), says what
/// `full`, the node `outl call` shows, says, but for the renderers' `tokens` and the fields at
/// their defaults.
fn assert_sent_as_the_cli_shows_it(sent: &Value, full: &Value) {
    let sent = sent.as_array().expect("a node is an array");
    assert_eq!(sent[0], full["id"]);
    assert_eq!(sent[1], full["text"]);
    let fields = sent.get(2).and_then(Value::as_object);
    let children = sent.last().filter(|last| last.is_array());
    assert_eq!(
        sent.len(),
        2 + usize::from(fields.is_some()) + usize::from(children.is_some()),
        "{sent:?}"
    );
    for (key, value) in full.as_object().expect("an object") {
        let default = match key.as_str() {
            "id" | "text" | "tokens" | "children" => continue,
            "todo" => value.is_null(),
            "collapsed" => value == false,
            "properties" => value == &json!({}),
            _ => false,
        };
        let field = fields.and_then(|fields| fields.get(key));
        assert_eq!(field, (!default).then_some(value), "{key} of {full}");
    }
    let full_children = full["children"].as_array().expect("children");
    let sent_children = children.and_then(Value::as_array);
    assert_eq!(sent_children.map_or(0, Vec::len), full_children.len());
    for (sent, full) in sent_children.into_iter().flatten().zip(full_children) {
        assert_sent_as_the_cli_shows_it(sent, full);
    }
}

fn walk<'a>(nodes: &'a Value, out: &mut Vec<&'a Value>) {
    for node in nodes.as_array().into_iter().flatten() {
        out.push(node);
        walk(&node["children"], out);
    }
}

#[test]
fn daily_today_over_mcp_returns_ids_a_write_tool_can_use() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let env = [("OUTL_TODAY", TODAY)];
    let mut session = StdioSession::initialized_with(ws.path(), &env);

    let written = json_payload(&session.call_tool(
        1,
        "outl_daily_append",
        json!({"md": "- TODO call Bob\n\t- notes\n"}),
    ));
    let written_ids = written["ids"]
        .as_array()
        .expect("the new blocks' ids")
        .clone();
    assert_eq!(written_ids.len(), 2);

    let today = json_payload(&session.call_tool(2, "outl_daily_today", json!({})));
    assert_eq!(today["date"], TODAY, "the reply names the day it opened");
    assert!(
        today["md"]
            .as_str()
            .is_some_and(|md| md.contains("TODO call Bob"))
    );
    let mut nodes = Vec::new();
    walk(&today["outline"], &mut nodes);
    let ids: Vec<Value> = nodes.iter().map(|node| node["id"].clone()).collect();
    assert_eq!(ids, written_ids, "the outline carries the block ids");
    assert_eq!(nodes[0]["todo"], "TODO");

    // "Read today's journal, tick a task": the id from the outline is what the write takes.
    let task = today["outline"][0]["id"]
        .as_str()
        .expect("the task's id")
        .to_owned();
    json_payload(&session.call_tool(3, "outl_block_todo", json!({"id": task, "state": "DONE"})));
    let day = json_payload(&session.call_tool(4, "outl_daily_get", json!({"date": TODAY})));
    assert_eq!(day["outline"][0]["id"], task);
    assert_eq!(day["outline"][0]["todo"], "DONE");
    session.finish();
}

#[test]
fn export_json_over_mcp_round_trips_into_the_parser_ast() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let mut session = StdioSession::initialized(ws.path());
    let created = json_payload(&session.call_tool(
        1,
        "outl_page_create",
        json!({"name": "Launch", "md": PAGE_MD}),
    ));
    let slug = created["slug"].as_str().expect("a slug").to_owned();

    let sent = json_payload(&session.call_tool(2, "outl_export_json", json!({"slug": slug})));
    let document: Document = serde_json::from_value(sent.clone())
        .expect("the export deserializes into the parser's type");
    assert!(
        document
            .blocks
            .iter()
            .any(|block| block.properties.is_empty()),
        "the fixture has blocks without properties, whose empty `properties` must survive"
    );
    session.finish();

    let envelope = outl_call(ws.path(), "outl_export_json", &json!({"slug": slug}), &[]);
    assert_eq!(envelope["ok"], true, "{envelope}");
    assert_eq!(
        sent, envelope["data"],
        "the projection changed the parser AST"
    );
}

#[test]
fn the_projection_drops_only_what_the_caller_can_rederive() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let mut session = StdioSession::initialized(ws.path());
    session.call_tool(
        1,
        "outl_page_create",
        json!({"name": "Launch", "md": PAGE_MD}),
    );
    let sent = wire_payload(&session.call_tool(2, "outl_page_get", json!({"slug": "launch"})));
    let rendered = session.call_tool(3, "outl_page_render", json!({"slug": "launch"}));
    session.finish();

    let envelope = outl_call(ws.path(), "outl_page_get", &json!({"slug": "launch"}), &[]);
    let full = &envelope["data"];
    let mut nodes = Vec::new();
    walk(&full["outline"], &mut nodes);
    assert!(
        nodes.iter().all(|node| node["tokens"].is_array()),
        "the CLI keeps tokens: {full}"
    );
    assert!(
        nodes
            .iter()
            .any(|node| node["collapsed"] == false && node["todo"].is_null())
    );
    assert_eq!(sent["slug"], full["slug"]);
    assert_eq!(sent["meta"], full["meta"]);
    let outline = sent["outline"].as_array().expect("the outline");
    let full_outline = full["outline"].as_array().expect("the outline");
    assert_eq!(outline.len(), full_outline.len());
    for (sent, full) in outline.iter().zip(full_outline) {
        assert_sent_as_the_cli_shows_it(sent, full);
    }

    let shipped = outline
        .iter()
        .find(|node| node[1] == "shipped")
        .expect("the collapsed block");
    assert_eq!(
        shipped[2],
        json!({"collapsed": true, "properties": {"priority": "high"}})
    );
    assert_eq!(shipped[3][0][1], "notes with **bold**");

    // A markdown tool sends its markdown alone: the slug it drops is the one the caller sent.
    let md = text_of(&rendered["result"]);
    assert!(
        md.contains("call [[Bob]]") && !md.trim_start().starts_with('{'),
        "{md}"
    );
}
