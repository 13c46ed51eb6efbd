//! Between the outline format (`outl_format`) and the workspace model: markdown to blocks
//! and back.

use outl_format::{self as outline, Document, Former, ParsedBlock, Properties, Syntax};

use std::borrow::Cow;
use std::collections::HashMap;

use compact_str::CompactString;
use thin_vec::ThinVec;

use super::block::Block;
use super::ids;

/// A page file's content: its front matter as written, its page properties (the front
/// matter's included) and its blocks (ids empty).
pub struct Parsed {
    pub front_matter: Option<String>,
    pub properties: Properties,
    pub blocks: Vec<Block>,
    /// The UUIDs the texts' `((refs))` name, by the short id they are served as.
    pub ref_uuids: ThinVec<(CompactString, String)>,
}

/// A page's content in `syntax`.
pub fn parse_as(syntax: Syntax, text: &str) -> Parsed {
    let doc = syntax.parse(text);
    let mut ref_uuids = ThinVec::new();
    let blocks = doc
        .blocks
        .into_iter()
        .map(|node| block_of(node, &mut ref_uuids))
        .collect();
    Parsed {
        front_matter: doc.front_matter,
        properties: doc.properties,
        blocks,
        ref_uuids,
    }
}

/// The block of a parsed node, each `((uuid))` of its text served as the short id of the
/// block it names (noted in `ref_uuids`, so that a write gives the file its UUID back).
fn block_of(node: ParsedBlock, ref_uuids: &mut ThinVec<(CompactString, String)>) -> Block {
    let mut text = node.text;
    if outline::may_ref(&text) {
        let mut seen = Vec::new();
        if let Cow::Owned(mapped) = outline::map_block_refs(&text, &|id| {
            ids::is_uuid(id).then(|| ids::served_id(id).into_owned())
        }) {
            seen.extend(
                outline::block_refs(&text)
                    .into_iter()
                    .filter(|id| ids::is_uuid(id)),
            );
            text = mapped;
        }
        for uuid in seen {
            let short = CompactString::from(ids::served_id(&uuid).as_ref());
            if !ref_uuids.iter().any(|(known, _)| *known == short) {
                ref_uuids.push((short, uuid));
            }
        }
    }
    Block {
        id: Default::default(),
        text,
        properties: node.properties,
        children: node
            .children
            .into_iter()
            .map(|child| block_of(child, ref_uuids))
            .collect(),
    }
}

/// Gives the on-disk id of a block served by a short one: the UUID of its `id::`, for the
/// `((ref))`s that name it. `None` keeps the id as it is.
pub type RefsOnDisk<'a> = &'a dyn Fn(&str) -> Option<String>;

fn node_of(block: &Block, refs_on_disk: RefsOnDisk<'_>) -> ParsedBlock {
    ParsedBlock {
        text: outline::map_block_refs(&block.text, refs_on_disk).into_owned(),
        properties: block.properties.clone(),
        children: block
            .children
            .iter()
            .map(|child| node_of(child, refs_on_disk))
            .collect(),
    }
}

/// The markdown of a page: its front matter (as written, but for the values that changed),
/// its other properties, then its blocks, each `((ref))` as `refs_on_disk` gives it. Ids are
/// never written.
pub fn render(
    front_matter: Option<&str>,
    properties: &Properties,
    blocks: &[Block],
    refs_on_disk: RefsOnDisk<'_>,
) -> String {
    outline::serialize(&document(front_matter, properties, blocks, refs_on_disk))
}

/// [`render`] over the text the page had, `original` in `syntax`, whose blocks were `before`:
/// a block that keeps its id, its depth, its text and its properties keeps its lines byte for
/// byte, and the rest is written in the file's style and syntax (see
/// [`outline::serialize_over`]).
pub fn render_over(
    syntax: Syntax,
    original: &str,
    before: &[Block],
    front_matter: Option<&str>,
    properties: &Properties,
    blocks: &[Block],
    refs_on_disk: RefsOnDisk<'_>,
) -> String {
    let (_, starts) = syntax.parse_with_starts(original);
    let old = with_depths(before);
    // The page as held must be the file's blocks one for one, or no line can be matched.
    let by_id: HashMap<&str, (usize, usize, &Block)> = if old.len() == starts.len() {
        old.iter()
            .enumerate()
            .filter(|(_, (_, block))| !block.id.is_empty())
            .map(|(k, &(depth, block))| (block.id.as_str(), (k, depth, block)))
            .collect()
    } else {
        HashMap::new()
    };
    let formers: Vec<Former> = with_depths(blocks)
        .into_iter()
        .map(|(depth, block)| match by_id.get(block.id.as_str()) {
            Some(&(k, old_depth, old))
                if old_depth == depth
                    && old.text == block.text
                    && old.properties == block.properties =>
            {
                Former::Unchanged(k)
            }
            Some(&(k, ..)) => Former::Changed(k),
            None => Former::New,
        })
        .collect();
    outline::serialize_over(
        syntax,
        &document(front_matter, properties, blocks, refs_on_disk),
        original,
        &starts,
        &formers,
    )
}

fn document(
    front_matter: Option<&str>,
    properties: &Properties,
    blocks: &[Block],
    refs_on_disk: RefsOnDisk<'_>,
) -> Document {
    Document {
        front_matter: front_matter.map(str::to_owned),
        properties: properties.clone(),
        blocks: blocks
            .iter()
            .map(|block| node_of(block, refs_on_disk))
            .collect(),
    }
}

/// The blocks in document order, each with its depth (0 at the top level).
fn with_depths(blocks: &[Block]) -> Vec<(usize, &Block)> {
    let mut out = Vec::new();
    let mut stack: Vec<(usize, &Block)> = blocks.iter().rev().map(|b| (0, b)).collect();
    while let Some((depth, block)) = stack.pop() {
        out.push((depth, block));
        stack.extend(block.children.iter().rev().map(|child| (depth + 1, child)));
    }
    out
}
