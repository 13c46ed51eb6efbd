//! Markdown pages as Logseq writes them, in its current style and in older ones, read through
//! the tools over MCP stdio: every task marker Logseq knows.

use std::path::Path;

use crate::mcp_support::{StdioSession, column, json_payload, outline_nodes};
use serde_json::json;

/// Writes `files` (path relative to the workspace, content) into a fresh workspace.
fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    for (path, content) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create folder");
        std::fs::write(&path, content).expect("write a page");
    }
    dir
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).expect("read a page")
}

/// A journal day with a task of every marker Logseq reads, one of them in a heading.
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
";

#[test]
fn every_logseq_marker_is_a_task_in_its_own_spelling() {
    let ws = workspace(&[("journals/2024_05_20.md", TASKS)]);
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
            "TODO"
        ]
    );
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
    let ws = workspace(&[("pages/not links.md", NOT_LINKS)]);
    let mut s = StdioSession::initialized(ws.path());
    let tags = json_payload(&s.call("outl_tags", json!({})));
    assert_eq!(column(&tags["tags"], "tag"), ["real"]);
    let links = json_payload(&s.call("outl_links", json!({ "slug": "not links" })));
    assert_eq!(column(&links["links"], "page"), ["real", "real page"]);
    s.finish();
}
