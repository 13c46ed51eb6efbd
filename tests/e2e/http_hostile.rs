//! `outl serve` against hostile and heavy HTTP: a loopback bind by default, web pages of other
//! origins (DNS rebinding), missing or wrong tokens, bodies over the limit however they are
//! framed, requests outside any session, and 32 clients writing at once. A refused request
//! touches nothing: every file of the workspace, `.outl/` included, stays as it was.
//! (`tests/e2e/mcp_http.rs` covers the guards' status codes on a plain initialize.)

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::mcp_support::{
    HttpServer, HttpSession, assert_files_unchanged, files_of, initialize_params, json_payload,
    open_once, text_of, tool_error,
};
use serde_json::{Value, json};

const TOKEN: &str = "correct-horse-battery-staple";
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": initialize_params(HttpSession::VERSION)})
}

/// A tools/call that would create a page: what every refused request here tries to do.
fn create_page(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
           "params": {"name": "outl_page_create", "arguments": {"name": name, "md": "- pwned"}}})
}

/// The full response, read until the server closes the connection. The request is written
/// from another thread: the server may answer (413) and close before it has read it all.
fn raw_exchange(addr: &str, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let mut writer = stream.try_clone().expect("clone the stream");
    let request = request.to_vec();
    let sender = std::thread::spawn(move || {
        let _ = writer.write_all(&request);
    });
    let mut response = Vec::new();
    let mut buf = [0u8; 8192];
    // Until the server closes, or until a reset once something was read.
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 {
            break;
        }
        response.extend_from_slice(&buf[..n]);
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
    let _ = sender.join();
    String::from_utf8_lossy(&response).into_owned()
}

fn status_of(response: &str) -> u16 {
    response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {response:?}"))
}

#[test]
fn serve_binds_loopback_by_default() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let server = HttpServer::start(ws.path(), &[]);
    assert!(
        server.addr.starts_with("127.0.0.1:"),
        "outl serve listens on {}",
        server.addr
    );
}

#[test]
fn other_origins_and_rebound_hosts_touch_nothing() {
    let ws = tempfile::tempdir().expect("temp workspace");
    open_once(ws.path());
    let server = HttpServer::start(ws.path(), &[]);
    let session = server.session();
    let before = files_of(ws.path());
    let port = server.addr.rsplit(':').next().expect("a port").to_owned();
    let rebound_host = format!("attacker.example:{port}");
    let subdomain_host = format!("localhost.attacker.example:{port}");
    let hostile: [(&str, &str); 8] = [
        ("Origin", "http://attacker.example"),
        ("Origin", "https://attacker.example:443"),
        ("Origin", "null"),
        ("Origin", "http://localhost.attacker.example"),
        ("Origin", "http://127.0.0.1.attacker.example"),
        ("Origin", "file://"),
        ("Host", rebound_host.as_str()),
        ("Host", subdomain_host.as_str()),
    ];
    for (n, (header, value)) in hostile.iter().enumerate() {
        let headers = [
            (*header, *value),
            ("Mcp-Session-Id", session.id.as_str()),
            ("MCP-Protocol-Version", HttpSession::VERSION),
        ];
        let refused = server.post_json(&create_page(&format!("rebound {n}")), &headers);
        assert_eq!(refused.status, 403, "{header}: {value}: {refused:?}");
        let init = server.post_json(&initialize(), &[(*header, *value)]);
        assert_eq!(init.status, 403, "{header}: {value}: {init:?}");
        assert!(init.header("mcp-session-id").is_none());
    }
    assert_files_unchanged(&before, ws.path(), "requests from other origins");
    session.assert_alive();
}

