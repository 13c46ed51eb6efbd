#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::tool;
use outl_registry::NoArgs;
use serde::Serialize;

#[derive(Serialize)]
struct Rendered {
    md: String,
}

/// Render the workspace as markdown.
#[tool(read_only, payload = markdown(md))]
fn return_type_without_tool_fields(_ws: &Notes, _args: NoArgs) -> Result<Rendered, Error> {
    Ok(Rendered { md: String::new() })
}

fn main() {}
