//! A page edited by another program while `outl mcp` serves it: in place (as Logseq saves),
//! through a temp file renamed over it (as vim and most editors save), and by a sync tool that
//! replaces the file and keeps its size and modification time. Each time outl notices, freezes
//! the page (its writes get `PAGE_MARKDOWN_AHEAD_OF_LOG` with the data to act on), and after
//! `outl_page_reconcile` serves both outl's acknowledged writes and the outside edit, with the
//! ids of unchanged blocks kept, even when the other program saved a copy it read before outl
//! wrote. Pages another program adds, edits or deletes are served by later reads without any
//! write touching them. And a program that rewrites a page in a loop while sessions of
//! `outl serve` write it loses no version outl did not read first.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::mcp_support::{HttpServer, StdioSession, json_payload, tool_error};
use serde_json::{Value, json};

const PAGE: &str = "notes";
const FILE: &str = "pages/notes.md";

/// How the other program writes the file.
#[derive(Debug, Clone, Copy)]
enum Editor {
    /// Truncates the file and writes it again (Logseq, most scripts).
    InPlace,
    /// Writes a temp file beside it and renames it over (vim, VS Code, atomic savers).
    TempAndRename,
    /// Replaces the file with one of the same size and puts the old modification time back
    /// (sync tools that carry modification times across machines).
    SameSizeAndTime,
}

impl Editor {
    fn write(self, path: &Path, new: &str) {
        match self {
            Editor::InPlace => std::fs::write(path, new).expect("write in place"),
            Editor::TempAndRename => {
                let temp = path.with_file_name(".notes.md.swp");
                std::fs::write(&temp, new).expect("write the temp file");
                std::fs::rename(&temp, path).expect("rename over the page");
            }
            Editor::SameSizeAndTime => {
                let old = std::fs::metadata(path).expect("stat the page");
                assert_eq!(old.len(), new.len() as u64, "the edit keeps the size");
                let modified = old.modified().expect("a modification time");
                let temp = path.with_file_name(".notes.md.sync-tmp");
                std::fs::write(&temp, new).expect("write the temp file");
                File::options()
                    .write(true)
                    .open(&temp)
                    .and_then(|f| f.set_modified(modified))
                    .expect("carry the modification time");
                std::fs::rename(&temp, path).expect("rename over the page");
                let now = std::fs::metadata(path).expect("stat the page");
                assert_eq!(now.modified().ok(), Some(modified));
                assert_eq!(now.len(), old.len());
            }
        }
    }
}

/// `text → id` of every block of the page, as the server serves it.
fn ids_by_text(session: &mut StdioSession) -> BTreeMap<String, String> {
    let page = json_payload(&session.call("outl_page_get", json!({"slug": PAGE})));
    let mut out = BTreeMap::new();
    collect(&page["outline"], &mut out);
    out
}

fn collect(nodes: &Value, out: &mut BTreeMap<String, String>) {
    for node in nodes.as_array().into_iter().flatten() {
        let text = node["text"].as_str().expect("a text").to_owned();
        let id = node["id"].as_str().expect("an id").to_owned();
        assert!(out.insert(text, id).is_none(), "two blocks of one text");
        collect(&node["children"], out);
    }
}

