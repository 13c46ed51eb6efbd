//! Posting lists of the search index, compressed: per term, the blocks that hold it, in
//! increasing block number, each with how often it holds it.
//!
//! A posting is handed out as one `u32`, `block << TF_BITS | count`, the count capped at
//! [`TF_PACKED_MAX`] (the index keeps larger counts beside). A list of up to [`INLINE_MAX`]
//! postings, as most terms have, keeps them in place with no allocation. A longer one is
//! encoded in chunks of at most [`CHUNK_MAX`] postings: each posting is the LEB128 varint of
//! its distance from the previous block shifted left by one, the low bit set when a count
//! byte follows (a count of 1, the usual one, takes none). A chunk's first posting is measured
//! from the chunk's own first block, which a skip table keeps with the chunk's byte offset: a
//! seek skips whole chunks, and a change re-encodes only the chunk it touches.

use std::ops::Range;

use super::codec::{Corrupt, Decoder, Encoder, Persist, persist_fields, put_all};

/// Bits of a posting that hold the count.
pub(super) const TF_BITS: u32 = 4;
/// The largest count a posting holds.
pub(super) const TF_PACKED_MAX: u32 = (1 << TF_BITS) - 1;
/// Postings a list holds in place before it is encoded: as many as fit beside the length in
/// the size of an encoded list's handle.
const INLINE_MAX: usize = 5;
/// Postings in a chunk at most; a chunk that grows past it is split in two.
const CHUNK_MAX: usize = 64;

pub(super) fn posting_block(posting: u32) -> u32 {
    posting >> TF_BITS
}

fn posting_tf(posting: u32) -> u32 {
    posting & TF_PACKED_MAX
}

/// One term's postings.
#[derive(Debug)]
pub(super) enum Postings {
    Inline {
        len: u8,
        postings: [u32; INLINE_MAX],
    },
    Encoded(Box<Encoded>),
}

impl Default for Postings {
    fn default() -> Self {
        Postings::Inline {
            len: 0,
            postings: [0; INLINE_MAX],
        }
    }
}

impl Postings {
    /// An empty list with room for what `extent` counted, so that adding those postings in
    /// that order allocates nothing more.
    pub(super) fn with_extent(extent: &Extent) -> Postings {
        if extent.len <= INLINE_MAX {
            return Postings::default();
        }
        Postings::Encoded(Box::new(Encoded {
            first: 0,
            len: 0,
            last: 0,
            last_at: 0,
            tail_len: 0,
            skips: Vec::with_capacity(extent.chunks.saturating_sub(1)),
            bytes: Vec::with_capacity(extent.bytes),
        }))
    }

