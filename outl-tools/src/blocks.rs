//! Block tools: read a block or its subtree, write one block at a time (text, place, task
//! state, properties, folding), and find the blocks that refer to one.
//!
//! Every write returns something small to chain on (the block's id and page, and what
//! changed), never the page. Each is one op in the log: `outl_undo` reverts it.

use std::borrow::Cow;

use outl_macros::{ToolFields, tool};
use outl_registry::{Problem, invalid_arguments};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use super::lookup;
use super::outline::{OutlineNode, outline_slice};
use super::paging;
use super::query::Hit;
use super::slices::{self, Cut, Window};
use super::wire_len;
use crate::{MAX_TEXT_CHARS, one_of_words};
use outl_format::{self as outline, MAX_DEPTH, Properties, Syntax, TaskMarker};
use outl_workspace::{Block, BlockList, Graph, OpKind, Page, Place, Workspace, served_id};
use outl_workspace::{Error, ErrorCode};

/// The property that folds a block.
const COLLAPSED: &str = "collapsed";
/// The property that pins a block's id (outl keeps ids itself).
const ID: &str = "id";

// ---------------------------------------------------------------------------------------------
// Arguments

/// One block.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct BlockRef {
    pub id: String,
}

/// A block, how deep to read below it, and which slice of its subtree.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct BlockTreeArgs {
    pub id: String,
    /// Levels; 1: the block alone.
    #[schemars(range(min = 1))]
    pub depth: Option<u32>,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
    #[schemars(range(min = 1))]
    pub budget: Option<u32>,
}

/// A new block and where it goes.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct InsertArgs {
    /// Its text; later lines, `- ` ones too, stay in it. Properties: outl_block_property_set.
    #[schemars(length(max = MAX_TEXT_CHARS))]
    pub text: String,
    /// Last child of this block.
    pub parent_id: Option<String>,
    /// Right after this block.
    pub after_id: Option<String>,
    /// At the end of this page.
    pub page: Option<String>,
}

/// A block and its new text.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct UpdateArgs {
    pub id: String,
    /// The new text.
    #[schemars(length(max = MAX_TEXT_CHARS))]
    pub text: String,
}

/// A block and where it goes.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct MoveArgs {
    pub id: String,
    /// Last child of this block.
    pub parent_id: Option<String>,
    /// Right after this block.
    pub after_id: Option<String>,
    /// At the end of this page.
    pub page: Option<String>,
}

/// A task state, in the spelling to write, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum TaskState {
    #[serde(rename = "none")]
    None,
    #[serde(untagged)]
    Marker(TaskMarker),
}

impl TaskState {
    fn marker(self) -> Option<TaskMarker> {
        match self {
            TaskState::Marker(marker) => Some(marker),
            TaskState::None => None,
        }
    }
}

/// The markers, then `none`.
impl JsonSchema for TaskState {
    fn schema_name() -> Cow<'static, str> {
        "TaskState".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        one_of_words(
            TaskMarker::ALL
                .map(TaskMarker::as_str)
                .into_iter()
                .chain(["none"]),
        )
    }
}

/// A block and its task state.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct TodoArgs {
    pub id: String,
    /// The state; `none` makes a plain block.
    pub state: TaskState,
}

/// A block property to set.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PropertySetArgs {
    pub id: String,
    /// Letters, digits, `_`, `-`, `.`; not `id`.
    pub key: String,
    /// One line; its links and tags link.
    #[schemars(length(max = MAX_TEXT_CHARS))]
    pub value: String,
}

/// A block property to remove.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct PropertyRemoveArgs {
    pub id: String,
    /// The key, in any case.
    pub key: String,
}

/// A block to fold or unfold.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct CollapseArgs {
    pub id: String,
    /// true folds, false unfolds.
    pub collapsed: bool,
}

/// A block whose references to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct RefsArgs {
    pub id: String,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Outputs

