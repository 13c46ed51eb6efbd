//! The page tools over MCP stdio on a copy of the demo workspace: each one's success reply
//! in its projected shape, and its errors with the data a model acts on.

use std::fs;

use crate::mcp_support::{
    StdioSession, demo_workspace, json_payload, outl_call, outline_nodes, text_of, tool_error,
};
use serde_json::{Value, json};

fn node_with_text<'a>(outline: &'a Value, text: &str) -> &'a Value {
    outline_nodes(outline)
        .into_iter()
        .find(|n| n["text"] == text)
        .unwrap_or_else(|| panic!("no block {text:?} in {outline}"))
}

#[test]
fn page_list_slices_by_kind_namespace_and_cursor() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let all = json_payload(&s.call("outl_page_list", json!({})));
    let pages = all["pages"].as_array().unwrap();
    assert_eq!(
        pages.len(),
        13,
        "the demo's pages, journals left out: {all}"
    );
    assert!(all.get("next_cursor").is_none());
    let bob = &pages[0];
    assert_eq!(bob["slug"], "bob lindgren");
    assert_eq!(bob["name"], "Bob Lindgren");
    assert!(bob["blocks"].as_u64().unwrap() > 0);
    // The file and last change only when asked for.
    assert!(
        bob.get("updated").is_none() && bob.get("file").is_none(),
        "{bob}"
    );
    let detailed = json_payload(&s.call("outl_page_list", json!({"details": true})));
    let bob = &detailed["pages"][0];
    assert_eq!(bob["slug"], "bob lindgren");
    assert_eq!(bob["file"], "pages/Bob Lindgren.md");
    assert!(bob["updated"].as_str().unwrap().ends_with('Z'), "{bob}");
    let plain = json_payload(&s.call("outl_page_list", json!({"details": false})));
    assert_eq!(plain, all);

    let first = json_payload(&s.call("outl_page_list", json!({"limit": 5})));
    assert_eq!(first["pages"].as_array().unwrap().len(), 5);
    let cursor = first["next_cursor"]
        .as_str()
        .expect("more remain")
        .to_owned();
    let second = json_payload(&s.call("outl_page_list", json!({"limit": 5, "cursor": cursor})));
    assert_eq!(second["pages"][0]["slug"], pages[5]["slug"]);

    let journals = json_payload(&s.call("outl_page_list", json!({"kind": "journal"})));
    assert_eq!(journals["pages"].as_array().unwrap().len(), 7);
    let apollo = json_payload(&s.call("outl_page_list", json!({"namespace": "Projects"})));
    assert_eq!(apollo["pages"], json!([apollo["pages"][0]]));
    assert_eq!(apollo["pages"][0]["slug"], "projects/apollo");
    let prefixed = json_payload(&s.call("outl_page_list", json!({"prefix": "P"})));
    let slugs: Vec<&str> = prefixed["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["slug"].as_str().unwrap())
        .collect();
    assert!(
        slugs.iter().all(|slug| slug.starts_with('p')) && slugs.len() == 4,
        "{slugs:?}"
    );

    let error = tool_error(&s.call("outl_page_list", json!({"cursor": "later"})));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    assert_eq!(error["data"]["problems"][0]["pointer"], "/cursor");
    let error = tool_error(&s.call("outl_page_list", json!({"kind": "everything"})));
    assert_eq!(error["data"]["problems"][0]["pointer"], "/kind");
    s.finish();
}

