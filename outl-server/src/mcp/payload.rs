//! The one owner of outl's projection of a success reply (RFC 0276), which the registry runtime
//! calls through its hook (`impl ToolContext for Workspace`, in `mcp`): handlers compute the
//! same data for the CLI and for MCP, and a JSON payload reaches the MCP wire without the
//! GUI-only fields of outline nodes. What a markdown payload sends and an error's envelope are
//! the runtime's (`outl_registry::tool_success_payload`, `tool_error_payload`).
//!
//! A projection is a place to drop what the reader can re-derive, never the only copy.

use std::cell::{Cell, RefCell};
use std::io;
use std::ops::Range;

use serde::Serialize;
use serde_json::ser::Formatter;
use serde_json::{Map, Value};

use crate::mcp::json;

/// The bytes `output` takes as the text of an MCP success reply of a JSON payload: its compact
/// JSON with what RFC 0276 prunes left out. What a reply budget counts.
pub fn wire_len<T: Serialize + ?Sized>(output: &T) -> usize {
    success_json(output).map_or(0, |json| json.len())
}

/// The text of an MCP success reply of a JSON payload, outl's projection hook
/// ([`ToolContext::success_json`](outl_registry::ToolContext::success_json)): the bytes of
/// [`prune_gui_fields`] on the output's `Value` written compact, made without building that
/// `Value` and without computing the `tokens` it would prune.
pub fn success_json<T: Serialize + ?Sized>(output: &T) -> Result<String, serde_json::Error> {
    while_projecting(|| pruned_json(output))
}

/// `output` as compact JSON with RFC 0276's pruning applied as it is written (see
/// [`PruningFormatter`]). It is written into a buffer kept by the thread (see
/// [`json::with_buffer`]) and copied out once.
pub(crate) fn pruned_json<T: Serialize + ?Sized>(output: &T) -> Result<String, serde_json::Error> {
    json::with_buffer(&PROJECTION_BUFFER, |out| {
        let formatter = PruningFormatter {
            out,
            objects: Vec::new(),
            members: Vec::new(),
            held: Vec::new(),
        };
        json::write(output, formatter)?;
        // The serializer writes UTF-8, and the pruning cuts it only before and after ASCII
        // bytes.
        std::str::from_utf8(out)
            .map(str::to_owned)
            .map_err(|e| serde_json::Error::io(io::Error::other(e)))
    })
}

thread_local! {
    /// What this thread's projections are written into.
    static PROJECTION_BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// Set while an MCP success reply is serialized on this thread.
    static PROJECTING: Cell<bool> = const { Cell::new(false) };
}

/// Whether a handler outline node being serialized on this thread leaves out its member `key`,
/// whose value has `shape`: while an MCP success reply is written, the members RFC 0276
/// prunes from every node. A node (an object with `id`, `text` and `children` by
/// construction) asks so as not to compute and write what would be dropped, `tokens` above
/// all; what is sent does not depend on it, as the pruning drops them either way.
pub fn node_leaves_out(key: &str, shape: Shape) -> bool {
    PROJECTING.get() && is_gui_field(key.as_bytes(), shape)
}

/// `f` with the flag [`node_leaves_out`] reads set; it is restored even if `f` panics.
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
pub enum Shape {
    False,
    Null,
    EmptyCollection,
    Other,
}

