//! Pages: list, read, render, create, rename, delete, replace, append, backlinks, reconcile.
//!
//! The writes that take markdown share three helpers ([`create`], [`replace`], [`append`]),
//! which `outl_import_md` and `outl_daily_append` use too.

use std::collections::{BTreeSet, HashSet};

use outl_macros::{ToolFields, tool};
use outl_registry::{Problem, invalid_arguments};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::lookup;
use super::outline::{self, OutlineNode, PageMeta, content_properties};
use super::paging;
use super::query::Hit;
use super::slices::{self, Cut, Window};
use super::wire_len;
use crate::MAX_MARKDOWN_CHARS;
use outl_format::{Document, ParsedBlock, Syntax, Token, aliases};
use outl_workspace::Error;
use outl_workspace::{Block, Graph, OpKind, Page, Workspace, carry_ids, slug};

/// How many `((ref))`s deep a rendered page follows a referenced block that refers to
/// another: enough for quotes of quotes, and a cycle cannot loop.
const REF_DEPTH: usize = 3;

// ---------------------------------------------------------------------------------------------
// Arguments

/// Which page.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PageRef {
    pub slug: String,
}

/// Which page, how deep, and which slice of it to read.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PageTreeArgs {
    pub slug: String,
    /// Levels of blocks; 1: the top level only.
    #[schemars(range(min = 1))]
    pub depth: Option<u32>,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
    #[schemars(range(min = 1))]
    pub budget: Option<u32>,
}

/// Which page, and which slice of its markdown to read.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PageSliceArgs {
    pub slug: String,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
    #[schemars(range(min = 1))]
    pub budget: Option<u32>,
}

/// Which kind of pages a list holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum KindFilter {
    #[default]
    Page,
    Journal,
    All,
}

/// Which pages to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PageListArgs {
    /// Words of the name or an alias, each in any form or with a typo.
    pub query: Option<String>,
    /// Only slugs starting with this.
    pub prefix: Option<String>,
    /// Only pages right inside it: `projects` lists `projects/apollo`, not
    /// `projects/apollo/notes`.
    pub namespace: Option<String>,
    /// `page` if left out.
    pub kind: Option<KindFilter>,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
    /// Also each page's file and last change.
    pub details: Option<bool>,
}

/// A new page.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PageCreateArgs {
    /// The name, case kept: `a/b` is in namespace `a`, an ISO date makes that journal day.
    pub name: String,
    #[schemars(length(max = MAX_MARKDOWN_CHARS))]
    pub md: Option<String>,
}

/// A page and its new name.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PageRenameArgs {
    pub slug: String,
    /// The new name, case kept.
    pub new_name: String,
}

/// A page and markdown to write to it.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PageWriteArgs {
    pub slug: String,
    #[schemars(length(max = MAX_MARKDOWN_CHARS))]
    pub md: String,
}

/// A page and one slice of its backlinks.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct BacklinksArgs {
    pub slug: String,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Results

