//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, with a screen in front of
//! rmcp so that no input ends the session.
//!
//! rmcp on its own drops a line that is not JSON without a word, and ends a session whose
//! first message is a notification or a response rather than `initialize`. outl promises
//! instead that every bad line gets an answer when one is possible (JSON-RPC -32700 for
//! non-JSON, -32600 for JSON that is not a message, -32602 for a known method with bad
//! params), that a request before `initialize` is refused but the session goes on, and that
//! only the end of stdin ends it.
//!
//! A string with an unpaired UTF-16 surrogate escape (`"\ud800"`) is JSON that strict parsers
//! refuse; the screen reads such a message with each unpaired escape replaced by U+FFFD, so
//! that the request is answered with its own id. No answer quotes more of the message than an
//! excerpt ([`outl_workspace::excerpt`]).

use std::collections::VecDeque;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientJsonRpcMessage, ClientRequest, GetMeta, InitializeRequestParams,
    JsonRpcMessage, ProtocolVersion, ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use outl_registry::json;

/// The longest line read from stdin. A longer one is discarded as it streams in (never
/// buffered whole) and answered with -32600.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Outgoing messages waiting for stdout; beyond this, `send` waits for the client to read.
const OUTBOX_CAPACITY: usize = 64;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// The longest method name the screen hands to rmcp, whose "method not found" quotes it
/// whole; a request naming a longer one is answered -32601 with an excerpt of it.
const MAX_METHOD_BYTES: usize = 256;

/// What the screen decides about one input line.
#[derive(Debug)]
pub enum Verdict {
    /// A message rmcp can take. `repaired` holds the line with its unpaired surrogate escapes
    /// replaced, when it had any: what a transport that hands rmcp bytes must send instead.
    Forward {
        message: Box<ClientJsonRpcMessage>,
        repaired: Option<Vec<u8>>,
    },
    /// A JSON-RPC error response outl writes itself; rmcp never sees the line.
    Answer(Value),
    /// Nothing to answer (a blank line, or a notification or response nobody can act on).
    Ignore,
}

/// Decides line by line what reaches rmcp. It tracks one bit of lifecycle: whether rmcp has
/// left its handshake loop, before which a notification or response would end the session.
#[derive(Debug)]
pub struct Screen {
    session_open: bool,
    supported_versions: &'static [ProtocolVersion],
}

impl Screen {
    pub fn new(supported_versions: &'static [ProtocolVersion]) -> Self {
        Screen {
            session_open: false,
            supported_versions,
        }
    }

    pub fn judge(&mut self, line: &[u8]) -> Verdict {
        match screen_message(line) {
            Verdict::Forward { message, .. } => self.admit(*message),
            other => other,
        }
    }

    /// Keeps rmcp's handshake loop alive: before a session exists, only messages it accepts
    /// there get through.
    fn admit(&mut self, message: ClientJsonRpcMessage) -> Verdict {
        if self.session_open {
            return forward(message);
        }
        match &message {
            JsonRpcMessage::Request(request) => match &request.request {
                ClientRequest::InitializeRequest(_) => self.session_open = true,
                ClientRequest::PingRequest(_) => {}
                other => {
                    let meta = other.get_meta();
                    let Some(version) = meta.protocol_version() else {
                        return Verdict::Answer(error_response(
                            serde_json::to_value(&request.id).unwrap_or(Value::Null),
                            INVALID_REQUEST,
                            format!(
                                "{} before initialize: send initialize first (protocol 2026-07-28 \
                                 clients carry the protocol version and capabilities in params._meta)",
                                other.method()
                            ),
                        ));
                    };
                    // The same test rmcp applies before it starts an inline (2026-07-28)
                    // session; anything short of it is answered by rmcp's handshake loop.
                    let opens_session = !matches!(other, ClientRequest::DiscoverRequest(_))
                        && meta
                            .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                            .is_empty()
                        && self.supported_versions.contains(&version);
                    self.session_open = opens_session;
                }
            },
            JsonRpcMessage::Notification(_)
            | JsonRpcMessage::Response(_)
            | JsonRpcMessage::Error(_) => {
                tracing::debug!("ignoring a notification or response sent before initialize");
                return Verdict::Ignore;
            }
        }
        forward(message)
    }
}

