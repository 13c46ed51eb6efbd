#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::tool;

/// Report the workspace.
#[tool(read_only, payload = json)]
fn wrong_arity(_ws: &Notes) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
