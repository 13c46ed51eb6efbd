use outl_macros::{registry, tool};
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

/// Report the workspace.
#[tool(name = "workspace_info", read_only, payload = json)]
fn info(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

/// Report the workspace, in more words.
#[tool(name = "workspace_info", read_only, payload = json)]
fn info_verbose(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

registry! {
    static TOOLS = [info, info_verbose];
}

fn main() {}