fn forward(message: ClientJsonRpcMessage) -> Verdict {
    Verdict::Forward {
        message: Box::new(message),
        repaired: None,
    }
}

/// What one message says about itself, whatever the session's state: the checks shared by
/// stdio (line by line, before [`Screen::judge`]'s lifecycle check) and by Streamable HTTP
/// (request body by request body, before rmcp reads it).
pub fn screen_message(line: &[u8]) -> Verdict {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Ignore;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            if let Some(repaired) = without_unpaired_surrogates(line) {
                return match screen_message(&repaired) {
                    Verdict::Forward { message, .. } => Verdict::Forward {
                        message,
                        repaired: Some(repaired),
                    },
                    other => other,
                };
            }
            return Verdict::Answer(error_response(
                Value::Null,
                PARSE_ERROR,
                format!("Parse error: {e}"),
            ));
        }
    };
    let Value::Object(object) = &value else {
        let why = if value.is_array() {
            "Invalid Request: batches are not supported; send one message at a time"
        } else {
            "Invalid Request: a JSON-RPC message is an object"
        };
        return Verdict::Answer(error_response(Value::Null, INVALID_REQUEST, why.to_owned()));
    };
    let id = object.get("id").cloned();
    let id_is_valid = id.as_ref().is_some_and(|id| id.is_string() || id.is_i64());
    let method = object
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let is_response = object.contains_key("result") || object.contains_key("error");
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Verdict::Answer(error_response(
            answerable_id(id, id_is_valid),
            INVALID_REQUEST,
            "Invalid Request: \"jsonrpc\" must be \"2.0\"".to_owned(),
        ));
    }
    if method.is_some() && is_response {
        return Verdict::Answer(error_response(
            answerable_id(id, id_is_valid),
            INVALID_REQUEST,
            "Invalid Request: a message with a \"method\" is a request or a notification, and \
             has no \"result\" or \"error\""
                .to_owned(),
        ));
    }
    if let Some(long) = method.as_deref().filter(|m| m.len() > MAX_METHOD_BYTES) {
        if id.is_none() {
            return Verdict::Ignore;
        }
        return Verdict::Answer(error_response(
            answerable_id(id, id_is_valid),
            METHOD_NOT_FOUND,
            format!("Method not found: {}", outl_workspace::quoted(long)),
        ));
    }
    let message = match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        Ok(message) => message,
        Err(e) => return unreadable(method, is_response, id, id_is_valid, e),
    };
    if let JsonRpcMessage::Request(request) = &message
        && let ClientRequest::CustomRequest(custom) = &request.request
        && let Some(problem) = params_problem(&custom.method, custom.params.as_ref())
        // A 2026-07-28 request (its version in params._meta) calls initialize, which that
        // revision removed, rather than sending a malformed one: rmcp answers -32601 (404 over
        // HTTP), as the conformance suite's server-stateless scenario requires.
        && !(custom.method == "initialize"
            && request.request.get_meta().protocol_version().is_some())
    {
        return Verdict::Answer(error_response(
            serde_json::to_value(&request.id).unwrap_or(Value::Null),
            INVALID_PARAMS,
            format!("Invalid params for {}: {problem}", custom.method),
        ));
    }
    forward(message)
}

