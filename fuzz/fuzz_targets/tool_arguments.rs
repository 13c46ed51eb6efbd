//! Every tool through the registry with arbitrary arguments, on a workspace of real pages: a
//! call returns a reply or an error, never a panic.
//!
//! Arguments are built from the input as an object whose keys are mostly the tool's own
//! parameters (from its `inputSchema`) and whose values are any JSON, with strings often drawn
//! from what the workspace holds (page names, block ids, dates), so that calls get past
//! argument decoding into the handlers. Some inputs are sent as they are instead, JSON or not:
//! those that are neither an object nor null must be refused as INVALID_ARGUMENTS.

#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use outl_registry::tool_success_payload;
use outl_tools::REGISTRY;
use outl_workspace::{BlockList, Workspace};
use serde_json::{Map, Value};

const PAGE: &str = "title:: Project X\ntags:: project\n\n- TODO Call [[Bob]] about #launch\n  \
collapsed:: true\n  priority:: high\n\t- child with a ((b1))\n- DONE shipped\n  id:: b1\n";
const JOURNAL: &str = "- met [[Project X]] people\n\t- NOW write it up\n";
/// Strings worth trying besides what the workspace holds.
const WORDS: &[&str] = &[
    "",
    "project x",
    "Project X",
    "bob",
    "projects/apollo",
    "2026-11-30",
    "2026-02-30",
    "today",
    "- new block\n\t- its child\n",
    "TODO",
    "DONE",
    "NOW",
    "LATER",
    "page",
    "journal",
    "all",
    "create",
    "replace",
    "append",
    "launch",
    "priority",
    "high",
    "tags",
    "..",
    "../../etc/passwd",
    "a\0b",
    "[[Bob]] #launch ((b1))",
    "key:: value",
];

struct Fixture {
    workspace: Workspace,
    /// Page names, slugs and block ids present when the workspace was opened.
    known: Vec<String>,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        // On a RAM disk where there is one: every write fsyncs.
        let parent = std::path::Path::new("/dev/shm");
        let dir = if parent.is_dir() {
            tempfile::tempdir_in(parent)
        } else {
            tempfile::tempdir()
        }
        .expect("temp workspace");
        for (file, md) in [
            ("pages/Project X.md", PAGE),
            ("pages/Bob.md", "- [[Project X]]\n"),
            ("journals/2026_11_30.md", JOURNAL),
        ] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("create folder");
            std::fs::write(path, md).expect("write page");
        }
        let workspace = Workspace::open(dir.path()).expect("open workspace");
        let mut known: Vec<String> = WORDS.iter().map(|w| (*w).to_owned()).collect();
        {
            let graph = workspace.snapshot();
            for page in graph.pages() {
                known.push(page.slug.clone());
                known.push(page.name.clone());
                known.extend(page.blocks().preorder().iter().map(|b| b.id.to_string()));
            }
        }
        Fixture {
            workspace,
            known,
            _dir: dir,
        }
    })
}

/// A JSON value, with strings often taken from [`Fixture::known`].
#[derive(Debug, Arbitrary)]
enum Arg {
    Null,
    Bool(bool),
    Small(u8),
    Int(i64),
    Float(f64),
    Known(u8),
    Text(String),
    List(Vec<Arg>),
    Object(Vec<(String, Arg)>),
}

impl Arg {
    fn to_json(&self, known: &[String]) -> Value {
        match self {
            Arg::Null => Value::Null,
            Arg::Bool(b) => Value::Bool(*b),
            Arg::Small(n) => Value::from(*n),
            Arg::Int(n) => Value::from(*n),
            Arg::Float(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
            Arg::Known(i) => Value::String(known[usize::from(*i) % known.len()].clone()),
            Arg::Text(s) => Value::String(s.clone()),
            Arg::List(items) => items.iter().map(|a| a.to_json(known)).collect(),
            Arg::Object(fields) => fields
                .iter()
                .map(|(k, v)| (k.clone(), v.to_json(known)))
                .collect::<Map<_, _>>()
                .into(),
        }
    }
}

#[derive(Debug, Arbitrary)]
enum Input {
    /// Keys picked among the tool's parameters (or, past their number, named freely).
    Fields {
        tool: u8,
        fields: Vec<(u8, String, Arg)>,
    },
    /// The arguments as given: JSON when the bytes parse, a string otherwise.
    Raw { tool: u8, bytes: Vec<u8> },
}

fuzz_target!(|input: Input| {
    let fixture = fixture();
    let tools = REGISTRY.tools();
    let pick = |index: u8| &tools[usize::from(index) % tools.len()];
    match input {
        Input::Fields { tool, fields } => {
            let tool = pick(tool);
            let params: Vec<&String> = tool
                .input_schema()
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().collect())
                .unwrap_or_default();
            let mut args = Map::new();
            for (slot, free_name, value) in &fields {
                let key = match params.get(usize::from(*slot)) {
                    Some(param) => (*param).clone(),
                    None if *slot < 200 && !params.is_empty() => {
                        params[usize::from(*slot) % params.len()].clone()
                    }
                    None => free_name.clone(),
                };
                args.insert(key, value.to_json(&fixture.known));
            }
            if let Ok(reply) = tool.call(&fixture.workspace, Value::Object(args)) {
                // A reply is serialized when it is sent: as the MCP projection, or whole by the CLI.
                let _ = tool_success_payload(&reply);
                let _ = reply.data();
            }
        }
        Input::Raw { tool, bytes } => {
            let tool = pick(tool);
            let args = serde_json::from_slice::<Value>(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
            // `null` stands for arguments left out, which is `{}`.
            let is_object = args.is_object() || args.is_null();
            let outcome = tool.call(&fixture.workspace, args);
            if !is_object {
                let error =
                    outcome.expect_err("arguments that are neither an object nor null are refused");
                assert_eq!(error.code.as_str(), "INVALID_ARGUMENTS", "{error}");
            }
        }
    }
});
