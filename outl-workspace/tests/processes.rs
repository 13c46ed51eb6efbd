//! The workspace engine across processes: a writer killed (SIGKILL) mid-write loses no
//! acknowledged write and leaves md, sidecar and log in agreement; two writers on one
//! workspace, opened again and again by a third process meanwhile, lose no update.
//!
//! The writers are this test binary run again on its ignored `writer_process` test, told what
//! to do through `OUTL_TEST_*` variables. A writer prints `ack …` only after the write call
//! returned.
//!
//! `OUTL_CRASH_CYCLES` (default 20) and `OUTL_CONCURRENT_WRITES` (default 200 per writer) make
//! the runs longer.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use outl_workspace::{Block, BlockList, OpKind, Workspace, content_hash};

const COUNTER: &str = "counter";

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One line a writer printed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ack {
    /// A block with this text and id was appended to the counter page.
    Appended { text: String, id: String },
    /// A page with this name was created.
    Created(String),
    /// The page `from` was renamed to `to`.
    Renamed { from: String, to: String },
}

fn parse_ack(line: &str) -> Option<Ack> {
    // The test harness prints `test writer_process ... ` without a line break before the test
    // runs, so the first ack shares its line.
    let (_, ack) = line.split_once("ack ")?;
    let mut words = ack.split('\t');
    match words.next()? {
        "append" => Some(Ack::Appended {
            text: words.next()?.into(),
            id: words.next()?.into(),
        }),
        "create" => Some(Ack::Created(words.next()?.into())),
        "rename" => Some(Ack::Renamed {
            from: words.next()?.into(),
            to: words.next()?.into(),
        }),
        _ => None,
    }
}

/// Plays one writer when the parent test runs this binary with `OUTL_TEST_WORKSPACE` set.
#[test]
#[ignore = "a writer process started by the other tests of this file"]
fn writer_process() {
    let root = std::env::var("OUTL_TEST_WORKSPACE").expect("OUTL_TEST_WORKSPACE");
    let tag = std::env::var("OUTL_TEST_TAG").expect("OUTL_TEST_TAG");
    let writes = env_number("OUTL_TEST_WRITES", usize::MAX);
    let page_ops = std::env::var("OUTL_TEST_PAGE_OPS").is_ok();
    let ws = Workspace::open(Path::new(&root)).expect("open");
    let mut last_created: Option<String> = None;
    for i in 0..writes {
        if page_ops && i % 5 == 4 {
            // Renames the page created five writes before: see `rename_target`.
            if let Some(from) = last_created.take().filter(|_| i % 10 == 9) {
                let to = format!("renamed {tag}-{i}");
                ws.rename_page(&from, &to).expect("rename");
                println!("ack rename\t{from}\t{to}");
            } else {
                let name = format!("page {tag}-{i}");
                let blocks = ws.parse_blocks(&format!("- links to [[{COUNTER}]]\n"));
                ws.create_page(&name, Default::default(), blocks)
                    .expect("create");
                println!("ack create\t{name}");
                last_created = Some(name);
            }
            continue;
        }
        let text = format!("{tag}-{i}");
        ws.edit(OpKind::PageAppend, &[COUNTER], |pages| {
            pages[0].blocks_mut().push(Block {
                id: Default::default(),
                text: text.clone(),
                properties: Default::default(),
                children: Default::default(),
            });
            Ok(())
        })
        .expect("append");
        let snapshot = ws.snapshot();
        let page = snapshot.page(COUNTER).expect("counter page");
        let id = page
            .blocks()
            .iter()
            .rev()
            .find(|b| b.text == text)
            .expect("appended block")
            .id
            .clone();
        drop(snapshot);
        println!("ack append\t{text}\t{id}");
    }
}

/// The name `writer_process` renames the page `page TAG-I` to: `renamed TAG-(I+5)`.
fn rename_target(created: &str) -> String {
    let (tag, i) = created
        .strip_prefix("page ")
        .and_then(|rest| rest.rsplit_once('-'))
        .expect("a created page name");
    format!(
        "renamed {tag}-{}",
        i.parse::<usize>().expect("a write number") + 5
    )
}

