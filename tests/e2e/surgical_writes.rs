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
