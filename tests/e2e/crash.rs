//! `outl mcp` killed with SIGKILL at random points of a stream of writes, again and again on
//! one workspace: every write whose reply arrived is on disk after the next start, no write is
//! applied twice or in part, and markdown, sidecars and the op log agree.
//!
//! Each cycle starts `outl mcp`, sends a burst of writes without waiting for replies (appends
//! to one page, page creations, deletions of pages an earlier cycle created), sleeps a seeded
//! random time and kills the process. The replies that reached stdout are the acknowledged
//! writes. The next cycle's server opens the workspace (and repairs it) before the checks.
//!
//! `OUTL_CRASH_CYCLES` (default 50) sets the number of kills, `OUTL_CRASH_SEED` the seed.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::time::Duration;

use crate::mcp_support::{StdioSession, json_payload};
use outl_workspace::content_hash;
use serde_json::{Value, json};

const LOG_PAGE: &str = "crash log";
const LOG_FILE: &str = "pages/crash log.md";

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// SplitMix64: enough randomness for kill timings, reproducible from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One write of a burst.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Write {
    /// A block `- TEXT` appended to the log page.
    Append(String),
    /// A page of this name created.
    Create(String),
    /// This page (created by an earlier cycle) deleted.
    Delete(String),
}

impl Write {
    fn call(&self) -> (&'static str, Value) {
        match self {
            Write::Append(text) => (
                "outl_page_append",
                json!({"slug": LOG_PAGE, "md": format!("- {text}")}),
            ),
            Write::Create(name) => ("outl_page_create", json!({"name": name, "md": "- created"})),
            Write::Delete(name) => ("outl_page_delete", json!({"slug": name})),
        }
    }
}

/// What was sent and what was acknowledged, over all cycles.
#[derive(Default)]
struct History {
    sent: BTreeSet<Write>,
    acked: BTreeSet<Write>,
}

impl History {
    fn may_exist(&self, name: &str) -> bool {
        self.sent.contains(&Write::Create(name.to_owned()))
    }
}

#[test]
fn killed_writers_lose_no_acknowledged_write() {
    let cycles = env_number("OUTL_CRASH_CYCLES", 50);
    let seed = env_number("OUTL_CRASH_SEED", 0x5eed_0071);
    let mut rng = Rng(seed);
    let ws = tempfile::tempdir().expect("temp workspace");
    let root = ws.path();
    std::fs::create_dir_all(root.join("pages")).expect("pages folder");
    std::fs::write(root.join(LOG_FILE), "- start\n").expect("the log page");

    let mut history = History::default();
    let mut created_alive: Vec<String> = Vec::new();
    let mut acked_per_cycle = Vec::new();
    for cycle in 0..cycles {
        let context = format!("seed {seed:#x}, cycle {cycle}");
        let mut session = StdioSession::start(root);
        session.initialize("2025-06-18");
        check_workspace(&mut session, root, &history, &context);

        let burst = 1 + rng.below(8);
        let mut pending: HashMap<i64, Write> = HashMap::new();
        for i in 0..burst {
            let write = match rng.below(10) {
                0..=5 => Write::Append(format!("w-{cycle}-{i}")),
                6..=8 => Write::Create(format!("page {cycle}-{i}")),
                _ if !created_alive.is_empty() => {
                    let at = rng.below(created_alive.len() as u64) as usize;
                    Write::Delete(created_alive.swap_remove(at))
                }
                _ => Write::Append(format!("w-{cycle}-{i}")),
            };
            let id = i64::try_from(cycle * 100 + i).expect("a small id");
            let (tool, arguments) = write.call();
            session.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}}));
            history.sent.insert(write.clone());
            pending.insert(id, write);
        }
        // Writes take a few milliseconds each in a debug build: the kill lands before, among
        // or after them.
        std::thread::sleep(Duration::from_micros(rng.below(120_000)));
        let mut acked = 0;
        session.kill();
        for reply in drain(&mut session) {
            let id = reply["id"].as_i64().expect("a reply to a write");
            let write = pending.remove(&id).expect("a reply to a write sent");
            assert_ne!(
                reply["result"]["isError"], true,
                "{context}: {write:?}: {reply}"
            );
            json_payload(&reply);
            if let Write::Create(name) = &write {
                created_alive.push(name.clone());
            }
            history.acked.insert(write);
            acked += 1;
        }
        // A create sent but not acknowledged may have happened: it is never deleted, and its
        // page is only allowed to exist.
        acked_per_cycle.push(acked);
    }

    let mut session = StdioSession::start(root);
    session.initialize("2025-06-18");
    let context = format!("seed {seed:#x}, after the last cycle");
    check_workspace(&mut session, root, &history, &context);
    session.finish();
    let acked: usize = acked_per_cycle.iter().sum();
    let sent = history.sent.len();
    eprintln!("crash: {cycles} kills, {sent} writes sent, {acked} acknowledged (seed {seed:#x})");
    assert!(
        acked > 0,
        "no write was ever acknowledged: the kills came too early"
    );
    assert!(
        acked < sent,
        "every write was acknowledged: no kill landed mid-stream"
    );
}

