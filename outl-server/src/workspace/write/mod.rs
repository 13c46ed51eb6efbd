//! The write path: one general transaction ([`Workspace::edit`]) and the page-level writes,
//! all committed by one function that logs, writes and indexes (see the module docs of
//! [`crate::workspace`] for the protocol).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use chrono::NaiveDate;
use serde::Serialize;
use serde_json::json;

use super::config::GraphConfig;
use super::disk::{self, Durability, Guard};
use super::graph::Minting;
use super::ids::{self, carry_ids};
use super::load::{self, Origin, Stamp};
use super::merge;
use super::model::{Block, BlockList, Page, PageKind};
use super::names;
use super::oplog::{Body, ChangeContent, Content, Op, OpLog, PageChange, PageVersion};
use super::sidecar::{self, Sidecar};
use super::{Workspace, Writer, content_hash, format};
use crate::outline::{self, Properties, Syntax};
use crate::{Error, ErrorCode};

/// How many of the newest ops reconcile searches for the version a stale edit started from.
const MERGE_HISTORY_OPS: usize = 1000;

/// Ops listed newest first, and the cursor for the next (older) batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogPage {
    pub ops: Vec<Op>,
    /// Pass as `cursor` to continue; `None` at the oldest op.
    pub next_cursor: Option<u64>,
}

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

/// Calls `f` on every block of `blocks`, in document order.
fn walk<'a>(blocks: &'a [Block], f: &mut impl FnMut(&'a Block)) {
    for block in blocks {
        f(block);
        walk(&block.children, f);
    }
}

/// A page as it is on disk right now, verified.
struct Current {
    page: Page,
    md: String,
}

/// One page of a write: what it was and what it becomes.
struct Change {
    before: Option<Current>,
    after: Option<Draft>,
}

/// A page to write. Without `md` it is rendered from `page` (or kept byte for byte when the
/// page did not change).
struct Draft {
    page: Page,
    md: Option<String>,
}

/// Which history an op joins: a write of its session's, or the undo or redo of an op.
#[derive(Clone, Copy)]
enum History {
    Write,
    Undoes(u64),
    Redoes(u64),
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

fn not_found(slug: &str) -> Error {
    Error::new(
        ErrorCode::PageNotFound,
        format!("no page {}", crate::quoted(slug)),
    )
    .with_data(json!({ "slug": crate::excerpt(slug) }))
}

fn io_error(what: &str, path: &str, e: std::io::Error) -> Error {
    Error::new(ErrorCode::Io, format!("{what} {path}: {e}")).with_data(json!({ "path": path }))
}

fn preorder_ids(blocks: &[Block]) -> Vec<String> {
    let mut out = Vec::new();
    for block in blocks {
        let mut all = Vec::new();
        block.collect_preorder(&mut all);
        out.extend(all.into_iter().map(|b| b.id.to_string()));
    }
    out
}

fn same_content(a: &Page, b: &Page) -> bool {
    a.properties == b.properties && a.body == b.body
}

impl Workspace {
    /// A transaction over existing pages: `f` gets copies of the pages named by `slugs` (names
    /// or slugs), in that order, and changes them as it likes (ids of new blocks may be empty:
    /// they are minted). When `f` returns `Ok`, every changed page is validated, rendered,
    /// logged as one op of kind `kind`, and written; an `Err` from `f` writes nothing.
    ///
    /// A page's slug, name, file and kind are not the closure's to change (rename a page with
    /// [`rename_page`](Self::rename_page)). Fails with `PAGE_NOT_FOUND` for a missing page and
    /// `PAGE_MARKDOWN_AHEAD_OF_LOG` for one edited outside outl.
    pub fn edit<R>(
        &self,
        kind: &str,
        slugs: &[&str],
        f: impl FnOnce(&mut [Page]) -> Result<R, Error>,
    ) -> Result<R, Error> {
        self.with_lock(|w| self.edit_locked(w, kind, slugs, f))
    }

    /// [`edit`](Self::edit) of the journal page of `date`, which the same op creates when it
    /// does not exist yet: undoing it takes the day away again.
    pub fn edit_day<R>(
        &self,
        date: NaiveDate,
        kind: &str,
        f: impl FnOnce(&mut Page) -> Result<R, Error>,
    ) -> Result<R, Error> {
        self.with_lock(|w| match self.day_or_new(date)? {
            Ok(slug) => self.edit_locked(w, kind, &[&slug], |pages| f(&mut pages[0])),
            Err(mut page) => {
                let result = f(&mut page)?;
                self.commit_new_page(w, kind, History::Write, page)?;
                Ok(result)
            }
        })
    }

    /// Under the lock: the slug of the journal page of `date`, or the new empty page it would
    /// be. A day file another program wrote since the last look is read, never overwritten.
    fn day_or_new(&self, date: NaiveDate) -> Result<Result<String, Page>, Error> {
        let slug = names::journal_slug(date);
        if self.graph().page(&slug).is_none()
            && self.root.join(self.config.journal_file_of(date)).exists()
        {
            self.rescan()?;
        }
        if self.graph().page(&slug).is_some() {
            return Ok(Ok(slug));
        }
        self.new_page(&slug, Properties::new(), Vec::new()).map(Err)
    }

