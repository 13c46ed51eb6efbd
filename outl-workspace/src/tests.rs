//! Engine tests on real folders: ids, freezing, history, crash repair, traversal, the index.

use std::fs;
use std::path::Path;

use serde_json::json;

use super::disk::Durability;
use super::outside_edits::{Listing, Stamps};
use super::sidecar::Sidecar;
use super::*;
use chrono::NaiveDate;
use compact_str::CompactString;

fn write(root: &Path, file: &str, md: &str) {
    let path = root.join(file);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, md).unwrap();
}

fn ids_of(ws: &Workspace, slug: &str) -> Vec<(String, String)> {
    let snapshot = ws.snapshot();
    let page = snapshot
        .page(slug)
        .unwrap_or_else(|| panic!("no page {slug}"));
    page.blocks()
        .preorder()
        .iter()
        .map(|b| (b.text.clone(), b.id.to_string()))
        .collect()
}

fn id_of(ws: &Workspace, slug: &str, text: &str) -> String {
    ids_of(ws, slug)
        .into_iter()
        .find(|(t, _)| t == text)
        .unwrap_or_else(|| panic!("no block {text:?}"))
        .1
}

fn texts(ws: &Workspace, slug: &str) -> Vec<String> {
    ids_of(ws, slug).into_iter().map(|(t, _)| t).collect()
}

fn sample_workspace() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pages/Project X.md",
        "title:: Project X\ntags:: work\n- TODO Call [[Bob]] about #launch\n  priority:: high\n\t- child with a ((ref-target))\n- DONE shipped\n",
    );
    write(
        dir.path(),
        "pages/Bob.md",
        "- Bob works on [[Project X]]\n- referenced\n  id:: ref-target\n",
    );
    write(
        dir.path(),
        "journals/2026_11_30.md",
        "- met [[bob]] for lunch\n",
    );
    let ws = Workspace::open(dir.path()).unwrap();
    (dir, ws)
}

#[test]
fn opening_a_missing_folder_creates_a_workspace_and_a_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("notes");
    let ws = Workspace::open(&root).unwrap();
    assert!(root.join("pages").is_dir() && root.join("journals").is_dir());
    assert_eq!(ws.snapshot().page_count(), 0);
    fs::write(dir.path().join("file"), "x").unwrap();
    let err = Workspace::open(&dir.path().join("file")).err().unwrap();
    assert_eq!(err.code, ErrorCode::WorkspaceUnavailable);
}

#[test]
fn pages_are_read_with_names_slugs_and_kinds() {
    let (_dir, ws) = sample_workspace();
    let snapshot = ws.snapshot();
    let page = snapshot.resolve("PROJECT x").unwrap();
    assert_eq!(
        (page.slug.as_str(), page.name.as_str(), page.file.as_str()),
        ("project x", "Project X", "pages/Project X.md")
    );
    assert_eq!(page.blocks()[0].text, "TODO Call [[Bob]] about #launch");
    assert_eq!(page.blocks()[0].properties.get("priority").unwrap(), "high");
    let journal = snapshot.resolve("2026-11-30").unwrap();
    assert_eq!(
        journal.kind,
        PageKind::Journal {
            date: NaiveDate::from_ymd_opt(2026, 11, 30).unwrap()
        }
    );
    assert_eq!(snapshot.resolve("2026_11_30").unwrap().slug, "2026-11-30");
    assert!(ws.snapshot().block_count() >= 6);
    let id = &page.blocks()[0].id;
    assert_eq!(id.len(), 6);
    assert_eq!(snapshot.block(id).unwrap().page.slug, "project x");
    assert_eq!(snapshot.block(id).unwrap().path, vec![0]);
}

#[test]
fn ids_survive_reopening_and_are_never_written_into_markdown() {
    let (dir, ws) = sample_workspace();
    let before = ids_of(&ws, "project x");
    let md_before = fs::read_to_string(dir.path().join("pages/Project X.md")).unwrap();
    drop(ws);
    let ws = Workspace::open(dir.path()).unwrap();
    assert_eq!(ids_of(&ws, "project x"), before);
    assert_eq!(
        fs::read_to_string(dir.path().join("pages/Project X.md")).unwrap(),
        md_before
    );

    ws.edit(OpKind::BlockUpdate, &["project x"], |pages| {
        pages[0].blocks_mut()[1].text = "DONE shipped twice".into();
        Ok(())
    })
    .unwrap();
    let after_edit = ids_of(&ws, "project x");
    drop(ws);
    let ws = Workspace::open(dir.path()).unwrap();
    assert_eq!(ids_of(&ws, "project x"), after_edit);
    let md = fs::read_to_string(dir.path().join("pages/Project X.md")).unwrap();
    for (_, id) in after_edit {
        assert!(!md.contains(&id), "{id} written into {md}");
    }
}

#[test]
fn user_id_property_is_the_block_id() {
    let (_dir, ws) = sample_workspace();
    let snapshot = ws.snapshot();
    let block = snapshot.block("ref-target").unwrap();
    assert_eq!(block.page.slug, "bob");
    assert_eq!(block.block().properties.get("id").unwrap(), "ref-target");
}

#[test]
fn replacing_a_page_keeps_the_ids_of_unchanged_blocks() {
    let (_dir, ws) = sample_workspace();
    let call = id_of(&ws, "project x", "TODO Call [[Bob]] about #launch");
    let shipped = id_of(&ws, "project x", "DONE shipped");
    let new_md = "- a new first block\n- TODO Call [[Bob]] about #launch\n- DONE shipped\n";
    ws.edit(OpKind::PageUpdate, &["project x"], |pages| {
        let mut blocks = ws.parse_blocks(new_md);
        carry_ids(&pages[0].blocks(), &mut blocks);
        pages[0].body = blocks.into();
        Ok(())
    })
    .unwrap();
    assert_eq!(
        id_of(&ws, "project x", "TODO Call [[Bob]] about #launch"),
        call
    );
    assert_eq!(id_of(&ws, "project x", "DONE shipped"), shipped);
    let fresh = id_of(&ws, "project x", "a new first block");
    assert!(fresh != call && fresh != shipped && fresh.len() == 6);
}

