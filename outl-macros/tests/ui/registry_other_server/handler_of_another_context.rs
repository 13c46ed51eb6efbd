#[path = "../../support/mod.rs"]
mod support;

use outl_macros::{registry, tool};
use outl_registry::{NoArgs, Registry};
use support::{Error, NotesServer};

/// Report a string.
#[tool(read_only, payload = json)]
fn handler_of_another_context(_cx: &String, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

// The notes server's handlers borrow `Notes`; this one borrows a `String`.
registry! {
    static TOOLS: Registry<NotesServer> = [handler_of_another_context];
}

fn main() {
    let _ = &TOOLS;
}
