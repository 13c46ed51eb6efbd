//! A page's markdown and parser AST out, and markdown in.

use outl_macros::{ToolFields, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::lookup;
use super::outline::stored_markdown;
use super::pages::{self, PageMarkdown, PageSliceArgs};
use super::slices::{self, Cut, SliceNode, Visit, Window};
use super::wire_len;
use crate::MAX_MARKDOWN_CHARS;
use outl_format::{MAX_DEPTH, ParsedBlock, Properties, Syntax};
use outl_workspace::Error;
use outl_workspace::Workspace;

/// What an import does with the page it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImportMode {
    Create,
    Replace,
    Append,
}

/// Markdown to bring into a page.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct ImportArgs {
    /// A page, or the new page's name (case kept).
    pub name: String,
    #[schemars(length(max = MAX_MARKDOWN_CHARS))]
    pub md: String,
    /// `create` (PAGE_EXISTS if it exists), `replace` (unchanged blocks keep their ids) or
    /// `append`; the last two create a missing page.
    pub mode: ImportMode,
}

#[derive(Debug, Serialize)]
pub struct Imported {
    pub slug: String,
    /// Whether the import created the page.
    pub created: bool,
    /// The blocks written.
    #[serde(flatten)]
    pub blocks: pages::WrittenIds,
    /// Ids of blocks a `replace` removed: references to them no longer resolve.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed_ids: Vec<String>,
}

/// A page parsed into the outline format's AST, or a slice of it: the AST's own fields, and
/// where a cut slice continues.
#[derive(Debug, Serialize)]
pub struct ExportedDocument {
    pub properties: Properties,
    pub blocks: Vec<ExportedNode>,
    /// Where the next slice starts, when this one was cut short.
    #[serde(flatten)]
    pub cut: Option<Cut>,
}

/// One block of the parser AST in an export: its fields, and on a block that tops a slice
/// without its parent, the parent's position in document order (the number a cursor is).
#[derive(Debug, Serialize)]
pub struct ExportedNode {
    pub text: String,
    pub properties: Properties,
    pub children: Vec<ExportedNode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
}

impl SliceNode for ExportedNode {
    fn adopt(&mut self, child: Self) {
        self.children.push(child);
    }

    /// The parser AST is never pruned: its JSON holds its `children`, empty or not.
    fn adoption_bytes(&self) -> usize {
        0
    }
}

/// A page's markdown exactly as its file holds it; its slices, joined, are the file.
#[tool(
    read_only,
    idempotent,
    payload = markdown(md, cut = cut),
    drops(slug = arg)
)]
pub fn outl_export_md(ws: &Workspace, args: PageSliceArgs) -> Result<PageMarkdown, Error> {
    let window = Window::of(args.limit, args.cursor.as_deref(), args.budget)?;
    let page = lookup::page(&ws.snapshot(), &args.slug)?.clone();
    let md = stored_markdown(ws, &page)?;
    let syntax = Syntax::of_file(&page.file);
    Ok(pages::markdown_slice(args.slug, &md, syntax, window))
}

/// A page as the parser's AST: `{properties, blocks}`, each block `{text, properties,
/// children}`, task marker in the text, no ids: a slice's `parent` is a position.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_export_json(ws: &Workspace, args: PageSliceArgs) -> Result<ExportedDocument, Error> {
    let window = Window::of(args.limit, args.cursor.as_deref(), args.budget)?;
    let page = lookup::page(&ws.snapshot(), &args.slug)?.clone();
    let document = Syntax::of_file(&page.file).parse(&stored_markdown(ws, &page)?);
    let mut exported = ExportedDocument {
        properties: document.properties,
        blocks: Vec::new(),
        cut: None,
    };
    let spent = wire_len(&exported) + slices::CUT_BYTES;
    let node = |visit: Visit<'_, ParsedBlock>| ExportedNode {
        text: visit.block.text.clone(),
        properties: visit.block.properties.clone(),
        children: Vec::new(),
        parent: visit.parent.map(|(_, position)| position),
    };
    (exported.blocks, exported.cut) =
        slices::slice_tree(&document.blocks, MAX_DEPTH, window, spent, node, |_| 0);
    Ok(exported)
}

/// Bring markdown into a page by name: create it, replace its content, or append to it (page
/// properties are refused then). Returns its slug, whether it was created, and the ids written.
#[tool(destructive, payload = json)]
pub fn outl_import_md(ws: &Workspace, args: ImportArgs) -> Result<Imported, Error> {
    let existing = ws.snapshot().resolve(&args.name).map(|p| p.slug.clone());
    let written = match (args.mode, existing) {
        (ImportMode::Replace, Some(slug)) => pages::replace(ws, &slug, &args.md)?,
        (ImportMode::Append, Some(slug)) => pages::append(ws, &slug, &args.md)?,
        // A name that exists makes `create` fail with PAGE_EXISTS, as it should.
        (_, _) => {
            let created = pages::create(ws, &args.name, &args.md)?;
            return Ok(Imported {
                slug: created.slug,
                created: true,
                blocks: created.blocks,
                removed_ids: Vec::new(),
            });
        }
    };
    Ok(Imported {
        slug: written.slug,
        created: false,
        blocks: written.blocks,
        removed_ids: written.removed_ids,
    })
}