/// Serves a page, writes to it through outl, lets `editor` change it, and checks the freeze,
/// the refusal, the reconcile and what is served after.
fn edit_outside(editor: Editor) {
    let ws = tempfile::tempdir().expect("temp workspace");
    let path: PathBuf = ws.path().join(FILE);
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    json_payload(&session.call(
        "outl_page_create",
        json!({"name": PAGE, "md": "- alpha\n- beta\n- gamma\n"}),
    ));
    let ids = ids_by_text(&mut session);

    // outl's own acknowledged writes.
    json_payload(&session.call("outl_page_append", json!({"slug": PAGE, "md": "- delta"})));
    json_payload(&session.call(
        "outl_block_update",
        json!({"id": ids["beta"], "text": "beta, by outl"}),
    ));
    let before_edit = std::fs::read_to_string(&path).expect("the page");
    assert_eq!(before_edit, "- alpha\n- beta, by outl\n- gamma\n- delta\n");
    let ids = ids_by_text(&mut session);

    // The other program's edit: one line changed, one block added. The same-size edit swaps
    // letters so that the size stays.
    let edited = match editor {
        Editor::SameSizeAndTime => before_edit.replace("gamma", "GAMMA"),
        _ => {
            before_edit.replace("- gamma\n", "- gamma, edited outside\n")
                + "- epsilon, from outside\n"
        }
    };
    // Modification times have a granularity; a real editor saves well after outl's write.
    std::thread::sleep(Duration::from_millis(20));
    editor.write(&path, &edited);

    // A write to the page is refused with what a caller needs to recover.
    let refused = session.call(
        "outl_block_update",
        json!({"id": ids["alpha"], "text": "alpha, overwritten"}),
    );
    let error = tool_error(&refused);
    assert_eq!(
        error["code"], "PAGE_MARKDOWN_AHEAD_OF_LOG",
        "{editor:?}: {refused}"
    );
    let data = &error["data"];
    assert_eq!(data["path"], FILE, "{data}");
    assert!(data["lines"].is_string(), "{data}");
    assert!(
        data["sample"].as_array().is_some_and(|sample| sample
            .iter()
            .any(|l| l.as_str().is_some_and(|l| l.starts_with('+')))),
        "the sample quotes the outside edit: {data}"
    );
    assert!(
        data["recovery_command"]
            .as_str()
            .is_some_and(|c| c.contains("outl_page_reconcile")),
        "{data}"
    );
    let appended = session.call("outl_page_append", json!({"slug": PAGE, "md": "- zeta"}));
    assert_eq!(tool_error(&appended)["code"], "PAGE_MARKDOWN_AHEAD_OF_LOG");
    assert_eq!(
        std::fs::read_to_string(&path).expect("the page"),
        edited,
        "{editor:?}: a refused write left the outside edit alone"
    );
    let info = json_payload(&session.call("outl_workspace_info", json!({})));
    assert_eq!(info["frozen"][0]["slug"], PAGE, "{info}");

    // Reconciling adopts the file; both sides' text is served, unchanged blocks keep ids.
    let reconciled = json_payload(&session.call("outl_page_reconcile", json!({"slug": PAGE})));
    assert_eq!(reconciled["reconciled"], true, "{reconciled}");
    let after = ids_by_text(&mut session);
    for text in ["alpha", "beta, by outl", "delta"] {
        assert_eq!(
            after.get(text),
            ids.get(text),
            "{editor:?}: the id of {text:?}"
        );
    }
    let outside: &[&str] = match editor {
        Editor::SameSizeAndTime => &["GAMMA"],
        _ => &["gamma, edited outside", "epsilon, from outside"],
    };
    for text in outside {
        assert!(
            after.contains_key(*text),
            "{editor:?}: lost {text:?}: {after:?}"
        );
    }
    let info = json_payload(&session.call("outl_workspace_info", json!({})));
    assert_eq!(info["frozen"], json!([]), "{info}");

    // Writes are accepted again, on top of the outside edit.
    json_payload(&session.call(
        "outl_block_update",
        json!({"id": after["alpha"], "text": "alpha, after reconcile"}),
    ));
    let file = std::fs::read_to_string(&path).expect("the page");
    assert!(file.contains("- alpha, after reconcile\n"), "{file}");
    for text in outside {
        assert!(file.contains(text), "{editor:?}: {file}");
    }
    session.finish();

    // A restart serves the same page, ids included.
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    let mut expected = after.clone();
    let alpha = expected.remove("alpha").expect("alpha");
    expected.insert("alpha, after reconcile".into(), alpha);
    assert_eq!(
        ids_by_text(&mut session),
        expected,
        "{editor:?}: after a restart"
    );
    session.finish();
}

#[test]
fn an_in_place_edit_is_frozen_then_reconciled() {
    edit_outside(Editor::InPlace);
}

#[test]
fn a_temp_file_renamed_over_the_page_is_frozen_then_reconciled() {
    edit_outside(Editor::TempAndRename);
}

#[test]
fn a_same_size_edit_that_keeps_the_modification_time_is_frozen_then_reconciled() {
    edit_outside(Editor::SameSizeAndTime);
}

