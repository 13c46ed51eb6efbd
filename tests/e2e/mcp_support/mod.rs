//! Driving the built `outl` binary through `outl-client` (a stdio MCP session, `outl serve`
//! and its sessions), with what these tests add: a failed exchange fails the test, the
//! protocol checks every test relies on, and outl's own fixtures and replies.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

pub use outl_client::HttpResponse;

pub const OUTL: &str = env!("CARGO_BIN_EXE_outl");
const REPLY_TIMEOUT: Duration = Duration::from_secs(20);
/// The client name these tests initialize with.
const CLIENT: &str = "outl-tests";

/// An `outl mcp` child process; a missing reply fails the test instead of hanging it.
pub struct StdioSession {
    session: outl_client::StdioSession,
}

impl StdioSession {
    pub fn start(workspace: &Path) -> Self {
        Self::start_with(workspace, &[])
    }

    pub fn start_with(workspace: &Path, env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(OUTL);
        command
            .args(["mcp", "--workspace"])
            .arg(workspace)
            .envs(env.iter().copied())
            .stderr(Stdio::null());
        let session =
            outl_client::StdioSession::spawn(command, REPLY_TIMEOUT).expect("spawn outl mcp");
        StdioSession { session }
    }

    pub fn send_line(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    pub fn send(&mut self, message: &Value) {
        self.session.send(message).expect("write to outl");
    }

    /// Sends `bytes` and a newline as they are: invalid UTF-8 and lone control bytes included.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.session.send_bytes(bytes).expect("write to outl");
    }

    /// The next line outl writes within `wait`, parsed; `None` when nothing came (or outl
    /// has exited and its output is drained).
    pub fn recv_within(&mut self, wait: Duration) -> Option<Value> {
        match self.session.recv_within(wait) {
            Ok(message) => message,
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => None,
            Err(e) => panic!("{e}"),
        }
    }

    /// Ends outl with SIGKILL, as a crash or an out-of-memory kill would, and waits for it.
    /// What it wrote before dying can still be read with [`recv_within`](Self::recv_within).
    pub fn kill(&mut self) {
        self.session.kill().expect("kill outl mcp");
    }

    /// A ping answered within the reply timeout: the session is alive.
    pub fn assert_alive(&mut self) {
        let id = self.session.next_id();
        let pong = self.request(id, "ping", json!({}));
        assert!(pong["result"].is_object(), "ping: {pong}");
    }

    /// The next line outl writes, parsed; every stdout line must be one JSON-RPC message.
    pub fn recv(&mut self) -> Value {
        let message = self
            .session
            .recv()
            .unwrap_or_else(|e| panic!("a reply from outl: {e}"));
        assert_eq!(
            message["jsonrpc"], "2.0",
            "not a JSON-RPC message: {message}"
        );
        message
    }

    /// Nothing more arrives within `wait`.
    pub fn assert_silent(&mut self, wait: Duration) {
        if let Some(message) = self.recv_within(wait) {
            panic!("expected no output, got {message}");
        }
    }

    pub fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(&outl_client::request(id, method, params));
        let reply = self.recv();
        assert_eq!(reply["id"], id, "reply to another request: {reply}");
        reply
    }

    /// A session on `workspace`, initialized at the protocol version the tool tests speak.
    pub fn initialized(workspace: &Path) -> Self {
        Self::initialized_with(workspace, &[])
    }

    /// [`StdioSession::initialized`] with extra environment variables.
    pub fn initialized_with(workspace: &Path, env: &[(&str, &str)]) -> Self {
        let mut session = Self::start_with(workspace, env);
        session.initialize("2025-06-18");
        session
    }

    pub fn initialize(&mut self, version: &str) -> Value {
        let reply = self.request(0, "initialize", initialize_params(version));
        self.send(&outl_client::notification("notifications/initialized"));
        reply
    }

    pub fn call_tool(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        self.request(id, "tools/call", outl_client::tool_call(name, &arguments))
    }

    /// A tools/call with the next free request id.
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        let id = self.session.next_id();
        self.call_tool(id, name, arguments)
    }

    /// Closes stdin and waits for a clean exit.
    pub fn finish(mut self) {
        let status = self.session.finish().expect("wait for outl");
        assert!(status.success(), "outl mcp exited with {status}");
    }
}

