#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::{ToolFields, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema, ToolFields)]
struct PageRef {
    slug: String,
}

#[derive(Serialize, ToolFields)]
struct PageMarkdown {
    slug: String,
    md: String,
}

/// Render a page as markdown.
#[tool(read_only, payload = markdown(md), drops(slug = arg, title = "the caller named the page"))]
fn dropped_field_not_in_return(_ws: &Notes, args: PageRef) -> Result<PageMarkdown, Error> {
    Ok(PageMarkdown { slug: args.slug, md: String::new() })
}

fn main() {}
