//! The workspace store: a workspace folder on disk, its pages and journals, sidecar ids, the op
//! log, the lock and the index, and outl's one error type. It reads pages through the format
//! crate, `outl-format`, and knows nothing of tools or of the wire.
//!
//! # On disk
//!
//! ```text
//! pages/<name>.md              one page; the namespace a/b is the file a___b.md
//! journals/YYYY_MM_DD.md       one journal page per day
//! logseq/config.edn            the graph's settings, read at open (see `GraphConfig`)
//! .outl/lock                   the write lock (an exclusive file lock, held during each write)
//! .outl/oplog                  the op log, one line per write (see below)
//! .outl/oplog.1                the op log's previous segment
//! .outl/ids/<page file>.ids    sidecar of each page: its block ids, content hash and markdown
//! .outl/cache                  the pages and the index as last loaded, for the next open
//! ```
//!
//! A Logseq graph opens as it is. Files ending in `.md` or `.org` anywhere in the graph's
//! folder are pages, as Logseq reads them, but for dot folders, `node_modules` and Logseq's
//! backups; under `pages/` and `journals/` dot-named ones too (`.NET.md`). What `:hidden`
//! hides, editors' lock files, other files in the page folders and symlinks leading outside
//! the workspace are skipped and reported ([`Graph::skipped`], see `load::page_files`). Org
//! pages are read and written in org.
//!
//! # Names and slugs
//!
//! - A page's **name** is its `title::` page property when it has one, else it comes from the
//!   file name by Logseq's `:triple-lowbar` format: `___` stands for the namespace separator
//!   `/`, and `%XX` sequences are percent-decoded (so the legacy `%2F` separator reads too).
//!   In a graph still on Logseq's legacy format (`logseq/config.edn` without
//!   `:file/name-format :triple-lowbar`) a `.` in a file name also separates namespaces.
//! - A journal's name and slug are its ISO date, `2026-11-30`, from `journals/2026_11_30.md`.
//! - The **slug** is the name with surrounding whitespace trimmed and lowercased (Unicode
//!   lowercase); namespaces keep their `/`. Page names are case-insensitive: `resolve` finds a
//!   page by its name in any case or by its slug.
//! - A new page's file name is its name, case kept, with `/` written `___`, and percent-encoded:
//!   `: * ? " < > | # \`, control characters, a `%` that would read as an escape, underscores
//!   that would read as `___`, a leading or trailing `.` (and every `.` in a legacy graph), and
//!   the last letter of a Windows device name (`con`, `nul`, …). The file name therefore always
//!   decodes back to exactly the name, and is always a single file inside `pages/`: whatever a
//!   name contains (`..`, `/etc/passwd`) it cannot address anything else. Names with NUL or
//!   other control characters are refused with `PATH_OUTSIDE_WORKSPACE`.
//! - Two files that give one slug: the first, in path order, whose file name is the one its
//!   name would be written to (no `title::` elsewhere) wins, else the first in path order; the
//!   others are listed in [`Graph::shadowed`].
//!
//! # Block ids
//!
//! Ids are short decimal numbers (6 digits, longer once the workspace holds over 100,000
//! blocks; blocks minted base32 ids before, and keep them), unique in the workspace, kept in
//! the sidecar and never written into markdown. A block with an `id::` property has that id. When a page's blocks are replaced wholesale (a
//! page update, a reconcile, the read of a file edited outside outl) ids carry over by
//! [`carry_ids`]: by `id::` first, then by an alignment of the two versions that keeps their
//! order and pairs equal or alike texts (see `align`), so that a block edited or moved keeps
//! its id and one deleted is gone.
//!
//! # Writes
//!
//! Every write runs the same protocol, under an in-process mutex and the exclusive lock on
//! `.outl/lock` so that two outl processes serialize:
//!
//! 1. **Catch up**: read the op log from the offset this process last read, and apply the
//!    after-state of every op another process appended (from the log itself, not the files).
//!    If the newest op in the log has not been verified against the disk, settle it (step 6).
//! 2. **Check** each touched page on disk: read and hash it (its content is also the op's
//!    before-state). A file whose hash differs from what outl last wrote was edited outside
//!    outl: the page is frozen and the write refused with `PAGE_MARKDOWN_AHEAD_OF_LOG`. A
//!    vanished file is `PAGE_NOT_FOUND`. (Between writes, [`Workspace::refresh`] compares
//!    size and mtime first and hashes only the files where they moved.)
//! 3. **Build** the new pages (the caller's change), render them, re-parse the rendered
//!    markdown so memory matches the disk exactly, and give every block a workspace-unique id.
//! 4. **Log**: write each page's new markdown and sidecar to temp files in their folders
//!    (hidden, and removed at open if a crash leaves them), append one line with the kind of
//!    op, and for each touched page its slug, file and content hash before and after plus the
//!    full markdown and ids before and after; then fsync the log and the temp files at once.
//!    Staging reads each page file again: one that moved since step 2 refuses the write before
//!    anything is logged. The durable log line is the commit point: from here the op will
//!    reach the pages.
//! 5. **Apply**: rename the temp files over the pages and sidecars (each page's rename guarded
//!    by the bytes staging read, see `disk::Guard`: a file another program saved meanwhile is
//!    kept and its page frozen), unlink deleted pages and the old file of a rename (with their
//!    sidecars), then fsync the folders whose names changed, again at once; memory follows the
//!    op meanwhile. Only then is the write acknowledged.
//! 6. **Settle** (after a crash): for each page of an op, a file that still has its
//!    before-hash (or is missing where the op created it) is rolled forward to the after-state
//!    from the log; a file with its after-hash but a stale sidecar gets its sidecar rewritten;
//!    a file with neither hash was edited outside outl and is left for freeze detection. These
//!    writes go as in steps 4 and 5, the log fsynced with their temp files: the writer that
//!    crashed may have died before its line was durable, and no page may get ahead of the log.
//!
//! Each fsync waits for a commit of the filesystem's journal, milliseconds when other programs
//! write. fsyncs issued together (one thread each) share a commit, so a write waits two rounds
//! whatever the number of its files: the renames must wait for the log line, and the next op's
//! line for the renames (syncing the folders with the next op's files instead would save a
//! round but leave two ops to settle after a power loss).
//!
//! The log is kept in two segments: once `.outl/oplog` passes 64 MiB (or
//! `OUTL_LOG_SEGMENT_BYTES`), the writer renames it to `.outl/oplog.1`, replacing the one
//! before, and starts a new one; seqs go on. Undo reaches back as far as `oplog.1` does. Another
//! process notices the new file, reads the rest of the old one, and goes on; one that slept
//! through two rotations rereads the pages from disk, as at open.
//!
//! Only the newest op can be unsettled: every later writer settles it in step 1 before
//! writing. A crash during step 4 leaves a torn last line, which is cut off at the next lock
//! (that write was never acknowledged). Undo and redo are ops too: undo re-applies an op's
//! before-state after checking that each page still has the op's after-hash (else
//! `CONFLICT`, naming the page and the later op that changed it), redo the reverse. Every op
//! is undoable, reconcile and the creation of a journal day included. Each op records the
//! session that wrote it (an MCP connection, `cli` for `outl call`): a bare undo takes the
//! session's newest op not undone yet, redo its newest undo, and a new write of the session's
//! clears its redos. The histories are rebuilt from the log at open, so a session named again
//! after a restart (`cli`) keeps its own; a new connection starts with none, and names older
//! ops by their seq.
//!
//! # Open
//!
//! Opening a missing folder creates an empty workspace. Opening a file, or a folder that
//! cannot be read or written, fails with `WORKSPACE_UNAVAILABLE`. Under the lock, open
//! removes leftover temp files, cuts a torn log tail, settles the newest op, then reads every
//! page file (on two threads): a file whose hash matches its sidecar gets the sidecar's ids;
//! a file without a sidecar is new (ids derived from its path, position and text, sidecar
//! written); a file whose hash differs from its sidecar was edited outside outl and is frozen,
//! its ids carried over from the sidecar's copy of the markdown. Finally the index (links,
//! backlinks, tags, tasks, properties, block refs, full-text search; see [`Index`]) is built,
//! again on two threads; after that, each write reindexes only the pages it touched, and in a
//! page it edits, only the blocks whose text changed for the search.
//!
//! That full read is needed only once. An open that made one saves the pages and the index to
//! `.outl/cache` (on a thread of its own; dropping the workspace waits for it), and the next
//! open by the same build of outl takes the graph from there, in one read, when the op log
//! still holds every op after the cache's: it drops the pages those ops touched, then looks at
//! every file as a refresh does, so that those pages and whatever else moved since are read
//! from their files (see `cache`). When more than 256 pages, and more than one in 32, were
//! gone or read again that way, it saves a fresh cache.
//!
//! After open, files created, edited or deleted outside outl are noticed by
//! [`Workspace::refresh`] (a stat of every page file), and, for the pages a write touches,
//! before every write. A new file is simply a new page; a deleted file's page disappears (its
//! sidecar is kept, so its ids come back if the file does). Between writes, the look comes by
//! itself every few seconds (every 2, or less often on a workspace so large that looking
//! takes more than a twentieth of that time), in one of two ways:
//!
//! - By default [`Workspace::snapshot`] looks, in whichever read comes due, holding the
//!   workspace lock: right for a short-lived process (the CLI), which never waits long.
//! - A long-running server starts the outside-edit watcher
//!   ([`Workspace::watch_outside_edits`]): a thread of its own looks instead, and reads never
//!   do. Each round, it lists and stats the page files with no lock held and compares their
//!   stamps with those of its last round, which the graph agreed with. Only the files whose
//!   stamp moved since, and those gone, are then checked against the graph as it is by then
//!   (outl's own writes move files too, and the graph has their stamps). Only a difference that
//!   remains (a new, gone or re-stamped file, a change to a file that is not served, a
//!   shadowing page that stopped serving its name) makes it take the workspace lock and
//!   refresh, which looks at everything again, so a change that races the listing costs one
//!   redundant look at most. On an unchanged workspace, reads and writes therefore never
//!   wait for a look at every file, and the graph is not held for a look at every page.
//!
//! A refresh stats the files with no lock on the graph (the workspace lock already keeps
//! writers out): reads and writes wait only while it applies what it found.