#[test]
fn parse_blocks_gives_fresh_unique_ids() {
    let (_dir, ws) = sample_workspace();
    let blocks = ws.parse_blocks("- one\n\t- two\n- three\n");
    let ids: Vec<&str> = vec![&blocks[0].id, &blocks[0].children[0].id, &blocks[1].id]
        .into_iter()
        .map(CompactString::as_str)
        .collect();
    assert!(
        ids.iter()
            .all(|id| id.len() == 6 && ws.snapshot().block(id).is_none())
    );
    assert_ne!(ids[0], ids[1]);
}

#[test]
fn an_external_edit_freezes_the_page_until_reconciled() {
    let (dir, ws) = sample_workspace();
    let call = id_of(&ws, "project x", "TODO Call [[Bob]] about #launch");
    let shipped = id_of(&ws, "project x", "DONE shipped");
    let file = dir.path().join("pages/Project X.md");
    let md = fs::read_to_string(&file).unwrap();
    fs::write(
        &file,
        md.replace(
            "- DONE shipped\n",
            "- DONE shipped\n- added in another editor\n",
        ),
    )
    .unwrap();

    let err = ws.edit(OpKind::BlockUpdate, &["project x"], |pages| {
        pages[0].blocks_mut()[0].text = "changed".into();
        Ok(())
    });
    let err = err.unwrap_err();
    assert_eq!(err.code, ErrorCode::PageMarkdownAheadOfLog);
    let data = err.data.unwrap();
    assert_eq!(data["path"], "pages/Project X.md");
    assert_eq!(data["lines"], "7");
    assert_eq!(data["sample"], json!(["+ - added in another editor"]));
    assert_eq!(
        data["recovery_command"],
        r#"outl call outl_page_reconcile --args '{"slug":"project x"}'"#
    );

    // Reads see the new content, with the old ids where blocks did not change.
    assert_eq!(id_of(&ws, "project x", "DONE shipped"), shipped);
    assert!(texts(&ws, "project x").contains(&"added in another editor".to_string()));
    assert!(ws.snapshot().frozen_page("project x").is_some());
    assert_eq!(
        ws.delete_page("project x").unwrap_err().code,
        ErrorCode::PageMarkdownAheadOfLog
    );

    let adopted = ws.reconcile("project x").unwrap().unwrap();
    assert_eq!(adopted.op.kind, OpKind::PageReconcile);
    assert!(ws.snapshot().frozen_page("project x").is_none());
    assert_eq!(
        id_of(&ws, "project x", "TODO Call [[Bob]] about #launch"),
        call
    );
    assert_eq!(id_of(&ws, "project x", "DONE shipped"), shipped);
    let added = id_of(&ws, "project x", "added in another editor");
    // The file is adopted byte for byte, and stays adopted across a reopen.
    assert!(
        fs::read_to_string(&file)
            .unwrap()
            .contains("- added in another editor\n")
    );
    drop(ws);
    let ws = Workspace::open(dir.path()).unwrap();
    assert!(ws.snapshot().frozen_page("project x").is_none());
    assert_eq!(id_of(&ws, "project x", "added in another editor"), added);
    assert_eq!(ws.reconcile("project x").unwrap(), None);
    ws.edit(OpKind::BlockUpdate, &["project x"], |pages| {
        pages[0].blocks_mut()[0].text = "TODO call Bob".into();
        Ok(())
    })
    .unwrap();
}

#[test]
fn an_edit_made_while_closed_freezes_on_open() {
    let (dir, ws) = sample_workspace();
    let shipped = id_of(&ws, "project x", "DONE shipped");
    drop(ws);
    let file = dir.path().join("pages/Project X.md");
    let md = fs::read_to_string(&file).unwrap();
    fs::write(&file, md.replace("TODO Call", "DOING Call")).unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let frozen = ws.snapshot().frozen_page("project x").cloned().unwrap();
    assert_eq!(frozen.lines, "3");
    assert_eq!(id_of(&ws, "project x", "DONE shipped"), shipped);
    ws.reconcile("project x").unwrap().unwrap();
    assert_eq!(id_of(&ws, "project x", "DONE shipped"), shipped);
}

#[test]
fn refresh_picks_up_files_created_edited_and_deleted_outside() {
    let (dir, ws) = sample_workspace();
    write(dir.path(), "pages/New one.md", "- fresh\n");
    fs::remove_file(dir.path().join("pages/Bob.md")).unwrap();
    ws.refresh().unwrap();
    let snapshot = ws.snapshot();
    assert!(snapshot.page("new one").is_some());
    assert!(snapshot.page("bob").is_none());
    assert!(snapshot.block("ref-target").is_none());
    drop(snapshot);
    // The new page is writable at once; it is new, not ahead of the log.
    ws.edit(OpKind::BlockUpdate, &["new one"], |pages| {
        pages[0].blocks_mut()[0].text = "fresh and edited".into();
        Ok(())
    })
    .unwrap();
}

#[test]
fn create_rename_delete_and_journals() {
    let (dir, ws) = sample_workspace();
    let blocks = ws.parse_blocks("- first\n");
    let page = ws
        .create_page("Area/Sub", Default::default(), blocks)
        .unwrap();
    assert_eq!(
        (page.slug.as_str(), page.file.as_str()),
        ("area/sub", "pages/Area___Sub.md")
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("pages/Area___Sub.md")).unwrap(),
        "- first\n"
    );
    assert_eq!(
        ws.create_page("area/SUB", Default::default(), vec![])
            .unwrap_err()
            .code,
        ErrorCode::PageExists
    );

    let renamed = ws.rename_page("bob", "Robert").unwrap();
    assert_eq!(renamed.file, "pages/Robert.md");
    assert!(!dir.path().join("pages/Bob.md").exists());
    assert_eq!(
        texts(&ws, "project x")[0],
        "TODO Call [[Robert]] about #launch"
    );
    assert_eq!(texts(&ws, "2026-11-30")[0], "met [[Robert]] for lunch");
    assert_eq!(ws.snapshot().index().backlinks("robert").len(), 2);
    assert!(ws.snapshot().index().backlinks("bob").is_empty());
    assert_eq!(
        ws.snapshot().block("ref-target").unwrap().page.slug,
        "robert"
    );

    ws.delete_page("robert").unwrap();
    assert!(ws.snapshot().page("robert").is_none());
    assert!(!dir.path().join("pages/Robert.md").exists());

    let date = NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
    let day = ws.ensure_journal(date).unwrap();
    assert_eq!(
        (day.slug.as_str(), day.file.as_str()),
        ("2026-12-01", "journals/2026_12_01.md")
    );
    let ops = ws.log(100, None).unwrap().ops.len();
    ws.ensure_journal(date).unwrap();
    assert_eq!(
        ws.log(100, None).unwrap().ops.len(),
        ops,
        "reading an existing day wrote"
    );
}