impl Drop for StdioSession {
    fn drop(&mut self) {
        // Only reached with the child still running when a test failed midway, or left its
        // session open: it is abandoned, not asked to end.
        let _ = self.session.kill();
    }
}

pub fn initialize_params(version: &str) -> Value {
    outl_client::initialize_params(version, CLIENT)
}

/// `content[0].text` of a tools/call result.
pub fn text_of(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {result}"))
}

/// The parsed payload of a successful json tool reply, after checking the RFC 0276 shape (see
/// [`wire_payload`]), its outline nodes read as objects (see [`read_nodes`]).
pub fn json_payload(reply: &Value) -> Value {
    with_nodes_read(wire_payload(reply))
}

/// A reply's data with the outline nodes of its members read as objects (see [`read_nodes`]).
pub fn with_nodes_read(mut data: Value) -> Value {
    for key in NODE_KEYS {
        if let Some(nodes) = data.get_mut(key) {
            *nodes = read_nodes(nodes.take());
        }
    }
    data
}

/// The members of a reply that hold outline nodes: a list of them or one.
const NODE_KEYS: [&str; 3] = ["outline", "block", "tree"];

/// The payload of a JSON success reply as the wire carries it, after checking the RFC 0276
/// shape: no `structuredContent`, not an error, compact JSON text, and no `tokens` anywhere.
pub fn wire_payload(reply: &Value) -> Value {
    let result = &reply["result"];
    assert!(
        result.get("structuredContent").is_none(),
        "a success carries no structuredContent: {result}"
    );
    assert_ne!(result["isError"], true, "expected a success: {result}");
    let text = text_of(result);
    let data: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("the payload is JSON ({e}): {text}"));
    assert_eq!(text, data.to_string(), "the payload is compact JSON");
    assert!(
        !text.contains("\"tokens\""),
        "tokens are pruned on the wire: {text}"
    );
    data
}

/// Outline nodes as the wire sends them, `[id, text, fields, children]` (a list of them, one,
/// or null), as objects: `{id, text, ...fields, children}`, `children` only when there are
/// some. A node that is not such an array fails the test.
fn read_nodes(nodes: Value) -> Value {
    match nodes {
        Value::Null => Value::Null,
        Value::Array(items) if items.first().is_some_and(Value::is_array) || items.is_empty() => {
            items.into_iter().map(read_nodes).collect()
        }
        Value::Array(node) => {
            let mut parts = node.into_iter();
            let (Some(id @ Value::String(_)), Some(text @ Value::String(_))) =
                (parts.next(), parts.next())
            else {
                panic!("a node starts with its id and text")
            };
            let mut object = serde_json::Map::from_iter([("id".into(), id), ("text".into(), text)]);
            for part in parts {
                match part {
                    Value::Object(fields) => {
                        assert!(!fields.is_empty(), "an empty fields object is left out");
                        object.extend(fields);
                    }
                    Value::Array(children) => {
                        assert!(!children.is_empty(), "an empty children array is left out");
                        object.insert("children".into(), read_nodes(Value::Array(children)));
                    }
                    other => panic!("a node's part after its text: {other}"),
                }
            }
            Value::Object(object)
        }
        other => panic!("outline nodes are arrays on the wire: {other}"),
    }
}

/// `structuredContent.error` of an error reply, after checking that it is one: `isError`,
/// the `{ok: false, error}` envelope, and a one-line `CODE: message` text.
pub fn tool_error(reply: &Value) -> Value {
    let result = &reply["result"];
    assert_eq!(result["isError"], true, "expected a tool error: {result}");
    let structured = &result["structuredContent"];
    assert_eq!(structured["ok"], false, "{result}");
    let error = structured["error"].clone();
    let code = error["code"].as_str().expect("an error code");
    let text = text_of(result);
    assert!(
        text.starts_with(&format!("{code}: ")) && !text.contains('\n'),
        "the text is a one-line summary: {text}"
    );
    error
}