    fn edit_locked<R>(
        &self,
        w: &mut Writer,
        kind: &str,
        slugs: &[&str],
        f: impl FnOnce(&mut [Page]) -> Result<R, Error>,
    ) -> Result<R, Error> {
        {
            let mut befores: Vec<Current> = Vec::with_capacity(slugs.len());
            for name in slugs {
                let current = self.current(name)?;
                if befores.iter().any(|b| b.page.slug == current.page.slug) {
                    return Err(Error::new(
                        ErrorCode::InvalidArguments,
                        format!("page {:?} is named twice in one edit", current.page.slug),
                    ));
                }
                befores.push(current);
            }
            let mut pages: Vec<Page> = befores.iter().map(|b| b.page.clone()).collect();
            let result = f(&mut pages)?;
            let changes: Vec<Change> = befores
                .into_iter()
                .zip(pages)
                .filter(|(before, after)| !same_content(&before.page, after))
                .map(|(before, mut after)| {
                    after.slug = before.page.slug.clone();
                    after.name = before.page.name.clone();
                    after.file = before.page.file.clone();
                    after.kind = before.page.kind;
                    Change {
                        before: Some(before),
                        after: Some(Draft {
                            page: after,
                            md: None,
                        }),
                    }
                })
                .collect();
            if !changes.is_empty() {
                self.commit(w, kind, History::Write, changes)?;
            }
            Ok(result)
        }
    }

    /// Creates a page (a journal day when `name` is an ISO date). `PAGE_EXISTS` when the name
    /// is taken, in any case, or its file already exists.
    pub fn create_page(
        &self,
        name: &str,
        properties: Properties,
        blocks: Vec<Block>,
    ) -> Result<Page, Error> {
        let name = names::check_page_name(name)?;
        self.with_lock(|w| {
            let page = self.new_page(name, properties, blocks)?;
            self.commit_new_page(w, "page.create", History::Write, page)
        })
    }

    /// The journal page of `date`, created empty if it does not exist yet. Reading an existing
    /// day writes nothing.
    pub fn ensure_journal(&self, date: NaiveDate) -> Result<Page, Error> {
        let slug = names::journal_slug(date);
        if let Some(page) = self.snapshot().page(&slug) {
            return Ok(page.clone());
        }
        self.with_lock(|w| match self.day_or_new(date)? {
            Ok(slug) => self
                .graph()
                .page(&slug)
                .cloned()
                .ok_or_else(|| not_found(&slug)),
            Err(page) => self.commit_new_page(w, "journal.create", History::Write, page),
        })
    }

    /// Deletes a page and its file.
    pub fn delete_page(&self, slug: &str) -> Result<Op, Error> {
        self.with_lock(|w| {
            let before = self.current(slug)?;
            self.commit(
                w,
                "page.delete",
                History::Write,
                vec![Change {
                    before: Some(before),
                    after: None,
                }],
            )
        })
    }

    /// Renames a page (its file follows the new name) and rewrites every `[[link]]`, `#tag`
    /// and `tags::`/`alias::` entry naming it across the workspace, in one op.
    pub fn rename_page(&self, slug: &str, new_name: &str) -> Result<Page, Error> {
        let new_name = names::check_page_name(new_name)?;
        self.with_lock(|w| {
            let current = self.current(slug)?;
            let old = current.page.clone();
            if let PageKind::Journal { .. } = old.kind {
                return Err(Error::new(
                    ErrorCode::InvalidArguments,
                    "a journal page cannot be renamed",
                )
                .with_data(json!({ "slug": old.slug })));
            }
            if self.config.journal_day(new_name).is_some() {
                return Err(Error::new(
                    ErrorCode::InvalidArguments,
                    "a page cannot be renamed to a date: journal days are named by their date \
                     and their title",
                )
                .with_data(json!({ "name": crate::excerpt(new_name) })));
            }
            let new_slug = names::slug(new_name);
            // An org page stays an org page.
            let new_file = names::page_file_as(
                new_name,
                self.config.name_format,
                Syntax::of_file(&old.file),
            )?;
            if new_slug != old.slug && self.graph().page(&new_slug).is_some() {
                return Err(exists(&new_slug, None));
            }
            if new_file != old.file && self.root.join(&new_file).exists() {
                return Err(exists(&new_slug, Some(&new_file)));
            }
            let linking: Vec<String> = self
                .graph()
                .index()
                .linking_pages(&old.slug)
                .into_iter()
                .filter(|s| *s != old.slug)
                .map(str::to_string)
                .collect();
            let mut renamed = old.clone();
            renamed.name = new_name.to_string();
            renamed.slug = new_slug.clone();
            renamed.file = new_file;
            for (key, value) in renamed.properties.iter_mut() {
                if key.eq_ignore_ascii_case("title") {
                    *value = new_name.to_string();
                }
            }
            rename_links_in(&mut renamed, &old, new_name, &self.config);
            let keep_md = same_content(&old, &renamed).then(|| current.md.clone());
            let mut changes = vec![Change {
                before: Some(current),
                after: Some(Draft {
                    page: renamed,
                    md: keep_md,
                }),
            }];
            for source in linking {
                let before = self.current(&source)?;
                let mut after = before.page.clone();
                rename_links_in(&mut after, &old, new_name, &self.config);
                if !same_content(&before.page, &after) {
                    changes.push(Change {
                        before: Some(before),
                        after: Some(Draft {
                            page: after,
                            md: None,
                        }),
                    });
                }
            }
            self.commit(w, "page.rename", History::Write, changes)?;
            self.graph()
                .page(&new_slug)
                .cloned()
                .ok_or_else(|| not_found(&new_slug))
        })
    }

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
                "page.reconcile",
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
            Replay::Undo => ("undo", History::Undoes(seq)),
            Replay::Redo => ("redo", History::Redoes(seq)),
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

