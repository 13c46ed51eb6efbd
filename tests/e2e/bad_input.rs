//! Bad input to the real binary, over stdio and over Streamable HTTP: one table of malformed
//! and hostile messages, each with the refusal it must get. After every case the server must
//! still answer a ping, and every file of the workspace, `.outl/` included, must be byte for
//! byte what it was: a refused input writes no page and logs no op.

use crate::mcp_support::{
    HttpServer, StdioSession, assert_files_unchanged, demo_workspace, files_of, open_once,
    tool_error,
};
use std::time::Duration;

use serde_json::{Value, json};

/// The request body limit of `outl serve`: a larger case gets 413 over HTTP.
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
const TEN_MB: usize = 10 * 1024 * 1024;
const DEEP: usize = 100_000;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// What a case must get back.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// A JSON-RPC error with this code.
    Rpc(i64),
    /// A tools/call result with `isError` and this `error.code`.
    Tool(&'static str),
    /// No JSON-RPC reply: a notification, or a response to nothing.
    Silence,
}

struct Case {
    name: String,
    body: Vec<u8>,
    expect: Expect,
}

fn raw(name: &str, body: impl Into<Vec<u8>>, expect: Expect) -> Case {
    let body = body.into();
    assert!(!body.contains(&b'\n'), "{name}: one message is one line");
    Case {
        name: name.to_owned(),
        body,
        expect,
    }
}

fn message(name: &str, message: Value, expect: Expect) -> Case {
    raw(name, message.to_string(), expect)
}

fn request(name: &str, method: &str, params: Value, expect: Expect) -> Case {
    message(
        name,
        json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}),
        expect,
    )
}

fn call(name: &str, tool: &str, arguments: Value, expect: Expect) -> Case {
    request(
        name,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
        expect,
    )
}

fn notification(name: &str, method: &str, params: Value) -> Case {
    message(
        name,
        json!({"jsonrpc": "2.0", "method": method, "params": params}),
        Expect::Silence,
    )
}

