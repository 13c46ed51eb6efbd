#[path = "../../support/mod.rs"]
mod support;

use support::{Error, Notes, NotesServer};
use outl_registry::Registry;
use outl_macros::{registry, tool};
use outl_registry::NoArgs;

mod info {
    use super::*;

    /// Report the workspace.
    #[tool(name = "workspace_info", read_only, payload = json)]
    pub fn info(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
        Ok(String::new())
    }
}

registry! {
    static TOOLS: Registry<NotesServer> = [info::info, info :: info];
}

fn main() {}
