//! Files changed outside outl: the refresh that looks at every page file, and the outside-edit
//! watcher, a thread of its own that lists and stats the files without the workspace lock and
//! refreshes only when that finds a difference (see the module docs of [`crate`]).

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

use super::graph::{Graph, Skipped};
use super::load::{self, load_parallel};
use super::stamp::Stamp;
use super::{Workspace, Writer};
use crate::Error;
/// Reads look for files changed outside outl at most this often…
pub(super) const RESCAN_INTERVAL: Duration = Duration::from_secs(2);

/// …and spend at most one part in this many of their time looking.
const RESCAN_COST_SHARE: u32 = 20;

/// How long to wait for the next look for outside edits, at least `at_least`, after one that
/// took `cost`.
pub(super) fn rescan_interval(at_least: Duration, cost: Duration) -> Duration {
    at_least.max(cost * RESCAN_COST_SHARE)
}

/// What the outside-edit watcher has done, for tests to wait on.
#[cfg(test)]
#[derive(Default)]
pub(super) struct WatcherCounts {
    pub(super) rounds: std::sync::atomic::AtomicUsize,
    pub(super) refreshes: std::sync::atomic::AtomicUsize,
}

impl Workspace {
    /// Notices page files created, edited or deleted outside outl since the last look: a
    /// `stat` of every page file, a hash of those whose size or mtime moved. An edited page
    /// is frozen, a new file is a new page, a deleted file's page is gone.
    pub fn refresh(&self) -> Result<(), Error> {
        self.with_lock(|w| self.rescan_timed(w))
    }

    pub(super) fn rescan_timed(&self, w: &mut Writer) -> Result<(), Error> {
        let started = Instant::now();
        let result = self.rescan();
        w.last_refresh = Instant::now();
        w.rescan_cost = started.elapsed();
        result.map(drop)
    }

    /// Starts the outside-edit watcher: a thread of its own looks for files changed outside
    /// outl from now on, instead of [`snapshot`](Self::snapshot), on the same schedule: for a
    /// long-running server, whose reads and writes then never wait for a look at every file.
    /// Each round lists and stats the files with no lock held and refreshes only when that
    /// finds a difference (see the module docs); what goes wrong is logged. The watcher holds
    /// the workspace only during a round, and ends at its first wake after the workspace is
    /// dropped; it never keeps the process alive. Calling this again does nothing.
    pub fn watch_outside_edits(self: &Arc<Self>) {
        self.watch_outside_edits_every(RESCAN_INTERVAL);
    }

    /// [`watch_outside_edits`](Self::watch_outside_edits), a round at most every `at_least`.
    pub(super) fn watch_outside_edits_every(self: &Arc<Self>, at_least: Duration) {
        if self.watcher_running.swap(true, Ordering::AcqRel) {
            return;
        }
        let workspace = Arc::downgrade(self);
        let started = std::thread::Builder::new()
            .name("outl-outside-edit-watcher".to_owned())
            .spawn(move || run_watcher(workspace, at_least));
        if let Err(e) = started {
            tracing::warn!(
                "cannot start the outside-edit watcher, reads look for files changed outside \
                 outl instead: {e}"
            );
            self.watcher_running.store(false, Ordering::Release);
        }
    }

    /// One round of the outside-edit watcher: the files listed and stat'ed with no lock held,
    /// and a refresh if they differ from the graph. `last_seen` holds the stamps the last
    /// round that went through found, when the graph agreed with them; only the files whose
    /// stamp moved since (and those gone since) are checked against the graph.
    fn refresh_if_changed(&self, last_seen: &mut Stamps) {
        let started = Instant::now();
        let listing = Listing::take(&self.root, &self.config.hidden);
        let differs = self.differs_from_disk(&listing, last_seen);
        tracing::debug!(
            elapsed = ?started.elapsed(),
            refresh = differs,
            "the outside-edit watcher listed the files"
        );
        #[cfg(test)]
        self.watcher_counts.rounds.fetch_add(1, Ordering::AcqRel);
        if differs {
            let started = Instant::now();
            if let Err(e) = self.refresh() {
                tracing::warn!("cannot look for files changed outside outl: {e}");
                return;
            }
            tracing::debug!(elapsed = ?started.elapsed(), "the outside-edit watcher refreshed");
            #[cfg(test)]
            self.watcher_counts.refreshes.fetch_add(1, Ordering::AcqRel);
        }
        *last_seen = listing.stamps;
    }

    /// Whether a refresh would change anything, given the files on disk now and the stamps
    /// `last_seen` with which the graph agreed. The files whose stamp moved since are checked
    /// against the graph as it is now, and one that disagrees is stat'ed again: outl's own
    /// writes move files too, and by now the graph may have their stamps.
    pub(super) fn differs_from_disk(&self, listing: &Listing, last_seen: &Stamps) -> bool {
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
            "checked the files that moved since the last round against the graph"
        );
        differs
    }

    /// Notices external creations, edits and deletions (under the lock). The files are listed,
    /// stat'ed and read with no lock on the graph (the workspace lock keeps writers out
    /// already), so reads go on meanwhile and wait only for the apply. Returns how many pages
    /// it found gone or read from their files.
    pub(super) fn rescan(&self) -> Result<usize, Error> {
        self.rescan_listed(Listing::take(&self.root, &self.config.hidden))
    }

    /// [`rescan`](Self::rescan) with the files as `listing` found them.
    pub(super) fn rescan_listed(&self, listing: Listing) -> Result<usize, Error> {
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
}

/// The outside-edit watcher's thread: its rounds over `workspace`, until it is dropped.
fn run_watcher(workspace: Weak<Workspace>, at_least: Duration) {
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

/// Hands the looks for outside edits back to reads if the outside-edit watcher ends while its
/// workspace is still open (only a panic could end it so), rather than leave nobody looking.
struct HandBack(Weak<Workspace>);

impl Drop for HandBack {
    fn drop(&mut self) {
        if let Some(workspace) = self.0.upgrade() {
            workspace.watcher_running.store(false, Ordering::Release);
        }
    }
}

/// Page files, each with its stamp (`None`: no stamp to trust).
pub(super) type Stamps = FxHashMap<String, Option<Stamp>>;

/// The page files on disk, each with its stamp now (`None` when it cannot be read), and the
/// entries passed over; taken with no lock held.
pub(super) struct Listing {
    pub(super) stamps: Stamps,
    skipped: Vec<Skipped>,
}

impl Listing {
    pub(super) fn take(root: &Path, hidden: &[String]) -> Listing {
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
