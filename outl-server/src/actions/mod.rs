//! Tool handlers, one file per domain, and the registry that lists them.

pub mod history;

outl_macros::registry! {
    /// Every tool of the server, in `tools/list` order.
    pub static REGISTRY = [
        history::outl_workspace_info,
    ];
}
