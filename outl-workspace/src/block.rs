//! One bulleted block with its id (its own when its `id::` property gives one), and finding
//! blocks in a tree of them (a page's, or a block's children).

use std::borrow::Cow;

use compact_str::CompactString;
use serde::Serialize;
use thin_vec::ThinVec;

use super::ids::{ID_PROPERTY, is_uuid, served_id};
use outl_format::Properties;

/// One bulleted block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    /// Short decimal id minted by outl, or the block's own `id::` property when it has one.
    pub id: CompactString,
    /// Raw text as in the markdown, task marker included, without the property lines.
    pub text: String,
    /// `key:: value` lines under the block's first line, as written (`collapsed::`, `id::` too).
    pub properties: Properties,
    pub children: ThinVec<Block>,
}

/// How many blocks `blocks` holds, children included.
pub fn count_blocks(blocks: &[Block]) -> usize {
    blocks.iter().map(|b| 1 + count_blocks(&b.children)).sum()
}

/// The `id::` property of a block, if it has a usable one, as the block is served by it (see
/// [`served_id`]).
pub fn user_id(block: &Block) -> Option<Cow<'_, str>> {
    block
        .properties
        .get(ID_PROPERTY)
        .map(|id| id.trim())
        .filter(|id| !id.is_empty() && !id.chars().any(|c| c.is_whitespace() || c.is_control()))
        .map(served_id)
}

/// The UUID `id::` a block served as `id` has on disk, if its id is a UUID's.
pub fn on_disk_uuid<'b>(block: &'b Block, id: &str) -> Option<&'b str> {
    let uuid = block.properties.get(ID_PROPERTY)?.trim();
    (is_uuid(uuid) && served_id(uuid) == id).then_some(uuid)
}

/// Finding blocks in a tree of blocks (a page's, or a block's children).
pub trait BlockList {
    /// The block with this id, and its path of child indexes from the top level.
    fn find(&self, id: &str) -> Option<(Vec<usize>, &Block)>;
    /// Mutable access to the block with this id.
    fn find_mut(&mut self, id: &str) -> Option<&mut Block>;
    /// The block at a path of child indexes from the top level (as [`find`](Self::find)
    /// gives it).
    fn at(&self, path: &[usize]) -> Option<&Block>;
    /// Every block in document (pre-)order.
    fn preorder(&self) -> Vec<&Block>;
}

impl BlockList for [Block] {
    fn find(&self, id: &str) -> Option<(Vec<usize>, &Block)> {
        let mut path = Vec::new();
        find_in(self, &served_id(id), &mut path).map(|block| (path, block))
    }

    fn find_mut(&mut self, id: &str) -> Option<&mut Block> {
        find_in_mut(self, &served_id(id))
    }

    fn at(&self, path: &[usize]) -> Option<&Block> {
        let (first, rest) = path.split_first()?;
        rest.iter()
            .try_fold(self.get(*first)?, |block, &i| block.children.get(i))
    }

    fn preorder(&self) -> Vec<&Block> {
        let mut out = Vec::new();
        for block in self {
            block.collect_preorder(&mut out);
        }
        out
    }
}

impl Block {
    /// A block of this id and text, without properties or children.
    pub fn new(id: impl Into<CompactString>, text: impl Into<String>) -> Block {
        Block {
            id: id.into(),
            text: text.into(),
            properties: Properties::new(),
            children: ThinVec::new(),
        }
    }

    /// This block and its descendants in document (pre-)order.
    pub fn collect_preorder<'a>(&'a self, out: &mut Vec<&'a Block>) {
        out.push(self);
        for child in &self.children {
            child.collect_preorder(out);
        }
    }
}

fn find_in<'a>(blocks: &'a [Block], id: &str, path: &mut Vec<usize>) -> Option<&'a Block> {
    for (i, block) in blocks.iter().enumerate() {
        path.push(i);
        if block.id == id {
            return Some(block);
        }
        if let Some(found) = find_in(&block.children, id, path) {
            return Some(found);
        }
        path.pop();
    }
    None
}

fn find_in_mut<'a>(blocks: &'a mut [Block], id: &str) -> Option<&'a mut Block> {
    for block in blocks {
        if block.id == id {
            return Some(block);
        }
        if let Some(found) = find_in_mut(&mut block.children, id) {
            return Some(found);
        }
    }
    None
}