    /// A new page named `name` (or the journal day it names: its ISO date or its title, see
    /// [`GraphConfig::journal_day`](super::GraphConfig::journal_day)), not yet written.
    fn new_page(
        &self,
        name: &str,
        properties: Properties,
        blocks: Vec<Block>,
    ) -> Result<Page, Error> {
        let (slug, kind, file) = match self.config.journal_day(name) {
            Some(date) => (
                names::journal_slug(date),
                PageKind::Journal { date },
                self.config.journal_file_of(date),
            ),
            None => (
                names::slug(name),
                PageKind::Page,
                names::page_file(name, self.config.name_format)?,
            ),
        };
        if self.graph().page(&slug).is_some() {
            return Err(exists(&slug, None));
        }
        if self.root.join(&file).exists() {
            return Err(exists(&slug, Some(&file)));
        }
        let name = if let PageKind::Journal { .. } = kind {
            slug.clone()
        } else {
            name.to_string()
        };
        Ok(Page {
            slug,
            name,
            kind,
            file,
            front_matter: None,
            properties,
            body: blocks.into(),
            ref_uuids: Default::default(),
            updated: 0,
            hash: String::new(),
        })
    }

    /// The page as it is on disk now, checked against what outl last wrote (step 2).
    fn current(&self, name: &str) -> Result<Current, Error> {
        let (page, frozen) = {
            let graph = self.graph();
            let page = graph.resolve(name).ok_or_else(|| not_found(name))?;
            (page.clone(), graph.frozen_page(&page.slug).is_some())
        };
        // A write works on the blocks open; the graph packs the page it keeps.
        let mut page = page;
        page.body.open();
        let path = self.root.join(&page.file);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.graph_mut().remove(&page.slug);
                return Err(not_found(name));
            }
            Err(e) => return Err(io_error("cannot read", &page.file, e)),
        };
        let hash = content_hash(&bytes);
        if hash == page.hash && !frozen {
            if let Ok(meta) = std::fs::metadata(&path) {
                self.graph_mut()
                    .stamps
                    .insert(page.slug.clone(), Stamp::of(&meta));
            }
            let md = String::from_utf8(bytes).map_err(|_| {
                io_error(
                    "not UTF-8:",
                    &page.file,
                    std::io::Error::other("invalid UTF-8"),
                )
            })?;
            return Ok(Current { page, md });
        }
        // Edited outside outl (or back to what outl wrote): read it again.
        let loaded = load::load(&self.root, &page.file, &self.config).map_err(|reason| {
            Error::new(
                ErrorCode::Io,
                format!("cannot read {}: {reason}", page.file),
            )
        })?;
        let mut graph = self.graph_mut();
        graph.remove(&page.slug);
        let mut reloaded = loaded.page;
        graph.fill_ids(
            &mut reloaded,
            &HashSet::new(),
            &mut HashSet::new(),
            Minting::Derived,
        );
        match loaded.origin {
            Origin::Ahead(frozen) => {
                let error = frozen.error();
                graph.insert(reloaded, Some(loaded.stamp), Some(frozen));
                Err(error)
            }
            Origin::Known | Origin::New => {
                graph.insert(reloaded.clone(), Some(loaded.stamp), None);
                if reloaded.slug != page.slug {
                    return Err(not_found(name));
                }
                Ok(Current {
                    page: reloaded,
                    md: loaded.md,
                })
            }
        }
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
                    ids::assign_preorder(page.blocks_mut(), &content.ids);
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

    /// Logs and writes a page that did not exist, and returns it as the graph now holds it.
    fn commit_new_page(
        &self,
        w: &mut Writer,
        kind: &str,
        history: History,
        page: Page,
    ) -> Result<Page, Error> {
        let slug = page.slug.clone();
        self.commit(
            w,
            kind,
            history,
            vec![Change {
                before: None,
                after: Some(Draft { page, md: None }),
            }],
        )?;
        self.graph()
            .page(&slug)
            .cloned()
            .ok_or_else(|| not_found(&slug))
    }

