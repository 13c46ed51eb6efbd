use outl_macros::tool;
use outl_server::Error;
use outl_server::workspace::Workspace;

/// Report the workspace.
#[tool(read_only, payload = json)]
fn wrong_arity(_ws: &Workspace) -> Result<String, Error> {
    Ok(String::new())
}

fn main() {}