    /// Postings in the list (the term's document frequency).
    pub(super) fn len(&self) -> usize {
        match self {
            Postings::Inline { len, .. } => usize::from(*len),
            Postings::Encoded(encoded) => encoded.len as usize,
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Counts one more occurrence in `block`: its posting's count goes up, or a posting with
    /// a count of 1 is added. False, leaving the list as it was, when the count is at
    /// [`TF_PACKED_MAX`] already.
    pub(super) fn count(&mut self, block: u32) -> bool {
        match self {
            Postings::Inline { len, postings } => {
                let held = usize::from(*len);
                match postings[..held].binary_search_by_key(&block, |&p| posting_block(p)) {
                    Ok(at) => increment(&mut postings[at]),
                    Err(at) if held < INLINE_MAX => {
                        postings.copy_within(at..held, at + 1);
                        postings[at] = block << TF_BITS | 1;
                        *len += 1;
                        true
                    }
                    Err(at) => {
                        let mut all = Vec::with_capacity(INLINE_MAX + 1);
                        all.extend_from_slice(&postings[..at]);
                        all.push(block << TF_BITS | 1);
                        all.extend_from_slice(&postings[at..]);
                        *self = Postings::Encoded(Box::new(Encoded::of_sorted(&all)));
                        true
                    }
                }
            }
            Postings::Encoded(encoded) => encoded.count(block),
        }
    }

    /// Removes the posting of `block`, if there is one.
    pub(super) fn remove(&mut self, block: u32) {
        match self {
            Postings::Inline { len, postings } => {
                let held = usize::from(*len);
                if let Ok(at) = postings[..held].binary_search_by_key(&block, |&p| posting_block(p))
                {
                    postings.copy_within(at + 1..held, at);
                    *len -= 1;
                }
            }
            Postings::Encoded(encoded) => {
                encoded.remove(block);
                // Back in place once it fits, as a list built this short would be.
                if encoded.len as usize <= INLINE_MAX {
                    let mut postings = [0; INLINE_MAX];
                    let mut len = 0;
                    for (slot, posting) in postings.iter_mut().zip(self.cursor()) {
                        *slot = posting;
                        len += 1;
                    }
                    *self = Postings::Inline { len, postings };
                }
            }
        }
    }

    /// A cursor at the first posting: an iterator over every posting in block order, that
    /// also seeks.
    pub(super) fn cursor(&self) -> Cursor<'_> {
        match self {
            Postings::Inline { len, postings } => Cursor::Inline(&postings[..usize::from(*len)]),
            Postings::Encoded(encoded) => {
                let mut cursor = EncodedCursor {
                    list: encoded,
                    chunk: 0,
                    postings: [0; CHUNK_MAX],
                    len: 0,
                    at: 0,
                };
                cursor.load(0);
                Cursor::Encoded(cursor)
            }
        }
    }

    pub(super) fn shrink_to_fit(&mut self) {
        if let Postings::Encoded(encoded) = self {
            encoded.skips.shrink_to_fit();
            encoded.bytes.shrink_to_fit();
        }
    }
}

/// Adds one to a posting's count unless it is at the most a posting holds.
fn increment(posting: &mut u32) -> bool {
    if posting_tf(*posting) == TF_PACKED_MAX {
        return false;
    }
    *posting += 1;
    true
}

/// Where a chunk other than the first begins.
#[derive(Debug, Clone, Copy)]
struct Skip {
    first: u32,
    offset: u32,
}

/// Where a block's posting is or would go in a chunk: the block of the posting before it,
/// where its own begins, and the posting after it with where that begins.
struct Slot {
    previous: Option<u32>,
    found: Option<usize>,
    next: Option<(usize, u32)>,
}

#[derive(Debug)]
pub(super) struct Encoded {
    /// The first chunk's first block (the others' are in `skips`).
    first: u32,
    len: u32,
    /// The last posting, and where its bytes begin: adding to the end needs no decoding.
    last: u32,
    last_at: u32,
    /// Postings in the last chunk.
    tail_len: u32,
    /// Per chunk after the first, its first block and where its bytes begin.
    skips: Vec<Skip>,
    bytes: Vec<u8>,
}

impl Encoded {
    fn of_sorted(postings: &[u32]) -> Encoded {
        let mut encoded = Encoded {
            first: 0,
            len: postings.len() as u32,
            last: 0,
            last_at: 0,
            tail_len: 0,
            skips: Vec::new(),
            bytes: Vec::new(),
        };
        encoded.rewrite(0, postings);
        encoded
    }

    fn chunks(&self) -> usize {
        self.skips.len() + 1
    }

    fn chunk_first(&self, chunk: usize) -> u32 {
        match chunk.checked_sub(1) {
            Some(skip) => self.skips[skip].first,
            None => self.first,
        }
    }

    fn chunk_bytes(&self, chunk: usize) -> std::ops::Range<usize> {
        let start = match chunk.checked_sub(1) {
            Some(skip) => self.skips[skip].offset as usize,
            None => 0,
        };
        let end = self
            .skips
            .get(chunk)
            .map_or(self.bytes.len(), |skip| skip.offset as usize);
        start..end
    }

    /// The chunk that holds `block` or would: the last one starting at or before it, else
    /// the first.
    fn chunk_of(&self, block: u32) -> usize {
        self.skips.partition_point(|skip| skip.first <= block)
    }

