//! The handler-facing model of a workspace: pages made of blocks, each block with its id.

use super::ids::served_id;
use chrono::NaiveDate;
use compact_str::CompactString;
use serde::Serialize;
use thin_vec::ThinVec;

pub use super::packed::{Blocks, BlocksRead};
use outl_format::Properties;

/// A page or a journal day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PageKind {
    Page,
    Journal { date: NaiveDate },
}

/// One page as read from disk, with the ids of its blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page {
    /// The lowercased name: how the page is addressed (see the slug rule in the module docs).
    pub slug: String,
    /// The name as written: `title::` if the page has one, else derived from the file name.
    pub name: String,
    pub kind: PageKind,
    /// Path of the markdown file relative to the workspace root, `/`-separated.
    pub file: String,
    /// The YAML front matter the file starts with, as written (its keys are in `properties`).
    pub front_matter: Option<String>,
    /// Page properties: the front matter's keys and the `key:: value` lines before the first
    /// bullet.
    pub properties: Properties,
    #[serde(rename = "blocks")]
    pub body: Blocks,
    /// The UUIDs the file's `((refs))` name, by the short id the texts hold instead (see
    /// [`served_id`]); a write puts each back.
    #[serde(skip)]
    pub ref_uuids: ThinVec<(CompactString, String)>,
    /// Last change, unix milliseconds: the file's mtime when read from disk, the op's time when
    /// written by outl.
    pub updated: i64,
    /// Content hash of the file as read (see [`content_hash`](super::content_hash)).
    pub hash: String,
}

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

impl Page {
    /// The page's blocks, unpacked if the page is packed.
    pub fn blocks(&self) -> BlocksRead<'_> {
        self.body.read()
    }

    /// The page's blocks, to change: a packed page is unpacked for good.
    pub fn blocks_mut(&mut self) -> &mut ThinVec<Block> {
        self.body.open()
    }

    /// The journal date, for a journal page.
    pub fn date(&self) -> Option<NaiveDate> {
        match self.kind {
            PageKind::Journal { date } => Some(date),
            PageKind::Page => None,
        }
    }
}

/// How many blocks `blocks` holds, children included.
pub fn count_blocks(blocks: &[Block]) -> usize {
    blocks.iter().map(|b| 1 + count_blocks(&b.children)).sum()
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
