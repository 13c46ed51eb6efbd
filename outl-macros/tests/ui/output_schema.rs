#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::tool;
use outl_registry::NoArgs;

/// Report the workspace.
#[tool(read_only, payload = json, output_schema = "Info")]
fn output_schema_snake(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace.
#[tool(read_only, payload = json, outputSchema)]
fn output_schema_camel(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace.
#[tool(read_only, payload = json, returns_schema(auto))]
fn output_schema_returns(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace.
#[tool(read_only, payload = json, output = "schema")]
fn output_schema_output(_ws: &Notes, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