/// One page of a list.
#[derive(Debug, Serialize)]
pub struct PageSummary {
    pub slug: String,
    pub name: String,
    /// Blocks on the page, nested ones included.
    pub blocks: usize,
    /// With `details`: the markdown file, relative to the workspace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// With `details`: the last change, RFC 3339 in UTC. Asked for, not sent by default: it
    /// took almost half the tokens of a list, which is read to find pages, and outl_recent
    /// lists pages by their last change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct PageList {
    pub pages: Vec<PageSummary>,
    pub total: usize,
    /// Pass as `cursor` for the rest; absent when this is the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A page with its outline, or a slice of it: the only place its block ids appear.
#[derive(Debug, Serialize)]
pub struct PageRead {
    pub slug: String,
    pub meta: PageMeta,
    pub outline: Vec<OutlineNode>,
    /// Where the next slice starts, when this one was cut short.
    #[serde(flatten)]
    pub cut: Option<Cut>,
}

/// A page as markdown, or a slice of it.
#[derive(Debug, Serialize, ToolFields)]
pub struct PageMarkdown {
    /// As the caller sent it.
    pub slug: String,
    pub md: String,
    /// Where the next slice starts, when this one was cut short.
    pub cut: Option<Cut>,
}

#[derive(Debug, Serialize)]
pub struct PageCreated {
    pub slug: String,
    pub name: String,
    /// The markdown file, relative to the workspace.
    pub file: String,
    /// The page's blocks.
    #[serde(flatten)]
    pub blocks: WrittenIds,
}

/// The most block ids a write reply lists: past it, only the top-level blocks' are listed.
pub const MAX_LISTED_IDS: usize = 200;

/// The ids of the blocks a write made, in the order of the markdown's bullets (a block, then
/// its children); past [`MAX_LISTED_IDS`], those of the top-level blocks only, and how many
/// blocks there are in all (`outl_block_tree` on each lists the rest).
#[derive(Debug, Serialize)]
pub struct WrittenIds {
    pub ids: Vec<String>,
    /// How many blocks the write made, when `ids` lists only the top-level ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids_total: Option<usize>,
}

impl WrittenIds {
    pub fn of(blocks: &[Block]) -> WrittenIds {
        let ids = preorder_ids(blocks);
        if ids.len() <= MAX_LISTED_IDS {
            return WrittenIds {
                ids,
                ids_total: None,
            };
        }
        WrittenIds {
            ids_total: Some(ids.len()),
            ids: blocks.iter().map(|block| block.id.to_string()).collect(),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct PageRenamed {
    /// The new slug.
    pub slug: String,
    pub name: String,
    pub file: String,
    /// Slugs of the other pages whose links to it were rewritten.
    pub rewritten_pages: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct PageDeleted {
    pub slug: String,
    /// Blocks deleted with it, nested ones included.
    pub deleted_blocks: usize,
}

/// What a write of markdown left on a page.
#[derive(Debug, Serialize)]
pub struct PageWritten {
    pub slug: String,
    /// The blocks written.
    #[serde(flatten)]
    pub blocks: WrittenIds,
    /// Ids of blocks the write removed: references to them no longer resolve.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed_ids: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Backlinks {
    /// The linking blocks (page, id, text), or a linking page alone when the link is in its
    /// own properties.
    pub backlinks: Vec<Hit>,
    pub total: usize,
    /// Pass as `cursor` for the rest; absent when this is the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Reconciled {
    pub slug: String,
    /// False when the page was not edited outside outl: nothing to adopt.
    pub reconciled: bool,
    /// Blocks left as they were (moved ones included), each with the id it had.
    pub kept: usize,
    /// Ids of blocks the outside edit changed (text or properties); each keeps its id.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed_ids: Vec<String>,
    /// Ids of blocks the outside edit added.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub new_ids: Vec<String>,
    /// Ids of blocks the outside edit removed: references to them no longer resolve.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed_ids: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// Handlers

/// Pages by slug, each with its name and block count; with `query`, the best matches first.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_page_list(ws: &Workspace, args: PageListArgs) -> Result<PageList, Error> {
    if let Some(query) = &args.query
        && !query.chars().any(char::is_alphanumeric)
    {
        return Err(invalid_arguments(vec![Problem {
            pointer: "/query".into(),
            message: "the query has no word to look for (letters or digits)".into(),
        }]));
    }
    let graph = ws.snapshot();
    let kind = args.kind.unwrap_or_default();
    let prefix = args.prefix.as_deref().map(str::to_lowercase);
    let namespace = args.namespace.as_deref().map(|ns| {
        let ns = slug(ns);
        format!("{}/", ns.trim_end_matches('/'))
    });
    let candidates: Box<dyn Iterator<Item = &Page>> = match &args.query {
        Some(query) => Box::new(graph.pages_named(query).into_iter()),
        None => Box::new(graph.pages()),
    };
    let matching = candidates.filter(|page| {
        let wanted_kind = match kind {
            KindFilter::All => true,
            KindFilter::Page => page.date().is_none(),
            KindFilter::Journal => page.date().is_some(),
        };
        let in_namespace = namespace.as_deref().is_none_or(|ns| {
            page.slug
                .strip_prefix(ns)
                .is_some_and(|rest| !rest.is_empty() && !rest.contains('/'))
        });
        wanted_kind
            && in_namespace
            && prefix
                .as_deref()
                .is_none_or(|prefix| page.slug.starts_with(prefix))
    });
    let slice = paging::slice(matching, args.limit, args.cursor.as_deref())?;
    let details = args.details.unwrap_or(false);
    Ok(PageList {
        pages: slice
            .items
            .into_iter()
            .map(|page| PageSummary {
                slug: page.slug.clone(),
                name: page.name.clone(),
                blocks: page.body.count(),
                file: details.then(|| page.file.clone()),
                updated: details.then(|| outline::timestamp(page.updated)),
            })
            .collect(),
        total: slice.total,
        next_cursor: slice.next_cursor,
    })
}

/// A page: its meta (its name or a journal day's title, and page properties) and its outline.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_page_get(ws: &Workspace, args: PageTreeArgs) -> Result<PageRead, Error> {
    let window = Window::of(args.limit, args.cursor.as_deref(), args.budget)?;
    let graph = ws.snapshot();
    let page = lookup::page(&graph, &args.slug)?;
    let mut read = PageRead {
        slug: page.slug.clone(),
        meta: PageMeta::of(page, graph.config()),
        outline: Vec::new(),
        cut: None,
    };
    let spent = wire_len(&read) + slices::CUT_BYTES;
    (read.outline, read.cut) =
        outline::outline_slice(&page.blocks(), args.depth, window, spent, |_| 0);
    Ok(read)
}

/// A page as markdown to read: block refs replaced by the text they name, `collapsed::` and
/// `id::` left out.
#[tool(
    read_only,
    idempotent,
    payload = markdown(md, cut = cut),
    drops(slug = arg)
)]
pub fn outl_page_render(ws: &Workspace, args: PageSliceArgs) -> Result<PageMarkdown, Error> {
    let window = Window::of(args.limit, args.cursor.as_deref(), args.budget)?;
    let graph = ws.snapshot();
    let page = lookup::page(&graph, &args.slug)?;
    let md = outl_format::serialize(&Document {
        front_matter: page.front_matter.clone(),
        properties: content_properties(&page.properties),
        blocks: page
            .blocks()
            .iter()
            .map(|b| readable_node(&graph, b))
            .collect(),
    });
    Ok(markdown_slice(args.slug, &md, Syntax::Markdown, window))
}

/// Create a page; returns its slug, file and block ids. PAGE_EXISTS if the name is taken, in
/// any case.
#[tool(payload = json)]
pub fn outl_page_create(ws: &Workspace, args: PageCreateArgs) -> Result<PageCreated, Error> {
    create(ws, &args.name, args.md.as_deref().unwrap_or_default())
}

/// Rename a page and its file, and rewrite every `[[link]]`, `#tag`, `tags::` and `alias::`
/// naming it; returns the pages rewritten.
#[tool(payload = json)]
pub fn outl_page_rename(ws: &Workspace, args: PageRenameArgs) -> Result<PageRenamed, Error> {
    // Each linking page's hash before, to tell which ones the rename rewrote.
    let (old_slug, linking) = {
        let graph = ws.snapshot();
        let page = lookup::page(&graph, &args.slug)?;
        let linking: Vec<(String, String)> = graph
            .index()
            .linking_pages(&page.slug)
            .into_iter()
            .filter(|source| *source != page.slug)
            .filter_map(|source| graph.page(source))
            .map(|source| (source.slug.clone(), source.hash.clone()))
            .collect();
        (page.slug.clone(), linking)
    };
    let renamed = ws.rename_page(&old_slug, &args.new_name)?;
    let graph = ws.snapshot();
    let rewritten_pages = linking
        .into_iter()
        .filter(|(source, hash)| graph.page(source).is_some_and(|p| p.hash != *hash))
        .map(|(source, _)| source)
        .collect();
    Ok(PageRenamed {
        slug: renamed.slug,
        name: renamed.name,
        file: renamed.file,
        rewritten_pages,
    })
}

/// Delete a page and its file; links to it stay.
#[tool(destructive, payload = json)]
pub fn outl_page_delete(ws: &Workspace, args: PageRef) -> Result<PageDeleted, Error> {
    let slug = resolved_slug(ws, &args.slug)?;
    let op = ws.delete_page(&slug)?;
    let body = ws.op_body(op.seq)?;
    let deleted_blocks = body
        .pages
        .first()
        .and_then(|change| change.before.as_ref())
        .map_or(0, |before| before.ids.len());
    Ok(PageDeleted {
        slug,
        deleted_blocks,
    })
}

/// Replace a page's whole markdown; blocks whose text is unchanged keep their ids. Returns the
/// ids written and removed.
#[tool(destructive, idempotent, payload = json)]
pub fn outl_page_update(ws: &Workspace, args: PageWriteArgs) -> Result<PageWritten, Error> {
    let slug = resolved_slug(ws, &args.slug)?;
    replace(ws, &slug, &args.md)
}

/// Append markdown blocks to a page; returns their ids.
#[tool(payload = json)]
pub fn outl_page_append(ws: &Workspace, args: PageWriteArgs) -> Result<PageWritten, Error> {
    let slug = resolved_slug(ws, &args.slug)?;
    append(ws, &slug, &args.md)
}

/// The blocks linking to a page (`[[link]]`, `#tag`, `tags::`, an alias), not the page's own,
/// and the pages linking in their properties. Also for a linked page without a file.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_page_backlinks(ws: &Workspace, args: BacklinksArgs) -> Result<Backlinks, Error> {
    let graph = ws.snapshot();
    let targets = match lookup::page(&graph, &args.slug) {
        Ok(page) => {
            let mut targets = vec![page.slug.clone()];
            targets.extend(aliases(&page.properties).iter().map(|a| slug(a)));
            targets
        }
        // A page that only links make (Logseq lists it, with no file) has backlinks too.
        Err(not_found) => {
            let linked = ws.config().link_slug(&args.slug);
            if graph.index().backlinks(&linked).is_empty() {
                return Err(not_found);
            }
            vec![linked]
        }
    };
    let mut seen = BTreeSet::new();
    let holders = targets
        .iter()
        .flat_map(|target| graph.index().backlinks(target))
        .filter(|holder| holder.slug != targets[0] && seen.insert(holder.clone()));
    let slice =
        paging::slice(holders, args.limit, args.cursor.as_deref())?.map(|h| Hit::of(&graph, &h));
    Ok(Backlinks {
        backlinks: slice.items,
        total: slice.total,
        next_cursor: slice.next_cursor,
    })
}

/// Adopt a page file edited outside outl as it is: edited and moved blocks keep their ids, new ones get ids, and outl's writes the file missed are
/// merged back. Returns how many blocks were kept and the ids changed, added and removed.
#[tool(idempotent, payload = json)]
pub fn outl_page_reconcile(ws: &Workspace, args: PageRef) -> Result<Reconciled, Error> {
    let slug = resolved_slug(ws, &args.slug)?;
    let Some(adopted) = ws.reconcile(&slug)? else {
        let kept = ws
            .snapshot()
            .page(&slug)
            .map_or(0, |page| page.body.count());
        return Ok(Reconciled {
            slug,
            reconciled: false,
            kept,
            changed_ids: Vec::new(),
            new_ids: Vec::new(),
            removed_ids: Vec::new(),
        });
    };
    Ok(Reconciled {
        slug,
        reconciled: true,
        kept: adopted.kept,
        changed_ids: adopted.changed,
        new_ids: adopted.added,
        removed_ids: adopted.removed,
    })
}

// ---------------------------------------------------------------------------------------------
// The writes of markdown, shared with import and the journal

/// Creates page `name` from `md` (page properties and blocks).
pub fn create(ws: &Workspace, name: &str, md: &str) -> Result<PageCreated, Error> {
    refuse_lines_front_matter_hides(md, Syntax::Markdown)?;
    let (properties, blocks) = ws.parse_page(md);
    let page = ws.create_page(name, properties, blocks)?;
    Ok(PageCreated {
        blocks: WrittenIds::of(&page.blocks()),
        slug: page.slug,
        name: page.name,
        file: page.file,
    })
}

/// Replaces the content of the page `slug` with `md`, carrying the ids of unchanged blocks.
pub fn replace(ws: &Workspace, slug: &str, md: &str) -> Result<PageWritten, Error> {
    let syntax = text_syntax(ws, slug, md);
    refuse_lines_front_matter_hides(md, syntax)?;
    let (properties, mut blocks) = ws.parse_page_as(syntax, md);
    let (written, removed_ids) = ws
        .edit(OpKind::PageUpdate, &[slug], |pages| {
            let page = &mut pages[0];
            carry_ids(&page.blocks(), &mut blocks);
            let ids = preorder_ids(&blocks);
            let kept: HashSet<&String> = ids.iter().collect();
            let removed: Vec<String> = preorder_ids(&page.blocks())
                .into_iter()
                .filter(|id| !kept.contains(id))
                .collect();
            let written = WrittenIds::of(&blocks);
            page.properties = properties;
            page.body = blocks.into();
            Ok((written, removed))
        })
        .map_err(|e| suggest_if_missing(ws, e))?;
    Ok(PageWritten {
        slug: slug.to_string(),
        blocks: written,
        removed_ids,
    })
}

/// Appends the blocks of `md` to the page `slug` (see [`blocks_to_append`]).
pub fn append(ws: &Workspace, slug: &str, md: &str) -> Result<PageWritten, Error> {
    let blocks = blocks_to_append(ws, md, text_syntax(ws, slug, md))?;
    append_blocks(ws, slug, blocks)
}

/// The syntax `text`, given for the page `slug`, is read in (see [`Syntax::of_text_for`]).
pub fn text_syntax(ws: &Workspace, slug: &str, text: &str) -> Syntax {
    ws.snapshot()
        .page(slug)
        .map_or(Syntax::Markdown, |page| Syntax::of_file(&page.file))
        .of_text_for(text)
}

/// The blocks of `md`, read in `syntax`, with fresh ids, to append to a page:
/// `INVALID_ARGUMENTS` at `/md` when it holds page properties (`key:: value` lines before the
/// first bullet) or no block.
pub fn blocks_to_append(ws: &Workspace, md: &str, syntax: Syntax) -> Result<Vec<Block>, Error> {
    refuse_lines_front_matter_hides(md, syntax)?;
    let (properties, blocks) = ws.parse_page_as(syntax, md);
    if !properties.is_empty() {
        return Err(md_problem(
            "`key:: value` lines before the first bullet are page properties, which cannot be \
             appended: indent them under a bullet, or change page properties with \
             outl_page_update",
        ));
    }
    if blocks.is_empty() {
        return Err(md_problem("no blocks to append: write `- ` bullets"));
    }
    Ok(blocks)
}

/// Appends `blocks` to the page `slug`.
pub fn append_blocks(ws: &Workspace, slug: &str, blocks: Vec<Block>) -> Result<PageWritten, Error> {
    let written = WrittenIds::of(&blocks);
    ws.edit(OpKind::PageAppend, &[slug], |pages| {
        pages[0].blocks_mut().extend(blocks);
        Ok(())
    })
    .map_err(|e| suggest_if_missing(ws, e))?;
    Ok(PageWritten {
        slug: slug.to_string(),
        blocks: written,
        removed_ids: Vec::new(),
    })
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// The slice of the page text `md`, in `syntax`, that `window` holds, the page cut into blocks
/// as its parser reads it.
pub fn markdown_slice(slug: String, md: &str, syntax: Syntax, window: Window) -> PageMarkdown {
    let (_, starts) = syntax.parse_with_starts(md);
    let (sliced, cut) = slices::slice_markdown(md, &starts, window);
    PageMarkdown {
        slug,
        md: sliced.to_owned(),
        cut,
    }
}

/// The slug of the page `name` names, or `PAGE_NOT_FOUND` with suggestions.
fn resolved_slug(ws: &Workspace, name: &str) -> Result<String, Error> {
    let graph = ws.snapshot();
    Ok(lookup::page(&graph, name)?.slug.clone())
}

/// An engine `PAGE_NOT_FOUND` (the page went away between lookup and write) with the
/// suggestions a lookup gives; other errors unchanged.
fn suggest_if_missing(ws: &Workspace, error: Error) -> Error {
    if error.code != outl_workspace::ErrorCode::PageNotFound {
        return error;
    }
    let wanted = error
        .data
        .as_ref()
        .and_then(|data| data.get("slug"))
        .and_then(|slug| slug.as_str())
        .map(str::to_string);
    match wanted {
        Some(wanted) => lookup::page_not_found(&ws.snapshot(), &wanted),
        None => error,
    }
}

/// `INVALID_ARGUMENTS` at `/md` when markdown `md` opens with front matter holding a line that
/// is no page property (`---`, `- a`, `---`): Logseq reads that line as front matter, which
/// gives it no block, and the page written would not have it.
fn refuse_lines_front_matter_hides(md: &str, syntax: Syntax) -> Result<(), Error> {
    let Some(front_matter) = outl_format::split_front_matter(md)
        .0
        .filter(|_| syntax == Syntax::Markdown)
    else {
        return Ok(());
    };
    match outl_format::line_no_property_holds(front_matter) {
        Some((line, text)) => Err(md_problem(&format!(
            "line {line} (`{text}`) is inside front matter, from the `---` first line to the \
             next `---` line, which Logseq reads as page properties, never as blocks: it \
             would be lost. Start the md with a bullet, or give front matter only \
             `key: value` lines"
        ))),
        None => Ok(()),
    }
}

fn md_problem(message: &str) -> Error {
    invalid_arguments(vec![Problem {
        pointer: "/md".into(),
        message: message.into(),
    }])
}

/// Block ids in document order.
pub fn preorder_ids(blocks: &[Block]) -> Vec<String> {
    let mut all = Vec::new();
    for block in blocks {
        block.collect_preorder(&mut all);
    }
    all.into_iter().map(|b| b.id.to_string()).collect()
}

/// A block as a reader sees it: references resolved, structural properties left out.
fn readable_node(graph: &Graph, block: &Block) -> ParsedBlock {
    readable_node_with(graph, block, true)
}

/// [`readable_node`], showing embeds or not. A block that is an embed (`{{embed ((id))}}`,
/// `{{embed [[page]]}}`) shows what it embeds, as Logseq does: the block with its children,
/// or the page's blocks, before its own children. Embeds inside what it shows stay macros, so
/// a page embedding itself is shown twice, not without end.
fn readable_node_with(graph: &Graph, block: &Block, embeds: bool) -> ParsedBlock {
    let mut node = ParsedBlock {
        text: resolve_refs(graph, &block.text, REF_DEPTH),
        properties: content_properties(&block.properties),
        children: Vec::new(),
    };
    match embedded(&block.text).filter(|_| embeds) {
        Some(Embed::Block(id)) => {
            if let Some(at) = graph.block(&id) {
                let shown = readable_node_with(graph, at.block(), false);
                node.text = shown.text;
                node.children = shown.children;
            }
        }
        Some(Embed::Page(name)) => {
            if let Some(page) = graph.resolve(&name) {
                node.children = page
                    .blocks()
                    .iter()
                    .map(|b| readable_node_with(graph, b, false))
                    .collect();
            }
        }
        None => {}
    }
    node.children.extend(
        block
            .children
            .iter()
            .map(|child| readable_node_with(graph, child, embeds)),
    );
    node
}

/// What a block that is only an embed macro embeds.
enum Embed {
    Block(String),
    Page(String),
}

fn embedded(text: &str) -> Option<Embed> {
    let inner = text
        .trim()
        .strip_prefix("{{embed")?
        .strip_suffix("}}")?
        .trim();
    if let Some(id) = inner.strip_prefix("((").and_then(|i| i.strip_suffix("))")) {
        return Some(Embed::Block(id.trim().to_owned()));
    }
    let name = inner.strip_prefix("[[")?.strip_suffix("]]")?;
    Some(Embed::Page(name.trim().to_owned()))
}

/// `text` with each `((id))` replaced by the referenced block's text (its own references
/// resolved `depth - 1` levels further), and `[label](((id)))` by its label. A reference to a
/// missing block stays as written.
fn resolve_refs(graph: &Graph, text: &str, depth: usize) -> String {
    if depth == 0 {
        return text.to_string();
    }
    let tokens = outl_format::tokenize(text);
    if !tokens_have_refs(&tokens) {
        return text.to_string();
    }
    outl_format::source(&resolve_tokens(graph, tokens, depth))
}

fn tokens_have_refs(tokens: &[Token]) -> bool {
    tokens.iter().any(|token| match token {
        Token::Ref { .. } => true,
        Token::Link { url, .. } => is_block_ref(url),
        Token::Bold { children } | Token::Italic { children, .. } => tokens_have_refs(children),
        _ => false,
    })
}

fn resolve_tokens(graph: &Graph, tokens: Vec<Token>, depth: usize) -> Vec<Token> {
    let mut out = Vec::with_capacity(tokens.len());
    for token in tokens {
        match token {
            Token::Ref { id } => match graph.block_alone(&id) {
                Some(block) => out.push(Token::Text {
                    text: resolve_refs(graph, &block.text, depth - 1),
                }),
                None => out.push(Token::Ref { id }),
            },
            Token::Link { children, url } if is_block_ref(&url) => {
                out.extend(resolve_tokens(graph, children, depth));
            }
            Token::Bold { children } => out.push(Token::Bold {
                children: resolve_tokens(graph, children, depth),
            }),
            Token::Italic {
                children,
                underscore,
            } => out.push(Token::Italic {
                children: resolve_tokens(graph, children, depth),
                underscore,
            }),
            Token::Link { children, url } => out.push(Token::Link {
                children: resolve_tokens(graph, children, depth),
                url,
            }),
            other => out.push(other),
        }
    }
    out
}

/// Whether a link target is a block reference, as in `[label](((id)))`.
fn is_block_ref(url: &str) -> bool {
    matches!(outl_format::tokenize(url).as_slice(), [Token::Ref { .. }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        for (file, md) in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, md).unwrap();
        }
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    #[test]
    fn a_write_of_many_blocks_lists_its_top_level_ids_and_counts_them_all() {
        let (_dir, ws) = workspace(&[("pages/p.md", "- first\n")]);
        let few = append(&ws, "p", "- a\n\t- b\n").unwrap();
        assert_eq!((few.blocks.ids.len(), few.blocks.ids_total), (2, None));

        let md: String = (0..150)
            .map(|i| format!("- top {i}\n\t- under {i}\n"))
            .collect();
        let many = append(&ws, "p", &md).unwrap();
        assert_eq!(
            (many.blocks.ids.len(), many.blocks.ids_total),
            (150, Some(300))
        );
        let page = ws.snapshot().page("p").unwrap().clone();
        let top: Vec<String> = page.blocks()[2..]
            .iter()
            .map(|b| b.id.to_string())
            .collect();
        assert_eq!(many.blocks.ids, top);
        let wire = serde_json::to_value(&many).unwrap();
        assert_eq!(wire["ids_total"], 300);
    }

    fn render(ws: &Workspace, slug: &str) -> String {
        let args = PageSliceArgs {
            slug: slug.into(),
            limit: None,
            cursor: None,
            budget: None,
        };
        outl_page_render(ws, args).unwrap().md
    }

    #[test]
    fn render_resolves_refs_through_labels_and_stops_on_cycles() {
        let (_dir, ws) = workspace(&[
            (
                "pages/a.md",
                "- first, see ((b1))\n  id:: a1\n- **bold ((b1))** and [the label](((a1)))\n",
            ),
            (
                "pages/b.md",
                "- second, see ((a1))\n  id:: b1\n- gone: ((nowhere))\n",
            ),
        ]);
        let a = render(&ws, "a");
        // a1 quotes b1, which quotes a1 again: resolution stops after REF_DEPTH levels.
        let first = a.lines().next().unwrap();
        assert!(
            first.starts_with("- first, see second, see first, see "),
            "{a}"
        );
        assert!(
            first.ends_with("((b1))") || first.ends_with("((a1))"),
            "{a}"
        );
        assert!(a.contains("- **bold second, see "), "{a}");
        assert!(a.contains(" and the label\n"), "{a}");
        assert!(!a.contains("id::"), "{a}");
        assert!(render(&ws, "b").contains("- gone: ((nowhere))\n"));
    }

    #[test]
    fn replace_carries_ids_and_reports_removed_ones() {
        let (_dir, ws) = workspace(&[("pages/p.md", "- keep\n- drop\n")]);
        let before = preorder_ids(&ws.snapshot().page("p").unwrap().blocks());
        let written = replace(&ws, "p", "tags:: x\n\n- keep\n").unwrap();
        assert_eq!(written.blocks.ids, [before[0].clone()]);
        assert_eq!(written.removed_ids, [before[1].clone()]);
        let page = ws.snapshot().page("p").unwrap().clone();
        assert_eq!(page.properties.get("tags").map(String::as_str), Some("x"));
        assert_eq!(preorder_ids(&page.blocks()), written.blocks.ids);
    }
}
