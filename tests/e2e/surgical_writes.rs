//! A write changes the lines of the blocks it writes and nothing else, in every style Logseq
//! has written pages in: tabs with `id::` lines, YAML front matter with two-space indents, CRLF
//! and no final line break, four-space indents with blank lines between blocks. Each case diffs
//! the file before and after the write (`changed_lines`), so any other line that moved is
//! named, and checks that the write's undo gives the file back byte for byte.

use std::path::Path;

use crate::mcp_support::{
    StdioSession, assert_files_unchanged, changed_lines, files_of, json_payload, outline_nodes,
    tool_error, workspace_with,
};
use serde_json::{Value, json};

/// Logseq's own style: tabs, a UUID `id::` that a ref names, a collapsed block.
const TABS: &str = "alias:: Proj\n\n- TODO Call [[Bob]] about #launch\n  id:: 64b0c1a2-1111-4aaa-8bbb-0123456789ab\n\t- the call is about ((64b0c1a2-1111-4aaa-8bbb-0123456789ab))\n\t  collapsed:: true\n\t\t- grandchild\n- second\n";
/// A 2021 journal: front matter, two-space indents, CRLF, trailing spaces, no final break.
const OLD_JOURNAL: &str = "---\r\ntitle: Apr 9th, 2021\r\n---\r\n\r\n- first  \r\n  - nested\r\n    with a second line\r\n  - [[Bob]] said\r\n\r\n- last";
/// Four-space indents, blank lines between blocks, an escaped line.
const FOUR_SPACES: &str = "- a\n\n    - b\n      \\- not a bullet\n\n- c\n";
/// Headings without bullets, as Logseq's first pages were, over a block Logseq wrote with its
/// properties first (a PDF highlight), a body line at the margin, a blank line inside a text.
const HEADINGS: &str = "# Changelog\nWhat changed.\n## 0.9\n- ls-type:: annotation\n  hl-page:: 3\n  1. Introduction\n- first line\nbody at the margin\n\n  more\n";
/// A 2020 page of headings without bullets: front matter, blank lines between the headings, a
/// heading whose id is in a `:PROPERTIES:` drawer.
const HEADINGS_ONLY: &str = "---\ntitle: Outline\n---\n\n## A\n\n### a1\n\n## B\n:PROPERTIES:\n:ID: 11111111-2222-4333-8444-555555555555\n:END:\n";
/// Bullets that start a tab in, Chinese text, no final break.
const INDENTED: &str = "\t- 为什么需要打开\n\t\t- 时间戳的支持\n\t- 第三";

fn workspace() -> tempfile::TempDir {
    workspace_with(&[
        ("pages/Project.md", TABS),
        ("journals/2021_04_09.md", OLD_JOURNAL),
        ("pages/Spaced.md", FOUR_SPACES),
        ("pages/Bob.md", "- Bob's page\n"),
        ("pages/Headings.md", HEADINGS),
        ("pages/Indented.md", INDENTED),
        ("pages/Outline.md", HEADINGS_ONLY),
    ])
}

fn read(root: &Path, file: &str) -> String {
    std::fs::read_to_string(root.join(file)).expect("read a page file")
}

/// The id of the block of `page` whose text starts with `text`.
fn id_of(s: &mut StdioSession, page: &str, text: &str) -> String {
    let got = json_payload(&s.call("outl_page_get", json!({ "slug": page })));
    outline_nodes(&got["outline"])
        .into_iter()
        .find(|node| node["text"].as_str().is_some_and(|t| t.starts_with(text)))
        .and_then(|node| node["id"].as_str())
        .unwrap_or_else(|| panic!("no block {text:?} on {page}: {got}"))
        .to_owned()
}

