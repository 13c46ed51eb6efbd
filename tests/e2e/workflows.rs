//! What a model does with outl, end to end over MCP stdio on a copy of the demo workspace:
//! several tools in a row, each reply feeding the next call.

use std::fs;

use crate::mcp_support::{StdioSession, demo_workspace, json_payload, tool_error};
use serde_json::{Value, json};

/// `(page, id)` of each backlink of a reply.
fn linking_blocks(reply: &Value) -> Vec<(String, Option<String>)> {
    reply["backlinks"]
        .as_array()
        .expect("a backlinks array")
        .iter()
        .map(|b| {
            (
                b["page"].as_str().unwrap().to_owned(),
                b["id"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[test]
fn rename_a_page_and_see_its_backlinks_follow() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let before = json_payload(&s.call(
        "outl_page_backlinks",
        json!({"slug": "Priya Raman", "limit": 200}),
    ));
    let linking = linking_blocks(&before);
    assert!(linking.len() >= 4, "the demo links Priya often: {before}");

    let renamed = json_payload(&s.call(
        "outl_page_rename",
        json!({"slug": "priya raman", "new_name": "Priya R."}),
    ));
    assert_eq!(renamed["slug"], "priya r.");

    // The same blocks link to it, now under the new name, and they kept their ids.
    let after = json_payload(&s.call(
        "outl_page_backlinks",
        json!({"slug": "Priya R.", "limit": 200}),
    ));
    assert_eq!(linking_blocks(&after), linking);
    let texts: Vec<&str> = after["backlinks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect();
    assert!(
        texts.iter().all(|t| !t.contains("[[Priya Raman]]")),
        "{texts:?}"
    );
    assert!(
        texts.iter().filter(|t| t.contains("[[Priya R.]]")).count() >= 3,
        "{texts:?}"
    );
    let rewritten: Vec<&str> = renamed["rewritten_pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    for (page, _) in &linking {
        assert!(
            rewritten.contains(&page.as_str()),
            "{page} is not in {rewritten:?}"
        );
    }

    // The old name is gone, and the error says where to look.
    let error = tool_error(&s.call("outl_page_backlinks", json!({"slug": "Priya Raman"})));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    // The files say so too: the page moved, and a linking journal names the new page.
    assert!(ws.path().join(renamed["file"].as_str().unwrap()).exists());
    assert!(!ws.path().join("pages/Priya Raman.md").exists());
    let journal = fs::read_to_string(ws.path().join("journals/2026_11_24.md")).unwrap();
    assert!(journal.contains("1:1 with [[Priya R.]]"), "{journal}");
    // A link in a block property follows too.
    let launch = fs::read_to_string(ws.path().join("pages/Launch checklist.md")).unwrap();
    assert!(launch.contains("owner:: [[Priya R.]]"), "{launch}");
    s.finish();
}

/// The node of `outline` whose text starts with `text`, searched depth first.
fn find_node<'a>(outline: &'a Value, text: &str) -> Option<&'a Value> {
    outline.as_array()?.iter().find_map(|node| {
        if node["text"].as_str()?.starts_with(text) {
            Some(node)
        } else {
            find_node(&node["children"], text)
        }
    })
}

#[test]
fn read_todays_journal_and_tick_a_task() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized_with(ws.path(), &[("OUTL_TODAY", "2026-11-29")]);

    // The journal's outline is where the task's id comes from.
    let today = json_payload(&s.call("outl_daily_today", json!({})));
    let task = find_node(&today["outline"], "[#B] Agenda of the [[Weekly sync]]")
        .expect("today's open task");
    assert_eq!(task["todo"], "TODO");
    let id = task["id"].as_str().expect("the task's id").to_owned();

    let ticked = json_payload(&s.call("outl_block_todo", json!({"id": id, "state": "DONE"})));
    assert_eq!(ticked["page"], today["date"]);

    // Read again: the same block, now done; the markdown and the file say so too.
    let again = json_payload(&s.call("outl_daily_today", json!({})));
    let task = find_node(&again["outline"], "[#B] Agenda").expect("the task is still there");
    assert_eq!(
        (task["id"].as_str(), &task["todo"]),
        (Some(id.as_str()), &json!("DONE"))
    );
    let line = "- DONE [#B] Agenda of the [[Weekly sync]] on [[2026-11-30]]\n";
    assert!(
        again["md"].as_str().unwrap().contains(line),
        "{}",
        again["md"]
    );
    let file = fs::read_to_string(ws.path().join("journals/2026_11_29.md")).unwrap();
    assert!(file.contains(line), "{file}");
    // It left the open tasks.
    let open = json_payload(&s.call("outl_tasks", json!({"page": "2026-11-29"})));
    assert_eq!(open["total"], 0, "{open}");
    s.finish();
}

#[test]
fn search_open_the_page_move_a_block_under_another_and_undo() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());
    let file = ws.path().join("pages/Pricing.md");
    let original_file = fs::read_to_string(&file).unwrap();

    let found = json_payload(&s.call("outl_search", json!({"query": "annual plan"})));
    let hit = &found["hits"][0];
    assert_eq!(hit["page"], "pricing");
    let page = json_payload(&s.call("outl_page_get", json!({"slug": hit["page"]})));
    let original = page["outline"].clone();
    let annual = find_node(&original, "Annual plan").expect("the hit is on the page");
    assert_eq!(annual["id"], hit["id"]);
    let decision = find_node(&original, "Decision:").expect("the decision block");
    let questions = find_node(&original, "Open questions").expect("its parent");
    assert_eq!(questions["children"][0]["id"], hit["id"]);

    let moved = json_payload(&s.call(
        "outl_block_move",
        json!({"id": hit["id"], "parent_id": decision["id"]}),
    ));
    assert_eq!(moved["parent"], decision["id"]);
    let after = json_payload(&s.call("outl_page_get", json!({"slug": "pricing"})));
    let decision_now = find_node(&after["outline"], "Decision:").unwrap();
    assert_eq!(decision_now["children"][0]["id"], hit["id"]);
    let questions_now = find_node(&after["outline"], "Open questions").unwrap();
    assert_eq!(questions_now["children"].as_array().unwrap().len(), 1);

    let undone = json_payload(&s.call("outl_undo", json!({})));
    assert_eq!(undone["kind"], "block.move");
    let restored = json_payload(&s.call("outl_page_get", json!({"slug": "pricing"})));
    assert_eq!(
        restored["outline"], original,
        "the order and the ids are back"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), original_file);
    let error = tool_error(&s.call("outl_undo", json!({})));
    assert_eq!(error["code"], "NOTHING_TO_UNDO");
    s.finish();
}
