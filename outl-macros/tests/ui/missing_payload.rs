#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::tool;
use outl_registry::NoArgs;

/// Report the workspace.
#[tool(read_only)]
fn missing_payload(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
