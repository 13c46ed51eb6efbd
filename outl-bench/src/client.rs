//! Minimal MCP clients of the real `outl` binary: a stdio session with the server as a
//! child process, and Streamable HTTP sessions against `outl serve` on loopback.

use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// The protocol version the benchmarks speak.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "outl-bench", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// The `result` of a reply, or why there is none: a JSON-RPC error or an `isError` result.
pub fn result_of(reply: Value) -> io::Result<Value> {
    let mut reply = reply;
    if let Some(error) = reply.get("error") {
        return Err(io::Error::other(format!("JSON-RPC error: {error}")));
    }
    let result = reply
        .get_mut("result")
        .map(Value::take)
        .ok_or_else(|| io::Error::other(format!("a reply without result: {reply}")))?;
    if result.get("isError") == Some(&Value::Bool(true)) {
        return Err(io::Error::other(format!(
            "tool error: {}",
            text_of(&result)
        )));
    }
    Ok(result)
}

/// `content[0].text` of a tools/call result.
pub fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

/// An `outl mcp` child process. Requests are written and replies read on the calling thread,
/// so a timing covers the server and the pipe, not a hand-off between threads; a watchdog
/// kills the child if the whole session outlives its time limit, which ends any read.
pub struct StdioServer {
    child: Arc<Mutex<Child>>,
    /// `None` once closed, which asks the server to end.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: String,
    next_id: i64,
    /// Dropping it stops the watchdog.
    _watchdog: mpsc::Sender<()>,
}

impl StdioServer {
    /// Spawns `OUTL mcp --workspace DIR`; the session is killed after `limit`.
    pub fn spawn(outl: &Path, workspace: &Path, limit: Duration) -> io::Result<StdioServer> {
        let mut child = Command::new(outl)
            .arg("mcp")
            .arg("--workspace")
            .arg(workspace)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| io::Error::other("no stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout"))?;
        let child = Arc::new(Mutex::new(child));
        let (watchdog, stop) = mpsc::channel::<()>();
        let watched = Arc::clone(&child);
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(limit) {
                eprintln!("outl-bench: the server outlived {limit:?}; killing it");
                if let Ok(mut child) = watched.lock() {
                    let _ = child.kill();
                }
            }
        });
        Ok(StdioServer {
            child,
            stdin: Some(stdin),
            stdout: BufReader::with_capacity(1 << 20, stdout),
            line: String::new(),
            next_id: 0,
            _watchdog: watchdog,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.lock().map(|child| child.id()).unwrap_or(0)
    }

    /// Writes one request and returns its id.
    pub fn send(&mut self, method: &str, params: Value) -> io::Result<i64> {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let stdin = self.stdin()?;
        writeln!(stdin, "{message}")?;
        stdin.flush()?;
        Ok(id)
    }

    pub fn notify(&mut self, method: &str) -> io::Result<()> {
        let stdin = self.stdin()?;
        writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "method": method}))?;
        stdin.flush()
    }

    fn stdin(&mut self) -> io::Result<&mut ChildStdin> {
        open_stdin(&mut self.stdin)
    }

    /// Reads lines until the reply to `id`; notifications in between are skipped.
    pub fn reply_to(&mut self, id: i64) -> io::Result<Value> {
        loop {
            self.line.clear();
            if self.stdout.read_line(&mut self.line)? == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed stdout",
                ));
            }
            let message: Value = serde_json::from_str(&self.line)
                .map_err(|e| io::Error::other(format!("a stdout line is not JSON: {e}")))?;
            if message.get("id").and_then(Value::as_i64) == Some(id) {
                return Ok(message);
            }
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> io::Result<Value> {
        let id = self.send(method, params)?;
        self.reply_to(id)
    }

    /// `initialize`, then `notifications/initialized`.
    pub fn initialize(&mut self) -> io::Result<Value> {
        let reply = self.request("initialize", initialize_params())?;
        self.notify("notifications/initialized")?;
        result_of(reply)
    }

    /// A tools/call; its result, or an error for a JSON-RPC error or an `isError` result.
    pub fn call(&mut self, tool: &str, arguments: &Value) -> io::Result<Value> {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": arguments}))?;
        result_of(reply)
    }

    /// Sends `count` tools/calls without waiting, from a second thread, while this one reads
    /// the replies; returns how many were errors.
    pub fn pipelined(
        &mut self,
        count: usize,
        request: impl Fn(usize) -> (String, Value) + Sync,
    ) -> io::Result<usize> {
        let first_id = self.next_id + 1;
        self.next_id += count as i64;
        let stdin = open_stdin(&mut self.stdin)?;
        let writer = |stdin: &mut ChildStdin| -> io::Result<()> {
            let mut out = io::BufWriter::new(stdin);
            for i in 0..count {
                let (tool, arguments) = request(i);
                let message = json!({"jsonrpc": "2.0", "id": first_id + i as i64, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
                writeln!(out, "{message}")?;
            }
            out.flush()
        };
        std::thread::scope(|scope| {
            let written = scope.spawn(move || writer(stdin));
            let mut errors = 0;
            let mut answered = 0;
            while answered < count {
                self.line.clear();
                if self.stdout.read_line(&mut self.line)? == 0 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the server closed stdout",
                    ));
                }
                let message: Value = serde_json::from_str(&self.line)
                    .map_err(|e| io::Error::other(format!("a stdout line is not JSON: {e}")))?;
                if message.get("id").is_some() {
                    answered += 1;
                    if result_of(message).is_err() {
                        errors += 1;
                    }
                }
            }
            written
                .join()
                .map_err(|_| io::Error::other("the writer thread panicked"))??;
            Ok(errors)
        })
    }

    /// The server's resident and peak memory, in bytes, from `/proc/PID/status` (Linux).
    pub fn memory(&self) -> Option<Memory> {
        Memory::of(self.pid())
    }
}

