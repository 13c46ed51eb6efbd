//! No reply swamps a context window, over MCP against the real binary: arguments over their
//! limits are refused naming the argument and the limit, and no error echoes an argument
//! longer than a short, marked excerpt.

mod mcp_support;

use mcp_support::{HttpServer, StdioSession, demo_workspace, tool_error};
use serde_json::{Value, json};

/// The longest error reply: an error quotes what it was sent only as a short excerpt.
const MAX_ERROR_BYTES: usize = 1_000;

/// The error of a refused call, after checking that its whole reply is short.
fn short_error(reply: &Value) -> Value {
    let size = reply.to_string().len();
    assert!(size <= MAX_ERROR_BYTES, "a {size}-byte error reply");
    tool_error(reply)
}

fn over_limit(error: &Value, pointer: &str, limit: usize) {
    assert_eq!(error["code"], "INVALID_ARGUMENTS", "{error}");
    let problem = &error["data"]["problems"][0];
    assert_eq!(problem["pointer"], pointer, "{error}");
    let message = problem["message"].as_str().unwrap_or_default();
    assert!(
        message.ends_with(&format!("over the limit of {limit} for this argument")),
        "{message}"
    );
}

#[test]
fn arguments_over_their_limits_are_refused_short_on_both_transports() {
    let ws = demo_workspace();
    let two_mb = format!("- {}\n", "x".repeat(2 * 1024 * 1024));
    let ten_mb_slug = "s".repeat(10 * 1024 * 1024);
    let calls = [
        (
            "outl_page_append",
            json!({"slug": "pricing", "md": two_mb}),
            "/md",
            1_000_000,
        ),
        (
            "outl_block_insert",
            json!({"page": "pricing", "text": "t".repeat(20_001)}),
            "/text",
            20_000,
        ),
        (
            "outl_search",
            json!({"query": "q".repeat(1_001)}),
            "/query",
            1_000,
        ),
        (
            "outl_page_get",
            json!({"slug": ten_mb_slug}),
            "/slug",
            1_000,
        ),
    ];

    let mut stdio = StdioSession::initialized(ws.path());
    for (tool, args, pointer, limit) in &calls {
        over_limit(
            &short_error(&stdio.call(tool, args.clone())),
            pointer,
            *limit,
        );
    }
    stdio.finish();

    let server = HttpServer::start(ws.path(), &[]);
    let http = server.session();
    // The 10 MB slug is over the HTTP body limit: 413 before any tool.
    for (tool, args, pointer, limit) in &calls[..3] {
        over_limit(
            &short_error(&http.call(tool, args.clone())),
            pointer,
            *limit,
        );
    }
}

#[test]
fn a_long_name_that_names_nothing_is_quoted_as_an_excerpt() {
    let ws = demo_workspace();
    let mut session = StdioSession::initialized(ws.path());
    let name = "long name ".repeat(99);
    let error = short_error(&session.call("outl_page_get", json!({"slug": name})));
    assert_eq!(error["code"], "PAGE_NOT_FOUND");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("…[990 bytes]"), "{message}");
    let slug = error["data"]["slug"].as_str().unwrap_or_default();
    assert!(
        slug.starts_with("long name long name") && slug.ends_with("…[990 bytes]"),
        "{slug}"
    );
    let error = short_error(&session.call("outl_block_get", json!({"id": "i".repeat(900)})));
    assert_eq!(error["code"], "BLOCK_NOT_FOUND");
    let error = short_error(&session.call("outl_daily_get", json!({"date": "2".repeat(900)})));
    assert_eq!(error["code"], "INVALID_ARGUMENTS");
    session.finish();
}
