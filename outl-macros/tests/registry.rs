//! The definitions `#[tool]` and `registry!` generate, checked through the runtime API.

mod support;

use outl_macros::{ToolFields, registry, tool};
use outl_registry::{
    Annotations, DroppedField, Justification, NoArgs, Payload, Registry, Server, Tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use support::{Error, Notes, NotesServer};

#[derive(Deserialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
struct PageRef {
    slug: String,
    /// How many levels of blocks to render.
    #[allow(
        dead_code,
        reason = "decoded to check the schema; this fixture renders every level"
    )]
    depth: Option<u32>,
}

#[derive(Serialize, ToolFields)]
struct PageMarkdown {
    slug: String,
    md: String,
}

/// Render a page as markdown.
#[tool(read_only, payload = markdown(md), drops(slug = arg))]
fn page_render(_cx: &Notes, args: PageRef) -> Result<PageMarkdown, Error> {
    Ok(PageMarkdown {
        md: format!("# {}\n", args.slug),
        slug: args.slug,
    })
}

/// Render a page, its slug lower-cased: a canonicalization the caller does not know about.
#[tool(read_only, payload = markdown(md), drops(slug = arg))]
fn page_render_canonical(_cx: &Notes, args: PageRef) -> Result<PageMarkdown, Error> {
    Ok(PageMarkdown {
        md: String::new(),
        slug: args.slug.to_lowercase(),
    })
}

#[derive(Serialize)]
struct DailyPage {
    date: String,
    md: String,
}

/// Today's journal.
#[tool(read_only, idempotent, payload = json)]
fn daily_today(_cx: &Notes, _args: NoArgs) -> Result<DailyPage, Error> {
    Ok(DailyPage {
        date: "2026-05-01".into(),
        md: "- hello\n".into(),
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum DeleteMode {
    /// Move the page to the trash.
    Trash,
    /// Delete it for good.
    Purge,
}

#[derive(Deserialize, JsonSchema, ToolFields)]
struct DeleteArgs {
    slug: String,
    /// Where the page goes.
    mode: DeleteMode,
    /// Tags that must all be on the page.
    #[serde(default)]
    tags: Vec<String>,
    /// Days the trash keeps the page. The schema says any u32 and serde takes a u8, so a
    /// value between them is caught by serde, past the schema check.
    #[serde(default)]
    #[schemars(with = "u32")]
    keep_days: u8,
}

/// Delete a page.
#[tool(name = "page.delete", destructive, payload = json)]
fn page_delete(_cx: &Notes, args: DeleteArgs) -> Result<Value, Error> {
    if args.slug == "missing" {
        return Err(Error::new("PAGE_NOT_FOUND", "no such page"));
    }
    Ok(json!({
        "deleted": args.slug,
        "purged": matches!(args.mode, DeleteMode::Purge),
        "tags": args.tags,
        "keep_days": args.keep_days,
    }))
}

registry! {
    /// The fixture registry.
    static TOOLS: Registry<NotesServer> = [page_render, daily_today, page_delete, page_render_canonical];
}

#[test]
fn tools_keep_the_listed_order_and_their_specs() {
    let names: Vec<&str> = TOOLS.tools().iter().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "page_render",
            "daily_today",
            "page.delete",
            "page_render_canonical"
        ]
    );

    let render = TOOLS.get("page_render").expect("registered").spec;
    assert_eq!(render.description, "Render a page as markdown.");
    assert_eq!(
        render.payload,
        Payload::Markdown {
            field: "md",
            cut: None
        }
    );
    assert_eq!(
        render.drops,
        &[DroppedField {
            field: "slug",
            why: Justification::Arg
        }]
    );
    assert_eq!(
        render.annotations,
        Annotations {
            read_only: true,
            destructive: false,
            idempotent: false
        }
    );

    let today = <daily_today as Tool>::SPEC;
    assert_eq!(
        today.annotations,
        Annotations {
            read_only: true,
            destructive: false,
            idempotent: true
        }
    );
    assert_eq!(today.payload, Payload::Json);
    assert!(today.drops.is_empty());

    let delete = TOOLS.get("page.delete").expect("registered").spec;
    assert_eq!(
        delete.annotations,
        Annotations {
            read_only: false,
            destructive: true,
            idempotent: false
        }
    );
    assert!(
        TOOLS.get("page_delete").is_none(),
        "a tool is found by its name, not its fn"
    );
}

#[test]
fn dispatch_returns_the_payload_kind_with_the_data() {
    let reply = TOOLS
        .call(&Notes, "page_render", json!({ "slug": "Home" }))
        .expect("known tool")
        .expect("a reply");
    assert_eq!(
        reply.payload,
        Payload::Markdown {
            field: "md",
            cut: None
        }
    );
    assert_eq!(
        reply.data(),
        Ok(json!({ "slug": "Home", "md": "# Home\n" }))
    );
    let reply = TOOLS
        .call(&Notes, "daily_today", Value::Null)
        .expect("known tool")
        .expect("a reply");
    assert_eq!(reply.payload, Payload::Json);
    assert_eq!(
        reply.data(),
        Ok(json!({ "date": "2026-05-01", "md": "- hello\n" }))
    );
    assert!(TOOLS.call(&Notes, "no_such_tool", json!({})).is_none());
}

#[test]
fn a_handler_error_is_the_reply_error() {
    let reply = TOOLS
        .call(
            &Notes,
            "page.delete",
            json!({ "slug": "missing", "mode": "trash" }),
        )
        .expect("known tool");
    assert_eq!(reply.err().map(|e| e.code), Some("PAGE_NOT_FOUND"));
}

#[test]
fn input_schemas_are_small_and_described() {
    for tool in TOOLS.tools() {
        let schema = tool.input_schema();
        assert_eq!(schema["type"], "object", "{}", tool.name());
        assert!(
            !schema.contains_key("additionalProperties"),
            "{}: decoding refuses unknown properties without the schema saying so",
            tool.name()
        );
        assert!(
            !schema.contains_key("$schema"),
            "{}: MCP defaults to 2020-12",
            tool.name()
        );
        assert!(
            !schema.contains_key("title"),
            "{}: the Rust type name tells the model nothing",
            tool.name()
        );
        assert!(
            !schema.contains_key("$defs"),
            "{}: subschemas are inlined",
            tool.name()
        );
        for (name, property) in schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let described = property
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|description| !description.is_empty());
            // The server's instructions describe the shared arguments, once for every tool.
            assert_eq!(
                described,
                !NotesServer::SHARED_ARGS.contains(&name.as_str()),
                "{}: property {name}",
                tool.name()
            );
        }
    }
    let delete = TOOLS.get("page.delete").expect("registered").input_schema();
    assert_eq!(delete["required"], json!(["slug", "mode"]));
    assert_eq!(
        delete["properties"]["mode"]["description"],
        "Where the page goes."
    );
    let no_args = TOOLS.get("daily_today").expect("registered").input_schema();
    assert_eq!(Value::Object(no_args.clone()), json!({ "type": "object" }));
}

