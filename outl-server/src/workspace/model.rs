//! The handler-facing model of a workspace: pages made of blocks, each block with its id.

use std::borrow::Cow;

use chrono::NaiveDate;
use compact_str::CompactString;
use serde::{Serialize, Serializer};
use thin_vec::ThinVec;

use super::cache;
use crate::outline::Properties;

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
    /// Page properties: the `key:: value` lines before the first bullet.
    pub properties: Properties,
    #[serde(rename = "blocks")]
    pub body: Blocks,
    /// Last change, unix milliseconds: the file's mtime when read from disk, the op's time when
    /// written by outl.
    pub updated: i64,
    /// Content hash of the file as read (see [`content_hash`](super::content_hash)).
    pub hash: String,
}

/// One bulleted block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    /// Short base32 id minted by outl, or the block's own `id::` property when it has one.
    pub id: CompactString,
    /// Raw text as in the markdown, task marker included, without the property lines.
    pub text: String,
    /// `key:: value` lines under the block's first line, as written (`collapsed::`, `id::` too).
    pub properties: Properties,
    pub children: ThinVec<Block>,
}

impl Page {
    /// The page's blocks, unpacked if the page is packed.
    pub fn blocks(&self) -> Cow<'_, [Block]> {
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

/// The blocks of a page. The pages a graph holds keep them packed, encoded as the cache holds
/// them and compressed with LZ4: a few bytes per block instead of a tree of allocations, which
/// is most of a large workspace's memory (docs/performance.md). A read unpacks them, in
/// microseconds for a typical page; a write works on them open and the graph packs the page
/// it keeps.
#[derive(Clone)]
pub struct Blocks(Form);

#[derive(Clone)]
enum Form {
    Open(ThinVec<Block>),
    Packed {
        /// Blocks in the tree, so that counting them unpacks nothing.
        count: usize,
        bytes: Box<[u8]>,
    },
}

impl Blocks {
    /// The blocks, borrowed when open, unpacked when packed.
    pub fn read(&self) -> Cow<'_, [Block]> {
        match &self.0 {
            Form::Open(blocks) => Cow::Borrowed(blocks),
            Form::Packed { bytes, .. } => Cow::Owned(unpack(bytes)),
        }
    }

    /// The blocks, open for change.
    pub fn open(&mut self) -> &mut ThinVec<Block> {
        if let Form::Packed { bytes, .. } = &self.0 {
            self.0 = Form::Open(unpack(bytes).into());
        }
        match &mut self.0 {
            Form::Open(blocks) => blocks,
            Form::Packed { .. } => unreachable!("opened above"),
        }
    }

    /// The blocks, owned.
    pub fn into_blocks(self) -> ThinVec<Block> {
        match self.0 {
            Form::Open(blocks) => blocks,
            Form::Packed { bytes, .. } => unpack(&bytes).into(),
        }
    }

    /// How many blocks the tree holds, children included.
    pub fn count(&self) -> usize {
        match &self.0 {
            Form::Open(blocks) => count_blocks(blocks),
            Form::Packed { count, .. } => *count,
        }
    }

    /// Packs open blocks (a page without blocks stays as it is: it holds no memory).
    pub(super) fn pack(&mut self) {
        if let Form::Open(blocks) = &self.0
            && !blocks.is_empty()
        {
            self.0 = Form::Packed {
                count: count_blocks(blocks),
                bytes: pack(blocks).into(),
            };
        }
    }

    /// The packed form: the block count and the compressed bytes, empty for no blocks.
    pub(super) fn packed(&self) -> (usize, Cow<'_, [u8]>) {
        match &self.0 {
            Form::Packed { count, bytes } => (*count, Cow::Borrowed(bytes)),
            Form::Open(blocks) if blocks.is_empty() => (0, Cow::Borrowed(&[])),
            Form::Open(blocks) => (count_blocks(blocks), Cow::Owned(pack(blocks))),
        }
    }

