//! `outl_page_reconcile` adopts a page edited outside outl as the person left it, on pages in
//! Logseq's own style (tabs, `id::` lines under referenced blocks, or none) and in the older
//! styles real graphs hold (two-space indents, CRLF line endings, YAML front matter), for the
//! edits a person makes in Logseq or a text editor: deleting a block, reordering, editing a
//! line, adding blocks in the middle, pasting a copy of a block, and all of them at once. A
//! block deleted stays deleted, one edited or moved keeps its id, one added (a pasted copy
//! too) gets a new one, and the reply lists which were kept, changed, added and removed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::mcp_support::{StdioSession, json_payload, tool_error};
use serde_json::{Value, json};

const PAGE: &str = "garden";
const FILE: &str = "pages/garden.md";
const MEETING_UUID: &str = "6571a3f0-1111-4222-8333-444455556666";

/// How the page file is written.
#[derive(Debug, Clone, Copy)]
struct Style {
    name: &'static str,
    indent: &'static str,
    eol: &'static str,
    front_matter: bool,
    /// Whether the referenced block carries an `id::` line, as Logseq writes one.
    uuid: bool,
}

const STYLES: [Style; 5] = [
    Style {
        name: "Logseq, with an id:: line",
        indent: "\t",
        eol: "\n",
        front_matter: false,
        uuid: true,
    },
    Style {
        name: "Logseq, no id:: line",
        indent: "\t",
        eol: "\n",
        front_matter: false,
        uuid: false,
    },
    Style {
        name: "two-space indents",
        indent: "  ",
        eol: "\n",
        front_matter: false,
        uuid: false,
    },
    Style {
        name: "CRLF, with an id:: line",
        indent: "  ",
        eol: "\r\n",
        front_matter: false,
        uuid: true,
    },
    Style {
        name: "front matter",
        indent: "  ",
        eol: "\n",
        front_matter: true,
        uuid: false,
    },
];

/// One bullet of the fixture: its depth, text and `id::` if it has one.
#[derive(Debug, Clone, PartialEq)]
struct Bullet {
    depth: usize,
    text: String,
    uuid: Option<&'static str>,
}

fn bullet(depth: usize, text: &str) -> Bullet {
    Bullet {
        depth,
        text: text.to_owned(),
        uuid: None,
    }
}

const WATER: &str = "TODO water the plants";
const READING: &str = "Reading";
const MOM_TEST: &str = "[[The Mom Test]]";
const RANGE: &str = "[[Range]] by David Epstein";
const MEETING: &str = "Meeting notes with Ann about the launch";
const QUOTE: &str = "A quote worth keeping";
const THOUGHT: &str = "a second line of thought";
const SHIPPED: &str = "DONE ship the release notes";

/// The page before the person's edit.
fn garden(style: Style) -> Vec<Bullet> {
    let mut meeting = bullet(0, MEETING);
    meeting.uuid = style.uuid.then_some(MEETING_UUID);
    vec![
        bullet(0, WATER),
        bullet(0, READING),
        bullet(1, MOM_TEST),
        bullet(1, RANGE),
        meeting,
        bullet(0, QUOTE),
        bullet(1, THOUGHT),
        bullet(0, SHIPPED),
    ]
}

/// The file of `bullets` in `style`, as Logseq or an editor keeping the file's style writes it.
fn render(style: Style, bullets: &[Bullet]) -> String {
    let mut out = String::new();
    if style.front_matter {
        for line in ["---", "title: garden", "tags: plants, reading", "---", ""] {
            out.push_str(line);
            out.push_str(style.eol);
        }
    }
    for b in bullets {
        let indent = style.indent.repeat(b.depth);
        out.push_str(&format!("{indent}- {}{}", b.text, style.eol));
        if let Some(uuid) = b.uuid {
            out.push_str(&format!("{indent}  id:: {uuid}{}", style.eol));
        }
    }
    out
}

/// What the person did, and what the reply must say of it (by block text).
struct Edit {
    name: &'static str,
    apply: fn(&mut Vec<Bullet>),
    changed: &'static [(&'static str, &'static str)],
    added: &'static [&'static str],
    removed: &'static [&'static str],
}