mod align;
mod block;
mod cache;
mod carry;
mod catch_up;
mod codec;
mod config;
mod date_format;
mod disk;
mod error;
mod format;
mod from_cache;
mod frozen;
mod graph;
mod ids;
mod index;
mod load;
mod merge;
mod model;
mod names;
mod oplog;
mod outside_edits;
mod packed;
mod postings;
mod sidecar;
mod stamp;
mod terms;
mod tree;
mod write;

#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub use block::{Block, BlockList, count_blocks};
pub use carry::carry_ids;
pub use config::{CONFIG_FILE, ConfigProblem, GraphConfig, Workflow};
pub use date_format::{BadPattern, DateFormat};
pub use error::{Error, ErrorCode, excerpt, quoted, shortened};
pub use frozen::Frozen;
pub use graph::{BlockAt, Graph, Shadowed, Skipped};
pub use ids::{new_session, served_id};
pub use index::{Holder, Index, IndexHit, SearchPage};
pub use model::{Page, PageKind};
pub use names::{NameFormat, slug};
pub use oplog::{Body, ChangeContent, Content, Op, OpKind, PageChange, PageVersion};
pub use outl_format::TaskMarker;
pub use packed::Blocks;
pub use tree::Place;
pub use write::{Adopted, LogPage, ReplayOutcome, misread_text};