#[test]
fn page_get_returns_meta_and_ids_and_cuts_at_depth() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let page = json_payload(&s.call("outl_page_get", json!({"slug": "LAUNCH CHECKLIST"})));
    assert_eq!(page["slug"], "launch checklist");
    // A name and no title: a topic page. Its file and last change are outl_page_list's
    // details.
    assert_eq!(page["meta"]["name"], "Launch checklist");
    assert_eq!(page["meta"]["properties"]["alias"], "launch");
    assert_eq!(
        page["meta"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["name", "properties"]
    );
    let outline = &page["outline"];
    for node in outline_nodes(outline) {
        assert!(
            node["id"].as_str().is_some_and(|id| !id.is_empty()),
            "{node}"
        );
        assert!(node.get("tokens").is_none() && node.get("collapsed").is_none());
    }
    let reminders = node_with_text(outline, "[#A] SMS reminders #reminders");
    assert_eq!(reminders["todo"], "DOING");
    assert_eq!(reminders["properties"]["owner"], "[[Priya Raman]]");
    let product = node_with_text(outline, "Product");
    assert!(product.get("todo").is_none() && product.get("properties").is_none());
    // A user's `id::` is the block's id, and not a property.
    let waitlist = node_with_text(outline, "Waitlist for fully booked days");
    assert_eq!(waitlist["id"], "k7m2qp");
    assert_eq!(
        waitlist["properties"],
        json!({"reason": waitlist["properties"]["reason"]})
    );

    let shallow = json_payload(&s.call(
        "outl_page_get",
        json!({"slug": "launch checklist", "depth": 1}),
    ));
    let product = node_with_text(&shallow["outline"], "Product");
    assert!(product.get("children").is_none(), "{product}");
    assert_eq!(product["children_omitted"], 4);
    // A leaf says so by having no `children`, a parent lists them.
    let waitlist = node_with_text(outline, "Waitlist for fully booked days");
    assert!(waitlist.get("children").is_none() && waitlist.get("children_omitted").is_none());
    assert!(
        !node_with_text(outline, "Product")["children"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let error = tool_error(&s.call("outl_page_get", json!({"slug": "Launch checklst"})));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    assert_eq!(error["data"]["suggestions"][0], "launch checklist");
    let error = tool_error(&s.call("outl_page_get", json!({"slug": "pricing", "depth": 0})));
    assert_eq!(error["data"]["problems"][0]["pointer"], "/depth");
    s.finish();

    // The CLI prints the handler's output un-projected.
    let envelope = outl_call(ws.path(), "outl_page_get", &json!({"slug": "Pricing"}), &[]);
    assert_eq!(envelope["ok"], true);
    let first = &envelope["data"]["outline"][0];
    assert!(first["tokens"].is_array());
    assert_eq!(first["collapsed"], false);
    assert_eq!(first["todo"], Value::Null);
    assert_eq!(first["properties"], json!({}));
}

#[test]
fn page_get_finds_a_page_by_its_alias_unless_a_page_has_that_name() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    for (alias, slug) in [
        ("launch", "launch checklist"),
        ("APOLLO", "projects/apollo"),
        ("tomás", "tomás silva"),
    ] {
        let page = json_payload(&s.call("outl_page_get", json!({"slug": alias})));
        assert_eq!(page["slug"], slug, "{alias}");
    }

    json_payload(&s.call("outl_page_create", json!({"name": "Apollo"})));
    let page = json_payload(&s.call("outl_page_get", json!({"slug": "apollo"})));
    assert_eq!(page["slug"], "apollo");
    assert_eq!(page["meta"]["name"], "Apollo");
}

#[test]
fn page_render_is_markdown_with_refs_resolved() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let reply = s.call("outl_page_render", json!({"slug": "shape up"}));
    let result = &reply["result"];
    assert!(result.get("structuredContent").is_none(), "{result}");
    let md = text_of(result);
    assert!(
        md.starts_with("title:: Shape Up\n"),
        "the raw markdown: {md}"
    );
    assert!(
        md.contains("That is how we cut the waitlist: CANCELED Waitlist for fully booked days"),
        "the ((ref)) reads as the block it names: {md}"
    );
    assert!(
        !md.contains("collapsed::") && !md.contains("((k7m2qp))"),
        "{md}"
    );

    let launch =
        text_of(&s.call("outl_page_render", json!({"slug": "Launch checklist"}))["result"])
            .to_owned();
    assert!(
        !launch.contains("id:: k7m2qp") && launch.contains("reason:: "),
        "{launch}"
    );

    let error = tool_error(&s.call("outl_page_render", json!({"slug": "shape down"})));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    assert!(error["data"]["suggestions"].as_array().is_some());
    s.finish();
}

#[test]
fn page_create_writes_the_file_and_returns_the_new_ids() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let md = "tags:: meeting\n\n- Went well\n\t- the demo\n- To change\n";
    let created = json_payload(&s.call(
        "outl_page_create",
        json!({"name": "Retro/2026-11", "md": md}),
    ));
    assert_eq!(created["slug"], "retro/2026-11");
    assert_eq!(created["name"], "Retro/2026-11");
    assert_eq!(created["file"], "pages/Retro___2026-11.md");
    assert_eq!(created["ids"].as_array().unwrap().len(), 3);
    assert_eq!(
        fs::read_to_string(ws.path().join("pages/Retro___2026-11.md")).unwrap(),
        md
    );
    let page = json_payload(&s.call("outl_page_get", json!({"slug": "retro/2026-11"})));
    assert_eq!(page["outline"][0]["children"][0]["id"], created["ids"][1]);

    let empty = json_payload(&s.call("outl_page_create", json!({"name": "Ideas"})));
    assert_eq!(empty["ids"], json!([]));

    let error = tool_error(&s.call("outl_page_create", json!({"name": "PRICING"})));
    assert_eq!(error["code"], "PAGE_EXISTS");
    assert_eq!(error["data"]["slug"], "pricing");
    s.finish();
}