    /// The postings of `chunk`, each with where its bytes begin.
    fn chunk_postings(&self, chunk: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let range = self.chunk_bytes(chunk);
        let mut at = range.start;
        let mut block = self.chunk_first(chunk);
        std::iter::from_fn(move || {
            if at >= range.end {
                return None;
            }
            let start = at;
            let (delta, tf) = read_posting(&self.bytes, &mut at);
            block += delta;
            Some((start, block << TF_BITS | tf))
        })
    }

    fn decode(&self, chunk: usize) -> Vec<u32> {
        let mut postings = Vec::with_capacity(CHUNK_MAX + 1);
        postings.extend(self.chunk_postings(chunk).map(|(_, p)| p));
        postings
    }

    fn count(&mut self, block: u32) -> bool {
        let last_block = posting_block(self.last);
        if self.len == 0 || block > last_block {
            self.append(block);
            return true;
        }
        if block == last_block {
            return self.increment_at(self.chunks() - 1, self.last_at as usize);
        }
        let chunk = self.chunk_of(block);
        let place = self.place(chunk, block);
        match place.found {
            Some(start) => self.increment_at(chunk, start),
            None => {
                self.insert(chunk, block, place);
                true
            }
        }
    }

    /// Where the posting of `block` is or would go in `chunk`, in one pass over the chunk.
    fn place(&self, chunk: usize, block: u32) -> Slot {
        let mut place = Slot {
            previous: None,
            found: None,
            next: None,
        };
        for (start, p) in self.chunk_postings(chunk) {
            if place.found.is_some() || posting_block(p) > block {
                place.next = Some((start, p));
                break;
            }
            if posting_block(p) == block {
                place.found = Some(start);
            } else {
                place.previous = Some(posting_block(p));
            }
        }
        place
    }

    /// Adds one to the count of the posting that begins at `start` in `chunk`, in place: a
    /// count of 1 gains its count byte, which moves what follows by one. False when the count
    /// is at the most a posting holds.
    fn increment_at(&mut self, chunk: usize, start: usize) -> bool {
        let mut end = start;
        let (_, tf) = read_posting(&self.bytes, &mut end);
        if tf >= TF_PACKED_MAX {
            return false;
        }
        if tf == 1 {
            self.bytes[start] |= 1;
            self.bytes.insert(end, 2);
            for skip in &mut self.skips[chunk..] {
                skip.offset += 1;
            }
            if self.last_at as usize > start {
                self.last_at += 1;
            }
        } else {
            self.bytes[end - 1] += 1;
        }
        if self.last_at as usize == start {
            self.last += 1;
        }
        true
    }

    /// Adds a posting with a count of 1 for `block`, which `chunk` does not hold, at its
    /// `place`, in place: the posting after it is measured from it instead.
    fn insert(&mut self, chunk: usize, block: u32, place: Slot) {
        let end = self.chunk_bytes(chunk).end;
        let mut replacement = Vec::with_capacity(12);
        put_posting(&mut replacement, place.previous.map_or(0, |p| block - p), 1);
        let replaced = match place.next {
            Some((start, p)) => {
                put_posting(&mut replacement, posting_block(p) - block, posting_tf(p));
                start..self.posting_end(start)
            }
            None => end..end,
        };
        self.splice(chunk, replaced, &replacement);
        if place.previous.is_none() {
            self.set_chunk_first(chunk, block);
        }
        self.len += 1;
        // A posting takes a byte at least: a chunk of no more bytes than a chunk's postings
        // needs no count.
        if self.chunk_bytes(chunk).len() > CHUNK_MAX
            && self.chunk_postings(chunk).count() > CHUNK_MAX
        {
            let postings = self.decode(chunk);
            self.rewrite(chunk, &postings);
        } else if chunk + 1 == self.chunks() {
            self.refresh_tail();
        }
    }

    fn posting_end(&self, start: usize) -> usize {
        let mut end = start;
        read_posting(&self.bytes, &mut end);
        end
    }

    fn set_chunk_first(&mut self, chunk: usize, first: u32) {
        match chunk.checked_sub(1) {
            Some(skip) => self.skips[skip].first = first,
            None => self.first = first,
        }
    }

