#[path = "../support/mod.rs"]
mod support;

use support::{Error, Notes};
use outl_macros::{ToolFields, tool};
use outl_registry::NoArgs;
use serde::Serialize;

#[derive(Serialize, ToolFields)]
struct DailyPage {
    date: String,
    outline: Vec<String>,
    md: String,
}

/// Today's journal: its date, the outline with block ids, and the markdown.
#[tool(read_only, payload = markdown(md))]
fn undropped_daily_today(_ws: &Notes, _args: NoArgs) -> Result<DailyPage, Error> {
    Ok(DailyPage { date: String::new(), outline: Vec::new(), md: String::new() })
}

fn main() {}