/// Every outline node of a reply, depth first.
pub fn outline_nodes(outline: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    for node in outline.as_array().expect("an outline array") {
        out.push(node);
        out.extend(outline_nodes(children(node)));
    }
    out
}

/// A node's children: on the MCP wire a leaf has no `children` (docs/mcp.md, the projection
/// rule), which reads as none.
pub fn children(node: &Value) -> &Value {
    static NONE: Value = Value::Array(Vec::new());
    node.get("children").unwrap_or(&NONE)
}

/// The pointers of an INVALID_ARGUMENTS error's problems.
pub fn problem_pointers(error: &Value) -> Vec<&str> {
    assert_eq!(error["code"], "INVALID_ARGUMENTS", "{error}");
    error["data"]["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| p["pointer"].as_str().expect("a pointer"))
        .collect()
}

/// `field` of every element of `list`, `""` where it is not a string.
pub fn column<'a>(list: &'a Value, field: &str) -> Vec<&'a str> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|item| item[field].as_str().unwrap_or(""))
        .collect()
}

/// A temporary copy of the demo workspace (`examples/demo`), outl state not included.
pub fn demo_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/demo");
    for folder in ["pages", "journals"] {
        let target = dir.path().join(folder);
        std::fs::create_dir_all(&target).expect("create folder");
        for entry in std::fs::read_dir(demo.join(folder)).expect("read the demo") {
            let entry = entry.expect("demo entry");
            std::fs::copy(entry.path(), target.join(entry.file_name())).expect("copy a page");
        }
    }
    dir
}

/// A fresh workspace holding `files` (path relative to it, content).
pub fn workspace_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    for (path, content) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("create folder");
        std::fs::write(&path, content).expect("write a file");
    }
    dir
}

/// Opens `workspace` once with `outl call`, so that a server started on it afterwards writes
/// nothing when it opens it. A server answers before its workspace is open, and a first open
/// writes the op log and the sidecars: a test that compares the files before and after some
/// input calls this first, so that "before" does not depend on how far that open has got.
pub fn open_once(workspace: &Path) {
    let info = outl_call(workspace, "outl_workspace_info", &json!({}), &[]);
    assert_eq!(info["ok"], true, "open {}: {info}", workspace.display());
}