/// An editor that read the page before outl wrote to it saves its stale copy over the page:
/// reconcile merges, keeping outl's acknowledged writes (with their ids) and the editor's edit.
#[test]
fn a_stale_copy_saved_over_the_page_loses_none_of_outls_writes() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let path = ws.path().join(FILE);
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    json_payload(&session.call(
        "outl_page_create",
        json!({"name": PAGE, "md": "- alpha\n- beta\n- gamma\n"}),
    ));
    let opened_in_editor = std::fs::read_to_string(&path).expect("the page");
    let ids = ids_by_text(&mut session);
    json_payload(&session.call("outl_page_append", json!({"slug": PAGE, "md": "- delta"})));
    json_payload(&session.call(
        "outl_block_update",
        json!({"id": ids["beta"], "text": "beta, by outl"}),
    ));
    let ids = ids_by_text(&mut session);

    std::thread::sleep(Duration::from_millis(20));
    let stale = opened_in_editor.replace("- gamma\n", "- gamma, edited in a stale buffer\n")
        + "- epsilon, from the stale buffer\n";
    Editor::TempAndRename.write(&path, &stale);
    let refused = session.call("outl_page_append", json!({"slug": PAGE, "md": "- zeta"}));
    assert_eq!(tool_error(&refused)["code"], "PAGE_MARKDOWN_AHEAD_OF_LOG");

    json_payload(&session.call("outl_page_reconcile", json!({"slug": PAGE})));
    let after = ids_by_text(&mut session);
    for text in ["alpha", "beta, by outl", "delta"] {
        assert_eq!(
            after.get(text),
            ids.get(text),
            "outl's {text:?} and its id: {after:?}"
        );
    }
    for text in [
        "gamma, edited in a stale buffer",
        "epsilon, from the stale buffer",
    ] {
        assert!(after.contains_key(text), "the editor's {text:?}: {after:?}");
    }
    assert_eq!(after.len(), 5, "nothing twice: {after:?}");
    let file = std::fs::read_to_string(&path).expect("the page");
    for text in after.keys() {
        assert!(
            file.contains(&format!("- {text}\n")),
            "{text:?} on disk: {file}"
        );
    }
    let info = json_payload(&session.call("outl_workspace_info", json!({})));
    assert_eq!(info["frozen"], json!([]), "{info}");
    json_payload(&session.call("outl_page_append", json!({"slug": PAGE, "md": "- zeta"})));
    session.finish();
}

/// Files another program writes while `outl mcp` serves the workspace are served by a later
/// read, though no write touches them: the server looks for them by itself.
#[test]
fn files_changed_outside_are_served_by_a_later_read() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    json_payload(&session.call("outl_page_create", json!({"name": PAGE, "md": "- alpha\n"})));
    json_payload(&session.call(
        "outl_page_create",
        json!({"name": "doomed", "md": "- soon gone\n"}),
    ));

    std::thread::sleep(Duration::from_millis(20));
    Editor::InPlace.write(&ws.path().join(FILE), "- alpha\n- beta, from outside\n");
    std::fs::write(
        ws.path().join("pages/dropped in.md"),
        "- from another program\n",
    )
    .expect("a new page");
    std::fs::remove_file(ws.path().join("pages/doomed.md")).expect("delete a page");

    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let notes = json_payload(&session.call("outl_page_get", json!({"slug": PAGE})));
        let dropped_in = session.call("outl_page_get", json!({"slug": "dropped in"}));
        let doomed = session.call("outl_page_get", json!({"slug": "doomed"}));
        if notes["outline"][1]["text"] == "beta, from outside"
            && dropped_in["result"]["isError"] != true
            && doomed["result"]["isError"] == true
        {
            assert_eq!(
                json_payload(&dropped_in)["outline"][0]["text"],
                "from another program"
            );
            assert_eq!(tool_error(&doomed)["code"], "PAGE_NOT_FOUND");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the outside changes were never served: {notes} {dropped_in} {doomed}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let info = json_payload(&session.call("outl_workspace_info", json!({})));
    assert_eq!(info["frozen"][0]["slug"], PAGE, "{info}");
    session.finish();
}

/// An edit made while outl is stopped is found when it opens the workspace.
#[test]
fn an_edit_made_while_outl_is_stopped_is_found_at_open() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    json_payload(&session.call(
        "outl_page_create",
        json!({"name": PAGE, "md": "- one\n- two\n"}),
    ));
    let ids = ids_by_text(&mut session);
    session.finish();

    let path = ws.path().join(FILE);
    let edited = std::fs::read_to_string(&path).expect("the page") + "- three\n";
    std::fs::write(&path, &edited).expect("edit");
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    let info = json_payload(&session.call("outl_workspace_info", json!({})));
    assert_eq!(info["frozen"][0]["slug"], PAGE, "{info}");
    let refused = session.call("outl_page_append", json!({"slug": PAGE, "md": "- four"}));
    assert_eq!(tool_error(&refused)["code"], "PAGE_MARKDOWN_AHEAD_OF_LOG");
    json_payload(&session.call("outl_page_reconcile", json!({"slug": PAGE})));
    let after = ids_by_text(&mut session);
    assert_eq!(after["one"], ids["one"]);
    assert_eq!(after["two"], ids["two"]);
    assert!(after.contains_key("three"), "{after:?}");
    session.finish();
}