#[test]
fn without_the_token_nothing_is_read_or_written() {
    let ws = tempfile::tempdir().expect("temp workspace");
    open_once(ws.path());
    let server = HttpServer::start(ws.path(), &["--token", TOKEN]);
    let before = files_of(ws.path());
    let wrong_same_length = "x".repeat(TOKEN.len());
    let basic = format!("Basic {TOKEN}");
    let wrong_bearer = format!("Bearer {wrong_same_length}");
    let token_only = TOKEN.to_owned();
    let prefixed = format!("Bearer {TOKEN}x");
    let truncated = format!("Bearer {}", &TOKEN[..TOKEN.len() - 1]);
    let attempts: [&[(&str, &str)]; 7] = [
        &[],
        &[("Authorization", "Bearer ")],
        &[("Authorization", wrong_bearer.as_str())],
        &[("Authorization", basic.as_str())],
        &[("Authorization", token_only.as_str())],
        &[("Authorization", prefixed.as_str())],
        &[("Authorization", truncated.as_str())],
    ];
    for headers in attempts {
        for message in [initialize(), create_page("no token")] {
            let refused = server.post_json(&message, headers);
            assert_eq!(refused.status, 401, "{headers:?}: {refused:?}");
            assert!(refused.header("mcp-session-id").is_none());
        }
        // Over the body limit and malformed: the token is still checked first.
        let huge = server.post(&vec![b'x'; MAX_BODY_BYTES + 1], headers);
        assert_eq!(huge.status, 401, "{headers:?}");
        let garbage = server.post(b"not json", headers);
        assert_eq!(garbage.status, 401, "{headers:?}");
    }
    let query = raw_exchange(
        &server.addr,
        format!(
            "GET /mcp?access_token={TOKEN} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\
             Connection: close\r\n\r\n",
            server.addr
        )
        .as_bytes(),
    );
    assert_eq!(status_of(&query), 401, "a token in the URL is not a token");
    assert_files_unchanged(&before, ws.path(), "requests without the token");

    // The scheme is case-insensitive (RFC 9110); the token is not.
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let authorization = format!("{scheme} {TOKEN}");
        let ok = server.post_json(&initialize(), &[("Authorization", authorization.as_str())]);
        assert_eq!(ok.status, 200, "{scheme}: {ok:?}");
    }
    let upper = format!("Bearer {}", TOKEN.to_uppercase());
    let refused = server.post_json(&initialize(), &[("Authorization", upper.as_str())]);
    assert_eq!(refused.status, 401);
}

#[test]
fn bodies_over_the_limit_touch_nothing_however_framed() {
    let ws = tempfile::tempdir().expect("temp workspace");
    open_once(ws.path());
    let server = HttpServer::start(ws.path(), &[]);
    let session = server.session();
    let before = files_of(ws.path());
    let filler = "x".repeat(MAX_BODY_BYTES);
    let message = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "outl_page_create", "arguments": {"name": "big", "md": format!("- {filler}")}}});
    let body = message.to_string();

    let declared = session.post(body.as_bytes());
    assert_eq!(declared.status, 413, "{}", declared.status);

    // Chunked: no Content-Length to refuse up front; the limit holds while reading.
    let mut chunked = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Session-Id: {}\r\n\
         MCP-Protocol-Version: {}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        server.addr,
        session.id,
        HttpSession::VERSION
    )
    .into_bytes();
    for chunk in body.as_bytes().chunks(64 * 1024) {
        chunked.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend_from_slice(chunk);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let response = raw_exchange(&server.addr, &chunked);
    assert_eq!(status_of(&response), 413, "chunked");

    // A Content-Length that promises more than the limit is refused before the body comes.
    let promised = raw_exchange(
        &server.addr,
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMcp-Session-Id: {}\r\n\
             Content-Length: 99999999999\r\nConnection: close\r\n\r\n{{",
            server.addr, session.id
        )
        .as_bytes(),
    );
    assert_eq!(status_of(&promised), 413, "a promised huge body");
    assert_files_unchanged(&before, ws.path(), "bodies over the limit");
    session.assert_alive();

    // Just under the body limit is read, and reaches the tool, which holds its markdown to a
    // limit of its own; markdown at that limit is written.
    let fits = "y".repeat(MAX_BODY_BYTES - 4096);
    let refused = session.call(
        "outl_page_create",
        json!({"name": "fits", "md": format!("- {fits}")}),
    );
    let problems = &tool_error(&refused)["data"]["problems"];
    assert_eq!(problems[0]["pointer"], "/md", "{problems}");
    let at_limit = "y".repeat(1_000_000 - 2);
    let created = session.call(
        "outl_page_create",
        json!({"name": "fits", "md": format!("- {at_limit}")}),
    );
    json_payload(&created);
}

#[test]
fn requests_outside_a_session_touch_nothing() {
    let ws = tempfile::tempdir().expect("temp workspace");
    open_once(ws.path());
    let server = HttpServer::start(ws.path(), &[]);
    let before = files_of(ws.path());
    let version = [("MCP-Protocol-Version", HttpSession::VERSION)];
    let sessionless = server.post_json(&create_page("no session"), &version);
    assert_eq!(sessionless.status, 400, "{sessionless:?}");
    let unknown = server.post_json(
        &create_page("unknown session"),
        &[
            ("Mcp-Session-Id", "00000000-0000-0000-0000-000000000000"),
            version[0],
        ],
    );
    assert_eq!(unknown.status, 404, "{unknown:?}");
    let put = raw_exchange(
        &server.addr,
        format!(
            "PUT /mcp HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            server.addr
        )
        .as_bytes(),
    );
    assert_eq!(status_of(&put), 405, "{put}");
    let elsewhere = raw_exchange(
        &server.addr,
        format!(
            "GET /.outl/oplog HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            server.addr
        )
        .as_bytes(),
    );
    assert_eq!(status_of(&elsewhere), 404, "{elsewhere}");
    let climbing = raw_exchange(
        &server.addr,
        format!(
            "GET /mcp/../pages HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            server.addr
        )
        .as_bytes(),
    );
    assert!([400, 404].contains(&status_of(&climbing)), "{climbing}");

    // A session ended with DELETE is gone for good.
    let session = server.session();
    let ended = raw_exchange(
        &server.addr,
        format!(
            "DELETE /mcp HTTP/1.1\r\nHost: {}\r\nMcp-Session-Id: {}\r\nConnection: close\r\n\r\n",
            server.addr, session.id
        )
        .as_bytes(),
    );
    assert_eq!(status_of(&ended), 204, "{ended}");
    let after_end = session.post(create_page("after the end").to_string().as_bytes());
    assert_eq!(after_end.status, 404, "{after_end:?}");
    assert_files_unchanged(&before, ws.path(), "requests outside a session");
}

/// A body that is not one JSON-RPC message gets a 400 whose body is the JSON-RPC error, as
/// stdio would answer it, rather than a bare 415 that names no JSON-RPC code.
#[test]
fn malformed_bodies_get_a_json_rpc_error() {
    let ws = tempfile::tempdir().expect("temp workspace");
    let server = HttpServer::start(ws.path(), &[]);
    let session = server.session();
    for (body, code) in [
        (&b"{\"jsonrpc\":"[..], -32700),
        (b"\xFF\xFE", -32700),
        (
            b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
            -32600,
        ),
        (
            b"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
            -32600,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}",
            -32602,
        ),
    ] {
        let response = session.post(body);
        assert_eq!(response.status, 400, "{response:?}");
        assert_eq!(response.header("content-type"), Some("application/json"));
        let messages = response.messages().expect("JSON-RPC messages");
        assert_eq!(messages[0]["error"]["code"], code, "{response:?}");
    }
    // Without a session too: the body is judged before the session is looked up.
    let response = server.post(b"not json", &[]);
    assert_eq!(response.status, 400);
    assert_eq!(
        response.messages().expect("JSON-RPC messages")[0]["error"]["code"],
        -32700
    );
    session.assert_alive();
}