impl Shape {
    /// The shape of a value written as compact JSON.
    fn of_json(value: &[u8]) -> Shape {
        match value {
            b"false" => Shape::False,
            b"null" => Shape::Null,
            b"{}" | b"[]" => Shape::EmptyCollection,
            _ => Shape::Other,
        }
    }

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
/// always, `collapsed: false`, `todo: null`, empty `properties` and a leaf's empty `children`
/// as default noise, each of which its absence says as well.
fn is_gui_field(key: &[u8], value: Shape) -> bool {
    match key {
        b"tokens" => true,
        b"collapsed" => value == Shape::False,
        b"todo" => value == Shape::Null,
        b"properties" | b"children" => value == Shape::EmptyCollection,
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

/// serde_json's compact formatting, written into `out` (see [`json::Buffered`]) so that a
/// member of an object can be held back until the object closes and is known to
/// be a handler outline node, whose GUI fields are then dropped, or not, when they go back in
/// place. The result is the bytes of [`prune_gui_fields`] on the output's `Value`, written
/// compact, in one pass.
struct PruningFormatter<'o> {
    out: &'o mut Vec<u8>,
    /// The objects being written, innermost last.
    objects: Vec<OpenObject>,
    /// The members written so far of the objects being written, in order.
    members: Vec<Member>,
    /// The bytes of the held members.
    held: Vec<u8>,
}

struct OpenObject {
    /// Where its `{` is in `out`.
    start: usize,
    /// Where its members begin in `members` and in `held`.
    first_member: usize,
    first_held: usize,
    /// Which of [`NODE_KEYS`] it has.
    node_keys: [bool; NODE_KEYS.len()],
    /// The member being written: where it begins in `out` (its comma, if any), where its key
    /// begins, and where its value begins.
    member_start: usize,
    key_start: usize,
    value_start: usize,
}

enum Member {
    /// `"key":value`, in `out`.
    Written(Range<usize>),
    /// `"key":value`, in `held`.
    Held(Range<usize>),
}

impl PruningFormatter<'_> {
    fn open_object(&mut self) -> io::Result<&mut OpenObject> {
        self.objects
            .last_mut()
            .ok_or_else(|| io::Error::other("an object member outside an object"))
    }

    /// Writes the members of `object`, which is not an outline node, again, the held ones
    /// back in their places.
    fn put_back_held(&mut self, object: &OpenObject) {
        let content = object.start + 1;
        let written = self.out.split_off(content);
        for (i, member) in self.members[object.first_member..].iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            let bytes = match member {
                Member::Written(range) => written.get(range.start - content..range.end - content),
                Member::Held(range) => self.held.get(range.clone()),
            };
            self.out.extend_from_slice(bytes.unwrap_or_default());
        }
    }
}

impl json::Buffered for PruningFormatter<'_> {
    fn buffer(&mut self) -> &mut Vec<u8> {
        self.out
    }
}