#[test]
fn undo_and_redo_follow_editor_semantics() {
    let (dir, ws) = sample_workspace();
    let original = fs::read_to_string(dir.path().join("pages/Bob.md")).unwrap();
    let bob_ids = ids_of(&ws, "bob");
    ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
        pages[0].blocks_mut()[0].text = "Bob left".into();
        Ok(())
    })
    .unwrap();
    ws.ensure_journal(NaiveDate::from_ymd_opt(2030, 1, 1).unwrap())
        .unwrap();
    // The day a write created is undone like any write: its file goes.
    let undone = ws.undo(None).unwrap();
    assert_eq!(
        (undone.op.seq, undone.op.kind.as_str(), undone.logged.undoes),
        (2, "journal.create", Some(2))
    );
    assert_eq!(
        undone.summary,
        r#"reverts op 2 (journal.create): deletes page "2030-01-01""#
    );
    assert!(!dir.path().join("journals/2030_01_01.md").exists());
    let undone = ws.undo(None).unwrap();
    assert_eq!(undone.logged.undoes, Some(1));
    assert_eq!(
        undone.summary,
        r#"reverts op 1 (block.update): page "Bob": 1 block changed"#
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("pages/Bob.md")).unwrap(),
        original
    );
    assert_eq!(ids_of(&ws, "bob"), bob_ids);
    assert_eq!(ws.undo(None).unwrap_err().code, ErrorCode::NothingToUndo);
    ws.redo().unwrap();
    assert_eq!(texts(&ws, "bob")[0], "Bob left");
    let redone = ws.redo().unwrap();
    assert_eq!(redone.op.kind, OpKind::JournalCreate);
    assert!(dir.path().join("journals/2030_01_01.md").exists());
    assert_eq!(ws.redo().unwrap_err().code, ErrorCode::NothingToRedo);

    // A new edit clears the redo stack.
    ws.undo(None).unwrap();
    ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
        pages[0].blocks_mut()[0].text = "Bob stayed".into();
        Ok(())
    })
    .unwrap();
    assert_eq!(ws.redo().unwrap_err().code, ErrorCode::NothingToRedo);

    // Undoing a create deletes the page, and redo brings it back with its ids.
    let created = ws
        .create_page("Temp", Default::default(), ws.parse_blocks("- t\n"))
        .unwrap();
    ws.undo(None).unwrap();
    assert!(ws.snapshot().page("temp").is_none());
    ws.redo().unwrap();
    assert_eq!(ids_of(&ws, "temp")[0].1, created.blocks()[0].id);

    // The history survives a reopen.
    drop(ws);
    let ws = Workspace::open(dir.path()).unwrap();
    ws.undo(None).unwrap();
    assert!(ws.snapshot().page("temp").is_none());
    let log = ws.log(2, None).unwrap();
    assert_eq!(log.ops[0].kind, OpKind::Undo);
    assert!(log.next_cursor.is_some());
    let older = ws.log(100, log.next_cursor).unwrap();
    assert!(older.ops.iter().all(|op| op.seq < log.ops[1].seq));
}

#[test]
fn undo_refuses_to_clobber_a_later_change_and_names_it() {
    let (dir, ws) = sample_workspace();
    ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
        pages[0].blocks_mut()[0].text = "first".into();
        Ok(())
    })
    .unwrap();
    // Another session changed the page since.
    let other = ws.in_session(&Session::from("other"));
    other
        .edit(OpKind::BlockUpdate, &["bob"], |pages| {
            pages[0].blocks_mut()[0].text = "second".into();
            Ok(())
        })
        .unwrap();
    let err = ws.undo(None).unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(
        err.message.contains("op 2 (block.update) changed it"),
        "{}",
        err.message
    );
    let data = err.data.unwrap();
    assert_eq!(
        (&data["slug"], &data["changed_by"]),
        (&json!("bob"), &json!(2))
    );
    let file = dir.path().join("pages/Bob.md");
    assert!(fs::read_to_string(&file).unwrap().contains("second"));
    // The other session's undo is its own write, and then the first one can go too.
    assert_eq!(other.undo(None).unwrap().op.seq, 2);
    assert_eq!(ws.undo(None).unwrap().op.seq, 1);
    assert!(!fs::read_to_string(&file).unwrap().contains("first"));
}

#[test]
fn sessions_undo_their_own_writes_and_name_others() {
    let (dir, ws) = sample_workspace();
    let (a, b) = (
        ws.in_session(&Session::from("a")),
        ws.in_session(&Session::from("b")),
    );
    a.edit(OpKind::BlockUpdate, &["bob"], |pages| {
        pages[0].blocks_mut()[0].text = "by a".into();
        Ok(())
    })
    .unwrap();
    b.create_page("B's", Default::default(), ws.parse_blocks("- b\n"))
        .unwrap();
    // a's undo reverts a's write, not b's newer one.
    assert_eq!(a.undo(None).unwrap().op.seq, 1);
    assert!(ws.snapshot().page("b's").is_some());
    assert_eq!(a.undo(None).unwrap_err().code, ErrorCode::NothingToUndo);
    // An op named by its seq is undone whoever wrote it; undone already, it is refused.
    let undone = a.undo(Some(2)).unwrap();
    assert_eq!(undone.op.seq, 2);
    assert!(!dir.path().join("pages/B's.md").exists());
    let err = b.undo(Some(2)).unwrap_err();
    assert_eq!(err.code, ErrorCode::NothingToUndo);
    assert!(
        err.message.contains("undone already, by op 4"),
        "{}",
        err.message
    );
    assert_eq!(b.redo().unwrap_err().code, ErrorCode::NothingToRedo);
    // Naming an undo redoes its op.
    assert_eq!(b.undo(Some(4)).unwrap().logged.redoes, Some(2));
    assert!(ws.snapshot().page("b's").is_some());
    assert_eq!(
        ws.undo(Some(99)).unwrap_err().code,
        ErrorCode::InvalidArguments
    );
    // After a reopen each session's history is its own still.
    drop((a, b));
    let ws = reopen(ws, dir.path());
    let a = ws.in_session(&Session::from("a"));
    assert_eq!(a.redo().unwrap().op.seq, 1);
    assert_eq!(texts(&ws, "bob")[0], "by a");
}

