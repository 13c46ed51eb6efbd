use outl_macros::tool;
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

/// Report the workspace.
#[tool(title = "Workspace info", read_only, payload = json)]
fn titled(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
