//! A workspace folder on disk: pages and journals, sidecar ids, the op log, the lock and the
//! index.
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
//! blocks; blocks minted base32 ids before, and keep them), unique in the workspace, kept in the sidecar and never written into markdown. A
//! block with an `id::` property has that id. When a page's blocks are replaced wholesale (a
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
//!    by the bytes staging read, see [`disk::Guard`]: a file another program saved meanwhile is
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
//! - A long-running server calls [`Workspace::watch_outside_edits`]: a thread of its own looks
//!   instead, and reads never do. It first *probes*: it lists and stats the page files with no
//!   lock held and compares their stamps with those of its last look, which the graph agreed
//!   with. Only the files whose stamp moved since, and those gone, are then checked against the
//!   graph as it is by then (outl's own writes move files too, and the graph has their stamps).
//!   Only a difference that remains (a new, gone or re-stamped file, a change to a file that is
//!   not served, a shadowing page that stopped serving its name) makes it take the workspace
//!   lock and refresh, which looks at everything again, so a change that races the probe costs
//!   one redundant look at most. On an unchanged workspace, reads and writes therefore never
//!   wait for a look at every file, and the graph is not held for a look at every page.
//!
//! A refresh stats the files with no lock on the graph (the workspace lock already keeps
//! writers out): reads and writes wait only while it applies what it found.

mod align;
mod cache;
mod config;
mod date_format;
mod disk;
mod format;
mod frozen;
mod graph;
mod ids;
mod index;
mod load;
mod merge;
mod model;
mod names;
mod oplog;
mod packed;
mod postings;
mod sidecar;
mod terms;
mod tree;
mod write;

#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

pub use crate::outline::TaskMarker;
pub use config::{CONFIG_FILE, ConfigProblem, GraphConfig, Workflow};
pub use date_format::{BadPattern, DateFormat};
pub use frozen::Frozen;
use graph::Minting;
pub use graph::{BlockAt, Graph, Shadowed};
pub use ids::served_id;
pub use ids::{carry_ids, new_session};
pub use index::{Holder, Index, SearchHit, SearchPage};
pub use load::Skipped;
pub use model::{Block, BlockList, Blocks, Page, PageKind, count_blocks};
pub use names::{NameFormat, slug};
pub use oplog::{Body, ChangeContent, Content, Op, PageChange, PageVersion};
pub use tree::Place;
pub(crate) use write::misread_text;
pub use write::{Adopted, LogPage, ReplayOutcome};

use disk::Durability;
use ids::IdMinter;
use load::{Loaded, Origin, Stamp};
use oplog::{OpLog, ReadEnd};
use sidecar::Sidecar;

use crate::outline::{Properties, Syntax};
use crate::{Error, ErrorCode};

/// Where outl keeps its own state inside the workspace.
pub const STATE_DIR: &str = ".outl";
const LOCK_FILE: &str = "lock";
/// Reads look for files changed outside outl at most this often…
const RESCAN_INTERVAL: Duration = Duration::from_secs(2);
/// …and spend at most one part in this many of their time looking.
const RESCAN_COST_SHARE: u32 = 20;
/// The cache is saved again at open when more than one page in this many was gone or had to be
/// read from its file…
const CACHE_STALE_SHARE: usize = 32;
/// …and more than this many: fewer are read again in a few milliseconds.
const CACHE_STALE_PAGES: usize = 256;

/// How long to wait for the next look for outside edits, at least `at_least`, after one that
/// took `cost`.
fn rescan_interval(at_least: Duration, cost: Duration) -> Duration {
    at_least.max(cost * RESCAN_COST_SHARE)
}

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
    /// Whether a thread of its own looks for files changed outside outl
    /// ([`watch_outside_edits`](Self::watch_outside_edits)), so that reads do not.
    watched: AtomicBool,
    /// The thread writing the cache, if one was started.
    saving: Mutex<Option<JoinHandle<()>>>,
    #[cfg(test)]
    background_looks: BackgroundLooks,
    /// Loads that took the graph from the cache, for tests to tell the two ways apart.
    #[cfg(test)]
    cache_loads: AtomicUsize,
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

