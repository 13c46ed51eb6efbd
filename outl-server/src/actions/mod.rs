//! Tool handlers, one file per domain, and the registry that lists them.

pub mod history;
pub mod lookup;
pub mod outline;
pub mod paging;

outl_macros::registry! {
    /// Every tool of the server, in `tools/list` order.
    pub static REGISTRY = [
        history::outl_workspace_info,
    ];
}
