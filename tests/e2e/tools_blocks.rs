//! The block tools over MCP stdio on a copy of the demo workspace: each one's success reply in
//! its projected shape, what it wrote to the page file, and its errors.

use std::fs;
use std::path::Path;

use crate::mcp_support::{
    StdioSession, demo_workspace, json_payload, outl_call, outline_nodes, problem_pointers,
    tool_error,
};
use serde_json::{Value, json};

/// The decision block of the demo's Pricing page, with its own `id::` property.
const DECISION: &str = "6f3a2c";
/// The cancelled waitlist item of the demo's Launch checklist, with its own `id::` property.
const WAITLIST: &str = "k7m2qp";

fn page_file(ws: &Path, file: &str) -> String {
    fs::read_to_string(ws.join(file)).unwrap_or_else(|e| panic!("read {file}: {e}"))
}

/// The outline of a page, as outl_page_get returns it.
fn outline(s: &mut StdioSession, slug: &str) -> Value {
    json_payload(&s.call("outl_page_get", json!({ "slug": slug })))["outline"].clone()
}

/// The node of `outline` whose text starts with `text`, searched depth first.
fn node<'a>(outline: &'a Value, text: &str) -> &'a Value {
    outline_nodes(outline)
        .into_iter()
        .find(|n| n["text"].as_str().is_some_and(|t| t.starts_with(text)))
        .unwrap_or_else(|| panic!("no block starting {text:?} in {outline}"))
}

fn id(node: &Value) -> String {
    node["id"].as_str().expect("a node has an id").to_owned()
}

/// The texts of a list of nodes.
fn texts(nodes: &Value) -> Vec<&str> {
    nodes
        .as_array()
        .expect("an array of nodes")
        .iter()
        .map(|n| n["text"].as_str().expect("a text"))
        .collect()
}

fn assert_block_not_found(reply: &Value, id: &str) {
    let error = tool_error(reply);
    assert_eq!(error["code"], "BLOCK_NOT_FOUND", "{error}");
    assert_eq!(error["data"]["id"], id);
}

#[test]
fn block_get_returns_one_block_with_its_page_and_parent() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let read = json_payload(&s.call("outl_block_get", json!({ "id": WAITLIST })));
    assert_eq!(read["page"], "launch checklist");
    let block = &read["block"];
    assert_eq!(block["id"], WAITLIST);
    assert_eq!(block["todo"], "CANCELED");
    assert_eq!(block["text"], "Waitlist for fully booked days");
    // The id property is the id; the other properties stay.
    assert_eq!(
        block["properties"],
        json!({"reason": "needs calendar sync, moved after the beta on [[2026-11-24]]"})
    );
    assert!(block.get("collapsed").is_none(), "false is pruned: {block}");
    let product = node(&outline(&mut s, "launch checklist"), "Product").clone();
    assert_eq!(read["parent"], product["id"]);

    // A block with children: counted, not returned.
    let product_read = json_payload(&s.call("outl_block_get", json!({ "id": id(&product) })));
    assert!(
        product_read["block"].get("children").is_none(),
        "{product_read}"
    );
    assert_eq!(product_read["block"]["children_omitted"], 4);
    assert!(
        product_read.get("parent").is_none(),
        "top level: {product_read}"
    );

    assert_block_not_found(
        &s.call("outl_block_get", json!({ "id": "nope42" })),
        "nope42",
    );
    s.finish();

    // The CLI prints the same block un-projected.
    let envelope = outl_call(ws.path(), "outl_block_get", &json!({ "id": WAITLIST }), &[]);
    assert_eq!(envelope["ok"], true);
    let block = &envelope["data"]["block"];
    assert_eq!(block["collapsed"], false);
    assert!(block["tokens"].as_array().is_some_and(|t| !t.is_empty()));
}

