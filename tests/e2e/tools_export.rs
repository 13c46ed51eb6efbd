//! The export and import tools over MCP stdio on a copy of the demo workspace: each one's
//! success reply in its projected shape, and its errors.

use std::fs;

use crate::mcp_support::{StdioSession, demo_workspace, json_payload, text_of, tool_error};
use outl_format::{self as outline, Document};
use serde_json::json;

#[test]
fn export_md_is_the_file_byte_for_byte() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let reply = s.call(
        "outl_export_md",
        json!({"slug": "postmortem: staging outage"}),
    );
    let result = &reply["result"];
    assert!(result.get("structuredContent").is_none(), "{result}");
    let stored =
        fs::read_to_string(ws.path().join("pages/Postmortem%3A staging outage.md")).unwrap();
    assert_eq!(text_of(result), stored);
    // Unlike outl_page_render, nothing is left out or resolved.
    let journal = s.call("outl_export_md", json!({"slug": "2026-11-25"}));
    assert!(text_of(&journal["result"]).contains("((6f3a2c))"));

    let error = tool_error(&s.call("outl_export_md", json!({"slug": "postmortem"})));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    assert_eq!(
        error["data"]["suggestions"][0],
        "postmortem: staging outage"
    );
    s.finish();
}

#[test]
fn export_json_keeps_the_parser_ast_whole() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let document = json_payload(&s.call("outl_export_json", json!({"slug": "Reading list"})));
    let parsed: Document =
        serde_json::from_value(document.clone()).expect("the reply is the parser's own type");
    let stored = fs::read_to_string(ws.path().join("pages/Reading list.md")).unwrap();
    assert_eq!(
        parsed,
        outline::parse(&stored),
        "the AST of the stored file"
    );
    assert_eq!(document["properties"], json!({"tags": "reading"}));
    let first = &document["blocks"][0];
    // The AST is not an outline node: its text keeps the marker, and an empty `properties`
    // stays, since its type has no default for it.
    assert_eq!(first["text"], "NOW [[Shape Up]] by Ryan Singer");
    assert_eq!(first["properties"], json!({}));
    assert!(first.get("id").is_none());

    let error = tool_error(&s.call("outl_export_json", json!({"page": "Reading list"})));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    let pointers: Vec<&str> = error["data"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pointer"].as_str().unwrap())
        .collect();
    assert!(
        pointers.contains(&"/page") && pointers.contains(&"/slug"),
        "{pointers:?}"
    );
    s.finish();
}

#[test]
fn import_md_creates_replaces_and_appends() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let created = json_payload(&s.call(
        "outl_import_md",
        json!({"name": "Standup", "md": "- Yesterday\n- Today\n", "mode": "create"}),
    ));
    assert_eq!(created["slug"], "standup");
    assert_eq!(created["created"], true);
    assert_eq!(created["ids"].as_array().unwrap().len(), 2);

    let replaced = json_payload(&s.call(
        "outl_import_md",
        json!({"name": "STANDUP", "md": "- Today\n- Blockers\n", "mode": "replace"}),
    ));
    assert_eq!(replaced["created"], false);
    assert_eq!(
        replaced["ids"][0], created["ids"][1],
        "the unchanged block keeps its id"
    );
    assert_eq!(
        fs::read_to_string(ws.path().join("pages/Standup.md")).unwrap(),
        "- Today\n- Blockers\n"
    );

    let appended = json_payload(&s.call(
        "outl_import_md",
        json!({"name": "standup", "md": "- Notes\n", "mode": "append"}),
    ));
    assert_eq!(appended["created"], false);
    assert!(appended.get("removed_ids").is_none());
    assert_eq!(
        fs::read_to_string(ws.path().join("pages/Standup.md")).unwrap(),
        "- Today\n- Blockers\n- Notes\n"
    );

    // Appending to a page that does not exist creates it.
    let fresh = json_payload(&s.call(
        "outl_import_md",
        json!({"name": "Offsite", "md": "- Where\n", "mode": "append"}),
    ));
    assert_eq!(
        (&fresh["slug"], &fresh["created"]),
        (&json!("offsite"), &json!(true))
    );

    let error = tool_error(&s.call(
        "outl_import_md",
        json!({"name": "Pricing", "md": "- x\n", "mode": "create"}),
    ));
    assert_eq!(error["code"], "PAGE_EXISTS");
    let error = tool_error(&s.call(
        "outl_import_md",
        json!({"name": "Pricing", "md": "- x\n", "mode": "merge"}),
    ));
    assert_eq!(error["data"]["problems"][0]["pointer"], "/mode");
    s.finish();
}
