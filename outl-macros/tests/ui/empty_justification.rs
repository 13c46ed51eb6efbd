#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::{ToolFields, tool};
use outl_registry::NoArgs;
use serde::Serialize;

#[derive(Serialize, ToolFields)]
struct Export {
    slug: String,
    generated_at: String,
    md: String,
}

/// Export the workspace as markdown.
#[tool(read_only, payload = markdown(md), drops(slug = "", generated_at = "   "))]
fn empty_justification(_ws: &Notes, _args: NoArgs) -> Result<Export, Error> {
    Ok(Export { slug: String::new(), generated_at: String::new(), md: String::new() })
}

/// Export the workspace as markdown.
#[tool(read_only, payload = markdown(md), drops(slug, generated_at = 3))]
fn missing_justification(_ws: &Notes, _args: NoArgs) -> Result<Export, Error> {
    Ok(Export { slug: String::new(), generated_at: String::new(), md: String::new() })
}

fn main() {}
