//! A stdio session: the server as a child process, one JSON-RPC message per line each way.

use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::{initialize_params, notification, request, result_of, tool_call};

/// How long a server whose stdin was closed may take to end (a cache being saved) before it
/// is killed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(60);

/// The first id [`StdioSession::next_id`] hands out: far from the small ids callers pick.
const FIRST_ID: i64 = 1000;

/// A server spawned with piped stdin and stdout. Dropping it ends the server as a host does:
/// stdin closed, then killed if it has not ended after a grace period.
pub struct StdioSession {
    child: Child,
    /// `None` once closed, which asks the server to end.
    stdin: Option<ChildStdin>,
    stdout: Lines,
    next_id: i64,
    reply_timeout: Duration,
}

impl StdioSession {
    /// Spawns `command` with stdin and stdout piped; its arguments, environment and stderr are
    /// the caller's. A reply awaited longer than `reply_timeout` is an error.
    pub fn spawn(mut command: Command, reply_timeout: Duration) -> io::Result<StdioSession> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout"))?;
        Ok(StdioSession {
            child,
            stdin,
            stdout: Lines {
                reader: BufReader::with_capacity(1 << 20, stdout),
                line: Vec::new(),
            },
            next_id: FIRST_ID,
            reply_timeout,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A request id not used before in this session.
    pub fn next_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Writes `bytes` and a newline as they are (invalid UTF-8 included), flushed.
    pub fn send_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        let stdin = open_stdin(&mut self.stdin)?;
        stdin.write_all(bytes)?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    pub fn send(&mut self, message: &Value) -> io::Result<()> {
        self.send_bytes(message.to_string().as_bytes())
    }

    /// The next message the server writes within `wait`; `None` if none came. An error if the
    /// server closed stdout or wrote a line that is not JSON.
    pub fn recv_within(&mut self, wait: Duration) -> io::Result<Option<Value>> {
        self.stdout.message_within(wait)
    }

    /// The next message the server writes, within the reply timeout.
    pub fn recv(&mut self) -> io::Result<Value> {
        let wait = self.reply_timeout;
        self.recv_within(wait)?.ok_or_else(|| timed_out(wait))
    }

    /// The reply to request `id`; messages before it (notifications) are skipped.
    pub fn reply_to(&mut self, id: i64) -> io::Result<Value> {
        loop {
            let message = self.recv()?;
            if message.get("id").and_then(Value::as_i64) == Some(id) {
                return Ok(message);
            }
        }
    }

    /// A request with a fresh id, and its reply.
    pub fn request(&mut self, method: &str, params: Value) -> io::Result<Value> {
        let id = self.next_id();
        self.send(&request(id, method, params))?;
        self.reply_to(id)
    }

    /// `initialize` at protocol `version` as client `name`, then `notifications/initialized`;
    /// the reply to `initialize`.
    pub fn initialize(&mut self, version: &str, name: &str) -> io::Result<Value> {
        let reply = self.request("initialize", initialize_params(version, name))?;
        self.send(&notification("notifications/initialized"))?;
        Ok(reply)
    }

    /// Sends `count` tools/calls without waiting, from a second thread, while this one reads
    /// the replies; returns how many were errors.
    pub fn pipelined(
        &mut self,
        count: usize,
        call: impl Fn(usize) -> (String, Value) + Sync,
    ) -> io::Result<usize> {
        let first_id = self.next_id + 1;
        self.next_id += count as i64;
        let stdin = open_stdin(&mut self.stdin)?;
        let stdout = &mut self.stdout;
        let wait = self.reply_timeout;
        let write_all = |stdin: &mut ChildStdin| -> io::Result<()> {
            let mut out = io::BufWriter::new(stdin);
            for i in 0..count {
                let (tool, arguments) = call(i);
                let id = first_id + i as i64;
                let message = request(id, "tools/call", tool_call(&tool, &arguments));
                writeln!(out, "{message}")?;
            }
            out.flush()
        };
        std::thread::scope(|scope| {
            let written = scope.spawn(move || write_all(stdin));
            let mut errors = 0;
            let mut answered = 0;
            while answered < count {
                let message = stdout
                    .message_within(wait)?
                    .ok_or_else(|| timed_out(wait))?;
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

    /// Ends the server with SIGKILL, as a crash or an out-of-memory kill would, and waits for
    /// it. What it wrote before dying can still be read.
    pub fn kill(&mut self) -> io::Result<()> {
        self.child.kill()?;
        self.child.wait()?;
        self.stdin = None;
        Ok(())
    }

    /// Closes stdin and waits for the server to end; an error if it is still running after
    /// the grace period (it is killed then).
    pub fn finish(&mut self) -> io::Result<ExitStatus> {
        self.stdin = None;
        match self.wait_for_exit()? {
            Some(status) => Ok(status),
            None => {
                let _ = self.child.kill();
                Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the server did not end within {SHUTDOWN_GRACE:?} of its stdin closing"
                    ),
                ))
            }
        }
    }

    fn wait_for_exit(&mut self) -> io::Result<Option<ExitStatus>> {
        let asked = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(Some(status));
            }
            if asked.elapsed() >= SHUTDOWN_GRACE {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for StdioSession {
    fn drop(&mut self) {
        self.stdin = None;
        if !matches!(self.wait_for_exit(), Ok(Some(_))) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn open_stdin(stdin: &mut Option<ChildStdin>) -> io::Result<&mut ChildStdin> {
    stdin
        .as_mut()
        .ok_or_else(|| io::Error::other("the server's stdin is closed"))
}

fn timed_out(wait: Duration) -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        format!("no message from the server within {wait:?}"),
    )
}

/// The server's stdout, read line by line on the calling thread.
struct Lines {
    reader: BufReader<ChildStdout>,
    /// The line being read; a part of it read before a wait ran out stays for the next read.
    line: Vec<u8>,
}

impl Lines {
    fn message_within(&mut self, wait: Duration) -> io::Result<Option<Value>> {
        if !self.line_within(wait)? {
            return Ok(None);
        }
        let text = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
        let parsed = serde_json::from_slice(text).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "a stdout line is not JSON ({e}): {}",
                    String::from_utf8_lossy(text)
                ),
            )
        });
        self.line.clear();
        parsed.map(Some)
    }

    /// Reads up to a newline (left out of `line`) within `wait`; `false` if it did not come.
    fn line_within(&mut self, wait: Duration) -> io::Result<bool> {
        let deadline = Instant::now() + wait;
        loop {
            if self.reader.buffer().is_empty() {
                let left = deadline.saturating_duration_since(Instant::now());
                if !readable_within(self.reader.get_ref(), left)? {
                    return Ok(false);
                }
            }
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed stdout",
                ));
            }
            match available.iter().position(|&byte| byte == b'\n') {
                Some(end) => {
                    self.line.extend_from_slice(&available[..end]);
                    self.reader.consume(end + 1);
                    return Ok(true);
                }
                None => {
                    let taken = available.len();
                    self.line.extend_from_slice(available);
                    self.reader.consume(taken);
                }
            }
        }
    }
}

/// Whether `pipe` has something to read (or has closed) within `wait`.
#[cfg(unix)]
fn readable_within(pipe: &ChildStdout, wait: Duration) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    let mut watched = libc::pollfd {
        fd: pipe.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = libc::c_int::try_from(wait.as_millis()).unwrap_or(libc::c_int::MAX);
    loop {
        // SAFETY: one valid pollfd, alive for the call.
        let ready = unsafe { libc::poll(&mut watched, 1, millis) };
        if ready >= 0 {
            return Ok(ready > 0);
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Without `poll`, a read waits for the server however long it takes.
#[cfg(not(unix))]
fn readable_within(_pipe: &ChildStdout, _wait: Duration) -> io::Result<bool> {
    Ok(true)
}
