//! The workspace as a whole: what it holds and what needs attention, and its history: the
//! op log, undo and redo.

use outl_macros::{ToolFields, tool};
use outl_registry::NoArgs;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::outline::timestamp;
use super::paging;
use outl_format::TaskMarker;
use outl_workspace::Error;
use outl_workspace::{ConfigProblem, Op, ReplayOutcome, Shadowed, Skipped, Workspace};

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
    /// What `logseq/config.edn` holds that could not be read (the reader's message and where
    /// it stopped); its defaults apply instead. Left out when there is nothing to say.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub config_problems: Vec<ConfigProblem>,
    /// Page files not served because another file holds the same page (`Foo.md` and `foo.md`,
    /// `foo.md` and `foo.org`): each with its page and the file that serves it.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub shadowed: Vec<Shadowed>,
    /// Files under `pages/` and `journals/` that are not pages, each with why: hidden by
    /// `:hidden`, an editor's lock file, not `.md` or `.org`, unreadable, not UTF-8.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub skipped: Vec<Skipped>,
    /// The markers of a task not started and of one under way, as the graph's
    /// `:preferred-workflow` has them (`LATER` and `NOW`, or `TODO` and `DOING`): the ones a
    /// task written to this graph takes.
    pub task_markers: [TaskMarker; 2],
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

/// The workspace: its folder, its numbers of pages, journal days and blocks, the pages edited
/// outside outl, what of `logseq/config.edn` could not be read, the files not served and why,
/// and the outl version.
#[tool(read_only, idempotent, payload = json)]
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
        config_problems: ws.config().problems.clone(),
        shadowed: graph.shadowed().to_vec(),
        skipped: graph.skipped().to_vec(),
        task_markers: [ws.config().workflow.todo(), ws.config().workflow.doing()],
        version: env!("CARGO_PKG_VERSION"),
    })
}

/// A slice of the op log.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct LogArgs {
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// One write in the op log.
#[derive(Debug, Serialize)]
pub struct LogEntry {
    /// Its place in the log: 1, 2, 3, …
    pub seq: u64,
    /// When it was written, RFC 3339 UTC.
    pub time: String,
    /// What it did: `block.move`, `page.rename`, `undo`, …
    pub kind: String,
    /// The slugs of the pages it changed (a rename names the old and the new slug).
    pub pages: Vec<String>,
    /// For an undo, the op it reverted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undoes: Option<u64>,
    /// For a redo, the op it re-applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redoes: Option<u64>,
    /// True for the calling session's own writes, the ones a bare `outl_undo` reverts.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub yours: bool,
}

impl LogEntry {
    fn of(op: &Op, session: Option<&str>) -> LogEntry {
        LogEntry {
            seq: op.seq,
            time: timestamp(op.ts),
            kind: op.kind.to_string(),
            pages: pages_of(op),
            undoes: op.undoes,
            redoes: op.redoes,
            yours: session.is_some() && op.session.as_deref() == session,
        }
    }
}

/// Ops, newest first.
#[derive(Debug, Serialize)]
pub struct Log {
    pub ops: Vec<LogEntry>,
    /// Pass as `cursor` for older ops; absent at the oldest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// What an undo or a redo reverted or re-applied.
#[derive(Debug, Serialize)]
pub struct Replayed {
    /// The seq of the op undone or redone.
    pub op: u64,
    /// Its kind, e.g. `block.move`.
    pub kind: String,
    /// The slugs of the pages it changed back (or again).
    pub pages: Vec<String>,
    /// What changed, page by page, in one line.
    pub summary: String,
    /// The seq the undo or redo itself was logged with.
    pub logged_as: u64,
}

impl Replayed {
    fn of(outcome: ReplayOutcome) -> Replayed {
        Replayed {
            op: outcome.op.seq,
            pages: pages_of(&outcome.logged),
            kind: outcome.op.kind.to_string(),
            summary: outcome.summary,
            logged_as: outcome.logged.seq,
        }
    }
}

/// The op log, newest first: each op's seq, time, kind and pages; `yours` marks this session's
/// writes, and an undo or redo names its op.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_log(ws: &Workspace, args: LogArgs) -> Result<Log, Error> {
    // A cursor is the seq of the oldest op of the previous slice.
    let before = args
        .cursor
        .as_deref()
        .map(paging::parse_cursor)
        .transpose()?;
    let log = ws.log(paging::limit(args.limit), before.map(|seq| seq as u64))?;
    Ok(Log {
        ops: log
            .ops
            .iter()
            .map(|op| LogEntry::of(op, ws.session()))
            .collect(),
        next_cursor: log.next_cursor.map(|seq| seq.to_string()),
    })
}

/// Which op to undo.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct UndoArgs {
    /// The seq of an op of outl_log, anyone's.
    pub op: Option<u64>,
}

/// Undo this session's newest write (never another client's), or with `op` any op unless a
/// later op changed its pages (CONFLICT names that op). Returns what changed back.
#[tool(destructive, payload = json)]
pub fn outl_undo(ws: &Workspace, args: UndoArgs) -> Result<Replayed, Error> {
    ws.undo(args.op).map(Replayed::of)
}

/// Redo this session's newest undo, if it has written nothing since; returns what changed
/// again.
#[tool(destructive, payload = json)]
pub fn outl_redo(ws: &Workspace, _args: NoArgs) -> Result<Replayed, Error> {
    ws.redo().map(Replayed::of)
}

/// The distinct slugs an op's pages had before and after it, in order.
fn pages_of(op: &Op) -> Vec<String> {
    let mut slugs: Vec<String> = Vec::new();
    for change in &op.pages {
        for version in [&change.before, &change.after].into_iter().flatten() {
            if !slugs.contains(&version.slug) {
                slugs.push(version.slug.clone());
            }
        }
    }
    slugs
}