fn position(bullets: &[Bullet], text: &str) -> usize {
    bullets
        .iter()
        .position(|b| b.text == text)
        .unwrap_or_else(|| panic!("no bullet {text:?}"))
}

/// The bullet at `text` with its children.
fn subtree(bullets: &[Bullet], text: &str) -> std::ops::Range<usize> {
    let at = position(bullets, text);
    let depth = bullets[at].depth;
    let end = bullets[at + 1..]
        .iter()
        .position(|b| b.depth <= depth)
        .map_or(bullets.len(), |n| at + 1 + n);
    at..end
}

const EDITS: [Edit; 6] = [
    Edit {
        name: "delete a block",
        apply: |b| {
            b.drain(subtree(b, MEETING));
        },
        changed: &[],
        added: &[],
        removed: &[MEETING],
    },
    Edit {
        name: "reorder blocks",
        apply: |b| {
            let shipped: Vec<Bullet> = b.drain(subtree(b, SHIPPED)).collect();
            b.splice(0..0, shipped);
            let (mom, range) = (position(b, MOM_TEST), position(b, RANGE));
            b.swap(mom, range);
        },
        changed: &[],
        added: &[],
        removed: &[],
    },
    Edit {
        name: "edit a line",
        apply: |b| {
            let at = position(b, QUOTE);
            b[at].text = "A quote worth keeping, from Seneca".into();
        },
        changed: &[(QUOTE, "A quote worth keeping, from Seneca")],
        added: &[],
        removed: &[],
    },
    Edit {
        name: "add blocks in the middle",
        apply: |b| {
            let after_reading = subtree(b, READING).end;
            b.splice(
                after_reading..after_reading,
                [bullet(0, "New idea, one"), bullet(0, "New idea, two")],
            );
            let after_mom = position(b, MOM_TEST) + 1;
            b.insert(after_mom, bullet(1, "[[Deep Work]]"));
        },
        changed: &[],
        added: &["New idea, one", "New idea, two", "[[Deep Work]]"],
        removed: &[],
    },
    Edit {
        name: "paste a copy of a block below it",
        apply: |b| {
            // A text editor's copy and paste: the `id::` line comes along.
            let meeting = subtree(b, MEETING);
            let copy: Vec<Bullet> = b[meeting.clone()].to_vec();
            b.splice(meeting.end..meeting.end, copy);
        },
        changed: &[],
        added: &[MEETING],
        removed: &[],
    },
    Edit {
        name: "all at once",
        apply: |b| {
            b.drain(subtree(b, WATER));
            let at = position(b, RANGE);
            b[at].text = "[[Range]] by David Epstein, chapter 3".into();
            let quote: Vec<Bullet> = b.drain(subtree(b, QUOTE)).collect();
            b.splice(0..0, quote);
            b.push(bullet(0, "LATER call Bob"));
            // A copy pasted above the original.
            b.insert(0, bullet(0, SHIPPED));
        },
        changed: &[(RANGE, "[[Range]] by David Epstein, chapter 3")],
        added: &["LATER call Bob", SHIPPED],
        removed: &[WATER],
    },
];

/// `text → ids` of every block of the page, as the server serves it, in document order.
fn ids_by_text(session: &mut StdioSession) -> BTreeMap<String, Vec<String>> {
    let page = json_payload(&session.call("outl_page_get", json!({"slug": PAGE})));
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    collect(&page["outline"], &mut out);
    out
}

fn collect(nodes: &Value, out: &mut BTreeMap<String, Vec<String>>) {
    for node in nodes.as_array().into_iter().flatten() {
        let text = node["text"].as_str().expect("a text");
        // A task's text is served without its marker.
        let text = match node["todo"].as_str() {
            Some(marker) => format!("{marker} {text}"),
            None => text.to_owned(),
        };
        let id = node["id"].as_str().expect("an id").to_owned();
        out.entry(text).or_default().push(id);
        collect(&node["children"], out);
    }
}

fn only(ids: &BTreeMap<String, Vec<String>>, text: &str) -> String {
    match ids.get(text).map(Vec::as_slice) {
        Some([id]) => id.clone(),
        other => panic!("one block {text:?}, got {other:?}"),
    }
}

