#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::tool;
use outl_registry::NoArgs;

/// Report the workspace.
#[tool(name = "workspace info", read_only, payload = json)]
fn invalid_name(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace.
#[tool(name = "", read_only, payload = json)]
fn empty_name(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