fn spawn_writer(root: &Path, tag: &str, writes: Option<usize>, page_ops: bool) -> Child {
    let mut command = Command::new(std::env::current_exe().expect("test binary"));
    command
        .args([
            "writer_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("OUTL_TEST_WORKSPACE", root)
        .env("OUTL_TEST_TAG", tag)
        // Small op log segments: writers rotate the log every few writes, under the kills and
        // under each other.
        .env("OUTL_LOG_SEGMENT_BYTES", "16384")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(writes) = writes {
        command.env("OUTL_TEST_WRITES", writes.to_string());
    }
    if page_ops {
        command.env("OUTL_TEST_PAGE_OPS", "1");
    }
    command.spawn().expect("spawn writer")
}

/// Sends each ack line of the child to `tx` as it is printed.
fn forward_acks(child: &mut Child, tx: mpsc::Sender<Ack>) -> std::thread::JoinHandle<()> {
    let stdout = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(ack) = parse_ack(&line)
                && tx.send(ack).is_err()
            {
                break;
            }
        }
    })
}

fn setup(root: &Path) {
    let ws = Workspace::open(root).expect("open");
    ws.create_page(COUNTER, Default::default(), ws.parse_blocks("- start\n"))
        .expect("counter page");
}

/// Checks that md, sidecars and log agree: nothing frozen or skipped, each page's sidecar
/// holds the file's hash, ids are unique, and the newest op's after-hashes are on disk.
fn assert_consistent(ws: &Workspace) {
    let snapshot = ws.snapshot();
    assert_eq!(
        snapshot.frozen().count(),
        0,
        "a page is ahead of the log: {:?}",
        snapshot.frozen().collect::<Vec<_>>()
    );
    assert!(snapshot.skipped().is_empty(), "{:?}", snapshot.skipped());
    let mut blocks = 0;
    for page in snapshot.pages() {
        let md = std::fs::read(ws.root().join(&page.file)).expect("page file");
        assert_eq!(content_hash(&md), page.hash, "{}", page.file);
        let sidecar = std::fs::read_to_string(
            ws.root()
                .join(".outl/ids")
                .join(format!("{}.ids", page.file)),
        )
        .expect("sidecar");
        let hash_line = sidecar.lines().nth(1).expect("sidecar hash line");
        assert_eq!(
            hash_line,
            format!("hash {}", page.hash),
            "sidecar of {}",
            page.file
        );
        let ids_line = sidecar.lines().nth(2).expect("sidecar ids line");
        let ids: Vec<&str> = ids_line.split_whitespace().skip(1).collect();
        let page_blocks = page.blocks();
        let page_ids: Vec<&str> = page_blocks
            .preorder()
            .iter()
            .map(|b| b.id.as_str())
            .collect();
        assert_eq!(ids, page_ids, "sidecar ids of {}", page.file);
        blocks += page_ids.len();
    }
    assert_eq!(snapshot.block_count(), blocks, "block ids are not unique");
    drop(snapshot);
    let newest = ws.log(1, None).expect("log").ops;
    let snapshot = ws.snapshot();
    for change in newest.iter().flat_map(|op| &op.pages) {
        match &change.after {
            Some(after) => assert_eq!(
                snapshot.page(&after.slug).map(|p| p.hash.as_str()),
                Some(after.hash.as_str())
            ),
            None => assert!(
                snapshot
                    .page(&change.before.as_ref().expect("a change has a side").slug)
                    .is_none()
            ),
        }
    }
}

fn assert_acked_present(ws: &Workspace, acks: &[Ack]) {
    let snapshot = ws.snapshot();
    let counter = snapshot.page(COUNTER).expect("counter page");
    let blocks = counter.blocks();
    let present: HashMap<&str, &str> = blocks
        .iter()
        .map(|b| (b.text.as_str(), b.id.as_str()))
        .collect();
    let mut renamed_away = HashSet::new();
    for ack in acks {
        if let Ack::Renamed { from, .. } = ack {
            renamed_away.insert(from.clone());
        }
    }
    for ack in acks {
        match ack {
            Ack::Appended { text, id } => {
                assert_eq!(
                    present.get(text.as_str()).copied(),
                    Some(id.as_str()),
                    "acknowledged block {text} lost or re-id'd"
                )
            }
            Ack::Created(name) if !renamed_away.contains(name) => {
                // The writer may have renamed it just before it was killed, unacknowledged.
                let renamed = rename_target(name);
                assert!(
                    snapshot.resolve(name).is_some() || snapshot.resolve(&renamed).is_some(),
                    "acknowledged page {name} lost"
                )
            }
            Ack::Created(_) => {}
            Ack::Renamed { from, to } => {
                assert!(snapshot.resolve(to).is_some(), "renamed page {to} lost");
                assert!(
                    snapshot.resolve(from).is_none(),
                    "page {from} still there after its rename"
                );
            }
        }
    }
}