fn id_set(reply: &Value, field: &str) -> BTreeSet<String> {
    reply
        .get(field)
        .map(|list| {
            list.as_array()
                .unwrap_or_else(|| panic!("{field} is a list: {reply}"))
                .iter()
                .map(|id| id.as_str().expect("an id").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn count(ids: &BTreeMap<String, Vec<String>>) -> usize {
    ids.values().map(Vec::len).sum()
}

/// Writes the page in `style`, lets the person make `edit`, reconciles, and checks the reply,
/// the ids served, the file, and the ids after a restart.
fn reconcile_after(style: Style, edit: &Edit) {
    let context = format!("{} / {}", style.name, edit.name);
    let ws = tempfile::tempdir().expect("temp workspace");
    let path = ws.path().join(FILE);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut bullets = garden(style);
    std::fs::write(&path, render(style, &bullets)).unwrap();

    let mut session = StdioSession::initialized(ws.path());
    let before = ids_by_text(&mut session);
    (edit.apply)(&mut bullets);
    let edited = render(style, &bullets);
    std::fs::write(&path, &edited).unwrap();

    let reply = json_payload(&session.call("outl_page_reconcile", json!({"slug": PAGE})));
    assert_eq!(reply["reconciled"], true, "{context}: {reply}");
    let after = ids_by_text(&mut session);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        edited,
        "{context}: the file is adopted as the person left it"
    );

    // Removed: the old ids, gone from the page.
    let removed: BTreeSet<String> = edit.removed.iter().map(|t| only(&before, t)).collect();
    assert_eq!(id_set(&reply, "removed_ids"), removed, "{context}: {reply}");
    for text in edit.removed {
        assert!(!after.contains_key(*text), "{context}: {text:?} came back");
    }
    // Changed: the old id under the new text.
    let mut changed = BTreeSet::new();
    for (old, new) in edit.changed {
        assert_eq!(only(&after, new), only(&before, old), "{context}: {new:?}");
        changed.insert(only(&before, old));
    }
    assert_eq!(id_set(&reply, "changed_ids"), changed, "{context}: {reply}");
    // Added: ids no block had before; of a pasted copy, the original keeps its id.
    let old_ids: BTreeSet<&String> = before.values().flatten().collect();
    let added = id_set(&reply, "new_ids");
    assert_eq!(added.len(), edit.added.len(), "{context}: {reply}");
    for text in edit.added {
        let fresh: Vec<&String> = after[*text]
            .iter()
            .filter(|id| !old_ids.contains(id))
            .collect();
        assert_eq!(fresh.len(), 1, "{context}: one new {text:?}: {after:?}");
        assert!(added.contains(fresh[0]), "{context}: {reply}");
        if let Some(original) = before.get(*text) {
            assert!(
                after[*text].contains(&original[0]),
                "{context}: the original {text:?} keeps its id"
            );
        }
    }
    // Everything else keeps its id.
    for (text, ids) in &before {
        if edit.removed.contains(&text.as_str()) || edit.changed.iter().any(|(old, _)| old == text)
        {
            continue;
        }
        assert!(
            after.get(text).is_some_and(|now| now.contains(&ids[0])),
            "{context}: {text:?} keeps {}: {after:?}",
            ids[0]
        );
    }
    assert_eq!(
        reply["kept"],
        count(&after) - changed.len() - added.len(),
        "{context}: {reply}"
    );
    if style.uuid && !edit.removed.contains(&MEETING) {
        // The block with the id:: line is served by its UUID's short id, and found by either.
        let by_uuid = json_payload(&session.call("outl_block_get", json!({"id": MEETING_UUID})));
        let short = by_uuid["block"]["id"].as_str().expect("an id").to_owned();
        assert_eq!(short.len(), 7, "{context}: {by_uuid}");
        assert!(
            after[MEETING].contains(&short),
            "{context}: the block with the id:: line keeps it: {after:?}"
        );
    }

    // Writes are accepted again, and a restart serves the same ids.
    json_payload(&session.call("outl_page_append", json!({"slug": PAGE, "md": "- later"})));
    let served = ids_by_text(&mut session);
    session.finish();
    let mut session = StdioSession::initialized(ws.path());
    assert_eq!(
        ids_by_text(&mut session),
        served,
        "{context}: after a restart"
    );
    session.finish();
}

#[test]
fn a_deleted_block_stays_deleted() {
    for style in STYLES {
        reconcile_after(style, &EDITS[0]);
    }
}

#[test]
fn reordered_blocks_keep_their_ids() {
    for style in STYLES {
        reconcile_after(style, &EDITS[1]);
    }
}

#[test]
fn an_edited_block_keeps_its_id_and_is_reported_changed() {
    for style in STYLES {
        reconcile_after(style, &EDITS[2]);
    }
}

#[test]
fn blocks_added_in_the_middle_get_new_ids() {
    for style in STYLES {
        reconcile_after(style, &EDITS[3]);
    }
}

#[test]
fn a_pasted_copy_gets_a_new_id_and_the_original_keeps_its_own() {
    for style in STYLES {
        reconcile_after(style, &EDITS[4]);
    }
}

#[test]
fn all_of_these_at_once() {
    for style in STYLES {
        reconcile_after(style, &EDITS[5]);
    }
}

/// The line of `file` that holds `text`, removed as a person deletes a one-line block.
fn delete_line(path: &Path, text: &str) {
    let file = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = file.split_inclusive('\n').collect();
    let at = lines
        .iter()
        .position(|line| line.trim_end().ends_with(&format!("- {text}")))
        .unwrap_or_else(|| panic!("no line {text:?} in {file:?}"));
    let kept: String = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .map(|(_, line)| *line)
        .collect();
    std::fs::write(path, kept).unwrap();
}

/// The case that reconcile once got wrong: outl appends a block (and edits another), the
/// person deletes what outl wrote, in Logseq or an editor, and edits something else; the
/// reconcile must not bring outl's blocks back, nor report them new.
#[test]
fn blocks_outl_wrote_and_the_person_deleted_stay_deleted() {
    for style in STYLES {
        let context = style.name;
        let ws = tempfile::tempdir().expect("temp workspace");
        let path = ws.path().join(FILE);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, render(style, &garden(style))).unwrap();
        let mut session = StdioSession::initialized(ws.path());
        let ids = ids_by_text(&mut session);
        json_payload(&session.call(
            "outl_page_append",
            json!({"slug": PAGE, "md": "- Written by outl"}),
        ));
        json_payload(&session.call(
            "outl_block_update",
            json!({"id": only(&ids, QUOTE), "text": "A quote, trimmed by outl"}),
        ));
        let written = ids_by_text(&mut session);

        delete_line(&path, "Written by outl");
        delete_line(&path, "A quote, trimmed by outl");
        let file = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            file.replace(SHIPPED, "DONE ship the release notes, v2"),
        )
        .unwrap();
        let edited = std::fs::read_to_string(&path).unwrap();
        let refused = session.call("outl_page_append", json!({"slug": PAGE, "md": "- x"}));
        assert_eq!(tool_error(&refused)["code"], "PAGE_MARKDOWN_AHEAD_OF_LOG");

        let reply = json_payload(&session.call("outl_page_reconcile", json!({"slug": PAGE})));
        let after = ids_by_text(&mut session);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            edited,
            "{context}: adopted as it is"
        );
        for text in ["Written by outl", "A quote, trimmed by outl"] {
            assert!(!after.contains_key(text), "{context}: {text:?} came back");
        }
        assert_eq!(
            id_set(&reply, "removed_ids"),
            BTreeSet::from([
                only(&written, "Written by outl"),
                only(&written, "A quote, trimmed by outl")
            ]),
            "{context}: {reply}"
        );
        assert_eq!(
            id_set(&reply, "new_ids"),
            BTreeSet::new(),
            "{context}: {reply}"
        );
        assert_eq!(
            id_set(&reply, "changed_ids"),
            BTreeSet::from([only(&written, SHIPPED)]),
            "{context}: {reply}"
        );
        assert_eq!(
            only(&after, "DONE ship the release notes, v2"),
            only(&written, SHIPPED)
        );
        assert_eq!(only(&after, THOUGHT), only(&ids, THOUGHT), "{context}");
        session.finish();
    }
}