#[test]
fn page_rename_moves_the_file_and_rewrites_links() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let renamed = json_payload(&s.call(
        "outl_page_rename",
        json!({"slug": "bob lindgren", "new_name": "Bob L."}),
    ));
    assert_eq!(renamed["slug"], "bob l.");
    assert_eq!(renamed["name"], "Bob L.");
    assert!(ws.path().join(renamed["file"].as_str().unwrap()).exists());
    assert!(!ws.path().join("pages/Bob Lindgren.md").exists());
    let rewritten: Vec<&str> = renamed["rewritten_pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(rewritten.contains(&"launch checklist"), "{rewritten:?}");
    let launch = fs::read_to_string(ws.path().join("pages/Launch checklist.md")).unwrap();
    assert!(launch.contains("[[Bob L.]]") && !launch.contains("[[Bob Lindgren]]"));

    let error = tool_error(&s.call(
        "outl_page_rename",
        json!({"slug": "bob l.", "new_name": "hiring"}),
    ));
    assert_eq!(error["code"], "PAGE_EXISTS");
    let error = tool_error(&s.call(
        "outl_page_rename",
        json!({"slug": "bob lindgren", "new_name": "Robert"}),
    ));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    assert_eq!(error["data"]["slug"], "bob lindgren");
    s.finish();
}

#[test]
fn page_delete_removes_the_page_and_counts_its_blocks() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let blocks = json_payload(&s.call("outl_page_list", json!({"prefix": "shakshuka"})))["pages"]
        [0]["blocks"]
        .clone();
    let deleted = json_payload(&s.call("outl_page_delete", json!({"slug": "Shakshuka"})));
    assert_eq!(
        deleted,
        json!({"slug": "shakshuka", "deleted_blocks": blocks})
    );
    assert!(!ws.path().join("pages/Shakshuka.md").exists());

    let error = tool_error(&s.call("outl_page_delete", json!({"slug": "Shakshuka"})));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    s.finish();
}

#[test]
fn page_update_replaces_content_and_keeps_unchanged_ids() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let before = json_payload(&s.call("outl_page_get", json!({"slug": "reading list"})));
    let shape_up = node_with_text(&before["outline"], "[[Shape Up]] by Ryan Singer")["id"].clone();
    let md =
        "tags:: reading\n\n- NOW [[Shape Up]] by Ryan Singer\n- TODO [[Range]] by David Epstein\n";
    let written = json_payload(&s.call(
        "outl_page_update",
        json!({"slug": "Reading list", "md": md}),
    ));
    assert_eq!(written["slug"], "reading list");
    assert_eq!(written["ids"][0], shape_up);
    assert_eq!(written["ids"].as_array().unwrap().len(), 2);
    let before_ids: Vec<&Value> = outline_nodes(&before["outline"])
        .iter()
        .map(|n| &n["id"])
        .collect();
    let removed = written["removed_ids"].as_array().unwrap();
    let kept = written["ids"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|id| before_ids.contains(id));
    assert_eq!(removed.len() + kept.count(), before_ids.len());
    assert!(
        removed
            .iter()
            .all(|id| before_ids.contains(&id) && !written["ids"].as_array().unwrap().contains(id))
    );
    assert_eq!(
        fs::read_to_string(ws.path().join("pages/Reading list.md")).unwrap(),
        md
    );

    let error = tool_error(&s.call(
        "outl_page_update",
        json!({"slug": "Reading lists", "md": md}),
    ));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    assert_eq!(error["data"]["suggestions"][0], "reading list");
    s.finish();
}

#[test]
fn page_append_adds_blocks_at_the_end() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let written = json_payload(&s.call(
        "outl_page_append",
        json!({"slug": "pricing", "md": "- Follow-up\n\t- TODO ask two clinics about annual billing\n"}),
    ));
    let ids = written["ids"].as_array().unwrap();
    assert_eq!(ids.len(), 2);
    assert!(written.get("removed_ids").is_none());
    let page = json_payload(&s.call("outl_page_get", json!({"slug": "pricing"})));
    let last = page["outline"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["id"], ids[0]);
    assert_eq!(last["children"][0]["id"], ids[1]);
    assert_eq!(last["children"][0]["todo"], "TODO");

    let error = tool_error(&s.call(
        "outl_page_append",
        json!({"slug": "pricing", "md": "status:: open\n- x\n"}),
    ));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    assert_eq!(error["data"]["problems"][0]["pointer"], "/md");
    let error = tool_error(&s.call("outl_page_append", json!({"slug": "pricing", "md": ""})));
    assert_eq!(error["data"]["problems"][0]["pointer"], "/md");
    s.finish();
}

