//! Which files of a Logseq graph are pages, as Logseq decides, and org pages read through the
//! tools over MCP stdio: every `.md` and `.org` file under `pages/` and `journals/` is served
//! or listed by `outl_workspace_info` with why it is not.

use crate::mcp_support::{
    StdioSession, column, files_of, json_payload, open_once, outline_nodes, workspace_with,
};
use serde_json::json;

/// An org page as Logseq wrote them in 2020: `#+TITLE:`, headlines from `**`, drawers.
const ORG_PAGE: &str = "#+TITLE: Changelog 2020\n#+ALIAS: changes\n\n** [[Dec 29th, 2020]]\n:PROPERTIES:\n:created_at: 1609250283049\n:END:\nOur last release for 2020.\n*** TODO [#A] Write the [[Announcement]]\n    Local file storage is stable.\n** Queries #experiment\n";
/// An org journal day, its body indented under each headline.
const ORG_DAY: &str = "* Thursday, 05/14/2020\n** [[Changelog 2020]]\n*** Whiteboards with [[Draw]]\n    Open it and enjoy!\n*** See [[term/alias][Page alias]] and [[https://x.org/a][the site]]\n";

#[test]
fn org_pages_are_read_listed_searched_and_indexed() {
    let ws = workspace_with(&[
        ("pages/Changelog_2020.org", ORG_PAGE),
        ("journals/2020_05_14.org", ORG_DAY),
    ]);
    let mut s = StdioSession::initialized(ws.path());

    let page = json_payload(&s.call("outl_page_get", json!({ "slug": "changes" })));
    assert_eq!(page["meta"]["name"], "Changelog 2020");
    assert_eq!(page["meta"]["format"], "org");
    let nodes = outline_nodes(&page["outline"]);
    let texts: Vec<&str> = nodes.iter().map(|n| n["text"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        [
            "[[Dec 29th, 2020]]\nOur last release for 2020.",
            "[#A] Write the [[Announcement]]\nLocal file storage is stable.",
            "Queries #experiment",
        ]
    );
    assert_eq!(
        page["outline"][0]["properties"]["created_at"],
        "1609250283049"
    );
    assert_eq!(page["outline"][0]["children"][0]["todo"], "TODO");

    let day = json_payload(&s.call("outl_daily_get", json!({ "date": "2020-05-14" })));
    assert_eq!(day["meta"]["format"], "org");
    let backlinks =
        json_payload(&s.call("outl_page_backlinks", json!({ "slug": "changelog 2020" })));
    assert_eq!(column(&backlinks["backlinks"], "page"), ["2020-05-14"]);
    // An org link with a label links its target, as Logseq reads it; a URL links no page.
    let alias = json_payload(&s.call("outl_page_backlinks", json!({ "slug": "term/alias" })));
    assert_eq!(
        column(&alias["backlinks"], "page"),
        ["2020-05-14"],
        "{alias}"
    );
    let links = json_payload(&s.call("outl_links", json!({ "slug": "2020-05-14" })));
    let mut targets = column(&links["links"], "page");
    targets.sort_unstable();
    assert_eq!(targets, ["changelog 2020", "draw", "term/alias"], "{links}");
    let tasks = json_payload(&s.call("outl_tasks", json!({ "state": "TODO" })));
    assert_eq!(
        column(&tasks["hits"], "page"),
        ["changelog 2020"],
        "{tasks}"
    );
    let tagged = json_payload(&s.call("outl_tag_get", json!({ "tag": "experiment" })));
    assert_eq!(tagged["total"], 1);
    let found = json_payload(&s.call("outl_search", json!({ "query": "whiteboards" })));
    assert_eq!(found["hits"][0]["page"], "2020-05-14", "{found}");

    // An org page is written in org: an edit changes its headline and nothing else.
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": nodes[2]["id"], "text": "Queries #experiment, done" }),
    ));
    assert_eq!(
        std::fs::read_to_string(ws.path().join("pages/Changelog_2020.org")).unwrap(),
        ORG_PAGE.replace("** Queries #experiment\n", "** Queries #experiment, done\n")
    );
    json_payload(&s.call("outl_undo", json!({})));

    // Deleting one is a write like any other, and its undo gives the file back byte for byte.
    json_payload(&s.call("outl_page_delete", json!({ "slug": "changelog 2020" })));
    assert!(!ws.path().join("pages/Changelog_2020.org").exists());
    json_payload(&s.call("outl_undo", json!({})));
    assert_eq!(
        std::fs::read_to_string(ws.path().join("pages/Changelog_2020.org")).unwrap(),
        ORG_PAGE
    );
    s.finish();
}

