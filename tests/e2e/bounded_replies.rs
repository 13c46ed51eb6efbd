//! No reply swamps a context window, over MCP against the real binary: long reads come in
//! slices within the reply budget that join back into exactly the whole read, arguments over
//! their limits are refused naming the argument and the limit, and no error echoes an
//! argument longer than a short, marked excerpt.

use std::collections::HashMap;
use std::path::Path;

use crate::mcp_support::{
    HttpServer, StdioSession, children, demo_workspace, json_payload, text_of, tool_error,
    with_nodes_read,
};
use serde_json::{Value, json};

/// The default reply budget, in bytes of reply text: 10,000 tokens at 3 bytes each.
const DEFAULT_BUDGET_BYTES: usize = 30_000;
/// Blocks on the long page: a few hundred kilobytes of markdown.
const LONG_PAGE_BLOCKS: usize = 3_000;

/// A long page in Logseq's style: nested up to four levels, a block in 97 a long one, and its
/// blocks' levels and texts in document order.
fn long_page(blocks: usize) -> (String, Vec<(usize, String)>) {
    let mut md = String::from("tags:: long\n\n");
    let mut expected = Vec::new();
    let mut level: usize = 1;
    for i in 0..blocks {
        level = match i % 7 {
            0 => 1,
            3 | 5 => level.saturating_sub(1).max(1),
            _ => (level + 1).min(4),
        };
        let text = if i % 97 == 0 {
            format!("block {i} {}", "a long one ".repeat(200))
        } else {
            format!("block {i} about [[Topic {}]] and #tag{}", i % 13, i % 5)
        };
        md.push_str(&format!("{}- {text}\n", "\t".repeat(level - 1)));
        expected.push((level, text));
    }
    (md, expected)
}

fn write_page(ws: &Path, name: &str, md: &str) {
    std::fs::create_dir_all(ws.join("pages")).expect("pages folder");
    std::fs::write(ws.join("pages").join(format!("{name}.md")), md).expect("write the page");
}

/// A tree joined from slices: nodes in document order, each with its level and text.
#[derive(Default)]
struct Joined {
    /// Each node's level, text and children (by index).
    nodes: Vec<(usize, String, Vec<usize>)>,
    tops: Vec<usize>,
    by_id: HashMap<String, usize>,
}

impl Joined {
    /// Adds a slice's top `node` under the node its `parent` names (an id, or a position).
    fn graft_top(&mut self, node: &Value) {
        let parent = match &node["parent"] {
            Value::String(id) => Some(self.by_id[id.as_str()]),
            Value::Number(position) => Some(position.as_u64().expect("a position") as usize),
            _ => None,
        };
        self.graft(node, parent);
    }

    fn graft(&mut self, node: &Value, parent: Option<usize>) {
        let at = self.nodes.len();
        let level = parent.map_or(1, |p| self.nodes[p].0 + 1);
        let text = node["text"].as_str().expect("a text").to_owned();
        self.nodes.push((level, text, Vec::new()));
        if let Some(id) = node["id"].as_str() {
            assert!(self.by_id.insert(id.to_owned(), at).is_none(), "{id} twice");
        }
        match parent {
            Some(parent) => self.nodes[parent].2.push(at),
            None => self.tops.push(at),
        }
        for child in children(node).as_array().expect("children") {
            self.graft(child, Some(at));
        }
    }

    /// Levels and texts in document order, read through the tree's own nesting.
    fn in_order(&self) -> Vec<(usize, String)> {
        fn walk(joined: &Joined, at: usize, level: usize, out: &mut Vec<(usize, String)>) {
            let (_, text, children) = &joined.nodes[at];
            out.push((level, text.clone()));
            for &child in children {
                walk(joined, child, level + 1, out);
            }
        }
        let mut out = Vec::new();
        for &top in &self.tops {
            walk(self, top, 1, &mut out);
        }
        out
    }
}

