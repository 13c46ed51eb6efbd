//! A page's blocks as the graph holds them: packed, that is encoded as the cache holds them
//! and compressed with LZ4. A few bytes per block instead of a tree of allocations, which is
//! most of a large workspace's memory (docs/performance.md).
//!
//! The encoding is a record per block in document order (see [`Records`]), cut into chunks of
//! about [`CHUNK`] bytes at block boundaries, each compressed on its own, so that one block (a
//! search hit, a tag's holder) is read by decompressing its chunk alone. A read of the whole page unpacks it into a tree shared with
//! the [`Unpacked`] cache, so that a page read again soon (a model reads a page, then its
//! blocks) is not unpacked again. A write works on the blocks open, and the graph packs the
//! page it keeps.
//!
//! Packed bytes: the chunk count, then for each chunk the document position of its first
//! block and its compressed length (`u32` little-endian each), then the chunks, each LZ4 with
//! its size before it.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Serialize, Serializer};
use thin_vec::ThinVec;

use super::block::{Block, BlockList, count_blocks};
use super::codec::{self, Corrupt, Decoder, Persist, persist_fields};

/// The blocks of a page.
#[derive(Clone)]
pub struct Blocks(Form);

#[derive(Clone)]
enum Form {
    Open(ThinVec<Block>),
    Packed {
        /// Blocks in the tree, so that counting them unpacks nothing.
        count: usize,
        /// Names these bytes in the [`Unpacked`] cache: given once per packing, never reused.
        key: u64,
        bytes: Box<[u8]>,
    },
}

/// A page's blocks as read: borrowed from open blocks, or unpacked and shared with the cache.
pub enum BlocksRead<'a> {
    Open(&'a [Block]),
    Unpacked(Arc<[Block]>),
}

impl Deref for BlocksRead<'_> {
    type Target = [Block];

    fn deref(&self) -> &[Block] {
        match self {
            BlocksRead::Open(blocks) => blocks,
            BlocksRead::Unpacked(blocks) => blocks,
        }
    }
}

impl Blocks {
    /// The blocks, borrowed when open, unpacked when packed.
    pub fn read(&self) -> BlocksRead<'_> {
        match &self.0 {
            Form::Open(blocks) => BlocksRead::Open(blocks),
            Form::Packed { key, bytes, .. } => BlocksRead::Unpacked(unpack_shared(*key, bytes)),
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

    /// The block at `position` in document order, without its children: only its chunk is
    /// decompressed.
    pub fn block_at(&self, position: usize) -> Option<Block> {
        BlockReader::new(self).block_at(position)
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
                key: next_key(),
                bytes: pack(blocks).into(),
            };
        }
    }

    /// The packed form: the block count and the compressed bytes, empty for no blocks.
    pub(super) fn packed(&self) -> (usize, Cow<'_, [u8]>) {
        match &self.0 {
            Form::Packed { count, bytes, .. } => (*count, Cow::Borrowed(bytes)),
            Form::Open(blocks) if blocks.is_empty() => (0, Cow::Borrowed(&[])),
            Form::Open(blocks) => (count_blocks(blocks), Cow::Owned(pack(blocks))),
        }
    }

    /// Blocks that [`packed`](Self::packed) gave, taken as they are.
    pub(super) fn from_packed(count: usize, bytes: Box<[u8]>) -> Blocks {
        if bytes.is_empty() {
            Blocks(Form::Open(ThinVec::new()))
        } else {
            Blocks(Form::Packed {
                count,
                key: next_key(),
                bytes,
            })
        }
    }

    #[cfg(test)]
    pub(super) fn is_packed(&self) -> bool {
        matches!(self.0, Form::Packed { .. })
    }
}

/// Reads a page's blocks one at a time by position, keeping the chunk it read last
/// decompressed: positions asked in document order (a phrase's candidates) decompress each
/// chunk once.
pub struct BlockReader<'a> {
    blocks: &'a Blocks,
    chunk: Option<Chunk>,
}