#[test]
fn a_writer_killed_mid_write_loses_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    setup(root);
    let cycles = env_number("OUTL_CRASH_CYCLES", 20);
    let mut acks: Vec<Ack> = Vec::new();
    for cycle in 0..cycles {
        let mut child = spawn_writer(root, &format!("c{cycle}"), None, true);
        let (tx, rx) = mpsc::channel();
        let reader = forward_acks(&mut child, tx);
        // Let it get going, then kill it after a varying number of acknowledged writes, so
        // the kill lands at a different point of a write each time.
        let wanted = 3 + cycle % 7;
        for _ in 0..wanted {
            match rx.recv_timeout(Duration::from_secs(60)) {
                Ok(ack) => acks.push(ack),
                Err(e) => panic!("writer of cycle {cycle} stalled: {e}"),
            }
        }
        std::thread::sleep(Duration::from_micros(((cycle * 397) % 3000) as u64));
        child.kill().expect("SIGKILL the writer");
        child.wait().expect("reap the writer");
        reader.join().expect("ack reader");
        acks.extend(rx.try_iter());

        let ws = Workspace::open(root).expect("reopen after the kill");
        assert_acked_present(&ws, &acks);
        assert_consistent(&ws);
    }
    assert!(acks.len() >= cycles * 3);
    assert!(root.join(".outl/oplog.1").exists(), "the log never rotated");
}

#[test]
fn two_writers_on_one_workspace_lose_no_update() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    setup(root);
    let writes = env_number("OUTL_CONCURRENT_WRITES", 200);
    let mut children: Vec<Child> = ["a", "b"]
        .iter()
        .map(|tag| spawn_writer(root, tag, Some(writes), false))
        .collect();
    let (tx, rx) = mpsc::channel();
    let readers: Vec<_> = children
        .iter_mut()
        .map(|child| forward_acks(child, tx.clone()))
        .collect();
    drop(tx);
    // Opening the workspace meanwhile (as each `outl call` does) must not disturb the writers.
    let mut opened = 0;
    while children
        .iter_mut()
        .any(|c| c.try_wait().expect("writer").is_none())
    {
        let ws = Workspace::open(root).expect("open while writers write");
        assert_eq!(ws.snapshot().frozen().count(), 0);
        opened += 1;
    }
    assert!(opened > 0);
    for child in &mut children {
        assert!(child.wait().expect("writer").success(), "a writer failed");
    }
    for reader in readers {
        reader.join().expect("ack reader");
    }
    let acks: Vec<Ack> = rx.iter().collect();
    assert_eq!(acks.len(), 2 * writes);

    let ws = Workspace::open(root).expect("reopen");
    assert_acked_present(&ws, &acks);
    assert_consistent(&ws);
    let snapshot = ws.snapshot();
    let blocks = snapshot.page(COUNTER).unwrap().blocks();
    let texts: Vec<&str> = blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts.len(),
        1 + 2 * writes,
        "every write appended exactly one block"
    );
    // Each writer's blocks are in its own order.
    for tag in ["a", "b"] {
        let own: Vec<usize> = texts
            .iter()
            .filter_map(|t| {
                t.strip_prefix(&format!("{tag}-"))
                    .and_then(|n| n.parse().ok())
            })
            .collect();
        assert_eq!(own, (0..writes).collect::<Vec<_>>());
    }
    drop(snapshot);
    // Seqs are handed out under the lock: the newest is the number of writes.
    assert_eq!(ws.log(1, None).unwrap().ops[0].seq as usize, 1 + 2 * writes);
    assert!(root.join(".outl/oplog.1").exists(), "the log never rotated");
}