/// Reads `tool` slice by slice from the start, checking each reply is within `budget_bytes`
/// of text and says how many blocks remain; the texts of the replies, in order.
fn read_in_slices(
    call: &mut dyn FnMut(Value) -> Value,
    args: &Value,
    budget_bytes: usize,
) -> Vec<(String, Option<Value>)> {
    let mut replies = Vec::new();
    let mut cursor: Option<String> = None;
    let mut remaining_before: Option<u64> = None;
    loop {
        let mut args = args.clone();
        if let Some(cursor) = &cursor {
            args["cursor"] = json!(cursor);
        }
        let reply = call(args);
        let result = &reply["result"];
        assert_ne!(result["isError"], true, "{reply}");
        let text = text_of(result).to_owned();
        assert!(text.len() <= budget_bytes, "a {}-byte slice", text.len());
        // A markdown reply says where it was cut in a second text; a JSON one in its fields.
        let cut: Value = match result["content"].get(1) {
            Some(content) => serde_json::from_str(content["text"].as_str().expect("text"))
                .expect("the cut is JSON"),
            None => serde_json::from_str::<Value>(&text).unwrap_or(Value::Null),
        };
        let next = cut["next_cursor"].as_str().map(str::to_owned);
        if let Some(remaining) = cut["remaining"].as_u64() {
            assert!(remaining_before.is_none_or(|before| remaining < before));
            remaining_before = Some(remaining);
        }
        replies.push((text, result["content"].get(1).cloned()));
        match next {
            Some(next) => cursor = Some(next),
            None => break,
        }
        assert!(replies.len() < 1_000, "slices do not end");
    }
    replies
}

#[test]
fn a_long_page_read_in_slices_is_exactly_the_whole_page() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let (md, expected) = long_page(LONG_PAGE_BLOCKS);
    assert!(md.len() > 5 * DEFAULT_BUDGET_BYTES, "{} bytes", md.len());
    write_page(ws.path(), "long", &md);
    let mut session = StdioSession::initialized(ws.path());

    // The outline with ids, in slices of the default budget.
    let slices = read_in_slices(
        &mut |args| session.call("outl_page_get", args),
        &json!({"slug": "long"}),
        DEFAULT_BUDGET_BYTES,
    );
    assert!(slices.len() > 5, "{} slices", slices.len());
    let mut joined = Joined::default();
    for (text, _) in &slices {
        let read: Value = with_nodes_read(serde_json::from_str(text).expect("JSON"));
        assert_eq!(read["meta"]["properties"]["tags"], "long");
        for top in read["outline"].as_array().expect("an outline") {
            joined.graft_top(top);
        }
    }
    assert_eq!(joined.in_order(), expected);

    // Slices of a fixed number of blocks, and of a larger budget.
    for args in [
        json!({"slug": "long", "limit": 250}),
        json!({"slug": "long", "budget": 50_000}),
    ] {
        let mut joined = Joined::default();
        for (text, _) in read_in_slices(&mut |a| session.call("outl_page_get", a), &args, 150_000) {
            let read: Value = with_nodes_read(serde_json::from_str(&text).expect("JSON"));
            let outline = read["outline"].as_array().expect("an outline");
            if args.get("limit").is_some() {
                let count: usize = outline.iter().map(count_nodes).sum();
                assert!(count <= 250, "{count} blocks");
            }
            outline.iter().for_each(|top| joined.graft_top(top));
        }
        assert_eq!(joined.in_order(), expected, "{args}");
    }

    // Top-level blocks only, in slices.
    let mut tops = Vec::new();
    for (text, _) in read_in_slices(
        &mut |a| session.call("outl_page_get", a),
        &json!({"slug": "long", "depth": 1, "limit": 100}),
        DEFAULT_BUDGET_BYTES,
    ) {
        let read: Value = with_nodes_read(serde_json::from_str(&text).expect("JSON"));
        for top in read["outline"].as_array().expect("an outline") {
            assert!(top.get("parent").is_none() && top.get("children").is_none());
            tops.push(top["text"].as_str().expect("text").to_owned());
        }
    }
    let expected_tops: Vec<&String> = expected
        .iter()
        .filter(|(level, _)| *level == 1)
        .map(|(_, text)| text)
        .collect();
    assert_eq!(tops.iter().collect::<Vec<_>>(), expected_tops);

    // The markdown exports, joined, are the file; the AST joins into the page's blocks.
    let exported: String = read_in_slices(
        &mut |a| session.call("outl_export_md", a),
        &json!({"slug": "long"}),
        DEFAULT_BUDGET_BYTES,
    )
    .into_iter()
    .map(|(text, _)| text)
    .collect();
    assert!(exported == md, "the joined export is not the file");
    let rendered: String = read_in_slices(
        &mut |a| session.call("outl_page_render", a),
        &json!({"slug": "long", "limit": 400}),
        DEFAULT_BUDGET_BYTES,
    )
    .into_iter()
    .map(|(text, _)| text)
    .collect();
    assert!(rendered == md, "the joined render is not the page");
    let mut ast = Joined::default();
    for (text, _) in read_in_slices(
        &mut |a| session.call("outl_export_json", a),
        &json!({"slug": "long"}),
        DEFAULT_BUDGET_BYTES,
    ) {
        let document: Value = serde_json::from_str(&text).expect("JSON");
        document["blocks"]
            .as_array()
            .expect("blocks")
            .iter()
            .for_each(|top| ast.graft_top(top));
    }
    assert_eq!(ast.in_order(), expected);
    session.finish();
}