/// Runs `tool`, checks that `file` changed in exactly the lines `expected` names, then undoes
/// it and checks that the file is back byte for byte.
fn assert_write_changes(
    s: &mut StdioSession,
    root: &Path,
    file: &str,
    tool: &str,
    args: Value,
    expected: &[&str],
) {
    let before = read(root, file);
    json_payload(&s.call(tool, args.clone()));
    let after = read(root, file);
    assert_eq!(
        changed_lines(&before, &after),
        expected,
        "{tool} {args} on {file}:\n{after}"
    );
    json_payload(&s.call("outl_undo", json!({})));
    assert_eq!(
        read(root, file),
        before,
        "the undo of {tool} gives {file} back"
    );
}

#[test]
fn each_kind_of_write_changes_only_its_lines_in_an_old_journal() {
    let ws = workspace();
    let root = ws.path();
    let file = "journals/2021_04_09.md";
    let mut s = StdioSession::initialized(root);
    let nested = id_of(&mut s, "2021-04-09", "nested");
    let first = id_of(&mut s, "2021-04-09", "first");
    let said = id_of(&mut s, "2021-04-09", "[[Bob]]");
    let last = id_of(&mut s, "2021-04-09", "last");

    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "outl_block_update",
            json!({ "id": nested, "text": "nested, edited\nwith a second line" }),
            vec!["-  - nested\r\n", "+  - nested, edited\r\n"],
        ),
        (
            "outl_block_todo",
            json!({ "id": first, "state": "TODO" }),
            vec!["-- first  \r\n", "+- TODO first  \r\n"],
        ),
        (
            "outl_block_insert",
            json!({ "text": "inserted", "after_id": nested }),
            vec!["+  - inserted\r\n"],
        ),
        (
            "outl_block_property_set",
            json!({ "id": nested, "key": "status", "value": "done" }),
            vec!["+    status:: done\r\n"],
        ),
        (
            "outl_block_delete",
            json!({ "id": said }),
            vec!["-  - [[Bob]] said\r\n", "-\r\n"],
        ),
        (
            "outl_block_move",
            json!({ "id": said, "parent_id": last }),
            vec![
                "-  - [[Bob]] said\r\n",
                "-\r\n",
                "-- last",
                "+- last\r\n",
                "+  - [[Bob]] said",
            ],
        ),
        (
            "outl_block_collapse",
            json!({ "id": first, "collapsed": true }),
            vec!["+  collapsed:: true\r\n"],
        ),
    ];
    for (tool, args, expected) in cases {
        assert_write_changes(&mut s, root, file, tool, args, &expected);
    }
    s.finish();
}

#[test]
fn each_kind_of_write_changes_only_its_lines_in_logseq_s_style() {
    let ws = workspace();
    let root = ws.path();
    let file = "pages/Project.md";
    let mut s = StdioSession::initialized(root);
    let call = id_of(&mut s, "project", "Call");
    let about = id_of(&mut s, "project", "the call");
    let grandchild = id_of(&mut s, "project", "grandchild");
    let second = id_of(&mut s, "project", "second");

    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "outl_block_todo",
            json!({ "id": call, "state": "DONE" }),
            vec![
                "-- TODO Call [[Bob]] about #launch\n",
                "+- DONE Call [[Bob]] about #launch\n",
            ],
        ),
        (
            "outl_block_collapse",
            json!({ "id": about, "collapsed": false }),
            vec!["-\t  collapsed:: true\n"],
        ),
        (
            "outl_block_move",
            json!({ "id": grandchild, "page": "project" }),
            vec!["-\t\t- grandchild\n", "+- grandchild\n"],
        ),
        (
            "outl_block_indent",
            json!({ "id": second }),
            vec!["-- second\n", "+\t- second\n"],
        ),
        (
            "outl_block_update",
            json!({ "id": about, "text": "the call is about ((64b0c1a2-1111-4aaa-8bbb-0123456789ab)) and more" }),
            vec![
                "-\t- the call is about ((64b0c1a2-1111-4aaa-8bbb-0123456789ab))\n",
                "+\t- the call is about ((64b0c1a2-1111-4aaa-8bbb-0123456789ab)) and more\n",
            ],
        ),
    ];
    for (tool, args, expected) in cases {
        assert_write_changes(&mut s, root, file, tool, args, &expected);
    }
    s.finish();
}

