#[path = "../support/mod.rs"]
mod support;

use outl_macros::tool;
use outl_registry::NoArgs;
use support::Notes;

type Result<T> = std::result::Result<T, support::Error>;

/// Report the notes.
#[tool(read_only, payload = json)]
fn result_without_error_type(_cx: &Notes, _args: NoArgs) -> Result<String> {
    Ok(String::new())
}

fn main() {}