    /// Gives each block that a text of `changes` newly refers to, and that has no `id::` of its
    /// own, the UUID its short id is encoded in (see [`ids::anchor_uuid`]) as its `id::`: Logseq
    /// resolves a ref only to a block whose file names its UUID (an `:id:` in an org block's
    /// drawer). A block on a page the op does not touch brings its page into the op, changed
    /// by that one line.
    fn anchor_refs(&self, changes: &mut Vec<Change>) -> Result<(), Error> {
        let mut targets: Vec<String> = Vec::new();
        for change in changes.iter() {
            let Some(draft) = change.after.as_ref().filter(|d| d.md.is_none()) else {
                continue;
            };
            let before = change.before.as_ref().map(|b| b.page.blocks());
            walk(&draft.page.blocks(), &mut |block| {
                let known = before
                    .as_ref()
                    .and_then(|blocks| blocks.find(&block.id))
                    .is_some_and(|(_, old)| old.text == block.text);
                if !known && outline::may_ref(&block.text) {
                    for id in outline::block_refs(&block.text) {
                        if !targets.contains(&id) {
                            targets.push(id);
                        }
                    }
                }
            });
        }
        for id in targets {
            // An `id::` that serves another block (a copy's, which Logseq gives to the first
            // block that has it) is replaced, as Logseq replaces it when it saves the copy.
            let anchor = |block: &mut Block| {
                if ids::user_id(block).is_some_and(|served| served == block.id.as_str()) {
                    return;
                }
                if let Some(uuid) = ids::anchor_uuid(&block.id) {
                    block.properties.insert(ids::ID_PROPERTY.into(), uuid);
                }
            };
            let in_op = changes
                .iter_mut()
                .find_map(|change| change.after.as_mut()?.page.blocks_mut().find_mut(&id));
            if let Some(block) = in_op {
                anchor(block);
                continue;
            }
            let Some(slug) = self.graph().page_of_block(&id).map(str::to_owned) else {
                continue;
            };
            // A page the op writes holds its blocks as the op leaves them: one it deletes, or
            // whose block the op took away, has nothing to anchor.
            if changes
                .iter()
                .any(|c| c.before.as_ref().is_some_and(|b| b.page.slug == slug))
            {
                continue;
            }
            let before = self.current(&slug)?;
            let mut page = before.page.clone();
            let Some(block) = page.blocks_mut().find_mut(&id) else {
                continue;
            };
            anchor(block);
            if !same_content(&before.page, &page) {
                changes.push(Change {
                    before: Some(before),
                    after: Some(Draft { page, md: None }),
                });
            }
        }
        Ok(())
    }

    /// The UUID of each block served by a short id that the texts of `changes` refer to, or
    /// that they hold: the UUIDs the pages' files named, the blocks of the op (they may be
    /// new), then the graph's.
    fn uuids_of_refs(&self, changes: &[Change]) -> HashMap<String, String> {
        let mut uuids = HashMap::new();
        let mut refs = Vec::new();
        for draft in changes.iter().filter_map(|c| c.after.as_ref()) {
            collect_uuids_and_refs(&draft.page.blocks(), &mut uuids, &mut refs);
            // The UUIDs the page's file named, whether their blocks exist or not.
            for (short, uuid) in &draft.page.ref_uuids {
                uuids.insert(short.to_string(), uuid.clone());
            }
        }
        let graph = self.graph();
        for id in refs {
            if !uuids.contains_key(&id)
                && let Some(block) = graph.block_alone(&id)
                && let Some(uuid) = ids::on_disk_uuid(&block, &id)
            {
                let uuid = uuid.to_owned();
                uuids.insert(id, uuid);
            }
        }
        uuids
    }

