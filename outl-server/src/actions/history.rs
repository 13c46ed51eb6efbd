//! The workspace as a whole: what it holds and what needs attention.

use serde::Serialize;

use crate::Error;
use crate::mcp::registry::NoArgs;
use crate::workspace::Workspace;

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
    /// Pages edited outside outl and not reconciled yet: their writes are refused.
    pub frozen: Vec<FrozenPage>,
    /// The outl version serving it.
    pub version: &'static str,
}

/// A page whose writes are refused until it is reconciled.
#[derive(Debug, Serialize)]
pub struct FrozenPage {
    pub slug: String,
    /// The page file, relative to the workspace.
    pub path: String,
    /// The lines changed outside outl, `12-15`.
    pub lines: String,
    /// The command that adopts the file as it is now.
    pub recovery_command: String,
}

/// Where the workspace is and what it holds: its folder, the number of pages, journal days
/// and blocks, the pages edited outside outl whose writes are refused until they are
/// reconciled, and the outl version serving it.
#[outl_macros::tool(title = "Workspace info", read_only, idempotent, payload = json)]
pub fn outl_workspace_info(ws: &Workspace, _args: NoArgs) -> Result<WorkspaceInfo, Error> {
    let graph = ws.snapshot();
    let journals = graph.journals().count();
    let frozen = graph
        .frozen()
        .map(|page| FrozenPage {
            slug: page.slug.clone(),
            path: page.path.clone(),
            lines: page.lines.clone(),
            recovery_command: page.recovery_command(),
        })
        .collect();
    Ok(WorkspaceInfo {
        path: ws.root().display().to_string(),
        pages: graph.page_count().saturating_sub(journals),
        journals,
        blocks: graph.block_count(),
        frozen,
        version: env!("CARGO_PKG_VERSION"),
    })
}