impl Drop for StdioServer {
    /// Ends the server as a host does: closes its stdin and lets it finish what it was doing
    /// (a cache being saved), killing it only if it has not ended after [`SHUTDOWN_GRACE`].
    fn drop(&mut self) {
        self.stdin = None;
        let asked = Instant::now();
        while asked.elapsed() < SHUTDOWN_GRACE {
            match self.child.lock().map(|mut child| child.try_wait()) {
                Ok(Ok(None)) => std::thread::sleep(Duration::from_millis(10)),
                _ => break,
            }
        }
        if let Ok(mut child) = self.child.lock() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn open_stdin(stdin: &mut Option<ChildStdin>) -> io::Result<&mut ChildStdin> {
    stdin
        .as_mut()
        .ok_or_else(|| io::Error::other("the server's stdin is closed"))
}

/// How long a server whose stdin was closed may take to end before it is killed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(60);

/// Resident memory of a process.
#[derive(Debug, Clone, Copy)]
pub struct Memory {
    /// VmRSS: resident now.
    pub resident: u64,
    /// VmHWM: the most it was ever resident.
    pub peak: u64,
}

impl Memory {
    pub fn of(pid: u32) -> Option<Memory> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .map(|kib| kib * 1024)
        };
        Some(Memory {
            resident: field("VmRSS:")?,
            peak: field("VmHWM:")?,
        })
    }
}

/// An `outl serve --port 0` child on loopback and the address it printed.
pub struct HttpServer {
    child: Child,
    pub addr: String,
}

impl HttpServer {
    pub fn spawn(outl: &Path, workspace: &Path, limit: Duration) -> io::Result<HttpServer> {
        let mut child = Command::new(outl)
            .args(["serve", "--host", "127.0.0.1", "--port", "0", "--workspace"])
            .arg(workspace)
            .env_remove("OUTL_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| io::Error::other("no stderr"))?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                match line.strip_prefix("outl: serving MCP at http://") {
                    Some(url) => {
                        let _ = tx.send(url.trim_end_matches("/mcp").to_owned());
                    }
                    None => eprintln!("{line}"),
                }
            }
        });
        match rx.recv_timeout(limit) {
            Ok(addr) => Ok(HttpServer { child, addr }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(io::Error::other("outl serve did not print its address"))
            }
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One MCP session over one kept-alive HTTP/1.1 connection.
pub struct HttpSession {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    addr: String,
    session: Option<String>,
    next_id: i64,
}

impl HttpSession {
    /// Connects and initializes.
    pub async fn open(addr: &str) -> io::Result<HttpSession> {
        let stream = tokio::net::TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(io::Error::other)?;
        tokio::spawn(connection);
        let mut session = HttpSession {
            sender,
            addr: addr.to_owned(),
            session: None,
            next_id: 0,
        };
        let reply = session.request("initialize", initialize_params()).await?;
        result_of(reply)?;
        session
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(session)
    }

    pub async fn call(&mut self, tool: &str, arguments: &Value) -> io::Result<Value> {
        let reply = self
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await?;
        result_of(reply)
    }

    async fn request(&mut self, method: &str, params: Value) -> io::Result<Value> {
        self.next_id += 1;
        let id = self.next_id;
        let messages = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        messages
            .into_iter()
            .find(|m| m.get("id").and_then(Value::as_i64) == Some(id))
            .ok_or_else(|| io::Error::other(format!("no reply to {method}")))
    }

    /// POSTs one message; returns the JSON-RPC messages of the answer (JSON or SSE).
    async fn post(&mut self, message: &Value) -> io::Result<Vec<Value>> {
        let mut request = hyper::Request::post("/mcp")
            .header(hyper::header::HOST, &self.addr)
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .header(hyper::header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", PROTOCOL_VERSION);
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let request = request
            .body(Full::new(Bytes::from(message.to_string())))
            .map_err(io::Error::other)?;
        self.sender.ready().await.map_err(io::Error::other)?;
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(io::Error::other)?;
        let status = response.status();
        if let Some(session) = response.headers().get("mcp-session-id")
            && let Ok(session) = session.to_str()
        {
            self.session = Some(session.to_owned());
        }
        let is_json = response
            .headers()
            .get(hyper::header::CONTENT_TYPE)
            .and_then(|t| t.to_str().ok())
            .is_some_and(|t| t.starts_with("application/json"));
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(io::Error::other)?
            .to_bytes();
        if !status.is_success() {
            return Err(io::Error::other(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(&body)
            )));
        }
        if body.is_empty() {
            return Ok(Vec::new());
        }
        let text = std::str::from_utf8(&body).map_err(io::Error::other)?;
        if is_json {
            return Ok(vec![serde_json::from_str(text).map_err(io::Error::other)?]);
        }
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| !data.is_empty())
            .map(|data| serde_json::from_str(data).map_err(io::Error::other))
            .collect()
    }
}