    /// Validates, logs, writes and indexes one op (steps 3 to 5).
    fn commit(
        &self,
        w: &mut Writer,
        kind: &str,
        history: History,
        mut changes: Vec<Change>,
    ) -> Result<Op, Error> {
        // An undo or a redo writes the files as they were: its refs were anchored, or not, then.
        if let History::Write = history {
            self.anchor_refs(&mut changes)?;
        }
        // Step 3: the exact pages that will be on disk, with workspace-unique ids.
        let replaced: HashSet<String> = changes
            .iter()
            .filter_map(|c| c.before.as_ref())
            .map(|b| b.page.slug.clone())
            .collect();
        // A ref to a block whose `id::` is a UUID is written as Logseq resolves it, `((uuid))`:
        // the blocks of this op first (they may be new), then the graph's.
        let uuids = self.uuids_of_refs(&changes);
        let refs_on_disk = |id: &str| uuids.get(id).cloned();
        let mut handed_out = HashSet::new();
        let mut finals: Vec<Option<(Page, String)>> = Vec::with_capacity(changes.len());
        let mut new_slugs = HashSet::new();
        for change in &changes {
            let Some(draft) = &change.after else {
                finals.push(None);
                continue;
            };
            if draft.md.is_none() {
                refuse_misread_texts(change.before.as_ref().map(|b| &b.page), &draft.page)?;
            }
            let md = match (&draft.md, &change.before) {
                (Some(md), _) => md.clone(),
                (None, Some(before)) if same_content(&before.page, &draft.page) => {
                    before.md.clone()
                }
                (None, Some(before)) => format::render_over(
                    Syntax::of_file(&before.page.file),
                    &before.md,
                    &before.page.blocks(),
                    draft.page.front_matter.as_deref(),
                    &draft.page.properties,
                    &draft.page.blocks(),
                    &refs_on_disk,
                ),
                (None, None) => format::render(
                    draft.page.front_matter.as_deref(),
                    &draft.page.properties,
                    &draft.page.blocks(),
                    &refs_on_disk,
                ),
            };
            let mut page = load::page_of(&draft.page.file, &md, &self.config, 0);
            if page.slug != draft.page.slug {
                return Err(Error::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "this change would rename page {:?} to {:?} (a title:: property); rename the page instead",
                        draft.page.slug, page.slug
                    ),
                ));
            }
            if !new_slugs.insert(page.slug.clone()) {
                return Err(Error::new(
                    ErrorCode::Internal,
                    format!("one op writes page {:?} twice", page.slug),
                ));
            }
            if page.body.count() == draft.page.body.count() {
                ids::assign_preorder(page.blocks_mut(), &preorder_ids(&draft.page.blocks()));
            } else {
                // The text of a block held markdown that parses as more (or fewer) blocks.
                carry_ids(&draft.page.blocks(), page.blocks_mut());
            }
            {
                let graph = self.graph();
                let mut minter = self
                    .minter
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                graph.fill_ids(
                    &mut page,
                    &replaced,
                    &mut handed_out,
                    Minting::Fresh(&mut minter),
                );
            }
            finals.push(Some((page, md)));
        }

        // Step 4: the op log.
        let mut op = Op {
            seq: 0,
            ts: chrono::Utc::now().timestamp_millis(),
            kind: kind.to_string(),
            undoes: None,
            redoes: None,
            session: self.session.as_deref().map(str::to_owned),
            pages: Vec::new(),
        };
        match history {
            History::Write => {}
            History::Undoes(seq) => op.undoes = Some(seq),
            History::Redoes(seq) => op.redoes = Some(seq),
        }
        let mut body = Body::default();
        for (change, after) in changes.iter().zip(&finals) {
            let version = |page: &Page| PageVersion {
                slug: page.slug.clone(),
                file: page.file.clone(),
                hash: page.hash.clone(),
            };
            op.pages.push(PageChange {
                before: change.before.as_ref().map(|b| version(&b.page)),
                after: after.as_ref().map(|(page, _)| version(page)),
            });
            body.pages.push(ChangeContent {
                before: change.before.as_ref().map(|b| Content {
                    md: b.md.clone(),
                    ids: preorder_ids(&b.page.blocks()),
                }),
                after: after.as_ref().map(|(page, md)| Content {
                    md: md.clone(),
                    ids: preorder_ids(&page.blocks()),
                }),
            });
        }
        // Step 4: the new files in temp files, then one round of fsyncs for them and the log
        // line (the commit point).
        let (writes, left_alone) = stage(&self.root, &op.pages, &body.pages)?;
        if let Some(file) = left_alone.first() {
            return Err(self.changed_outside(&changes, file));
        }
        let op = w
            .log
            .append(op, &body, |log| writes.sync(Some(log)).map_err(failed))?;

        // Step 5: the op is committed. The renames, then a second round of fsyncs for the
        // folders that hold them, while memory follows the op (even if a page write fails: the
        // next write, or the next open, settles the disk from the log).
        writes
            .apply(|| {
                let mut graph = self.graph_mut();
                for (change, after) in changes.iter().zip(&finals) {
                    // A page edited in place is indexed for what changed in it.
                    let edited = matches!(
                        (&change.before, after),
                        (Some(before), Some((page, _)))
                            if before.page.slug == page.slug && before.page.file == page.file
                    );
                    if let Some(before) = change.before.as_ref().filter(|_| !edited) {
                        graph.remove(&before.page.slug);
                        graph.remove_file(&before.page.file);
                    }
                    if let Some((page, _)) = after {
                        let mut page = page.clone();
                        page.updated = op.ts;
                        if edited {
                            graph.replace(page);
                        } else {
                            graph.remove(&page.slug);
                            graph.remove_file(&page.file);
                            graph.insert(page, None, None);
                        }
                    }
                }
            })
            .map_err(|failure| match failure.tag {
                // Written outside outl in the moment since the read: that file is kept, and
                // the next write settles the rest of the op.
                Some(target) if disk::Moved::is(&failure.error) => {
                    self.changed_outside(&changes, &target.file)
                }
                _ => failed(failure),
            })?;
        w.settled = op.seq;
        if let Err(e) = w.log.rotate_if_full() {
            // The op is written; the log only grows on until a later write rotates it.
            tracing::warn!("cannot start a new op log segment: {e}");
        }
        let mut graph = self.graph_mut();
        for change in op.pages.iter().filter_map(|c| c.after.as_ref()) {
            if let Ok(meta) = std::fs::metadata(self.root.join(&change.file)) {
                let stamp = Stamp::of(&meta);
                graph.stamps.insert(change.slug.clone(), stamp);
            }
        }
        Ok(op)
    }
}

