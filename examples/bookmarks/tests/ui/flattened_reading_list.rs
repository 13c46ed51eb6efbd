use bookmarks::{Error, Library};
use outl_macros::{ToolFields, tool};
use outl_registry::NoArgs;
use serde::Serialize;

#[derive(Serialize, ToolFields)]
struct ReadingList {
    ids: Vec<u64>,
    md: String,
}

/// The unread bookmarks as markdown, their ids nowhere else.
#[tool(read_only, payload = markdown(md))]
fn flattened_reading_list(_library: &Library, _args: NoArgs) -> Result<ReadingList, Error> {
    Ok(ReadingList { ids: Vec::new(), md: String::new() })
}

fn main() {}