#[test]
fn a_reconcile_is_undone_and_redone_like_a_write() {
    let (dir, ws) = sample_workspace();
    ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
        pages[0].blocks_mut()[0].text = "first".into();
        Ok(())
    })
    .unwrap();
    let file = dir.path().join("pages/Bob.md");
    let outls = fs::read_to_string(&file).unwrap();
    let theirs = outls.replace("first", "second");
    fs::write(&file, &theirs).unwrap();
    ws.reconcile("bob").unwrap().unwrap();
    let undone = ws.undo(None).unwrap();
    assert_eq!(undone.op.kind, OpKind::PageReconcile);
    assert_eq!(fs::read_to_string(&file).unwrap(), outls);
    ws.redo().unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), theirs);
}

#[test]
fn undo_of_a_rename_restores_file_and_links() {
    let (dir, ws) = sample_workspace();
    ws.rename_page("bob", "Robert").unwrap();
    ws.undo(None).unwrap();
    assert!(dir.path().join("pages/Bob.md").exists());
    assert!(!dir.path().join("pages/Robert.md").exists());
    assert_eq!(
        texts(&ws, "project x")[0],
        "TODO Call [[Bob]] about #launch"
    );
    assert_eq!(ws.snapshot().block("ref-target").unwrap().page.slug, "bob");
}

#[test]
fn a_logged_op_whose_pages_were_not_written_is_rolled_forward_on_open() {
    let (dir, ws) = sample_workspace();
    let file = dir.path().join("pages/Bob.md");
    let before = fs::read_to_string(&file).unwrap();
    let sidecar_before = fs::read(sidecar::path(ws.root(), "pages/Bob.md")).unwrap();
    ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
        pages[0].blocks_mut()[0].text = "rolled forward".into();
        Ok(())
    })
    .unwrap();
    let after = fs::read_to_string(&file).unwrap();
    drop(ws);
    // As if the process died right after the log append: the page and sidecar are old.
    fs::write(&file, &before).unwrap();
    fs::write(sidecar::path(dir.path(), "pages/Bob.md"), sidecar_before).unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), after);
    assert!(ws.snapshot().frozen_page("bob").is_none());
    assert_eq!(texts(&ws, "bob")[0], "rolled forward");
}

#[test]
fn a_torn_log_line_is_dropped_and_writing_goes_on() {
    let (dir, ws) = sample_workspace();
    ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
        pages[0].blocks_mut()[0].text = "kept".into();
        Ok(())
    })
    .unwrap();
    drop(ws);
    let log = dir.path().join(".outl/oplog");
    let mut bytes = fs::read(&log).unwrap();
    bytes.extend_from_slice(b"{\"seq\":2,\"ts\":1,\"kind\":\"torn");
    fs::write(&log, bytes).unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    assert_eq!(texts(&ws, "bob")[0], "kept");
    ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
        pages[0].blocks_mut()[0].text = "again".into();
        Ok(())
    })
    .unwrap();
    assert_eq!(
        ws.log(10, None)
            .unwrap()
            .ops
            .iter()
            .map(|o| o.seq)
            .collect::<Vec<_>>(),
        [2, 1]
    );
}

#[test]
fn nothing_can_reach_outside_the_workspace() {
    let (dir, ws) = sample_workspace();
    for name in ["../../escape", "/etc/passwd", "..", "a/../../b", "C:\\evil"] {
        let page = ws.create_page(name, Default::default(), vec![]).unwrap();
        let path = ws.root().join(&page.file);
        assert!(
            path.parent().unwrap() == ws.root().join("pages"),
            "{name:?} → {}",
            page.file
        );
        assert_eq!(ws.snapshot().resolve(name).unwrap().file, page.file);
    }
    for name in ["bad\0name", "line\nbreak"] {
        assert_eq!(
            ws.create_page(name, Default::default(), vec![])
                .unwrap_err()
                .code,
            ErrorCode::PathOutsideWorkspace
        );
    }
    assert_eq!(
        ws.resolve_path("../x").unwrap_err().code,
        ErrorCode::PathOutsideWorkspace
    );
    assert_eq!(
        ws.resolve_path("/etc/passwd").unwrap_err().code,
        ErrorCode::PathOutsideWorkspace
    );
    assert!(ws.resolve_path("exports/out.md").is_ok());

    // A page file that is a symlink to outside is not read.
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.md"), "- secret\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        dir.path().join("pages/secret.md"),
    )
    .unwrap();
    ws.refresh().unwrap();
    assert!(ws.snapshot().page("secret").is_none());
    assert!(
        ws.snapshot()
            .skipped()
            .iter()
            .any(|s| s.file == "pages/secret.md")
    );

    // A pages/ folder that leads outside refuses to open.
    let other = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), other.path().join("pages")).unwrap();
    assert_eq!(
        Workspace::open(other.path()).err().unwrap().code,
        ErrorCode::PathOutsideWorkspace
    );
}

#[test]
fn two_files_for_one_slug_are_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pages/Dup.md", "- canonical\n");
    write(dir.path(), "pages/dup.md", "- other\n");
    write(dir.path(), "pages/x.md", "title:: DUP\n- titled\n");
    let ws = Workspace::open(dir.path()).unwrap();
    let snapshot = ws.snapshot();
    assert_eq!(snapshot.page("dup").unwrap().file, "pages/Dup.md");
    let shadowed: Vec<&str> = snapshot
        .shadowed()
        .iter()
        .map(|s| s.file.as_str())
        .collect();
    assert_eq!(shadowed, ["pages/dup.md", "pages/x.md"]);
}

#[test]
fn index_answers_links_tags_tasks_properties_and_refs() {
    let (_dir, ws) = sample_workspace();
    let snapshot = ws.snapshot();
    let index = snapshot.index();
    assert_eq!(index.links("project x"), ["work", "bob", "launch"]);
    let backlinks = index.backlinks("bob");
    let sources: Vec<&str> = backlinks.iter().map(|h| h.slug.as_str()).collect();
    assert_eq!(sources, ["2026-11-30", "project x"]);
    assert_eq!(
        index.backlinks("project x")[0].block.as_deref(),
        Some(id_of(&ws, "bob", "Bob works on [[Project X]]").as_str())
    );
    assert_eq!(index.tagged("Launch").len(), 1);
    assert_eq!(
        index.tagged("work"),
        [Holder {
            slug: "project x".into(),
            block: None
        }]
    );
    let todo = index.tasks(TaskMarker::Todo);
    assert_eq!(todo.len(), 1);
    assert_eq!(index.tasks(TaskMarker::Done)[0].slug, "project x");
    assert_eq!(index.with_property("priority", Some("high")).len(), 1);
    assert_eq!(index.property_values("title"), [("Project X", 1)]);
    assert_eq!(index.block_refs("ref-target")[0].slug, "project x");
}

