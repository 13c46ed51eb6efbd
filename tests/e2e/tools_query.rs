//! The query tools over MCP stdio on a copy of the demo workspace: each one's success reply in
//! its projected shape, slicing with limit and cursor, and its errors.

use crate::mcp_support::{
    StdioSession, column, demo_workspace, json_payload, outl_call, problem_pointers, tool_error,
};
use serde_json::{Value, json};

/// Follows `next_cursor` through a whole list, `limit` at a time, and returns its items.
fn every_slice(
    s: &mut StdioSession,
    tool: &str,
    args: Value,
    items: &str,
    limit: u64,
) -> Vec<Value> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut call = args.clone();
        call["limit"] = json!(limit);
        if let Some(cursor) = &cursor {
            call["cursor"] = json!(cursor);
        }
        let reply = json_payload(&s.call(tool, call));
        let slice = reply[items].as_array().expect("a list").clone();
        assert!(slice.len() as u64 <= limit);
        all.extend(slice);
        match reply.get("next_cursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_owned()),
            None => {
                assert_eq!(reply["total"].as_u64(), Some(all.len() as u64));
                return all;
            }
        }
    }
}

#[test]
fn search_ranks_blocks_and_slices_them() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let found = json_payload(&s.call("outl_search", json!({ "query": "pricing options" })));
    let hits = found["hits"].as_array().unwrap();
    assert_eq!(found["total"], 2);
    assert_eq!(column(&found["hits"], "page"), ["2026-11-24", "2026-11-23"]);
    for hit in hits {
        assert!(hit["id"].as_str().is_some_and(|id| !id.is_empty()));
        assert!(hit["snippet"].as_str().unwrap().contains("pricing options"));
    }
    // The id opens the block.
    let block = json_payload(&s.call("outl_block_get", json!({ "id": hits[0]["id"] })));
    assert_eq!(block["block"]["todo"], "DONE");

    let phrase = json_payload(&s.call("outl_search", json!({ "query": "\"options pricing\"" })));
    assert_eq!(phrase["total"], 0);
    let all = every_slice(
        &mut s,
        "outl_search",
        json!({ "query": "clinic" }),
        "hits",
        2,
    );
    assert!(all.len() > 2, "{all:?}");

    let error = tool_error(&s.call("outl_search", json!({ "query": " ?! " })));
    assert_eq!(problem_pointers(&error), ["/query"]);
    let error = tool_error(&s.call("outl_search", json!({ "query": "x", "cursor": "later" })));
    assert_eq!(problem_pointers(&error), ["/cursor"]);
    s.finish();
}

#[test]
fn tasks_lists_open_tasks_by_default_and_filters_by_state_and_page() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let open = every_slice(&mut s, "outl_tasks", json!({}), "hits", 5);
    assert!(!open.is_empty());
    // Slices of 5 follow each other exactly as one slice of them all.
    let whole = json_payload(&s.call("outl_tasks", json!({ "limit": 200 })));
    assert_eq!(whole["hits"].as_array(), Some(&open));
    for task in &open {
        let text = task["text"].as_str().unwrap();
        assert!(
            !text.starts_with("DONE") && !text.starts_with("CANCELED"),
            "{text}"
        );
        assert!(task["id"].is_string() && task["page"].is_string());
    }

    let checklist = json_payload(&s.call(
        "outl_tasks",
        json!({ "page": "Launch Checklist", "state": "all" }),
    ));
    // Document order: the nested tasks follow their parent.
    assert_eq!(
        column(&checklist["hits"], "text")[..4],
        [
            "DONE [#A] Onboarding flow signed off by [[Bob Lindgren]]",
            "DOING [#A] SMS reminders #reminders",
            "DONE Twilio account moved to the company card",
            "NOW Retry with backoff when a carrier rejects a message",
        ]
    );
    assert_eq!(checklist["hits"][3]["scheduled"], "2026-11-26 Thu");
    assert_eq!(checklist["total"], 12);
    let waiting = json_payload(&s.call("outl_tasks", json!({ "state": "WAITING" })));
    assert!(
        column(&waiting["hits"], "text")
            .iter()
            .all(|t| t.starts_with("WAITING"))
    );
    assert!(waiting["total"].as_u64().unwrap() >= 2);

    let error = tool_error(&s.call("outl_tasks", json!({ "page": "launch checklst" })));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    assert_eq!(error["data"]["suggestions"], json!(["launch checklist"]));
    let error = tool_error(&s.call("outl_tasks", json!({ "state": "done" })));
    assert_eq!(problem_pointers(&error), ["/state"]);
    s.finish();
}