#[test]
fn block_tree_returns_the_subtree_cut_at_depth() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    let product = id(node(&outline(&mut s, "launch checklist"), "Product"));

    let whole = json_payload(&s.call("outl_block_tree", json!({ "id": product })));
    assert_eq!(whole["page"], "launch checklist");
    let sms = node(&whole["tree"]["children"], "[#A] SMS reminders");
    assert_eq!(sms["todo"], "DOING");
    assert_eq!(sms["properties"], json!({"owner": "[[Priya Raman]]"}));
    assert_eq!(
        texts(&sms["children"]),
        [
            "Twilio account moved to the company card",
            "Retry with backoff when a carrier rejects a message",
            "Opt-out keyword (STOP) handled on every number",
        ]
    );
    let retry = node(&sms["children"], "Retry with backoff");
    assert_eq!(retry["scheduled"], "2026-11-26 Thu", "{retry}");

    let cut = json_payload(&s.call("outl_block_tree", json!({ "id": product, "depth": 2 })));
    let sms = node(&cut["tree"]["children"], "[#A] SMS reminders");
    assert_eq!(
        (sms.get("children"), &sms["children_omitted"]),
        (None, &json!(3))
    );

    let error = tool_error(&s.call("outl_block_tree", json!({ "id": product, "depth": 0 })));
    assert_eq!(problem_pointers(&error), ["/depth"]);
    assert_block_not_found(
        &s.call("outl_block_tree", json!({ "id": "gone00" })),
        "gone00",
    );
    s.finish();

    let envelope = outl_call(ws.path(), "outl_block_tree", &json!({ "id": product }), &[]);
    assert!(envelope["data"]["tree"]["children"][0]["tokens"].is_array());
}

#[test]
fn block_insert_places_one_block_by_parent_sibling_or_page() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let at_end = json_payload(&s.call(
        "outl_block_insert",
        json!({ "text": "TODO Ask Bob about the invoice layout", "page": "Pricing" }),
    ));
    assert_eq!(at_end["page"], "pricing");
    assert!(at_end.get("parent").is_none());
    let new_id = id(&at_end);
    let pricing = outline(&mut s, "pricing");
    let last = pricing.as_array().unwrap().last().unwrap();
    assert_eq!(
        (last["id"].as_str(), &last["todo"]),
        (Some(new_id.as_str()), &json!("TODO"))
    );

    let child = json_payload(&s.call(
        "outl_block_insert",
        json!({ "text": "- a dash line\nstays in the text", "parent_id": new_id }),
    ));
    assert_eq!(child["parent"], new_id.as_str());
    let sibling = json_payload(&s.call(
        "outl_block_insert",
        json!({ "text": "right after the decision", "after_id": DECISION }),
    ));
    assert!(sibling.get("parent").is_none());

    let md = page_file(ws.path(), "pages/Pricing.md");
    assert!(
        md.contains("  decided:: [[2026-11-25]]\n- right after the decision\n- Open questions"),
        "{md}"
    );
    assert!(
        md.ends_with(
            "- TODO Ask Bob about the invoice layout\n\t- - a dash line\n\t  stays in the text\n"
        ),
        "{md}"
    );
    let read = json_payload(&s.call("outl_block_get", json!({ "id": id(&child) })));
    assert_eq!(read["block"]["text"], "- a dash line\nstays in the text");

    let two = tool_error(&s.call(
        "outl_block_insert",
        json!({ "text": "x", "parent_id": DECISION, "page": "pricing" }),
    ));
    assert_eq!(problem_pointers(&two), ["/parent_id", "/page"]);
    let none = tool_error(&s.call("outl_block_insert", json!({ "text": "x" })));
    assert_eq!(problem_pointers(&none), [""]);
    let missing = tool_error(&s.call(
        "outl_block_insert",
        json!({ "text": "x", "page": "Pricng" }),
    ));
    assert_eq!(missing["code"], "PAGE_NOT_FOUND");
    assert_eq!(missing["data"]["suggestions"], json!(["pricing"]));
    assert_block_not_found(
        &s.call(
            "outl_block_insert",
            json!({ "text": "x", "after_id": "zzzzzz" }),
        ),
        "zzzzzz",
    );
    s.finish();
}

