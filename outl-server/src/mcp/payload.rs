//! The one owner of the MCP reply shape (RFC 0276). Handlers compute the same data for the
//! CLI and for MCP; this module decides what of it reaches the MCP wire.
//!
//! A projection is a place to drop what the reader can re-derive, never the only copy: a
//! success drops GUI-only outline fields and, for markdown tools, the fields the caller
//! already has; an error drops nothing.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

use crate::Error;
use crate::mcp::registry::{Payload, Reply};

/// A success reply: content only, no `structuredContent` (no tool declares an output
/// schema, so none is owed). `content[0].text` is the pruned data as compact JSON, or for a
/// markdown tool the raw markdown of its field.
pub fn tool_success_payload(reply: &Reply) -> CallToolResult {
    let text = match reply.payload {
        Payload::Markdown { field } => match reply.data.get(field).and_then(Value::as_str) {
            Some(markdown) => markdown.to_owned(),
            // The macro checks that the field is a String, so this is a handler bug; sending
            // the whole payload keeps every field the caller could need.
            None => {
                tracing::error!(
                    field,
                    "markdown payload field missing from the reply; sending JSON"
                );
                compact_pruned_json(&reply.data)
            }
        },
        Payload::Json => compact_pruned_json(&reply.data),
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    // `isError` defaults to false; leaving it out keeps every success reply minimal.
    result.is_error = None;
    result
}

fn compact_pruned_json(data: &Value) -> String {
    let mut data = data.clone();
    prune_gui_fields(&mut data);
    // Serializing a `Value` cannot fail: its map keys are always strings.
    serde_json::to_string(&data).unwrap_or_default()
}

/// Removes what only a GUI renderer needs from every handler-layer outline node, recursively.
///
/// A handler-layer node is an object carrying `id`, `text` and `children`. The `id` in that
/// guard is load-bearing: the parser AST (`text`, `properties`, `children`, no `id`) must
/// deserialize back into its own type, whose `properties` has no serde default.
pub fn prune_gui_fields(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(prune_gui_fields),
        Value::Object(node) => {
            if is_handler_outline_node(node) {
                node.shift_remove("tokens");
                remove_if(node, "collapsed", |v| *v == Value::Bool(false));
                remove_if(node, "todo", Value::is_null);
                remove_if(node, "properties", is_empty_collection);
            }
            node.values_mut().for_each(prune_gui_fields);
        }
        _ => {}
    }
}

fn is_handler_outline_node(node: &Map<String, Value>) -> bool {
    ["id", "text", "children"]
        .iter()
        .all(|key| node.contains_key(*key))
}

fn remove_if(node: &mut Map<String, Value>, key: &str, noise: impl Fn(&Value) -> bool) {
    if node.get(key).is_some_and(noise) {
        node.shift_remove(key);
    }
}

