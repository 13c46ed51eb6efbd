//! Tool handlers, one file per domain, and the registry that lists them.

pub mod export;
pub mod history;
pub mod journal;
pub mod lookup;
pub mod outline;
pub mod pages;
pub mod paging;

outl_macros::registry! {
    /// Every tool of the server, in `tools/list` order.
    pub static REGISTRY = [
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
        journal::outl_daily_today,
        journal::outl_daily_get,
        journal::outl_daily_list,
        journal::outl_daily_append,
        export::outl_export_md,
        export::outl_export_json,
        export::outl_import_md,
        history::outl_workspace_info,
    ];
}