#[test]
fn block_update_replaces_the_text_and_keeps_the_task_marker() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    let retry = id(node(
        &outline(&mut s, "launch checklist"),
        "Retry with backoff",
    ));

    let written = json_payload(&s.call(
        "outl_block_update",
        json!({ "id": retry, "text": "Retry twice, then fall back to email" }),
    ));
    assert_eq!(written, json!({ "id": retry, "page": "launch checklist" }));
    let md = page_file(ws.path(), "pages/Launch checklist.md");
    assert!(
        md.contains("\t\t- NOW Retry twice, then fall back to email\n"),
        "{md}"
    );
    assert!(
        md.contains(
            "\t\t- NOW Retry twice, then fall back to email\n\t\t  SCHEDULED: <2026-11-26 Thu>\n"
        ),
        "the text was replaced, its planning kept: {md}"
    );

    // A marker in the new text wins.
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": retry, "text": "DONE Retry twice" }),
    ));
    let read = json_payload(&s.call("outl_block_get", json!({ "id": retry })));
    assert_eq!(
        (&read["block"]["todo"], &read["block"]["text"]),
        (&json!("DONE"), &json!("Retry twice"))
    );

    assert_block_not_found(
        &s.call("outl_block_update", json!({ "id": "nope42", "text": "x" })),
        "nope42",
    );
    let error = tool_error(&s.call("outl_block_update", json!({ "id": retry })));
    assert_eq!(problem_pointers(&error), ["/text"]);
    s.finish();
}

#[test]
fn block_delete_removes_the_subtree() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    let options = node(&outline(&mut s, "pricing"), "Options we looked at").clone();

    let deleted = json_payload(&s.call("outl_block_delete", json!({ "id": id(&options) })));
    assert_eq!(deleted, json!({ "page": "pricing", "deleted": 8 }));
    let md = page_file(ws.path(), "pages/Pricing.md");
    assert!(
        !md.contains("Options we looked at") && !md.contains("Per booking"),
        "{md}"
    );
    assert_block_not_found(
        &s.call("outl_block_get", json!({ "id": id(&options) })),
        &id(&options),
    );
    assert_block_not_found(
        &s.call("outl_block_delete", json!({ "id": id(&options) })),
        &id(&options),
    );
    s.finish();
}

#[test]
fn block_move_goes_across_pages_but_never_under_itself() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    let questions = id(node(&outline(&mut s, "pricing"), "Open questions"));
    let annual = id(node(&outline(&mut s, "pricing"), "Annual plan"));

    let moved = json_payload(&s.call(
        "outl_block_move",
        json!({ "id": questions, "after_id": WAITLIST }),
    ));
    assert_eq!(moved["page"], "launch checklist");
    assert_eq!(moved["id"], questions.as_str());
    let product = id(node(&outline(&mut s, "launch checklist"), "Product"));
    assert_eq!(moved["parent"], product.as_str());
    let pricing = page_file(ws.path(), "pages/Pricing.md");
    assert!(!pricing.contains("Open questions"), "{pricing}");
    let checklist = page_file(ws.path(), "pages/Launch checklist.md");
    assert!(
        checklist
            .contains("\t- Open questions\n\t\t- TODO Annual plan: two months free or 15% off?"),
        "{checklist}"
    );
    // The moved blocks keep their ids.
    let read = json_payload(&s.call("outl_block_get", json!({ "id": annual })));
    assert_eq!(
        (&read["page"], &read["parent"]),
        (&json!("launch checklist"), &json!(questions))
    );

    let under_itself = tool_error(&s.call(
        "outl_block_move",
        json!({ "id": questions, "parent_id": annual }),
    ));
    assert_eq!(problem_pointers(&under_itself), ["/parent_id"]);
    let two = tool_error(&s.call(
        "outl_block_move",
        json!({ "id": questions, "after_id": annual, "page": "pricing" }),
    ));
    assert_eq!(problem_pointers(&two), ["/after_id", "/page"]);
    // Nothing moved on a refusal.
    assert_eq!(page_file(ws.path(), "pages/Launch checklist.md"), checklist);
    s.finish();
}

