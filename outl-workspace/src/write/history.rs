//! The history of writes: undo and redo, each an op that replays another's before- or
//! after-state, and the op log listed newest first.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::json;

use super::{Change, Draft, History};
use crate::block::Block;
use crate::carry;
use crate::load::{self};
use crate::model::Page;
use crate::oplog::{Body, Op, OpKind, PageVersion};
use crate::{Error, ErrorCode};
use crate::{Workspace, Writer};

/// Ops listed newest first, and the cursor for the next (older) batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogPage {
    pub ops: Vec<Op>,
    /// Pass as `cursor` to continue; `None` at the oldest op.
    pub next_cursor: Option<u64>,
}

/// What an undo or a redo did.
#[derive(Debug)]
pub struct ReplayOutcome {
    /// The op it reverted or re-applied, as the log holds it.
    pub op: Op,
    /// The undo or redo itself, as logged.
    pub logged: Op,
    /// One line saying what changed back (or again), page by page.
    pub summary: String,
}

#[derive(Clone, Copy)]
pub(super) enum Replay {
    Undo,
    Redo,
}

impl Workspace {
    /// Reverts an op: with `named`, that op of the log (whoever wrote it; an undo named is
    /// redone, a redo named is undone again), otherwise this session's newest write not undone
    /// yet. `NOTHING_TO_UNDO` when there is none or the op is undone already; `CONFLICT` (with
    /// the page and the op that changed it since in `data`) when a page it touched has changed
    /// since; `INVALID_ARGUMENTS` for an op the log does not hold.
    pub fn undo(&self, named: Option<u64>) -> Result<ReplayOutcome, Error> {
        self.with_lock(|w| {
            let (seq, direction) = match named {
                Some(seq) => self.named_undo(w, seq)?,
                None => {
                    let seq = w.log.undo_top(self.session.as_deref()).ok_or_else(|| {
                        Error::new(
                            ErrorCode::NothingToUndo,
                            "this session has no write left to undo; outl_undo {\"op\": seq} undoes an op of outl_log by its seq",
                        )
                    })?;
                    (seq, Replay::Undo)
                }
            };
            self.replay_op(w, seq, direction)
        })
    }

    /// Re-applies the op this session's newest undo reverted. `NOTHING_TO_REDO` when there is
    /// none (a new write of the session's clears them); `CONFLICT` when a page it touches has
    /// changed since the undo.
    pub fn redo(&self) -> Result<ReplayOutcome, Error> {
        self.with_lock(|w| {
            let seq = w.log.redo_top(self.session.as_deref()).ok_or_else(|| {
                Error::new(
                    ErrorCode::NothingToRedo,
                    "this session has undone nothing it has not redone or written over since",
                )
            })?;
            self.replay_op(w, seq, Replay::Redo)
        })
    }

    /// What undoing the op `seq` of the log means: reverting it, or, for an undo (a redo),
    /// re-applying (reverting again) the op it replayed; refused when that is done already.
    fn named_undo(&self, w: &Writer, seq: u64) -> Result<(u64, Replay), Error> {
        let (first, last) = (w.log.first_seq(), w.log.last_seq());
        if !(first..=last).contains(&seq) {
            return Err(Error::new(
                ErrorCode::InvalidArguments,
                format!("the op log holds no op {seq}: it holds ops {first} to {last}"),
            )
            .with_data(json!({ "pointer": "/op", "first": first, "last": last })));
        }
        let op = w.log.get(seq).map_err(|e| unreadable(seq, &e))?.0;
        let done = |message: String, by: Option<u64>| {
            Error::new(ErrorCode::NothingToUndo, message)
                .with_data(json!({ "op": seq, "undone_by": by }))
        };
        match (op.undoes, op.redoes) {
            (Some(undone), _) => match w.log.undone_by(undone) {
                Some(by) if by == seq => Ok((undone, Replay::Redo)),
                _ => Err(done(
                    format!("op {seq} undid op {undone}, which has been redone since"),
                    None,
                )),
            },
            (_, Some(redone)) => match w.log.undone_by(redone) {
                None => Ok((redone, Replay::Undo)),
                Some(by) => Err(done(
                    format!("op {seq} redid op {redone}, which op {by} has undone again"),
                    Some(by),
                )),
            },
            _ => match w.log.undone_by(seq) {
                None => Ok((seq, Replay::Undo)),
                Some(by) => Err(done(
                    format!("op {seq} is undone already, by op {by}"),
                    Some(by),
                )),
            },
        }
    }