/// A block read alone.
#[derive(Debug, Serialize)]
pub struct BlockRead {
    /// The page's slug.
    pub page: String,
    /// The parent block's id; absent at the page's top level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The block, its children counted in `children_omitted`.
    pub block: OutlineNode,
}

/// A block with its subtree, or a slice of it.
#[derive(Debug, Serialize)]
pub struct BlockTree {
    /// The page's slug.
    pub page: String,
    /// The block and its subtree, as far as the slice reaches; absent in later slices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<OutlineNode>,
    /// A later slice's blocks, each one at its top naming its `parent`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outline: Vec<OutlineNode>,
    /// Where the next slice starts, when this one was cut short.
    #[serde(flatten)]
    pub cut: Option<Cut>,
}

/// Where a written block now is.
#[derive(Debug, Serialize)]
pub struct Placed {
    pub id: String,
    /// The page's slug.
    pub page: String,
    /// The parent block's id; absent at the page's top level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// A block whose text was written.
#[derive(Debug, Serialize)]
pub struct Written {
    pub id: String,
    /// The page's slug.
    pub page: String,
}

/// What a delete removed.
#[derive(Debug, Serialize)]
pub struct Deleted {
    /// The page's slug.
    pub page: String,
    /// Blocks deleted: the block and its descendants.
    pub deleted: usize,
}

/// A block's task state after the write.
#[derive(Debug, Serialize)]
pub struct TaskSet {
    pub id: String,
    /// The page's slug.
    pub page: String,
    /// The marker the text now starts with; null for a plain block.
    pub todo: Option<TaskMarker>,
}

/// A block's properties after the write.
#[derive(Debug, Serialize)]
pub struct PropertiesSet {
    pub id: String,
    /// The page's slug.
    pub page: String,
    /// Every property of the block, as written.
    pub properties: Properties,
}

/// A block's properties after a removal.
#[derive(Debug, Serialize)]
pub struct PropertyRemoved {
    pub id: String,
    /// The page's slug.
    pub page: String,
    /// Whether the block had the property (false: nothing was written).
    pub removed: bool,
    /// Every property of the block, as written.
    pub properties: Properties,
}

/// A block's folding after the write.
#[derive(Debug, Serialize)]
pub struct Folded {
    pub id: String,
    /// The page's slug.
    pub page: String,
    pub collapsed: bool,
}

/// Blocks referring to a block.
#[derive(Debug, Serialize)]
pub struct Refs {
    pub id: String,
    /// Blocks containing `((id))`, by page and document order.
    pub refs: Vec<Hit>,
    pub total: usize,
    /// Pass as `cursor` for more; absent at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Reads

/// One block: its text, task state, properties, number of children, page and parent.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_block_get(ws: &Workspace, args: BlockRef) -> Result<BlockRead, Error> {
    let graph = ws.snapshot();
    let at = lookup::block(&graph, &args.id)?;
    Ok(BlockRead {
        page: at.page.slug.clone(),
        parent: parent_id(at.page, &args.id),
        block: OutlineNode::of(at.block(), 1),
    })
}

/// A block and its subtree; a later slice comes in `outline` instead of `tree`.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_block_tree(ws: &Workspace, args: BlockTreeArgs) -> Result<BlockTree, Error> {
    let window = Window::of(args.limit, args.cursor.as_deref(), args.budget)?;
    let graph = ws.snapshot();
    let at = lookup::block(&graph, &args.id)?;
    let mut tree = BlockTree {
        page: at.page.slug.clone(),
        tree: None,
        outline: Vec::new(),
        cut: None,
    };
    let spent = wire_len(&tree) + slices::CUT_BYTES;
    let block = std::slice::from_ref(at.block());
    let (mut nodes, cut) = outline_slice(block, args.depth, window, spent, |_| 0);
    tree.cut = cut;
    if window.start == 0 {
        tree.tree = nodes.pop();
    } else {
        tree.outline = nodes;
    }
    Ok(tree)
}