#[test]
fn block_indent_goes_under_the_block_above() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    let tree = outline(&mut s, "launch checklist");
    let market = id(node(&tree, "Go to market"));
    let product = id(node(&tree, "Product"));
    let onboarding = id(node(&tree, "[#A] Onboarding flow"));

    let indented = json_payload(&s.call("outl_block_indent", json!({ "id": market })));
    assert_eq!(indented["parent"], product.as_str());
    let tree = outline(&mut s, "launch checklist");
    let children = &node(&tree, "Product")["children"];
    assert_eq!(texts(children).last(), Some(&"Go to market"));
    assert_eq!(
        node(children, "Go to market")["children"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let error = tool_error(&s.call("outl_block_indent", json!({ "id": onboarding })));
    assert_eq!(problem_pointers(&error), ["/id"]);
    assert_block_not_found(
        &s.call("outl_block_indent", json!({ "id": "nope42" })),
        "nope42",
    );
    s.finish();
}

#[test]
fn block_outdent_moves_right_after_the_parent() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    let tree = outline(&mut s, "launch checklist");
    let sms = id(node(&tree, "[#A] SMS reminders"));
    let product = id(node(&tree, "Product"));

    let outdented = json_payload(&s.call("outl_block_outdent", json!({ "id": sms })));
    assert!(outdented.get("parent").is_none(), "{outdented}");
    let tree = outline(&mut s, "launch checklist");
    assert_eq!(
        texts(&tree)[1..3],
        ["Product", "[#A] SMS reminders #reminders"],
        "right after its old parent"
    );
    // Its later siblings stayed under the parent; its children came with it.
    assert_eq!(
        node(&tree, "Product")["children"].as_array().unwrap().len(),
        3
    );
    assert_eq!(
        node(&tree, "[#A] SMS reminders")["children"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let error = tool_error(&s.call("outl_block_outdent", json!({ "id": product })));
    assert_eq!(problem_pointers(&error), ["/id"]);
    assert_block_not_found(
        &s.call("outl_block_outdent", json!({ "id": "nope42" })),
        "nope42",
    );
    s.finish();
}

#[test]
fn block_todo_ticks_a_task_and_clears_it() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    let annual = id(node(&outline(&mut s, "pricing"), "Annual plan"));

    let done = json_payload(&s.call("outl_block_todo", json!({ "id": annual, "state": "DONE" })));
    assert_eq!(
        done,
        json!({ "id": annual, "page": "pricing", "todo": "DONE" })
    );
    assert!(page_file(ws.path(), "pages/Pricing.md").contains("\t- DONE Annual plan: two months"));

    let plain = json_payload(&s.call("outl_block_todo", json!({ "id": annual, "state": "none" })));
    assert_eq!(plain["todo"], Value::Null);
    assert!(page_file(ws.path(), "pages/Pricing.md").contains("\t- Annual plan: two months"));

    let error = tool_error(&s.call("outl_block_todo", json!({ "id": annual, "state": "done" })));
    assert_eq!(problem_pointers(&error), ["/state"]);
    assert_block_not_found(
        &s.call(
            "outl_block_todo",
            json!({ "id": "nope42", "state": "TODO" }),
        ),
        "nope42",
    );
    s.finish();
}

#[test]
fn block_property_set_adds_or_replaces_one_line_values() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let set = json_payload(&s.call(
        "outl_block_property_set",
        json!({ "id": WAITLIST, "key": "owner", "value": " [[Tomás Silva]] " }),
    ));
    assert_eq!(set["page"], "launch checklist");
    assert_eq!(set["properties"]["owner"], "[[Tomás Silva]]");
    let replaced = json_payload(&s.call(
        "outl_block_property_set",
        json!({ "id": WAITLIST, "key": "Reason", "value": "no calendar sync yet" }),
    ));
    let keys: Vec<&String> = replaced["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["id", "reason", "owner"], "replaced in place");
    let md = page_file(ws.path(), "pages/Launch checklist.md");
    assert!(
        md.contains("\t  reason:: no calendar sync yet\n\t  owner:: [[Tomás Silva]]\n"),
        "{md}"
    );
    // The new property links like any other.
    let backlinks = json_payload(&s.call("outl_page_backlinks", json!({ "slug": "Tomás Silva" })));
    assert!(backlinks.to_string().contains(WAITLIST), "{backlinks}");

    let error = tool_error(&s.call(
        "outl_block_property_set",
        json!({ "id": WAITLIST, "key": "id", "value": "abc\ndef" }),
    ));
    assert_eq!(problem_pointers(&error), ["/key", "/value"]);
    let error = tool_error(&s.call(
        "outl_block_property_set",
        json!({ "id": WAITLIST, "key": "two words", "value": "x" }),
    ));
    assert_eq!(problem_pointers(&error), ["/key"]);
    assert_block_not_found(
        &s.call(
            "outl_block_property_set",
            json!({ "id": "nope42", "key": "a", "value": "b" }),
        ),
        "nope42",
    );
    s.finish();
}

#[test]
fn block_property_remove_says_whether_there_was_one() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let removed = json_payload(&s.call(
        "outl_block_property_remove",
        json!({ "id": DECISION, "key": "DECIDED" }),
    ));
    assert_eq!(removed["removed"], true);
    assert_eq!(removed["properties"], json!({ "id": DECISION }));
    assert!(!page_file(ws.path(), "pages/Pricing.md").contains("decided::"));
    let again = json_payload(&s.call(
        "outl_block_property_remove",
        json!({ "id": DECISION, "key": "decided" }),
    ));
    assert_eq!(again["removed"], false);

    assert_block_not_found(
        &s.call(
            "outl_block_property_remove",
            json!({ "id": "nope42", "key": "a" }),
        ),
        "nope42",
    );
    let error = tool_error(&s.call("outl_block_property_remove", json!({ "id": DECISION })));
    assert_eq!(problem_pointers(&error), ["/key"]);
    s.finish();
}

