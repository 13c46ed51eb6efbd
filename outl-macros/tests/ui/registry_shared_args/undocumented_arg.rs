#[path = "../../support/mod.rs"]
mod support;

use support::{Error, Notes, NotesServer};
use outl_macros::{ToolFields, registry, tool};
use outl_registry::Registry;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema, ToolFields)]
struct SearchArgs {
    /// What to look for.
    query: String,
    prefix: Option<String>,
    kind: Option<String>,
    limit: Option<u32>,
    /// From `next_cursor`.
    cursor: Option<String>,
}

/// Search the workspace.
#[tool(read_only, payload = json)]
fn undocumented_arg(_ws: &Notes, args: SearchArgs) -> Result<Vec<String>, Error> {
    Ok(vec![args.query])
}

// The server names the arguments its instructions describe; the registry is where the tool
// meets it.
registry! {
    static TOOLS: Registry<NotesServer> = [undocumented_arg];
}

fn main() {
    let _ = &TOOLS;
}