fn is_empty_collection(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// An error reply keeps its envelope: `structuredContent` is the only machine-readable copy
/// of `error.data` (RFC 0276 decision 3); the text is a one-line `CODE: message` summary.
pub fn tool_error_payload(err: &Error) -> CallToolResult {
    let summary = format!("{}: {}", err.code, one_line(&err.message));
    let mut result = CallToolResult::error(vec![ContentBlock::text(summary)]);
    result.structured_content = Some(json!({ "ok": false, "error": err }));
    result
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use crate::actions::REGISTRY;
    use crate::outline::{Document, OutlineNode};

    fn text_of(result: &CallToolResult) -> &str {
        match result.content.as_slice() {
            [ContentBlock::Text(text)] => &text.text,
            other => panic!("expected exactly one text block, got {other:?}"),
        }
    }

    fn wire(result: &CallToolResult) -> Value {
        serde_json::to_value(result).expect("a CallToolResult serializes")
    }

    fn handler_node(id: &str, text: &str, children: Vec<Value>) -> Value {
        json!({
            "id": id,
            "text": text,
            "todo": null,
            "collapsed": false,
            "properties": {},
            "tokens": [{"kind": "text", "text": text}],
            "children": children,
        })
    }

    #[test]
    fn success_payload_is_content_only_and_compact() {
        let data = json!({"slug": "project-x", "blocks": [handler_node("a1", "hello", vec![])]});
        let result = tool_success_payload(&Reply {
            payload: Payload::Json,
            data,
        });
        let wire = wire(&result);
        assert!(
            wire.get("structuredContent").is_none(),
            "success regained structuredContent: {wire}"
        );
        assert!(wire.get("isError").is_none());
        let text = text_of(&result);
        assert_eq!(
            text,
            r#"{"slug":"project-x","blocks":[{"id":"a1","text":"hello","children":[]}]}"#
        );
        assert!(!text.contains('\n'), "success text is pretty-printed");

        let markdown = Reply {
            payload: Payload::Markdown { field: "md" },
            data: json!({"slug": "project-x", "md": "- one\n  - two\n"}),
        };
        let result = tool_success_payload(&markdown);
        assert!(wire_of_markdown_has_no_envelope(&result));
        assert_eq!(text_of(&result), "- one\n  - two\n");
    }

    fn wire_of_markdown_has_no_envelope(result: &CallToolResult) -> bool {
        let wire = wire(result);
        wire.get("structuredContent").is_none()
            && wire["content"].as_array().map(Vec::len) == Some(1)
    }

    #[test]
    fn error_payload_keeps_structured_content() {
        let err = Error::new(
            ErrorCode::PageMarkdownAheadOfLog,
            "pages/x.md changed outside outl;\nreconcile it",
        )
        .with_data(json!({
            "path": "pages/x.md",
            "lines": [3, 4],
            "sample": "- edited by hand",
            "recovery_command": "outl call outl_page_reconcile --args '{\"slug\":\"x\"}'",
        }));
        let result = tool_error_payload(&err);
        let wire = wire(&result);
        assert_eq!(wire["isError"], json!(true));
        assert_eq!(
            wire["structuredContent"],
            json!({
                "ok": false,
                "error": {
                    "code": "PAGE_MARKDOWN_AHEAD_OF_LOG",
                    "message": "pages/x.md changed outside outl;\nreconcile it",
                    "data": {
                        "path": "pages/x.md",
                        "lines": [3, 4],
                        "sample": "- edited by hand",
                        "recovery_command": "outl call outl_page_reconcile --args '{\"slug\":\"x\"}'",
                    },
                },
            })
        );
        assert_eq!(
            text_of(&result),
            "PAGE_MARKDOWN_AHEAD_OF_LOG: pages/x.md changed outside outl; reconcile it"
        );
    }

    #[test]
    fn journal_reads_keep_their_ids_and_date() {
        // Their outline is the only place block ids reach the caller, and `date` the only
        // thing naming the day outl_daily_today opened: flattening them to `md` loses both.
        for name in ["outl_daily_today", "outl_daily_get"] {
            let tool = REGISTRY
                .get(name)
                .unwrap_or_else(|| panic!("{name} is registered"));
            assert_eq!(
                tool.spec.payload,
                Payload::Json,
                "{name} must stay a JSON payload"
            );
        }
        let data = json!({
            "date": "2026-03-14",
            "meta": {"path": "journals/2026_03_14.md"},
            "outline": [handler_node("k3f9q2", "TODO call Bob", vec![handler_node("m2x7", "notes", vec![])])],
            "md": "- TODO call Bob\n\t- notes\n",
        });
        let result = tool_success_payload(&Reply {
            payload: Payload::Json,
            data,
        });
        let sent: Value = serde_json::from_str(text_of(&result)).expect("journal text is JSON");
        assert_eq!(sent["date"], "2026-03-14");
        assert_eq!(sent["outline"][0]["id"], "k3f9q2");
        assert_eq!(sent["outline"][0]["children"][0]["id"], "m2x7");
        assert_eq!(sent["md"], "- TODO call Bob\n\t- notes\n");
    }

    #[test]
    fn pruning_keeps_what_is_not_noise() {
        let mut node = json!({
            "id": "b1",
            "text": "DONE ship",
            "todo": "DONE",
            "collapsed": true,
            "properties": {"priority": "high"},
            "tokens": [],
            "children": [],
        });
        prune_gui_fields(&mut node);
        assert_eq!(
            node,
            json!({
                "id": "b1",
                "text": "DONE ship",
                "todo": "DONE",
                "collapsed": true,
                "properties": {"priority": "high"},
                "children": [],
            })
        );
    }

    #[test]
    fn pruning_leaves_the_parser_ast_alone() {
        let document = Document {
            properties: Default::default(),
            blocks: vec![OutlineNode {
                text: "no properties here".into(),
                properties: Default::default(),
                children: vec![OutlineNode {
                    text: "nor here".into(),
                    properties: Default::default(),
                    children: vec![],
                }],
            }],
        };
        let data = serde_json::to_value(&document).expect("the AST serializes");
        let result = tool_success_payload(&Reply {
            payload: Payload::Json,
            data: data.clone(),
        });
        let sent: Value = serde_json::from_str(text_of(&result)).expect("JSON text");
        assert_eq!(sent, data, "the projection changed the parser AST");
        let back: Document =
            serde_json::from_value(sent).expect("the AST deserializes back into its own type");
        assert_eq!(back, document);
    }
}
