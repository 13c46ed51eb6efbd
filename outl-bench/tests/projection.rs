//! outl's reply projection (the `success_json` of its `Outl` server, RFC 0276) against what it must send:
//! on hand-made replies, and on one call of every tool on the demo workspace and on a generated
//! one. They live here, beside the generator, because `outl-server` cannot depend on this crate.

use outl_bench::generate::{self, Styles};
use outl_bench::scratch::Scratch;
use outl_format::{Document, ParsedBlock, TaskMarker};
use outl_registry::{Payload, Reply, Server, tool_error_payload, tool_success_payload};
use outl_tools::outline::OutlineNode;
use outl_tools::{Outl, REGISTRY};
use outl_workspace::{BlockList, Workspace};
use outl_workspace::{Error, ErrorCode};
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::{Value, json};

fn text_of(result: &CallToolResult) -> &str {
    match result.content.as_slice() {
        [ContentBlock::Text(text)] => &text.text,
        other => panic!("expected exactly one text block, got {other:?}"),
    }
}

/// A reply of outl's tools, whose output is `output`.
fn reply(
    tool: &'static str,
    payload: Payload,
    output: impl Serialize + Send + 'static,
) -> Reply<Error> {
    Reply::new::<Outl, _>(tool, payload, output)
}

fn wire(result: &CallToolResult) -> Value {
    serde_json::to_value(result).expect("a CallToolResult serializes")
}

/// A handler outline node as `OutlineNode::alone` makes one: no task, no properties.
fn handler_node(id: &str, text: &str, children: Vec<OutlineNode>) -> OutlineNode {
    OutlineNode {
        id: id.into(),
        parent: None,
        text: text.into(),
        todo: None,
        planning: Default::default(),
        collapsed: false,
        properties: Default::default(),
        children,
        children_omitted: 0,
    }
}

#[test]
fn success_payload_is_content_only_and_compact() {
    let data = json!({"slug": "project-x", "blocks": [handler_node("a1", "hello", vec![])]});
    assert!(
        data["blocks"][0]["tokens"].is_array(),
        "a node out of the wire is whole"
    );
    let output = ("project-x", vec![handler_node("a1", "hello", vec![])]);
    let result = tool_success_payload(&reply("test", Payload::Json, output));
    let wire = wire(&result);
    assert!(
        wire.get("structuredContent").is_none(),
        "success regained structuredContent: {wire}"
    );
    assert!(wire.get("isError").is_none());
    let text = text_of(&result);
    assert_eq!(text, r#"["project-x",[["a1","hello"]]]"#);
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
    wire.get("structuredContent").is_none() && wire["content"].as_array().map(Vec::len) == Some(1)
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
    #[derive(Serialize)]
    struct Day {
        date: &'static str,
        outline: Vec<OutlineNode>,
        md: &'static str,
    }
    let day = Day {
        date: "2026-03-14",
        outline: vec![handler_node(
            "k3f9q2",
            "call Bob",
            vec![handler_node("m2x7", "notes", vec![])],
        )],
        md: "- TODO call Bob\n\t- notes\n",
    };
    let result = tool_success_payload(&reply("test", Payload::Json, day));
    let sent: Value = serde_json::from_str(text_of(&result)).expect("journal text is JSON");
    assert_eq!(sent["date"], "2026-03-14");
    assert_eq!(sent["outline"][0][0], "k3f9q2");
    assert_eq!(sent["outline"][0][2][0][0], "m2x7");
    assert_eq!(sent["md"], "- TODO call Bob\n\t- notes\n");
}

#[test]
fn a_node_is_sent_as_an_array_of_what_is_not_at_its_default() {
    let mut shipped = handler_node("b1", "ship", vec![handler_node("c1", "a leaf", vec![])]);
    shipped.todo = Some(TaskMarker::Done);
    shipped.collapsed = true;
    shipped.properties = [("priority".to_owned(), "high".to_owned())]
        .into_iter()
        .collect();
    let mut cut = handler_node("d1", "cut", vec![]);
    cut.parent = Some("b0".into());
    cut.children_omitted = 3;
    let nodes = vec![shipped, cut];
    let sent = Outl::success_json(&nodes).expect("JSON");
    assert_eq!(
        sent,
        r#"[["b1","ship",{"todo":"DONE","collapsed":true,"properties":{"priority":"high"}},[["c1","a leaf"]]],["d1","cut",{"parent":"b0","children_omitted":3}]]"#
    );
    let shown = serde_json::to_value(&nodes).expect("JSON");
    assert!(
        shown[0]["children"][0]["tokens"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    assert_eq!(
        serde_json::from_str::<Value>(&sent).expect("JSON"),
        as_sent(shown)
    );
}

#[test]
fn pruning_leaves_the_parser_ast_alone() {
    let document = Document {
        front_matter: None,
        properties: Default::default(),
        blocks: vec![ParsedBlock {
            text: "no properties here".into(),
            properties: Default::default(),
            children: vec![ParsedBlock {
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

/// A handler outline node as the wire carries it, made from the object `outl call` shows
/// (one with `id`, `text`, `tokens` and `children`): `[id, text, fields, children]`, with
/// `fields` the members that are not at their default and left out when none is, and
/// `children` left out when empty. Anything else is sent as it is.
fn as_sent(value: Value) -> Value {
    match value {
        Value::Array(items) => items.into_iter().map(as_sent).collect(),
        Value::Object(object)
            if ["id", "text", "tokens", "children"]
                .iter()
                .all(|key| object.contains_key(*key)) =>
        {
            let mut node = vec![object["id"].clone(), object["text"].clone()];
            let fields: serde_json::Map<String, Value> = object
                .iter()
                .filter(|(key, value)| match key.as_str() {
                    "id" | "text" | "tokens" | "children" => false,
                    "todo" => !value.is_null(),
                    "collapsed" => **value != Value::Bool(false),
                    "properties" => value.as_object().is_none_or(|p| !p.is_empty()),
                    _ => true,
                })
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            if !fields.is_empty() {
                node.push(Value::Object(fields));
            }
            if object["children"].as_array().is_some_and(|c| !c.is_empty()) {
                node.push(as_sent(object["children"].clone()));
            }
            Value::Array(node)
        }
        Value::Object(object) => Value::Object(
            object
                .into_iter()
                .map(|(key, value)| (key, as_sent(value)))
                .collect(),
        ),
        other => other,
    }
}

/// What the projection must send: the whole output as `outl call` shows it, its nodes
/// [`as_sent`], written compact; a markdown tool's markdown.
fn straightforward_projection(reply: &Reply<Error>) -> String {
    let data = reply.data().expect("the output is JSON");
    if let Payload::Markdown { field, .. } = reply.payload
        && let Some(Value::String(markdown)) = data.get(field)
    {
        return markdown.clone();
    }
    serde_json::to_string(&as_sent(data)).expect("a Value serializes")
}

/// One call of every tool, with targets read from the workspace: reads first, then writes.
fn every_call(ws: &Workspace) -> Vec<(&'static str, Value)> {
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
        .find_map(|b| outl_format::tags(&b.text).into_iter().next())
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
    let scratch = Scratch::copy_of(source).expect("a scratch copy");
    let ws = Workspace::open(scratch.path()).expect("open the copy");
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
    generate::write_workspace(dir.path(), 120, 7, Styles::CANONICAL).expect("generate");
    assert_projection_is_straightforward_for_every_tool(dir.path());
}