/// `line` with each unpaired surrogate escape in its strings (`\ud800` not followed by a low
/// surrogate escape, or a low one alone) replaced by `\ufffd`; `None` when it has none.
pub fn without_unpaired_surrogates(line: &[u8]) -> Option<Vec<u8>> {
    let hex_at = |at: usize| -> Option<u16> {
        let digits = line.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let escape_at = |at: usize| -> Option<u16> {
        if line.get(at..at + 2) != Some(b"\\u") {
            return None;
        }
        hex_at(at + 2)
    };
    let is_high = |unit: u16| (0xD800..0xDC00).contains(&unit);
    let is_low = |unit: u16| (0xDC00..0xE000).contains(&unit);
    let mut out: Option<Vec<u8>> = None;
    let (mut in_string, mut copied, mut i) = (false, 0, 0);
    while i < line.len() {
        match line[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                let Some(unit) = escape_at(i) else {
                    // Another escape: skip the escaped byte.
                    i += 2;
                    continue;
                };
                let paired = is_high(unit) && escape_at(i + 6).is_some_and(is_low);
                if paired {
                    i += 12;
                    continue;
                }
                if is_high(unit) || is_low(unit) {
                    let out = out.get_or_insert_with(|| Vec::with_capacity(line.len()));
                    out.extend_from_slice(&line[copied..i]);
                    out.extend_from_slice(b"\\ufffd");
                    copied = i + 6;
                }
                i += 6;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    let mut out = out?;
    out.extend_from_slice(&line[copied..]);
    Some(out)
}

/// A message of the right outline that rmcp cannot read.
fn unreadable(
    method: Option<String>,
    is_response: bool,
    id: Option<Value>,
    id_is_valid: bool,
    e: serde_json::Error,
) -> Verdict {
    match (method, id) {
        // A notification gets no answer, whatever is wrong with it.
        (Some(method), None) => {
            tracing::debug!(%method, error = %e, "ignoring an unreadable notification");
            Verdict::Ignore
        }
        // Unknown methods parse as custom requests when their params are an object, so
        // here the params do not fit the method, or are not an object at all.
        (Some(method), Some(id)) if id_is_valid => Verdict::Answer(error_response(
            id,
            INVALID_PARAMS,
            format!("Invalid params for {method}: {e}"),
        )),
        (Some(_), Some(_)) => Verdict::Answer(error_response(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: \"id\" must be a string or an integer".to_owned(),
        )),
        // A reply to a request outl sent: answering a response is never allowed.
        (None, _) if is_response => {
            tracing::debug!(error = %e, "ignoring an unreadable response");
            Verdict::Ignore
        }
        (None, id) => Verdict::Answer(error_response(
            answerable_id(id, id_is_valid),
            INVALID_REQUEST,
            format!("Invalid Request: {e}"),
        )),
    }
}

/// rmcp reads a served method whose params do not fit as a custom request, and would answer
/// it "method not found"; for the methods outl serves, this says what is wrong instead.
fn params_problem(method: &str, params: Option<&Value>) -> Option<String> {
    fn problem<T: DeserializeOwned>(params: Option<&Value>) -> Option<String> {
        let params = params.cloned().unwrap_or(Value::Null);
        Some(match serde_json::from_value::<T>(params) {
            Err(e) => e.to_string(),
            // The params fit on their own, so the envelope around them did not.
            Ok(_) => "the request does not match its method".to_owned(),
        })
    }
    match method {
        "initialize" => problem::<InitializeRequestParams>(params),
        "tools/call" => problem::<CallToolRequestParams>(params),
        _ => None,
    }
}

fn answerable_id(id: Option<Value>, id_is_valid: bool) -> Value {
    match id {
        Some(id) if id_is_valid => id,
        _ => Value::Null,
    }
}

/// A JSON-RPC error response; a message that quotes the input at length (a parser's own
/// message) is cut short ([`outl_workspace::shortened`]).
fn error_response(id: Value, code: i64, message: String) -> Value {
    let message = outl_workspace::shortened(&message);
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The answer to a message over a transport's size limit, which names the limit.
pub fn too_large_response(what: &str, limit_bytes: usize) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": INVALID_REQUEST,
            "message": format!(
                "Invalid Request: {what} is over the limit of {} MiB ({limit_bytes} bytes); \
                 send less per message (a long page in several writes)",
                limit_bytes >> 20
            ),
            "data": {"limit_bytes": limit_bytes},
        },
    })
}

/// The rmcp transport over a line reader and the shared stdout writer task.
pub struct StdioTransport<R> {
    reader: R,
    line: Vec<u8>,
    discarding: bool,
    screen: Screen,
    outbox: mpsc::Sender<Outgoing>,
    /// Answers decided by the screen, queued so that a cancelled `receive` loses none.
    answers: VecDeque<Value>,
}

