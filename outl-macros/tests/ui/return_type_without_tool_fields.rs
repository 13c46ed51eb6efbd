use outl_macros::tool;
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;
use serde::Serialize;

#[derive(Serialize)]
struct Rendered {
    md: String,
}

/// Render the workspace as markdown.
#[tool(read_only, payload = markdown(md))]
fn return_type_without_tool_fields(_ws: &Workspace, _args: NoArgs) -> Result<Rendered, Error> {
    Ok(Rendered { md: String::new() })
}

fn main() {}