use block::user_id;
use ids::IdMinter;
use oplog::OpLog;
#[cfg(test)]
use outside_edits::WatcherCounts;
use outside_edits::{RESCAN_INTERVAL, rescan_interval};

use outl_format::{Properties, Syntax};

/// Where outl keeps its own state inside the workspace.
pub const STATE_DIR: &str = ".outl";
const LOCK_FILE: &str = "lock";

/// Content hash of a page file: the first 16 hex digits of its BLAKE3 hash.
pub fn content_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex()[..16].to_string()
}

/// An open workspace, as one session sees it: the writes made through it are that session's,
/// and its undo and redo act on them alone. `Send + Sync`: share it as `Arc<Workspace>`;
/// [`in_session`](Self::in_session) gives another session's view of the same workspace.
pub struct Workspace {
    state: Arc<WorkspaceState>,
    /// Who writes through this view; `None` for the engine's own callers (tests, benches).
    session: Option<Session>,
}

/// Who made a write: one MCP connection over stdio, one Streamable HTTP session, or the CLI's
/// calls. Logged with each op, so that undo finds a session's own writes after a restart too.
pub type Session = Arc<str>;

impl std::ops::Deref for Workspace {
    type Target = WorkspaceState;

    fn deref(&self) -> &WorkspaceState {
        &self.state
    }
}

