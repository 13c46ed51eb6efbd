//! The workspace as a whole: what it holds, and (soon) its op log, undo and redo.

use serde::Serialize;

use crate::Error;
use crate::mcp::registry::NoArgs;
use crate::workspace::{PageKind, Workspace};

/// What `outl_workspace_info` reports.
#[derive(Debug, Serialize)]
pub struct WorkspaceInfo {
    /// The workspace folder, absolute.
    pub path: String,
    /// Pages, journal days excluded.
    pub pages: usize,
    pub journals: usize,
    /// Blocks on every page and journal, nested ones included.
    pub blocks: usize,
    /// The outl version serving it.
    pub version: &'static str,
}

/// Where the workspace is and how big it is: its folder, the number of pages, journal days
/// and blocks, and the outl version serving it.
#[outl_macros::tool(title = "Workspace info", read_only, idempotent, payload = json)]
pub fn outl_workspace_info(ws: &Workspace, _args: NoArgs) -> Result<WorkspaceInfo, Error> {
    let graph = ws.snapshot();
    let (mut pages, mut journals, mut blocks) = (0, 0, 0);
    for page in graph.pages() {
        match page.kind {
            PageKind::Page => pages += 1,
            PageKind::Journal { .. } => journals += 1,
        }
        blocks += page.blocks_preorder().len();
    }
    Ok(WorkspaceInfo {
        path: ws.root().display().to_string(),
        pages,
        journals,
        blocks,
        version: env!("CARGO_PKG_VERSION"),
    })
}