    /// Reverts (or re-applies) the op `seq` as one new op of this session's.
    fn replay_op(
        &self,
        w: &mut Writer,
        seq: u64,
        direction: Replay,
    ) -> Result<ReplayOutcome, Error> {
        let (op, body) = w.log.get(seq).map_err(|e| unreadable(seq, &e))?;
        let changes = self.replay(w, &op, &body, direction)?;
        let summary = describe_replay(&op, &changes, direction);
        let (kind, history) = match direction {
            Replay::Undo => (OpKind::Undo, History::Undoes(seq)),
            Replay::Redo => (OpKind::Redo, History::Redoes(seq)),
        };
        let logged = self.commit(w, kind, history, changes)?;
        Ok(ReplayOutcome {
            op,
            logged,
            summary,
        })
    }

    /// Up to `limit` ops, newest first, older than `cursor` when given.
    pub fn log(&self, limit: usize, cursor: Option<u64>) -> Result<LogPage, Error> {
        let mut w = self.lock_writer();
        self.catch_up(&mut w, false)?;
        let ops = w.log.list(limit, cursor)?;
        let next_cursor = ops
            .last()
            .map(|op| op.seq)
            .filter(|&seq| seq > 1 && ops.len() == limit);
        Ok(LogPage { ops, next_cursor })
    }

    /// The changes that undo (or redo) an op, after checking that every page it touched is
    /// still as the op left it (or, for a redo, as the undo left it).
    fn replay(
        &self,
        w: &Writer,
        op: &Op,
        body: &Body,
        direction: Replay,
    ) -> Result<Vec<Change>, Error> {
        let mut changes = Vec::new();
        for (change, content) in op.pages.iter().zip(&body.pages) {
            let (expected, target, target_content) = match direction {
                Replay::Undo => (&change.after, &change.before, &content.before),
                Replay::Redo => (&change.before, &change.after, &content.after),
            };
            let before = match expected {
                Some(version) => {
                    let current = self.current(&version.slug).map_err(|e| match e.code {
                        ErrorCode::PageNotFound => {
                            conflict(w, op, version, "the page is gone", None)
                        }
                        _ => e,
                    })?;
                    if current.page.hash != version.hash || current.page.file != version.file {
                        return Err(conflict(
                            w,
                            op,
                            version,
                            "the page changed since",
                            Some(&current.page.hash),
                        ));
                    }
                    Some(current)
                }
                None => {
                    if let Some(version) = target {
                        let graph = self.graph();
                        if graph.page(&version.slug).is_some()
                            || self.root.join(&version.file).exists()
                        {
                            return Err(conflict(
                                w,
                                op,
                                version,
                                "a page of that name exists again",
                                None,
                            ));
                        }
                    }
                    None
                }
            };
            let after = match (target, target_content) {
                (Some(version), Some(content)) => {
                    let mut page = load::page_of(&version.file, &content.md, &self.config, 0);
                    carry::assign_preorder(page.blocks_mut(), &content.ids);
                    Some(Draft {
                        page,
                        md: Some(content.md.clone()),
                    })
                }
                _ => None,
            };
            changes.push(Change { before, after });
        }
        Ok(changes)
    }
}

