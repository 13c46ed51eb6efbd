use outl_macros::tool;
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

/// Forget the op log.
#[tool(read_only, destructive, payload = json)]
fn read_only_destructive(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
