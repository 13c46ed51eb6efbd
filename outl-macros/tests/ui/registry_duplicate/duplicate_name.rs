#[path = "../../support/mod.rs"]
mod support;

use support::{Error, Notes, NotesServer};
use outl_registry::Registry;
use outl_macros::{registry, tool};
use outl_registry::NoArgs;

/// Report the workspace.
#[tool(name = "workspace_info", read_only, payload = json)]
fn info(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace, in more words.
#[tool(name = "workspace_info", read_only, payload = json)]
fn info_verbose(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

registry! {
    static TOOLS: Registry<NotesServer> = [info, info_verbose];
}

fn main() {}