/// Why op `op` cannot be replayed over `version` of a page, naming the newest later op that
/// changed the page (which has to be undone first) when the log holds one.
pub(super) fn conflict(
    w: &Writer,
    op: &Op,
    version: &PageVersion,
    why: &str,
    actual: Option<&str>,
) -> Error {
    let touches = |v: &Option<PageVersion>| {
        v.as_ref()
            .is_some_and(|v| v.file == version.file || v.slug == version.slug)
    };
    let later = w
        .log
        .list(
            usize::try_from(w.log.last_seq() - op.seq).unwrap_or(usize::MAX),
            None,
        )
        .unwrap_or_default()
        .into_iter()
        .take_while(|later| later.seq > op.seq)
        .find(|later| {
            later
                .pages
                .iter()
                .any(|c| touches(&c.before) || touches(&c.after))
        });
    let message = match &later {
        Some(later) => format!(
            "op {} cannot be replayed: {why} ({}): op {} ({}) changed it; undo that op first",
            op.seq, version.slug, later.seq, later.kind
        ),
        None => format!("op {} cannot be replayed: {why} ({})", op.seq, version.slug),
    };
    Error::new(ErrorCode::Conflict, message).with_data(json!({
        "op": op.seq,
        "slug": version.slug,
        "path": version.file,
        "expected_hash": version.hash,
        "actual_hash": actual,
        "changed_by": later.map(|later| later.seq),
    }))
}

/// An op whose record the log cannot give back: it cannot be replayed, and the error says so.
fn unreadable(seq: u64, e: &std::io::Error) -> Error {
    Error::new(
        ErrorCode::Conflict,
        format!("op {seq} cannot be replayed: its record in the op log cannot be read ({e})"),
    )
    .with_data(json!({ "op": seq }))
}

/// Pages an undo or redo summary names one by one; the rest are counted.
const SUMMARY_PAGES: usize = 3;

/// One line on what replaying `op` as `changes` does, page by page.
fn describe_replay(op: &Op, changes: &[Change], direction: Replay) -> String {
    let verb = match direction {
        Replay::Undo => "reverts",
        Replay::Redo => "re-applies",
    };
    let mut parts: Vec<String> = changes
        .iter()
        .take(SUMMARY_PAGES)
        .map(|change| match (&change.before, &change.after) {
            (Some(before), None) => format!("deletes page {}", crate::quoted(&before.page.name)),
            (None, Some(after)) => format!(
                "writes page {} back ({} blocks)",
                crate::quoted(&after.page.name),
                after.page.body.count()
            ),
            (Some(before), Some(after)) if before.page.slug != after.page.slug => format!(
                "renames page {} to {}",
                crate::quoted(&before.page.name),
                crate::quoted(&after.page.name)
            ),
            (Some(before), Some(after)) => format!(
                "page {}: {}",
                crate::quoted(&after.page.name),
                block_changes(&before.page, &after.page)
            ),
            (None, None) => String::new(),
        })
        .collect();
    if changes.len() > SUMMARY_PAGES {
        parts.push(format!("{} more pages", changes.len() - SUMMARY_PAGES));
    }
    format!("{verb} op {} ({}): {}", op.seq, op.kind, parts.join("; "))
}

/// How the blocks of `after` differ from those of `before`, by id: `2 blocks changed, 1 added`.
fn block_changes(before: &Page, after: &Page) -> String {
    fn by_id(blocks: &[Block]) -> HashMap<&str, (&Block, usize)> {
        let mut all = Vec::new();
        for block in blocks {
            block.collect_preorder(&mut all);
        }
        all.into_iter()
            .enumerate()
            .map(|(at, block)| (block.id.as_str(), (block, at)))
            .collect()
    }
    let (old_blocks, new_blocks) = (before.blocks(), after.blocks());
    let (old, new) = (by_id(&old_blocks), by_id(&new_blocks));
    let added = new.keys().filter(|id| !old.contains_key(*id)).count();
    let removed = old.keys().filter(|id| !new.contains_key(*id)).count();
    let (mut changed, mut moved) = (0, 0);
    for (id, (block, at)) in &new {
        if let Some((was, was_at)) = old.get(id) {
            if block.text != was.text || block.properties != was.properties {
                changed += 1;
            } else if at != was_at {
                moved += 1;
            }
        }
    }
    let mut parts: Vec<String> = [
        (changed, "changed"),
        (added, "added"),
        (removed, "removed"),
        (moved, "moved"),
    ]
    .into_iter()
    .filter(|&(n, _)| n > 0)
    .map(|(n, what)| format!("{n} {} {what}", if n == 1 { "block" } else { "blocks" }))
    .collect();
    if before.properties != after.properties {
        parts.push("page properties changed".into());
    }
    if parts.is_empty() {
        parts.push("no block changes".into());
    }
    parts.join(", ")
}