fn count_nodes(node: &Value) -> usize {
    1 + node["children"]
        .as_array()
        .map_or(0, |children| children.iter().map(count_nodes).sum())
}

#[test]
fn a_short_page_is_read_whole_as_before() {
    let ws = demo_workspace();
    let mut session = StdioSession::initialized(ws.path());
    let page = json_payload(&session.call("outl_page_get", json!({"slug": "launch checklist"})));
    assert!(page.get("next_cursor").is_none() && page.get("remaining").is_none());
    let rendered = session.call("outl_page_render", json!({"slug": "launch checklist"}));
    assert_eq!(
        rendered["result"]["content"].as_array().map(Vec::len),
        Some(1)
    );
    session.finish();
}

#[test]
fn a_block_tree_and_a_journal_day_read_in_slices_join_whole() {
    let ws = tempfile::tempdir().expect("temp workspace");
    // One block holding the whole long page under it.
    let (md, expected) = long_page(1_500);
    let nested: String = md
        .lines()
        .skip(2)
        .map(|line| format!("\t{line}\n"))
        .collect();
    write_page(ws.path(), "tree", &format!("- the root\n{nested}"));
    std::fs::create_dir_all(ws.path().join("journals")).expect("journals folder");
    std::fs::write(ws.path().join("journals/2026_11_30.md"), &md).expect("write the day");
    let server = HttpServer::start(ws.path(), &[]);
    let http = server.session();

    let page = json_payload(&http.call("outl_page_get", json!({"slug": "tree", "depth": 1})));
    let root = page["outline"][0]["id"].as_str().expect("an id").to_owned();
    let mut joined = Joined::default();
    for (n, (text, _)) in read_in_slices(
        &mut |a| http.call("outl_block_tree", a),
        &json!({"id": root}),
        DEFAULT_BUDGET_BYTES,
    )
    .into_iter()
    .enumerate()
    {
        let tree: Value = with_nodes_read(serde_json::from_str(&text).expect("JSON"));
        if n == 0 {
            assert!(tree.get("outline").is_none());
            joined.graft(&tree["tree"], None);
        } else {
            assert!(tree.get("tree").is_none());
            tree["outline"]
                .as_array()
                .expect("an outline")
                .iter()
                .for_each(|top| joined.graft_top(top));
        }
    }
    let mut with_root = vec![(1, "the root".to_owned())];
    with_root.extend(
        expected
            .iter()
            .map(|(level, text)| (level + 1, text.clone())),
    );
    assert_eq!(joined.in_order(), with_root);

    let mut day = Joined::default();
    let mut day_md = String::new();
    for (text, _) in read_in_slices(
        &mut |a| http.call("outl_daily_get", a),
        &json!({"date": "2026-11-30"}),
        DEFAULT_BUDGET_BYTES,
    ) {
        let read: Value = with_nodes_read(serde_json::from_str(&text).expect("JSON"));
        assert_eq!(read["date"], "2026-11-30");
        day_md.push_str(read["md"].as_str().expect("md"));
        read["outline"]
            .as_array()
            .expect("an outline")
            .iter()
            .for_each(|top| day.graft_top(top));
    }
    assert_eq!(day.in_order(), expected);
    assert!(day_md == md, "the joined markdown is not the file");
}