/// A tools/call of `outl_page_get` whose slug is written into the JSON as `slug_json`, for
/// bytes and escapes `serde_json` would never produce.
fn page_get_with_raw_slug(name: &str, slug_json: &[u8], expect: Expect) -> Case {
    let mut body =
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"outl_page_get","arguments":{"slug":"#
            .to_vec();
    body.extend_from_slice(slug_json);
    body.extend_from_slice(b"}}}");
    raw(name, body, expect)
}

fn nested(depth: usize, open: &str, close: &str) -> String {
    [open.repeat(depth), close.repeat(depth)].concat()
}

fn ping_with_id(id: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#)
}

fn ping_with_version(version: &str) -> String {
    format!(r#"{{"jsonrpc":{version},"id":7,"method":"ping"}}"#)
}

/// The table. Every case is refused; none may change the workspace.
#[rustfmt::skip]
fn cases() -> Vec<Case> {
    use Expect::{Rpc, Silence, Tool};
    let ping = ping_with_id("7");
    let mut cases = vec![
        // Not JSON at all.
        raw("prose", "this is not json", Rpc(PARSE_ERROR)),
        raw("an open brace", "{", Rpc(PARSE_ERROR)),
        raw("cut mid-message", r#"{"jsonrpc":"2.0","id":1,"method":"#, Rpc(PARSE_ERROR)),
        raw("a brace too many", format!("{ping}}}"), Rpc(PARSE_ERROR)),
        raw("single quotes", "{'jsonrpc':'2.0','id':1,'method':'ping'}", Rpc(PARSE_ERROR)),
        raw("bare keys", "{jsonrpc:\"2.0\",id:1,method:\"ping\"}", Rpc(PARSE_ERROR)),
        raw("a trailing comma", r#"{"jsonrpc":"2.0","id":1,"method":"ping",}"#, Rpc(PARSE_ERROR)),
        raw("NaN", ping_with_id("NaN"), Rpc(PARSE_ERROR)),
        raw("Infinity", ping_with_id("Infinity"), Rpc(PARSE_ERROR)),
        raw("a number out of range", ping_with_id("1e999"), Rpc(PARSE_ERROR)),
        raw("a comment", format!("/* hi */ {ping}"), Rpc(PARSE_ERROR)),
        raw("an unterminated string", "\"ping", Rpc(PARSE_ERROR)),
        raw("two messages on one line", format!("{ping} {ping}"), Rpc(PARSE_ERROR)),
        raw("control bytes", &b"\x00\x01\x02\x03"[..], Rpc(PARSE_ERROR)),
        raw("a byte order mark then prose", &b"\xEF\xBB\xBFnot json"[..], Rpc(PARSE_ERROR)),
        raw("a bad escape", r#"{"jsonrpc":"2.0","id":1,"method":"pi\xng"}"#, Rpc(PARSE_ERROR)),
        // Invalid UTF-8 and what JSON escapes cannot make valid.
        page_get_with_raw_slug("a raw 0xFF byte", b"\"\xFF\xFE\"", Rpc(PARSE_ERROR)),
        page_get_with_raw_slug("an overlong NUL", b"\"a\xC0\x80b\"", Rpc(PARSE_ERROR)),
        page_get_with_raw_slug("a cut multi-byte character", b"\"\xE2\x82\"", Rpc(PARSE_ERROR)),
        page_get_with_raw_slug("an encoded surrogate", b"\"\xED\xA0\x80\"", Rpc(PARSE_ERROR)),
        // A lone surrogate escape is read as U+FFFD: the request is answered with its own id.
        page_get_with_raw_slug("a lone high surrogate escape", br#""\ud800""#, Tool("PAGE_NOT_FOUND")),
        page_get_with_raw_slug("a lone low surrogate escape", br#""\udfff x""#, Tool("PAGE_NOT_FOUND")),
        page_get_with_raw_slug("a raw NUL byte in a string", b"\"a\x00b\"", Rpc(PARSE_ERROR)),
        page_get_with_raw_slug("a raw escape byte in a string", b"\"\x1b[2J\"", Rpc(PARSE_ERROR)),
        page_get_with_raw_slug("a raw tab in a string", b"\"a\tb\"", Rpc(PARSE_ERROR)),
        raw(
            "invalid UTF-8 in a key",
            &b"{\"jsonrpc\":\"2.0\",\"\xFF\":1,\"id\":1,\"method\":\"ping\"}"[..],
            Rpc(PARSE_ERROR),
        ),
        // Nesting far past any parser's limit.
        raw("arrays nested 100,000 deep", nested(DEEP, "[", "]"), Rpc(PARSE_ERROR)),
        raw(
            "objects nested 100,000 deep",
            [r#"{"a":"#.repeat(DEEP), "1".into(), "}".repeat(DEEP)].concat(),
            Rpc(PARSE_ERROR),
        ),
        raw(
            "arguments nested 100,000 deep",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"outl_page_get","arguments":{{"slug":{}}}}}}}"#,
                nested(DEEP, "[", "]")
            ),
            Rpc(PARSE_ERROR),
        ),
        raw("arrays nested just past the limit", nested(200, "[", "]"), Rpc(PARSE_ERROR)),
        // JSON, but not a JSON-RPC message.
        raw("a number", "42", Rpc(INVALID_REQUEST)),
        raw("a string", "\"ping\"", Rpc(INVALID_REQUEST)),
        raw("null", "null", Rpc(INVALID_REQUEST)),
        raw("true", "true", Rpc(INVALID_REQUEST)),
        raw("an empty object", "{}", Rpc(INVALID_REQUEST)),
        raw("an unrelated object", r#"{"foo":"bar"}"#, Rpc(INVALID_REQUEST)),
        raw("no jsonrpc member", r#"{"id":1,"method":"ping"}"#, Rpc(INVALID_REQUEST)),
        raw("only jsonrpc", r#"{"jsonrpc":"2.0"}"#, Rpc(INVALID_REQUEST)),
        raw("an id and nothing else", r#"{"jsonrpc":"2.0","id":1}"#, Rpc(INVALID_REQUEST)),
        raw("params without a method", r#"{"jsonrpc":"2.0","id":1,"params":{}}"#, Rpc(INVALID_REQUEST)),
        raw("a method that is a number", r#"{"jsonrpc":"2.0","id":1,"method":5}"#, Rpc(INVALID_REQUEST)),
        raw("a method that is null", r#"{"jsonrpc":"2.0","id":1,"method":null}"#, Rpc(INVALID_REQUEST)),
        raw("a method and a result", r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#, Rpc(INVALID_REQUEST)),
        raw(
            "a method and an error",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"x"}}"#,
            Rpc(INVALID_REQUEST),
        ),
        // The wrong protocol version.
        raw("jsonrpc 1.0", ping_with_version("\"1.0\""), Rpc(INVALID_REQUEST)),
        raw("jsonrpc 3.0", ping_with_version("\"3.0\""), Rpc(INVALID_REQUEST)),
        raw("jsonrpc as a number", ping_with_version("2.0"), Rpc(INVALID_REQUEST)),
        raw("jsonrpc \"2\"", ping_with_version("\"2\""), Rpc(INVALID_REQUEST)),
        raw("jsonrpc null", ping_with_version("null"), Rpc(INVALID_REQUEST)),
        raw("jsonrpc with a space", ping_with_version("\"2.0 \""), Rpc(INVALID_REQUEST)),
        raw("jsonrpc in an array", ping_with_version("[\"2.0\"]"), Rpc(INVALID_REQUEST)),
        // Odd ids.
        raw("a float id", ping_with_id("1.5"), Rpc(INVALID_REQUEST)),
        raw("a true id", ping_with_id("true"), Rpc(INVALID_REQUEST)),
        raw("a false id", ping_with_id("false"), Rpc(INVALID_REQUEST)),
        raw("a null id", ping_with_id("null"), Rpc(INVALID_REQUEST)),
        raw("an object id", ping_with_id(r#"{"a":1}"#), Rpc(INVALID_REQUEST)),
        raw("a nested object id", ping_with_id(r#"{"a":{"b":[1,{"c":null}]}}"#), Rpc(INVALID_REQUEST)),
        raw("an array id", ping_with_id("[1]"), Rpc(INVALID_REQUEST)),
        raw("an id past u64", ping_with_id("18446744073709551616"), Rpc(INVALID_REQUEST)),
        raw("an id of 23 digits", ping_with_id("99999999999999999999999"), Rpc(INVALID_REQUEST)),
        raw("an id past i64", ping_with_id("9223372036854775808"), Rpc(INVALID_REQUEST)),
        // Batches.
        raw("a batch of one", format!("[{ping}]"), Rpc(INVALID_REQUEST)),
        raw("a batch of two", format!("[{ping},{ping}]"), Rpc(INVALID_REQUEST)),
        raw("an empty batch", "[]", Rpc(INVALID_REQUEST)),
        raw("a batch of numbers", "[1,2,3]", Rpc(INVALID_REQUEST)),
        raw(
            "a batch of a notification",
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
            Rpc(INVALID_REQUEST),
        ),
        // Methods outl does not serve.
        request("an unknown method", "no/such/method", json!({}), Rpc(METHOD_NOT_FOUND)),
        request("an empty method", "", json!({}), Rpc(METHOD_NOT_FOUND)),
        request("a method in capitals", "TOOLS/LIST", json!({}), Rpc(METHOD_NOT_FOUND)),
        request("a method with a trailing space", "tools/list ", json!({}), Rpc(METHOD_NOT_FOUND)),
        request("resources/list", "resources/list", json!({}), Rpc(METHOD_NOT_FOUND)),
        request(
            "resources/read",
            "resources/read",
            json!({"uri": "file:///etc/passwd"}),
            Rpc(METHOD_NOT_FOUND),
        ),
        request("prompts/get", "prompts/get", json!({"name": "x"}), Rpc(METHOD_NOT_FOUND)),
        request("logging/setLevel", "logging/setLevel", json!({"level": "debug"}), Rpc(METHOD_NOT_FOUND)),
        request("a 10 MB method name", &"m".repeat(TEN_MB), json!({}), Rpc(METHOD_NOT_FOUND)),
        // tools/call whose params do not fit.
        raw("tools/call without params", r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"}"#, Rpc(INVALID_PARAMS)),
        request("tools/call with array params", "tools/call", json!(["outl_page_list"]), Rpc(INVALID_PARAMS)),
        request("tools/call with string params", "tools/call", json!("outl_page_list"), Rpc(INVALID_PARAMS)),
        request("tools/call without a name", "tools/call", json!({"arguments": {}}), Rpc(INVALID_PARAMS)),
        request("tools/call with a number for a name", "tools/call", json!({"name": 5}), Rpc(INVALID_PARAMS)),
        request("tools/call with a null name", "tools/call", json!({"name": null}), Rpc(INVALID_PARAMS)),
        request(
            "arguments as an array",
            "tools/call",
            json!({"name": "outl_page_get", "arguments": ["pricing"]}),
            Rpc(INVALID_PARAMS),
        ),
        request(
            "arguments as a string",
            "tools/call",
            json!({"name": "outl_page_get", "arguments": "pricing"}),
            Rpc(INVALID_PARAMS),
        ),
        request(
            "arguments as a number",
            "tools/call",
            json!({"name": "outl_page_get", "arguments": 5}),
            Rpc(INVALID_PARAMS),
        ),
        // Tools outl does not have.
        call("an unknown tool", "outl_no_such_tool", json!({}), Rpc(INVALID_PARAMS)),
        call("an empty tool name", "", json!({}), Rpc(INVALID_PARAMS)),
        call("a tool name with a trailing space", "outl_page_get ", json!({"slug": "pricing"}), Rpc(INVALID_PARAMS)),
        call("a tool name in capitals", "OUTL_PAGE_GET", json!({"slug": "pricing"}), Rpc(INVALID_PARAMS)),
        call("a tool name with a path", "../outl_page_get", json!({"slug": "pricing"}), Rpc(INVALID_PARAMS)),
        call("a tool name with a NUL", "outl_page_get\0", json!({"slug": "pricing"}), Rpc(INVALID_PARAMS)),
        call("a 10 MB tool name", &"t".repeat(TEN_MB), json!({}), Rpc(INVALID_PARAMS)),
        // Arguments of the wrong type.
        call("a number for a slug", "outl_page_get", json!({"slug": 5}), Tool("INVALID_ARGUMENTS")),
        call("null for a slug", "outl_page_get", json!({"slug": null}), Tool("INVALID_ARGUMENTS")),
        call("an array for a slug", "outl_page_get", json!({"slug": ["pricing"]}), Tool("INVALID_ARGUMENTS")),
        call("an object for a slug", "outl_page_get", json!({"slug": {"$ne": ""}}), Tool("INVALID_ARGUMENTS")),
        call("a boolean for a slug", "outl_page_get", json!({"slug": true}), Tool("INVALID_ARGUMENTS")),
        call(
            "a string for a depth",
            "outl_page_get",
            json!({"slug": "pricing", "depth": "2"}),
            Tool("INVALID_ARGUMENTS"),
        ),
        call("a negative depth", "outl_page_get", json!({"slug": "pricing", "depth": -1}), Tool("INVALID_ARGUMENTS")),
        call(
            "a fractional depth",
            "outl_page_get",
            json!({"slug": "pricing", "depth": 1.5}),
            Tool("INVALID_ARGUMENTS"),
        ),
        call("a depth past u32", "outl_page_get", json!({"slug": "pricing", "depth": 1e10}), Tool("INVALID_ARGUMENTS")),
        call("a zero limit", "outl_page_list", json!({"limit": 0}), Tool("INVALID_ARGUMENTS")),
        call("a negative limit", "outl_page_list", json!({"limit": -1}), Tool("INVALID_ARGUMENTS")),
        call("a limit past u32", "outl_page_list", json!({"limit": 99_999_999_999_u64}), Tool("INVALID_ARGUMENTS")),
        call("a word for a limit", "outl_page_list", json!({"limit": "ten"}), Tool("INVALID_ARGUMENTS")),
        call("a forged cursor", "outl_page_list", json!({"cursor": "garbage"}), Tool("INVALID_ARGUMENTS")),
        call("a number for a cursor", "outl_page_list", json!({"cursor": 5}), Tool("INVALID_ARGUMENTS")),
        call("an unknown list kind", "outl_page_list", json!({"kind": "secret"}), Tool("INVALID_ARGUMENTS")),
        call("a number for a list kind", "outl_page_list", json!({"kind": 3}), Tool("INVALID_ARGUMENTS")),
        call(
            "an unknown import mode",
            "outl_import_md",
            json!({"name": "x", "md": "- a", "mode": "merge"}),
            Tool("INVALID_ARGUMENTS"),
        ),
        call("month 13", "outl_daily_get", json!({"date": "2026-13-01"}), Tool("INVALID_ARGUMENTS")),
        call("February 30", "outl_daily_get", json!({"date": "2026-02-30"}), Tool("INVALID_ARGUMENTS")),
        call("a word for a date", "outl_daily_get", json!({"date": "yesterday"}), Tool("INVALID_ARGUMENTS")),
        call("an empty date", "outl_daily_get", json!({"date": ""}), Tool("INVALID_ARGUMENTS")),
        call("a date with a NUL", "outl_daily_get", json!({"date": "2026-11-23\0"}), Tool("INVALID_ARGUMENTS")),
        call("a date as a path", "outl_daily_get", json!({"date": "../../2026_11_23"}), Tool("INVALID_ARGUMENTS")),
        call("a bad date range start", "outl_daily_list", json!({"from": "soon"}), Tool("INVALID_ARGUMENTS")),
        call("a number for a query", "outl_search", json!({"query": 5}), Tool("INVALID_ARGUMENTS")),
        call(
            "a number for markdown",
            "outl_page_update",
            json!({"slug": "pricing", "md": 5}),
            Tool("INVALID_ARGUMENTS"),
        ),
        call(
            "an array for markdown",
            "outl_page_create",
            json!({"name": "x", "md": ["- a"]}),
            Tool("INVALID_ARGUMENTS"),
        ),
        // Arguments missing.
        call("no slug", "outl_page_get", json!({}), Tool("INVALID_ARGUMENTS")),
        call("no markdown for an update", "outl_page_update", json!({"slug": "pricing"}), Tool("INVALID_ARGUMENTS")),
        call("no new name", "outl_page_rename", json!({"slug": "pricing"}), Tool("INVALID_ARGUMENTS")),
        call("no import mode", "outl_import_md", json!({"name": "x", "md": "- a"}), Tool("INVALID_ARGUMENTS")),
        call("no date", "outl_daily_get", json!({}), Tool("INVALID_ARGUMENTS")),
        call("no query", "outl_search", json!({}), Tool("INVALID_ARGUMENTS")),
        call("no page name", "outl_page_create", json!({}), Tool("INVALID_ARGUMENTS")),
        call("no tag", "outl_tag_get", json!({}), Tool("INVALID_ARGUMENTS")),
        call("no property key", "outl_property_query", json!({}), Tool("INVALID_ARGUMENTS")),
        // Arguments too many.
        call("an extra argument", "outl_page_get", json!({"slug": "pricing", "extra": 1}), Tool("INVALID_ARGUMENTS")),
        call(
            "an argument to a tool that takes none",
            "outl_workspace_info",
            json!({"verbose": true}),
            Tool("INVALID_ARGUMENTS"),
        ),
        call(
            "a __proto__ argument",
            "outl_page_list",
            json!({"__proto__": {"admin": true}}),
            Tool("INVALID_ARGUMENTS"),
        ),
        call(
            "an argument in the wrong case",
            "outl_page_create",
            json!({"name": "x", "MD": "- a"}),
            Tool("INVALID_ARGUMENTS"),
        ),
        // Slugs that are paths: `..`, absolute, Windows, URLs.
        call("a slug climbing out", "outl_page_get", json!({"slug": "../../etc/passwd"}), Tool("PAGE_NOT_FOUND")),
        call("a slug that is ..", "outl_page_render", json!({"slug": ".."}), Tool("PAGE_NOT_FOUND")),
        call("deleting through ..", "outl_page_delete", json!({"slug": "../pages/pricing"}), Tool("PAGE_NOT_FOUND")),
        call(
            "exporting an encoded climb",
            "outl_export_md",
            json!({"slug": "..%2F..%2Fetc%2Fpasswd"}),
            Tool("PAGE_NOT_FOUND"),
        ),
        call(
            "updating the op log",
            "outl_page_update",
            json!({"slug": "../.outl/oplog", "md": "- x"}),
            Tool("PAGE_NOT_FOUND"),
        ),
        call(
            "appending through ..",
            "outl_page_append",
            json!({"slug": "../../tmp/x", "md": "- x"}),
            Tool("PAGE_NOT_FOUND"),
        ),
        call("reconciling through ..", "outl_page_reconcile", json!({"slug": "../pricing"}), Tool("PAGE_NOT_FOUND")),
        call("exporting a folder path", "outl_export_json", json!({"slug": "pages/../../x"}), Tool("PAGE_NOT_FOUND")),
        call(
            "backslashes climbing out",
            "outl_page_backlinks",
            json!({"slug": "..\\..\\windows"}),
            Tool("PAGE_NOT_FOUND"),
        ),
        call("links of ..", "outl_links", json!({"slug": ".."}), Tool("PAGE_NOT_FOUND")),
        call("an absolute slug", "outl_page_get", json!({"slug": "/etc/passwd"}), Tool("PAGE_NOT_FOUND")),
        call("deleting an absolute path", "outl_page_delete", json!({"slug": "/etc/hosts"}), Tool("PAGE_NOT_FOUND")),
        call("a Windows path", "outl_export_md", json!({"slug": "C:\\Windows\\win.ini"}), Tool("PAGE_NOT_FOUND")),
        call(
            "updating an absolute path",
            "outl_page_update",
            json!({"slug": "/tmp/outl-owned", "md": "- x"}),
            Tool("PAGE_NOT_FOUND"),
        ),
        call(
            "a file URL",
            "outl_page_get",
            json!({"slug": "file:///etc/passwd"}),
            Tool("PAGE_NOT_FOUND"),
        ),
        call(
            "renaming a page that is a path",
            "outl_page_rename",
            json!({"slug": "../../etc/passwd", "new_name": "x"}),
            Tool("PAGE_NOT_FOUND"),
        ),
        // NUL and control characters in names.
        call("a NUL in a new page name", "outl_page_create", json!({"name": "a\0b"}), Tool("PATH_OUTSIDE_WORKSPACE")),
        call(
            "a bell in a new page name",
            "outl_page_create",
            json!({"name": "\u{7}bell"}),
            Tool("PATH_OUTSIDE_WORKSPACE"),
        ),
        call(
            "a terminal escape in a page name",
            "outl_page_create",
            json!({"name": "\u{1b}[2Jclear"}),
            Tool("PATH_OUTSIDE_WORKSPACE"),
        ),
        call(
            "a line break in a page name",
            "outl_page_create",
            json!({"name": "a\nb"}),
            Tool("PATH_OUTSIDE_WORKSPACE"),
        ),
        call(
            "a carriage return in a page name",
            "outl_page_create",
            json!({"name": "a\rb"}),
            Tool("PATH_OUTSIDE_WORKSPACE"),
        ),
        call("a DEL in a page name", "outl_page_create", json!({"name": "a\u{7f}b"}), Tool("PATH_OUTSIDE_WORKSPACE")),
        call(
            "a C1 control in a page name",
            "outl_page_create",
            json!({"name": "a\u{85}b"}),
            Tool("PATH_OUTSIDE_WORKSPACE"),
        ),
        call(
            "a NUL in a new name",
            "outl_page_rename",
            json!({"slug": "pricing", "new_name": "x\0"}),
            Tool("PATH_OUTSIDE_WORKSPACE"),
        ),
        call(
            "a NUL in an imported name",
            "outl_import_md",
            json!({"name": "\0", "md": "- a", "mode": "create"}),
            Tool("PATH_OUTSIDE_WORKSPACE"),
        ),
        call("a NUL in a slug", "outl_page_get", json!({"slug": "pri\0cing"}), Tool("PAGE_NOT_FOUND")),
        // Names that cannot be pages, and pages that exist.
        call("an empty page name", "outl_page_create", json!({"name": ""}), Tool("INVALID_ARGUMENTS")),
        call("a blank page name", "outl_page_create", json!({"name": " \t "}), Tool("INVALID_ARGUMENTS")),
        call("a page that exists", "outl_page_create", json!({"name": "Pricing"}), Tool("PAGE_EXISTS")),
        call("a page that exists, in other case", "outl_page_create", json!({"name": "PRICING"}), Tool("PAGE_EXISTS")),
        call(
            "renaming onto a page that exists",
            "outl_page_rename",
            json!({"slug": "pricing", "new_name": "Hiring"}),
            Tool("PAGE_EXISTS"),
        ),
        // Strings over their limits, and just under them: the error quotes an excerpt.
        call("a 10 MB slug", "outl_page_get", json!({"slug": "s".repeat(TEN_MB)}), Tool("INVALID_ARGUMENTS")),
        call("a slug one over its limit", "outl_page_get", json!({"slug": "s".repeat(1_001)}), Tool("INVALID_ARGUMENTS")),
        call("a slug at its limit", "outl_page_get", json!({"slug": "s".repeat(1_000)}), Tool("PAGE_NOT_FOUND")),
        call("an id at its limit", "outl_block_get", json!({"id": "i".repeat(1_000)}), Tool("BLOCK_NOT_FOUND")),
        call("a cursor at its limit", "outl_page_list", json!({"cursor": "c".repeat(1_000)}), Tool("INVALID_ARGUMENTS")),
        call("a date at its limit", "outl_daily_get", json!({"date": "2".repeat(1_000)}), Tool("INVALID_ARGUMENTS")),
        call(
            "a page name at its limit",
            "outl_page_create",
            json!({"name": "n".repeat(1_000)}),
            Tool("INVALID_ARGUMENTS"),
        ),
        call("a query over its limit", "outl_search", json!({"query": "q ".repeat(501)}), Tool("INVALID_ARGUMENTS")),
        call(
            "a block text over its limit",
            "outl_block_update",
            json!({"id": "nope", "text": "t".repeat(20_001)}),
            Tool("INVALID_ARGUMENTS"),
        ),
        call(
            "markdown over its limit",
            "outl_page_append",
            json!({"slug": "pricing", "md": format!("- {}", "x".repeat(999_999))}),
            Tool("INVALID_ARGUMENTS"),
        ),
        call(
            "a 10 MB page update of no page",
            "outl_page_update",
            json!({"slug": "no such page", "md": format!("- {}", "x".repeat(TEN_MB))}),
            Tool("INVALID_ARGUMENTS"),
        ),
        call("a 10 MB date", "outl_daily_get", json!({"date": "2".repeat(TEN_MB)}), Tool("INVALID_ARGUMENTS")),
        // Notifications and responses: never answered, never fatal.
        notification("a cancellation of nothing", "notifications/cancelled", json!({"requestId": 999_999})),
        notification(
            "a cancellation of a request yet to come",
            "notifications/cancelled",
            json!({"requestId": "alive-next", "reason": "x".repeat(10_000)}),
        ),
        notification("a cancellation with an object id", "notifications/cancelled", json!({"requestId": {"a": 1}})),
        notification("a cancellation without params", "notifications/cancelled", Value::Null),
        notification("a cancellation with a number for params", "notifications/cancelled", json!(5)),
        notification("an unknown notification", "notifications/no_such_thing", json!({})),
        notification("initialized, again", "notifications/initialized", json!({})),
        notification(
            "progress of nothing",
            "notifications/progress",
            json!({"progressToken": "t", "progress": "lots"}),
        ),
        raw("a response to nothing", r#"{"jsonrpc":"2.0","id":77,"result":{}}"#, Silence),
        raw("an error response to nothing", r#"{"jsonrpc":"2.0","id":78,"error":{"code":1,"message":"x"}}"#, Silence),
    ];
    cases.extend(
        [
            "outl_page_delete",
            "outl_page_reconcile",
            "outl_export_md",
            "outl_page_render",
        ]
        .map(|tool| {
            call(
                &format!("{tool} of no page"),
                tool,
                json!({"slug": "no such page"}),
                Tool("PAGE_NOT_FOUND"),
            )
        }),
    );
    cases
}

/// The longest reply a refusal may be: an error quotes the input only as a short excerpt.
const MAX_REFUSAL_BYTES: usize = 1_500;

/// Checks that a case was refused as it must be; `reply` is its one JSON-RPC reply, if any.
fn check(case: &Case, reply: Option<&Value>) {
    let name = &case.name;
    if let Some(reply) = reply {
        let size = reply.to_string().len();
        assert!(size <= MAX_REFUSAL_BYTES, "{name}: a {size}-byte refusal");
    }
    match (case.expect, reply) {
        (Expect::Rpc(code), Some(reply)) => {
            assert_eq!(reply["error"]["code"], code, "{name}: {reply}");
            assert!(
                reply["error"]["message"].is_string(),
                "{name}: an error says what is wrong: {reply}"
            );
        }
        (Expect::Tool(code), Some(reply)) => {
            assert_eq!(tool_error(reply)["code"], code, "{name}: {reply}");
            assert_eq!(reply["id"], 7, "{name}: answered with its own id");
        }
        (Expect::Silence, None) => {}
        (expect, reply) => panic!("{name}: expected {expect:?}, got {reply:?}"),
    }
}

/// Sends one case, then a ping, and returns the case's reply. Replies may come in either
/// order: rmcp answers requests concurrently.
fn send_over_stdio(session: &mut StdioSession, case: &Case, n: usize) -> Option<Value> {
    session.send_bytes(&case.body);
    let ping_id = format!("alive-{n}");
    session.send(&json!({"jsonrpc": "2.0", "id": ping_id, "method": "ping"}));
    let mut reply = None;
    let mut pong = false;
    while !(pong && (reply.is_some() || matches!(case.expect, Expect::Silence))) {
        let message = session
            .recv_within(Duration::from_secs(20))
            .unwrap_or_else(|| panic!("{}: no reply to the case or the ping", case.name));
        if message["id"] == ping_id.as_str() {
            assert!(
                message["result"].is_object(),
                "{}: ping: {message}",
                case.name
            );
            pong = true;
        } else {
            assert!(reply.is_none(), "{}: a second reply: {message}", case.name);
            reply = Some(message);
        }
    }
    reply
}

#[test]
fn the_table_has_over_a_hundred_distinct_cases() {
    let cases = cases();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    let mut bodies: Vec<&[u8]> = cases.iter().map(|c| c.body.as_slice()).collect();
    bodies.sort();
    bodies.dedup();
    assert_eq!(
        bodies.len(),
        cases.len(),
        "every case sends something different"
    );
    let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "every case has its own name");
}

#[test]
fn stdio_refuses_each_bad_input_and_serves_on_untouched() {
    let ws = demo_workspace();
    open_once(ws.path());
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    session.assert_alive();
    let before = files_of(ws.path());
    for (n, case) in cases().iter().enumerate() {
        let reply = send_over_stdio(&mut session, case, n);
        check(case, reply.as_ref());
        assert_files_unchanged(&before, ws.path(), &case.name);
    }
    session.finish();
    assert_files_unchanged(&before, ws.path(), "after the session ended");
}

#[test]
fn http_refuses_each_bad_input_and_serves_on_untouched() {
    let ws = demo_workspace();
    open_once(ws.path());
    let server = HttpServer::start(ws.path(), &[]);
    let session = server.session();
    session.assert_alive();
    let before = files_of(ws.path());
    for case in cases() {
        let response = session.post(&case.body);
        let name = &case.name;
        if case.body.len() > MAX_BODY_BYTES {
            assert_eq!(response.status, 413, "{name}: {}", response.status);
            let refusal = &response.messages().expect("JSON-RPC messages")[0];
            assert_eq!(
                refusal["error"]["code"], INVALID_REQUEST,
                "{name}: {refusal}"
            );
            assert_eq!(
                refusal["error"]["data"]["limit_bytes"], MAX_BODY_BYTES,
                "{refusal}"
            );
        } else {
            let messages = if response.header("content-type").is_some_and(|t| {
                t.starts_with("application/json") || t.starts_with("text/event-stream")
            }) {
                response.messages().expect("JSON-RPC messages")
            } else {
                Vec::new()
            };
            match case.expect {
                Expect::Silence => assert!(
                    response.status == 202 || response.status == 400 && messages.is_empty(),
                    "{name}: {response:?}"
                ),
                _ => assert!(
                    [200, 400].contains(&response.status),
                    "{name}: {response:?}"
                ),
            }
            assert!(messages.len() <= 1, "{name}: {messages:?}");
            check(&case, messages.first());
        }
        session.assert_alive();
        assert_files_unchanged(&before, ws.path(), name);
    }
}

#[test]
fn stdio_refuses_requests_before_initialize_and_serves_on() {
    let ws = demo_workspace();
    open_once(ws.path());
    let mut session = StdioSession::start(ws.path());
    session.assert_alive();
    let before = files_of(ws.path());
    let early: [(&str, Value); 5] = [
        (
            "tools/call",
            json!({"name": "outl_page_delete", "arguments": {"slug": "pricing"}}),
        ),
        (
            "tools/call",
            json!({"name": "outl_workspace_info", "arguments": {}}),
        ),
        ("tools/list", json!({})),
        ("resources/list", json!({})),
        ("no/such/method", json!({})),
    ];
    for (n, (method, params)) in early.iter().enumerate() {
        let id = i64::try_from(n).expect("a small id");
        let reply = session.request(id, method, params.clone());
        assert_eq!(reply["error"]["code"], INVALID_REQUEST, "{method}: {reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("initialize")),
            "{method}: the error says what to send first: {reply}"
        );
        session.assert_alive();
    }
    // Notifications and responses before initialize are dropped, not fatal.
    session.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    session.send_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    );
    session.send_line(r#"{"jsonrpc":"2.0","id":5,"result":{}}"#);
    session.assert_alive();
    assert_files_unchanged(&before, ws.path(), "before initialize");

    session.initialize("2025-06-18");
    let listed = session.request(50, "tools/list", json!({}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    session.finish();
    assert_files_unchanged(&before, ws.path(), "after the session ended");
}

#[test]
fn a_request_cancelled_in_flight_leaves_the_session_serving() {
    let ws = demo_workspace();
    open_once(ws.path());
    let mut session = StdioSession::start(ws.path());
    session.initialize("2025-06-18");
    let before = files_of(ws.path());
    for n in 0..20_i64 {
        session.send(&json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": "outl_search", "arguments": {"query": "launch"}}}));
        session.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": n, "reason": "changed my mind"}}),
        );
        let ping_id = format!("after-{n}");
        session.send(&json!({"jsonrpc": "2.0", "id": ping_id, "method": "ping"}));
        // The search may or may not be answered; the ping must be.
        loop {
            let message = session.recv();
            if message["id"] == ping_id.as_str() {
                break;
            }
            assert_eq!(message["id"], n, "only the search may answer: {message}");
        }
    }
    session.assert_alive();
    let listed = session.request(100, "tools/list", json!({}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    session.finish();
    assert_files_unchanged(&before, ws.path(), "cancelled reads");
}

/// Page names that look like paths are names: the page is created inside `pages/`, and
/// nothing appears anywhere else.
#[test]
fn names_that_look_like_paths_stay_inside_pages() {
    let parent = tempfile::tempdir().expect("temp dir");
    let root = parent.path().join("ws");
    let mut session = StdioSession::start(&root);
    session.initialize("2025-06-18");
    for name in [
        "../../escaped",
        "/etc/passwd",
        "..",
        "...",
        "a/../../b",
        "C:\\Windows\\System32",
        "~/.ssh/authorized_keys",
        "%2e%2e%2fencoded",
        "con",
        "nul.txt",
        " leading and trailing ",
        ".hidden",
        "trailing.",
    ] {
        let reply = session.call("outl_page_create", json!({"name": name, "md": "- kept"}));
        assert_ne!(reply["result"]["isError"], true, "{name}: {reply}");
    }
    session.finish();
    let outside: Vec<String> = std::fs::read_dir(parent.path())
        .expect("read the parent")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(outside, ["ws"], "nothing was written beside the workspace");
    for file in files_of(&root).keys() {
        assert!(
            file.starts_with("pages/") && !file[6..].contains('/') || file.starts_with(".outl/"),
            "{file} is outside pages/"
        );
    }
    let pages = files_of(&root.join("pages")).len();
    assert_eq!(pages, 13, "one file per page");
}