#[test]
fn index_follows_writes() {
    let (_dir, ws) = sample_workspace();
    ws.edit(OpKind::BlockUpdate, &["project x"], |pages| {
        pages[0].blocks_mut()[0].text = "DONE Called [[Alice]]".into();
        Ok(())
    })
    .unwrap();
    let snapshot = ws.snapshot();
    let index = snapshot.index();
    assert!(index.tasks(TaskMarker::Todo).is_empty());
    assert_eq!(index.tasks(TaskMarker::Done).len(), 2);
    assert_eq!(index.backlinks("alice").len(), 1);
    assert_eq!(index.backlinks("bob").len(), 1);
    assert!(index.tagged("launch").is_empty());
    assert_eq!(snapshot.search("called alice").len(), 1);
    // `call` is the stem of `Called`; the words the edit removed are gone.
    assert_eq!(snapshot.search("call").len(), 1);
    assert!(snapshot.search("about launch").is_empty());
}

#[test]
fn search_ranks_and_snippets() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "pages/a.md",
        "- rust rust rust is fast\n- rust and go\n- the quick brown fox jumps over the lazy dog while rust compiles slowly in the background of a very long block\n",
    );
    write(dir.path(), "pages/b.md", "- Go is simple\n- brown fox\n");
    let ws = Workspace::open(dir.path()).unwrap();
    let snapshot = ws.snapshot();
    let hits = snapshot.search("Rust");
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0].snippet, "rust rust rust is fast");
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    // Terms are AND-ed.
    let both = snapshot.search("rust go");
    assert_eq!(both.len(), 1);
    assert_eq!(both[0].snippet, "rust and go");
    // A phrase must appear in order.
    assert_eq!(snapshot.search("\"brown fox\"").len(), 2);
    assert_eq!(snapshot.search("\"fox brown\"").len(), 0);
    let long = &snapshot.search("compiles")[0];
    assert!(
        long.snippet.starts_with('…') && long.snippet.ends_with('…'),
        "{}",
        long.snippet
    );
    assert!(long.snippet.contains("rust compiles slowly"));
    assert!(snapshot.search("").is_empty());
    assert!(snapshot.search("absent").is_empty());
}

#[test]
fn workspace_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Workspace>();
}

#[test]
fn parse_page_keeps_page_properties_and_gives_fresh_ids() {
    let (_dir, ws) = sample_workspace();
    let (properties, blocks) = ws.parse_page("tags:: work\n\n- one\n\t- two\n");
    assert_eq!(properties.get("tags").map(String::as_str), Some("work"));
    assert_eq!(blocks[0].text, "one");
    assert_eq!(blocks[0].children[0].text, "two");
    assert!(
        [&blocks[0].id, &blocks[0].children[0].id]
            .iter()
            .all(|id| id.len() == 6 && ws.snapshot().block(id).is_none())
    );
    assert!(ws.parse_blocks("tags:: work\n- one\n").len() == 1);
}

#[test]
fn op_body_holds_the_ids_before_and_after() {
    let (_dir, ws) = sample_workspace();
    let before: Vec<String> = ids_of(&ws, "bob").into_iter().map(|(_, id)| id).collect();
    let op = ws.delete_page("bob").unwrap();
    let body = ws.op_body(op.seq).unwrap();
    assert_eq!(body.pages.len(), op.pages.len());
    let change = &body.pages[0];
    assert_eq!(change.before.as_ref().map(|c| &c.ids), Some(&before));
    assert!(change.after.is_none());
    assert_eq!(
        ws.op_body(op.seq + 1).unwrap_err().code,
        ErrorCode::InvalidArguments
    );
}

#[test]
fn a_second_instance_sees_the_first_ones_writes_and_writes_on_top() {
    let (dir, first) = sample_workspace();
    let second = Workspace::open(dir.path()).unwrap();
    first
        .edit(OpKind::BlockUpdate, &["bob"], |pages| {
            pages[0].blocks_mut()[0].text = "from the first".into();
            Ok(())
        })
        .unwrap();
    let created = first
        .create_page("Shared", Default::default(), first.parse_blocks("- s\n"))
        .unwrap();
    // Reads catch up with the log; ids are the writer's.
    assert_eq!(texts(&second, "bob")[0], "from the first");
    assert_eq!(ids_of(&second, "shared")[0].1, created.blocks()[0].id);
    second
        .edit(OpKind::BlockUpdate, &["bob"], |pages| {
            pages[0].blocks_mut()[1].text = "from the second".into();
            Ok(())
        })
        .unwrap();
    assert_eq!(
        texts(&first, "bob")[..2],
        ["from the first", "from the second"]
    );
    assert!(first.snapshot().frozen_page("bob").is_none());
    // Undo in the first instance reverts the second's op: history is the workspace's.
    first.undo(None).unwrap();
    assert_eq!(texts(&second, "bob")[1], "referenced");
}

#[test]
fn reads_notice_files_changed_outside_after_a_while() {
    let (dir, ws) = sample_workspace();
    write(
        dir.path(),
        "pages/Dropped in.md",
        "- from another program\n",
    );
    let file = dir.path().join("pages/Bob.md");
    fs::write(&file, "- rewritten elsewhere\n").unwrap();
    std::thread::sleep(RESCAN_INTERVAL + Duration::from_millis(100));
    let snapshot = ws.snapshot();
    assert!(snapshot.page("dropped in").is_some());
    assert_eq!(
        snapshot.page("bob").unwrap().blocks()[0].text,
        "rewritten elsewhere"
    );
    assert!(snapshot.frozen_page("bob").is_some());
}

