#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::{ToolFields, tool};
use outl_registry::NoArgs;
use serde::Serialize;

#[derive(Serialize, ToolFields)]
struct DailyPage {
    date: String,
    md: String,
}

/// Today's journal as markdown.
#[tool(read_only, payload = markdown(md), drops(date = arg))]
fn drop_arg_not_in_args(_ws: &Notes, _args: NoArgs) -> Result<DailyPage, Error> {
    Ok(DailyPage { date: String::new(), md: String::new() })
}

fn main() {}
