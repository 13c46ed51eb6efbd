//! Two outl processes writing one workspace at the same time, as a host's `outl mcp` and a
//! script's `outl call`s (or two hosts) would: no update is lost, no block id is handed out
//! twice, and a write is either done or refused with `CONFLICT` (and then done on a retry).
//!
//! `OUTL_CONCURRENT_WRITES` sets the writes of each writer (default 150 for two `outl mcp`
//! sessions; `outl call` starts a process per write and does a fifth of them). The release
//! run uses 1,000.

use std::collections::BTreeSet;
use std::path::Path;

use crate::mcp_support::{StdioSession, json_payload, outl_call, text_of};
use serde_json::{Value, json};

const SHARED: &str = "shared";
/// Times a writer retries a write refused with CONFLICT before the test fails.
const RETRIES: usize = 20;

fn writes_per_writer() -> usize {
    std::env::var("OUTL_CONCURRENT_WRITES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150)
}

/// One way of calling a tool: a reply's data, or the refusal's error code.
trait Caller: Send {
    fn run(&mut self, tool: &str, args: Value) -> Result<Value, String>;
}

impl Caller for StdioSession {
    fn run(&mut self, tool: &str, args: Value) -> Result<Value, String> {
        let reply = self.call(tool, args);
        if reply["result"]["isError"] == true {
            let code = &reply["result"]["structuredContent"]["error"]["code"];
            return Err(code.as_str().unwrap_or("?").to_owned());
        }
        Ok(json_payload(&reply))
    }
}

/// `outl call`, one process per write.
struct Cli<'a>(&'a Path);

impl Caller for Cli<'_> {
    fn run(&mut self, tool: &str, args: Value) -> Result<Value, String> {
        let envelope = outl_call(self.0, tool, &args, &[]);
        if envelope["ok"] == true {
            Ok(envelope["data"].clone())
        } else {
            Err(envelope["error"]["code"].as_str().unwrap_or("?").to_owned())
        }
    }
}

/// What one writer did.
#[derive(Debug, Default)]
struct Done {
    /// Texts of the blocks whose write was acknowledged.
    texts: Vec<String>,
    conflicts: usize,
}

/// Writes `writes` blocks into the shared page, alternating appends at the end with inserts
/// under the page's first block; a refusal must be CONFLICT and the retry must succeed.
fn write_blocks(caller: &mut dyn Caller, tag: &str, writes: usize, parent: &str) -> Done {
    let mut done = Done::default();
    for i in 0..writes {
        let text = format!("{tag}-{i}");
        let (tool, args) = if i % 2 == 0 {
            (
                "outl_page_append",
                json!({"slug": SHARED, "md": format!("- {text}")}),
            )
        } else {
            (
                "outl_block_insert",
                json!({"text": text, "parent_id": parent}),
            )
        };
        let mut attempt = 0;
        loop {
            match caller.run(tool, args.clone()) {
                Ok(_) => break,
                Err(code) if code == "CONFLICT" && attempt < RETRIES => {
                    done.conflicts += 1;
                    attempt += 1;
                }
                Err(code) => panic!("{text}: {tool} refused with {code} (attempt {attempt})"),
            }
        }
        done.texts.push(text);
    }
    done
}

/// A workspace with the shared page, and the id of its first block.
fn shared_workspace() -> (tempfile::TempDir, String) {
    let ws = tempfile::tempdir().expect("temp workspace");
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    let created = json_payload(&session.call(
        "outl_page_create",
        json!({"name": SHARED, "md": "- inserts go under here\n"}),
    ));
    let parent = created["ids"][0]
        .as_str()
        .unwrap_or_else(|| panic!("the new page's block ids: {created}"))
        .to_owned();
    session.finish();
    (ws, parent)
}

/// Every acknowledged block is on the page exactly once, every block id is unique, nothing is
/// frozen, and the server's markdown is the file's.
fn check_shared_page(root: &Path, done: &[&Done]) {
    let mut session = StdioSession::start(root);
    session.initialize("2025-06-18");
    let info = json_payload(&session.call("outl_workspace_info", json!({})));
    assert_eq!(info["frozen"], json!([]), "two outl processes froze a page");
    let page = json_payload(&session.call("outl_page_get", json!({"slug": SHARED})));
    let mut ids = BTreeSet::new();
    let mut texts = Vec::new();
    collect(&page["outline"], &mut ids, &mut texts);
    assert_eq!(ids.len(), texts.len(), "a block id was handed out twice");
    let expected: usize = done.iter().map(|d| d.texts.len()).sum::<usize>() + 1;
    assert_eq!(texts.len(), expected, "blocks on the page");
    let on_page: BTreeSet<&str> = texts.iter().map(String::as_str).collect();
    for text in done.iter().flat_map(|d| &d.texts) {
        assert!(on_page.contains(text.as_str()), "lost update: {text}");
    }
    let rendered = session.call("outl_page_render", json!({"slug": SHARED}));
    let file = std::fs::read_to_string(root.join(format!("pages/{SHARED}.md"))).expect("file");
    assert_eq!(
        text_of(&rendered["result"]),
        file,
        "the server serves the file"
    );
    session.finish();
}

fn collect(nodes: &Value, ids: &mut BTreeSet<String>, texts: &mut Vec<String>) {
    for node in nodes.as_array().into_iter().flatten() {
        ids.insert(node["id"].as_str().expect("a block id").to_owned());
        texts.push(node["text"].as_str().expect("a block text").to_owned());
        collect(&node["children"], ids, texts);
    }
}

#[test]
fn two_mcp_sessions_lose_no_update() {
    let writes = writes_per_writer();
    let (ws, parent) = shared_workspace();
    let root = ws.path();
    let mut results = std::thread::scope(|scope| {
        let writers: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|tag| {
                let parent = parent.clone();
                scope.spawn(move || {
                    let mut session = StdioSession::start(root);
                    session.initialize("2025-06-18");
                    let done = write_blocks(&mut session, tag, writes, &parent);
                    session.finish();
                    done
                })
            })
            .collect();
        writers
            .into_iter()
            .map(|w| w.join().expect("a writer thread"))
            .collect::<Vec<_>>()
    });
    let (b, a) = (results.pop().expect("b"), results.pop().expect("a"));
    eprintln!(
        "two sessions: {} + {} writes, {} + {} conflicts retried",
        a.texts.len(),
        b.texts.len(),
        a.conflicts,
        b.conflicts
    );
    check_shared_page(root, &[&a, &b]);
}

#[test]
fn an_mcp_session_and_outl_calls_lose_no_update() {
    let writes = writes_per_writer();
    let calls = (writes / 5).max(10);
    let (ws, parent) = shared_workspace();
    let root = ws.path();
    let (session_done, cli_done) = std::thread::scope(|scope| {
        let parent_for_session = parent.clone();
        let session = scope.spawn(move || {
            let mut session = StdioSession::start(root);
            session.initialize("2025-06-18");
            let done = write_blocks(&mut session, "mcp", writes, &parent_for_session);
            session.finish();
            done
        });
        let cli = scope.spawn(move || write_blocks(&mut Cli(root), "cli", calls, &parent));
        (
            session.join().expect("the session thread"),
            cli.join().expect("the outl call thread"),
        )
    });
    eprintln!(
        "session and outl call: {} + {} writes, {} + {} conflicts retried",
        session_done.texts.len(),
        cli_done.texts.len(),
        session_done.conflicts,
        cli_done.conflicts
    );
    check_shared_page(root, &[&session_done, &cli_done]);
}