#[test]
fn a_rotated_log_keeps_recent_history_and_other_instances_reload() {
    let (dir, ws) = sample_workspace();
    let other = Workspace::open(dir.path()).unwrap();
    ws.lock_writer().log.set_segment_limit(1);
    for i in 0..5 {
        ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
            pages[0].blocks_mut()[0].text = format!("version {i}");
            Ok(())
        })
        .unwrap();
    }
    assert!(dir.path().join(".outl/oplog.1").exists());
    // The other instance missed ops that are gone from the log: it reads the pages again.
    other
        .edit(OpKind::BlockUpdate, &["bob"], |pages| {
            pages[0].blocks_mut()[1].text = "edited by the other".into();
            Ok(())
        })
        .unwrap();
    assert_eq!(
        texts(&other, "bob")[..2],
        ["version 4", "edited by the other"]
    );
    drop((ws, other));
    let ws = Workspace::open(dir.path()).unwrap();
    ws.undo(None).unwrap();
    assert_eq!(texts(&ws, "bob")[..2], ["version 4", "referenced"]);
    ws.undo(None).unwrap();
    assert_eq!(texts(&ws, "bob")[0], "version 3");
    let oldest = ws.log(100, None).unwrap().ops.last().unwrap().seq;
    assert!(
        oldest > 1,
        "history older than the previous segment is dropped"
    );
}

#[test]
fn a_copied_id_property_does_not_make_ids_unstable() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pages/a.md", "- original\n  id:: same-id\n");
    write(dir.path(), "pages/b.md", "- copy\n  id:: same-id\n");
    let ws = Workspace::open(dir.path()).unwrap();
    assert_eq!(id_of(&ws, "a", "original"), "same-id");
    let copy = id_of(&ws, "b", "copy");
    assert_ne!(copy, "same-id");
    drop(ws);
    let ws = Workspace::open(dir.path()).unwrap();
    assert_eq!(id_of(&ws, "a", "original"), "same-id");
    assert_eq!(id_of(&ws, "b", "copy"), copy);
}

#[test]
fn the_index_built_on_two_threads_matches_the_one_built_page_by_page() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..600 {
        let md = format!(
            "tags:: t{}\n\n- TODO call [[page {}]] about #topic{}\n\t- child ((ref{}))\n  prio:: p{}\n- DONE word{} shared words\n",
            i % 7,
            (i * 13) % 600,
            i % 11,
            i % 5,
            i % 3,
            i % 17
        );
        write(dir.path(), &format!("pages/page {i}.md"), &md);
    }
    let ws = Workspace::open(dir.path()).unwrap();
    let snapshot = ws.snapshot();
    let built = snapshot.index();
    let mut one_by_one = Index::default();
    for page in snapshot.pages() {
        one_by_one.update(None, Some(page), snapshot.config());
    }
    for slug in ["page 0", "page 13", "page 599", "t3", "topic4"] {
        assert_eq!(built.backlinks(slug), one_by_one.backlinks(slug), "{slug}");
        assert_eq!(built.links(slug), one_by_one.links(slug), "{slug}");
    }
    assert_eq!(built.tags(), one_by_one.tags());
    assert_eq!(
        built.tasks(TaskMarker::Todo),
        one_by_one.tasks(TaskMarker::Todo)
    );
    assert_eq!(
        built.property_values("prio"),
        one_by_one.property_values("prio")
    );
    assert_eq!(built.block_refs("ref2"), one_by_one.block_refs("ref2"));
    let hits = snapshot.search("shared word3");
    assert_eq!(hits.len(), 600 / 17 + 1);
    drop(snapshot);
    // The merged index keeps working incrementally.
    ws.edit(OpKind::BlockUpdate, &["page 3"], |pages| {
        pages[0].blocks_mut()[1].text = "DONE something else".into();
        Ok(())
    })
    .unwrap();
    assert_eq!(ws.snapshot().search("shared word3").len(), 600 / 17);
}

/// Polls `done` until it holds, failing after a bound far above any look's time.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting until {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn watcher_rounds(ws: &Workspace) -> usize {
    ws.watcher_counts.rounds.load(Ordering::Acquire)
}

fn watcher_refreshes(ws: &Workspace) -> usize {
    ws.watcher_counts.refreshes.load(Ordering::Acquire)
}

#[test]
fn the_outside_edit_watcher_notices_outside_edits_without_a_read() {
    let (dir, ws) = sample_workspace();
    let ws = Arc::new(ws);
    ws.watch_outside_edits_every(Duration::from_millis(10));
    write(
        dir.path(),
        "pages/Dropped in.md",
        "- from another program\n",
    );
    fs::write(dir.path().join("pages/Bob.md"), "- rewritten elsewhere\n").unwrap();
    fs::remove_file(dir.path().join("journals/2026_11_30.md")).unwrap();
    // The graph is read directly: a snapshot would be a read that could look by itself.
    wait_until("the three outside changes are in the graph", || {
        let graph = ws.graph();
        watcher_refreshes(&ws) >= 1
            && graph.page("dropped in").is_some()
            && graph.frozen_page("bob").is_some()
            && graph.page("2026-11-30").is_none()
    });
    let graph = ws.graph();
    assert_eq!(
        graph.page("bob").unwrap().blocks()[0].text,
        "rewritten elsewhere"
    );
    assert!(graph.block("ref-target").is_none());
}

#[test]
fn the_outside_edit_watcher_takes_no_lock_on_an_unchanged_workspace() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pages/Dup.md", "- canonical\n");
    write(dir.path(), "pages/dup.md", "- other\n");
    write(dir.path(), "pages/Plain.md", "- plain\n");
    let unreadable = dir.path().join("pages/broken.md");
    fs::write(&unreadable, [b'-', b' ', 0xff, 0xfe, b'\n']).unwrap();
    let ws = Arc::new(Workspace::open(dir.path()).unwrap());
    assert_eq!(ws.graph().shadowed().len(), 1);
    assert_eq!(ws.graph().skipped().len(), 1);
    ws.watch_outside_edits_every(Duration::from_millis(10));
    // The first round has no stamps of the shadowed and unreadable files and refreshes once;
    // the second starts after that refresh is done.
    wait_until("two rounds ran", || watcher_rounds(&ws) >= 2);

    // Held writer: a round that wanted to refresh would wait here for good.
    let writer = ws.lock_writer();
    let (rounds, refreshes) = (watcher_rounds(&ws), watcher_refreshes(&ws));
    wait_until(
        "three more rounds ran while a writer held the workspace",
        || watcher_rounds(&ws) >= rounds + 3,
    );
    assert_eq!(watcher_refreshes(&ws), refreshes);
    drop(writer);

    // A change to a file that is not served is a difference, and so, once that is seen, is a
    // shadowing page that goes away.
    fs::write(&unreadable, "- readable now\n").unwrap();
    wait_until("the file that could not be read is served", || {
        ws.graph().page("broken").is_some()
    });
    assert!(ws.graph().skipped().is_empty());
    fs::remove_file(dir.path().join("pages/Dup.md")).unwrap();
    wait_until("the shadowed file is served, by a second refresh", || {
        watcher_refreshes(&ws) >= refreshes + 2
            && ws
                .graph()
                .page("dup")
                .is_some_and(|p| p.file == "pages/dup.md")
    });
    assert!(ws.graph().shadowed().is_empty());
}

