#[path = "../support/mod.rs"]
mod support;

use outl_macros::{ToolFields, tool};
use outl_registry::NoArgs;
use support::{Error, Notes};

/// Report the notes.
#[tool(read_only, payload = json, crate = "not a path")]
fn crate_not_a_path(_cx: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the notes again.
#[tool(read_only, payload = json, crate = outl_registry)]
fn crate_not_a_string(_cx: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

#[derive(ToolFields)]
#[tool_fields(crate = "::outl_registry", krate = "::outl_registry")]
struct Fields {}

fn main() {}
