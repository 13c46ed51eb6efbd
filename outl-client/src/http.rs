//! Streamable HTTP: a server spawned on loopback, single requests written as given (headers
//! and bytes a hostile client would send included), and MCP sessions over a kept-alive
//! HTTP/1.1 connection.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::{initialize_params, notification, request, tool_call};

/// What `outl serve` prints on stderr once it listens, before the `host:port/mcp` it serves.
const SERVING_AT: &str = "outl: serving MCP at http://";

/// A server spawned with `--port 0` and the address it printed. Dropping it kills it.
pub struct HttpServer {
    child: Child,
    /// `host:port`.
    pub addr: String,
    timeout: Duration,
}

impl HttpServer {
    /// Spawns `command` (`outl serve --port 0 ...`) with stderr piped, and waits up to `timeout`
    /// for the address it prints; its other stderr lines go on to this process's stderr. Every
    /// later exchange with it is bounded by `timeout` too.
    pub fn spawn(mut command: Command, timeout: Duration) -> io::Result<HttpServer> {
        let mut child = command.stderr(Stdio::piped()).spawn()?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| io::Error::other("no stderr"))?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                match line.strip_prefix(SERVING_AT) {
                    Some(url) => {
                        let _ = tx.send(url.trim_end_matches("/mcp").to_owned());
                    }
                    None => eprintln!("{line}"),
                }
            }
        });
        match rx.recv_timeout(timeout) {
            Ok(addr) => Ok(HttpServer {
                child,
                addr,
                timeout,
            }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(io::Error::other(
                    "the server did not print the address it serves",
                ))
            }
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// One POST to /mcp on a connection of its own; see [`post`].
    pub fn post(&self, body: &[u8], headers: &[(&str, &str)]) -> io::Result<HttpResponse> {
        post(&self.addr, body, headers, self.timeout)
    }

    /// An initialized MCP session at protocol `version` as client `name`.
    pub fn session(&self, version: &str, name: &str) -> io::Result<HttpSession> {
        HttpSession::open(&self.addr, version, name, self.timeout)
    }

    /// Sends SIGINT, as Ctrl-C does, and waits for the server to end.
    #[cfg(unix)]
    pub fn interrupt(mut self) -> io::Result<ExitStatus> {
        let sent = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()?;
        if !sent.success() {
            return Err(io::Error::other(format!("kill -INT: {sent}")));
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(status);
            }
            if Instant::now() >= deadline {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the server did not end on SIGINT",
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One POST to `addr`'s /mcp on a connection of its own (`Connection: close`), `headers`
/// added as given; a `Host` among them replaces the address. The body is written even if the
/// server answers first (a 401 or 413 before it read a large body), and the answer read.
pub fn post(
    addr: &str,
    body: &[u8],
    headers: &[(&str, &str)],
    timeout: Duration,
) -> io::Result<HttpResponse> {
    let mut connection = Connection::open(addr, timeout)?;
    connection.exchange(addr, body, headers, false)
}

/// One MCP session over one kept-alive HTTP/1.1 connection (opened again if the server
/// closes it); its requests carry the session id and protocol version.
pub struct HttpSession {
    addr: String,
    id: String,
    version: String,
    connection: Option<Connection>,
    next_id: i64,
    timeout: Duration,
}

impl HttpSession {
    /// `initialize` (answered 200 with a session id), then `notifications/initialized`
    /// (answered 202).
    pub fn open(
        addr: &str,
        version: &str,
        name: &str,
        timeout: Duration,
    ) -> io::Result<HttpSession> {
        let mut session = HttpSession {
            addr: addr.to_owned(),
            id: String::new(),
            version: version.to_owned(),
            connection: None,
            next_id: 0,
            timeout,
        };
        let init = request(0, "initialize", initialize_params(version, name));
        let answer = exchange(
            &mut session.connection,
            addr,
            timeout,
            init.to_string().as_bytes(),
            &[],
        )?;
        expect_status(&answer, 200, "initialize")?;
        session.id = answer
            .header("mcp-session-id")
            .ok_or_else(|| io::Error::other(format!("initialize: no session id in {answer:?}")))?
            .to_owned();
        let initialized = session.post(
            notification("notifications/initialized")
                .to_string()
                .as_bytes(),
        )?;
        expect_status(&initialized, 202, "notifications/initialized")?;
        Ok(session)
    }

    /// The session id the server gave.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// POSTs `body` as it is, inside the session.
    pub fn post(&mut self, body: &[u8]) -> io::Result<HttpResponse> {
        let headers = [
            ("Mcp-Session-Id", self.id.as_str()),
            ("MCP-Protocol-Version", self.version.as_str()),
        ];
        exchange(
            &mut self.connection,
            &self.addr,
            self.timeout,
            body,
            &headers,
        )
    }

    /// A request with a fresh id and its reply (answered 200).
    pub fn request(&mut self, method: &str, params: Value) -> io::Result<Value> {
        self.next_id += 1;
        let id = self.next_id;
        let answer = self.post(request(id, method, params).to_string().as_bytes())?;
        expect_status(&answer, 200, method)?;
        answer
            .messages()?
            .into_iter()
            .find(|message| message.get("id").and_then(Value::as_i64) == Some(id))
            .ok_or_else(|| io::Error::other(format!("{method}: no reply in {answer:?}")))
    }

    /// A tools/call and its reply.
    pub fn call(&mut self, tool: &str, arguments: &Value) -> io::Result<Value> {
        self.request("tools/call", tool_call(tool, arguments))
    }
}

/// POSTs `body` on the kept-alive `connection` (opened first if there is none), and keeps it
/// for the next request if the answer left it open. A kept connection the server has closed
/// in the meantime is opened again, once.
fn exchange(
    connection: &mut Option<Connection>,
    addr: &str,
    timeout: Duration,
    body: &[u8],
    headers: &[(&str, &str)],
) -> io::Result<HttpResponse> {
    let (open, answer) = match connection.take() {
        Some(mut kept) => match kept.exchange(addr, body, headers, true) {
            Err(e) if closed_by_server(&e) => {
                let mut open = Connection::open(addr, timeout)?;
                let answer = open.exchange(addr, body, headers, true);
                (open, answer)
            }
            answer => (kept, answer),
        },
        None => {
            let mut open = Connection::open(addr, timeout)?;
            let answer = open.exchange(addr, body, headers, true);
            (open, answer)
        }
    };
    let answer = answer?;
    if open.reusable {
        *connection = Some(open);
    }
    Ok(answer)
}

fn closed_by_server(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
    )
}

fn expect_status(answer: &HttpResponse, status: u16, what: &str) -> io::Result<()> {
    if answer.status == status {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "{what}: expected HTTP {status}, got {answer:?}"
        )))
    }
}