#[test]
fn the_outside_edit_watcher_does_not_take_outls_own_writes_for_outside_edits() {
    let (dir, ws) = sample_workspace();
    let last_seen = Listing::take(ws.root(), &ws.config().hidden).stamps;
    assert!(!ws.differs_from_disk(&Listing::take(ws.root(), &ws.config().hidden), &last_seen));
    ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
        pages[0].blocks_mut()[0].text = "edited by outl".into();
        Ok(())
    })
    .unwrap();
    let blocks = ws.parse_blocks("- new\n");
    ws.create_page("Fresh", Properties::new(), blocks).unwrap();
    ws.delete_page("2026-11-30").unwrap();
    // Three files moved since the last round, all by outl: the graph has them.
    let listing = Listing::take(ws.root(), &ws.config().hidden);
    let moved = listing
        .stamps
        .iter()
        .filter(|&(file, stamp)| last_seen.get(file) != Some(stamp))
        .count();
    assert_eq!(moved, 2);
    assert!(!listing.stamps.contains_key("journals/2026_11_30.md"));
    assert!(!ws.differs_from_disk(&listing, &last_seen));
    // An outside edit on top is a difference, and so is any file when nothing was seen yet.
    write(dir.path(), "pages/Bob.md", "- edited outside\n");
    assert!(ws.differs_from_disk(&Listing::take(ws.root(), &ws.config().hidden), &last_seen));
    let unchanged = Listing::take(ws.root(), &ws.config().hidden);
    ws.refresh().unwrap();
    assert!(!ws.differs_from_disk(&unchanged, &Stamps::default()));
    write(dir.path(), "pages/Later.md", "- later\n");
    assert!(ws.differs_from_disk(
        &Listing::take(ws.root(), &ws.config().hidden),
        &Stamps::default()
    ));
}

/// Opens the workspace at `root` again, after the cache the last open saved is written.
fn reopen(ws: Workspace, root: &Path) -> Workspace {
    drop(ws);
    Workspace::open(root).unwrap()
}

fn from_cache(ws: &Workspace) -> bool {
    ws.cache_loads.load(Ordering::Acquire) > 0
}

/// What reads of the whole graph see: every page with its block ids, the index's lists and a
/// search, and what is frozen, shadowed or skipped.
fn everything(ws: &Workspace) -> String {
    let graph = ws.snapshot();
    let pages: Vec<&Page> = graph.pages().collect();
    let index = graph.index();
    let frozen: Vec<&str> = graph.frozen().map(|f| f.path.as_str()).collect();
    format!(
        "{pages:#?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{frozen:?}\n{:?}\n{:?}\n{}",
        index.backlinks("bob"),
        index.tags(),
        index.tasks(TaskMarker::Todo),
        index.block_refs("ref-target"),
        graph.search("bob"),
        graph.shadowed(),
        graph.skipped(),
        graph.block_count(),
    )
}

/// Whether `ws` holds every page that has blocks packed.
fn all_packed(ws: &Workspace) -> bool {
    ws.snapshot()
        .pages()
        .all(|page| page.body.count() == 0 || page.body.is_packed())
}

#[test]
fn the_graph_holds_its_pages_packed_after_a_read_a_write_a_refresh_and_a_cache_open() {
    let (dir, ws) = sample_workspace();
    assert!(all_packed(&ws));
    ws.edit(OpKind::BlockUpdate, &["bob"], |pages| {
        pages[0].blocks_mut()[0].text = "edited".into();
        Ok(())
    })
    .unwrap();
    assert!(all_packed(&ws));
    write(
        dir.path(),
        "pages/Outside.md",
        "- written outside
	- a child
",
    );
    ws.refresh().unwrap();
    assert_eq!(ws.snapshot().page("outside").unwrap().body.count(), 2);
    assert!(all_packed(&ws));
    let ws = reopen(ws, dir.path());
    assert!(from_cache(&ws));
    assert!(all_packed(&ws));
    assert_eq!(
        ws.snapshot().page("bob").unwrap().blocks()[0].text,
        "edited"
    );
}

#[test]
fn a_reopened_workspace_comes_from_the_cache_as_a_full_read_would_give_it() {
    let (dir, ws) = sample_workspace();
    write(dir.path(), "pages/bob copy.md", "title:: Bob\n- shadowed\n");
    write(dir.path(), "pages/lone.md", "- a page\n");
    let ws = reopen(ws, dir.path());
    assert!(from_cache(&ws));
    // Edited outside outl while closed, created, deleted: each seen as a full read sees it.
    write(
        dir.path(),
        "pages/Bob.md",
        "- Bob works on [[Project X]] #again\n- referenced\n  id:: ref-target\n",
    );
    write(dir.path(), "journals/2026_12_01.md", "- TODO see [[bob]]\n");
    fs::remove_file(dir.path().join("pages/lone.md")).unwrap();
    let cached = reopen(ws, dir.path());
    assert!(from_cache(&cached));
    assert!(cached.snapshot().frozen_page("bob").is_some());
    let seen = everything(&cached);
    drop(cached);
    fs::remove_file(dir.path().join(".outl/cache")).unwrap();
    let read = Workspace::open(dir.path()).unwrap();
    assert!(!from_cache(&read));
    // A full read serves the graph as the cache it saves gives it back: saved before the
    // open returns, and the same as the cache's.
    assert!(dir.path().join(".outl/cache").exists());
    assert_eq!(everything(&read), seen);
    // A frozen page stays frozen through the cache.
    let cached = reopen(read, dir.path());
    assert!(from_cache(&cached));
    assert_eq!(everything(&cached), seen);
}

