#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::tool;
use outl_registry::NoArgs;

/// Report the workspace.
#[tool(payload = json, read_only, payload = json, read_only)]
fn repeated_key(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
