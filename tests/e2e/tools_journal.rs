//! The journal tools over MCP stdio on a copy of the demo workspace, with today pinned by
//! `OUTL_TODAY`: each one's success reply in its projected shape, and its errors.

use std::fs;
use std::path::Path;

use crate::mcp_support::{StdioSession, demo_workspace, json_payload, tool_error};
use serde_json::json;

/// The demo's last day.
const DEMO_LAST_DAY: &str = "2026-11-29";

/// A session whose today is `today`.
fn session_on(ws: &Path, today: &str) -> StdioSession {
    StdioSession::initialized_with(ws, &[("OUTL_TODAY", today)])
}

fn journal_file(ws: &Path, date: &str) -> std::path::PathBuf {
    ws.join("journals")
        .join(format!("{}.md", date.replace('-', "_")))
}

#[test]
fn daily_today_returns_date_meta_outline_and_md() {
    let ws = demo_workspace();
    let mut s = session_on(ws.path(), DEMO_LAST_DAY);

    let today = json_payload(&s.call("outl_daily_today", json!({})));
    assert_eq!(today["date"], DEMO_LAST_DAY);
    assert!(
        today["meta"].get("name").is_none(),
        "the date names the day"
    );
    // What a reader needs and no more: the file and last change are outl_page_list's details.
    assert_eq!(today["meta"], json!({"title": "Nov 29th, 2026"}));
    let stored = fs::read_to_string(journal_file(ws.path(), DEMO_LAST_DAY)).unwrap();
    assert_eq!(today["md"], stored);
    let agenda = &today["outline"][1];
    assert_eq!(agenda["todo"], "TODO");
    assert_eq!(
        agenda["text"],
        "[#B] Agenda of the [[Weekly sync]] on [[2026-11-30]]"
    );
    assert!(agenda["id"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(today["outline"][0]["children"].as_array().unwrap().len(), 3);

    let error = tool_error(&s.call("outl_daily_today", json!({"date": DEMO_LAST_DAY})));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    s.finish();

    // A day without a page yet: created, empty.
    let mut s = session_on(ws.path(), "2026-12-01");
    let fresh = json_payload(&s.call("outl_daily_today", json!({})));
    assert_eq!(fresh["date"], "2026-12-01");
    assert_eq!((&fresh["outline"], &fresh["md"]), (&json!([]), &json!("")));
    assert!(journal_file(ws.path(), "2026-12-01").exists());
    s.finish();

    let mut s = session_on(ws.path(), "December 1st");
    let error = tool_error(&s.call("outl_daily_today", json!({})));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    assert_eq!(error["data"]["env"], "OUTL_TODAY");
    s.finish();
}

#[test]
fn daily_get_reads_a_day_and_never_creates_one() {
    let ws = demo_workspace();
    let mut s = session_on(ws.path(), DEMO_LAST_DAY);

    let day = json_payload(&s.call("outl_daily_get", json!({"date": "2026-11-24"})));
    assert_eq!(day["date"], "2026-11-24");
    assert_eq!(day["meta"]["title"], "Nov 24th, 2026");
    let cut = &day["outline"][2];
    assert_eq!(cut["collapsed"], true);
    assert_eq!(cut["children"].as_array().unwrap().len(), 2);
    assert!(day["md"].as_str().unwrap().contains("  collapsed:: true\n"));

    let error = tool_error(&s.call("outl_daily_get", json!({"date": "2026-12-02"})));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    assert_eq!(error["data"]["suggestions"][0], DEMO_LAST_DAY);
    assert_eq!(error["data"]["suggestions"][1], "2026-11-28");
    assert!(!journal_file(ws.path(), "2026-12-02").exists());

    let error = tool_error(&s.call("outl_daily_get", json!({"date": "2026-11-31"})));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    assert_eq!(error["data"]["problems"][0]["pointer"], "/date");
    s.finish();
}

#[test]
fn daily_list_is_newest_first_with_counts() {
    let ws = demo_workspace();
    let mut s = session_on(ws.path(), DEMO_LAST_DAY);

    let all = json_payload(&s.call("outl_daily_list", json!({})));
    let days = all["days"].as_array().unwrap();
    let dates: Vec<&str> = days.iter().map(|d| d["date"].as_str().unwrap()).collect();
    assert_eq!(
        dates,
        [
            "2026-11-29",
            "2026-11-28",
            "2026-11-27",
            "2026-11-26",
            "2026-11-25",
            "2026-11-24",
            "2026-11-23"
        ]
    );
    let open: Vec<u64> = days
        .iter()
        .map(|d| d["open_tasks"].as_u64().unwrap())
        .collect();
    assert_eq!(open, [1, 0, 1, 2, 1, 0, 1]);
    assert_eq!(days[0]["blocks"], 5);
    assert!(all.get("next_cursor").is_none());
    assert_eq!(all["total"], 7);

    let week = json_payload(&s.call(
        "outl_daily_list",
        json!({"from": "2026-11-24", "to": "2026-11-26", "limit": 2}),
    ));
    assert_eq!(week["days"], json!([days[3], days[4]]));
    assert_eq!(week["total"], 3);
    let rest = json_payload(&s.call(
        "outl_daily_list",
        json!({"from": "2026-11-24", "to": "2026-11-26", "cursor": week["next_cursor"]}),
    ));
    assert_eq!(rest["days"], json!([days[5]]));
    assert!(rest.get("next_cursor").is_none());

    let error = tool_error(&s.call("outl_daily_list", json!({"from": "last week"})));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    assert_eq!(error["data"]["problems"][0]["pointer"], "/from");
    s.finish();
}

#[test]
fn daily_append_writes_to_a_day_creating_it() {
    let ws = demo_workspace();
    let mut s = session_on(ws.path(), "2026-12-03");

    let written = json_payload(&s.call(
        "outl_daily_append",
        json!({"md": "- TODO Call the carrier\n\t- ask about rejections\n", "date": DEMO_LAST_DAY}),
    ));
    assert_eq!(written["date"], DEMO_LAST_DAY);
    let ids = written["ids"].as_array().unwrap();
    assert_eq!(ids.len(), 2);
    let stored = fs::read_to_string(journal_file(ws.path(), DEMO_LAST_DAY)).unwrap();
    assert!(stored.ends_with("- TODO Call the carrier\n\t- ask about rejections\n"));
    let day = json_payload(&s.call("outl_daily_get", json!({"date": DEMO_LAST_DAY})));
    assert_eq!(day["outline"][2]["id"], ids[0]);

    // Without a date: today, created by the append.
    let today = json_payload(&s.call("outl_daily_append", json!({"md": "- first note"})));
    assert_eq!(today["date"], "2026-12-03");
    assert_eq!(
        fs::read_to_string(journal_file(ws.path(), "2026-12-03")).unwrap(),
        "- first note\n"
    );

    // A refused append does not create the day.
    let error = tool_error(&s.call(
        "outl_daily_append",
        json!({"md": "mood:: good\n", "date": "2026-12-04"}),
    ));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    assert_eq!(error["data"]["problems"][0]["pointer"], "/md");
    assert!(!journal_file(ws.path(), "2026-12-04").exists());
    let error = tool_error(&s.call("outl_daily_append", json!({"md": "- x", "date": "12/04"})));
    assert_eq!(error["data"]["problems"][0]["pointer"], "/date");
    s.finish();
}