/// The blocks referring to a block by `((id))`.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_block_refs(ws: &Workspace, args: RefsArgs) -> Result<Refs, Error> {
    let graph = ws.snapshot();
    lookup::page_of_block(&graph, &args.id)?;
    // A UUID names the block by the short id it is served by.
    let id = served_id(&args.id).into_owned();
    let holders = graph.index().block_refs(&id);
    let slice =
        paging::slice(&holders, args.limit, args.cursor.as_deref())?.map(|h| Hit::of(&graph, h));
    Ok(Refs {
        id,
        refs: slice.items,
        total: slice.total,
        next_cursor: slice.next_cursor,
    })
}

// ---------------------------------------------------------------------------------------------
// Writes

/// Add a block where one of `parent_id`, `after_id` and `page` says; returns its id.
#[tool(payload = json)]
pub fn outl_block_insert(ws: &Workspace, args: InsertArgs) -> Result<Placed, Error> {
    let (slug, anchor) = destination(
        &ws.snapshot(),
        args.parent_id.as_deref(),
        args.after_id.as_deref(),
        args.page.as_deref(),
    )?;
    let syntax = ws
        .snapshot()
        .page(&slug)
        .map_or(Syntax::Markdown, |page| Syntax::of_file(&page.file));
    let block = new_block(ws, &args.text, syntax)?;
    let id = block.id.clone();
    ws.edit(OpKind::BlockInsert, &[&slug], |pages| {
        let page = &mut pages[0];
        put(page, &anchor, block)?;
        placed(page, &id)
    })
}

/// Replace a block's text. Its children, properties and, unless the new text gives its own,
/// task marker, planning and logbook stay.
#[tool(destructive, idempotent, payload = json)]
pub fn outl_block_update(ws: &Workspace, args: UpdateArgs) -> Result<Written, Error> {
    edit_block(ws, OpKind::BlockUpdate, &args.id, |page, block| {
        let text = match outline::task_marker(&args.text) {
            Some(_) => Cow::Borrowed(args.text.as_str()),
            None => {
                let kept = outline::task_marker(&block.text).map(|(marker, _)| marker);
                Cow::Owned(outline::set_task_marker(&args.text, kept))
            }
        };
        block.text = outline::keep_planning(&text, &block.text).into_owned();
        Ok(Written {
            id: block.id.to_string(),
            page: page.to_string(),
        })
    })
}

/// Delete a block and its children; returns how many.
#[tool(destructive, payload = json)]
pub fn outl_block_delete(ws: &Workspace, args: BlockRef) -> Result<Deleted, Error> {
    let slug = page_of(ws, &args.id)?;
    ws.edit(OpKind::BlockDelete, &[&slug], |pages| {
        let page = &mut pages[0];
        let block = page
            .take_block(&args.id)
            .ok_or_else(|| lookup::block_not_found(&args.id))?;
        Ok(Deleted {
            page: page.slug.clone(),
            deleted: block.subtree_len(),
        })
    })
}

/// Move a block and its children, on any page, to where one of `parent_id`, `after_id` and
/// `page` says.
#[tool(payload = json)]
pub fn outl_block_move(ws: &Workspace, args: MoveArgs) -> Result<Placed, Error> {
    let (from, (to, anchor)) = {
        let graph = ws.snapshot();
        let from = lookup::page_of_block(&graph, &args.id)?.to_string();
        let destination = destination(
            &graph,
            args.parent_id.as_deref(),
            args.after_id.as_deref(),
            args.page.as_deref(),
        )?;
        (from, destination)
    };
    let slugs: Vec<&str> = if from == to {
        vec![&from]
    } else {
        vec![&from, &to]
    };
    // The destination is the last page of the edit (the only one when it is the source).
    let target = slugs.len() - 1;
    ws.edit(OpKind::BlockMove, &slugs, |pages| {
        let block = pages[0]
            .take_block(&args.id)
            .ok_or_else(|| lookup::block_not_found(&args.id))?;
        if let Some((field, anchor_id)) = anchor.block_id()
            && block.contains(anchor_id)
        {
            return Err(invalid_arguments(vec![Problem {
                pointer: format!("/{field}"),
                message: format!(
                    "{} is the moved block or one of its descendants: a block cannot move under \
                     or after itself",
                    outl_workspace::quoted(anchor_id)
                ),
            }]));
        }
        let target = &mut pages[target];
        put(target, &anchor, block)?;
        placed(target, &args.id)
    })
}