impl<R: AsyncBufRead + Unpin + Send> StdioTransport<R> {
    /// The transport and the task that owns the writer; await the task after the service
    /// ends so the last replies reach the client.
    pub fn new<W>(reader: R, writer: W, screen: Screen) -> (Self, JoinHandle<()>)
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (outbox, queued) = mpsc::channel(OUTBOX_CAPACITY);
        let writer_task = tokio::spawn(write_lines(queued, writer));
        let transport = StdioTransport {
            reader,
            line: Vec::new(),
            discarding: false,
            screen,
            outbox,
            answers: VecDeque::new(),
        };
        (transport, writer_task)
    }

    /// Reads up to the next newline into `self.line`, never holding more than
    /// [`MAX_LINE_BYTES`]. Cancel-safe: a partial line stays in `self.line` for the next call.
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                // A last message without its newline still counts; the next call sees the end.
                let unterminated = !self.line.is_empty() && !self.discarding;
                return Ok(if unterminated {
                    LineRead::Line
                } else {
                    LineRead::Eof
                });
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let outcome = if self.discarding {
                if newline.is_some() {
                    self.discarding = false;
                }
                None
            } else if self.line.len() + take > MAX_LINE_BYTES {
                self.line.clear();
                self.discarding = newline.is_none();
                Some(LineRead::Oversized)
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| LineRead::Line)
            };
            self.reader.consume(take);
            if let Some(outcome) = outcome {
                return Ok(outcome);
            }
        }
    }

    async fn flush_answers(&mut self) -> bool {
        while !self.answers.is_empty() {
            let Ok(permit) = self.outbox.reserve().await else {
                return false;
            };
            if let Some(answer) = self.answers.pop_front() {
                permit.send(Outgoing::Answer(answer));
            }
        }
        true
    }
}

enum LineRead {
    Line,
    Oversized,
    Eof,
}

/// A message for stdout, serialized by the writer.
enum Outgoing {
    /// From rmcp.
    Message(Box<ServerJsonRpcMessage>),
    /// An answer of the screen's.
    Answer(Value),
}

impl Outgoing {
    /// Appends the message and its newline to `buffer`.
    fn write_line(&self, buffer: &mut Vec<u8>) {
        let start = buffer.len();
        let written = match self {
            Outgoing::Message(message) => json::write_compact(buffer, message),
            Outgoing::Answer(answer) => json::write_compact(buffer, answer),
        };
        // Messages are built from serde types with string keys; serializing them cannot fail.
        if written.is_err() {
            buffer.truncate(start);
        }
        buffer.push(b'\n');
    }
}

