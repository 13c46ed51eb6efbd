use outl_macros::tool;
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

/// Report the workspace.
#[tool(read_only, payload = json, output_schema = "Info")]
fn output_schema_snake(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace.
#[tool(read_only, payload = json, outputSchema)]
fn output_schema_camel(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace.
#[tool(read_only, payload = json, returns_schema(auto))]
fn output_schema_returns(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace.
#[tool(read_only, payload = json, output = "schema")]
fn output_schema_output(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