/// What every session's view of a workspace shares.
pub struct WorkspaceState {
    root: PathBuf,
    /// `logseq/config.edn` as read at open; the graph holds it too.
    config: Arc<GraphConfig>,
    graph: RwLock<Graph>,
    writer: Mutex<Writer>,
    minter: Mutex<IdMinter>,
    /// Whether the outside-edit watcher runs
    /// ([`watch_outside_edits`](Self::watch_outside_edits)), so that reads do not look.
    watcher_running: AtomicBool,
    /// The thread writing the cache, if one was started.
    saving: Mutex<Option<JoinHandle<()>>>,
    #[cfg(test)]
    watcher_counts: WatcherCounts,
    /// Loads that took the graph from the cache, for tests to tell the two ways apart.
    #[cfg(test)]
    cache_loads: std::sync::atomic::AtomicUsize,
}

impl Drop for WorkspaceState {
    /// Lets a cache being written finish, so that the next open finds it.
    fn drop(&mut self) {
        let saving = self.saving.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(handle) = saving.take() {
            let _ = handle.join();
        }
    }
}

/// What only writers touch, behind the writer mutex.
struct Writer {
    log: OpLog,
    lock: File,
    /// The newest op known to match the disk.
    settled: u64,
    /// When files were last looked at for changes made outside outl, and how long it took.
    last_refresh: Instant,
    rescan_cost: Duration,
}

/// A consistent read view. Hold it only while reading: writes wait for it.
pub struct Snapshot<'a>(RwLockReadGuard<'a, Graph>);

impl std::ops::Deref for Snapshot<'_> {
    type Target = Graph;
    fn deref(&self) -> &Graph {
        &self.0
    }
}

impl Workspace {
    /// Opens the workspace at `root`, creating an empty one (with `pages/` and `journals/`) if
    /// the folder does not exist. See the module docs for what opening does.
    pub fn open(root: &Path) -> Result<Workspace, Error> {
        let (root, lock) = Self::prepare(root)?;
        let state = root.join(STATE_DIR);
        let log = OpLog::open(&state)
            .map_err(|e| unavailable(&root, format!("cannot open the op log: {e}")))?;
        let config = Arc::new(GraphConfig::read(&root));
        let state = WorkspaceState {
            graph: RwLock::new(Graph::with_config(config.clone())),
            config,
            root,
            writer: Mutex::new(Writer {
                log,
                lock,
                settled: 0,
                last_refresh: Instant::now(),
                rescan_cost: Duration::ZERO,
            }),
            minter: Mutex::new(IdMinter::new()),
            watcher_running: AtomicBool::new(false),
            saving: Mutex::new(None),
            #[cfg(test)]
            watcher_counts: WatcherCounts::default(),
            #[cfg(test)]
            cache_loads: std::sync::atomic::AtomicUsize::new(0),
        };
        let workspace = Workspace {
            state: Arc::new(state),
            session: None,
        };
        workspace.with_lock_only(|w| {
            // Under the lock no writer is between creating a temp file and renaming it.
            for dir in [names::PAGES_DIR, names::JOURNALS_DIR, STATE_DIR] {
                disk::remove_stale_temps(&workspace.root.join(dir));
            }
            workspace.load_from_disk(w)
        })?;
        Ok(workspace)
    }

    /// The same workspace as `session` sees it: its writes are logged as that session's.
    pub fn in_session(&self, session: &Session) -> Workspace {
        Workspace {
            state: self.state.clone(),
            session: Some(session.clone()),
        }
    }

    /// The session writing through this view, if any.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The checks `open` makes before it reads anything: the folder is usable (created with
    /// `pages/`, `journals/` and `.outl/` when missing, none of them leading outside it) and its
    /// lock file can be opened. Cheap, so a command can run them before it starts a long open;
    /// gives the canonical root and the lock file.
    pub fn prepare(root: &Path) -> Result<(PathBuf, File), Error> {
        let root = prepare_root(root)?;
        let lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(root.join(STATE_DIR).join(LOCK_FILE))
            .map_err(|e| unavailable(&root, format!("cannot create the lock file: {e}")))?;
        Ok((root, lock))
    }

