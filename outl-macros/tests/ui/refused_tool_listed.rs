#[path = "../support/mod.rs"]
mod support;

use outl_macros::{registry, tool};
use outl_registry::{NoArgs, Registry};
use support::{Error, Notes, NotesServer};

/// Render the notes.
#[tool(read_only, payload = markdown)]
fn refused_tool_listed(_cx: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// A caller of the handler sees the fn it wrote.
fn render() -> Result<String, Error> {
    refused_tool_listed(&Notes, NoArgs {})
}

// The registry lists the refused tool, and adds no error of its own.
registry! {
    static TOOLS: Registry<NotesServer> = [refused_tool_listed];
}

fn main() {
    let _ = (render(), &TOOLS);
}
