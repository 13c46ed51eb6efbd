use outl_macros::tool;
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

/// Report the workspace.
#[tool(read_only, payload = text)]
fn unknown_payload_kind(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace.
#[tool(read_only, payload = markdown)]
fn markdown_without_field(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