#[test]
fn block_collapse_folds_and_unfolds() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    let sms = id(node(
        &outline(&mut s, "launch checklist"),
        "[#A] SMS reminders",
    ));

    let folded = json_payload(&s.call(
        "outl_block_collapse",
        json!({ "id": sms, "collapsed": true }),
    ));
    assert_eq!(
        folded,
        json!({ "id": sms, "page": "launch checklist", "collapsed": true })
    );
    let md = page_file(ws.path(), "pages/Launch checklist.md");
    assert!(
        md.contains("#reminders\n\t  owner:: [[Priya Raman]]\n\t  collapsed:: true\n"),
        "{md}"
    );
    let read = json_payload(&s.call("outl_block_get", json!({ "id": sms })));
    assert_eq!(read["block"]["collapsed"], true);
    assert_eq!(
        read["block"]["properties"],
        json!({ "owner": "[[Priya Raman]]" })
    );

    json_payload(&s.call(
        "outl_block_collapse",
        json!({ "id": sms, "collapsed": false }),
    ));
    assert!(!page_file(ws.path(), "pages/Launch checklist.md").contains("collapsed::"));

    let error = tool_error(&s.call(
        "outl_block_collapse",
        json!({ "id": sms, "collapsed": "yes" }),
    ));
    assert_eq!(problem_pointers(&error), ["/collapsed"]);
    assert_block_not_found(
        &s.call(
            "outl_block_collapse",
            json!({ "id": "nope42", "collapsed": true }),
        ),
        "nope42",
    );
    s.finish();
}

#[test]
fn block_refs_lists_the_blocks_that_embed_a_block() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let refs = json_payload(&s.call("outl_block_refs", json!({ "id": DECISION })));
    assert_eq!(refs["id"], DECISION);
    assert_eq!(refs["total"], 2);
    let hit = &refs["refs"][0];
    assert_eq!(hit["page"], "2026-11-25");
    assert_eq!(hit["text"], "Pricing decided: ((6f3a2c))");
    assert!(hit["id"].is_string());
    assert_eq!(refs["refs"][1]["page"], "projects/apollo");
    assert!(refs.get("next_cursor").is_none());

    // A new reference shows at once, and the list slices.
    let inserted = json_payload(&s.call(
        "outl_block_insert",
        json!({ "text": "see ((6f3a2c))", "page": "Hiring" }),
    ));
    let mut pages = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let slice = json_payload(&s.call(
            "outl_block_refs",
            json!({ "id": DECISION, "limit": 1, "cursor": cursor }),
        ));
        assert_eq!(slice["total"], 3);
        let hit = &slice["refs"][0];
        if hit["page"] == "hiring" {
            assert_eq!(hit["id"], inserted["id"]);
        }
        pages.push(hit["page"].as_str().unwrap().to_owned());
        match slice.get("next_cursor") {
            Some(next) => cursor = next.clone(),
            None => break,
        }
    }
    assert_eq!(pages, ["2026-11-25", "hiring", "projects/apollo"]);

    assert_block_not_found(
        &s.call("outl_block_refs", json!({ "id": "nope42" })),
        "nope42",
    );
    let error = tool_error(&s.call("outl_block_refs", json!({ "id": DECISION, "cursor": "x" })));
    assert_eq!(problem_pointers(&error), ["/cursor"]);
    s.finish();
}