    /// The workspace folder, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The graph's settings (`logseq/config.edn`), as read at open.
    pub fn config(&self) -> &GraphConfig {
        &self.config
    }

    /// How file names map to page names here.
    pub fn name_format(&self) -> NameFormat {
        self.config.name_format
    }

    /// A consistent view for reading. Picks up the writes of other outl processes first (one
    /// `stat` of the op log when there are none), and, unless the outside-edit watcher does
    /// ([`watch_outside_edits`](Self::watch_outside_edits)), now and then files changed outside
    /// outl (see [`refresh`](Self::refresh)): at most every 2 seconds, and less often on a
    /// workspace so large that looking takes more than a twentieth of that time. Never waits
    /// for a writer: when one holds the workspace, the view is what this process last saw.
    pub fn snapshot(&self) -> Snapshot<'_> {
        if let Ok(mut w) = self.writer.try_lock() {
            if !self.watcher_running.load(Ordering::Acquire)
                && w.last_refresh.elapsed() >= rescan_interval(RESCAN_INTERVAL, w.rescan_cost)
                && fs4::fs_std::FileExt::try_lock_exclusive(&w.lock).unwrap_or(false)
            {
                let result = self
                    .catch_up(&mut w, true)
                    .and_then(|()| self.rescan_timed(&mut w));
                if let Err(e) = fs4::fs_std::FileExt::unlock(&w.lock) {
                    tracing::warn!("cannot release the workspace lock: {e}");
                }
                if let Err(e) = result {
                    tracing::warn!("cannot look for files changed outside outl: {e}");
                }
            } else if w.log.has_news().unwrap_or(false) {
                // Without the lock: a writer may be appending, so only complete ops are read.
                if let Err(e) = self.catch_up(&mut w, false) {
                    tracing::warn!("cannot read the op log: {e}");
                }
            }
        }
        Snapshot(
            self.graph
                .read()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }

    /// Checks a path relative to the workspace (for reading or writing a file a caller
    /// names) and returns it joined to the root; `PATH_OUTSIDE_WORKSPACE` for `..`, absolute
    /// paths, NUL or control characters, or a symlink out of the workspace.
    pub fn resolve_path(&self, relative: &str) -> Result<PathBuf, Error> {
        names::resolve_inside(&self.root, relative)
    }

    /// Blocks parsed from `md` (a markdown outline), each with a fresh id, ready to insert.
    /// `key:: value` lines before the first bullet are page properties and are not returned:
    /// see [`parse_page`](Self::parse_page).
    pub fn parse_blocks(&self, md: &str) -> Vec<Block> {
        self.parse_page(md).1
    }

    /// The page properties and the blocks of `md` (a whole page's markdown), each block with
    /// a fresh id (or its own `id::`), ready to write.
    pub fn parse_page(&self, md: &str) -> (Properties, Vec<Block>) {
        self.parse_page_as(Syntax::Markdown, md)
    }

    /// [`parse_page`](Self::parse_page) of a text in `syntax`.
    pub fn parse_page_as(&self, syntax: Syntax, text: &str) -> (Properties, Vec<Block>) {
        let format::Parsed {
            properties,
            mut blocks,
            ..
        } = format::parse_as(syntax, text);
        let graph = self.graph();
        let mut minter = self
            .minter
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut fresh = HashSet::new();
        let count = graph.block_count();
        give_fresh_ids(&mut blocks, &mut |block| match user_id(block) {
            Some(user) => block.id = user.as_ref().into(),
            None => {
                let id = minter.fresh(count, |id| graph.id_taken(id) || fresh.contains(id));
                block.id = id.as_str().into();
                fresh.insert(id);
            }
        });
        (properties, blocks)
    }

