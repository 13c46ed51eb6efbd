//! Reconcile: a page file edited outside outl adopted as the page, its ids carried over, and
//! a stale copy of outl's own page merged with what outl wrote since.

use std::collections::{HashMap, HashSet};

use serde_json::json;

use super::{Change, Current, Draft, History, not_found, walk};
use crate::block::Block;
use crate::carry::carry_ids;
use crate::load::{self};
use crate::merge;
use crate::oplog::{Op, OpKind, PageVersion};
use crate::sidecar::Sidecar;
use crate::{Error, ErrorCode};
use crate::{Workspace, Writer};

/// How many of the newest ops reconcile searches for the version a stale edit started from.
const MERGE_HISTORY_OPS: usize = 1000;

/// What a reconcile adopted, against the page as outl last wrote or read it: the op, and its
/// blocks kept as they were, changed (same id, other text or properties), added and removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adopted {
    pub op: Op,
    pub kept: usize,
    pub changed: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

impl Adopted {
    fn between(op: Op, known: &[Block], now: &[Block]) -> Adopted {
        let mut before: HashMap<&str, &Block> = HashMap::new();
        walk(known, &mut |block| {
            before.insert(block.id.as_str(), block);
        });
        let mut adopted = Adopted {
            op,
            kept: 0,
            changed: Vec::new(),
            added: Vec::new(),
            removed: Vec::new(),
        };
        let mut seen = HashSet::new();
        walk(now, &mut |block| {
            seen.insert(block.id.to_string());
            match before.get(block.id.as_str()) {
                Some(old) if old.text == block.text && old.properties == block.properties => {
                    adopted.kept += 1;
                }
                Some(_) => adopted.changed.push(block.id.to_string()),
                None => adopted.added.push(block.id.to_string()),
            }
        });
        walk(known, &mut |block| {
            if !seen.contains(block.id.as_str()) {
                adopted.removed.push(block.id.to_string());
            }
        });
        adopted
    }
}

impl Workspace {
    /// Adopts a page's file as edited outside outl, as the person left it: a block they
    /// deleted stays deleted, one they edited or moved keeps its id (see [`carry_ids`]), one
    /// they added gets a new id; writes are accepted again. A file saved from a copy older than
    /// outl's newest version gets outl's later writes merged back (see `merge.rs`). `None` when
    /// the page was not ahead of the log.
    pub fn reconcile(&self, slug: &str) -> Result<Option<Adopted>, Error> {
        self.with_lock(|w| {
            let slug = self
                .graph()
                .resolve(slug)
                .map(|p| p.slug.clone())
                .ok_or_else(|| not_found(slug))?;
            match self.current(&slug) {
                Ok(_) => return Ok(None),
                Err(e) if e.code == ErrorCode::PageMarkdownAheadOfLog => {}
                Err(e) => return Err(e),
            }
            let file = self
                .graph()
                .page(&slug)
                .map(|p| p.file.clone())
                .ok_or_else(|| not_found(&slug))?;
            let loaded = load::load(&self.root, &file, &self.config).map_err(|reason| {
                Error::new(ErrorCode::Io, format!("cannot read {file}: {reason}"))
                    .with_data(json!({ "path": file }))
            })?;
            let before = Sidecar::read(&self.root, &file).map(|sidecar| Current {
                page: load::base_page(&file, &sidecar, &self.config),
                md: sidecar.base,
            });
            let known: Vec<Block> = before
                .as_ref()
                .map(|b| b.page.blocks().to_vec())
                .unwrap_or_default();
            let merged = before
                .as_ref()
                .and_then(|ours| self.merge_stale_edit(w, &file, &ours.md, &loaded.md));
            let shown = self.graph().page(&slug).map(|page| page.blocks().to_vec());
            let (before, page, md) = match merged {
                Some(md) => {
                    let mut page = load::page_of(&file, &md, &self.config, loaded.page.updated);
                    // outl's blocks keep the ids their writes returned; the file's own blocks
                    // the ids the frozen page was read with, where those are still free.
                    carry_ids(&known, page.blocks_mut());
                    if let Some(shown) = &shown {
                        fill_ids_by_text(shown, page.blocks_mut());
                    }
                    // The op starts from the file as it is, so that applying it (now, or
                    // after a crash) writes the merge over it.
                    let theirs = Current {
                        page: loaded.page,
                        md: loaded.md,
                    };
                    (Some(theirs), page, md)
                }
                None => {
                    let mut page = loaded.page;
                    // The ids the frozen page has been read with are the ones callers have seen.
                    if let Some(shown) = &shown {
                        carry_ids(shown, page.blocks_mut());
                    }
                    (before, page, loaded.md)
                }
            };
            let after = Draft { page, md: Some(md) };
            let op = self.commit(
                w,
                OpKind::PageReconcile,
                History::Write,
                vec![Change {
                    before,
                    after: Some(after),
                }],
            )?;
            let adopted = self
                .graph()
                .page(&slug)
                .map(|page| Adopted::between(op.clone(), &known, &page.blocks()))
                .ok_or_else(|| not_found(&slug))?;
            Ok(Some(adopted))
        })
    }

    /// The file merged with outl's writes it lacks, when it was edited from a version of the
    /// page older than outl's newest (see `merge.rs`); `None` when it is adopted as it is.
    fn merge_stale_edit(&self, w: &Writer, file: &str, ours: &str, theirs: &str) -> Option<String> {
        let mut versions: Vec<String> = Vec::new();
        for listed in w.log.list(MERGE_HISTORY_OPS, None).unwrap_or_default() {
            let touches = |v: &Option<PageVersion>| v.as_ref().is_some_and(|v| v.file == file);
            if !listed
                .pages
                .iter()
                .any(|c| touches(&c.before) || touches(&c.after))
            {
                continue;
            }
            let Ok((op, body)) = w.log.get(listed.seq) else {
                break;
            };
            for (change, content) in op.pages.iter().zip(body.pages) {
                if touches(&change.after) {
                    versions.extend(content.after.map(|c| c.md));
                }
                if touches(&change.before) {
                    versions.extend(content.before.map(|c| c.md));
                }
            }
        }
        // Oldest first.
        let older: Vec<&str> = versions
            .iter()
            .rev()
            .map(String::as_str)
            .filter(|v| *v != ours)
            .collect();
        let base = older[merge::stale_base(theirs, ours, &older)?];
        Some(merge::merge3(base, ours, theirs))
    }
}

/// Gives each block of `blocks` without an id the id of a block of `from` with the same text,
/// if no block of `blocks` has that id yet.
fn fill_ids_by_text(from: &[Block], blocks: &mut [Block]) {
    fn walk<'a>(blocks: &'a [Block], out: &mut Vec<&'a Block>) {
        for block in blocks {
            out.push(block);
            walk(&block.children, out);
        }
    }
    let mut used = HashSet::new();
    let mut have = Vec::new();
    walk(blocks, &mut have);
    used.extend(
        have.iter()
            .map(|b| b.id.clone())
            .filter(|id| !id.is_empty()),
    );
    let mut source = Vec::new();
    walk(from, &mut source);
    let mut free: Vec<(&str, &str)> = source
        .iter()
        .filter(|b| !used.contains(&b.id))
        .map(|b| (b.text.as_str(), b.id.as_str()))
        .collect();
    fn give(blocks: &mut [Block], free: &mut Vec<(&str, &str)>) {
        for block in blocks {
            if block.id.is_empty()
                && let Some(at) = free.iter().position(|(text, _)| *text == block.text)
            {
                block.id = free.swap_remove(at).1.into();
            }
            give(&mut block.children, free);
        }
    }
    give(blocks, &mut free);
}