/// The longest error reply: an error quotes what it was sent only as a short excerpt.
const MAX_ERROR_BYTES: usize = 1_000;

/// The error of a refused call, after checking that its whole reply is short.
fn short_error(reply: &Value) -> Value {
    let size = reply.to_string().len();
    assert!(size <= MAX_ERROR_BYTES, "a {size}-byte error reply");
    tool_error(reply)
}

fn over_limit(error: &Value, pointer: &str, limit: usize) {
    assert_eq!(error["code"], "INVALID_ARGUMENTS", "{error}");
    let problem = &error["data"]["problems"][0];
    assert_eq!(problem["pointer"], pointer, "{error}");
    let message = problem["message"].as_str().unwrap_or_default();
    assert!(
        message.ends_with(&format!("over the limit of {limit} for this argument")),
        "{message}"
    );
}

#[test]
fn arguments_over_their_limits_are_refused_short_on_both_transports() {
    let ws = demo_workspace();
    let two_mb = format!("- {}\n", "x".repeat(2 * 1024 * 1024));
    let ten_mb_slug = "s".repeat(10 * 1024 * 1024);
    let calls = [
        (
            "outl_page_append",
            json!({"slug": "pricing", "md": two_mb}),
            "/md",
            1_000_000,
        ),
        (
            "outl_block_insert",
            json!({"page": "pricing", "text": "t".repeat(20_001)}),
            "/text",
            20_000,
        ),
        (
            "outl_search",
            json!({"query": "q".repeat(1_001)}),
            "/query",
            1_000,
        ),
        (
            "outl_page_get",
            json!({"slug": ten_mb_slug}),
            "/slug",
            1_000,
        ),
    ];

    let mut stdio = StdioSession::initialized(ws.path());
    for (tool, args, pointer, limit) in &calls {
        over_limit(
            &short_error(&stdio.call(tool, args.clone())),
            pointer,
            *limit,
        );
    }
    stdio.finish();

    let server = HttpServer::start(ws.path(), &[]);
    let http = server.session();
    // The 10 MB slug is over the HTTP body limit: 413 before any tool.
    for (tool, args, pointer, limit) in &calls[..3] {
        over_limit(
            &short_error(&http.call(tool, args.clone())),
            pointer,
            *limit,
        );
    }
}

#[test]
fn a_long_name_that_names_nothing_is_quoted_as_an_excerpt() {
    let ws = demo_workspace();
    let mut session = StdioSession::initialized(ws.path());
    let name = "long name ".repeat(99);
    let error = short_error(&session.call("outl_page_get", json!({"slug": name})));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("…[990 bytes]"), "{message}");
    let slug = error["data"]["slug"].as_str().unwrap_or_default();
    assert!(
        slug.starts_with("long name long name") && slug.ends_with("…[990 bytes]"),
        "{slug}"
    );
    let error = short_error(&session.call("outl_block_get", json!({"id": "i".repeat(900)})));
    assert_eq!(error["code"], "BLOCK_NOT_FOUND");
    let error = short_error(&session.call("outl_daily_get", json!({"date": "2".repeat(900)})));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    session.finish();
}
