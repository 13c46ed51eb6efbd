#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::tool;
use outl_registry::NoArgs;

/// Report the workspace.
#[tool(read_only, payload = json)]
fn workspace_by_value(_ws: Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace, mutably.
#[tool(read_only, payload = json)]
fn workspace_by_mut_ref(_ws: &mut Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