impl Workspace {
    /// The refusal of a write to `file`, a file of `changes` that another program wrote after
    /// outl read it: the page is read again from the file, frozen as any page edited outside
    /// outl, and the refusal says what changed.
    fn changed_outside(&self, changes: &[Change], file: &str) -> Error {
        let slug = changes
            .iter()
            .flat_map(|c| {
                let before = c.before.as_ref().map(|b| &b.page);
                before.into_iter().chain(c.after.as_ref().map(|a| &a.page))
            })
            .find(|page| page.file == file)
            .map(|page| page.slug.clone());
        let current = slug.as_deref().map(|slug| self.current(slug));
        match current {
            Some(Err(error)) => error,
            _ => Error::new(
                ErrorCode::Conflict,
                format!("{file} changed on disk while outl wrote it; it is kept as it is now"),
            )
            .with_data(json!({ "path": file })),
        }
    }
}

#[derive(Clone, Copy)]
enum Replay {
    Undo,
    Redo,
}

fn exists(slug: &str, file: Option<&str>) -> Error {
    let message = match file {
        Some(file) => format!(
            "page {} cannot be created: {file} already exists",
            crate::quoted(slug)
        ),
        None => format!("a page {} already exists", crate::quoted(slug)),
    };
    Error::new(ErrorCode::PageExists, message)
        .with_data(json!({ "slug": crate::excerpt(slug), "path": file }))
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

/// Why op `op` cannot be replayed over `version` of a page, naming the newest later op that
/// changed the page (which has to be undone first) when the log holds one.
fn conflict(w: &Writer, op: &Op, version: &PageVersion, why: &str, actual: Option<&str>) -> Error {
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

/// The blocks of `blocks` (nested ones too) served by the short id of their UUID `id::`, by
/// that id, and the ids their texts refer to.
fn collect_uuids_and_refs(
    blocks: &[Block],
    uuids: &mut HashMap<String, String>,
    refs: &mut Vec<String>,
) {
    for block in blocks {
        if let Some(uuid) = ids::on_disk_uuid(block, &block.id) {
            uuids.insert(block.id.to_string(), uuid.to_owned());
        }
        if outline::may_ref(&block.text) {
            refs.extend(outline::block_refs(&block.text));
        }
        collect_uuids_and_refs(&block.children, uuids, refs);
    }
}

/// Refuses a text of `after` that Logseq would not read back as that text (see
/// [`outline::misread_line`]); a block's text as `before` had it is not checked again.
fn refuse_misread_texts(before: Option<&Page>, after: &Page) -> Result<(), Error> {
    let syntax = Syntax::of_file(&after.file);
    let former_blocks = before.map(|page| page.blocks());
    let mut refused = None;
    walk(&after.blocks(), &mut |block| {
        if refused.is_some() {
            return;
        }
        let former = former_blocks
            .as_ref()
            .and_then(|blocks| blocks.find(&block.id))
            .map(|(_, old)| old.text.as_str());
        if former == Some(block.text.as_str()) {
            return;
        }
        if let Some(misread) = outline::misread_line(syntax, &block.text, former) {
            // A new block has no id to name yet.
            let id = if former.is_some() { &*block.id } else { "" };
            refused = Some(misread_text(&block.text, &misread, id));
        }
    });
    refused.map_or(Ok(()), Err)
}

/// `INVALID_ARGUMENTS` for a block text (`id` empty for a new block) that Logseq would read
/// as structure: the line, quoted, and what Logseq would make of it.
pub(crate) fn misread_text(text: &str, misread: &outline::Misread, id: &str) -> Error {
    let line = text.split('\n').nth(misread.line - 1).unwrap_or_default();
    Error::new(
        ErrorCode::InvalidArguments,
        format!(
            "line {} of a block's text, {}, would not read back as text in Logseq: it is {}",
            misread.line,
            crate::quoted(line),
            misread.why
        ),
    )
    .with_data(json!({
        "argument": "text",
        "id": (!id.is_empty()).then_some(id),
        "line": misread.line,
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

/// Rewrites links to `old` in a page's blocks and properties.
fn rename_links_in(page: &mut Page, old: &Page, new_name: &str, config: &GraphConfig) {
    let renaming = Renaming {
        old: &old.name,
        new: new_name,
        syntax: Syntax::of_file(&page.file),
        config,
    };
    renaming.in_properties(&mut page.properties);
    renaming.in_blocks(page.blocks_mut());
}

/// A page's old name and new one, and the config that says which properties list pages.
struct Renaming<'a> {
    old: &'a str,
    new: &'a str,
    /// The syntax of the page whose links are rewritten.
    syntax: Syntax,
    config: &'a GraphConfig,
}

impl Renaming<'_> {
    fn in_properties(&self, properties: &mut Properties) {
        for (key, value) in properties.iter_mut() {
            let page_list = self.config.is_page_list(key);
            if let Cow::Owned(renamed) =
                outline::rename_property_links(value, page_list, self.old, self.new)
            {
                *value = renamed;
            }
        }
    }

    fn in_blocks(&self, blocks: &mut [Block]) {
        for block in blocks {
            if let Cow::Owned(renamed) =
                outline::rename_page_links_in(self.syntax, &block.text, self.old, self.new)
            {
                block.text = renamed;
            }
            self.in_properties(&mut block.properties);
            self.in_blocks(&mut block.children);
        }
    }
}

/// What a staged step of an op's writes is for: the start of the error its failure gives.
#[derive(Debug, Clone)]
struct Target {
    what: &'static str,
    file: String,
}

type Writes = disk::Batch<Target>;

fn target(what: &'static str, file: &str) -> Target {
    Target {
        what,
        file: file.to_string(),
    }
}

fn failed(failure: disk::Failure<Target>) -> Error {
    match failure.tag {
        Some(target) => io_error(target.what, &target.file, failure.error),
        None => failure.error.into(),
    }
}

/// Makes a logged op true on disk after a crash (step 6): its pages as in [`stage`], with the
/// log synced beside them, since the process that appended the op may have died before its
/// line was durable, and no page may get ahead of the log.
pub(super) fn settle(root: &Path, log: &OpLog, op: &Op, body: &Body) -> Result<(), Error> {
    // A file edited outside outl since is left for freeze detection; one saved while this
    // settles is left too, by staging again (it then holds neither state), a few times over.
    for _ in 0..SETTLE_TRIES {
        let (writes, _) = stage(root, &op.pages, &body.pages)?;
        if writes.is_empty() {
            return Ok(());
        }
        log.sync_with(|log| writes.sync(Some(log)).map_err(failed))?;
        match writes.apply(|| ()) {
            Err(failure) if disk::Moved::is(&failure.error) => continue,
            applied => return applied.map_err(failed),
        }
    }
    Err(Error::new(
        ErrorCode::Conflict,
        "the pages of the last op keep changing on disk; try again",
    ))
}

/// Times [`settle`] stages again when a file changes under it.
const SETTLE_TRIES: usize = 8;

/// Stages what makes the pages of an op true on disk, for each page: rolls its file forward
/// if it still has its before-state (removing the file the op moved away from), rewrites a
/// stale sidecar, and leaves a file that matches neither (edited outside outl) alone, naming it
/// in the second part of the result. Each page sees the disk as the pages staged before it
/// leave it. Each page file staged is guarded by the bytes read here: should another program
/// write it before the rename, the rename leaves that file as it is (see [`disk::Guard`]).
fn stage(
    root: &Path,
    changes: &[PageChange],
    contents: &[ChangeContent],
) -> Result<(Writes, Vec<String>), Error> {
    let mut writes = Writes::new(Durability::Durable);
    let mut left_alone = Vec::new();
    for (change, content) in changes.iter().zip(contents) {
        stage_page(root, change, content, &mut writes, &mut left_alone)?;
    }
    Ok((writes, left_alone))
}

fn stage_page(
    root: &Path,
    change: &PageChange,
    content: &ChangeContent,
    writes: &mut Writes,
    left_alone: &mut Vec<String>,
) -> Result<(), Error> {
    // A file's content hash, and the guard a step that replaces or removes it takes.
    let read = |writes: &Writes, file: &str| -> Result<Option<(String, Guard)>, Error> {
        let bytes = staged_or_on_disk(writes, &root.join(file))
            .map_err(|e| io_error("cannot read", file, e))?;
        Ok(bytes.map(|bytes| (content_hash(&bytes), Guard::Holds(blake3::hash(&bytes)))))
    };
    // The file the op moved away from (a rename, a delete).
    if let Some(before) = &change.before
        && change.after.as_ref().is_none_or(|a| a.file != before.file)
    {
        match read(writes, &before.file)? {
            Some((hash, guard)) if hash == before.hash => {
                writes.remove(
                    &root.join(&before.file),
                    guard,
                    target("cannot remove", &before.file),
                );
                writes.remove(
                    &sidecar::path(root, &before.file),
                    Guard::Any,
                    target("cannot remove the sidecar of", &before.file),
                );
            }
            Some(_) => left_alone.push(before.file.clone()),
            None => {}
        }
    }
    let (Some(after), Some(after_content)) = (&change.after, &content.after) else {
        return Ok(());
    };
    let on_disk = read(writes, &after.file)?;
    let guard = match (&change.before, &on_disk) {
        (Some(before), Some((hash, guard)))
            if before.file == after.file && *hash == before.hash =>
        {
            Some(*guard)
        }
        (Some(before), _) if before.file == after.file => None,
        (_, None) => Some(Guard::Absent),
        (_, Some(_)) => None,
    };
    if let Some(guard) = guard {
        writes
            .replace(
                &root.join(&after.file),
                after_content.md.as_bytes().to_vec(),
                guard,
                target("cannot write", &after.file),
            )
            .map_err(failed)?;
    } else if on_disk.as_ref().map(|(hash, _)| hash) != Some(&after.hash) {
        left_alone.push(after.file.clone());
        return Ok(());
    }
    let sidecar_path = sidecar::path(root, &after.file);
    let sidecar_current = staged_or_on_disk(writes, &sidecar_path)
        .ok()
        .flatten()
        .and_then(|bytes| Sidecar::decode(std::str::from_utf8(&bytes).ok()?))
        .is_some_and(|s| s.hash == after.hash && s.ids == after_content.ids);
    if !sidecar_current {
        let sidecar = Sidecar {
            hash: after.hash.clone(),
            ids: after_content.ids.clone(),
            base: after_content.md.clone(),
        };
        writes
            .replace(
                &sidecar_path,
                sidecar.encode().into_bytes(),
                Guard::Any,
                target("cannot write the sidecar of", &after.file),
            )
            .map_err(failed)?;
    }
    Ok(())
}

/// What `path` holds once `writes` are applied: its staged content, else what is on disk
/// (`None`: no such file).
fn staged_or_on_disk<'a>(
    writes: &'a Writes,
    path: &Path,
) -> std::io::Result<Option<Cow<'a, [u8]>>> {
    match writes.staged(path) {
        Some(staged) => Ok(staged.map(Cow::Borrowed)),
        None => match std::fs::read(path) {
            Ok(bytes) => Ok(Some(Cow::Owned(bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use super::super::disk::trace::{self, Event};
    use super::super::{Workspace, sidecar};

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("pages")).unwrap();
        fs::write(dir.path().join("pages/Bob.md"), "- one\n- two\n").unwrap();
        fs::write(dir.path().join("pages/Ann.md"), "- three\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    fn update_bob(ws: &Workspace, text: &str) {
        ws.edit("block.update", &["bob"], |pages| {
            pages[0].blocks_mut()[0].text = text.into();
            Ok(())
        })
        .unwrap();
    }

    /// Checks that `events` are one page replaced: its temp files written, one round of fsyncs
    /// for them and the log line, the renames, one round for the two folders.
    fn assert_replaced_in_two_rounds(root: &Path, file: &str, events: &[Event]) {
        let [
            Event::Wrote(page_temp),
            Event::Wrote(sidecar_temp),
            Event::Synced {
                also: true,
                paths: synced,
            },
            Event::Renamed(page),
            Event::Renamed(sidecar),
            Event::Synced {
                also: false,
                paths: dirs,
            },
        ] = events
        else {
            panic!("{events:#?}");
        };
        let page_path = root.join(file);
        let sidecar_path = sidecar::path(root, file);
        assert_eq!(synced, &[page_temp.clone(), sidecar_temp.clone()]);
        assert_eq!(page_temp.parent(), page_path.parent());
        assert_eq!(sidecar_temp.parent(), sidecar_path.parent());
        assert_eq!((page, sidecar), (&page_path, &sidecar_path));
        let mut expected: Vec<PathBuf> = [&sidecar_path, &page_path]
            .iter()
            .filter_map(|p| p.parent().map(Path::to_path_buf))
            .collect();
        expected.sort();
        assert_eq!(dirs, &expected);
    }

    #[test]
    fn a_write_renames_only_after_its_log_line_is_durable_and_waits_two_rounds() {
        let (_dir, ws) = workspace();
        let root = ws.root().to_path_buf();
        trace::take();
        update_bob(&ws, "changed");
        assert_replaced_in_two_rounds(&root, "pages/Bob.md", &trace::take());

        ws.delete_page("ann").unwrap();
        assert_eq!(
            trace::take(),
            [
                // The log line alone, then the removals.
                Event::Synced {
                    also: true,
                    paths: vec![],
                },
                Event::Removed(root.join("pages/Ann.md")),
                Event::Removed(sidecar::path(&root, "pages/Ann.md")),
                Event::Synced {
                    also: false,
                    paths: vec![
                        sidecar::path(&root, "pages/Ann.md")
                            .parent()
                            .unwrap()
                            .to_path_buf(),
                        root.join("pages"),
                    ],
                },
            ]
        );
    }

    #[test]
    fn settling_after_a_crash_syncs_the_log_with_the_pages_before_renaming() {
        let (dir, ws) = workspace();
        let page = dir.path().join("pages/Bob.md");
        let sidecar = sidecar::path(ws.root(), "pages/Bob.md");
        let (page_before, sidecar_before) = (fs::read(&page).unwrap(), fs::read(&sidecar).unwrap());
        update_bob(&ws, "rolled forward");
        let page_after = fs::read(&page).unwrap();
        drop(ws);
        // As if the process died after its log line was written: page and sidecar are old.
        fs::write(&page, page_before).unwrap();
        fs::write(&sidecar, sidecar_before).unwrap();
        trace::take();
        let ws = Workspace::open(dir.path()).unwrap();
        assert_replaced_in_two_rounds(ws.root(), "pages/Bob.md", &trace::take());
        assert_eq!(fs::read(&page).unwrap(), page_after);

        // Settled: opening again writes nothing.
        drop(ws);
        Workspace::open(dir.path()).unwrap();
        assert_eq!(trace::take(), []);
    }
}