    /// Puts `replacement` in place of `range`, which is inside `chunk`, moving the chunks
    /// after it (and the last posting, when it is in one of them).
    fn splice(&mut self, chunk: usize, range: Range<usize>, replacement: &[u8]) {
        let shift = replacement.len() as i64 - range.len() as i64;
        self.bytes.splice(range, replacement.iter().copied());
        for skip in &mut self.skips[chunk..] {
            skip.offset = (i64::from(skip.offset) + shift) as u32;
        }
        if chunk + 1 < self.chunks() {
            self.last_at = (i64::from(self.last_at) + shift) as u32;
        }
    }

    /// Adds a posting with a count of 1 after the last, in a new chunk when the last is full.
    fn append(&mut self, block: u32) {
        let delta = if self.len == 0 || self.tail_len as usize == CHUNK_MAX {
            if self.len == 0 {
                self.first = block;
            } else {
                self.skips.push(Skip {
                    first: block,
                    offset: self.bytes.len() as u32,
                });
            }
            self.tail_len = 0;
            0
        } else {
            block - posting_block(self.last)
        };
        self.last = block << TF_BITS | 1;
        self.last_at = self.bytes.len() as u32;
        put_posting(&mut self.bytes, delta, 1);
        self.tail_len += 1;
        self.len += 1;
    }

    /// Removes the posting of `block`, if there is one, in place: the posting after it is
    /// measured from the one before instead.
    fn remove(&mut self, block: u32) {
        if self.len == 0 || block > posting_block(self.last) {
            return;
        }
        let chunk = self.chunk_of(block);
        let end = self.chunk_bytes(chunk).end;
        let Slot {
            previous,
            found,
            next,
        } = self.place(chunk, block);
        let Some(start) = found else {
            return;
        };
        let mut replacement = Vec::with_capacity(6);
        let replaced = match next {
            Some((next_start, p)) => {
                let delta = previous.map_or(0, |previous| posting_block(p) - previous);
                put_posting(&mut replacement, delta, posting_tf(p));
                start..self.posting_end(next_start)
            }
            None => start..end,
        };
        self.splice(chunk, replaced, &replacement);
        self.len -= 1;
        match (previous, next) {
            // The chunk is empty: it goes.
            (None, None) => self.rewrite(chunk, &[]),
            (None, Some((_, p))) => self.set_chunk_first(chunk, posting_block(p)),
            (Some(_), _) => {}
        }
        if chunk + 1 == self.chunks() {
            self.refresh_tail();
        }
    }

    /// Replaces the postings of `chunk` with `postings`: one chunk, two halves when they are
    /// more than a chunk holds, or none when they are none.
    fn rewrite(&mut self, chunk: usize, postings: &[u32]) {
        let was_last = chunk + 1 == self.chunks();
        let range = self.chunk_bytes(chunk);
        let mut encoded = Vec::with_capacity(range.len() + 8);
        let mut added = Vec::new();
        if !postings.is_empty() {
            let parts = postings.len().div_ceil(CHUNK_MAX);
            for (k, part) in postings.chunks(postings.len().div_ceil(parts)).enumerate() {
                if k > 0 {
                    added.push(Skip {
                        first: posting_block(part[0]),
                        offset: (range.start + encoded.len()) as u32,
                    });
                }
                encode_chunk(&mut encoded, part);
            }
        }
        self.splice(chunk, range, &encoded);
        match postings.first() {
            Some(&p) => {
                self.set_chunk_first(chunk, posting_block(p));
                // The halves after the first follow the chunk.
                self.skips.splice(chunk..chunk, added);
            }
            None => match chunk.checked_sub(1) {
                Some(skip) => {
                    self.skips.remove(skip);
                }
                None if !self.skips.is_empty() => self.first = self.skips.remove(0).first,
                None => {}
            },
        }
        if was_last {
            self.refresh_tail();
        }
    }

