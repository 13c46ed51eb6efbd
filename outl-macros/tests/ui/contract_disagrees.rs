#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::{ToolFields, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Deserialize, JsonSchema, ToolFields)]
struct PageRef {
    slug: String,
    /// How many levels of blocks to include.
    depth: Option<u32>,
}

#[derive(Serialize, ToolFields)]
struct PageMarkdown {
    slug: String,
    title: String,
    md: String,
}

/// Render a page as markdown.
#[tool(
    read_only,
    payload = markdown(md),
    drops(slug = arg, title = "the page's title:: property, in outl_page_get")
)]
fn contract_disagrees(_ws: &Notes, args: PageRef) -> Result<PageMarkdown, Error> {
    Ok(PageMarkdown { slug: args.slug, title: String::new(), md: String::new() })
}

fn main() {}
