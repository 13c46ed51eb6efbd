#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::tool;
use outl_registry::NoArgs;

/// Report the workspace.
#[tool(read_only, payload = json, drops(root = "the caller opened it"))]
fn drops_on_json(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
