//! `outl mcp` and `outl serve` answer before the workspace is open: a folder outl cannot use
//! still stops them at once, `initialize` and `tools/list` never wait for the open, a
//! `tools/call` waits for it and gets the reply it would have got after, and an open that fails
//! fails every call with its error.
//!
//! To hold a workspace in the middle of its open without timing anything, the tests take the
//! workspace lock themselves, as another outl process writing would: the open waits for the
//! lock, so whatever the server answers while the test holds it was answered before the
//! workspace was open.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::mcp_support::{
    HttpServer, OUTL, StdioSession, demo_workspace, initialize_params, json_payload, open_once,
    outl_call, tool_error,
};
use serde_json::{Value, json};

/// How long a server may take to exit before the test gives up on it.
const EXIT_TIMEOUT: Duration = Duration::from_secs(20);

/// The workspace lock of `root`, held until the returned file is dropped.
fn hold_lock(root: &Path) -> File {
    let lock = File::options()
        .read(true)
        .write(true)
        .open(root.join(".outl/lock"))
        .expect("open the workspace lock");
    fs4::fs_std::FileExt::lock_exclusive(&lock).expect("take the workspace lock");
    lock
}

/// A demo workspace that outl has opened once, so that its lock file exists.
fn opened_demo_workspace() -> tempfile::TempDir {
    let ws = demo_workspace();
    open_once(ws.path());
    ws
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn tool_call(id: i64, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

/// Runs `outl ARGS`, which is expected to stop by itself, with stdin closed.
fn run_to_exit(args: &[&str], root: &Path) -> Output {
    let child = Command::new(OUTL)
        .args(args)
        .arg("--workspace")
        .arg(root)
        .env_remove("OUTL_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn outl");
    let pid = child.id();
    let (done, output) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match output.recv_timeout(EXIT_TIMEOUT) {
        Ok(output) => output.expect("wait for outl"),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("outl {args:?} on {} did not stop by itself", root.display());
        }
    }
}

#[test]
fn a_folder_outl_cannot_use_stops_mcp_and_serve_at_once_with_the_error_outl_call_gives() {
    let scratch = tempfile::tempdir().expect("temp dir");
    let file = scratch.path().join("notes.md");
    std::fs::write(&file, "- a file, not a folder\n").expect("write a file");

    let escaping = scratch.path().join("escaping");
    let outside = scratch.path().join("outside");
    std::fs::create_dir_all(&outside).expect("create a folder outside");
    std::fs::create_dir_all(&escaping).expect("create the workspace");
    std::os::unix::fs::symlink(&outside, escaping.join("pages")).expect("symlink pages/");

    let lock_is_a_folder = scratch.path().join("lock-is-a-folder");
    std::fs::create_dir_all(lock_is_a_folder.join(".outl/lock")).expect("a folder named lock");

    for (case, root) in [
        ("a file", file.clone()),
        ("a path under a file", file.join("sub")),
        ("pages/ leading outside", escaping),
        ("an unusable lock file", lock_is_a_folder),
    ] {
        let envelope = outl_call(&root, "outl_workspace_info", &json!({}), &[]);
        assert_eq!(envelope["ok"], false, "{case}: {envelope}");
        let error = &envelope["error"];
        let expected = format!(
            "outl: {}: {}\n",
            error["code"].as_str().expect("a code"),
            error["message"].as_str().expect("a message")
        );
        for command in [&["mcp"][..], &["serve", "--port", "0"]] {
            let output = run_to_exit(command, &root);
            assert_eq!(output.status.code(), Some(1), "{case}: outl {command:?}");
            assert_eq!(
                String::from_utf8_lossy(&output.stderr),
                expected,
                "{case}: outl {command:?}"
            );
            assert!(output.stdout.is_empty(), "{case}: outl {command:?}");
        }
    }
}

#[test]
fn an_open_that_fails_after_the_checks_fails_every_tools_call_with_its_error() {
    let ws = tempfile::tempdir().expect("temp workspace");
    // Opening the op log fails, after every check that stops the command at once has passed.
    std::fs::create_dir_all(ws.path().join(".outl/oplog")).expect("a folder named oplog");
    let envelope = outl_call(ws.path(), "outl_workspace_info", &json!({}), &[]);
    assert_eq!(envelope["ok"], false, "{envelope}");
    let open_error = &envelope["error"];
    assert_eq!(open_error["code"], "WORKSPACE_UNAVAILABLE", "{envelope}");

    let mut child = Command::new(OUTL)
        .arg("mcp")
        .arg("--workspace")
        .arg(ws.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn outl mcp");
    let input = [
        request(0, "initialize", initialize_params("2025-06-18")),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        request(1, "tools/list", json!({})),
        tool_call(2, "outl_workspace_info", json!({})),
        tool_call(3, "outl_page_list", json!({})),
        request(4, "ping", json!({})),
    ];
    let mut stdin = child.stdin.take().expect("stdin");
    for message in &input {
        writeln!(stdin, "{message}").expect("write to outl");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("wait for outl");
    assert!(
        output.status.success(),
        "outl mcp exited with {}",
        output.status
    );

    let replies: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON-RPC message"))
        .collect();
    let reply = |id: i64| {
        replies
            .iter()
            .find(|reply| reply["id"] == id)
            .unwrap_or_else(|| panic!("no reply to {id} in {replies:?}"))
    };
    assert_eq!(reply(0)["result"]["serverInfo"]["name"], "outl");
    let tools = reply(1)["result"]["tools"].as_array().expect("a tool list");
    assert!(tools.iter().any(|t| t["name"] == "outl_workspace_info"));
    for id in [2, 3] {
        assert_eq!(&tool_error(reply(id)), open_error, "reply to {id}");
    }
    assert!(reply(4)["result"].is_object());

    let stderr = String::from_utf8_lossy(&output.stderr);
    let message = open_error["message"].as_str().expect("a message");
    assert_eq!(
        stderr.matches(message).count(),
        1,
        "the error is logged once: {stderr}"
    );
}

#[test]
fn stdio_answers_while_the_workspace_opens_and_calls_wait_for_it() {
    let ws = opened_demo_workspace();
    let lock = hold_lock(ws.path());

    let mut session = StdioSession::start(ws.path());
    // All at once: the server reads them in order, so once it has answered tools/list (sent
    // after the calls) it has taken both calls in.
    for message in [
        request(0, "initialize", initialize_params("2025-06-18")),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        tool_call(1, "outl_workspace_info", json!({})),
        tool_call(2, "outl_page_get", json!({"slug": "pricing"})),
        request(3, "tools/list", json!({})),
        tool_call(4, "outl_no_such_tool", json!({})),
        request(5, "ping", json!({})),
    ] {
        session.send(&message);
    }
    // The open is waiting for the lock: what comes now was answered before it finished.
    let mut early: Vec<Value> = (0..4).map(|_| session.recv()).collect();
    early.sort_by_key(|reply| reply["id"].as_i64());
    let ids: Vec<&Value> = early.iter().map(|reply| &reply["id"]).collect();
    assert_eq!(ids, [0, 3, 4, 5], "answered while opening: {early:?}");
    assert_eq!(early[0]["result"]["serverInfo"]["name"], "outl");
    assert!(
        early[1]["result"]["tools"]
            .as_array()
            .is_some_and(|tools| tools.len() > 40)
    );
    assert_eq!(early[2]["error"]["code"], -32602, "an unknown tool");
    assert!(early[3]["result"].is_object());

    drop(lock);
    let mut waited: Vec<Value> = (0..2).map(|_| session.recv()).collect();
    waited.sort_by_key(|reply| reply["id"].as_i64());
    let info = json_payload(&waited[0]);
    assert_eq!(
        info["path"],
        ws.path()
            .canonicalize()
            .expect("root")
            .display()
            .to_string()
    );
    json_payload(&waited[1]);

    // The calls that waited got what the same calls get once the workspace is open.
    let info_after = session.call_tool(6, "outl_workspace_info", json!({}));
    let page_after = session.call_tool(7, "outl_page_get", json!({"slug": "pricing"}));
    assert_eq!(waited[0]["result"], info_after["result"]);
    assert_eq!(waited[1]["result"], page_after["result"]);
    session.finish();
}

#[test]
fn stdin_ending_while_the_workspace_opens_ends_the_server_without_waiting_for_the_open() {
    let ws = opened_demo_workspace();
    let _lock = hold_lock(ws.path());

    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    // A call that cannot be answered while the test holds the lock.
    session.send(&tool_call(1, "outl_workspace_info", json!({})));
    session.assert_alive();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        session.finish();
        let _ = done.send(());
    });
    assert!(
        finished.recv_timeout(EXIT_TIMEOUT).is_ok(),
        "outl mcp did not exit while its workspace was still opening"
    );
}

#[test]
fn http_sessions_share_the_opening_workspace() {
    let ws = opened_demo_workspace();
    let lock = hold_lock(ws.path());

    // `start` waits for the URL outl prints once it listens: before the workspace is open.
    let server = HttpServer::start(ws.path(), &[]);
    let first = server.session();
    let second = server.session();
    for session in [&first, &second] {
        let listed = session.request("tools/list", json!({}));
        assert!(
            listed["result"]["tools"]
                .as_array()
                .is_some_and(|tools| tools.len() > 40)
        );
        session.assert_alive();
    }

    let (waited, info_after) = std::thread::scope(|scope| {
        let waiting = scope.spawn(move || first.call("outl_workspace_info", json!({})));
        // Still answered at once while a call of the other session waits for the workspace.
        second.assert_alive();
        drop(lock);
        let waited = waiting.join().expect("the waiting call");
        (waited, second.call("outl_workspace_info", json!({})))
    });
    let info = json_payload(&waited);
    assert_eq!(
        info["path"],
        ws.path()
            .canonicalize()
            .expect("root")
            .display()
            .to_string()
    );
    assert_eq!(waited["result"], info_after["result"]);
}

#[cfg(unix)]
#[test]
fn ctrl_c_while_the_workspace_opens_stops_the_server() {
    let ws = opened_demo_workspace();
    let _lock = hold_lock(ws.path());
    let server = HttpServer::start(ws.path(), &[]);
    server.session().assert_alive();
    let status = server.interrupt();
    assert!(status.success(), "outl serve exited with {status}");
}