    /// The blocks to read one by one, without building the tree: what reading one block of a
    /// page (a search hit, a tag's holder) needs.
    pub fn records(&self) -> BlockRecords {
        let bytes = match &self.0 {
            Form::Open(blocks) => cache::encode_list(blocks),
            Form::Packed { bytes, .. } => decompress(bytes).unwrap_or_default(),
        };
        let starts = cache::block_records(&bytes).unwrap_or_else(|_| {
            tracing::error!("a page's packed blocks do not unpack; it reads as empty");
            Vec::new()
        });
        BlockRecords { bytes, starts }
    }

    #[cfg(test)]
    pub(super) fn is_packed(&self) -> bool {
        matches!(self.0, Form::Packed { .. })
    }

    /// Blocks that [`packed`](Self::packed) gave, taken as they are.
    pub(super) fn from_packed(count: usize, bytes: Box<[u8]>) -> Blocks {
        if bytes.is_empty() {
            Blocks(Form::Open(ThinVec::new()))
        } else {
            Blocks(Form::Packed { count, bytes })
        }
    }
}

fn pack(blocks: &[Block]) -> Vec<u8> {
    lz4_flex::compress_prepend_size(&cache::encode_list(blocks))
}

/// The blocks of packed bytes. Only outl packs them, in memory or in a cache whose checksum
/// held, so they always unpack; were they ever damaged, the page would read as empty and
/// the damage be logged rather than the server stopped.
fn unpack(bytes: &[u8]) -> Vec<Block> {
    decompress(bytes)
        .and_then(|encoded| cache::decode_list(&encoded).ok())
        .unwrap_or_else(|| {
            tracing::error!("a page's packed blocks do not unpack; it reads as empty");
            Vec::new()
        })
}

/// The encoding of packed blocks.
fn decompress(bytes: &[u8]) -> Option<Vec<u8>> {
    // LZ4 expands at most 255 times: a larger size in the prefix is damage, not a reason to
    // allocate it.
    let (size, compressed) = bytes.split_at_checked(4)?;
    let size = u32::from_le_bytes(size.try_into().ok()?) as usize;
    (size <= compressed.len().saturating_mul(255))
        .then(|| lz4_flex::decompress_size_prepended(bytes).ok())
        .flatten()
}

/// A page's blocks read one by one in document order (see [`Blocks::records`]).
pub struct BlockRecords {
    /// The blocks' encoding.
    bytes: Vec<u8>,
    /// Where each block's record starts in it.
    starts: Vec<usize>,
}

impl BlockRecords {
    /// Id and text of the block at `position` in document order.
    pub fn text(&self, position: usize) -> Option<(&str, &str)> {
        cache::block_text_at(&self.bytes, *self.starts.get(position)?).ok()
    }

    /// The block with this id, without its children.
    pub fn block(&self, id: &str) -> Option<Block> {
        let start = self.starts.iter().copied().find(|&start| {
            cache::block_text_at(&self.bytes, start).is_ok_and(|(this, _)| this == id)
        })?;
        cache::block_at(&self.bytes, start).ok()
    }
}

/// How many blocks `blocks` holds, children included.
pub fn count_blocks(blocks: &[Block]) -> usize {
    blocks.iter().map(|b| 1 + count_blocks(&b.children)).sum()
}

impl From<ThinVec<Block>> for Blocks {
    fn from(blocks: ThinVec<Block>) -> Blocks {
        Blocks(Form::Open(blocks))
    }
}

impl From<Vec<Block>> for Blocks {
    fn from(blocks: Vec<Block>) -> Blocks {
        Blocks(Form::Open(blocks.into()))
    }
}

impl PartialEq for Blocks {
    fn eq(&self, other: &Blocks) -> bool {
        self.read() == other.read()
    }
}

impl std::fmt::Debug for Blocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.read().fmt(f)
    }
}

