//! A graph's `logseq/config.edn` over MCP stdio: read as EDN, its problems reported by
//! `outl_workspace_info`, and the keys outl honours shaping what the tools see. The fixtures
//! are written here, in the style Logseq writes.

use std::fs;
use std::path::Path;

use crate::mcp_support::{StdioSession, column, json_payload, tool_error, workspace_with};
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
    let described = info(ws.path());
    assert!(described.get("config_problems").is_none(), "{described}");
    assert_eq!(described["task_markers"], json!(["LATER", "NOW"]));
    assert_eq!(page_names(ws.path()), ["projects/apollo", "v1.2 notes"]);

    // The workflow of TODO and DOING names those markers for the tasks written to the graph.
    let todo_config =
        STYLED_CONFIG.replace(":preferred-workflow :now", ":preferred-workflow :todo");
    fs::write(ws.path().join("logseq/config.edn"), todo_config).expect("the config");
    assert_eq!(info(ws.path())["task_markers"], json!(["TODO", "DOING"]));
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

/// A graph on the default title format (`MMM do, yyyy`), its days linked in every way Logseq
/// reads.
fn default_format_graph() -> tempfile::TempDir {
    workspace_with(&[
        ("logseq/config.edn", STYLED_CONFIG),
        ("journals/2021_02_26.md", "- worked on [[Project X]]\n"),
        (
            "pages/Project X.md",
            "- kickoff on [[Feb 26th, 2021]]\n\
             - review on [[feb 26TH, 2021]] and [[2021-02-26]]\n\
             \t- tagged #[[Feb 26th, 2021]]\n\
             - next on [[Mar 1st, 2021]]\n\
             - not a day: [[Feb 30th, 2021]]\n",
        ),
        (
            "pages/Notes.md",
            "date:: [[Feb 26th, 2021]]\n\n- a note, filed by file name [[2021_02_26]]\n",
        ),
    ])
}

#[test]
fn a_day_linked_by_its_title_is_that_journal_day() {
    let ws = default_format_graph();
    let mut s = StdioSession::initialized(ws.path());

    let backlinks = json_payload(&s.call("outl_page_backlinks", json!({"slug": "2021-02-26"})));
    assert_eq!(backlinks["total"], 5, "{backlinks}");
    assert_eq!(
        column(&backlinks["backlinks"], "page"),
        ["notes", "notes", "project x", "project x", "project x"]
    );
    let by_title = json_payload(&s.call("outl_page_backlinks", json!({"slug": "Feb 26th, 2021"})));
    assert_eq!(by_title, backlinks);

    let day = json_payload(&s.call("outl_page_get", json!({"slug": "Feb 26th, 2021"})));
    assert_eq!(day["slug"], "2021-02-26");
    assert!(
        day["meta"].get("name").is_none(),
        "the slug names the day: {day}"
    );
    // A title and no name: a journal day.
    assert_eq!(day["meta"]["title"], "Feb 26th, 2021");
    for name in ["feb 26th, 2021", "2021_02_26", "2021-02-26"] {
        let again = json_payload(&s.call("outl_page_get", json!({"slug": name})));
        assert_eq!(again["slug"], "2021-02-26", "{name}");
    }
    let page = json_payload(&s.call("outl_page_get", json!({"slug": "Project X"})));
    assert!(page["meta"].get("title").is_none(), "{page}");
    assert_eq!(page["meta"]["name"], "Project X");

    let links = json_payload(&s.call("outl_links", json!({"slug": "Project X"})));
    assert_eq!(
        column(&links["links"], "page"),
        ["2021-02-26", "2021-03-01", "feb 30th, 2021"]
    );
    assert_eq!(links["links"][0]["exists"], true);
    assert_eq!(links["links"][1]["exists"], false);

    let tagged = json_payload(&s.call("outl_tag_get", json!({"tag": "Feb 26th, 2021"})));
    assert_eq!(tagged["total"], 1, "{tagged}");

    let missing = tool_error(&s.call("outl_page_get", json!({"slug": "Mar 1st, 2021"})));
    assert_eq!(missing["code"], "PAGE_NOT_FOUND");
    s.finish();
}

#[test]
fn a_page_created_by_a_days_title_is_that_journal_day() {
    let ws = default_format_graph();
    let mut s = StdioSession::initialized(ws.path());
    let created = json_payload(&s.call(
        "outl_page_create",
        json!({"name": "Mar 1st, 2021", "md": "- the day after"}),
    ));
    assert_eq!(created["slug"], "2021-03-01", "{created}");
    assert!(ws.path().join("journals/2021_03_01.md").exists());
    let day = json_payload(&s.call("outl_page_get", json!({"slug": "2021-03-01"})));
    assert_eq!(day["meta"]["title"], "Mar 1st, 2021", "{day}");
    assert!(day["meta"].get("name").is_none(), "{day}");
    let backlinks = json_payload(&s.call("outl_page_backlinks", json!({"slug": "2021-03-01"})));
    assert_eq!(backlinks["total"], 1);

    let renamed = tool_error(&s.call(
        "outl_page_rename",
        json!({"slug": "Notes", "new_name": "Mar 2nd, 2021"}),
    ));
    assert_eq!(renamed["code"], "INVALID_ARGUMENTS");
    s.finish();
}