#[test]
fn a_changed_block_keeps_its_form_and_the_lines_it_did_not_change() {
    let ws = workspace();
    let root = ws.path();
    let file = "pages/Headings.md";
    let mut s = StdioSession::initialized(root);
    let changelog = id_of(&mut s, "headings", "# Changelog");
    let highlight = id_of(&mut s, "headings", "1. Introduction");
    let first = id_of(&mut s, "headings", "first line");
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "outl_block_update",
            json!({ "id": changelog, "text": "# Changes\nWhat changed." }),
            vec!["-# Changelog\n", "+# Changes\n"],
        ),
        (
            "outl_block_property_set",
            json!({ "id": highlight, "key": "hl-color", "value": "yellow" }),
            vec!["+  hl-color:: yellow\n"],
        ),
        (
            "outl_block_todo",
            json!({ "id": first, "state": "LATER" }),
            vec!["-- first line\n", "+- LATER first line\n"],
        ),
    ];
    for (tool, args, expected) in cases {
        assert_write_changes(&mut s, root, file, tool, args, &expected);
    }

    let file = "pages/Indented.md";
    let third = id_of(&mut s, "indented", "第三");
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "outl_block_property_set",
            json!({ "id": third, "key": "checked", "value": "是" }),
            vec!["-\t- 第三", "+\t- 第三\n", "+\t  checked:: 是"],
        ),
        (
            "outl_block_insert",
            json!({ "text": "新的", "parent_id": third }),
            vec!["-\t- 第三", "+\t- 第三\n", "+\t\t- 新的"],
        ),
    ];
    for (tool, args, expected) in cases {
        assert_write_changes(&mut s, root, file, tool, args, &expected);
    }
    s.finish();
}

#[test]
fn a_page_of_headings_gets_each_new_block_as_lines_of_its_own() {
    // Logseq puts every heading that no bullet opens at the top level, so a new block there is
    // a heading without a bullet, as its siblings are, or a bullet at the margin, and a block
    // under a heading a bullet indented under it.
    let ws = workspace();
    let root = ws.path();
    let file = "pages/Outline.md";
    let mut s = StdioSession::initialized(root);
    let a1 = id_of(&mut s, "outline", "### a1");
    let b = id_of(&mut s, "outline", "## B");
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "outl_block_insert",
            json!({ "after_id": a1, "text": "### new heading" }),
            vec!["+### new heading\n"],
        ),
        (
            "outl_block_insert",
            json!({ "after_id": a1, "text": "new" }),
            vec!["+- new\n"],
        ),
        (
            "outl_block_insert",
            json!({ "parent_id": a1, "text": "under a1" }),
            vec!["+\t- under a1\n"],
        ),
        (
            "outl_block_todo",
            json!({ "id": b, "state": "TODO" }),
            vec!["-## B\n", "+## TODO B\n"],
        ),
    ];
    for (tool, args, expected) in cases {
        assert_write_changes(&mut s, root, file, tool, args, &expected);
    }
    s.finish();
}

#[test]
fn new_blocks_follow_the_page_s_indent_and_blank_lines_stay() {
    let ws = workspace();
    let root = ws.path();
    let file = "pages/Spaced.md";
    let mut s = StdioSession::initialized(root);
    let b = id_of(&mut s, "spaced", "b");
    let c = id_of(&mut s, "spaced", "c");
    assert_write_changes(
        &mut s,
        root,
        file,
        "outl_block_insert",
        json!({ "text": "under b", "parent_id": b }),
        &["+        - under b\n"],
    );
    assert_write_changes(
        &mut s,
        root,
        file,
        "outl_block_indent",
        json!({ "id": c }),
        &["-- c\n", "+    - c\n"],
    );
    s.finish();
}