/// The replies that reached stdout before the kill: what was in the pipe is acknowledged.
fn drain(session: &mut StdioSession) -> Vec<Value> {
    let mut replies = Vec::new();
    // The output ends with the process: this waits only for the pipe to be read to its end.
    while let Some(reply) = session.recv_within(Duration::from_secs(20)) {
        replies.push(reply);
    }
    replies
}

/// Every acknowledged write is there, no write is there twice or in part, and markdown,
/// sidecars, op log and the server's view agree.
fn check_workspace(session: &mut StdioSession, root: &Path, history: &History, context: &str) {
    let info = json_payload(&session.call("outl_workspace_info", json!({})));
    assert_eq!(
        info["frozen"],
        json!([]),
        "{context}: a page is ahead of the log"
    );

    // The log page: the server's markdown is the file's, and holds each acknowledged append
    // once, and nothing that was never sent.
    let file = std::fs::read_to_string(root.join(LOG_FILE)).expect("the log page");
    let rendered = session.call("outl_page_render", json!({"slug": LOG_PAGE}));
    assert_eq!(
        crate::mcp_support::text_of(&rendered["result"]),
        file,
        "{context}: the server serves the file"
    );
    let mut appended = BTreeSet::new();
    for line in file.lines().skip(1) {
        let text = line
            .strip_prefix("- ")
            .unwrap_or_else(|| panic!("{context}: a torn line {line:?}"));
        let write = Write::Append(text.to_owned());
        assert!(
            history.sent.contains(&write),
            "{context}: never sent: {line:?}"
        );
        assert!(
            appended.insert(text.to_owned()),
            "{context}: applied twice: {line:?}"
        );
    }
    assert_eq!(file.lines().next(), Some("- start"), "{context}: {file}");

    // Pages: each acknowledged create is there unless a delete of it may have happened, each
    // acknowledged delete took its page, and nothing else appeared.
    let pages: BTreeSet<String> = std::fs::read_dir(root.join("pages"))
        .expect("pages folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter_map(|file| file.strip_suffix(".md").map(str::to_owned))
        .filter(|name| name != LOG_PAGE)
        .collect();
    for write in &history.acked {
        match write {
            Write::Create(name) if !history.sent.contains(&Write::Delete(name.clone())) => {
                assert!(pages.contains(name), "{context}: lost the page {name:?}");
            }
            Write::Delete(name) => {
                assert!(!pages.contains(name), "{context}: deleted {name:?} is back");
            }
            Write::Append(text) => {
                assert!(
                    appended.contains(text),
                    "{context}: lost the append {text:?}"
                );
            }
            Write::Create(_) => {}
        }
    }
    for name in &pages {
        assert!(
            history.may_exist(name),
            "{context}: a page never created: {name:?}"
        );
        let md = std::fs::read_to_string(root.join("pages").join(format!("{name}.md")))
            .expect("a created page");
        assert_eq!(md, "- created\n", "{context}: {name:?} is torn");
    }

    let on_disk = page_hashes(root);
    assert_no_temp_files(root, context);
    assert_sidecars_match(root, &on_disk, context);
    assert_log_matches(root, &on_disk, appended.len(), pages.len(), context);
}

/// `file → content hash` of every page file.
fn page_hashes(root: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(root.join("pages"))
        .expect("pages folder")
        .map(|e| e.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| {
            let file = format!(
                "pages/{}",
                path.file_name().expect("a name").to_string_lossy()
            );
            let bytes = std::fs::read(&path).expect("a page file");
            (file, content_hash(&bytes))
        })
        .collect()
}

/// The temp files a killed writer left (pages and sidecars written before its log line was
/// durable, or not yet renamed) are gone once the next server has opened the workspace. (That
/// server may be saving `.outl/cache` through a temp file of its own meanwhile.)
fn assert_no_temp_files(root: &Path, context: &str) {
    fn walk(dir: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, found);
            } else if entry.file_name().to_string_lossy().contains(".outl-tmp-") {
                found.push(path.display().to_string());
            }
        }
    }
    let mut found = Vec::new();
    walk(&root.join("pages"), &mut found);
    walk(&root.join(".outl/ids"), &mut found);
    assert_eq!(found, Vec::<String>::new(), "{context}: temp files left");
}