/// A config with its own title and file name formats.
const CUSTOM_FORMAT_CONFIG: &str = r#"{:preferred-workflow :todo
 ;; Titles like "Fri, 26.02.2021", files like 2021-02-26.md.
 :journal/page-title-format "EEE, dd.MM.yyyy"
 :journal/file-name-format "yyyy-MM-dd"
 :file/name-format :triple-lowbar}
"#;

#[test]
fn a_custom_title_format_names_days_and_new_days_get_its_file_names() {
    let ws = workspace_with(&[
        ("logseq/config.edn", CUSTOM_FORMAT_CONFIG),
        (
            "journals/2021-02-26.md",
            "- a day in the custom file format\n",
        ),
        (
            "journals/2021_02_25.md",
            "- a day in the default file format\n",
        ),
        (
            "pages/Plan.md",
            "- on [[Fri, 26.02.2021]] and [[fri, 26.02.2021]]\n\
             - the default title still reads: [[Feb 26th, 2021]]\n\
             - the day before: [[Thu, 25.02.2021]]\n",
        ),
    ]);
    let mut s = StdioSession::initialized_with(ws.path(), &[("OUTL_TODAY", "2021-03-01")]);

    let backlinks =
        json_payload(&s.call("outl_page_backlinks", json!({"slug": "Fri, 26.02.2021"})));
    assert_eq!(backlinks["total"], 2, "{backlinks}");
    let before = json_payload(&s.call("outl_page_get", json!({"slug": "Thu, 25.02.2021"})));
    assert_eq!(before["slug"], "2021-02-25");
    assert_eq!(before["meta"]["title"], "Thu, 25.02.2021");

    let today = json_payload(&s.call("outl_daily_today", json!({})));
    assert_eq!(today["date"], "2021-03-01");
    assert_eq!(today["meta"]["title"], "Mon, 01.03.2021");
    assert!(ws.path().join("journals/2021-03-01.md").exists());
    let listed = json_payload(&s.call(
        "outl_page_list",
        json!({"kind": "journal", "prefix": "2021-03-01", "details": true}),
    ));
    assert_eq!(
        listed["pages"][0]["file"], "journals/2021-03-01.md",
        "{listed}"
    );

    let appended = json_payload(&s.call(
        "outl_daily_append",
        json!({"date": "2021-03-02", "md": "- planned"}),
    ));
    assert_eq!(appended["date"], "2021-03-02");
    assert!(ws.path().join("journals/2021-03-02.md").exists());
    s.finish();

    let info = info(ws.path());
    assert_eq!(info["journals"], 4, "{info}");
}

#[test]
fn property_values_are_references_as_logseq_counts_them() {
    let ws = workspace_with(&[
        (
            "logseq/config.edn",
            "{:property/separated-by-commas #{:authors}\n :ignored-page-references-keywords #{:source}}",
        ),
        (
            "pages/reading.md",
            "- Dune\n  type:: [[Book]]\n  authors:: Ann, [[Bob Lee]]\n  related:: #scifi\n  source:: [[Book]]\n- Notes\n  type:: #book\n",
        ),
        ("pages/Ann.md", "- a writer\n"),
        ("pages/Book.md", "- a kind of thing\n"),
        ("pages/scifi.md", "- a genre\n"),
    ]);
    let mut s = StdioSession::initialized(ws.path());

    // A bare name links in a key the config splits at commas; `#x` in a value is a tag.
    let ann = json_payload(&s.call("outl_page_backlinks", json!({ "slug": "ann" })));
    assert_eq!(column(&ann["backlinks"], "text"), ["Dune"]);
    // A page no file holds, which Logseq lists because a link makes it, has backlinks too.
    let bob = json_payload(&s.call("outl_page_backlinks", json!({ "slug": "Bob Lee" })));
    assert_eq!(column(&bob["backlinks"], "text"), ["Dune"]);
    let scifi = json_payload(&s.call("outl_tag_get", json!({ "tag": "scifi" })));
    assert_eq!(column(&scifi["hits"], "text"), ["Dune"]);
    // A key the config ignores links nothing: Book's backlinks are the two `type::` values.
    let book = json_payload(&s.call("outl_page_backlinks", json!({ "slug": "book" })));
    assert_eq!(book["total"], 2, "{book}");

    // Values compare as Logseq shows them: `[[Book]]`, `#book` and `book` are one value.
    for value in ["Book", "[[book]]", "#Book"] {
        let hits = json_payload(&s.call(
            "outl_property_query",
            json!({ "key": "type", "value": value }),
        ));
        assert_eq!(
            column(&hits["hits"], "text"),
            ["Dune", "Notes"],
            "{value}: {hits}"
        );
    }

    // A rename rewrites a bare name in a comma-separated key.
    json_payload(&s.call(
        "outl_page_rename",
        json!({ "slug": "ann", "new_name": "Annie" }),
    ));
    assert!(
        fs::read_to_string(ws.path().join("pages/reading.md"))
            .unwrap()
            .contains("authors:: Annie, [[Bob Lee]]")
    );
    s.finish();
}
