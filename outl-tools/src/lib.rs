//! outl's tools: the handlers, one file per domain, each a list of `#[tool]` functions and the
//! types they take and return; the registry that lists them; and what every tool shares (the
//! server's instructions, the projection). They run against the workspace store
//! (`outl-workspace`) and know nothing of the MCP wire beyond what the registry runtime gives.

use outl_registry::{Registry, Server};
use outl_workspace::{Error, Workspace};
use serde::Serialize;

pub mod blocks;
pub mod export;
pub mod history;
mod instructions;
pub mod journal;
pub mod lookup;
pub mod outline;
pub mod pages;
pub mod paging;
pub mod query;
pub mod slices;

pub use instructions::{INSTRUCTIONS, SHARED_ARGS};

/// The longest block text or property value an argument may carry, in characters.
pub const MAX_TEXT_CHARS: usize = 20_000;
/// The longest markdown one call may write, in characters.
pub const MAX_MARKDOWN_CHARS: usize = 1_000_000;

/// outl's tools: they run against a workspace and fail with outl's error. What holds for every
/// tool: the arguments the server's instructions describe once, and the projection: a JSON
/// payload in each type's compact form, where an outline node is an array without what only a
/// GUI renderer needs ([`outline::OutlineNode`]; the projection's tests are
/// `outl-bench/tests/projection.rs`, beside the workspace generator).
pub struct Outl;

impl Server for Outl {
    type Context = Workspace;
    type Error = Error;

    const SHARED_ARGS: &'static [&'static str] = &SHARED_ARGS;

    fn success_json<T: Serialize + ?Sized>(output: &T) -> serde_json::Result<String> {
        outl_registry::json::compact_form(output)
    }
}

/// The bytes `output` takes as the text of an MCP success reply of a JSON payload, as outl's
/// projection writes it: what a reply budget counts.
pub fn wire_len<T: Serialize + ?Sized>(output: &T) -> usize {
    Outl::success_json(output).map_or(0, |json| json.len())
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
    pub static REGISTRY: Registry<Outl> = [
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