#[test]
fn tags_counts_every_tag_most_used_first() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let all = every_slice(&mut s, "outl_tags", json!({}), "tags", 4);
    let counts: Vec<u64> = all.iter().map(|t| t["count"].as_u64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    let tag = |name: &str| all.iter().find(|t| t["tag"] == name).cloned();
    assert_eq!(tag("person").map(|t| t["count"].clone()), Some(json!(3)));
    assert!(
        tag("customer feedback").is_some(),
        "#[[multi word]] tags count too"
    );

    let error = tool_error(&s.call("outl_tags", json!({ "limit": 0 })));
    assert_eq!(problem_pointers(&error), ["/limit"]);
    s.finish();
}

#[test]
fn tag_get_returns_tagged_blocks_and_pages() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let people = json_payload(&s.call("outl_tag_get", json!({ "tag": "person" })));
    assert_eq!(
        column(&people["hits"], "page"),
        ["bob lindgren", "priya raman", "tomás silva"]
    );
    // Pages tagged through `tags::` carry no block id.
    assert!(
        people["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h.get("id").is_none())
    );

    let reminders = json_payload(&s.call("outl_tag_get", json!({ "tag": "#reminders" })));
    assert_eq!(reminders["total"], 5);
    for hit in reminders["hits"].as_array().unwrap() {
        assert!(
            hit["text"].as_str().unwrap().contains("#reminders"),
            "{hit}"
        );
    }
    let bracketed =
        json_payload(&s.call("outl_tag_get", json!({ "tag": "#[[Customer Feedback]]" })));
    assert_eq!(bracketed["total"], 5);
    let unknown = json_payload(&s.call("outl_tag_get", json!({ "tag": "nothing-tagged" })));
    assert_eq!(
        (&unknown["hits"], &unknown["total"]),
        (&json!([]), &json!(0))
    );

    let error = tool_error(&s.call("outl_tag_get", json!({})));
    assert_eq!(problem_pointers(&error), ["/tag"]);
    s.finish();
}

#[test]
fn property_query_finds_blocks_and_pages_with_their_values() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let owners = json_payload(&s.call("outl_property_query", json!({ "key": "Owner" })));
    assert_eq!(owners["total"], 1);
    let hit = &owners["hits"][0];
    assert_eq!(hit["page"], "launch checklist");
    assert_eq!(hit["value"], "[[Priya Raman]]");
    assert!(
        hit["text"]
            .as_str()
            .unwrap()
            .starts_with("DOING [#A] SMS reminders")
    );

    let decided = json_payload(&s.call(
        "outl_property_query",
        json!({ "key": "status", "value": "decided" }),
    ));
    assert_eq!(
        decided["hits"],
        json!([{ "page": "pricing", "value": "decided" }])
    );
    let every_status = json_payload(&s.call("outl_property_query", json!({ "key": "status" })));
    assert_eq!(every_status["total"], 2);

    let error = tool_error(&s.call(
        "outl_property_query",
        json!({ "key": "status", "value": 3 }),
    ));
    assert_eq!(problem_pointers(&error), ["/value"]);
    s.finish();
}

#[test]
fn links_lists_targets_and_whether_they_exist() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let links = json_payload(&s.call("outl_links", json!({ "slug": "Launch checklist" })));
    assert_eq!(links["page"], "launch checklist");
    let target = |slug: &str| {
        links["links"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["page"] == slug)
            .cloned()
            .unwrap_or_else(|| panic!("no link to {slug}: {links}"))
    };
    assert_eq!(
        target("bob lindgren"),
        json!({ "page": "bob lindgren", "exists": true })
    );
    assert_eq!(
        target("2026-12-08"),
        json!({ "page": "2026-12-08", "exists": false })
    );
    assert_eq!(
        target("apollo"),
        json!({ "page": "apollo", "exists": true, "alias_of": "projects/apollo" })
    );
    assert_eq!(target("reminders")["exists"], false);

    // `alias:: launch` names the page too.
    let by_alias = json_payload(&s.call("outl_links", json!({ "slug": "Launch" })));
    assert_eq!(by_alias["page"], "launch checklist");

    let error = tool_error(&s.call("outl_links", json!({ "slug": "Launch checklst" })));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    assert_eq!(error["data"]["suggestions"][0], "launch checklist");
    s.finish();
}

#[test]
fn recent_lists_the_last_changed_pages_first() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    json_payload(&s.call(
        "outl_block_insert",
        json!({ "text": "Second round of screening calls", "page": "Hiring" }),
    ));
    let recent = json_payload(&s.call("outl_recent", json!({ "limit": 3 })));
    let pages = recent["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 3);
    assert_eq!(pages[0]["page"], "hiring");
    assert!(pages[0]["updated"].as_str().unwrap().ends_with('Z'));
    assert!(pages[0]["updated"].as_str() >= pages[1]["updated"].as_str());

    let error = tool_error(&s.call("outl_recent", json!({ "cursor": "1" })));
    assert_eq!(problem_pointers(&error), ["/cursor"]);
    s.finish();

    // The CLI prints the same, un-projected.
    let envelope = outl_call(ws.path(), "outl_recent", &json!({ "limit": 1 }), &[]);
    assert_eq!(envelope["data"]["pages"][0]["page"], "hiring");
}