/// Make a block the last child of the block above it.
#[tool(payload = json)]
pub fn outl_block_indent(ws: &Workspace, args: BlockRef) -> Result<Placed, Error> {
    let slug = page_of(ws, &args.id)?;
    ws.edit(OpKind::BlockIndent, &[&slug], |pages| {
        let page = &mut pages[0];
        let (mut path, _) = page
            .blocks()
            .find(&args.id)
            .ok_or_else(|| lookup::block_not_found(&args.id))?;
        let Some(last) = path.last_mut().filter(|last| **last > 0) else {
            return Err(not_possible(
                "the block is the first of its siblings: there is no block above it to indent \
                 it under",
            ));
        };
        *last -= 1;
        let previous = page
            .blocks()
            .at(&path)
            .map(|b| b.id.to_string())
            .ok_or_else(|| lookup::block_not_found(&args.id))?;
        let block = page
            .take_block(&args.id)
            .ok_or_else(|| lookup::block_not_found(&args.id))?;
        put(page, &Anchor::LastChildOf(previous), block)?;
        placed(page, &args.id)
    })
}

/// Move a block out of its parent to right after it; its later siblings stay.
#[tool(payload = json)]
pub fn outl_block_outdent(ws: &Workspace, args: BlockRef) -> Result<Placed, Error> {
    let slug = page_of(ws, &args.id)?;
    ws.edit(OpKind::BlockOutdent, &[&slug], |pages| {
        let page = &mut pages[0];
        let parent =
            parent_id(page, &args.id).ok_or_else(|| match page.blocks().find(&args.id) {
                Some(_) => not_possible("the block is already at the page's top level"),
                None => lookup::block_not_found(&args.id),
            })?;
        let block = page
            .take_block(&args.id)
            .ok_or_else(|| lookup::block_not_found(&args.id))?;
        put(page, &Anchor::After(parent), block)?;
        placed(page, &args.id)
    })
}

/// Set a block's task state (DONE ticks it), the rest of its text kept.
#[tool(idempotent, payload = json)]
pub fn outl_block_todo(ws: &Workspace, args: TodoArgs) -> Result<TaskSet, Error> {
    let marker = args.state.marker();
    edit_block(ws, OpKind::BlockTodo, &args.id, |page, block| {
        block.text = outline::set_task_marker(&block.text, marker);
        Ok(TaskSet {
            id: block.id.to_string(),
            page: page.to_string(),
            todo: marker,
        })
    })
}

/// Set a block's property `key:: value`, replacing its value.
#[tool(destructive, idempotent, payload = json)]
pub fn outl_block_property_set(
    ws: &Workspace,
    args: PropertySetArgs,
) -> Result<PropertiesSet, Error> {
    let value = args.value.trim_matches([' ', '\t']);
    let mut problems = Vec::new();
    if !outline::is_property_key(&args.key) {
        problems.push(Problem {
            pointer: "/key".into(),
            message: format!(
                "{} is not a property key: use letters, digits, `_`, `-` and `.`",
                outl_workspace::quoted(&args.key)
            ),
        });
    } else if args.key.eq_ignore_ascii_case(ID) {
        problems.push(Problem {
            pointer: "/key".into(),
            message: "a block's id is kept by outl and cannot be set".into(),
        });
    }
    if !outline::is_property_value(value) {
        problems.push(Problem {
            pointer: "/value".into(),
            message: "a property value is one line".into(),
        });
    }
    if !problems.is_empty() {
        return Err(invalid_arguments(problems));
    }
    edit_block(ws, OpKind::BlockPropertySet, &args.id, |page, block| {
        set_property(&mut block.properties, &args.key, Some(value));
        Ok(PropertiesSet {
            id: block.id.to_string(),
            page: page.to_string(),
            properties: block.properties.clone(),
        })
    })
}