    /// Finds the last posting, where it begins and how many the last chunk holds.
    fn refresh_tail(&mut self) {
        let mut tail_len = 0;
        let mut last = None;
        for posting in self.chunk_postings(self.chunks() - 1) {
            tail_len += 1;
            last = Some(posting);
        }
        self.tail_len = tail_len;
        if let Some((start, posting)) = last {
            self.last_at = start as u32;
            self.last = posting;
        }
    }
}

/// Appends a chunk: its first posting at distance 0 from the chunk's first block.
fn encode_chunk(bytes: &mut Vec<u8>, postings: &[u32]) {
    let mut previous = postings.first().map_or(0, |&p| posting_block(p));
    for &p in postings {
        put_posting(bytes, posting_block(p) - previous, posting_tf(p));
        previous = posting_block(p);
    }
}

fn put_posting(bytes: &mut Vec<u8>, delta: u32, tf: u32) {
    let counted = tf != 1;
    let mut value = delta << 1 | u32::from(counted);
    while value >= 0x80 {
        bytes.push(value as u8 | 0x80);
        value >>= 7;
    }
    bytes.push(value as u8);
    if counted {
        bytes.push(tf as u8);
    }
}

/// Bytes [`put_posting`] writes.
fn posting_size(delta: u32, tf: u32) -> usize {
    let bits = 32 - (delta << 1 | 1).leading_zeros() as usize;
    bits.div_ceil(7) + usize::from(tf != 1)
}

/// The distance and count of the posting at `at`, moving `at` past it.
fn read_posting(bytes: &[u8], at: &mut usize) -> (u32, u32) {
    let mut value = 0;
    let mut shift = 0;
    loop {
        let byte = bytes[*at];
        *at += 1;
        value |= u32::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            break;
        }
        shift += 7;
    }
    if value & 1 == 0 {
        return (value >> 1, 1);
    }
    let tf = bytes[*at];
    *at += 1;
    (value >> 1, u32::from(tf))
}

/// The size of a list, counted occurrence by occurrence in increasing block order before the
/// list is built, so that the list is allocated once at its size: grown by appending, it would
/// leave up to twice its size, memory the allocator keeps.
#[derive(Debug, Default)]
pub(super) struct Extent {
    len: usize,
    chunks: usize,
    bytes: usize,
    tail_len: usize,
    last: u32,
}

impl Extent {
    /// Counts what [`Postings::count`] adds for an occurrence in `block`.
    pub(super) fn count(&mut self, block: u32) {
        let last_block = posting_block(self.last);
        if self.len > 0 && block == last_block {
            if posting_tf(self.last) == 1 {
                self.bytes += 1;
            }
            increment(&mut self.last);
            return;
        }
        let delta = if self.len == 0 || self.tail_len == CHUNK_MAX {
            self.chunks += 1;
            self.tail_len = 0;
            0
        } else {
            // Blocks out of order make the count an estimate.
            block.abs_diff(last_block)
        };
        self.bytes += posting_size(delta, 1);
        self.tail_len += 1;
        self.len += 1;
        self.last = block << TF_BITS | 1;
    }
}

/// A position in a list that moves only forward: an iterator over the postings from it on,
/// and seeks to the first posting at or after a block.
// A cursor lives on the stack for one search: boxing the decoded chunk would cost an
// allocation a list.
#[allow(clippy::large_enum_variant)]
pub(super) enum Cursor<'a> {
    /// The postings from the position on.
    Inline(&'a [u32]),
    Encoded(EncodedCursor<'a>),
}

pub(super) struct EncodedCursor<'a> {
    list: &'a Encoded,
    /// The chunk decoded in `postings`, and the position in it.
    chunk: usize,
    postings: [u32; CHUNK_MAX],
    len: usize,
    at: usize,
}

impl EncodedCursor<'_> {
    /// Moves to the first posting of `chunk`, decoding the chunk at once.
    fn load(&mut self, chunk: usize) {
        let mut len = 0;
        for (slot, (_, posting)) in self
            .postings
            .iter_mut()
            .zip(self.list.chunk_postings(chunk))
        {
            *slot = posting;
            len += 1;
        }
        self.chunk = chunk;
        self.len = len;
        self.at = 0;
    }

    /// Whether there is a posting at the position, moving to the next chunk when this one is
    /// read.
    fn ready(&mut self) -> bool {
        if self.at < self.len {
            return true;
        }
        if self.chunk + 1 >= self.list.chunks() {
            return false;
        }
        // Chunks are never empty.
        self.load(self.chunk + 1);
        true
    }
}