#[test]
fn a_rename_rewrites_only_the_lines_of_the_links_it_renames() {
    let ws = workspace();
    let root = ws.path();
    let mut s = StdioSession::initialized(root);
    let project = read(root, "pages/Project.md");
    let journal = read(root, "journals/2021_04_09.md");
    json_payload(&s.call(
        "outl_page_rename",
        json!({ "slug": "bob", "new_name": "Robert" }),
    ));
    assert_eq!(
        changed_lines(&project, &read(root, "pages/Project.md")),
        [
            "-- TODO Call [[Bob]] about #launch\n",
            "+- TODO Call [[Robert]] about #launch\n",
        ]
    );
    assert_eq!(
        changed_lines(&journal, &read(root, "journals/2021_04_09.md")),
        ["-  - [[Bob]] said\r\n", "+  - [[Robert]] said\r\n"]
    );
    s.finish();
}

#[test]
fn a_page_replaced_whole_keeps_the_lines_of_its_unchanged_blocks() {
    let ws = workspace();
    let root = ws.path();
    let file = "journals/2021_04_09.md";
    let mut s = StdioSession::initialized(root);
    // The model sends the page back as outl_export_md gave it, one block changed: what it
    // did not change keeps the file's lines.
    let exported = s.call("outl_export_md", json!({ "slug": "2021-04-09" }));
    let md = crate::mcp_support::text_of(&exported["result"]).replace("said", "said, and more");
    assert_write_changes(
        &mut s,
        root,
        file,
        "outl_page_update",
        json!({ "slug": "2021-04-09", "md": md }),
        &["-  - [[Bob]] said\r\n", "+  - [[Bob]] said, and more\r\n"],
    );
    s.finish();
}

/// A Logseq time-tracked task: its `:LOGBOOK:` drawer, which Logseq hides.
const LOGBOOK: &str =
    "- DOING write the report\n  :LOGBOOK:\n  CLOCK: [2021-04-09 Fri 10:00:00]\n  :END:\n- notes\n";

#[test]
fn a_text_logseq_would_read_as_structure_is_refused_and_nothing_is_written() {
    let ws = workspace_with(&[("pages/Report.md", LOGBOOK)]);
    let root = ws.path();
    let mut s = StdioSession::initialized(root);
    let task = id_of(&mut s, "Report", "write the report");
    let notes = id_of(&mut s, "Report", "notes");
    let before = files_of(root);
    // Each as Logseq's parser (mldoc) reads it: a property on any line of a block (the page's
    // own in its first block; `\key::` is a property named `\key`), a heading below a block's
    // first line (a block of its own), a drawer, a carriage return alone (a line break).
    let cases = [
        ("notes\nstatus:: done", 2),
        ("notes\nmore\n\\status:: done", 3),
        ("title:: Other", 1),
        ("notes\n## Details", 2),
        ("notes\n:PROPERTIES:\n:x: 1\n:END:", 2),
        ("notes\rmore", 1),
    ];
    for (text, line) in cases {
        let error = tool_error(&s.call("outl_block_update", json!({ "id": notes, "text": text })));
        assert_eq!(error["code"], "INVALID_ARGUMENTS", "{text:?}: {error}");
        assert_eq!(error["data"]["line"], line, "{text:?}: {error}");
        assert_eq!(error["data"]["id"], notes.as_str(), "{text:?}: {error}");
        assert!(
            error["message"].as_str().unwrap().contains("Logseq"),
            "{error}"
        );
        let inserted = s.call(
            "outl_block_insert",
            json!({ "text": text, "after_id": notes }),
        );
        assert_eq!(
            tool_error(&inserted)["code"],
            "INVALID_ARGUMENTS",
            "{text:?}"
        );
    }
    assert_files_unchanged(&before, root, "refused writes");

    // What Logseq reads as text is written: a property key in a fence, a line that only
    // mentions one, a heading as a block's first line.
    for text in [
        "notes\n```\nstatus:: done\n```",
        "notes: status:: done",
        "## notes",
    ] {
        json_payload(&s.call("outl_block_update", json!({ "id": notes, "text": text })));
    }
    // A drawer the block has (Logseq's clock) is a field of its own, and stays as it was when
    // the task is ticked or its first line edited.
    let block = json_payload(&s.call("outl_block_get", json!({ "id": task })))["block"].clone();
    assert_eq!(block["text"], "write the report", "{block}");
    assert_eq!(
        block["logbook"],
        json!(["CLOCK: [2021-04-09 Fri 10:00:00]"]),
        "{block}"
    );
    json_payload(&s.call("outl_block_todo", json!({ "id": task, "state": "DONE" })));
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": task, "text": "write the report, sent" }),
    ));
    assert!(
        read(root, "pages/Report.md").starts_with(
            "- DONE write the report, sent\n  :LOGBOOK:\n  CLOCK: [2021-04-09 Fri 10:00:00]\n  :END:\n"
        ),
        "{}",
        read(root, "pages/Report.md")
    );
    s.finish();
}

