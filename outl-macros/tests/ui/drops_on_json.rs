use outl_macros::tool;
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

/// Report the workspace.
#[tool(read_only, payload = json, drops(root = "the caller opened it"))]
fn drops_on_json(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