fn problems(tool: &str, args: Value) -> Vec<(String, String)> {
    let error = TOOLS
        .call(&Notes, tool, args)
        .expect("known tool")
        .expect_err("invalid arguments");
    assert_eq!(error.code, "INVALID_ARGUMENTS");
    let data = error.data.expect("the problems are in error.data");
    data["problems"]
        .as_array()
        .expect("a list of problems")
        .iter()
        .map(|p| {
            (
                p["pointer"].as_str().unwrap_or_default().to_owned(),
                p["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn decoding_lists_every_problem_with_its_pointer() {
    let found = problems(
        "page_render",
        json!({ "slug": 3, "depth": -1, "extra": true, "more": null }),
    );
    let pointers: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        pointers,
        ["/slug", "/depth", "/extra", "/more"],
        "{found:?}"
    );
    assert_eq!(found[0].1, "expected string, got number");
    assert_eq!(found[1].1, "expected a number >= 0");
    assert_eq!(
        found[2].1,
        "unknown property; the properties are slug, depth"
    );

    let found = problems("page.delete", json!({ "mode": "nuke", "tags": ["a", 1] }));
    assert_eq!(
        found,
        [
            ("/slug".to_owned(), "missing required property".to_owned()),
            (
                "/mode".to_owned(),
                r#"expected one of "trash", "purge""#.to_owned()
            ),
            (
                "/tags/1".to_owned(),
                "expected string, got number".to_owned()
            ),
        ]
    );

    let found = problems(
        "page.delete",
        json!({ "slug": "a", "mode": "trash", "keep_days": 300 }),
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "/keep_days");
    assert!(found[0].1.contains("expected u8"), "{found:?}");

    assert_eq!(
        problems("page_render", json!(["Home"])),
        [(String::new(), "expected object, got array".to_owned())]
    );
    assert_eq!(
        problems("daily_today", json!({ "date": "2026-05-01" })),
        [(
            "/date".to_owned(),
            "unknown property: this tool takes no arguments".to_owned()
        )]
    );
}

#[test]
fn absent_arguments_are_an_empty_object() {
    assert!(
        TOOLS
            .call(&Notes, "daily_today", Value::Null)
            .expect("known tool")
            .is_ok()
    );
    assert!(
        TOOLS
            .call(&Notes, "daily_today", json!({}))
            .expect("known tool")
            .is_ok()
    );
    assert_eq!(
        problems("page_render", Value::Null),
        [("/slug".to_owned(), "missing required property".to_owned())]
    );
}

#[test]
fn the_error_message_summarizes_the_problems() {
    let error = TOOLS
        .call(&Notes, "page_render", json!({ "depth": "two" }))
        .expect("known tool")
        .expect_err("invalid");
    assert_eq!(
        error.message,
        "/slug: missing required property; /depth: expected integer, got string"
    );
}

#[cfg(debug_assertions)]
#[test]
fn a_handler_that_changes_an_arg_it_drops_panics_in_debug_builds() {
    // As sent, the drop holds.
    assert!(
        TOOLS
            .call(&Notes, "page_render_canonical", json!({ "slug": "home" }))
            .expect("known tool")
            .is_ok()
    );
    let panic = std::panic::catch_unwind(|| {
        TOOLS.call(&Notes, "page_render_canonical", json!({ "slug": "Home" }))
    })
    .expect_err("the returned slug differs from the one sent");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains(r#"the caller sent "Home" and the handler returned "home""#),
        "{message}"
    );
    assert!(message.contains("canonicalized `slug`"), "{message}");
    assert!(message.contains("Justify the drop in words"), "{message}");
}

#[test]
fn contract_tables_are_the_accepted_tools_toml() {
    let tables: Vec<String> = TOOLS
        .tools()
        .iter()
        .map(|t| t.spec.contract_table())
        .collect();
    let file = include_str!("tools.toml");
    let body = file.split_once("\n\n").map_or(file, |(_header, body)| body);
    assert_eq!(tables.join("\n"), body);
}
