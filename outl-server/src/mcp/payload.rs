//! The one owner of the MCP reply shape (RFC 0276). Handlers compute the same data for the
//! CLI and for MCP; this module decides what of it reaches the MCP wire.
//!
//! A projection is a place to drop what the reader can re-derive, never the only copy: a
//! success drops GUI-only outline fields and, for markdown tools, the fields the caller
//! already has; an error drops nothing.

use std::cell::Cell;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

use crate::mcp::registry::{Payload, Reply};
use crate::{Error, ErrorCode};

/// A success reply: content only, no `structuredContent` (no tool declares an output
/// schema, so none is owed). `content[0].text` is the pruned data as compact JSON, or for a
/// markdown tool the raw markdown of its field. An output that cannot be serialized (a
/// handler bug) is sent as the error it is.
pub fn tool_success_payload(reply: &Reply) -> CallToolResult {
    match success_text(reply) {
        Ok(text) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            // `isError` defaults to false; leaving it out keeps every success reply minimal.
            result.is_error = None;
            result
        }
        Err(err) => tool_error_payload(&err),
    }
}

fn success_text(reply: &Reply) -> Result<String, Error> {
    match reply.payload {
        Payload::Markdown { field } => match reply.data()?.get_mut(field) {
            Some(Value::String(markdown)) => Ok(std::mem::take(markdown)),
            // The macro checks that the field is a String, so this is a handler bug; sending
            // the whole payload keeps every field the caller could need.
            _ => {
                tracing::error!(
                    field,
                    "markdown payload field missing from the reply; sending JSON"
                );
                compact_pruned_json(reply)
            }
        },
        Payload::Json => compact_pruned_json(reply),
    }
}

/// The reply's data as compact JSON without GUI fields: the bytes of [`prune_gui_fields`] on
/// its `Value` written compact, made without building that `Value` and without computing the
/// `tokens` it would prune.
fn compact_pruned_json(reply: &Reply) -> Result<String, Error> {
    let json = while_projecting(|| reply.compact_json())?;
    String::from_utf8(prune_compact_json(json.as_bytes())).map_err(|e| {
        Error::new(
            ErrorCode::Internal,
            format!("the pruned reply is not UTF-8: {e}"),
        )
    })
}

thread_local! {
    static PROJECTING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the value being serialized on this thread is an MCP success reply, from which every
/// handler outline node loses `tokens` whatever they hold (RFC 0276): a node asks, to leave
/// them out rather than compute them for nothing. What is sent does not depend on the answer;
/// the pruning removes `tokens` either way.
pub fn projecting() -> bool {
    PROJECTING.get()
}

/// `f` with [`projecting`] true; the flag is restored even if `f` panics.
fn while_projecting<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            PROJECTING.set(self.0);
        }
    }
    let _restore = Restore(PROJECTING.replace(true));
    f()
}

/// The keys that make an object a handler-layer outline node. The `id` is load-bearing: the
/// parser AST (`text`, `properties`, `children`, no `id`) must deserialize back into its own
/// type, whose `properties` has no serde default.
const NODE_KEYS: [&str; 3] = ["id", "text", "children"];

/// What the pruning looks at in a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    False,
    Null,
    EmptyCollection,
    Other,
}

impl Shape {
    fn of(value: &Value) -> Shape {
        match value {
            Value::Bool(false) => Shape::False,
            Value::Null => Shape::Null,
            Value::Object(map) if map.is_empty() => Shape::EmptyCollection,
            Value::Array(items) if items.is_empty() => Shape::EmptyCollection,
            _ => Shape::Other,
        }
    }
}

/// Whether a member of a handler-layer outline node is only for GUI renderers: `tokens`
/// always, `collapsed: false`, `todo: null` and empty `properties` as default noise.
fn is_gui_field(key: &[u8], value: Shape) -> bool {
    match key {
        b"tokens" => true,
        b"collapsed" => value == Shape::False,
        b"todo" => value == Shape::Null,
        b"properties" => value == Shape::EmptyCollection,
        _ => false,
    }
}