#[test]
fn every_page_file_is_served_or_listed_with_why_it_is_not() {
    let ws = workspace_with(&[
        (
            "logseq/config.edn",
            "{:hidden [\"/pages/archive\" \"pages/old.md\" \"drafts/wip\"]}",
        ),
        ("pages/.NET.md", "- the runtime\n"),
        // Logseq hides what starts with a :hidden path, so "/pages/archive" hides this too.
        ("pages/archived plans.md", "- hidden as well\n"),
        // Logseq reads page files anywhere in the graph's folder, but for dot folders and its
        // backups.
        ("README.md", "- about this graph\n"),
        ("drafts/idea.md", "- a draft\n"),
        ("drafts/wip-notes.md", "- hidden\n"),
        ("assets/photo.jpg", "jpg"),
        (".github/notes.md", "- not in the graph\n"),
        ("logseq/bak/pages/Foo/2024.md", "- a backup\n"),
        ("node_modules/x/README.md", "- not in the graph\n"),
        ("pages/Foo.md", "- upper\n"),
        ("pages/foo.md", "- lower\n"),
        ("pages/foo.org", "* org\n"),
        ("pages/old.md", "- hidden\n"),
        ("pages/archive/x.md", "- hidden too\n"),
        ("pages/~$Foo.md", "lock"),
        ("pages/diagram.png", "png"),
        ("journals/2024_01_02.md", "- a day\n"),
    ]);
    let mut s = StdioSession::initialized(ws.path());

    let list = json_payload(&s.call("outl_page_list", json!({})));
    let mut slugs = column(&list["pages"], "slug");
    slugs.sort_unstable();
    assert_eq!(slugs, [".net", "foo", "idea", "readme"], "{list}");
    let dot = json_payload(&s.call("outl_page_get", json!({ "slug": ".NET" })));
    assert_eq!(dot["meta"]["name"], ".NET");

    let info = json_payload(&s.call("outl_workspace_info", json!({})));
    assert_eq!(
        (info["pages"].as_u64(), info["journals"].as_u64()),
        (Some(4), Some(1))
    );
    assert_eq!(
        info["shadowed"],
        json!([
            { "file": "pages/foo.md", "slug": "foo", "served_by": "pages/Foo.md" },
            { "file": "pages/foo.org", "slug": "foo", "served_by": "pages/Foo.md" },
        ])
    );
    let skipped: Vec<(&str, &str)> = info["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["file"].as_str().unwrap(), s["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(
        skipped,
        [
            (
                "drafts/wip-notes.md",
                "hidden by :hidden \"drafts/wip\" of logseq/config.edn"
            ),
            (
                "pages/archive",
                "hidden by :hidden \"pages/archive\" of logseq/config.edn"
            ),
            (
                "pages/archived plans.md",
                "hidden by :hidden \"pages/archive\" of logseq/config.edn"
            ),
            ("pages/diagram.png", "not a page file (.md or .org)"),
            (
                "pages/old.md",
                "hidden by :hidden \"pages/old.md\" of logseq/config.edn"
            ),
            ("pages/~$Foo.md", "an editor's lock file"),
        ]
    );
    s.finish();
}

/// Reading never writes a page file: every read-only tool of `tools/list`, called on pages of
/// each style Logseq has written (front matter, two-space indents, a UUID `id::` and a ref to
/// it, org, a Chinese journal day, no final newline), leaves every file outside `.outl/` as it
/// was, byte for byte.
#[test]
fn every_read_tool_leaves_every_page_file_as_it_was() {
    let uuid = "6571a3f0-1111-2222-3333-444455556666";
    let ws = workspace_with(&[
        (
            "pages/Front matter.md",
            "---\ntitle: Front matter\ntags: [reading, notes]\n---\n\n# A heading\n- a block under it\n",
        ),
        (
            "pages/Two spaces.md",
            &format!("- parent\n  - child with an id\n    id:: {uuid}\n- see (({uuid}))\n"),
        ),
        ("pages/Changelog 2020.org", ORG_PAGE),
        ("journals/2020_05_14.org", ORG_DAY),
        (
            "journals/2024_06_12.md",
            "- 今天读了 [[Two spaces]] #阅读\n\t- DONE 写完笔记\n\t  collapsed:: true\n\t\t- 细节",
        ),
        ("logseq/config.edn", "{:preferred-format :markdown}\n"),
    ]);
    open_once(ws.path());
    let page_files = |files: std::collections::BTreeMap<String, Vec<u8>>| {
        files
            .into_iter()
            .filter(|(path, _)| !path.starts_with(".outl"))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let before = page_files(files_of(ws.path()));
    assert_eq!(before.len(), 6, "{:?}", before.keys());

    let mut session = StdioSession::initialized(ws.path());
    let listed = session.request(2, "tools/list", json!({}));
    let read_only: Vec<String> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|tool| tool["annotations"]["readOnlyHint"] == true)
        .map(|tool| tool["name"].as_str().expect("a name").to_owned())
        .collect();
    assert!(read_only.len() > 15, "{read_only:?}");
    let child = json_payload(&session.call("outl_page_get", json!({"slug": "Two spaces"})))
        ["outline"][0]["children"][0]["id"]
        .as_str()
        .expect("the child's id")
        .to_owned();
    let slugs = ["front matter", "two spaces", "changelog 2020"];
    let mut calls: Vec<(&str, serde_json::Value)> = vec![
        ("outl_workspace_info", json!({})),
        ("outl_page_list", json!({})),
        (
            "outl_page_list",
            json!({"query": "changlog", "details": true}),
        ),
        ("outl_block_get", json!({"id": child})),
        ("outl_block_tree", json!({"id": child})),
        ("outl_block_refs", json!({"id": uuid})),
        ("outl_daily_get", json!({"date": "2024-06-12"})),
        ("outl_daily_get", json!({"date": "2020-05-14"})),
        ("outl_daily_list", json!({})),
        ("outl_search", json!({"query": "笔记"})),
        ("outl_search", json!({"query": "\"a block\""})),
        ("outl_tasks", json!({})),
        ("outl_tags", json!({})),
        ("outl_tag_get", json!({"tag": "阅读"})),
        ("outl_property_query", json!({"key": "tags"})),
        ("outl_recent", json!({})),
        ("outl_log", json!({})),
    ];
    for slug in slugs {
        for tool in [
            "outl_page_get",
            "outl_page_render",
            "outl_page_backlinks",
            "outl_links",
            "outl_export_md",
            "outl_export_json",
        ] {
            calls.push((tool, json!({ "slug": slug })));
        }
    }
    for (tool, args) in &calls {
        let reply = session.call(tool, args.clone());
        assert_ne!(reply["result"]["isError"], true, "{tool} {args}: {reply}");
    }
    session.finish();
    let called: std::collections::BTreeSet<&str> = calls.iter().map(|(tool, _)| *tool).collect();
    for tool in &read_only {
        assert!(called.contains(tool.as_str()), "{tool} is not called");
    }
    assert_eq!(
        page_files(files_of(ws.path())),
        before,
        "a read changed a page file"
    );
}