#[test]
fn the_writes_another_process_made_since_the_cache_are_read_from_their_files() {
    let (dir, ws) = sample_workspace();
    let first = reopen(ws, dir.path());
    assert!(from_cache(&first));
    // A second process opens from the same cache and writes; the cache stays as it was.
    let second = Workspace::open(dir.path()).unwrap();
    second
        .edit(OpKind::BlockUpdate, &["bob"], |pages| {
            pages[0].blocks_mut()[0].text = "from the second".into();
            Ok(())
        })
        .unwrap();
    second.rename_page("project x", "Project Y").unwrap();
    let created = second
        .create_page("Shared", Default::default(), second.parse_blocks("- s\n"))
        .unwrap();
    drop((first, second));
    let third = Workspace::open(dir.path()).unwrap();
    assert!(from_cache(&third));
    assert_eq!(texts(&third, "bob")[0], "from the second");
    assert!(third.snapshot().page("project x").is_none());
    assert!(third.snapshot().page("project y").is_some());
    assert_eq!(ids_of(&third, "shared")[0].1, created.blocks()[0].id);
    let seen = everything(&third);
    drop(third);
    fs::remove_file(dir.path().join(".outl/cache")).unwrap();
    let read = Workspace::open(dir.path()).unwrap();
    assert!(!from_cache(&read));
    // A full read serves the graph as the cache it saves gives it back: saved before the
    // open returns, and the same as the cache's.
    assert!(dir.path().join(".outl/cache").exists());
    assert_eq!(everything(&read), seen);
}

#[test]
fn a_damaged_or_foreign_cache_is_passed_over_and_written_anew() {
    let (dir, ws) = sample_workspace();
    let expected = everything(&ws);
    drop(ws);
    let cache = dir.path().join(".outl/cache");
    let mut bytes = fs::read(&cache).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    fs::write(&cache, &bytes).unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    assert!(!from_cache(&ws));
    assert_eq!(everything(&ws), expected);
    let mut ws = reopen(ws, dir.path());
    assert!(from_cache(&ws));
    // Not a cache at all, or cut short.
    let whole = fs::read(&cache).unwrap();
    for junk in [b"not a cache".to_vec(), whole[..100].to_vec()] {
        drop(ws);
        fs::write(&cache, junk).unwrap();
        ws = Workspace::open(dir.path()).unwrap();
        assert!(!from_cache(&ws));
        assert_eq!(everything(&ws), expected);
    }
}

#[test]
fn the_cache_is_saved_again_once_more_than_256_of_its_pages_moved() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..600 {
        write(
            dir.path(),
            &format!("pages/p{i}.md"),
            &format!("- page {i}\n"),
        );
    }
    write(dir.path(), "pages/P0 again.md", "title:: p0\n- shadowed\n");
    let ws = Workspace::open(dir.path()).unwrap();
    let cache = dir.path().join(".outl/cache");
    let ws = reopen(ws, dir.path());
    let saved = fs::read(&cache).unwrap();
    // The shadowed file, read at every open, and 200 pages edited or deleted keep the cache.
    for i in 1..200 {
        write(
            dir.path(),
            &format!("pages/p{i}.md"),
            &format!("- page {i}, edited\n"),
        );
    }
    fs::remove_file(dir.path().join("pages/p200.md")).unwrap();
    let ws = reopen(ws, dir.path());
    assert!(from_cache(&ws));
    assert!(ws.snapshot().frozen_page("p1").is_some());
    assert!(ws.snapshot().page("p200").is_none());
    let ws = reopen(ws, dir.path());
    assert!(
        fs::read(&cache).unwrap() == saved,
        "the cache was saved again"
    );
    // 57 more make it 257.
    for i in 201..258 {
        write(
            dir.path(),
            &format!("pages/p{i}.md"),
            &format!("- page {i}, edited\n"),
        );
    }
    drop(reopen(ws, dir.path()));
    assert!(
        fs::read(&cache).unwrap() != saved,
        "the cache was not saved again"
    );
    let ws = Workspace::open(dir.path()).unwrap();
    assert!(from_cache(&ws));
    assert_eq!(texts(&ws, "p257"), ["page 257, edited"]);
    assert!(ws.snapshot().page("p200").is_none());
}

#[test]
fn a_file_replaced_while_closed_with_its_old_mtime_put_back_is_read_despite_the_cache() {
    let (dir, ws) = sample_workspace();
    drop(ws);
    let file = dir.path().join("pages/Bob.md");
    let modified = fs::metadata(&file).unwrap().modified().unwrap();
    let md = fs::read_to_string(&file).unwrap();
    let edited = md.replace("Bob works", "Bob walks");
    assert_eq!(edited.len(), md.len());
    fs::write(&file, &edited).unwrap();
    let handle = fs::File::options().write(true).open(&file).unwrap();
    handle.set_modified(modified).unwrap();
    drop(handle);
    let ws = Workspace::open(dir.path()).unwrap();
    assert!(from_cache(&ws));
    assert!(ws.snapshot().frozen_page("bob").is_some());
    assert_eq!(texts(&ws, "bob")[0], "Bob walks on [[Project X]]");
}

#[test]
fn ids_a_sidecar_shares_with_another_page_or_repeats_are_minted_anew_at_open() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "pages/a.md", "- one\n- two\n");
    write(dir.path(), "pages/b.md", "- three\n- four\n- five\n");
    let ws = Workspace::open(dir.path()).unwrap();
    let a = ids_of(&ws, "a");
    let b = ids_of(&ws, "b");
    drop(ws);
    // b's sidecar gives its second block the id of a's second block, and its third block the
    // id of its first.
    let md = fs::read_to_string(dir.path().join("pages/b.md")).unwrap();
    let sidecar = Sidecar {
        hash: content_hash(md.as_bytes()),
        ids: vec![b[0].1.clone(), a[1].1.clone(), b[0].1.clone()],
        base: md,
    };
    sidecar
        .write(dir.path(), "pages/b.md", Durability::Atomic)
        .unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    assert_eq!(ids_of(&ws, "a"), a);
    let b_now = ids_of(&ws, "b");
    assert_eq!(b_now[0], b[0]);
    let mut all: Vec<&str> = a.iter().chain(&b_now).map(|(_, id)| id.as_str()).collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 5, "{a:?} {b_now:?}");
    let snapshot = ws.snapshot();
    assert_eq!(snapshot.block_count(), 5);
    for (text, id) in a.iter().chain(&b_now) {
        let found = snapshot.block(id).map(|at| at.block().text.clone());
        assert_eq!(found.as_deref(), Some(text.as_str()));
    }
    drop(snapshot);
    drop(ws);
    // The new ids were written to the sidecar: the next open finds them.
    let ws = Workspace::open(dir.path()).unwrap();
    assert_eq!(ids_of(&ws, "b"), b_now);
}
