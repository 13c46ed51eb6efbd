#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::tool;
use outl_registry::NoArgs;

/// Report the workspace.
#[tool(read_only, payload = text)]
fn unknown_payload_kind(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace.
#[tool(read_only, payload = markdown)]
fn markdown_without_field(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
