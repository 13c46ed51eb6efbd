use outl_macros::tool;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

/// Report the workspace.
#[tool(read_only, payload = json)]
fn return_not_result(_ws: &Workspace, _args: NoArgs) -> String {
    String::new()
}

fn main() {}