/// 32 clients, each in its own session, write and read at once: every call succeeds and
/// every write is there afterwards.
#[test]
fn thirty_two_concurrent_clients_lose_nothing() {
    const CLIENTS: usize = 32;
    const WRITES: usize = 6;
    let ws = tempfile::tempdir().expect("temp workspace");
    let server = HttpServer::start(ws.path(), &[]);
    let setup = server.session();
    json_payload(&setup.call(
        "outl_page_create",
        json!({"name": "shared", "md": "- start"}),
    ));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for client in 0..CLIENTS {
            let server = &server;
            scope.spawn(move || {
                let session = server.session();
                let own = format!("client {client}");
                json_payload(
                    &session.call("outl_page_create", json!({"name": own, "md": "- mine"})),
                );
                for write in 0..WRITES {
                    json_payload(&session.call(
                        "outl_page_append",
                        json!({"slug": "shared", "md": format!("- {client}-{write}")}),
                    ));
                    json_payload(&session.call(
                        "outl_page_append",
                        json!({"slug": own, "md": format!("- own {write}")}),
                    ));
                    json_payload(&session.call("outl_search", json!({"query": "start"})));
                }
            });
        }
    });
    let elapsed = started.elapsed();
    eprintln!(
        "{CLIENTS} clients × {} calls in {elapsed:?}",
        1 + 3 * WRITES
    );
    assert!(elapsed < Duration::from_secs(120), "{elapsed:?}");

    let shared = setup.call("outl_page_render", json!({"slug": "shared"}));
    let md = text_of(&shared["result"]).to_owned();
    assert_eq!(md.lines().count(), 1 + CLIENTS * WRITES, "{md}");
    for client in 0..CLIENTS {
        for write in 0..WRITES {
            assert!(
                md.contains(&format!("- {client}-{write}\n")),
                "lost {client}-{write}"
            );
        }
        let own = setup.call(
            "outl_page_render",
            json!({"slug": format!("client {client}")}),
        );
        let own = text_of(&own["result"]);
        assert_eq!(own.lines().count(), 1 + WRITES, "{own}");
    }
    let info = json_payload(&setup.call("outl_workspace_info", json!({})));
    assert_eq!(info["pages"], 1 + CLIENTS, "{info}");
    assert_eq!(info["frozen"], json!([]));
}
