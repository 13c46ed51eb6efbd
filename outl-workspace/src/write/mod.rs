//! The write path: one general transaction ([`Workspace::edit`]) and the page-level writes
//! ([`pages`]), all committed by one function that logs, writes and indexes (see the module
//! docs of [`crate`] for the protocol). [`stage`] puts an op's pages on disk,
//! [`reconcile`] adopts a page edited outside outl, and [`history`] undoes and redoes ops.

mod history;
mod pages;
mod reconcile;
mod stage;

use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;
use serde_json::json;

use super::block::{Block, BlockList, on_disk_uuid, user_id};
use super::carry::{self, carry_ids};
use super::disk;
use super::graph::Minting;
use super::ids;
use super::load::{self, Origin};
use super::model::{Page, PageKind};
use super::names;
use super::oplog::{Body, ChangeContent, Content, Op, OpKind, PageChange, PageVersion};
use super::stamp::Stamp;
use super::{Workspace, Writer, content_hash, format};
use crate::{Error, ErrorCode};
use outl_format::{self as outline, Properties, Syntax};
use stage::{failed, stage};

pub use history::{LogPage, ReplayOutcome};
pub use reconcile::Adopted;
pub(super) use stage::settle;

/// Calls `f` on every block of `blocks`, in document order.
pub(super) fn walk<'a>(blocks: &'a [Block], f: &mut impl FnMut(&'a Block)) {
    for block in blocks {
        f(block);
        walk(&block.children, f);
    }
}

/// A page as it is on disk right now, verified.
pub(super) struct Current {
    pub(super) page: Page,
    pub(super) md: String,
}

/// One page of a write: what it was and what it becomes.
pub(super) struct Change {
    pub(super) before: Option<Current>,
    pub(super) after: Option<Draft>,
}

/// A page to write. Without `md` it is rendered from `page` (or kept byte for byte when the
/// page did not change).
pub(super) struct Draft {
    pub(super) page: Page,
    pub(super) md: Option<String>,
}

/// Which history an op joins: a write of its session's, or the undo or redo of an op.
#[derive(Clone, Copy)]
pub(super) enum History {
    Write,
    Undoes(u64),
    Redoes(u64),
}

pub(super) fn not_found(slug: &str) -> Error {
    Error::new(
        ErrorCode::PageNotFound,
        format!("no page {}", crate::quoted(slug)),
    )
    .with_data(json!({ "slug": crate::excerpt(slug) }))
}

pub(super) fn io_error(what: &str, path: &str, e: std::io::Error) -> Error {
    Error::new(ErrorCode::Io, format!("{what} {path}: {e}")).with_data(json!({ "path": path }))
}

pub(super) fn preorder_ids(blocks: &[Block]) -> Vec<String> {
    let mut out = Vec::new();
    for block in blocks {
        let mut all = Vec::new();
        block.collect_preorder(&mut all);
        out.extend(all.into_iter().map(|b| b.id.to_string()));
    }
    out
}

pub(super) fn same_content(a: &Page, b: &Page) -> bool {
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
        kind: OpKind,
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
        kind: OpKind,
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
        kind: OpKind,
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
        Ok(Page::new(slug, name, kind, file, properties, blocks))
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

    /// Logs and writes a page that did not exist, and returns it as the graph now holds it.
    fn commit_new_page(
        &self,
        w: &mut Writer,
        kind: OpKind,
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
                if user_id(block).is_some_and(|served| served == block.id.as_str()) {
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
                && let Some(uuid) = on_disk_uuid(&block, &id)
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
        kind: OpKind,
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
                carry::assign_preorder(page.blocks_mut(), &preorder_ids(&draft.page.blocks()));
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
            kind,
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

pub(super) fn exists(slug: &str, file: Option<&str>) -> Error {
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

/// The blocks of `blocks` (nested ones too) served by the short id of their UUID `id::`, by
/// that id, and the ids their texts refer to.
fn collect_uuids_and_refs(
    blocks: &[Block],
    uuids: &mut HashMap<String, String>,
    refs: &mut Vec<String>,
) {
    for block in blocks {
        if let Some(uuid) = on_disk_uuid(block, &block.id) {
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
pub fn misread_text(text: &str, misread: &outline::Misread, id: &str) -> Error {
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
