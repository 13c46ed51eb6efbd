use outl_macros::{ToolFields, tool};
use outl_server::Error;
use outl_server::mcp::registry::NoArgs;
use outl_server::workspace::Workspace;
use serde::Serialize;

#[derive(Serialize, ToolFields)]
struct DailyPage {
    date: String,
    md: String,
}

/// Today's journal as markdown.
#[tool(read_only, payload = markdown(md), drops(date = arg))]
fn drop_arg_not_in_args(_ws: &Workspace, _args: NoArgs) -> Result<DailyPage, Error> {
    Ok(DailyPage { date: String::new(), md: String::new() })
}

fn main() {}