/// A chunk decompressed, and where reading it has got to.
struct Chunk {
    /// The positions of its blocks.
    positions: std::ops::Range<usize>,
    encoded: Vec<u8>,
    /// Where its first record starts (after the list's count, in the first chunk).
    start: usize,
    /// The position of the record at `offset`, the next one to read.
    position: usize,
    offset: usize,
}

impl<'a> BlockReader<'a> {
    pub fn new(blocks: &'a Blocks) -> BlockReader<'a> {
        BlockReader {
            blocks,
            chunk: None,
        }
    }

    /// The block at `position` in document order, without its children.
    pub fn block_at(&mut self, position: usize) -> Option<Block> {
        let bytes = match &self.blocks.0 {
            Form::Open(blocks) => {
                return blocks.preorder().get(position).map(|block| Block {
                    id: block.id.clone(),
                    text: block.text.clone(),
                    properties: block.properties.clone(),
                    children: ThinVec::new(),
                });
            }
            Form::Packed { bytes, .. } => bytes,
        };
        if !self
            .chunk
            .as_ref()
            .is_some_and(|chunk| chunk.positions.contains(&position))
        {
            let chunks = chunks(bytes)?;
            let at = chunks
                .partition_point(|&(first, _)| first <= position)
                .checked_sub(1)?;
            let (first, compressed) = chunks[at];
            let end = chunks.get(at + 1).map_or(usize::MAX, |&(next, _)| next);
            let encoded = decompress(compressed)?;
            let start = if first == 0 {
                encoded.len() - Records::of_list(&encoded).ok()?.left()
            } else {
                0
            };
            self.chunk = Some(Chunk {
                positions: first..end,
                encoded,
                start,
                position: first,
                offset: start,
            });
        }
        let chunk = self.chunk.as_mut()?;
        if position < chunk.position {
            (chunk.position, chunk.offset) = (chunk.positions.start, chunk.start);
        }
        let mut records = Records::from_record(chunk.encoded.get(chunk.offset..)?);
        for _ in chunk.position..position {
            records.skip().ok()?;
        }
        let block = records.next_block().ok()?;
        chunk.position = position + 1;
        chunk.offset = chunk.encoded.len() - records.left();
        Some(block)
    }
}

// `Records` reads this layout one record at a time.
persist_fields!(Block {
    id,
    text,
    properties,
    children
});

/// The blocks of a list [`encode_list`](codec::encode_list) wrote, read one record at a time.
/// A block's record (id, text, properties, the count of its children) comes right before its
/// children's, so the records follow each other in document order, and reading them from any
/// record on needs no tree.
struct Records<'a> {
    input: Decoder<'a>,
}