/// Remove a property from a block, if it has it.
#[tool(destructive, idempotent, payload = json)]
pub fn outl_block_property_remove(
    ws: &Workspace,
    args: PropertyRemoveArgs,
) -> Result<PropertyRemoved, Error> {
    edit_block(ws, OpKind::BlockPropertyRemove, &args.id, |page, block| {
        let removed = set_property(&mut block.properties, &args.key, None);
        Ok(PropertyRemoved {
            id: block.id.to_string(),
            page: page.to_string(),
            removed,
            properties: block.properties.clone(),
        })
    })
}

/// Fold or unfold a block (`collapsed:: true`).
#[tool(idempotent, payload = json)]
pub fn outl_block_collapse(ws: &Workspace, args: CollapseArgs) -> Result<Folded, Error> {
    edit_block(ws, OpKind::BlockCollapse, &args.id, |page, block| {
        let value = args.collapsed.then_some("true");
        set_property(&mut block.properties, COLLAPSED, value);
        Ok(Folded {
            id: block.id.to_string(),
            page: page.to_string(),
            collapsed: args.collapsed,
        })
    })
}

// ---------------------------------------------------------------------------------------------
// Helpers

/// Where a block goes, owning the ids it names (a [`Place`] borrows them).
#[derive(Debug)]
enum Anchor {
    LastChildOf(String),
    After(String),
    End,
}

impl Anchor {
    fn place(&self) -> Place<'_> {
        match self {
            Anchor::LastChildOf(id) => Place::LastChildOf(id),
            Anchor::After(id) => Place::After(id),
            Anchor::End => Place::End,
        }
    }

    /// The argument that named the anchor block, and its id.
    fn block_id(&self) -> Option<(&'static str, &str)> {
        match self {
            Anchor::LastChildOf(id) => Some(("parent_id", id)),
            Anchor::After(id) => Some(("after_id", id)),
            Anchor::End => None,
        }
    }
}

/// The page slug and the place named by exactly one of `parent_id`, `after_id` and `page`.
fn destination(
    graph: &Graph,
    parent_id: Option<&str>,
    after_id: Option<&str>,
    page: Option<&str>,
) -> Result<(String, Anchor), Error> {
    let given: Vec<&str> = [
        ("parent_id", parent_id),
        ("after_id", after_id),
        ("page", page),
    ]
    .into_iter()
    .filter_map(|(name, value)| value.map(|_| name))
    .collect();
    match (parent_id, after_id, page) {
        (Some(id), None, None) => Ok((
            lookup::page_of_block(graph, id)?.to_string(),
            Anchor::LastChildOf(id.to_string()),
        )),
        (None, Some(id), None) => Ok((
            lookup::page_of_block(graph, id)?.to_string(),
            Anchor::After(id.to_string()),
        )),
        (None, None, Some(name)) => Ok((lookup::page(graph, name)?.slug.clone(), Anchor::End)),
        (None, None, None) => Err(invalid_arguments(vec![Problem {
            pointer: String::new(),
            message: "say where the block goes: give one of parent_id, after_id or page".into(),
        }])),
        _ => Err(invalid_arguments(
            given
                .iter()
                .map(|name| Problem {
                    pointer: format!("/{name}"),
                    message: format!(
                        "give only one of parent_id, after_id and page (got {})",
                        given.join(", ")
                    ),
                })
                .collect(),
        )),
    }
}

/// Puts `block` at `anchor` on `page`: `BLOCK_NOT_FOUND` when the anchor block is no longer
/// there.
fn put(page: &mut Page, anchor: &Anchor, block: Block) -> Result<(), Error> {
    // Only an anchor block can be missing: the end of a page is always there.
    page.put_block(anchor.place(), block)
        .map_err(|_| lookup::block_not_found(anchor.block_id().map_or("", |(_, id)| id)))
}