/// An org page in Logseq's org style: `#+KEY:` page properties, a drawer under a headline,
/// text at the margin, one star per level.
const ORG_GARDEN: &str = "#+TITLE: Garden\n#+ALIAS: yard\n\n* TODO [#B] Plant the [[Tomatoes]]\n:PROPERTIES:\n:created_at: 1618000000000\n:END:\nAfter the last frost.\n** Buy seeds\n** Water daily\n* Compost\n";
/// An org journal as Logseq wrote them in 2020: bodies indented under their headline, CRLF,
/// no final line break.
const ORG_DAY: &str = "* [[Tomatoes]] sprouted\r\n  Three of them.\r\n* Weather\r\n** rain";

fn org_workspace() -> tempfile::TempDir {
    workspace_with(&[
        ("pages/Garden.org", ORG_GARDEN),
        ("journals/2021_04_09.org", ORG_DAY),
        ("pages/Tomatoes.md", "- a plant\n"),
    ])
}

#[test]
fn each_kind_of_write_changes_only_its_lines_of_an_org_page() {
    let ws = org_workspace();
    let root = ws.path();
    let file = "pages/Garden.org";
    let mut s = StdioSession::initialized(root);
    let plant = id_of(&mut s, "garden", "[#B] Plant");
    let seeds = id_of(&mut s, "garden", "Buy seeds");
    let water = id_of(&mut s, "garden", "Water daily");
    let compost = id_of(&mut s, "garden", "Compost");

    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "outl_block_update",
            json!({ "id": plant, "text": "[#B] Plant the [[Tomatoes]]\nAfter the last frost, in May." }),
            vec![
                "-After the last frost.\n",
                "+After the last frost, in May.\n",
            ],
        ),
        (
            "outl_block_todo",
            json!({ "id": plant, "state": "DONE" }),
            vec![
                "-* TODO [#B] Plant the [[Tomatoes]]\n",
                "+* DONE [#B] Plant the [[Tomatoes]]\n",
            ],
        ),
        (
            "outl_block_insert",
            json!({ "text": "Stake them", "after_id": water }),
            vec!["+** Stake them\n"],
        ),
        (
            "outl_block_property_set",
            json!({ "id": plant, "key": "where", "value": "[[Bed 2]]" }),
            vec!["+:where: [[Bed 2]]\n"],
        ),
        (
            "outl_block_property_set",
            json!({ "id": compost, "key": "where", "value": "behind the shed" }),
            vec!["+:PROPERTIES:\n", "+:where: behind the shed\n", "+:END:\n"],
        ),
        (
            "outl_block_property_remove",
            json!({ "id": plant, "key": "created_at" }),
            vec![
                "-:PROPERTIES:\n",
                "-:created_at: 1618000000000\n",
                "-:END:\n",
            ],
        ),
        (
            "outl_block_collapse",
            json!({ "id": plant, "collapsed": true }),
            vec!["+:collapsed: true\n"],
        ),
        (
            "outl_block_delete",
            json!({ "id": seeds }),
            vec!["-** Buy seeds\n"],
        ),
        (
            "outl_block_move",
            json!({ "id": seeds, "parent_id": water }),
            vec!["-** Buy seeds\n", "+*** Buy seeds\n"],
        ),
        (
            "outl_block_move",
            json!({ "id": water, "page": "garden" }),
            vec!["-** Water daily\n", "+* Water daily\n"],
        ),
        (
            "outl_block_indent",
            json!({ "id": compost }),
            vec!["-* Compost\n", "+** Compost\n"],
        ),
    ];
    for (tool, args, expected) in cases {
        assert_write_changes(&mut s, root, file, tool, args, &expected);
    }
    s.finish();
}