/// Removes what only a GUI renderer needs from every handler-layer outline node (an object
/// carrying `id`, `text` and `children`), recursively; nothing else is touched.
pub fn prune_gui_fields(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(prune_gui_fields),
        Value::Object(node) => {
            if is_handler_outline_node(node) {
                node.retain(|key, value| !is_gui_field(key.as_bytes(), Shape::of(value)));
            }
            node.values_mut().for_each(prune_gui_fields);
        }
        _ => {}
    }
}

fn is_handler_outline_node(node: &Map<String, Value>) -> bool {
    NODE_KEYS.iter().all(|key| node.contains_key(*key))
}

/// [`prune_gui_fields`] on compact JSON as serde_json writes it: the same bytes as parsing it
/// into a `Value`, pruning that and writing it back compact, in one pass. A member that may
/// be a GUI field is held back until its object has closed and is known to be a node or not.
fn prune_compact_json(json: &[u8]) -> Vec<u8> {
    let mut pass = CompactPruning {
        json,
        at: 0,
        out: Vec::with_capacity(json.len()),
        members: Vec::new(),
    };
    pass.value();
    pass.out
}

struct CompactPruning<'j> {
    json: &'j [u8],
    /// The next byte of `json` to read.
    at: usize,
    out: Vec<u8>,
    /// The members of the objects being copied, innermost object last.
    members: Vec<Member>,
}

#[derive(Debug, Clone)]
enum Member {
    /// Copied: its bytes in `out`.
    Written(std::ops::Range<usize>),
    /// Held back: its bytes in `json`, `"key":value`.
    Held(std::ops::Range<usize>),
}

impl CompactPruning<'_> {
    fn peek(&self) -> Option<u8> {
        self.json.get(self.at).copied()
    }

    /// Copies the value at `at`, pruned, and moves past it.
    fn value(&mut self) {
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(_) => {
                let end = value_end(self.json, self.at);
                self.out.extend_from_slice(&self.json[self.at..end]);
                self.at = end;
            }
            None => {}
        }
    }

    fn array(&mut self) {
        self.out.push(b'[');
        self.at += 1;
        while let Some(b) = self.peek() {
            match b {
                b']' => {
                    self.at += 1;
                    break;
                }
                b',' => {
                    self.out.push(b',');
                    self.at += 1;
                }
                _ => {
                    let before = self.at;
                    self.value();
                    if self.at == before {
                        // Not JSON; serde_json never writes this. Copy the rest unchanged.
                        self.rest();
                    }
                }
            }
        }
        self.out.push(b']');
    }

    fn object(&mut self) {
        let start = self.out.len();
        let first_member = self.members.len();
        let mut node_keys = [false; NODE_KEYS.len()];
        let mut held = false;
        self.out.push(b'{');
        self.at += 1;
        loop {
            match self.peek() {
                Some(b'}') => {
                    self.at += 1;
                    break;
                }
                Some(b',') => self.at += 1,
                Some(b'"') => {}
                _ => {
                    // Not JSON; serde_json never writes this. Copy the rest unchanged.
                    self.rest();
                    break;
                }
            }
            let member_start = self.at;
            let key_end = value_end(self.json, self.at);
            let key = self
                .json
                .get(self.at + 1..key_end.saturating_sub(1))
                .unwrap_or_default();
            // Past the key and its `:`.
            let value_start = (key_end + 1).min(self.json.len());
            if let Some(k) = NODE_KEYS.iter().position(|k| k.as_bytes() == key) {
                node_keys[k] = true;
            }
            if is_gui_field(key, shape_at(self.json, value_start)) {
                self.at = value_end(self.json, value_start);
                self.members.push(Member::Held(member_start..self.at));
                held = true;
            } else {
                if self.out.len() > start + 1 {
                    self.out.push(b',');
                }
                let written = self.out.len();
                self.out
                    .extend_from_slice(&self.json[member_start..value_start]);
                self.at = value_start;
                self.value();
                self.members.push(Member::Written(written..self.out.len()));
            }
        }
        if held && !node_keys.iter().all(|&seen| seen) {
            self.put_back_held(start, first_member);
        }
        self.members.truncate(first_member);
        self.out.push(b'}');
    }

    /// Rewrites the object begun at `start` in `out` with its held members back in place:
    /// it was not an outline node after all.
    fn put_back_held(&mut self, start: usize, first_member: usize) {
        let written = self.out.split_off(start + 1);
        let resume = self.at;
        let members = self.members.split_off(first_member);
        for (i, member) in members.into_iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            match member {
                Member::Written(range) => self
                    .out
                    .extend_from_slice(&written[range.start - start - 1..range.end - start - 1]),
                Member::Held(range) => {
                    let key_end = value_end(self.json, range.start);
                    let value_start = (key_end + 1).min(range.end);
                    self.out
                        .extend_from_slice(&self.json[range.start..value_start]);
                    self.at = value_start;
                    self.value();
                }
            }
        }
        self.at = resume;
    }

    fn rest(&mut self) {
        self.out.extend_from_slice(&self.json[self.at..]);
        self.at = self.json.len();
    }
}

