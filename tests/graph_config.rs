//! A graph's `logseq/config.edn` over MCP stdio: read as EDN, its problems reported by
//! `outl_workspace_info`, and the keys outl honours shaping what the tools see. The fixtures
//! are written here, in the style Logseq writes.

mod mcp_support;

use std::fs;
use std::path::Path;

use mcp_support::{StdioSession, json_payload};
use serde_json::json;

/// A config in the style of the one Logseq writes for a new graph.
const STYLED_CONFIG: &str = r###"{:meta/version 1

 ;; Workflow: :now (LATER/NOW) or :todo (TODO/DOING).
 :preferred-workflow :now

 ;; Folders and files left out of the graph.
 :hidden []

 ;; The title of a journal day, e.g. "Feb 26th, 2021".
 ;; :journal/page-title-format "MMM do, yyyy"

 :default-templates {:journals "## Plan\n- \"first\" thing"}
 :default-queries
 {:journals
  [{:title "🔨 NOW"
    :query [:find (pull ?h [*])
            :where [?h :block/marker ?m] [(contains? #{"NOW" "DOING"} ?m)]]
    :collapsed? false}]}
 :property-pages/enabled? true
 :macros {}
 :file/name-format :triple-lowbar}
"###;

/// A workspace holding `files` (path relative to it, content).
fn workspace_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    for (path, content) in files {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }
    dir
}

fn info(ws: &Path) -> serde_json::Value {
    let mut s = StdioSession::initialized(ws);
    let info = json_payload(&s.call("outl_workspace_info", json!({})));
    s.finish();
    info
}

fn page_names(ws: &Path) -> Vec<String> {
    let mut s = StdioSession::initialized(ws);
    let list = json_payload(&s.call("outl_page_list", json!({"kind": "all"})));
    s.finish();
    list["pages"]
        .as_array()
        .expect("pages")
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_config_in_logseqs_style_reads_without_problems() {
    let ws = workspace_with(&[
        ("logseq/config.edn", STYLED_CONFIG),
        ("pages/v1.2 notes.md", "- the dot is a dot\n"),
        ("pages/projects___apollo.md", "- a namespace\n"),
    ]);
    let info = info(ws.path());
    assert!(info.get("config_problems").is_none(), "{info}");
    assert_eq!(page_names(ws.path()), ["projects/apollo", "v1.2 notes"]);
}

#[test]
fn a_broken_config_is_reported_with_its_position_and_the_defaults_apply() {
    let broken = "{:preferred-workflow :todo\n ;; an unclosed vector\n :hidden [\"archived\"\n :file/name-format :triple-lowbar}\n";
    let ws = workspace_with(&[
        ("logseq/config.edn", broken),
        (
            "pages/v1.2 notes.md",
            "- on the legacy format a dot is a namespace\n",
        ),
    ]);
    let info = info(ws.path());
    let problems = info["config_problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 1, "{info}");
    let problem = &problems[0];
    assert_eq!(problem["file"], "logseq/config.edn");
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .starts_with("not EDN: "),
        "{problem}"
    );
    assert_eq!(problem["line"], 4);
    assert!(
        problem["column"].as_u64().is_some_and(|c| c > 0),
        "{problem}"
    );
    // The graph opens, on the defaults: the legacy file name format.
    assert_eq!(info["pages"], 1);
    assert_eq!(page_names(ws.path()), ["v1/2 notes"]);
}

#[test]
fn a_value_of_the_wrong_type_is_reported_and_keeps_its_default() {
    let ws = workspace_with(&[(
        "logseq/config.edn",
        "{:journal/page-title-format \"MMM yyyy\" :file/name-format :triple-lowbar}",
    )]);
    let info = info(ws.path());
    let problems = info["config_problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 1, "{info}");
    let message = problems[0]["message"].as_str().unwrap();
    assert!(message.contains(":journal/page-title-format"), "{message}");
    assert!(problems[0].get("line").is_none());
}