/// Versions the other program writes in [`a_page_rewritten_in_a_loop_loses_no_version_outl_did_not_read`].
const LOOP_VERSIONS: usize = 400;

/// Another program rewrites the page in a loop, in place and by rename, while two sessions of
/// `outl serve` reconcile it and append to it. Whenever the program finds that its last version
/// was replaced, outl must have read that version first: it is in the op log, as what a
/// reconcile adopted or what a write started from. A write is acknowledged, or refused because
/// the page was edited outside outl; nothing else.
#[test]
fn a_page_rewritten_in_a_loop_loses_no_version_outl_did_not_read() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let path = ws.path().join(FILE);
    std::fs::create_dir_all(path.parent().unwrap()).expect("pages/");
    std::fs::write(&path, "- start\n").expect("the page");
    let server = HttpServer::start(ws.path(), &[]);
    let done = std::sync::atomic::AtomicBool::new(false);

    let (replaced, acknowledged) = std::thread::scope(|scope| {
        let program = scope.spawn(|| {
            let mut replaced = Vec::new();
            let mut last: Option<String> = None;
            for version in 0..LOOP_VERSIONS {
                // A version is replaced when it is gone from the page, not while outl holds
                // a write in its place for the moment its swap takes to check and undo.
                let now = std::fs::read_to_string(&path).expect("read the page");
                if let Some(last) = last.take().filter(|last| *last != now) {
                    std::thread::sleep(Duration::from_millis(20));
                    if std::fs::read_to_string(&path).expect("read the page") != last {
                        replaced.push(last);
                    }
                }
                let new = format!("- outside {version}\n  - its child\n");
                let editor = if version % 2 == 0 {
                    Editor::InPlace
                } else {
                    Editor::TempAndRename
                };
                editor.write(&path, &new);
                last = Some(new);
                // Bursts of quick saves, then a pause in which outl's writes can land.
                let pause = if version % 16 < 8 { 1 } else { 12 };
                std::thread::sleep(Duration::from_millis(pause));
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            replaced
        });
        let writers: Vec<_> = (0..2)
            .map(|writer| {
                let (server, done) = (&server, &done);
                scope.spawn(move || {
                    let session = server.session();
                    let mut acknowledged = 0;
                    for round in 0.. {
                        if done.load(std::sync::atomic::Ordering::Relaxed) {
                            break;
                        }
                        for (tool, args) in [
                            ("outl_page_reconcile", json!({"slug": PAGE})),
                            (
                                "outl_page_append",
                                json!({"slug": PAGE, "md": format!("- outl {writer}.{round}")}),
                            ),
                        ] {
                            let reply = session.call(tool, args);
                            if reply["result"]["isError"] == true {
                                let code = &tool_error(&reply)["code"];
                                assert!(
                                    code == "PAGE_MARKDOWN_AHEAD_OF_LOG" || code == "CONFLICT",
                                    "{tool}: {reply}"
                                );
                            } else if tool == "outl_page_append" {
                                acknowledged += 1;
                            }
                        }
                    }
                    acknowledged
                })
            })
            .collect();
        let replaced = program.join().expect("the other program");
        let acknowledged: usize = writers
            .into_iter()
            .map(|w| w.join().expect("a session"))
            .sum();
        (replaced, acknowledged)
    });
    assert!(acknowledged > 0, "no write of outl's went through");
    assert!(
        !replaced.is_empty(),
        "outl replaced none of the other program's versions"
    );

    // Every markdown of the page that outl read or wrote, from the op log's bodies.
    let log = std::fs::read_to_string(ws.path().join(".outl/oplog")).expect("the op log");
    let mut seen = std::collections::HashSet::new();
    for line in log.lines() {
        let (_, body) = line.split_once('\t').expect("header and body");
        let body: Value = serde_json::from_str(body).expect("a body");
        for page in body["pages"].as_array().into_iter().flatten() {
            for side in ["before", "after"] {
                if let Some(md) = page[side]["md"].as_str() {
                    seen.insert(md.to_owned());
                }
            }
        }
    }
    let unread: Vec<&String> = replaced.iter().filter(|v| !seen.contains(*v)).collect();
    assert!(
        unread.is_empty(),
        "outl replaced {} of {} replaced versions without reading them: {unread:?}",
        unread.len(),
        replaced.len()
    );
}