#[test]
fn an_org_journal_keeps_its_style_and_its_other_lines() {
    let ws = org_workspace();
    let root = ws.path();
    let file = "journals/2021_04_09.org";
    let mut s = StdioSession::initialized(root);
    let sprouted = id_of(&mut s, "2021-04-09", "[[Tomatoes]] sprouted");
    let rain = id_of(&mut s, "2021-04-09", "rain");
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "outl_block_update",
            json!({ "id": sprouted, "text": "[[Tomatoes]] sprouted\nThree of them.\nAll green." }),
            vec!["+  All green.\r\n"],
        ),
        (
            "outl_block_property_set",
            json!({ "id": rain, "key": "mm", "value": "4" }),
            vec![
                "-** rain",
                "+** rain\r\n",
                "+   :PROPERTIES:\r\n",
                "+   :mm: 4\r\n",
                "+   :END:",
            ],
        ),
        (
            "outl_daily_append",
            json!({ "date": "2021-04-09", "md": "- TODO water them" }),
            vec!["-** rain", "+** rain\r\n", "+* TODO water them"],
        ),
    ];
    for (tool, args, expected) in cases {
        assert_write_changes(&mut s, root, file, tool, args, &expected);
    }
    s.finish();
}

#[test]
fn an_org_page_renamed_replaced_or_appended_to_changes_only_its_lines() {
    let ws = org_workspace();
    let root = ws.path();
    let mut s = StdioSession::initialized(root);
    let file = "pages/Garden.org";

    // The model sends the page back as outl_export_md gave it, in org, one line changed.
    let exported = s.call("outl_export_md", json!({ "slug": "garden" }));
    let org = crate::mcp_support::text_of(&exported["result"]).replace("daily", "weekly");
    assert_write_changes(
        &mut s,
        root,
        file,
        "outl_page_update",
        json!({ "slug": "garden", "md": org }),
        &["-** Water daily\n", "+** Water weekly\n"],
    );
    // Markdown blocks appended to an org page are written in org.
    assert_write_changes(
        &mut s,
        root,
        file,
        "outl_page_append",
        json!({ "slug": "garden", "md": "- Harvest\n\t- in August" }),
        &["+* Harvest\n", "+** in August\n"],
    );

    let day = read(root, "journals/2021_04_09.org");
    let renamed = json_payload(&s.call(
        "outl_page_rename",
        json!({ "slug": "tomatoes", "new_name": "Tomato plants" }),
    ));
    assert_eq!(
        changed_lines(ORG_GARDEN, &read(root, file)),
        [
            "-* TODO [#B] Plant the [[Tomatoes]]\n",
            "+* TODO [#B] Plant the [[Tomato plants]]\n",
        ]
    );
    assert_eq!(
        changed_lines(&day, &read(root, "journals/2021_04_09.org")),
        [
            "-* [[Tomatoes]] sprouted\r\n",
            "+* [[Tomato plants]] sprouted\r\n"
        ]
    );
    assert_eq!(renamed["file"], "pages/Tomato plants.md");

    // An org page renamed stays an org page, its title rewritten in its line.
    let renamed = json_payload(&s.call(
        "outl_page_rename",
        json!({ "slug": "garden", "new_name": "Vegetable garden" }),
    ));
    assert_eq!(renamed["file"], "pages/Vegetable garden.org");
    let written = read(root, "pages/Vegetable garden.org");
    assert_eq!(
        changed_lines(&read_org_before_rename(), &written),
        ["-#+TITLE: Garden\n", "+#+TITLE: Vegetable garden\n"]
    );
    json_payload(&s.call("outl_undo", json!({})));
    assert!(!root.join("pages/Vegetable garden.org").exists());
    assert_eq!(read(root, file), read_org_before_rename());
    s.finish();
}

