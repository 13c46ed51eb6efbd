//! Catching up with the op log: the ops other processes appended, applied to this process's
//! graph, and the newest op settled when a crash stopped it half way.

use std::collections::HashSet;

use super::graph::{Graph, Minting};
use super::oplog::{self, Op, ReadEnd};
use super::{Workspace, Writer, carry, load, write};
use crate::Error;
impl Workspace {
    /// Applies ops other processes appended. With `locked`, also cuts a torn tail and settles
    /// the newest op.
    pub(super) fn catch_up(&self, w: &mut Writer, locked: bool) -> Result<(), Error> {
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

    /// Puts an op's after-state into the graph (its files are trusted once hashed).
    fn apply_logged(&self, graph: &mut Graph, op: &Op, body: &oplog::Body) {
        for (change, content) in op.pages.iter().zip(&body.pages) {
            for version in [&change.before, &change.after].into_iter().flatten() {
                graph.remove(&version.slug);
                graph.remove_file(&version.file);
            }
            if let (Some(after), Some(content)) = (&change.after, &content.after) {
                let mut page = load::page_of(&after.file, &content.md, &self.config, op.ts);
                carry::assign_preorder(page.blocks_mut(), &content.ids);
                let replaced = HashSet::from([page.slug.clone()]);
                graph.fill_ids(&mut page, &replaced, &mut HashSet::new(), Minting::Derived);
                graph.insert(page, None, None);
            }
        }
    }

    /// Makes the disk match the newest op if a crash stopped it half way (step 6).
    pub(super) fn settle_newest(&self, w: &mut Writer) -> Result<(), Error> {
        let newest = w.log.last_seq();
        if newest <= w.settled {
            return Ok(());
        }
        let (op, body) = w.log.get(newest)?;
        write::settle(&self.root, &w.log, &op, &body)?;
        w.settled = newest;
        Ok(())
    }
}