/// Every file under `root`, `.outl/` included, by path relative to it, with its bytes.
pub fn files_of(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("read a workspace folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path.strip_prefix(root).expect("inside the root");
                let bytes = std::fs::read(&path).expect("read a workspace file");
                out.insert(relative.to_string_lossy().into_owned(), bytes);
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Fails, naming the files, unless `root` holds exactly the files and bytes of `before`.
pub fn assert_files_unchanged(
    before: &std::collections::BTreeMap<String, Vec<u8>>,
    root: &Path,
    context: &str,
) {
    let after = files_of(root);
    let changed: Vec<&String> = before
        .keys()
        .chain(after.keys())
        .filter(|path| before.get(*path) != after.get(*path))
        .collect();
    assert!(
        changed.is_empty(),
        "{context}: the workspace changed: {changed:?}"
    );
}

/// `outl call TOOL --args ARGS` on `workspace`: the printed `{ok, data, error}` envelope.
pub fn outl_call(workspace: &Path, tool: &str, args: &Value, env: &[(&str, &str)]) -> Value {
    let output = Command::new(OUTL)
        .args(["call", tool, "--args"])
        .arg(args.to_string())
        .arg("--workspace")
        .arg(workspace)
        .envs(env.iter().copied())
        .output()
        .expect("run outl call");
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("outl call prints JSON ({e}): {stdout}"))
}

/// An `outl serve --port 0` child and the address it printed.
pub struct HttpServer {
    server: outl_client::HttpServer,
    pub addr: String,
}

impl HttpServer {
    pub fn start(workspace: &Path, extra: &[&str]) -> Self {
        let mut command = Command::new(OUTL);
        command
            .args(["serve", "--port", "0", "--workspace"])
            .arg(workspace)
            .args(extra)
            .env_remove("OUTL_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        let server = outl_client::HttpServer::spawn(command, REPLY_TIMEOUT)
            .expect("outl serve prints its URL");
        let addr = server.addr.clone();
        HttpServer { server, addr }
    }

    /// One POST to /mcp; `headers` are added as given.
    pub fn post(&self, body: &[u8], headers: &[(&str, &str)]) -> HttpResponse {
        self.server
            .post(body, headers)
            .unwrap_or_else(|e| panic!("POST to outl serve: {e}"))
    }

    pub fn post_json(&self, message: &Value, headers: &[(&str, &str)]) -> HttpResponse {
        self.post(message.to_string().as_bytes(), headers)
    }

    /// Initializes an MCP session and sends `notifications/initialized`.
    pub fn session(&self) -> HttpSession {
        let session = self
            .server
            .session(HttpSession::VERSION, CLIENT)
            .unwrap_or_else(|e| panic!("an MCP session: {e}"));
        HttpSession {
            id: session.id().to_owned(),
            session: std::cell::RefCell::new(session),
        }
    }

    /// Opens the session's standalone SSE stream (GET /mcp) and leaves it open.
    pub fn open_event_stream(&self, session: &str) -> TcpStream {
        let mut stream = TcpStream::connect(&self.addr).expect("connect to outl serve");
        let request = format!(
            "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\r\n",
            self.addr
        );
        stream.write_all(request.as_bytes()).expect("send GET");
        stream
            .set_read_timeout(Some(REPLY_TIMEOUT))
            .expect("timeout");
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).expect("a response head");
        assert_eq!(&head, b"HTTP/1.1 200", "the event stream opens");
        stream
    }

    /// Sends Ctrl-C's signal and waits for the process to end.
    #[cfg(unix)]
    pub fn interrupt(self) -> std::process::ExitStatus {
        self.server
            .interrupt()
            .unwrap_or_else(|e| panic!("outl serve did not stop on SIGINT: {e}"))
    }
}

/// One MCP session of an [`HttpServer`]: its requests carry the session id.
pub struct HttpSession {
    session: std::cell::RefCell<outl_client::HttpSession>,
    pub id: String,
}

impl HttpSession {
    pub const VERSION: &'static str = "2025-06-18";

    /// POSTs `body` as it is, inside the session.
    pub fn post(&self, body: &[u8]) -> HttpResponse {
        self.session
            .borrow_mut()
            .post(body)
            .unwrap_or_else(|e| panic!("POST in the session: {e}"))
    }

    /// A request and its one reply message.
    pub fn request(&self, method: &str, params: Value) -> Value {
        self.session
            .borrow_mut()
            .request(method, params)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// A tools/call; the reply as [`StdioSession::call`] returns it.
    pub fn call(&self, name: &str, arguments: Value) -> Value {
        self.request("tools/call", outl_client::tool_call(name, &arguments))
    }

    /// A ping answered: the server and this session are alive.
    pub fn assert_alive(&self) {
        let pong = self.request("ping", json!({}));
        assert!(pong["result"].is_object(), "ping: {pong}");
    }
}

/// The lines that differ between two versions of a file, each with its line break as written:
/// `-line` for one only `before` has, `+line` for one only `after` has, in file order (a
/// longest common subsequence keeps the rest). A line that moved is both.
pub fn changed_lines(before: &str, after: &str) -> Vec<String> {
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    // common[i][j]: the longest common subsequence of old[i..] and new[j..].
    let mut common = vec![vec![0usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut changed = Vec::new();
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            i += 1;
            j += 1;
        } else if j == new.len() || (i < old.len() && common[i + 1][j] >= common[i][j + 1]) {
            changed.push(format!("-{}", old[i]));
            i += 1;
        } else {
            changed.push(format!("+{}", new[j]));
            j += 1;
        }
    }
    changed
}
