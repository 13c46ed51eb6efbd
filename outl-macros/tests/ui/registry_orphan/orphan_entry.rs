use outl_macros::{registry, tool};
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

/// Report the workspace.
#[tool(read_only, payload = json)]
fn workspace_info(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

registry! {
    static TOOLS = [workspace_info];
}

fn main() {}
