#[path = "../support/mod.rs"]
mod support;

use outl_macros::tool;
use outl_registry::NoArgs;
use support::Notes;

/// Report the notes.
#[tool(read_only, payload = json)]
fn error_without_trait(_cx: &Notes, _args: NoArgs) -> Result<String, std::io::Error> {
    Ok(String::new())
}

fn main() {}