impl Serialize for Blocks {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.read().serialize(serializer)
    }
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
        find_in(self, id, &mut path).map(|block| (path, block))
    }

    fn find_mut(&mut self, id: &str) -> Option<&mut Block> {
        find_in_mut(self, id)
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::workspace::cache::round_trip;

    fn block(id: &str, text: &str, children: Vec<Block>) -> Block {
        let mut properties = Properties::new();
        if text.len() % 2 == 0 {
            properties.insert("key".into(), format!("value of {id}"));
        }
        Block {
            id: id.into(),
            text: text.into(),
            properties,
            children: children.into(),
        }
    }

    fn tree() -> Vec<Block> {
        vec![
            block(
                "a",
                "TODO first [[Page]] #tag",
                vec![block(
                    "b",
                    "",
                    vec![block("c", "ünïcödé ✓\nsecond line", vec![])],
                )],
            ),
            block(
                "0413ebed-3ea9-49e9-8589-fdebde53f482",
                "a user's id",
                vec![],
            ),
        ]
    }

    #[test]
    fn packed_blocks_read_back_as_they_were_and_count_without_unpacking() {
        let open = Blocks::from(tree());
        let mut packed = open.clone();
        packed.pack();
        assert!(matches!(packed.0, Form::Packed { count: 4, .. }));
        assert_eq!(packed.count(), 4);
        assert_eq!(packed.read(), open.read());
        assert_eq!(packed, open);
        assert_eq!(round_trip(&packed), Ok(open.clone()));
        assert_eq!(round_trip(&open), Ok(packed.clone()));
        assert_eq!(packed.clone().into_blocks(), ThinVec::from(tree()));
        packed.open()[0].children[0].text = "changed".into();
        assert!(matches!(packed.0, Form::Open(_)));
        assert_ne!(packed, open);
    }

    #[test]
    fn records_read_each_block_alone_in_document_order() {
        for packed in [false, true] {
            let mut blocks = Blocks::from(tree());
            if packed {
                blocks.pack();
            }
            let records = blocks.records();
            let read = blocks.read();
            let preorder = read.preorder();
            for (position, block) in preorder.iter().enumerate() {
                assert_eq!(
                    records.text(position),
                    Some((block.id.as_str(), block.text.as_str()))
                );
                let alone = records.block(&block.id).unwrap();
                assert_eq!(alone.properties, block.properties);
                assert!(alone.children.is_empty());
            }
            assert_eq!(records.text(preorder.len()), None);
            assert_eq!(records.block("nowhere"), None);
        }
    }

    #[test]
    fn a_page_without_blocks_is_never_packed() {
        let mut empty = Blocks::from(Vec::new());
        empty.pack();
        assert!(matches!(empty.0, Form::Open(_)));
        assert_eq!(empty.packed(), (0, Cow::Borrowed(&[][..])));
        assert_eq!(round_trip(&empty), Ok(empty.clone()));
    }

    #[test]
    fn damaged_packed_bytes_read_as_no_blocks() {
        for bytes in [
            vec![9, 0, 0, 0, 1, 2, 3],
            vec![0xff; 3],
            vec![0xff, 0xff, 0xff, 0xff, 0],
        ] {
            let damaged = Blocks::from_packed(1, bytes.into());
            assert!(damaged.read().is_empty());
        }
    }

    fn any_tree() -> impl Strategy<Value = Vec<Block>> {
        let leaf = ("[a-z0-9]{6}", ".{0,40}").prop_map(|(id, text)| block(&id, &text, vec![]));
        let node = leaf.prop_recursive(4, 32, 4, |inner| {
            ("[a-z0-9]{6}", ".{0,40}", prop::collection::vec(inner, 0..4))
                .prop_map(|(id, text, children)| block(&id, &text, children))
        });
        prop::collection::vec(node, 0..6)
    }

    proptest! {
        #[test]
        fn any_tree_packs_and_unpacks_unchanged(blocks in any_tree()) {
            let mut packed = Blocks::from(blocks.clone());
            packed.pack();
            prop_assert_eq!(packed.count(), count_blocks(&blocks));
            prop_assert_eq!(&*packed.read(), &blocks[..]);
            let records = packed.records();
            for (position, block) in blocks.preorder().into_iter().enumerate() {
                prop_assert_eq!(records.text(position), Some((block.id.as_str(), block.text.as_str())));
            }
        }
    }
}