impl Cursor<'_> {
    /// Moves to the first posting of a block at or after `block`, and gives it.
    pub(super) fn seek(&mut self, block: u32) -> Option<u32> {
        match self {
            Cursor::Inline(rest) => {
                let at = rest.partition_point(|&p| posting_block(p) < block);
                *rest = &rest[at..];
                rest.first().copied()
            }
            Cursor::Encoded(cursor) => {
                let later = &cursor.list.skips[cursor.chunk..];
                if later.first().is_some_and(|skip| skip.first <= block) {
                    let skipped = later.partition_point(|skip| skip.first <= block);
                    cursor.load(cursor.chunk + skipped);
                }
                let rest = &cursor.postings[cursor.at..cursor.len];
                cursor.at += rest.partition_point(|&p| posting_block(p) < block);
                // Past this chunk's last, the next chunk's first is past `block` too.
                cursor.ready().then(|| cursor.postings[cursor.at])
            }
        }
    }
}

impl Iterator for Cursor<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self {
            Cursor::Inline(rest) => {
                let (&first, others) = rest.split_first()?;
                *rest = others;
                Some(first)
            }
            Cursor::Encoded(cursor) => {
                if !cursor.ready() {
                    return None;
                }
                cursor.at += 1;
                Some(cursor.postings[cursor.at - 1])
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Saved in the cache

impl Persist for Postings {
    fn put(&self, out: &mut Encoder) {
        match self {
            Postings::Inline { len, postings } => {
                0u8.put(out);
                len.put(out);
                for posting in &postings[..usize::from(*len)] {
                    posting.put(out);
                }
            }
            Postings::Encoded(encoded) => {
                1u8.put(out);
                encoded.first.put(out);
                encoded.len.put(out);
                encoded.last.put(out);
                encoded.last_at.put(out);
                encoded.tail_len.put(out);
                put_all(encoded.skips.iter(), out);
                out.put_bytes(&encoded.bytes);
            }
        }
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        match u8::take(input)? {
            0 => {
                let len = u8::take(input)?;
                let mut postings = [0; INLINE_MAX];
                for posting in postings.get_mut(..usize::from(len)).ok_or(Corrupt)? {
                    *posting = u32::take(input)?;
                }
                Ok(Postings::Inline { len, postings })
            }
            1 => Ok(Postings::Encoded(Box::new(Encoded {
                first: u32::take(input)?,
                len: u32::take(input)?,
                last: u32::take(input)?,
                last_at: u32::take(input)?,
                tail_len: u32::take(input)?,
                skips: Vec::take(input)?,
                bytes: input.take_bytes_owned()?,
            }))),
            _ => Err(Corrupt),
        }
    }
}

persist_fields!(Skip { first, offset });

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a list should hold, as a plain sorted vector of postings.
    fn model_count(model: &mut Vec<u32>, block: u32) -> bool {
        match model.binary_search_by_key(&block, |&p| posting_block(p)) {
            Ok(at) => increment(&mut model[at]),
            Err(at) => {
                model.insert(at, block << TF_BITS | 1);
                true
            }
        }
    }

    #[derive(Debug, Clone)]
    enum Op {
        Count(u32),
        Remove(u32),
    }

    /// Blocks mostly close together, so that lists grow long and counts rise, some far apart
    /// so that distances take several bytes.
    fn block() -> impl Strategy<Value = u32> {
        prop_oneof![4 => 0u32..300, 1 => 0u32..(1 << (32 - TF_BITS))]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![3 => block().prop_map(Op::Count), 1 => block().prop_map(Op::Remove)]
    }

    fn check_seeks(list: &Postings, model: &[u32], targets: &mut [u32]) {
        targets.sort_unstable();
        let mut cursor = list.cursor();
        for &target in targets.iter() {
            let expected = model.iter().copied().find(|&p| posting_block(p) >= target);
            assert_eq!(cursor.seek(target), expected, "seek to {target}");
        }
    }

    proptest! {
        #[test]
        fn a_list_holds_what_a_sorted_vector_holds(
            ops in prop::collection::vec(op(), 0..600),
            mut targets in prop::collection::vec(block(), 0..40),
        ) {
            let mut list = Postings::default();
            let mut model = Vec::new();
            for op in ops {
                match op {
                    Op::Count(block) => {
                        prop_assert_eq!(list.count(block), model_count(&mut model, block));
                    }
                    Op::Remove(block) => {
                        list.remove(block);
                        if let Ok(at) = model.binary_search_by_key(&block, |&p| posting_block(p)) {
                            model.remove(at);
                        }
                    }
                }
                prop_assert_eq!(list.len(), model.len());
            }
            prop_assert_eq!(list.cursor().collect::<Vec<u32>>(), model.clone());
            check_seeks(&list, &model, &mut targets);
        }

        #[test]
        fn a_list_emptied_in_any_order_holds_what_a_sorted_vector_holds(
            removals in prop::collection::vec(0u32..400, 0..300).prop_shuffle(),
        ) {
            let mut list = Postings::default();
            let mut model = Vec::new();
            for &block in &removals {
                list.count(block);
                model_count(&mut model, block);
            }
            for block in removals {
                list.remove(block);
                if let Ok(at) = model.binary_search_by_key(&block, |&p| posting_block(p)) {
                    model.remove(at);
                }
                prop_assert_eq!(list.len(), model.len());
                prop_assert_eq!(list.cursor().collect::<Vec<u32>>(), model.clone());
            }
        }

        #[test]
        fn a_list_built_in_order_fills_the_room_its_extent_counted(
            mut occurrences in prop::collection::vec(block(), 0..600),
        ) {
            occurrences.sort_unstable();
            let mut extent = Extent::default();
            let mut model = Vec::new();
            for &block in &occurrences {
                extent.count(block);
                model_count(&mut model, block);
            }
            let mut list = Postings::with_extent(&extent);
            let room = match &list {
                Postings::Encoded(encoded) => Some((encoded.bytes.capacity(), encoded.skips.capacity())),
                Postings::Inline { .. } => None,
            };
            for &block in &occurrences {
                list.count(block);
            }
            prop_assert_eq!(list.cursor().collect::<Vec<u32>>(), model);
            if let (Postings::Encoded(encoded), Some(room)) = (&list, room) {
                prop_assert_eq!((encoded.bytes.len(), encoded.skips.len()), room);
                prop_assert_eq!((encoded.bytes.capacity(), encoded.skips.capacity()), room);
            }
        }
    }

    #[test]
    fn a_short_list_takes_no_more_than_a_vector_header() {
        assert_eq!(std::mem::size_of::<Postings>(), 24);
        let mut list = Postings::default();
        for block in [7, 3, 11, 5, 9] {
            list.count(block);
        }
        assert!(matches!(list, Postings::Inline { len: 5, .. }));
        list.count(1);
        assert!(matches!(list, Postings::Encoded(_)));
    }

    #[test]
    fn a_long_list_takes_about_a_byte_a_posting_and_seeks_across_chunks() {
        let mut list = Postings::default();
        for block in (0..10_000).step_by(3) {
            list.count(block);
        }
        let Postings::Encoded(encoded) = &list else {
            panic!("a long list is encoded");
        };
        assert_eq!(encoded.bytes.len(), list.len());
        assert_eq!(encoded.skips.len(), list.len().div_ceil(CHUNK_MAX) - 1);
        let mut cursor = list.cursor();
        assert_eq!(cursor.seek(4_000).map(posting_block), Some(4_002));
        assert_eq!(cursor.seek(9_999), Some(9_999 << TF_BITS | 1));
        assert_eq!(cursor.seek(10_000), None);
    }
}
