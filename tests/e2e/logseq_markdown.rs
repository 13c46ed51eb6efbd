//! Markdown pages as Logseq writes them, in its current style and in older ones, read through
//! the tools over MCP stdio: every task marker Logseq knows, YAML front matter, planning lines
//! and logbook drawers.

use std::path::Path;

use crate::mcp_support::{
    StdioSession, changed_lines, column, json_payload, outline_nodes, problem_pointers, text_of,
    tool_error, workspace_with,
};
use serde_json::json;

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).expect("read a page")
}

/// A journal day with a task of every marker Logseq reads, one of them in a heading, and two
/// markers that are words.
const TASKS: &str = "\
- TODO write the report
- DOING review [[Budget]]
- LATER plan the trip
- NOW call the bank
- WAIT hear back from [[Ana]]
- WAITING the parts
- IN-PROGRESS paint the fence
- STARTED reading [[Dune]]
- DONE buy milk
- CANCELED the old plan
- CANCELLED the other plan
- ## TODO a heading task
- TODO
- DONE
  a marker on a line of its own is a word, as mldoc reads it
";

#[test]
fn every_logseq_marker_is_a_task_in_its_own_spelling() {
    let ws = workspace_with(&[("journals/2024_05_20.md", TASKS)]);
    let mut s = StdioSession::initialized(ws.path());

    let open = json_payload(&s.call("outl_tasks", json!({})));
    assert_eq!(open["total"], 9);
    let all = json_payload(&s.call("outl_tasks", json!({ "state": "all" })));
    assert_eq!(all["total"], 12);

    // A state's filter takes either spelling and lists both; each hit keeps its own.
    for state in ["WAIT", "WAITING"] {
        let waiting = json_payload(&s.call("outl_tasks", json!({ "state": state })));
        assert_eq!(
            column(&waiting["hits"], "text"),
            ["WAIT hear back from [[Ana]]", "WAITING the parts"]
        );
    }
    let cancelled = json_payload(&s.call("outl_tasks", json!({ "state": "CANCELLED" })));
    assert_eq!(
        column(&cancelled["hits"], "text"),
        ["CANCELED the old plan", "CANCELLED the other plan"]
    );
    let started = json_payload(&s.call("outl_tasks", json!({ "state": "IN-PROGRESS" })));
    assert_eq!(
        column(&started["hits"], "text"),
        ["IN-PROGRESS paint the fence"]
    );

    let day = json_payload(&s.call("outl_page_get", json!({ "slug": "2024-05-20" })));
    let nodes = outline_nodes(&day["outline"]);
    let todos: Vec<&str> = nodes
        .iter()
        .map(|node| node["todo"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        todos,
        [
            "TODO",
            "DOING",
            "LATER",
            "NOW",
            "WAIT",
            "WAITING",
            "IN-PROGRESS",
            "STARTED",
            "DONE",
            "CANCELED",
            "CANCELLED",
            "TODO",
            "",
            ""
        ]
    );
    assert_eq!(nodes[12]["text"], "TODO");
    // A heading task's marker sits after its `#` marks.
    assert_eq!(nodes[11]["text"], "## a heading task");

    // Setting a state writes the spelling asked for, after a heading's marks too.
    for (node, state) in [(0, "STARTED"), (5, "CANCELLED"), (11, "DONE")] {
        let set = json_payload(&s.call(
            "outl_block_todo",
            json!({ "id": nodes[node]["id"], "state": state }),
        ));
        assert_eq!(set["todo"], state);
    }
    let md = read(ws.path(), "journals/2024_05_20.md");
    assert!(md.contains("- STARTED write the report\n"), "{md}");
    assert!(md.contains("- CANCELLED the parts\n"), "{md}");
    assert!(md.contains("- ## DONE a heading task\n"), "{md}");
    s.finish();
}

/// A page of the things Logseq does not read as tags or links.
const NOT_LINKS: &str = "\
- My open tasks
  #+BEGIN_QUERY
  {:title \"#urgent work\"
   :query [:find (pull ?b [*]) :where [?b :block/marker \"TODO\"] [[Query page]]]}
  #+END_QUERY
- ```clojure
  (str \"#not-a-tag\" \"[[Not a page]]\")
  ```
- ~~~
  #fenced [[Fenced]]
  ~~~
- #+BEGIN_SRC python
  print(\"#nope\")
  #+END_SRC
- Docs at https://docs.logseq.com/#/page/tasks and [setup](#install), `#code` too
- ## A heading, then #real and [[Real page]]
";

#[test]
fn directives_verbatim_blocks_fences_urls_and_headings_are_not_links() {
    let ws = workspace_with(&[("pages/not links.md", NOT_LINKS)]);
    let mut s = StdioSession::initialized(ws.path());
    let tags = json_payload(&s.call("outl_tags", json!({})));
    assert_eq!(column(&tags["tags"], "tag"), ["real"]);
    let links = json_payload(&s.call("outl_links", json!({ "slug": "not links" })));
    assert_eq!(column(&links["links"], "page"), ["real", "real page"]);
    s.finish();
}

/// A journal day as Logseq wrote them until 2021, and a page with front matter of lists, a
/// comment and CRLF line ends.
const OLD_JOURNAL: &str = "---\ntitle: Apr 9th, 2021\n---\n\n- TODO read [[Deep Work]]\n";
const FRONT_MATTER_PAGE: &str = "---\r\ntitle: Deep Work\r\n# by Cal Newport\r\ntags: [book, focus]\r\nalias:\r\n  - DW\r\n---\r\n\r\n- chapter one\r\n";

#[test]
fn front_matter_is_page_properties_never_a_block_and_kept_by_writes() {
    let ws = workspace_with(&[
        ("journals/2021_04_09.md", OLD_JOURNAL),
        ("pages/deep_work.md", FRONT_MATTER_PAGE),
    ]);
    let mut s = StdioSession::initialized(ws.path());

    // `title` names the page, `alias` and `tags` are page lists.
    let page = json_payload(&s.call("outl_page_get", json!({ "slug": "DW" })));
    assert_eq!(page["meta"]["name"], "Deep Work");
    assert_eq!(page["meta"]["properties"]["tags"], "book, focus");
    let texts: Vec<&str> = outline_nodes(&page["outline"])
        .iter()
        .map(|node| node["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["chapter one"]);
    let tagged = json_payload(&s.call("outl_tag_get", json!({ "tag": "book" })));
    assert_eq!(tagged["hits"], json!([{ "page": "deep work" }]));

    let day = json_payload(&s.call("outl_daily_get", json!({ "date": "2021-04-09" })));
    let task = &outline_nodes(&day["outline"])[0];
    assert_eq!(task["todo"], "TODO");
    assert_eq!(task["text"], "read [[Deep Work]]");
    let backlinks = json_payload(&s.call("outl_page_backlinks", json!({ "slug": "deep work" })));
    assert!(backlinks.to_string().contains("2021-04-09"), "{backlinks}");

    // A write leaves the front matter as it was, byte for byte.
    json_payload(&s.call(
        "outl_block_todo",
        json!({ "id": task["id"], "state": "DONE" }),
    ));
    assert_eq!(
        read(ws.path(), "journals/2021_04_09.md"),
        OLD_JOURNAL.replace("TODO", "DONE")
    );
    let chapter = &outline_nodes(&page["outline"])[0];
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": chapter["id"], "text": "chapter 1" }),
    ));
    assert!(
        read(ws.path(), "pages/deep_work.md")
            .starts_with("---\r\ntitle: Deep Work\r\n# by Cal Newport\r\ntags: [book, focus]\r\nalias:\r\n  - DW\r\n---\r\n"),
    );
    s.finish();
}

const TARGET_UUID: &str = "63db4c7f-0b35-4a2b-9c4e-0123456789ab";
const GONE_UUID: &str = "6571a3f0-1111-4222-8333-444455556666";

/// Logseq's block ids, UUIDs: a target with its `id::` line, and refs to it in a text, an
/// embed and a link, beside a ref to a block no page holds.
fn uuid_pages() -> [(&'static str, String); 2] {
    [
        (
            "pages/target.md",
            format!("- the target block\n  id:: {TARGET_UUID}\n"),
        ),
        (
            "pages/refs.md",
            format!(
                "- see (({TARGET_UUID}))\n- {{{{embed (({TARGET_UUID}))}}}}\n- [this]((({TARGET_UUID}))) and (({GONE_UUID}))\n"
            ),
        ),
    ]
}

fn has_uuid(reply: &serde_json::Value) -> bool {
    let text = reply.to_string();
    text.contains(TARGET_UUID) || text.contains(GONE_UUID)
}

#[test]
fn uuid_ids_are_served_as_short_ids_and_written_back_as_uuids() {
    let pages = uuid_pages();
    let files: Vec<(&str, &str)> = pages.iter().map(|(p, c)| (*p, c.as_str())).collect();
    let ws = workspace_with(&files);
    let mut s = StdioSession::initialized(ws.path());

    let target = json_payload(&s.call("outl_page_get", json!({ "slug": "target" })));
    let short = target["outline"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(short.len(), 7, "{target}");
    let refs = json_payload(&s.call("outl_page_get", json!({ "slug": "refs" })));
    assert!(!has_uuid(&target) && !has_uuid(&refs), "{refs}");
    let texts = column(&refs["outline"], "text");
    assert_eq!(texts[0], format!("see (({short}))"));
    assert_eq!(texts[1], format!("{{{{embed (({short}))}}}}"));

    // Tools take the UUID or the short id, and answer with the short one.
    let by_uuid = json_payload(&s.call("outl_block_get", json!({ "id": TARGET_UUID })));
    assert_eq!(by_uuid["block"]["id"], short.as_str());
    for id in [TARGET_UUID, short.as_str()] {
        let back = json_payload(&s.call("outl_block_refs", json!({ "id": id })));
        assert_eq!(back["id"], short.as_str());
        assert_eq!(back["total"], 3, "{back}");
    }

    // A write gives the file its UUIDs back, the model's new ref and a dangling one included.
    let first = refs["outline"][0]["id"].clone();
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": first, "text": format!("see (({short})) again") }),
    ));
    assert_eq!(
        read(ws.path(), "pages/refs.md"),
        pages[1].1.replacen(
            &format!("see (({TARGET_UUID}))\n"),
            &format!("see (({TARGET_UUID})) again\n"),
            1
        )
    );
    s.finish();

    // The short ids are the same after a restart.
    let mut again = StdioSession::initialized(ws.path());
    let target = json_payload(&again.call("outl_page_get", json!({ "slug": "target" })));
    assert_eq!(target["outline"][0]["id"], short.as_str());
    again.finish();
}

/// The UUID of the `id::` line that `file`'s block `text` got, checked as Logseq reads one.
fn anchored_uuid(md: &str, text: &str) -> String {
    let mut lines = md.lines().skip_while(|line| !line.ends_with(text));
    lines
        .next()
        .unwrap_or_else(|| panic!("no block {text:?} in {md}"));
    let uuid = lines
        .next()
        .and_then(|line| line.trim_start().strip_prefix("id:: "))
        .unwrap_or_else(|| panic!("no id:: line under {text:?} in {md}"));
    let groups: Vec<usize> = uuid.split('-').map(str::len).collect();
    assert_eq!(groups, [8, 4, 4, 4, 12], "{uuid}");
    assert!(
        uuid.chars().all(|c| c == '-' || c.is_ascii_hexdigit()),
        "{uuid}"
    );
    uuid.to_owned()
}

#[test]
fn a_ref_the_model_writes_gives_its_target_an_id_line_logseq_resolves() {
    const NOTES: &str = "- plain target\n- no ref points here\n";
    const DOC: &str = "- writes here\n\t- child\n";
    let ws = workspace_with(&[("pages/Notes.md", NOTES), ("pages/Doc.md", DOC)]);
    let root = ws.path();
    let mut s = StdioSession::initialized(root);
    let notes = json_payload(&s.call("outl_page_get", json!({ "slug": "Notes" })));
    let target = notes["outline"][0]["id"].as_str().unwrap().to_owned();
    let doc = json_payload(&s.call("outl_page_get", json!({ "slug": "Doc" })));
    let writer = doc["outline"][0]["id"].as_str().unwrap().to_owned();
    let child = doc["outline"][0]["children"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // A ref to a block of another page and an embed of a block of the same page.
    let text = format!("see (({target})) and {{{{embed (({child}))}}}}");
    let written = json_payload(&s.call("outl_block_update", json!({ "id": writer, "text": text })));
    assert_eq!(written["id"], writer.as_str(), "{written}");
    let notes_md = read(root, "pages/Notes.md");
    let target_uuid = anchored_uuid(&notes_md, "plain target");
    assert_eq!(
        notes_md,
        format!("- plain target\n  id:: {target_uuid}\n- no ref points here\n"),
        "only the target gets an id:: line"
    );
    let doc_md = read(root, "pages/Doc.md");
    let child_uuid = anchored_uuid(&doc_md, "child");
    assert_eq!(
        doc_md,
        format!(
            "- see (({target_uuid})) and {{{{embed (({child_uuid}))}}}}\n\t- child\n\t  id:: {child_uuid}\n"
        )
    );
    // The model keeps reading the short ids it wrote.
    let doc = json_payload(&s.call("outl_page_get", json!({ "slug": "Doc" })));
    assert_eq!(doc["outline"][0]["text"], text.as_str(), "{doc}");
    let back = json_payload(&s.call("outl_block_refs", json!({ "id": target })));
    assert_eq!(back["total"], 1, "{back}");

    // Another ref to an anchored block adds nothing; the undo of the first write takes the
    // id:: lines away with the refs.
    let again = format!("(({target})) once more");
    json_payload(&s.call(
        "outl_block_insert",
        json!({ "text": again, "after_id": writer }),
    ));
    assert_eq!(read(root, "pages/Notes.md"), notes_md);
    json_payload(&s.call("outl_undo", json!({})));
    json_payload(&s.call("outl_undo", json!({})));
    assert_eq!(read(root, "pages/Notes.md"), NOTES);
    assert_eq!(read(root, "pages/Doc.md"), DOC);
    json_payload(&s.call("outl_redo", json!({})));
    assert_eq!(read(root, "pages/Notes.md"), notes_md);
    s.finish();

    // After a restart, the blocks are served by the same short ids, from their UUIDs alone.
    std::fs::remove_dir_all(root.join(".outl")).expect("remove outl's state");
    let mut fresh = StdioSession::initialized(root);
    let notes = json_payload(&fresh.call("outl_page_get", json!({ "slug": "Notes" })));
    assert_eq!(notes["outline"][0]["id"], target.as_str(), "{notes}");
    let doc = json_payload(&fresh.call("outl_page_get", json!({ "slug": "Doc" })));
    assert_eq!(
        doc["outline"][0]["children"][0]["id"],
        child.as_str(),
        "{doc}"
    );
    assert_eq!(doc["outline"][0]["text"], text.as_str(), "{doc}");
    fresh.finish();
}

#[test]
fn a_ref_to_a_copy_of_a_block_gives_the_copy_an_id_of_its_own() {
    // Two blocks with one `id::` (a block copied with its id): the first keeps it, as in
    // Logseq, and a ref to the second gives the second an id of its own.
    const SHARED: &str = "11111111-2222-4333-8444-555555555555";
    let one = format!("- first copy\n  id:: {SHARED}\n");
    let two = format!("- second copy\n  id:: {SHARED}\n- source\n");
    let ws = workspace_with(&[
        ("pages/One.md", one.as_str()),
        ("pages/Two.md", two.as_str()),
    ]);
    let root = ws.path();
    let mut s = StdioSession::initialized(root);
    let page = json_payload(&s.call("outl_page_get", json!({ "slug": "Two" })));
    let copy = page["outline"][0]["id"].as_str().unwrap().to_owned();
    let source = page["outline"][1]["id"].as_str().unwrap().to_owned();
    let text = format!("source, see (({copy}))");
    json_payload(&s.call("outl_block_update", json!({ "id": source, "text": text })));

    let two_md = read(root, "pages/Two.md");
    let copy_uuid = anchored_uuid(&two_md, "second copy");
    assert_ne!(copy_uuid, SHARED, "{two_md}");
    assert_eq!(
        two_md,
        format!("- second copy\n  id:: {copy_uuid}\n- source, see (({copy_uuid}))\n")
    );
    assert_eq!(
        read(root, "pages/One.md"),
        one,
        "the first copy keeps its id"
    );
    let back = json_payload(&s.call("outl_block_refs", json!({ "id": copy })));
    assert_eq!(back["total"], 1, "{back}");
    s.finish();
}

#[test]
fn embeds_are_references_and_render_shows_what_they_embed() {
    let ws = workspace_with(&[
        (
            "pages/target.md",
            "- the target\n  id:: 6f3a2c\n\t- under it\n",
        ),
        ("pages/plan.md", "- step one\n"),
        (
            "pages/notes.md",
            "- {{embed ((6f3a2c))}}\n- {{embed [[Plan]]}}\n- {{embed [[Notes]]}}\n",
        ),
    ]);
    let mut s = StdioSession::initialized(ws.path());
    let refs = json_payload(&s.call("outl_block_refs", json!({ "id": "6f3a2c" })));
    assert_eq!(column(&refs["refs"], "page"), ["notes"]);
    let back = json_payload(&s.call("outl_page_backlinks", json!({ "slug": "plan" })));
    assert_eq!(column(&back["backlinks"], "page"), ["notes"]);

    let render = s.call("outl_page_render", json!({ "slug": "notes" }));
    let md = render["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        md,
        "- the target\n\t- under it\n- {{embed [[Plan]]}}\n\t- step one\n- {{embed [[Notes]]}}\n\t- {{embed the target}}\n\t- {{embed [[Plan]]}}\n\t- {{embed [[Notes]]}}\n"
    );
    s.finish();
}

/// A journal day as Logseq writes tasks with planning and a clocked logbook.
const PLANNED: &str = "\
- DONE write the report
  SCHEDULED: <2024-05-20 Mon>
  :LOGBOOK:
  CLOCK: [2024-05-20 Mon 09:00:12]--[2024-05-20 Mon 10:30:40] =>  01:30:28
  :END:
  the summary goes first
- TODO call the bank
  DEADLINE: <2024-05-22 Wed 10:00 .+1w>
\t- LATER ask about the fee
\t  SCHEDULED: <2024-05-21 Tue> DEADLINE: <2024-05-23 Thu>
- a line that only mentions
  SCHEDULED: <2024-05-20 Mon> in passing
";

#[test]
fn planning_lines_and_logbooks_are_fields_and_writes_keep_them_byte_for_byte() {
    let ws = workspace_with(&[("journals/2024_05_20.md", PLANNED)]);
    let mut s = StdioSession::initialized(ws.path());

    let day = json_payload(&s.call("outl_page_get", json!({ "slug": "2024-05-20" })));
    let nodes = outline_nodes(&day["outline"]);
    let report = nodes[0];
    assert_eq!(
        report["text"], "write the report\nthe summary goes first",
        "{report}"
    );
    assert_eq!(report["todo"], "DONE");
    assert_eq!(report["scheduled"], "2024-05-20 Mon");
    assert_eq!(
        report["logbook"],
        json!(["CLOCK: [2024-05-20 Mon 09:00:12]--[2024-05-20 Mon 10:30:40] =>  01:30:28"])
    );
    assert!(report.get("deadline").is_none(), "{report}");
    let bank = nodes[1];
    assert_eq!(bank["text"], "call the bank");
    assert_eq!(bank["deadline"], "2024-05-22 Wed 10:00 .+1w");
    let fee = nodes[2];
    assert_eq!(fee["text"], "ask about the fee");
    assert_eq!(fee["scheduled"], "2024-05-21 Tue");
    assert_eq!(fee["deadline"], "2024-05-23 Thu");
    // Logseq reads a planning line inside a paragraph as text.
    let passing = nodes[3];
    assert_eq!(
        passing["text"],
        "a line that only mentions\nSCHEDULED: <2024-05-20 Mon> in passing"
    );
    assert!(passing.get("scheduled").is_none(), "{passing}");

    let open = json_payload(&s.call("outl_tasks", json!({})));
    assert_eq!(
        column(&open["hits"], "text"),
        ["TODO call the bank", "LATER ask about the fee"]
    );
    assert_eq!(open["hits"][0]["deadline"], "2024-05-22 Wed 10:00 .+1w");
    assert_eq!(open["hits"][1]["scheduled"], "2024-05-21 Tue");

    // An edit of the text, and a tick: only the first line of each block changes.
    let path = ws.path().join("journals/2024_05_20.md");
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": report["id"], "text": "write the final report\nthe summary goes first" }),
    ));
    json_payload(&s.call(
        "outl_block_todo",
        json!({ "id": bank["id"], "state": "DONE" }),
    ));
    let after = std::fs::read_to_string(&path).expect("the day");
    assert_eq!(
        changed_lines(PLANNED, &after),
        [
            "-- DONE write the report\n",
            "+- DONE write the final report\n",
            "-- TODO call the bank\n",
            "+- DONE call the bank\n",
        ]
    );
    let day = json_payload(&s.call("outl_page_get", json!({ "slug": "2024-05-20" })));
    let report = outline_nodes(&day["outline"])[0].clone();
    assert_eq!(
        report["text"],
        "write the final report\nthe summary goes first"
    );
    assert_eq!(report["scheduled"], "2024-05-20 Mon");
    s.finish();
}

/// Blocks whose properties Logseq reads below their text: an `id::` line after a body line,
/// and an org-style `:PROPERTIES:` drawer under a heading, as pages imported from org-roam
/// hold them; another page refers to both by UUID.
const LATE_IDS: [(&str, &str); 2] = [
    (
        "pages/notes.md",
        "- a thought\n  that goes on\n  id:: 65a1b2c3-0000-4000-8000-00000000000a\n- ## Clojure\n  :PROPERTIES:\n  :ID:  65a1b2c3-0000-4000-8000-00000000000b\n  :END:\n  a lisp\n",
    ),
    (
        "pages/refs.md",
        "- see ((65a1b2c3-0000-4000-8000-00000000000a))\n- and ((65a1b2c3-0000-4000-8000-00000000000b))\n",
    ),
];

#[test]
fn ids_below_the_text_and_in_drawers_resolve_and_edits_keep_their_lines() {
    let ws = workspace_with(&LATE_IDS);
    let mut s = StdioSession::initialized(ws.path());
    let notes = json_payload(&s.call("outl_page_get", json!({ "slug": "notes" })));
    assert_eq!(
        column(&notes["outline"], "text"),
        ["a thought\nthat goes on", "## Clojure\na lisp"]
    );
    assert!(!notes.to_string().contains("65a1b2c3"), "{notes}");
    for node in notes["outline"].as_array().unwrap() {
        let back = json_payload(&s.call("outl_block_refs", json!({ "id": node["id"] })));
        assert_eq!(back["total"], 1, "{back}");
    }
    let refs = json_payload(&s.call("outl_page_get", json!({ "slug": "refs" })));
    assert!(!refs.to_string().contains("65a1b2c3"), "{refs}");

    // Edited, each block keeps its id line where it was, and its drawer.
    for (node, edited) in notes["outline"].as_array().unwrap().iter().zip([
        "a thought, edited\nthat goes on",
        "## Clojure, edited\na lisp",
    ]) {
        json_payload(&s.call(
            "outl_block_update",
            json!({ "id": node["id"], "text": edited }),
        ));
    }
    let before = LATE_IDS[0].1;
    assert_eq!(
        changed_lines(before, &read(ws.path(), "pages/notes.md")),
        [
            "-- a thought\n",
            "+- a thought, edited\n",
            "-- ## Clojure\n",
            "+- ## Clojure, edited\n",
        ]
    );
    s.finish();
}

/// Blocks as mldoc cuts them: headings at the margin over tab-indented bullets (as many pages
/// of Logseq's documentation graph are), a list inside a quote, and a fence no line closes
/// above a heading task.
const CUT: [(&str, &str); 2] = [
    (
        "pages/Snap.md",
        "type:: [[Feature]]\n\n# Usage\n\t- Toggle it with the magnet button\n\t\t- the button sits by the grid toggle\n# Background\n\t- Shapes align without guides\n\t  #+BEGIN_QUOTE\n\t  - no guides\n\t  - no snapping tools\n\t  #+END_QUOTE\n",
    ),
    (
        "pages/Log.md",
        "## Error output\n```\nnpm ERR! code ENOENT\n\n## TODO fix the install script\n",
    ),
];

#[test]
fn blocks_are_cut_as_logseq_cuts_them() {
    let ws = workspace_with(&CUT);
    let mut s = StdioSession::initialized(ws.path());
    let snap = json_payload(&s.call("outl_page_get", json!({ "slug": "snap" })));
    let outline = &snap["outline"];
    assert_eq!(
        column(outline, "text"),
        ["# Usage", "# Background"],
        "{snap}"
    );
    assert_eq!(
        column(&outline[0]["children"], "text"),
        ["Toggle it with the magnet button"]
    );
    assert_eq!(
        column(&outline[1]["children"], "text"),
        [
            "Shapes align without guides\n#+BEGIN_QUOTE\n- no guides\n- no snapping tools\n#+END_QUOTE"
        ]
    );
    let tasks = json_payload(&s.call("outl_tasks", json!({ "page": "log" })));
    assert_eq!(
        column(&tasks["hits"], "text"),
        ["## TODO fix the install script"]
    );
    s.finish();
}

/// Lines mldoc reads as one element whatever they hold, and org drawers it reads where a
/// headline's title or `:CUSTOM_ID:` puts them.
const ELEMENTS: [(&str, &str); 3] = [
    (
        "pages/Algebra.md",
        "- a matrix\n  $$\\begin{pmatrix}\n  - a & b\n  \\end{pmatrix}$$\n\t- a child\n- sample output\n  #+BEGIN_EXAMPLE\n  - see [[Tools]]\n    - nested\n  #+END_EXAMPLE\n",
    ),
    (
        "pages/Sources.org",
        "* Sources\n** :PROPERTIES:\n:id: 6a1b0000-0000-4000-8000-0000000000d1\n:END:\nfirst note\n* cited\n:PROPERTIES:\n:CUSTOM_ID: 6a1b0000-0000-4000-8000-0000000000d2\n:END:\n",
    ),
    (
        "pages/Reader.md",
        "- {{embed ((6a1b0000-0000-4000-8000-0000000000d1))}}\n- ((6a1b0000-0000-4000-8000-0000000000d2))\n",
    ),
];

#[test]
fn math_verbatim_blocks_and_org_drawers_are_read_as_logseq_reads_them() {
    let ws = workspace_with(&ELEMENTS);
    let mut s = StdioSession::initialized(ws.path());
    let algebra = json_payload(&s.call("outl_page_get", json!({ "slug": "algebra" })));
    let outline = &algebra["outline"];
    assert_eq!(
        column(outline, "text"),
        [
            "a matrix\n$$\\begin{pmatrix}\n- a & b\n\\end{pmatrix}$$",
            "sample output\n#+BEGIN_EXAMPLE\n- see [[Tools]]\n  - nested\n#+END_EXAMPLE"
        ],
        "{algebra}"
    );
    assert_eq!(column(&outline[0]["children"], "text"), ["a child"]);

    // The headline titled :PROPERTIES: has its id, and CUSTOM_ID is an id: both are short,
    // and the embed and the ref to them resolve.
    let sources = json_payload(&s.call("outl_page_get", json!({ "slug": "sources" })));
    let text = sources.to_string();
    assert!(
        !text.contains("6a1b0000") && !text.contains("custom_id"),
        "{text}"
    );
    let cited = sources["outline"][1]["id"].as_str().expect("an id");
    let reader = json_payload(&s.call("outl_page_get", json!({ "slug": "reader" })));
    assert_eq!(
        reader["outline"][1]["text"].as_str(),
        Some(format!("(({cited}))").as_str()),
        "{reader}"
    );
    let rendered = s.call("outl_page_render", json!({ "slug": "reader" }));
    assert!(
        text_of(&rendered["result"]).contains("first note"),
        "{rendered}"
    );

    // Edited, the math block and the org block keep their other lines byte for byte.
    let math = outline[0]["id"].clone();
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": math, "text": "a matrix, edited\n$$\\begin{pmatrix}\n- a & b\n\\end{pmatrix}$$" }),
    ));
    assert_eq!(
        changed_lines(ELEMENTS[0].1, &read(ws.path(), "pages/Algebra.md")),
        ["-- a matrix\n", "+- a matrix, edited\n"]
    );
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": cited, "text": "cited, edited" }),
    ));
    assert_eq!(
        changed_lines(ELEMENTS[1].1, &read(ws.path(), "pages/Sources.org")),
        ["-* cited\n", "+* cited, edited\n"]
    );

    // Markdown whose front matter holds a bullet is refused: Logseq would show no block.
    let before = read(ws.path(), "pages/Algebra.md");
    let refused = tool_error(&s.call(
        "outl_page_update",
        json!({ "slug": "algebra", "md": "---\n- a\n---\n- b\n" }),
    ));
    assert_eq!(problem_pointers(&refused), ["/md"]);
    assert!(refused.to_string().contains("line 2"), "{refused}");
    assert_eq!(read(ws.path(), "pages/Algebra.md"), before);
    s.finish();
}