/// What the background looks have done, for tests to wait on.
#[cfg(test)]
#[derive(Default)]
struct BackgroundLooks {
    probes: AtomicUsize,
    refreshes: AtomicUsize,
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
            watched: AtomicBool::new(false),
            saving: Mutex::new(None),
            #[cfg(test)]
            background_looks: BackgroundLooks::default(),
            #[cfg(test)]
            cache_loads: AtomicUsize::new(0),
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
    /// `stat` of the op log when there are none), and, unless a thread of its own does
    /// ([`watch_outside_edits`](Self::watch_outside_edits)), now and then files changed outside
    /// outl (see [`refresh`](Self::refresh)): at most every 2 seconds, and less often on a
    /// workspace so large that looking takes more than a twentieth of that time. Never waits
    /// for a writer: when one holds the workspace, the view is what this process last saw.
    pub fn snapshot(&self) -> Snapshot<'_> {
        if let Ok(mut w) = self.writer.try_lock() {
            if !self.watched.load(Ordering::Acquire)
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

    /// Notices page files created, edited or deleted outside outl since the last look: a
    /// `stat` of every page file, a hash of those whose size or mtime moved. An edited page
    /// is frozen, a new file is a new page, a deleted file's page is gone.
    pub fn refresh(&self) -> Result<(), Error> {
        self.with_lock(|w| self.rescan_timed(w))
    }

    fn rescan_timed(&self, w: &mut Writer) -> Result<(), Error> {
        let started = Instant::now();
        let result = self.rescan();
        w.last_refresh = Instant::now();
        w.rescan_cost = started.elapsed();
        result.map(drop)
    }

    /// Looks for files changed outside outl on a thread of its own from now on, instead of in
    /// [`snapshot`](Self::snapshot), on the same schedule: for a long-running server, whose
    /// reads and writes then never wait for a look at every file. The thread probes with no
    /// lock held and refreshes only when the probe finds a difference (see the module docs);
    /// what goes wrong is logged. It holds the workspace only while it looks, and ends at its
    /// first wake after the workspace is dropped; it never keeps the process alive. Calling
    /// this again does nothing.
    pub fn watch_outside_edits(self: &Arc<Self>) {
        self.watch_every(RESCAN_INTERVAL);
    }

    /// [`watch_outside_edits`](Self::watch_outside_edits), looking at most every `at_least`.
    fn watch_every(self: &Arc<Self>, at_least: Duration) {
        if self.watched.swap(true, Ordering::AcqRel) {
            return;
        }
        let workspace = Arc::downgrade(self);
        let started = std::thread::Builder::new()
            .name("outl-outside-edits".to_owned())
            .spawn(move || look_in_background(workspace, at_least));
        if let Err(e) = started {
            tracing::warn!(
                "cannot start looking for files changed outside outl in the background, reads \
                 look instead: {e}"
            );
            self.watched.store(false, Ordering::Release);
        }
    }

    /// One background look: the probe, which lists and stats the files with no lock held, and
    /// a refresh if it found a difference. `last_seen` holds the stamps the last look that went
    /// through found, when the graph agreed with them; only the files whose stamp moved since
    /// (and those gone since) are checked against the graph.
    fn refresh_if_changed(&self, last_seen: &mut Stamps) {
        let started = Instant::now();
        let listing = Listing::take(&self.root, &self.config.hidden);
        let differs = self.differs_from_disk(&listing, last_seen);
        tracing::debug!(
            elapsed = ?started.elapsed(),
            refresh = differs,
            "probed for files changed outside outl"
        );
        #[cfg(test)]
        self.background_looks.probes.fetch_add(1, Ordering::AcqRel);
        if differs {
            let started = Instant::now();
            if let Err(e) = self.refresh() {
                tracing::warn!("cannot look for files changed outside outl: {e}");
                return;
            }
            tracing::debug!(elapsed = ?started.elapsed(), "refreshed after the probe");
            #[cfg(test)]
            self.background_looks
                .refreshes
                .fetch_add(1, Ordering::AcqRel);
        }
        *last_seen = listing.stamps;
    }

    /// Whether a refresh would change anything, given the files on disk now and the stamps
    /// `last_seen` with which the graph agreed. The files whose stamp moved since are checked
    /// against the graph as it is now, and one that disagrees is stat'ed again: outl's own
    /// writes move files too, and by now the graph may have their stamps.
    fn differs_from_disk(&self, listing: &Listing, last_seen: &Stamps) -> bool {
        let moved: Vec<(&String, &Option<Stamp>)> = listing
            .stamps
            .iter()
            .filter(|&(file, stamp)| last_seen.get(file) != Some(stamp))
            .collect();
        let vanished: Vec<&String> = last_seen
            .keys()
            .filter(|file| !listing.stamps.contains_key(*file))
            .collect();
        let held = Instant::now();
        let graph = self.graph();
        let stale = |file: &str, listed: Option<&Stamp>| {
            to_read_again(&graph, file, listed)
                && to_read_again(&graph, file, stamp_of(&self.root, file).as_ref())
        };
        let differs = vanished.iter().any(|file| {
            graph.slug_of_file(file).is_some()
                && stamp_of(&self.root, file)
                    .is_none_or(|now| to_read_again(&graph, file, Some(&now)))
        }) || moved
            .iter()
            .any(|(file, stamp)| stale(file, stamp.as_ref()))
            || shadowing_moved(&graph)
            || listing.skipped_moved(&graph);
        drop(graph);
        tracing::debug!(
            moved = moved.len(),
            vanished = vanished.len(),
            graph_held = ?held.elapsed(),
            "checked the files that moved since the last look against the graph"
        );
        differs
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
        give_fresh_ids(&mut blocks, &mut |block| match ids::user_id(block) {
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

    /// Applies ops other processes appended. With `locked`, also cuts a torn tail and settles
    /// the newest op.
    fn catch_up(&self, w: &mut Writer, locked: bool) -> Result<(), Error> {
        let new = w.log.read_new(true, locked)?;
        if !new.ops.is_empty() {
            let mut graph = self.graph_mut();
            for (op, body) in &new.ops {
                if let Some(body) = body {
                    self.apply_logged(&mut graph, op, body);
                }
            }
        }
        if new.end == ReadEnd::Lost {
            // Ops this process never saw were rotated out of the log: the pages on disk are
            // the only record left. Without the lock a writer may be half way; wait for it.
            return if locked {
                self.load_from_disk(w)
            } else {
                Ok(())
            };
        }
        if locked {
            self.settle_newest(w)?;
        }
        Ok(())
    }

    /// Reads the log (headers only) and every page file afresh, settling the newest op
    /// first: what open does, and what a process that lost track of the log does again.
    /// Under the lock.
    fn load_from_disk(&self, w: &mut Writer) -> Result<(), Error> {
        w.log = OpLog::open(&self.root.join(STATE_DIR))?;
        w.settled = 0;
        w.log.read_new(false, true)?;
        self.settle_newest(w)?;
        let cache_is_stale = match self.restore_cached(&w.log) {
            Some((graph, listing)) => {
                #[cfg(test)]
                self.cache_loads.fetch_add(1, Ordering::AcqRel);
                *self.graph_mut() = graph;
                let moved = self.rescan_listed(listing)?;
                moved > (self.graph().page_count() / CACHE_STALE_SHARE).max(CACHE_STALE_PAGES)
            }
            None => {
                let graph = self.load_all()?;
                !self.adopt_from_cache(&w.log, graph)?
            }
        };
        if cache_is_stale {
            self.save_cache(w.log.last_seq());
        }
        release_freed_memory();
        // Every file was just read: the next look for outside edits is due from now, not
        // from before a long load.
        w.last_refresh = Instant::now();
        Ok(())
    }

    /// Serves `graph`, which a full read made, as the cache it saves now gives it back: a
    /// full read leaves the block trees it parsed, then packed, freed among what it keeps,
    /// memory the system cannot take back; decoded from the cache, the same graph sits in
    /// memory of its own (at 100,000 pages, 2.4x the markdown instead of 4x; see
    /// docs/performance.md). Returns whether the cache was saved; when it cannot be, `graph`
    /// is served as it is.
    fn adopt_from_cache(&self, log: &OpLog, graph: Graph) -> Result<bool, Error> {
        let Some(draft) = graph.draft(log.last_seq(), &self.config.digest()) else {
            *self.graph_mut() = graph;
            return Ok(false);
        };
        if let Some(previous) = self.saving.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = previous.join();
        }
        if let Err(e) = draft.write(&self.root) {
            tracing::warn!("cannot save the cache: {e}");
            *self.graph_mut() = graph;
            return Ok(false);
        }
        drop(graph);
        release_freed_memory();
        match self.restore_cached(log) {
            Some((graph, listing)) => {
                *self.graph_mut() = graph;
                self.rescan_listed(listing)?;
            }
            // Only a cache changed on disk since this very write gets here.
            None => *self.graph_mut() = self.load_all()?,
        }
        Ok(true)
    }

    /// The graph the cache holds, brought up to the op log: the pages the ops after its seq
    /// touched are left out, for the refresh that follows to read again with whatever else
    /// moved. `None` when there is no cache this build wrote, or the log no longer holds every
    /// op after it. The files are listed and stat'ed for that refresh while the cache decodes,
    /// so that it sees them as they were then; the next look sees what moved since.
    fn restore_cached(&self, log: &OpLog) -> Option<(Graph, Listing)> {
        let started = Instant::now();
        let saved = cache::Saved::read(&self.root, &self.config.digest())?;
        let newest = log.last_seq();
        if saved.seq > newest || (saved.seq < newest && saved.seq + 1 < log.first_seq()) {
            return None;
        }
        let since = log.list((newest - saved.seq) as usize, None).ok()?;
        let (restored, listing) = std::thread::scope(|scope| {
            let listing = scope.spawn(|| Listing::take(&self.root, &self.config.hidden));
            let restored = Graph::restore(&saved, self.config.clone());
            (restored, listing.join())
        });
        let mut graph = match restored {
            Ok(graph) => graph,
            Err(cache::Corrupt) => {
                tracing::warn!("the cache does not decode: every page is read instead");
                return None;
            }
        };
        let seq = saved.seq;
        drop(saved);
        for op in since.iter().filter(|op| op.seq > seq) {
            for version in op
                .pages
                .iter()
                .flat_map(|c| [&c.before, &c.after])
                .flatten()
            {
                graph.remove(&version.slug);
                graph.remove_file(&version.file);
            }
        }
        tracing::debug!(elapsed = ?started.elapsed(), seq, "read the cache");
        let listing = listing.unwrap_or_else(|_| Listing::take(&self.root, &self.config.hidden));
        Some((graph, listing))
    }

    /// Saves the graph as the cache, at op-log seq `seq`: encoded here (the caller holds the
    /// writer, so the graph is at `seq`), written on a thread of its own. A save still under
    /// way is waited for first.
    fn save_cache(&self, seq: u64) {
        let started = Instant::now();
        let Some(draft) = self.graph().draft(seq, &self.config.digest()) else {
            return;
        };
        tracing::debug!(elapsed = ?started.elapsed(), "encoded the cache");
        let root = self.root.clone();
        let mut saving = self.saving.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(previous) = saving.take() {
            let _ = previous.join();
        }
        let started = std::thread::Builder::new()
            .name("outl-cache".to_owned())
            .spawn(move || match draft.write(&root) {
                Ok(()) => tracing::debug!(elapsed = ?started.elapsed(), "saved the cache"),
                Err(e) => tracing::warn!("cannot save the cache: {e}"),
            });
        match started {
            Ok(handle) => *saving = Some(handle),
            Err(e) => tracing::warn!("cannot save the cache: {e}"),
        }
    }

    /// Puts an op's after-state into the graph (its files are trusted once hashed).
    fn apply_logged(&self, graph: &mut Graph, op: &Op, body: &oplog::Body) {
        for (change, content) in op.pages.iter().zip(&body.pages) {
            for version in [&change.before, &change.after].into_iter().flatten() {
                graph.remove(&version.slug);
                graph.remove_file(&version.file);
            }
            if let (Some(after), Some(content)) = (&change.after, &content.after) {
                let mut page = load::page_of(&after.file, &content.md, &self.config, op.ts);
                ids::assign_preorder(page.blocks_mut(), &content.ids);
                let replaced = HashSet::from([page.slug.clone()]);
                graph.fill_ids(&mut page, &replaced, &mut HashSet::new(), Minting::Derived);
                graph.insert(page, None, None);
            }
        }
    }

    /// Makes the disk match the newest op if a crash stopped it half way (step 6).
    fn settle_newest(&self, w: &mut Writer) -> Result<(), Error> {
        let newest = w.log.last_seq();
        if newest <= w.settled {
            return Ok(());
        }
        let (op, body) = w.log.get(newest)?;
        write::settle(&self.root, &w.log, &op, &body)?;
        w.settled = newest;
        Ok(())
    }

    /// Reads every page file into a fresh graph (at open).
    fn load_all(&self) -> Result<Graph, Error> {
        let (files, skipped) = load::page_files(&self.root, &self.config.hidden);
        let (loaded, blocks) = load_parallel(&self.root, &files, &self.config);
        let mut graph = Graph::with_config(self.config.clone());
        graph.skipped = skipped;
        graph.reserve(loaded.len(), blocks);
        self.adopt(&mut graph, loaded, true)?;
        graph.build_index();
        Ok(graph)
    }

    /// Notices external creations, edits and deletions (under the lock). The files are listed,
    /// stat'ed and read with no lock on the graph (the workspace lock keeps writers out
    /// already), so reads go on meanwhile and wait only for the apply. Returns how many pages
    /// it found gone or read from their files.
    fn rescan(&self) -> Result<usize, Error> {
        self.rescan_listed(Listing::take(&self.root, &self.config.hidden))
    }

    /// [`rescan`](Self::rescan) with the files as `listing` found them.
    fn rescan_listed(&self, listing: Listing) -> Result<usize, Error> {
        let (gone, changed) = {
            let graph = self.graph();
            let gone: Vec<String> = graph
                .pages()
                .filter(|page| !listing.stamps.contains_key(&page.file))
                .map(|page| page.file.clone())
                .collect();
            let mut changed: Vec<String> = listing
                .stamps
                .iter()
                .filter(|(file, stamp)| to_read_again(&graph, file, stamp.as_ref()))
                .map(|(file, _)| file.clone())
                .collect();
            // Duplicate slugs are resolved in path order.
            changed.sort();
            (gone, changed)
        };
        let (loaded, _) = load_parallel(&self.root, &changed, &self.config);
        let mut graph = self.graph_mut();
        for file in &gone {
            graph.remove_file(file);
        }
        graph.skipped = listing.skipped;
        // Every file no page was served from is read again, shadowed ones too (the page that
        // shadowed them may be gone): each is adopted or shadowed anew.
        graph.shadowed.clear();
        let mut fresh = Vec::new();
        for (file, result) in loaded {
            match result {
                Ok(l)
                    if graph
                        .slug_of_file(&file)
                        .and_then(|s| graph.page(s))
                        .is_some_and(|p| p.hash == l.page.hash) =>
                {
                    // Touched but not changed: trust it again without hashing next time.
                    let slug = l.page.slug.clone();
                    graph.stamps.insert(slug, l.stamp);
                }
                other => fresh.push((file, other)),
            }
        }
        for (file, _) in &fresh {
            graph.remove_file(file);
        }
        self.adopt(&mut graph, fresh, false)?;
        // A file read only to be shadowed again is read at every look, whatever came before.
        let served = changed
            .iter()
            .filter(|file| graph.slug_of_file(file).is_some())
            .count();
        Ok(gone.len() + served)
    }

    /// Adds loaded page files to `graph`: resolves duplicate slugs, fills ids, and writes the
    /// sidecars of pages seen for the first time. With `index_later`, the pages are left out
    /// of the index, for one [`Graph::build_index`] over all of them.
    fn adopt(
        &self,
        graph: &mut Graph,
        loaded: Vec<FileRead>,
        index_later: bool,
    ) -> Result<(), Error> {
        let mut pages: Vec<Option<Loaded>> = Vec::with_capacity(loaded.len());
        // Each page's slug, taken out of the page to be sorted, and where the page is.
        let mut slugs: Vec<(String, usize)> = Vec::with_capacity(loaded.len());
        for (file, result) in loaded {
            match result {
                Ok(mut l) => {
                    slugs.push((std::mem::take(&mut l.page.slug), pages.len()));
                    pages.push(Some(l));
                }
                Err(reason) => graph.skipped.push(Skipped { file, reason }),
            }
        }
        // By slug, and the files of one slug in the order they came: path order.
        slugs.sort_unstable();
        for group in slugs.chunk_by_mut(|a, b| a.0 == b.0) {
            let slug = std::mem::take(&mut group[0].0);
            let files = group.iter().map(|&(_, i)| i);
            if let Some(existing) = graph.page(&slug) {
                let served_by = existing.file.clone();
                for l in files.filter_map(|i| pages[i].take()) {
                    graph.shadowed.push(Shadowed {
                        file: l.page.file,
                        slug: slug.clone(),
                        served_by: served_by.clone(),
                    });
                }
                continue;
            }
            let winner = match &*group {
                [(_, only)] => *only,
                _ => files
                    .clone()
                    .find(|&i| {
                        pages[i].as_ref().is_some_and(|l| {
                            own_file_of(&l.page, &self.config).as_ref() == Some(&l.page.file)
                        })
                    })
                    .unwrap_or(group[0].1),
            };
            let Some(mut loaded) = pages[winner].take() else {
                continue;
            };
            for other in files.filter_map(|i| pages[i].take()) {
                graph.shadowed.push(Shadowed {
                    file: other.page.file,
                    slug: slug.clone(),
                    served_by: loaded.page.file.clone(),
                });
            }
            loaded.page.slug = slug;
            let reminted = if index_later {
                graph.fill_ids_and_number(&mut loaded.page)
            } else {
                graph.fill_ids(
                    &mut loaded.page,
                    &HashSet::new(),
                    &mut HashSet::new(),
                    Minting::Derived,
                )
            };
            let frozen = match loaded.origin {
                Origin::Ahead(frozen) => Some(frozen),
                Origin::New => {
                    self.write_sidecar(&loaded)?;
                    None
                }
                Origin::Known => {
                    if reminted {
                        self.write_sidecar(&loaded)?;
                    }
                    None
                }
            };
            if index_later {
                graph.insert_numbered(loaded.page, Some(loaded.stamp), frozen);
            } else {
                graph.insert(loaded.page, Some(loaded.stamp), frozen);
            }
        }
        graph.shadowed.sort_by(|a, b| a.file.cmp(&b.file));
        graph.shadowed.dedup();
        Ok(())
    }

    /// Sidecar of a page outl has just read for the first time. Its ids derive from the page,
    /// so losing this write to a crash loses nothing: no fsync.
    fn write_sidecar(&self, loaded: &Loaded) -> Result<(), Error> {
        let sidecar = Sidecar {
            hash: loaded.page.hash.clone(),
            ids: loaded
                .page
                .blocks()
                .preorder()
                .iter()
                .map(|b| b.id.to_string())
                .collect(),
            base: loaded.md.clone(),
        };
        sidecar.write(&self.root, &loaded.page.file, Durability::Atomic)?;
        Ok(())
    }
}

/// The background looks for outside edits of `workspace`, until it is dropped.
fn look_in_background(workspace: Weak<Workspace>, at_least: Duration) {
    let _hand_back = HandBack(workspace.clone());
    let mut last_seen = Stamps::default();
    let mut cost = Duration::ZERO;
    loop {
        std::thread::sleep(rescan_interval(at_least, cost));
        let Some(workspace) = workspace.upgrade() else {
            return;
        };
        let started = Instant::now();
        workspace.refresh_if_changed(&mut last_seen);
        cost = started.elapsed();
    }
}

/// Hands the looks for outside edits back to reads if the background thread ends while its
/// workspace is still open (only a panic could end it so), rather than leave nobody looking.
struct HandBack(Weak<Workspace>);

impl Drop for HandBack {
    fn drop(&mut self) {
        if let Some(workspace) = self.0.upgrade() {
            workspace.watched.store(false, Ordering::Release);
        }
    }
}

/// Page files, each with its stamp (`None`: no stamp to trust).
type Stamps = FxHashMap<String, Option<Stamp>>;

/// The page files on disk, each with its stamp now (`None` when it cannot be read), and the
/// entries passed over; taken with no lock held.
struct Listing {
    stamps: Stamps,
    skipped: Vec<Skipped>,
}

impl Listing {
    fn take(root: &Path, hidden: &[String]) -> Listing {
        let (files, skipped) = load::page_files(root, hidden);
        let stamps = files
            .into_iter()
            .map(|file| {
                let stamp = stamp_of(root, &file);
                (file, stamp)
            })
            .collect();
        Listing { stamps, skipped }
    }

    /// Whether the entries passed over differ from those the graph lists, apart from the files
    /// on disk it could not read (a refresh reads those again when their stamp moves).
    fn skipped_moved(&self, graph: &Graph) -> bool {
        let by_file = |a: &&Skipped, b: &&Skipped| (&a.file, &a.reason).cmp(&(&b.file, &b.reason));
        let mut listed: Vec<&Skipped> = graph
            .skipped()
            .iter()
            .filter(|s| !self.stamps.contains_key(&s.file))
            .collect();
        listed.sort_by(by_file);
        let mut now: Vec<&Skipped> = self.skipped.iter().collect();
        now.sort_by(by_file);
        listed != now
    }
}

/// The stamp of a page file now, `None` when it cannot be read.
fn stamp_of(root: &Path, file: &str) -> Option<Stamp> {
    std::fs::metadata(root.join(file))
        .ok()
        .map(|m| Stamp::of(&m))
}

/// Whether a refresh reads `file`, found on disk with `stamp`, again: no page is served from it
/// (new, shadowed or unreadable), or its page was last verified with another stamp or none.
fn to_read_again(graph: &Graph, file: &str, stamp: Option<&Stamp>) -> bool {
    match graph.slug_of_file(file) {
        Some(slug) => stamp.is_none() || graph.stamps.get(slug) != stamp,
        None => true,
    }
}

/// Whether a shadowed file's slug is no longer served by the file that shadowed it, so that
/// the shadowed file may be served now.
fn shadowing_moved(graph: &Graph) -> bool {
    graph
        .shadowed
        .iter()
        .any(|s| graph.slug_of_file(&s.served_by) != Some(s.slug.as_str()))
}

fn give_fresh_ids(blocks: &mut [Block], f: &mut dyn FnMut(&mut Block)) {
    for block in blocks {
        f(block);
        give_fresh_ids(&mut block.children, f);
    }
}

/// The file a page's name would be written to, to prefer it among duplicates.
fn own_file_of(page: &Page, config: &GraphConfig) -> Option<String> {
    match page.kind {
        PageKind::Journal { date } => Some(config.journal_file_of(date)),
        PageKind::Page => names::page_file(&page.name, config.name_format).ok(),
    }
}

/// Returns to the system the memory a load of every page freed (file contents, sidecars, parser
/// scratch). glibc keeps freed memory for reuse, and after a load that is a tenth of what the
/// process holds; reads and small writes never need it back.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases pages the allocator holds and no allocation uses.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A page file and what reading it gave: the page, or why it cannot be served.
type FileRead = (String, Result<Loaded, String>);

/// Files a loading thread takes at a time: few enough that both threads finish together
/// whatever the sizes of the files, enough that taking them costs nothing.
const LOAD_CHUNK: usize = 256;

/// Loads files, in the order given, on two threads (the machine outl targets has two cores;
/// more would only contend for the disk); also the number of blocks they hold.
fn load_parallel(root: &Path, files: &[String], config: &GraphConfig) -> (Vec<FileRead>, usize) {
    let load_chunk = |chunk: &[String]| {
        let mut blocks = 0;
        let loaded: Vec<_> = chunk
            .iter()
            .map(|file| {
                let result = load::load(root, file, config);
                if let Ok(l) = &result {
                    blocks += l.page.body.count();
                }
                (file.clone(), result)
            })
            .collect();
        (loaded, blocks)
    };
    if files.len() < 64 {
        return load_chunk(files);
    }
    // Each thread takes the next chunk until none is left, so that neither waits for the other
    // at the end.
    let next = AtomicUsize::new(0);
    let take_chunks = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(chunk) = files.chunks(LOAD_CHUNK).nth(i) else {
                return done;
            };
            done.push((i, load_chunk(chunk)));
        }
    };
    let mut done = std::thread::scope(|scope| {
        let other = scope.spawn(take_chunks);
        let mut done = take_chunks();
        // Chunks a failed thread took are loaded again below.
        done.extend(other.join().unwrap_or_default());
        done
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    let mut done = done.into_iter().peekable();
    let mut out = Vec::with_capacity(files.len());
    let mut blocks = 0;
    for (i, chunk) in files.chunks(LOAD_CHUNK).enumerate() {
        let (loaded, count) = match done.next_if(|&(j, _)| j == i) {
            Some((_, chunk_loaded)) => chunk_loaded,
            None => load_chunk(chunk),
        };
        out.extend(loaded);
        blocks += count;
    }
    (out, blocks)
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