/// Each page's sidecar names the hash of the file beside it.
fn assert_sidecars_match(root: &Path, on_disk: &BTreeMap<String, String>, context: &str) {
    for (file, hash) in on_disk {
        let sidecar = std::fs::read_to_string(root.join(".outl/ids").join(format!("{file}.ids")))
            .unwrap_or_else(|e| panic!("{context}: no sidecar for {file}: {e}"));
        assert!(
            sidecar.lines().any(|line| line == format!("hash {hash}")),
            "{context}: the sidecar of {file} is stale"
        );
    }
}

/// The op log has one op per applied write, and the newest op touching each page file left
/// it with the hash it has (a file no op touched is the log page as the test wrote it).
fn assert_log_matches(
    root: &Path,
    on_disk: &BTreeMap<String, String>,
    appends: usize,
    pages: usize,
    context: &str,
) {
    let log = std::fs::read_to_string(root.join(".outl/oplog")).unwrap_or_default();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    let mut newest: BTreeMap<String, Option<String>> = BTreeMap::new();
    for line in log.lines() {
        let header = line.split('\t').next().unwrap_or_default();
        let op: Value = serde_json::from_str(header)
            .unwrap_or_else(|e| panic!("{context}: an op log line is not JSON ({e})"));
        *kinds
            .entry(op["kind"].as_str().unwrap_or_default().to_owned())
            .or_default() += 1;
        for change in op["pages"].as_array().into_iter().flatten() {
            if let Some(file) = change["before"]["file"].as_str() {
                newest.insert(file.to_owned(), None);
            }
            if let Some(file) = change["after"]["file"].as_str() {
                let hash = change["after"]["hash"].as_str().map(str::to_owned);
                newest.insert(file.to_owned(), hash);
            }
        }
    }
    let count = |kind: &str| kinds.get(kind).copied().unwrap_or(0);
    assert_eq!(
        count("page.append"),
        appends,
        "{context}: appends in the log: {kinds:?}"
    );
    assert_eq!(
        count("page.create") - count("page.delete"),
        pages,
        "{context}: creations less deletions in the log: {kinds:?}"
    );
    for (file, hash) in on_disk {
        match newest.get(file) {
            Some(Some(logged)) => assert_eq!(logged, hash, "{context}: {file} is not as logged"),
            Some(None) => panic!("{context}: {file} exists, but its newest op removed it"),
            None => assert_eq!(file, LOG_FILE, "{context}: {file} is in no op"),
        }
    }
    for (file, hash) in &newest {
        if hash.is_some() {
            assert!(
                on_disk.contains_key(file),
                "{context}: {file} is logged but missing"
            );
        }
    }
}
