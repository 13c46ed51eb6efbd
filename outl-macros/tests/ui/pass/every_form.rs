//! Every form `#[tool]`, `registry!` and `ToolFields` accept, checked at run time too.

#[path = "../../support/mod.rs"]
mod support;

use support::{Error, Notes, NotesServer};
use outl_registry::Registry;
use outl_macros::{ToolFields, registry, tool};
use outl_registry::{Justification, NoArgs, Payload, Tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod pages {
    use super::*;

    #[derive(Deserialize, JsonSchema, ToolFields)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct RenderArgs {
        /// The page to render.
        pub page_slug: String,
        #[schemars(description = "How many levels of blocks to render.")]
        pub max_depth: Option<u32>,
        /// Whether to resolve ((block refs)).
        #[serde(rename = "refs", default)]
        pub resolve_refs: bool,
        #[serde(skip)]
        pub cache_hint: (),
    }

    #[derive(Serialize, ToolFields)]
    #[serde(rename_all = "camelCase")]
    pub struct Rendered {
        pub page_slug: String,
        pub rendered_at: String,
        pub md: std::string::String,
    }

    /// Render a page as markdown,
    /// block refs resolved.
    ///
    /// The slug comes back as sent.
    #[tool(
        name = "pages.render-v2",
        read_only,
        idempotent,
        payload = markdown(md),
        drops(pageSlug = arg, renderedAt = "the time of the call, which the caller knows"),
    )]
    pub fn render(_ws: &Notes, args: RenderArgs) -> std::result::Result<Rendered, Error> {
        Ok(Rendered { page_slug: args.page_slug, rendered_at: String::new(), md: String::new() })
    }

    /// A slice of a page's markdown, and where the next one starts.
    #[derive(Serialize, ToolFields)]
    #[tool_fields(crate = "crate::runtime")]
    pub struct Slice {
        pub md: String,
        pub cut: Option<String>,
    }

    /// Export a page as markdown, in slices.
    #[tool(read_only, payload = markdown(md, cut = cut))]
    pub fn export(_ws: &Notes, _args: NoArgs) -> std::result::Result<Slice, Error> {
        Ok(Slice { md: String::new(), cut: None })
    }
}

/// The runtime under another name, as a crate that re-exports it names it.
pub use outl_registry as runtime;

/// Delete the workspace's caches.
#[tool(destructive, payload = json, crate = "crate::runtime")]
pub fn r#clear_caches(_ws: &Notes, _args: NoArgs) -> Result<Vec<u32>, Error> {
    Ok(Vec::new())
}

/// Report the workspace.
#[tool(idempotent, payload = json)]
fn info(_ws: &Notes, NoArgs {}: NoArgs) -> Result<serde_json::Value, Error> {
    Ok(serde_json::json!({}))
}

registry! {
    /// Every tool of this example.
    #[registry(crate = "crate::runtime")]
    pub static TOOLS: Registry<NotesServer> = [pages::render, pages::export, clear_caches, info,];
}

fn main() {
    let names: Vec<&str> = TOOLS.tools().iter().map(|t| t.name()).collect();
    assert_eq!(names, ["pages.render-v2", "export", "clear_caches", "info"]);
    assert_eq!(<pages::export as Tool>::SPEC.payload, Payload::Markdown { field: "md", cut: Some("cut") });

    let render = <pages::render as Tool>::SPEC;
    assert_eq!(render.description, "Render a page as markdown, block refs resolved.\n\nThe slug comes back as sent.");
    assert_eq!(render.payload, Payload::Markdown { field: "md", cut: None });
    assert_eq!(render.drops[0].why, Justification::Arg);
    assert_eq!(render.drops[1].why, Justification::Elsewhere("the time of the call, which the caller knows"));
    assert!(render.annotations.read_only && render.annotations.idempotent && !render.annotations.destructive);

    let schema = <pages::render as Tool>::input_schema();
    let properties = schema["properties"].as_object().expect("properties");
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["pageSlug", "maxDepth", "refs"]);
    assert_eq!(properties["maxDepth"]["description"], "How many levels of blocks to render.");

    let reply = TOOLS.call(&Notes, "clear_caches", serde_json::Value::Null).expect("registered");
    assert_eq!(reply.and_then(|reply| reply.data()), Ok(serde_json::json!([])));
}