/// Tags as mldoc reads them: at every `#`, up to whitespace or what ends a tag, but not in a
/// link's label, inline HTML or emphasis; and a page list split at full-width commas too.
const TAGGED: &str = "\
tags:: 读书笔记，性能调优

- 会议纪要。#复盘
- Term#flash, then (see #foo) and #bar.
- see [PR #1014](https://x.org/1), <span title=\"#nottag\">x</span>, **#bold** and https://x.org/#/page/y
";

#[test]
fn tags_are_read_at_every_hash_and_page_lists_split_at_full_width_commas() {
    let ws = workspace_with(&[("pages/tagged.md", TAGGED), ("pages/flash.md", "- cards\n")]);
    let mut s = StdioSession::initialized(ws.path());
    let tags = json_payload(&s.call("outl_tags", json!({})));
    let mut names = column(&tags["tags"], "tag");
    names.sort();
    let mut expected = ["bar", "flash", "foo)", "复盘", "性能调优", "读书笔记"];
    expected.sort();
    assert_eq!(names, expected);
    let flash = json_payload(&s.call("outl_tag_get", json!({ "tag": "flash" })));
    assert_eq!(
        column(&flash["hits"], "text"),
        ["Term#flash, then (see #foo) and #bar."]
    );
    let listed = json_payload(&s.call("outl_tag_get", json!({ "tag": "性能调优" })));
    assert_eq!(listed["hits"], json!([{ "page": "tagged" }]));

    // A rename rewrites a tag written right after a character, and it stays that tag.
    json_payload(&s.call(
        "outl_page_rename",
        json!({ "slug": "flash", "new_name": "cards" }),
    ));
    assert!(
        read(ws.path(), "pages/tagged.md").contains("- Term#cards, then (see #foo) and #bar.\n")
    );
    let cards = json_payload(&s.call("outl_tag_get", json!({ "tag": "cards" })));
    assert_eq!(column(&cards["hits"], "page"), ["tagged"]);
    s.finish();
}

#[test]
fn a_link_to_a_bare_uuid_is_a_block_ref_served_by_its_short_id() {
    let ws = workspace_with(&[
        (
            "pages/target.md",
            &format!("- the target block\n  id:: {TARGET_UUID}\n"),
        ),
        (
            "pages/figure.md",
            &format!("- see [图]({TARGET_UUID}) and [x](notes)\n"),
        ),
    ]);
    let mut s = StdioSession::initialized(ws.path());
    let target = json_payload(&s.call("outl_page_get", json!({ "slug": "target" })));
    let short = target["outline"][0]["id"].as_str().unwrap().to_owned();
    let figure = json_payload(&s.call("outl_page_get", json!({ "slug": "figure" })));
    assert!(!has_uuid(&figure), "{figure}");
    assert_eq!(
        figure["outline"][0]["text"],
        format!("see [图]((({short}))) and [x](notes)")
    );
    let back = json_payload(&s.call("outl_block_refs", json!({ "id": short })));
    assert_eq!(back["total"], 1, "{back}");
    assert!(!has_uuid(&back), "{back}");

    // An edit writes the UUID back, as a `((uuid))` target Logseq reads the same.
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": figure["outline"][0]["id"], "text": format!("see [图]((({short}))) again") }),
    ));
    assert_eq!(
        read(ws.path(), "pages/figure.md"),
        format!("- see [图]((({TARGET_UUID}))) again\n")
    );
    s.finish();
}

