#[path = "../../support/mod.rs"]
mod support;

use support::{Error, Notes, NotesServer};
use outl_registry::Registry;
use outl_macros::{registry, tool};
use outl_registry::NoArgs;

/// Report the workspace.
#[tool(read_only, payload = json)]
fn workspace_info(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

registry! {
    static TOOLS: Registry<NotesServer> = [workspace_info];
}

fn main() {}
