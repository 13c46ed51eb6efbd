#[path = "../support/mod.rs"]
mod support;

use support::Notes;
use outl_macros::tool;
use outl_registry::NoArgs;

/// Report the workspace.
#[tool(read_only, payload = json)]
fn return_not_result(_ws: &Notes, _args: NoArgs) -> String {
    String::new()
}

fn main() {}