/// The shape of the value starting at `at` in compact JSON.
fn shape_at(json: &[u8], at: usize) -> Shape {
    match json.get(at..) {
        Some([b'f', ..]) => Shape::False,
        Some([b'n', ..]) => Shape::Null,
        Some([b'{', b'}', ..] | [b'[', b']', ..]) => Shape::EmptyCollection,
        _ => Shape::Other,
    }
}

/// Where the value starting at `at` in compact JSON ends (one past its last byte).
fn value_end(json: &[u8], at: usize) -> usize {
    match json.get(at) {
        Some(b'"') => string_end(json, at),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = at;
            while let Some(&b) = json.get(i) {
                match b {
                    b'"' => {
                        i = string_end(json, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            json.len()
        }
        // A number, `true`, `false` or `null`: up to what follows it.
        Some(_) => json[at..]
            .iter()
            .position(|b| matches!(b, b',' | b'}' | b']'))
            .map_or(json.len(), |len| at + len),
        None => at,
    }
}

/// One past the closing quote of the string whose opening quote is at `at`.
fn string_end(json: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while let Some(offset) = json
        .get(i..)
        .and_then(|rest| rest.iter().position(|&b| b == b'"' || b == b'\\'))
    {
        i += offset;
        if json[i] == b'"' {
            return i + 1;
        }
        // A backslash escapes the byte after it.
        i += 2;
    }
    json.len()
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
        let result = tool_success_payload(&Reply::new("test", Payload::Json, data));
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

        let markdown = Reply::new(
            "test",
            Payload::Markdown { field: "md" },
            json!({"slug": "project-x", "md": "- one\n  - two\n"}),
        );
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
        let result = tool_success_payload(&Reply::new("test", Payload::Json, data));
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
        let result = tool_success_payload(&Reply::new("test", Payload::Json, data.clone()));
        let sent: Value = serde_json::from_str(text_of(&result)).expect("JSON text");
        assert_eq!(sent, data, "the projection changed the parser AST");
        let back: Document =
            serde_json::from_value(sent).expect("the AST deserializes back into its own type");
        assert_eq!(back, document);
    }

    /// What the projection must send: the whole output as a `Value`, pruned, written compact.
    fn straightforward_projection(reply: &Reply) -> String {
        let mut data = reply.data().expect("the output is JSON");
        if let Payload::Markdown { field } = reply.payload
            && let Some(Value::String(markdown)) = data.get(field)
        {
            return markdown.clone();
        }
        prune_gui_fields(&mut data);
        serde_json::to_string(&data).expect("a Value serializes")
    }

    #[test]
    fn held_members_go_back_where_they_were_in_objects_that_are_not_nodes() {
        let data = json!({
            "todo": null,
            "meta": {"properties": {}, "name": "x", "collapsed": false},
            "tokens": [{"id": "a", "text": "t", "children": [], "tokens": [1], "todo": null}],
            "ast": [{"text": "t", "properties": {}, "children": [{"text": "u", "properties": []}]}],
            "collapsed": false,
            "properties": {},
        });
        let json = serde_json::to_string(&data).expect("JSON");
        let pruned = String::from_utf8(prune_compact_json(json.as_bytes())).expect("UTF-8");
        let mut expected = data;
        prune_gui_fields(&mut expected);
        assert_eq!(pruned, serde_json::to_string(&expected).expect("JSON"));
        assert!(pruned.contains(r#""tokens":[{"id":"a","text":"t","children":[]}]"#));
    }

    /// Any JSON whose keys are often those the pruning looks at.
    fn json_values() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let key = prop::sample::select(vec![
            "id",
            "text",
            "children",
            "tokens",
            "collapsed",
            "todo",
            "properties",
            "children_omitted",
            "t\"o\\k",
            "é",
        ])
        .prop_map(str::to_owned);
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            ".{0,12}".prop_map(Value::from),
        ];
        leaf.prop_recursive(6, 64, 8, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((key.clone(), inner), 0..8)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn compact_pruning_is_value_pruning(value in json_values()) {
            let json = serde_json::to_string(&value).expect("JSON");
            let mut expected = value;
            prune_gui_fields(&mut expected);
            let pruned = String::from_utf8(prune_compact_json(json.as_bytes())).expect("UTF-8");
            proptest::prop_assert_eq!(pruned, serde_json::to_string(&expected).expect("JSON"));
        }
    }

    /// One call of every tool, with targets read from the workspace: reads first, then writes.
    fn every_call(ws: &crate::workspace::Workspace) -> Vec<(&'static str, Value)> {
        let graph = ws.snapshot();
        let pages: Vec<_> = graph.pages().filter(|p| p.date().is_none()).collect();
        let page = pages
            .iter()
            .max_by_key(|p| p.blocks_preorder().len())
            .expect("a page");
        let spares: Vec<&str> = pages
            .iter()
            .filter(|p| p.slug != page.slug)
            .take(2)
            .map(|p| p.slug.as_str())
            .collect();
        let journal = graph
            .journals()
            .max_by_key(|p| p.blocks_preorder().len())
            .and_then(|p| p.date())
            .expect("a journal day")
            .to_string();
        let blocks = page.blocks_preorder();
        let tree = page
            .blocks
            .iter()
            .find(|b| !b.children.is_empty())
            .expect("a block with children");
        let child = &tree.children[0];
        let second_top = &page.blocks.get(1).expect("two top-level blocks").id;
        let leaves: Vec<&str> = blocks
            .iter()
            .filter(|b| b.children.is_empty() && b.id != child.id)
            .map(|b| b.id.as_str())
            .collect();
        let all_blocks: Vec<_> = graph.pages().flat_map(|p| p.blocks_preorder()).collect();
        let tag = all_blocks
            .iter()
            .find_map(|b| crate::outline::tags(&b.text).into_iter().next())
            .expect("a tag");
        let (key, value) = all_blocks
            .iter()
            .find_map(|b| {
                b.properties
                    .iter()
                    .find(|(k, _)| !["id", "collapsed"].contains(&k.as_str()))
            })
            .expect("a block property");
        let word = blocks[0]
            .text
            .split(|c: char| !c.is_alphanumeric())
            .max_by_key(|w| w.len())
            .expect("a word");
        let markdown = "- TODO Call [[Bob]] about #launch\n\t- notes with **bold**\n";
        let slug = &page.slug;
        vec![
            ("outl_workspace_info", json!({})),
            ("outl_page_list", json!({})),
            ("outl_page_get", json!({"slug": slug})),
            ("outl_page_render", json!({"slug": slug})),
            ("outl_page_backlinks", json!({"slug": slug})),
            ("outl_links", json!({"slug": slug})),
            ("outl_block_get", json!({"id": leaves[0]})),
            ("outl_block_tree", json!({"id": tree.id})),
            ("outl_block_refs", json!({"id": tree.id})),
            ("outl_daily_get", json!({"date": journal})),
            ("outl_daily_list", json!({})),
            ("outl_export_md", json!({"slug": slug})),
            ("outl_export_json", json!({"slug": slug})),
            ("outl_search", json!({"query": word})),
            ("outl_tasks", json!({})),
            ("outl_tags", json!({})),
            ("outl_tag_get", json!({"tag": tag})),
            ("outl_property_query", json!({"key": key, "value": value})),
            ("outl_recent", json!({})),
            ("outl_daily_append", json!({"md": markdown})),
            ("outl_daily_today", json!({})),
            (
                "outl_page_create",
                json!({"name": "Projection check", "md": markdown}),
            ),
            (
                "outl_import_md",
                json!({"name": "Projection import", "md": markdown, "mode": "create"}),
            ),
            ("outl_page_append", json!({"slug": slug, "md": markdown})),
            (
                "outl_block_insert",
                json!({"parent_id": tree.id, "text": "TODO check"}),
            ),
            (
                "outl_block_update",
                json!({"id": leaves[1], "text": "updated **text**"}),
            ),
            ("outl_block_todo", json!({"id": leaves[1], "state": "DONE"})),
            (
                "outl_block_property_set",
                json!({"id": leaves[1], "key": "status", "value": "done"}),
            ),
            (
                "outl_block_property_remove",
                json!({"id": leaves[1], "key": "status"}),
            ),
            (
                "outl_block_collapse",
                json!({"id": tree.id, "collapsed": true}),
            ),
            ("outl_block_indent", json!({"id": second_top})),
            ("outl_block_outdent", json!({"id": child.id})),
            (
                "outl_block_move",
                json!({"id": leaves[2], "parent_id": tree.id}),
            ),
            ("outl_block_delete", json!({"id": leaves[3]})),
            (
                "outl_page_update",
                json!({"slug": "projection check", "md": markdown}),
            ),
            ("outl_page_reconcile", json!({"slug": slug})),
            (
                "outl_page_rename",
                json!({"slug": spares[0], "new_name": "Renamed by the check"}),
            ),
            ("outl_page_delete", json!({"slug": spares[1]})),
            ("outl_log", json!({})),
            ("outl_undo", json!({})),
            ("outl_redo", json!({})),
        ]
    }

    fn assert_projection_is_straightforward_for_every_tool(source: &std::path::Path) {
        let scratch = crate::bench::scratch::Scratch::copy_of(source).expect("a scratch copy");
        let ws = crate::workspace::Workspace::open(scratch.path()).expect("open the copy");
        let calls = every_call(&ws);
        let mut called: Vec<&str> = calls.iter().map(|(name, _)| *name).collect();
        called.sort_unstable();
        let mut registered: Vec<&str> = REGISTRY.tools().iter().map(|t| t.name()).collect();
        registered.sort_unstable();
        assert_eq!(called, registered, "every tool is called once");
        for (name, args) in calls {
            let reply = REGISTRY
                .call(&ws, name, args.clone())
                .expect("a registered tool")
                .unwrap_or_else(|e| panic!("{name} {args}: {e}"));
            assert_eq!(
                text_of(&tool_success_payload(&reply)),
                straightforward_projection(&reply),
                "{name} {args}"
            );
        }
    }

    #[test]
    fn the_projection_of_every_tool_on_the_demo_workspace_is_the_straightforward_one() {
        let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/demo");
        assert_projection_is_straightforward_for_every_tool(&demo);
    }

    #[test]
    fn the_projection_of_every_tool_on_a_generated_workspace_is_the_straightforward_one() {
        let dir = tempfile::tempdir().expect("a temp folder");
        crate::bench::generate::write_workspace(dir.path(), 120, 7).expect("generate");
        assert_projection_is_straightforward_for_every_tool(dir.path());
    }
}