impl<'a> Records<'a> {
    /// The records of a whole list: `bytes` starts with the list's count.
    fn of_list(bytes: &'a [u8]) -> Result<Records<'a>, Corrupt> {
        let mut input = Decoder::new(bytes);
        input.take_len()?;
        Ok(Records { input })
    }

    /// The records from one on: `bytes` starts where a record does.
    fn from_record(bytes: &'a [u8]) -> Records<'a> {
        Records {
            input: Decoder::new(bytes),
        }
    }

    /// Bytes left after the records read so far.
    fn left(&self) -> usize {
        self.input.rest().len()
    }

    /// The next block, without its children.
    fn next_block(&mut self) -> Result<Block, Corrupt> {
        let block = Block {
            id: Persist::take(&mut self.input)?,
            text: Persist::take(&mut self.input)?,
            properties: Persist::take(&mut self.input)?,
            children: ThinVec::new(),
        };
        self.skip_children_count()?;
        Ok(block)
    }

    /// Passes the next record over.
    fn skip(&mut self) -> Result<(), Corrupt> {
        self.input.take_counted()?;
        self.input.take_counted()?;
        for _ in 0..self.input.take_len()? {
            self.input.take_counted()?;
            self.input.take_counted()?;
        }
        self.skip_children_count()
    }

    /// The children's records follow, maybe past the end of these bytes (a chunk of them):
    /// their count is not checked against what is left.
    fn skip_children_count(&mut self) -> Result<(), Corrupt> {
        usize::take(&mut self.input).map(drop)
    }
}

fn next_key() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Bytes of the encoding per chunk: a block is read by decompressing a few kilobytes, and
/// LZ4 still finds most of the repeats it would in the whole page.
const CHUNK: usize = 4096;

fn pack(blocks: &[Block]) -> Vec<u8> {
    let encoded = codec::encode_list(blocks);
    // (position of the first block, where the chunk starts in the encoding)
    let mut starts = vec![(0, 0)];
    if let Ok(mut records) = Records::of_list(&encoded) {
        let mut position = 0;
        while records.left() > 0 && records.skip().is_ok() {
            position += 1;
            let at = encoded.len() - records.left();
            if records.left() > 0 && at - starts[starts.len() - 1].1 >= CHUNK {
                starts.push((position, at));
            }
        }
    }
    let ends = starts
        .iter()
        .skip(1)
        .map(|&(_, at)| at)
        .chain([encoded.len()]);
    let chunks: Vec<(u32, Vec<u8>)> = starts
        .iter()
        .zip(ends)
        .map(|(&(first, start), end)| {
            let compressed = lz4_flex::compress_prepend_size(&encoded[start..end]);
            (first as u32, compressed)
        })
        .collect();
    let mut out = Vec::with_capacity(4 + chunks.iter().map(|(_, c)| 8 + c.len()).sum::<usize>());
    out.extend_from_slice(&(chunks.len() as u32).to_le_bytes());
    for (first, compressed) in &chunks {
        out.extend_from_slice(&first.to_le_bytes());
        out.extend_from_slice(&(compressed.len() as u32).to_le_bytes());
    }
    for (_, compressed) in chunks {
        out.extend_from_slice(&compressed);
    }
    out
}

/// The chunks of packed bytes: the position of each one's first block, and its compressed
/// bytes. `None` when the header does not hold.
fn chunks(bytes: &[u8]) -> Option<Vec<(usize, &[u8])>> {
    let u32_at = |at: usize| {
        let word = bytes.get(at..at + 4)?;
        Some(u32::from_le_bytes(word.try_into().ok()?) as usize)
    };
    let count = u32_at(0)?;
    let mut data = bytes.get(4usize.checked_add(count.checked_mul(8)?)?..)?;
    (0..count)
        .map(|i| {
            let (first, len) = (u32_at(4 + 8 * i)?, u32_at(8 + 8 * i)?);
            let (chunk, rest) = data.split_at_checked(len)?;
            data = rest;
            Some((first, chunk))
        })
        .collect()
}

/// A chunk's encoding. LZ4 expands at most 255 times: a larger size before a chunk is damage,
/// not a reason to allocate it.
fn decompress(chunk: &[u8]) -> Option<Vec<u8>> {
    let (size, compressed) = chunk.split_at_checked(4)?;
    let size = u32::from_le_bytes(size.try_into().ok()?) as usize;
    (size <= compressed.len().saturating_mul(255))
        .then(|| lz4_flex::decompress_size_prepended(chunk).ok())
        .flatten()
}

/// The blocks of packed bytes. Only outl packs them, in memory or in a cache whose checksum
/// held, so they always unpack; were they ever damaged, the page would read as empty and
/// the damage be logged rather than the server stopped.
fn unpack(bytes: &[u8]) -> Vec<Block> {
    let encoded = chunks(bytes).and_then(|chunks| {
        let mut encoded = Vec::new();
        for (_, chunk) in chunks {
            encoded.extend(decompress(chunk)?);
        }
        Some(encoded)
    });
    encoded
        .and_then(|encoded| codec::decode_list(&encoded).ok())
        .unwrap_or_else(|| {
            tracing::error!("a page's packed blocks do not unpack; it reads as empty");
            Vec::new()
        })
}

/// The blocks packed as `key`, from the cache or unpacked into it.
fn unpack_shared(key: u64, bytes: &[u8]) -> Arc<[Block]> {
    if let Some(blocks) = UNPACKED.lock().unwrap_or_else(|e| e.into_inner()).get(key) {
        return blocks;
    }
    // Unpacked outside the lock: two readers of one page may both unpack it, and neither
    // waits for the other.
    let blocks: Arc<[Block]> = unpack(bytes).into();
    UNPACKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .put(key, bytes.len(), blocks.clone());
    blocks
}

/// Packed bytes whose unpacked trees the cache keeps at most, counted compressed: about
/// 10 MiB of trees for the workspaces `outl-bench gen` writes.
const UNPACKED_BUDGET: usize = 2 << 20;

/// The pages read last, unpacked, least recently used first out.
static UNPACKED: Mutex<Unpacked> = Mutex::new(Unpacked {
    entries: VecDeque::new(),
    cost: 0,
});

struct Unpacked {
    /// Most recently used first: key, packed size, tree.
    entries: VecDeque<(u64, usize, Arc<[Block]>)>,
    /// The packed sizes of the entries, summed.
    cost: usize,
}

impl Unpacked {
    fn get(&mut self, key: u64) -> Option<Arc<[Block]>> {
        let at = self.entries.iter().position(|entry| entry.0 == key)?;
        let entry = self.entries.remove(at)?;
        let blocks = entry.2.clone();
        self.entries.push_front(entry);
        Some(blocks)
    }

    fn put(&mut self, key: u64, cost: usize, blocks: Arc<[Block]>) {
        // A page larger than a quarter of the budget would push out all the rest.
        if cost > UNPACKED_BUDGET / 4 || self.entries.iter().any(|entry| entry.0 == key) {
            return;
        }
        self.cost += cost;
        self.entries.push_front((key, cost, blocks));
        while self.cost > UNPACKED_BUDGET {
            let Some((_, cost, _)) = self.entries.pop_back() else {
                break;
            };
            self.cost -= cost;
        }
    }
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
        *self.read() == *other.read()
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::BlockList;
    use crate::codec::round_trip;
    use outl_format::Properties;

    fn block(id: &str, text: &str, children: Vec<Block>) -> Block {
        let mut properties = Properties::new();
        if text.len().is_multiple_of(2) {
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

    fn packed(blocks: Vec<Block>) -> Blocks {
        let mut packed = Blocks::from(blocks);
        packed.pack();
        packed
    }

    #[test]
    fn packed_blocks_read_back_as_they_were_and_count_without_unpacking() {
        let open = Blocks::from(tree());
        let mut packed = packed(tree());
        assert!(matches!(packed.0, Form::Packed { count: 4, .. }));
        assert_eq!(packed.count(), 4);
        assert_eq!(*packed.read(), *open.read());
        assert_eq!(packed, open);
        assert_eq!(round_trip(&packed), Ok(open.clone()));
        assert_eq!(round_trip(&open), Ok(packed.clone()));
        packed.open()[0].children[0].text = "changed".into();
        assert!(matches!(packed.0, Form::Open(_)));
        assert_ne!(packed, open);
    }

    #[test]
    fn a_page_of_many_chunks_reads_whole_and_block_by_block() {
        let blocks: Vec<Block> = (0..120)
            .map(|i| {
                let text = format!("block {i} {}", "with some words ".repeat(i % 9));
                let children = (0..i % 4)
                    .map(|j| block(&format!("c{i}x{j}"), &format!("child {j} of {i}"), vec![]))
                    .collect();
                block(&format!("b{i}"), &text, children)
            })
            .collect();
        let packed = packed(blocks.clone());
        let Form::Packed { bytes, .. } = &packed.0 else {
            panic!("packed");
        };
        assert!(chunks(bytes).unwrap().len() > 3, "several chunks");
        assert_eq!(*packed.read(), blocks[..]);
        let preorder = blocks.preorder();
        for (position, block) in preorder.iter().enumerate() {
            let alone = packed.block_at(position).unwrap();
            assert_eq!((&alone.id, &alone.text), (&block.id, &block.text));
        }
        assert_eq!(packed.block_at(preorder.len()), None);
        // One reader, asked forwards, backwards and across chunks.
        let mut reader = BlockReader::new(&packed);
        let order = (0..preorder.len())
            .chain((0..preorder.len()).rev())
            .step_by(3);
        for position in order.chain([5, 4, 200, 3, 3]) {
            let read = reader.block_at(position).unwrap();
            assert_eq!(read.id, preorder[position].id, "position {position}");
        }
    }

    #[test]
    fn a_page_read_again_shares_its_unpacked_tree_and_a_repacked_one_does_not() {
        let mut page = packed(tree());
        let (BlocksRead::Unpacked(first), BlocksRead::Unpacked(again)) = (page.read(), page.read())
        else {
            panic!("a packed page reads unpacked");
        };
        assert!(Arc::ptr_eq(&first, &again));
        page.open()[0].text = "edited".into();
        page.pack();
        let edited = page.read();
        assert_eq!(edited[0].text, "edited");
        assert!(!std::ptr::eq(&edited[0], &first[0]));
    }

    #[test]
    fn the_unpacked_cache_keeps_its_budget_most_recent_first() {
        let mut cache = Unpacked {
            entries: VecDeque::new(),
            cost: 0,
        };
        let tree: Arc<[Block]> = tree().into();
        let quarter = UNPACKED_BUDGET / 4;
        for key in 0..5 {
            cache.put(key, quarter, tree.clone());
        }
        assert_eq!(cache.cost, UNPACKED_BUDGET);
        assert!(cache.get(0).is_none(), "the least recently used went first");
        assert!(cache.get(1).is_some());
        cache.put(5, quarter, tree.clone());
        assert!(
            cache.get(1).is_some() && cache.get(2).is_none(),
            "1 was used since"
        );
        cache.put(6, quarter + 1, tree.clone());
        assert!(cache.get(6).is_none(), "too large to keep");
        assert_eq!(cache.cost, UNPACKED_BUDGET);
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
        let chunk = |header: [u8; 8], data: &[u8]| [&[1, 0, 0, 0], &header[..], data].concat();
        for bytes in [
            vec![0xff; 3],
            vec![0xff, 0xff, 0xff, 0xff, 0],
            chunk([0, 0, 0, 0, 7, 0, 0, 0], &[9, 0, 0, 0, 1, 2, 3]),
            chunk([0, 0, 0, 0, 5, 0, 0, 0], &[0xff, 0xff, 0xff, 0xff, 0]),
            chunk([0, 0, 0, 0, 9, 0, 0, 0], &[1, 2]),
        ] {
            let damaged = Blocks::from_packed(1, bytes.into());
            assert!(damaged.read().is_empty());
            assert_eq!(damaged.block_at(0), None);
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
            let packed = packed(blocks.clone());
            prop_assert_eq!(packed.count(), count_blocks(&blocks));
            prop_assert_eq!(&*packed.read(), &blocks[..]);
            let preorder = blocks.preorder();
            for (position, block) in preorder.iter().enumerate() {
                let alone = packed.block_at(position).expect("every position reads");
                prop_assert_eq!(&alone.id, &block.id);
                prop_assert_eq!(&alone.text, &block.text);
                prop_assert_eq!(&alone.properties, &block.properties);
            }
            prop_assert_eq!(packed.block_at(preorder.len()), None);
        }
    }
}
