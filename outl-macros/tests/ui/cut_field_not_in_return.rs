use outl_macros::{ToolFields, tool};
use outl_server::Error;
use outl_server::workspace::Workspace;
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
#[tool(read_only, payload = markdown(md, cut = next), drops(slug = arg))]
fn cut_field_not_in_return(_ws: &Workspace, args: PageRef) -> Result<PageMarkdown, Error> {
    Ok(PageMarkdown { slug: args.slug, md: String::new() })
}

fn main() {}
