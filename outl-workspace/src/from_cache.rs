//! The graph at open: taken from the cache when the op log still holds every op after it, else
//! read from every page file and served as the cache it saves then gives it back.

use std::time::Instant;

use super::codec::Corrupt;
use super::graph::Graph;
use super::oplog::OpLog;
use super::outside_edits::Listing;
use super::{STATE_DIR, Workspace, Writer, cache};
use crate::Error;
/// The cache is saved again at open when more than one page in this many was gone or had to be
/// read from its file…
const CACHE_STALE_SHARE: usize = 32;

/// …and more than this many: fewer are read again in a few milliseconds.
const CACHE_STALE_PAGES: usize = 256;

impl Workspace {
    /// Reads the log (headers only) and every page file afresh, settling the newest op
    /// first: what open does, and what a process that lost track of the log does again.
    /// Under the lock.
    pub(super) fn load_from_disk(&self, w: &mut Writer) -> Result<(), Error> {
        w.log = OpLog::open(&self.root.join(STATE_DIR))?;
        w.settled = 0;
        w.log.read_new(false, true)?;
        self.settle_newest(w)?;
        let cache_is_stale = match self.restore_cached(&w.log) {
            Some((graph, listing)) => {
                #[cfg(test)]
                self.cache_loads
                    .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
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
        let Some(encoded) = graph.encode_cache(log.last_seq(), &self.config.digest()) else {
            *self.graph_mut() = graph;
            return Ok(false);
        };
        if let Some(previous) = self.saving.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = previous.join();
        }
        if let Err(e) = encoded.write(&self.root) {
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
            Err(Corrupt) => {
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
        let Some(encoded) = self.graph().encode_cache(seq, &self.config.digest()) else {
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
            .spawn(move || match encoded.write(&root) {
                Ok(()) => tracing::debug!(elapsed = ?started.elapsed(), "saved the cache"),
                Err(e) => tracing::warn!("cannot save the cache: {e}"),
            });
        match started {
            Ok(handle) => *saving = Some(handle),
            Err(e) => tracing::warn!("cannot save the cache: {e}"),
        }
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