#[test]
fn page_backlinks_lists_linking_blocks_with_ids() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let all = json_payload(&s.call("outl_page_backlinks", json!({"slug": "Bob Lindgren"})));
    let backlinks = all["backlinks"].as_array().unwrap();
    let signed_off = backlinks
        .iter()
        .find(|b| b["text"] == "DONE [#A] Onboarding flow signed off by [[Bob Lindgren]]")
        .unwrap_or_else(|| panic!("the launch checklist links Bob: {all}"));
    assert_eq!(signed_off["page"], "launch checklist");
    let id = signed_off["id"].as_str().unwrap();
    let block = json_payload(&s.call("outl_page_get", json!({"slug": "launch checklist"})));
    assert!(
        outline_nodes(&block["outline"])
            .iter()
            .any(|n| n["id"] == id)
    );

    // Links to an alias count: the demo links `[[Apollo]]`, an alias of projects/apollo.
    let apollo = json_payload(&s.call(
        "outl_page_backlinks",
        json!({"slug": "projects/apollo", "limit": 200}),
    ));
    assert!(
        apollo["backlinks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["text"].as_str().is_some_and(|t| t.contains("[[Apollo]]")))
    );
    // A page linking through its own properties (Hiring is tagged projects/apollo) comes
    // as its slug alone.
    let tagged = apollo["backlinks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["page"] == "hiring")
        .expect("Hiring is tagged projects/apollo");
    assert_eq!(tagged, &json!({"page": "hiring"}));
    assert_eq!(all["total"], backlinks.len());

    let first = json_payload(&s.call(
        "outl_page_backlinks",
        json!({"slug": "Bob Lindgren", "limit": 1}),
    ));
    assert_eq!(first["backlinks"], json!([backlinks[0]]));
    let rest = json_payload(&s.call(
        "outl_page_backlinks",
        json!({"slug": "Bob Lindgren", "cursor": first["next_cursor"]}),
    ));
    assert_eq!(
        rest["backlinks"].as_array().unwrap().len(),
        backlinks.len() - 1
    );

    let error = tool_error(&s.call("outl_page_backlinks", json!({"slug": "Bobby"})));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    s.finish();
}

#[test]
fn page_reconcile_adopts_an_outside_edit() {
    let ws = demo_workspace();
    let mut s = StdioSession::initialized(ws.path());

    let untouched = json_payload(&s.call("outl_page_reconcile", json!({"slug": "hiring"})));
    assert_eq!(untouched["reconciled"], false);
    assert_eq!(
        untouched,
        json!({"slug": "hiring", "reconciled": false, "kept": untouched["kept"]}),
        "ids are listed only when there are some"
    );

    let before = json_payload(&s.call("outl_page_get", json!({"slug": "reading list"})));
    let mom_test = "[[The Mom Test]] by Rob Fitzpatrick, again before the next interview round";
    let kept_id = node_with_text(&before["outline"], mom_test)["id"].clone();
    let removed_id =
        node_with_text(&before["outline"], "[[Shape Up]] by Ryan Singer")["id"].clone();
    // One block removed, one added at the end: the other two keep their ids.
    let file = ws.path().join("pages/Reading list.md");
    let edited = fs::read_to_string(&file)
        .unwrap()
        .replace("- NOW [[Shape Up]] by Ryan Singer\n", "")
        + "- LATER [[Range]] by David Epstein\n";
    fs::write(&file, edited).unwrap();

    let refused = tool_error(&s.call(
        "outl_page_append",
        json!({"slug": "reading list", "md": "- x"}),
    ));
    assert_eq!(refused["code"], "PAGE_MARKDOWN_AHEAD_OF_LOG");
    let reconciled = json_payload(&s.call("outl_page_reconcile", json!({"slug": "Reading list"})));
    assert_eq!(reconciled["slug"], "reading list");
    assert_eq!(reconciled["reconciled"], true);
    assert_eq!(reconciled["removed_ids"], json!([removed_id]));
    assert_eq!(reconciled["kept"], 3);
    let after = json_payload(&s.call("outl_page_get", json!({"slug": "reading list"})));
    assert_eq!(node_with_text(&after["outline"], mom_test)["id"], kept_id);
    let range = node_with_text(&after["outline"], "[[Range]] by David Epstein");
    assert_eq!(reconciled["new_ids"], json!([range["id"]]));
    json_payload(&s.call(
        "outl_page_append",
        json!({"slug": "reading list", "md": "- x"}),
    ));

    let error = tool_error(&s.call("outl_page_reconcile", json!({"slug": "reading lists"})));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    s.finish();
}
