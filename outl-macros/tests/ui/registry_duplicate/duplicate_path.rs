use outl_macros::{registry, tool};
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;

mod info {
    use super::*;

    /// Report the workspace.
    #[tool(name = "workspace_info", read_only, payload = json)]
    pub fn info(_ws: &Workspace, _args: NoArgs) -> Result<String, Error> {
        Ok(String::new())
    }
}

registry! {
    static TOOLS = [info::info, info :: info];
}

fn main() {}
