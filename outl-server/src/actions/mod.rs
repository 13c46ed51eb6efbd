//! Tool handlers, one file per domain, and the registry that lists them.

use outl_registry::{Registry, ToolContext};
use serde::Serialize;

use crate::Error;
use crate::workspace::Workspace;

pub mod blocks;
pub mod export;
pub mod history;
pub mod journal;
pub mod lookup;
pub mod outline;
pub mod pages;
pub mod paging;
pub mod query;
pub mod slices;

/// The longest block text or property value an argument may carry, in characters.
pub const MAX_TEXT_CHARS: usize = 20_000;
/// The longest markdown one call may write, in characters.
pub const MAX_MARKDOWN_CHARS: usize = 1_000_000;

/// The bytes `output` takes as the text of an MCP success reply of a JSON payload, as the
/// workspace's projection writes it: what a reply budget counts.
pub fn wire_len<T: Serialize + ?Sized>(output: &T) -> usize {
    Workspace::success_json(output).map_or(0, |json| json.len())
}

/// The schema of a task argument, whose variants are words and a task marker: a string, one of
/// `words`, in one `enum` as for an enum of words alone (the derive would give the marker
/// variant a branch of its own).
fn one_of_words(words: impl IntoIterator<Item = &'static str>) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": words.into_iter().collect::<Vec<_>>(),
    })
}

outl_macros::registry! {
    /// Every tool of the server, in `tools/list` order.
    pub static REGISTRY: Registry<Workspace, Error> = [
        pages::outl_page_list,
        pages::outl_page_get,
        pages::outl_page_render,
        pages::outl_page_create,
        pages::outl_page_rename,
        pages::outl_page_delete,
        pages::outl_page_update,
        pages::outl_page_append,
        pages::outl_page_backlinks,
        pages::outl_page_reconcile,
        blocks::outl_block_get,
        blocks::outl_block_tree,
        blocks::outl_block_insert,
        blocks::outl_block_update,
        blocks::outl_block_delete,
        blocks::outl_block_move,
        blocks::outl_block_indent,
        blocks::outl_block_outdent,
        blocks::outl_block_todo,
        blocks::outl_block_property_set,
        blocks::outl_block_property_remove,
        blocks::outl_block_collapse,
        blocks::outl_block_refs,
        journal::outl_daily_today,
        journal::outl_daily_get,
        journal::outl_daily_list,
        journal::outl_daily_append,
        export::outl_export_md,
        export::outl_export_json,
        export::outl_import_md,
        query::outl_search,
        query::outl_tasks,
        query::outl_tags,
        query::outl_tag_get,
        query::outl_property_query,
        query::outl_links,
        query::outl_recent,
        history::outl_workspace_info,
        history::outl_log,
        history::outl_undo,
        history::outl_redo,
    ];
}