const PAGE_UUID: &str = "6a1f2e3d-4c5b-4a69-8877-665544332211";

#[test]
fn a_page_id_is_hidden_from_replies_and_kept_on_disk() {
    let page = format!("id:: {PAGE_UUID}\ntype:: note\n\n- first\n");
    let ws = workspace_with(&[
        ("pages/with id.md", page.as_str()),
        ("pages/refs.md", &format!("- see (({PAGE_UUID}))\n")),
    ]);
    let mut s = StdioSession::initialized(ws.path());
    let got = json_payload(&s.call("outl_page_get", json!({ "slug": "with id" })));
    assert_eq!(got["meta"]["properties"], json!({ "type": "note" }));
    let rendered = s.call("outl_page_render", json!({ "slug": "with id" }));
    let refs = json_payload(&s.call("outl_page_get", json!({ "slug": "refs" })));
    for reply in [&got, &rendered, &refs] {
        assert!(!reply.to_string().contains(PAGE_UUID), "{reply}");
    }

    // A write keeps the page's id line as it was.
    json_payload(&s.call(
        "outl_block_update",
        json!({ "id": got["outline"][0]["id"], "text": "first, edited" }),
    ));
    assert_eq!(
        read(ws.path(), "pages/with id.md"),
        page.replace("first", "first, edited")
    );
    s.finish();
}