/// An HTTP/1.1 connection to the server, read through a buffer.
struct Connection {
    reader: BufReader<TcpStream>,
    /// Whether the last answer left the connection open for another request.
    reusable: bool,
}

impl Connection {
    fn open(addr: &str, timeout: Duration) -> io::Result<Connection> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        Ok(Connection {
            reader: BufReader::new(stream),
            reusable: false,
        })
    }

    /// POSTs `body` to /mcp and reads the answer.
    fn exchange(
        &mut self,
        addr: &str,
        body: &[u8],
        headers: &[(&str, &str)],
        keep_alive: bool,
    ) -> io::Result<HttpResponse> {
        let host = headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("host"))
            .map_or(addr, |(_, value)| *value);
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            body.len()
        );
        if !keep_alive {
            head.push_str("Connection: close\r\n");
        }
        for (name, value) in headers
            .iter()
            .filter(|(name, _)| !name.eq_ignore_ascii_case("host"))
        {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        // One write, so that the request leaves in as few segments as it fits.
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        let written = self.reader.get_mut().write_all(&request);
        // The server may answer (401, 413) and close before it has read a large body: its
        // answer counts, and the failed write only if there is none.
        let (answer, framed) = match read_response(&mut self.reader) {
            Ok(read) => read,
            Err(unanswered) => return Err(written.err().unwrap_or(unanswered)),
        };
        self.reusable = keep_alive
            && framed
            && !answer
                .header("connection")
                .is_some_and(|value| value.eq_ignore_ascii_case("close"));
        Ok(answer)
    }
}

#[derive(Debug)]
pub struct HttpResponse {
    pub status: u16,
    /// Names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    /// The value of header `name` (in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC messages of the body, whether sent as JSON or as SSE `data:` events.
    pub fn messages(&self) -> io::Result<Vec<Value>> {
        let invalid = |e: serde_json::Error| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not JSON ({e}): {}", self.body),
            )
        };
        if self
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/json"))
        {
            return Ok(vec![serde_json::from_str(&self.body).map_err(invalid)?]);
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| !data.is_empty())
            .map(|data| serde_json::from_str(data).map_err(invalid))
            .collect()
    }
}

/// Reads one response; also whether its end was framed (a length or chunks), which leaves
/// the connection usable, rather than the connection's close.
fn read_response(reader: &mut BufReader<TcpStream>) -> io::Result<(HttpResponse, bool)> {
    let status_line = read_line(reader)?;
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| io::Error::other(format!("not an HTTP status line: {status_line:?}")))?;
    let mut headers = Vec::new();
    loop {
        let line = read_line(reader)?;
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let mut body = Vec::new();
    let framed = if find("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        read_chunks(reader, &mut body)?;
        true
    } else if let Some(length) = find("content-length") {
        let length: u64 = length
            .parse()
            .map_err(|_| io::Error::other(format!("a bad Content-Length: {length}")))?;
        reader.by_ref().take(length).read_to_end(&mut body)?;
        true
    } else {
        // A server that answered before reading the whole request may reset the connection
        // once its answer is out.
        if let Err(e) = reader.read_to_end(&mut body)
            && e.kind() != io::ErrorKind::ConnectionReset
        {
            return Err(e);
        }
        false
    };
    let response = HttpResponse {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    Ok((response, framed))
}

fn read_chunks(reader: &mut BufReader<TcpStream>, body: &mut Vec<u8>) -> io::Result<()> {
    loop {
        let size_line = read_line(reader)?;
        let size = u64::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| io::Error::other(format!("a bad chunk size: {size_line:?}")))?;
        if size == 0 {
            // Trailers, up to the empty line.
            while !read_line(reader)?.is_empty() {}
            return Ok(());
        }
        reader.by_ref().take(size).read_to_end(body)?;
        read_line(reader)?;
    }
}

/// One line without its line break; an error at the end of the stream.
fn read_line(reader: &mut BufReader<TcpStream>) -> io::Result<String> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ));
    }
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}
