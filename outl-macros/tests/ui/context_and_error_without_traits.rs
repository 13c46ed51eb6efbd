#[path = "../support/mod.rs"]
mod support;

use outl_macros::tool;
use outl_registry::NoArgs;
use support::{Error, Notes};

/// Report a string.
#[tool(read_only, payload = json)]
fn context_without_trait(_cx: &String, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the notes.
#[tool(read_only, payload = json)]
fn error_without_trait(_cx: &Notes, _args: NoArgs) -> Result<String, std::io::Error> {
    Ok(String::new())
}

fn main() {}