/// The garden page once its link to Tomatoes is renamed.
fn read_org_before_rename() -> String {
    ORG_GARDEN.replace("[[Tomatoes]]", "[[Tomato plants]]")
}

#[test]
fn a_ref_to_an_org_block_gives_it_an_id_in_its_drawer() {
    let ws = org_workspace();
    let root = ws.path();
    let mut s = StdioSession::initialized(root);
    let plant = id_of(&mut s, "garden", "[#B] Plant");
    let compost = id_of(&mut s, "garden", "Compost");
    let note = id_of(&mut s, "tomatoes", "a plant");
    let before = read(root, "pages/Garden.org");
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": note, "text": format!("a plant, see (({plant})) and (({compost}))") }),
    ));
    let after = read(root, "pages/Garden.org");
    let changed = changed_lines(&before, &after);
    assert_eq!(changed.len(), 4, "{after}");
    assert!(changed[0].starts_with("+:id: 6f75746c-"), "{after}");
    assert_eq!(changed[1], "+:PROPERTIES:\n", "{after}");
    assert!(changed[2].starts_with("+:id: 6f75746c-"), "{after}");
    assert_eq!(changed[3], "+:END:\n", "{after}");
    assert!(after.starts_with(
        "#+TITLE: Garden\n#+ALIAS: yard\n\n* TODO [#B] Plant the [[Tomatoes]]\n:PROPERTIES:\n:created_at: 1618000000000\n:id: 6f75746c-"
    ));
    // The ref is written as Logseq resolves it, and the model still sees the short id.
    let uuid = changed[0].trim_start_matches("+:id: ").trim_end();
    assert!(read(root, "pages/Tomatoes.md").contains(&format!("(({uuid}))")));
    assert_eq!(id_of(&mut s, "garden", "[#B] Plant"), plant);
    json_payload(&s.call("outl_undo", json!({})));
    assert_eq!(read(root, "pages/Garden.org"), before);
    s.finish();
}

#[test]
fn an_org_text_logseq_would_read_as_structure_is_refused() {
    let ws = org_workspace();
    let root = ws.path();
    let mut s = StdioSession::initialized(root);
    let compost = id_of(&mut s, "garden", "Compost");
    let before = files_of(root);
    // As mldoc reads an org block: a headline (a block of its own), a #+KEY: line (a page
    // property), a drawer (hidden), a carriage return alone (a line break).
    let cases = [
        ("Compost\n* Turn it", 2),
        ("Compost\n#+TITLE: Other", 2),
        ("Compost\n:LOGBOOK:\nCLOCK: x\n:END:", 2),
        ("Compost\rweekly", 1),
    ];
    for (text, line) in cases {
        let error =
            tool_error(&s.call("outl_block_update", json!({ "id": compost, "text": text })));
        assert_eq!(error["code"], "INVALID_ARGUMENTS", "{text:?}: {error}");
        assert_eq!(error["data"]["line"], line, "{text:?}: {error}");
        assert_eq!(error["data"]["id"], compost.as_str(), "{text:?}: {error}");
        let inserted = tool_error(&s.call(
            "outl_block_insert",
            json!({ "text": text, "after_id": compost }),
        ));
        assert_eq!(inserted["code"], "INVALID_ARGUMENTS", "{text:?}");
        assert_eq!(inserted["data"]["id"], Value::Null, "{text:?}: {inserted}");
    }
    assert_files_unchanged(&before, root, "refused writes");

    // What is structure in markdown is text in org, and stars indented or inside a block are
    // no headline.
    let text = "Compost\nstatus:: turned\n## weekly\n *indented*\n#+BEGIN_SRC\n* not a headline\n#+END_SRC";
    json_payload(&s.call("outl_block_update", json!({ "id": compost, "text": text })));
    let got = json_payload(&s.call("outl_block_get", json!({ "id": compost })));
    assert_eq!(got["block"]["text"], text);
    s.finish();
}
