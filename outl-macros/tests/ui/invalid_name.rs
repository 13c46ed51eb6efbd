use outl_macros::tool;
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

/// Report the workspace.
#[tool(name = "workspace info", read_only, payload = json)]
fn invalid_name(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace.
#[tool(name = "", read_only, payload = json)]
fn empty_name(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