impl<R: AsyncBufRead + Unpin + Send> Transport<RoleServer> for StdioTransport<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let outbox = self.outbox.clone();
        async move {
            outbox
                .send(Outgoing::Message(Box::new(item)))
                .await
                .map_err(|_| {
                    std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed")
                })
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if !self.flush_answers().await {
                return None;
            }
            match self.read_line().await {
                Ok(LineRead::Line) => {}
                Ok(LineRead::Oversized) => {
                    tracing::warn!(max = MAX_LINE_BYTES, "discarding an oversized message");
                    self.answers
                        .push_back(too_large_response("the message", MAX_LINE_BYTES));
                    continue;
                }
                Ok(LineRead::Eof) => return None,
                Err(e) => {
                    tracing::error!(error = %e, "reading stdin failed");
                    return None;
                }
            }
            let verdict = self.screen.judge(&self.line);
            self.line.clear();
            match verdict {
                Verdict::Forward { message, .. } => return Some(*message),
                Verdict::Answer(answer) => self.answers.push_back(answer),
                Verdict::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Writes queued messages to `writer`, one line each: a burst of them serialized into one
/// buffer, kept from burst to burst, then written and flushed at once. The first message of a
/// burst (a large reply, when one is waited for) is freed once it is written, not before.
async fn write_lines<W: AsyncWrite + Unpin>(mut queued: mpsc::Receiver<Outgoing>, mut writer: W) {
    let mut buffer = Vec::new();
    while let Some(message) = queued.recv().await {
        message.write_line(&mut buffer);
        while buffer.len() < json::KEPT_BUFFER_BYTES
            && let Ok(more) = queued.try_recv()
        {
            more.write_line(&mut buffer);
        }
        let written = match writer.write_all(&buffer).await {
            Ok(()) => writer.flush().await,
            failed => failed,
        };
        if let Err(e) = written {
            tracing::error!(error = %e, "writing stdout failed");
            return;
        }
        drop(message);
        buffer.clear();
        if buffer.capacity() > json::KEPT_BUFFER_BYTES {
            buffer = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::SUPPORTED_PROTOCOL_VERSIONS;

    fn screen() -> Screen {
        Screen::new(SUPPORTED_PROTOCOL_VERSIONS)
    }

    fn answer(verdict: Verdict) -> Value {
        match verdict {
            Verdict::Answer(answer) => answer,
            other => panic!("expected an answer, got {other:?}"),
        }
    }

    fn forwarded(verdict: &Verdict) -> bool {
        matches!(verdict, Verdict::Forward { .. })
    }

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

    #[test]
    fn non_json_gets_a_parse_error_with_a_null_id() {
        let reply = answer(screen().judge(b"this is not json"));
        assert_eq!(reply["id"], Value::Null);
        assert_eq!(reply["error"]["code"], PARSE_ERROR);
    }

    #[test]
    fn json_that_is_not_a_message_gets_invalid_request() {
        let mut screen = screen();
        for line in [
            &b"[1,2]"[..],
            b"42",
            br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#,
            br#"{"id":3}"#,
        ] {
            let reply = answer(screen.judge(line));
            assert_eq!(
                reply["error"]["code"],
                INVALID_REQUEST,
                "for {}",
                String::from_utf8_lossy(line)
            );
        }
        let reply = answer(screen.judge(br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#));
        assert_eq!(reply["id"], 7, "a readable id is echoed");
    }

    #[test]
    fn a_known_method_with_bad_params_gets_invalid_params_with_its_id() {
        let mut screen = screen();
        assert!(forwarded(&screen.judge(INITIALIZE.as_bytes())));
        let reply = answer(screen.judge(
            br#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"arguments":{}}}"#,
        ));
        assert_eq!(reply["id"], "x");
        assert_eq!(reply["error"]["code"], INVALID_PARAMS);
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("name")),
            "{reply}"
        );
        let reply =
            answer(screen.judge(br#"{"jsonrpc":"2.0","id":5,"method":"initialize","params":{}}"#));
        assert_eq!(reply["error"]["code"], INVALID_PARAMS);
        assert!(forwarded(&screen.judge(
            br#"{"jsonrpc":"2.0","id":6,"method":"vendor/extension","params":{"x":1}}"#
        )));
    }

    #[test]
    fn an_initialize_in_the_2026_07_28_envelope_is_left_to_rmcp() {
        // That revision removed initialize: rmcp answers -32601, not outl -32602.
        let line = br#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        assert!(forwarded(&screen_message(line)));
    }

    #[test]
    fn before_initialize_requests_are_refused_and_notifications_dropped() {
        let mut screen = screen();
        let reply = answer(screen.judge(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#));
        assert_eq!(reply["id"], 2);
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("initialize"))
        );
        assert!(matches!(
            screen.judge(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Verdict::Ignore
        ));
        assert!(forwarded(
            &screen.judge(br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)
        ));
        assert!(forwarded(&screen.judge(INITIALIZE.as_bytes())));
        assert!(forwarded(&screen.judge(
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        )));
        assert!(forwarded(
            &screen.judge(br#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#)
        ));
    }

    #[test]
    fn unpaired_surrogate_escapes_are_replaced_and_the_request_keeps_its_id() {
        let line =
            br#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":"\ud800","b":"x\udfffy"}}"#;
        let repaired = without_unpaired_surrogates(line).expect("two to replace");
        assert_eq!(
            repaired,
            br#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{"a":"\ufffd","b":"x\ufffdy"}}"#
        );
        match screen_message(line) {
            Verdict::Forward { message, repaired } => {
                assert!(repaired.is_some());
                let JsonRpcMessage::Request(request) = *message else {
                    panic!("a request")
                };
                assert_eq!(serde_json::to_value(&request.id).unwrap(), 9);
            }
            other => panic!("expected the request, got {other:?}"),
        }
        // A pair, an escaped backslash before a `u`, and keys are left alone.
        for fine in [
            &br#"{"a":"\ud83d\ude00"}"#[..],
            br#"{"a":"\\ud800"}"#,
            br#"{"ud800":1}"#,
        ] {
            assert_eq!(without_unpaired_surrogates(fine), None);
        }
        assert_eq!(
            without_unpaired_surrogates(br#"{"\udc00":"\ud800\ud800"}"#).unwrap(),
            br#"{"\ufffd":"\ufffd\ufffd"}"#
        );
    }

    #[test]
    fn a_message_with_a_method_and_a_result_is_invalid() {
        for line in [
            &br#"{"jsonrpc":"2.0","id":6,"method":"ping","result":{}}"#[..],
            br#"{"jsonrpc":"2.0","id":6,"method":"ping","error":{"code":1,"message":"x"}}"#,
        ] {
            let reply = answer(screen().judge(line));
            assert_eq!(reply["error"]["code"], INVALID_REQUEST, "{reply}");
            assert_eq!(reply["id"], 6);
        }
    }

    #[test]
    fn a_long_method_is_not_found_and_quoted_short() {
        let method = "m".repeat(1_000_000);
        let line = json!({"jsonrpc": "2.0", "id": 3, "method": method}).to_string();
        let reply = answer(screen().judge(line.as_bytes()));
        assert_eq!(reply["error"]["code"], METHOD_NOT_FOUND);
        assert_eq!(reply["id"], 3);
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.len() < 200 && message.contains("[1000000 bytes]"),
            "{message}"
        );
        let params = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                            "params": {"name": "x", "arguments": "a".repeat(100_000)}});
        let reply = answer(screen().judge(params.to_string().as_bytes()));
        assert_eq!(reply["error"]["code"], INVALID_PARAMS);
        assert!(reply.to_string().len() < 1_000, "{reply}");
    }

    #[test]
    fn blank_lines_and_a_byte_order_mark_are_tolerated() {
        let mut screen = screen();
        assert!(matches!(screen.judge(b"   \r"), Verdict::Ignore));
        let with_bom = [&b"\xEF\xBB\xBF"[..], INITIALIZE.as_bytes()].concat();
        assert!(forwarded(&screen.judge(&with_bom)));
    }

    async fn replies_to(input: Vec<u8>) -> (Vec<ClientJsonRpcMessage>, Vec<Value>) {
        let (output, mut client) = tokio::io::duplex(64 * 1024);
        let reader = tokio::io::BufReader::new(std::io::Cursor::new(input));
        let (mut transport, writer) = StdioTransport::new(reader, output, screen());
        let mut forwarded = Vec::new();
        while let Some(message) = transport.receive().await {
            forwarded.push(message);
        }
        drop(transport);
        writer.await.expect("the writer drains");
        let mut written = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut client, &mut written)
            .await
            .expect("read output");
        let replies = written
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON reply per line"))
            .collect();
        (forwarded, replies)
    }

    #[tokio::test]
    async fn an_oversized_line_is_refused_and_the_next_one_read() {
        let mut input = br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""#.to_vec();
        input.resize(input.len() + MAX_LINE_BYTES, b'x');
        input.extend_from_slice(b"\"}}\n");
        input.extend_from_slice(INITIALIZE.as_bytes());
        let (forwarded, replies) = replies_to(input).await;
        assert_eq!(forwarded.len(), 1, "the next message is read");
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0]["error"]["code"], INVALID_REQUEST);
        assert_eq!(replies[0]["error"]["data"]["limit_bytes"], MAX_LINE_BYTES);
        let message = replies[0]["error"]["message"].as_str().unwrap();
        assert!(message.contains("16 MiB (16777216 bytes)"), "{message}");
    }

    #[tokio::test]
    async fn bad_lines_are_answered_in_order_and_the_session_reads_on() {
        // The last message has no newline: the end of input still delivers it.
        let input = format!("garbage\n\n[]\n{INITIALIZE}");
        let (forwarded, replies) = replies_to(input.into_bytes()).await;
        assert!(matches!(
            forwarded.as_slice(),
            [JsonRpcMessage::Request(r)] if matches!(r.request, ClientRequest::InitializeRequest(_))
        ));
        let codes: Vec<&Value> = replies.iter().map(|r| &r["error"]["code"]).collect();
        assert_eq!(codes, [PARSE_ERROR, INVALID_REQUEST]);
    }
}