/// The block's place after a write; `INVALID_ARGUMENTS` when the write would nest blocks
/// deeper than outl keeps them.
fn placed(page: &Page, id: &str) -> Result<Placed, Error> {
    let blocks = page.blocks();
    let (path, block) = blocks.find(id).ok_or_else(|| lookup::block_not_found(id))?;
    if path.len() + height(block) - 1 > MAX_DEPTH {
        return Err(not_possible(&format!(
            "this would nest blocks deeper than {MAX_DEPTH} levels"
        )));
    }
    Ok(Placed {
        id: id.to_string(),
        page: page.slug.clone(),
        parent: parent_id(page, id),
    })
}

/// Levels in a block's subtree, the block included.
fn height(block: &Block) -> usize {
    1 + block.children.iter().map(height).max().unwrap_or(0)
}

/// The id of the block's parent; `None` at the top level (or when it is not on the page).
fn parent_id(page: &Page, id: &str) -> Option<String> {
    let blocks = page.blocks();
    let (path, _) = blocks.find(id)?;
    let parent = path.split_last().map(|(_, up)| up)?;
    blocks.at(parent).map(|b| b.id.to_string())
}

/// The slug of the page holding the block.
fn page_of(ws: &Workspace, id: &str) -> Result<String, Error> {
    Ok(lookup::page_of_block(&ws.snapshot(), id)?.to_string())
}

/// One op changing one block in place: `f` gets the page's slug and the block.
fn edit_block<R>(
    ws: &Workspace,
    kind: OpKind,
    id: &str,
    f: impl FnOnce(&str, &mut Block) -> Result<R, Error>,
) -> Result<R, Error> {
    let slug = page_of(ws, id)?;
    ws.edit(kind, &[&slug], |pages| {
        let page = &mut pages[0];
        let slug = page.slug.clone();
        let block = page
            .blocks_mut()
            .find_mut(id)
            .ok_or_else(|| lookup::block_not_found(id))?;
        f(&slug, block)
    })
}

/// A block with `text` exactly as the page will hold it, and a fresh id. Rendering then
/// parsing applies the format's normalisation and escapes, so the text stays one block; a text
/// Logseq would read as structure in a page of `syntax` is refused before it is normalised
/// away.
fn new_block(ws: &Workspace, text: &str, syntax: Syntax) -> Result<Block, Error> {
    if let Some(misread) = outl_format::misread_line(syntax, text, None) {
        return Err(outl_workspace::misread_text(text, &misread, ""));
    }
    let draft = Block::new("", text);
    let mut parsed = ws.parse_blocks(&ws.render_blocks(&[draft]));
    match (parsed.pop(), parsed.is_empty()) {
        (Some(block), true) => Ok(block),
        _ => Err(Error::new(
            ErrorCode::Internal,
            "the block's markdown did not read back as one block",
        )),
    }
}

/// Sets (`Some`) or removes (`None`) a property, matching the key in any case and keeping its
/// place; returns whether the key was there.
fn set_property(properties: &mut Properties, key: &str, value: Option<&str>) -> bool {
    let existing = properties.keys().position(|k| k.eq_ignore_ascii_case(key));
    match (existing, value) {
        (Some(at), Some(value)) => {
            if let Some((_, v)) = properties.get_index_mut(at) {
                *v = value.to_string();
            }
            true
        }
        (Some(at), None) => {
            properties.shift_remove_index(at);
            true
        }
        (None, Some(value)) => {
            properties.insert(key.to_string(), value.to_string());
            false
        }
        (None, None) => false,
    }
}

/// `INVALID_ARGUMENTS` about the block `id` names: the request cannot be done where it is.
fn not_possible(why: &str) -> Error {
    invalid_arguments(vec![Problem {
        pointer: "/id".into(),
        message: why.to_string(),
    }])
}