    /// What op `seq` changed: the markdown and block ids of each of its pages before and
    /// after, parallel to [`Op::pages`] (what undo and redo replay). `INVALID_ARGUMENTS` for a
    /// seq that is not in the log.
    pub fn op_body(&self, seq: u64) -> Result<Body, Error> {
        let mut w = self.lock_writer();
        self.catch_up(&mut w, false)?;
        if seq < w.log.first_seq() || seq > w.log.last_seq() {
            return Err(Error::new(
                ErrorCode::InvalidArguments,
                format!(
                    "there is no op {seq} in the log (it holds ops {} to {})",
                    w.log.first_seq(),
                    w.log.last_seq()
                ),
            )
            .with_data(serde_json::json!({ "seq": seq })));
        }
        Ok(w.log.get(seq)?.1)
    }

    /// The markdown outl would write for these blocks (ids are never written).
    pub fn render_blocks(&self, blocks: &[Block]) -> String {
        format::render(None, &Default::default(), blocks, &|_| None)
    }

    /// The markdown outl would write for this page.
    pub fn render_page(&self, page: &Page) -> String {
        format::render(
            page.front_matter.as_deref(),
            &page.properties,
            &page.blocks(),
            &|_| None,
        )
    }

    fn lock_writer(&self) -> MutexGuard<'_, Writer> {
        self.writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn graph_mut(&self) -> RwLockWriteGuard<'_, Graph> {
        self.graph
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn graph(&self) -> RwLockReadGuard<'_, Graph> {
        self.graph
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` holding the writer mutex and the workspace lock, after catching up with the
    /// op log and settling its newest op. `f` must not call back into the write API.
    fn with_lock<R>(&self, f: impl FnOnce(&mut Writer) -> Result<R, Error>) -> Result<R, Error> {
        self.with_lock_only(|w| {
            self.catch_up(w, true)?;
            f(w)
        })
    }

    fn with_lock_only<R>(
        &self,
        f: impl FnOnce(&mut Writer) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let mut w = self.lock_writer();
        fs4::fs_std::FileExt::lock_exclusive(&w.lock).map_err(|e| {
            Error::new(
                ErrorCode::Io,
                format!("cannot take the workspace lock: {e}"),
            )
        })?;
        let result = f(&mut w);
        if let Err(e) = fs4::fs_std::FileExt::unlock(&w.lock) {
            tracing::warn!("cannot release the workspace lock: {e}");
        }
        result
    }
}

fn give_fresh_ids(blocks: &mut [Block], f: &mut dyn FnMut(&mut Block)) {
    for block in blocks {
        f(block);
        give_fresh_ids(&mut block.children, f);
    }
}

fn unavailable(root: &Path, why: String) -> Error {
    Error::new(ErrorCode::WorkspaceUnavailable, why)
        .with_data(serde_json::json!({ "root": root.display().to_string() }))
}

/// Checks the folder, creating it (and `pages/`, `journals/`, `.outl/`) when missing.
fn prepare_root(root: &Path) -> Result<PathBuf, Error> {
    match std::fs::metadata(root) {
        Ok(meta) if !meta.is_dir() => {
            return Err(unavailable(
                root,
                format!("{} is a file, not a folder", root.display()),
            ));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(root)
                .map_err(|e| unavailable(root, format!("cannot create {}: {e}", root.display())))?;
        }
        Err(e) => {
            return Err(unavailable(
                root,
                format!("cannot open {}: {e}", root.display()),
            ));
        }
    }
    let root = root
        .canonicalize()
        .map_err(|e| unavailable(root, format!("cannot open {}: {e}", root.display())))?;
    std::fs::read_dir(&root)
        .map_err(|e| unavailable(&root, format!("cannot read {}: {e}", root.display())))?;
    for dir in [names::PAGES_DIR, names::JOURNALS_DIR, STATE_DIR] {
        let path = root.join(dir);
        std::fs::create_dir_all(&path)
            .map_err(|e| unavailable(&root, format!("cannot create {}: {e}", path.display())))?;
        let real = path
            .canonicalize()
            .map_err(|e| unavailable(&root, format!("cannot open {}: {e}", path.display())))?;
        if !real.starts_with(&root) {
            return Err(Error::new(
                ErrorCode::PathOutsideWorkspace,
                format!(
                    "{dir}/ is a symlink to {} outside the workspace",
                    real.display()
                ),
            )
            .with_data(serde_json::json!({ "path": dir })));
        }
    }
    Ok(root)
}
