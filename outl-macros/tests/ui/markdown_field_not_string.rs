#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::{ToolFields, tool};
use outl_registry::NoArgs;
use serde::Serialize;

#[derive(Serialize, ToolFields)]
struct Summary {
    lines: Vec<String>,
}

/// Summarize the workspace.
#[tool(read_only, payload = markdown(lines))]
fn markdown_field_not_string(_ws: &Notes, _args: NoArgs) -> Result<Summary, Error> {
    Ok(Summary { lines: Vec::new() })
}

/// Summarize the workspace.
#[tool(read_only, payload = markdown(md), drops(lines = "nowhere"))]
fn markdown_field_missing(_ws: &Notes, _args: NoArgs) -> Result<Summary, Error> {
    Ok(Summary { lines: Vec::new() })
}

fn main() {}