impl Formatter for PruningFormatter<'_> {
    json::compact_values_into_buffer!();

    fn begin_object<W: ?Sized + io::Write>(&mut self, _sink: &mut W) -> io::Result<()> {
        self.objects.push(OpenObject {
            start: self.out.len(),
            first_member: self.members.len(),
            first_held: self.held.len(),
            node_keys: [false; NODE_KEYS.len()],
            member_start: 0,
            key_start: 0,
            value_start: 0,
        });
        self.out.push(b'{');
        Ok(())
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        _sink: &mut W,
        _first: bool,
    ) -> io::Result<()> {
        let len = self.out.len();
        let object = self.open_object()?;
        object.member_start = len;
        // A held member before this one left no comma behind.
        let comma = len > object.start + 1;
        object.key_start = len + usize::from(comma);
        if comma {
            self.out.push(b',');
        }
        Ok(())
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, _sink: &mut W) -> io::Result<()> {
        self.out.push(b':');
        let len = self.out.len();
        self.open_object()?.value_start = len;
        Ok(())
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _sink: &mut W) -> io::Result<()> {
        let object = self
            .objects
            .last_mut()
            .ok_or_else(|| io::Error::other("an object member outside an object"))?;
        // The key between its quotes, before the `:`.
        let key = self
            .out
            .get(object.key_start + 1..object.value_start.saturating_sub(2))
            .unwrap_or_default();
        if let Some(k) = NODE_KEYS.iter().position(|k| k.as_bytes() == key) {
            object.node_keys[k] = true;
        }
        let value = self.out.get(object.value_start..).unwrap_or_default();
        if is_gui_field(key, Shape::of_json(value)) {
            let from = self.held.len();
            self.held
                .extend_from_slice(self.out.get(object.key_start..).unwrap_or_default());
            self.out.truncate(object.member_start);
            self.members.push(Member::Held(from..self.held.len()));
        } else {
            self.members
                .push(Member::Written(object.key_start..self.out.len()));
        }
        Ok(())
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, _sink: &mut W) -> io::Result<()> {
        let object = self
            .objects
            .pop()
            .ok_or_else(|| io::Error::other("the end of an object never begun"))?;
        let held = self.held.len() > object.first_held;
        if held && !object.node_keys.iter().all(|&seen| seen) {
            self.put_back_held(&object);
        }
        self.members.truncate(object.first_member);
        self.held.truncate(object.first_held);
        self.out.push(b'}');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use outl_registry::{Payload, Reply, tool_error_payload, tool_success_payload};
    use rmcp::model::{CallToolResult, ContentBlock};
    use serde_json::json;

    use super::*;
    use crate::actions::REGISTRY;
    use crate::outline::{Document, OutlineNode};
    use crate::workspace::BlockList;
    use crate::workspace::Workspace;
    use crate::{Error, ErrorCode};

    fn text_of(result: &CallToolResult) -> &str {
        match result.content.as_slice() {
            [ContentBlock::Text(text)] => &text.text,
            other => panic!("expected exactly one text block, got {other:?}"),
        }
    }

    /// A reply of outl's tools, whose output is `data`.
    fn reply(tool: &'static str, payload: Payload, data: Value) -> Reply<Error> {
        Reply::new::<Workspace, _>(tool, payload, data)
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
        let result = tool_success_payload(&reply("test", Payload::Json, data));
        let wire = wire(&result);
        assert!(
            wire.get("structuredContent").is_none(),
            "success regained structuredContent: {wire}"
        );
        assert!(wire.get("isError").is_none());
        let text = text_of(&result);
        assert_eq!(
            text,
            r#"{"slug":"project-x","blocks":[{"id":"a1","text":"hello"}]}"#
        );
        assert!(!text.contains('\n'), "success text is pretty-printed");

        let markdown = reply(
            "test",
            Payload::Markdown {
                field: "md",
                cut: None,
            },
            json!({"slug": "project-x", "md": "- one\n  - two\n"}),
        );
        let result = tool_success_payload(&markdown);
        assert!(wire_of_markdown_has_no_envelope(&result));
        assert_eq!(text_of(&result), "- one\n  - two\n");
    }

    #[test]
    fn a_cut_markdown_slice_is_followed_by_its_cut_as_json() {
        let payload = Payload::Markdown {
            field: "md",
            cut: Some("cut"),
        };
        let cut = json!({"next_cursor": "2", "remaining": 5});
        let sliced = reply(
            "test",
            payload,
            json!({"slug": "p", "md": "- a\n", "cut": cut}),
        );
        let wire = wire(&tool_success_payload(&sliced));
        assert_eq!(wire["content"][0]["text"], "- a\n");
        assert_eq!(
            wire["content"][1]["text"],
            r#"{"next_cursor":"2","remaining":5}"#
        );
        assert!(wire.get("structuredContent").is_none());
        let whole = reply(
            "test",
            payload,
            json!({"slug": "p", "md": "- a\n", "cut": null}),
        );
        let result = tool_success_payload(&whole);
        assert_eq!(text_of(&result), "- a\n");
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
        let result = tool_success_payload(&reply("test", Payload::Json, data));
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
            "children": [{"id": "c1", "text": "a leaf", "children": []}],
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
                "children": [{"id": "c1", "text": "a leaf"}],
            })
        );
    }

    #[test]
    fn pruning_leaves_the_parser_ast_alone() {
        let document = Document {
            front_matter: None,
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
        let result = tool_success_payload(&reply("test", Payload::Json, data.clone()));
        let sent: Value = serde_json::from_str(text_of(&result)).expect("JSON text");
        assert_eq!(sent, data, "the projection changed the parser AST");
        let back: Document =
            serde_json::from_value(sent).expect("the AST deserializes back into its own type");
        assert_eq!(back, document);
    }

    /// What the projection must send: the whole output as a `Value`, pruned, written compact.
    fn straightforward_projection(reply: &Reply<Error>) -> String {
        let mut data = reply.data().expect("the output is JSON");
        if let Payload::Markdown { field, .. } = reply.payload
            && let Some(Value::String(markdown)) = data.get(field)
        {
            return markdown.clone();
        }
        prune_gui_fields(&mut data);
        serde_json::to_string(&data).expect("a Value serializes")
    }

    /// What [`pruned_json`] writes for `data`, checked against [`prune_gui_fields`].
    fn pruned_as_values_are(data: Value) -> String {
        let pruned = pruned_json(&data).expect("JSON");
        let mut expected = data;
        prune_gui_fields(&mut expected);
        assert_eq!(pruned, serde_json::to_string(&expected).expect("JSON"));
        pruned
    }

    #[test]
    fn gui_fields_go_wherever_they_are_in_a_node() {
        let pruned = pruned_as_values_are(json!([
            {"tokens": [], "todo": null, "id": "a", "collapsed": false, "text": "t", "children": []},
            {"properties": [], "children": [], "text": "t", "id": "b", "tokens": null},
            {"id": "c", "text": "t", "children": [], "properties": {}, "collapsed": true, "todo": "TODO"},
        ]));
        assert_eq!(
            pruned,
            r#"[{"id":"a","text":"t"},{"text":"t","id":"b"},{"id":"c","text":"t","collapsed":true,"todo":"TODO"}]"#
        );
    }

    #[test]
    fn held_members_go_back_where_they_were_in_objects_that_are_not_nodes() {
        let pruned = pruned_as_values_are(json!({
            "todo": null,
            "meta": {"properties": {}, "name": "x", "collapsed": false},
            "tokens": [{"id": "a", "text": "t", "children": [], "tokens": [1], "todo": null}],
            "ast": [{"text": "t", "properties": {}, "children": [{"text": "u", "properties": []}]}],
            "collapsed": false,
            "properties": {},
        }));
        assert!(pruned.starts_with(r#"{"todo":null,"meta":{"properties":{},"name":"x","collapsed":false},"tokens":[{"id":"a","text":"t"}],"#));
    }

    /// Any JSON whose keys are often those the pruning looks at, with half of the objects
    /// carrying a node's `id`, `text` and `children` among their members.
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
            Just(json!({})),
            Just(json!([])),
        ];
        leaf.prop_recursive(6, 96, 8, move |inner| {
            let member = (key.clone(), inner.clone());
            let node = prop::collection::vec(inner.clone(), 3);
            prop_oneof![
                prop::collection::vec(inner, 0..5).prop_map(Value::Array),
                (prop::collection::vec(member, 0..6), prop::option::of(node))
                    .prop_map(|(mut members, node)| {
                        if let Some(values) = node {
                            members.extend(NODE_KEYS.iter().map(|k| k.to_string()).zip(values));
                        }
                        members
                    })
                    .prop_shuffle()
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn pruning_while_writing_is_pruning_the_value(value in json_values()) {
            let pruned = pruned_json(&value).expect("JSON");
            let mut expected = value;
            prune_gui_fields(&mut expected);
            proptest::prop_assert_eq!(pruned, serde_json::to_string(&expected).expect("JSON"));
        }
    }

    /// One call of every tool, with targets read from the workspace: reads first, then writes.
    fn every_call(ws: &crate::workspace::Workspace) -> Vec<(&'static str, Value)> {
        let graph = ws.snapshot();
        let pages: Vec<_> = graph.pages().filter(|p| p.date().is_none()).collect();
        let page = pages.iter().max_by_key(|p| p.body.count()).expect("a page");
        let spares: Vec<&str> = pages
            .iter()
            .filter(|p| p.slug != page.slug)
            .take(2)
            .map(|p| p.slug.as_str())
            .collect();
        let journal = graph
            .journals()
            .max_by_key(|p| p.body.count())
            .and_then(|p| p.date())
            .expect("a journal day")
            .to_string();
        let page_blocks = page.blocks();
        let blocks = page_blocks.preorder();
        let tree = page_blocks
            .iter()
            .find(|b| !b.children.is_empty())
            .expect("a block with children");
        let child = &tree.children[0];
        let second_top = &page_blocks.get(1).expect("two top-level blocks").id;
        let leaves: Vec<&str> = blocks
            .iter()
            .filter(|b| b.children.is_empty() && b.id != child.id)
            .map(|b| b.id.as_str())
            .collect();
        let all_pages: Vec<_> = graph.pages().map(|p| p.blocks().to_vec()).collect();
        let all_blocks: Vec<_> = all_pages.iter().flat_map(|b| b.preorder()).collect();
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
        crate::bench::generate::write_workspace(
            dir.path(),
            120,
            7,
            crate::bench::generate::Styles::CANONICAL,
        )
        .expect("generate");
        assert_projection_is_straightforward_for_every_tool(dir.path());
    }
}
