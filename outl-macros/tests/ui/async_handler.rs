use outl_macros::tool;
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

/// Report the workspace.
#[tool(read_only, payload = json)]
async fn async_handler(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
