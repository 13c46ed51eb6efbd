//! `.outl/cache`: the graph as this process last loaded it (pages, their stamps and the index),
//! saved so that the next open reads one file instead of parsing every page and building the
//! index again.
//!
//! The cache is a copy, never a source of truth, so it is only used when it can be checked:
//! it names the op-log seq it is at, the build of outl that wrote it and the graph's settings
//! it was read with (`logseq/config.edn` shapes page names and links), and a checksum covers
//! it. Open takes it when the build and the settings are these and the log still holds every
//! op after its seq; it drops the pages those ops touched, then looks at every file as a refresh does, so
//! that whatever moved on disk since (size, mtime or ctime) is read again. Anything else
//! (another build, a log that no longer reaches back, a checksum that fails) makes open read
//! every page, as it would without a cache, and write a new one.
//!
//! Numbers are little-endian and fixed-width, counts and lengths LEB128 varints. A header
//! (magic and format version, checksum, the build's stamp, the settings' digest, the seq, the
//! length of the first section) comes first, then two sections, the pages and the index, decoded on two threads.

use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hash};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use chrono::{Datelike, NaiveDate};
use compact_str::CompactString;
use thin_vec::ThinVec;

use super::STATE_DIR;
use super::disk::{self, Durability};
use super::load::Stamp;
use super::model::{Block, Page, PageKind};
use super::packed::Blocks;
use outl_format::{Properties, TaskMarker};

const CACHE_FILE: &str = "cache";
/// The first bytes of a cache; the last one is the format's version.
const MAGIC: &[u8; 8] = b"outl\0gr\x06";
const CHECKSUM_LEN: usize = 32;

fn path(root: &Path) -> PathBuf {
    root.join(STATE_DIR).join(CACHE_FILE)
}

/// A cache file's content, checked: the seq it is at and its two sections.
pub(super) struct Saved {
    bytes: Vec<u8>,
    /// The op-log seq the graph is at: every op up to it is in, none after it.
    pub seq: u64,
    pages: Range<usize>,
    index: Range<usize>,
}

impl Saved {
    /// The cache at `root` if there is one, written by this build with these `settings` (a
    /// digest of the graph's config), and whole.
    pub fn read(root: &Path, settings: &[u8; 32]) -> Option<Saved> {
        let build = build_stamp()?;
        let bytes = std::fs::read(path(root)).ok()?;
        let mut input = Decoder::new(&bytes);
        let header = (|| {
            if input.take_bytes(MAGIC.len())? != MAGIC {
                return Err(Corrupt);
            }
            let checksum = input.take_array::<CHECKSUM_LEN>()?;
            let covered = input.bytes;
            let stamp = Stamp::take(&mut input)?;
            let saved_settings = input.take_array::<32>()?;
            let seq = u64::take(&mut input)?;
            let pages_len = usize::try_from(u64::take(&mut input)?).map_err(|_| Corrupt)?;
            if pages_len > input.bytes.len() {
                return Err(Corrupt);
            }
            Ok((checksum, covered, stamp, saved_settings, seq, pages_len))
        })();
        let (checksum, covered, stamp, saved_settings, seq, pages_len) = header.ok()?;
        if stamp != build || &saved_settings != settings {
            return None;
        }
        if blake3::hash(covered).as_bytes() != &checksum {
            tracing::warn!(
                "{} is damaged: every page is read instead",
                path(root).display()
            );
            return None;
        }
        let start = bytes.len() - input.bytes.len();
        let middle = start + pages_len;
        Some(Saved {
            seq,
            pages: start..middle,
            index: middle..bytes.len(),
            bytes,
        })
    }

    /// Decodes the pages section with `pages` and the index section with `index`, side by
    /// side; each must read its section to the end.
    pub fn decode<P: Send, I: Send>(
        &self,
        pages: impl FnOnce(&mut Decoder<'_>) -> Result<P, Corrupt> + Send,
        index: impl FnOnce(&mut Decoder<'_>) -> Result<I, Corrupt> + Send,
    ) -> Result<(P, I), Corrupt> {
        std::thread::scope(|scope| {
            let indexed = scope.spawn(|| {
                let mut input = Decoder::new(&self.bytes[self.index.clone()]);
                index(&mut input).and_then(|i| input.end(i))
            });
            let mut input = Decoder::new(&self.bytes[self.pages.clone()]);
            let pages = pages(&mut input).and_then(|p| input.end(p));
            let index = indexed.join().map_err(|_| Corrupt)?;
            Ok((pages?, index?))
        })
    }
}

/// A cache encoded and waiting to be written by [`EncodedCache::write`]: the checksum is computed
/// there, off the caller's thread.
pub(super) struct EncodedCache {
    bytes: Vec<u8>,
}

impl EncodedCache {
    /// The cache of a graph at op-log seq `seq`, read with `settings` (a digest of its
    /// config), with the sections `pages` and `index` put; `None` when the build of outl
    /// cannot be told.
    pub fn new(
        seq: u64,
        settings: &[u8; 32],
        pages: impl FnOnce(&mut Encoder),
        index: impl FnOnce(&mut Encoder),
    ) -> Option<EncodedCache> {
        let mut out = Encoder::default();
        out.bytes.extend_from_slice(MAGIC);
        out.bytes.extend_from_slice(&[0; CHECKSUM_LEN]);
        build_stamp()?.put(&mut out);
        out.bytes.extend_from_slice(settings);
        seq.put(&mut out);
        let len_at = out.bytes.len();
        0u64.put(&mut out);
        let start = out.bytes.len();
        pages(&mut out);
        let pages_len = (out.bytes.len() - start) as u64;
        out.bytes[len_at..start].copy_from_slice(&pages_len.to_le_bytes());
        index(&mut out);
        Some(EncodedCache { bytes: out.bytes })
    }

    /// Writes the cache of the workspace at `root`, atomically: an open reads this one whole or
    /// the one before. Not fsynced: a cache lost in a crash is only read again from the pages.
    pub fn write(mut self, root: &Path) -> std::io::Result<()> {
        let covered_from = MAGIC.len() + CHECKSUM_LEN;
        let checksum = blake3::hash(&self.bytes[covered_from..]);
        self.bytes[MAGIC.len()..covered_from].copy_from_slice(checksum.as_bytes());
        disk::write_atomic(&path(root), self.bytes, Durability::Atomic)
    }
}

/// The stamp of the running executable: a cache written by another build (whose parser or
/// index may differ) is not used.
fn build_stamp() -> Option<Stamp> {
    let exe = std::env::current_exe().ok()?;
    std::fs::metadata(exe).ok().map(|meta| Stamp::of(&meta))
}

// ---------------------------------------------------------------------------------------------
// The codec

/// A cache that does not decode: it is ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Corrupt;

#[derive(Debug, Default)]
pub(super) struct Encoder {
    bytes: Vec<u8>,
}

impl Encoder {
    /// Bytes after their count, in one copy.
    pub fn put_bytes(&mut self, bytes: &[u8]) {
        bytes.len().put(self);
        self.bytes.extend_from_slice(bytes);
    }
}

pub(super) struct Decoder<'a> {
    bytes: &'a [u8],
}

impl<'a> Decoder<'a> {
    fn new(bytes: &'a [u8]) -> Decoder<'a> {
        Decoder { bytes }
    }

    fn take_bytes(&mut self, n: usize) -> Result<&'a [u8], Corrupt> {
        if n > self.bytes.len() {
            return Err(Corrupt);
        }
        let (taken, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(taken)
    }

    fn take_array<const N: usize>(&mut self) -> Result<[u8; N], Corrupt> {
        self.take_bytes(N)?.try_into().map_err(|_| Corrupt)
    }

    /// A count of items, each at least one byte long, so that a damaged count cannot ask for
    /// more memory than the cache holds bytes.
    pub fn take_len(&mut self) -> Result<usize, Corrupt> {
        let len = usize::take(self)?;
        if len > self.bytes.len() {
            return Err(Corrupt);
        }
        Ok(len)
    }

    /// Bytes [`Encoder::put_bytes`] wrote.
    pub fn take_bytes_owned(&mut self) -> Result<Vec<u8>, Corrupt> {
        self.take_counted().map(<[u8]>::to_vec)
    }

    /// Text [`Encoder::put_bytes`] wrote.
    fn take_str(&mut self) -> Result<&'a str, Corrupt> {
        std::str::from_utf8(self.take_counted()?).map_err(|_| Corrupt)
    }

    fn take_counted(&mut self) -> Result<&'a [u8], Corrupt> {
        let len = self.take_len()?;
        self.take_bytes(len)
    }

    /// `value`, if the section ends here.
    fn end<T>(&self, value: T) -> Result<T, Corrupt> {
        if self.bytes.is_empty() {
            Ok(value)
        } else {
            Err(Corrupt)
        }
    }
}

/// `items` encoded as the cache holds a list.
pub(super) fn encode_list<T: Persist>(items: &[T]) -> Vec<u8> {
    let mut out = Encoder::default();
    put_all(items.iter(), &mut out);
    out.bytes
}

/// The list [`encode_list`] wrote, whole.
pub(super) fn decode_list<T: Persist>(bytes: &[u8]) -> Result<Vec<T>, Corrupt> {
    let mut input = Decoder::new(bytes);
    take_all(&mut input).and_then(|items| input.end(items))
}

/// The blocks of a list [`encode_list`] wrote, read one record at a time. A block's record
/// (id, text, properties, the count of its children) comes right before its children's, so
/// the records follow each other in document order, and reading them from any record on
/// needs no tree.
pub(super) struct Records<'a> {
    input: Decoder<'a>,
}

impl<'a> Records<'a> {
    /// The records of a whole list: `bytes` starts with the list's count.
    pub fn of_list(bytes: &'a [u8]) -> Result<Records<'a>, Corrupt> {
        let mut input = Decoder::new(bytes);
        input.take_len()?;
        Ok(Records { input })
    }

    /// The records from one on: `bytes` starts where a record does.
    pub fn from_record(bytes: &'a [u8]) -> Records<'a> {
        Records {
            input: Decoder::new(bytes),
        }
    }

    /// Bytes left after the records read so far.
    pub fn left(&self) -> usize {
        self.input.bytes.len()
    }

    /// The next block, without its children.
    pub fn next_block(&mut self) -> Result<Block, Corrupt> {
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
    pub fn skip(&mut self) -> Result<(), Corrupt> {
        self.input.take_counted()?;
        self.input.take_counted()?;
        for _ in 0..self.input.take_len()? {
            self.input.take_counted()?;
            self.input.take_counted()?;
        }
        self.skip_children_count()
    }

    /// The children's records follow, maybe past the end of these bytes (a chunk of them,
    /// see `packed`): their count is not checked against what is left.
    fn skip_children_count(&mut self) -> Result<(), Corrupt> {
        usize::take(&mut self.input).map(drop)
    }
}

/// `value` written and read back, as a cache would hold it.
#[cfg(test)]
pub(super) fn round_trip<T: Persist>(value: &T) -> Result<T, Corrupt> {
    let mut out = Encoder::default();
    value.put(&mut out);
    let mut input = Decoder::new(&out.bytes);
    T::take(&mut input).and_then(|value| input.end(value))
}

/// A value the cache can hold, written and read back exactly.
pub(super) trait Persist: Sized {
    fn put(&self, out: &mut Encoder);
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt>;
}

/// [`Persist`] for a struct: its fields one after the other, in the order listed (every
/// field, so that the struct literal is whole).
macro_rules! persist_fields {
    ($name:ident { $($field:ident),* $(,)? }) => {
        impl $crate::cache::Persist for $name {
            fn put(&self, out: &mut $crate::cache::Encoder) {
                $($crate::cache::Persist::put(&self.$field, out);)*
            }
            fn take(
                input: &mut $crate::cache::Decoder<'_>,
            ) -> Result<Self, $crate::cache::Corrupt> {
                Ok($name {
                    $($field: $crate::cache::Persist::take(input)?,)*
                })
            }
        }
    };
}
pub(super) use persist_fields;

macro_rules! persist_int {
    ($($t:ty),*) => {$(
        impl Persist for $t {
            fn put(&self, out: &mut Encoder) {
                out.bytes.extend_from_slice(&self.to_le_bytes());
            }
            fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
                input.take_array().map(<$t>::from_le_bytes)
            }
        }
    )*};
}
persist_int!(u8, u32, u64, i32, i64);

/// Counts and lengths, as LEB128 varints: most are small, and take one byte.
impl Persist for usize {
    fn put(&self, out: &mut Encoder) {
        let mut rest = *self as u64;
        while rest >= 0x80 {
            out.bytes.push(rest as u8 | 0x80);
            rest >>= 7;
        }
        out.bytes.push(rest as u8);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = u8::take(input)?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return usize::try_from(value).map_err(|_| Corrupt);
            }
        }
        Err(Corrupt)
    }
}

impl Persist for String {
    fn put(&self, out: &mut Encoder) {
        out.put_bytes(self.as_bytes());
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        input.take_str().map(str::to_owned)
    }
}

impl Persist for CompactString {
    fn put(&self, out: &mut Encoder) {
        out.put_bytes(self.as_bytes());
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        input.take_str().map(CompactString::from)
    }
}

impl<T: Persist> Persist for Option<T> {
    fn put(&self, out: &mut Encoder) {
        match self {
            None => 0u8.put(out),
            Some(value) => {
                1u8.put(out);
                value.put(out);
            }
        }
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        match u8::take(input)? {
            0 => Ok(None),
            1 => T::take(input).map(Some),
            _ => Err(Corrupt),
        }
    }
}

impl<A: Persist, B: Persist> Persist for (A, B) {
    fn put(&self, out: &mut Encoder) {
        self.0.put(out);
        self.1.put(out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        Ok((A::take(input)?, B::take(input)?))
    }
}

/// Writes the items of a sequence after their count.
pub(super) fn put_all<'a, T: Persist + 'a>(
    items: impl ExactSizeIterator<Item = &'a T>,
    out: &mut Encoder,
) {
    items.len().put(out);
    for item in items {
        item.put(out);
    }
}

/// Writes `len` key-value pairs after their count (a map's or a property list's).
fn put_pairs<'a, K: Persist + 'a, V: Persist + 'a>(
    len: usize,
    pairs: impl IntoIterator<Item = (&'a K, &'a V)>,
    out: &mut Encoder,
) {
    len.put(out);
    for (key, value) in pairs {
        key.put(out);
        value.put(out);
    }
}

/// Reads a sequence [`put_all`] wrote into any collection.
pub(super) fn take_all<T: Persist, C: FromIterator<T>>(
    input: &mut Decoder<'_>,
) -> Result<C, Corrupt> {
    let len = input.take_len()?;
    (0..len).map(|_| T::take(input)).collect()
}

impl<T: Persist> Persist for Vec<T> {
    fn put(&self, out: &mut Encoder) {
        put_all(self.iter(), out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        take_all(input)
    }
}

impl<T: Persist> Persist for Box<[T]> {
    fn put(&self, out: &mut Encoder) {
        put_all(self.iter(), out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        take_all(input)
    }
}

impl<T: Persist> Persist for ThinVec<T> {
    fn put(&self, out: &mut Encoder) {
        put_all(self.iter(), out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        take_all(input)
    }
}

impl<K: Persist + Eq + Hash, V: Persist, S: BuildHasher + Default> Persist
    for std::collections::HashMap<K, V, S>
{
    fn put(&self, out: &mut Encoder) {
        put_pairs(self.len(), self, out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        let len = input.take_len()?;
        let mut map = Self::with_capacity_and_hasher(len, S::default());
        for _ in 0..len {
            map.insert(K::take(input)?, V::take(input)?);
        }
        Ok(map)
    }
}

impl<K: Persist + Ord, V: Persist> Persist for BTreeMap<K, V> {
    fn put(&self, out: &mut Encoder) {
        self.len().put(out);
        for (key, value) in self {
            key.put(out);
            value.put(out);
        }
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        take_all::<(K, V), _>(input)
    }
}

// ---------------------------------------------------------------------------------------------
// The page model

impl Persist for Stamp {
    fn put(&self, out: &mut Encoder) {
        self.len.put(out);
        // Before or after the epoch, and how far.
        let since = self.modified.map(|t| match t.duration_since(UNIX_EPOCH) {
            Ok(after) => (0u8, after),
            Err(before) => (1u8, before.duration()),
        });
        match since {
            None => 0u8.put(out),
            Some((side, distance)) => {
                (side + 1).put(out);
                distance.as_secs().put(out);
                distance.subsec_nanos().put(out);
            }
        }
        self.changed.0.put(out);
        self.changed.1.put(out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        let len = u64::take(input)?;
        let side = u8::take(input)?;
        let modified = match side {
            0 => None,
            1 | 2 => {
                let secs = u64::take(input)?;
                let nanos = u32::take(input)?;
                if nanos >= 1_000_000_000 {
                    return Err(Corrupt);
                }
                let distance = Duration::new(secs, nanos);
                let time = if side == 1 {
                    UNIX_EPOCH.checked_add(distance)
                } else {
                    UNIX_EPOCH.checked_sub(distance)
                };
                Some(time.ok_or(Corrupt)?)
            }
            _ => return Err(Corrupt),
        };
        let changed = (i64::take(input)?, i64::take(input)?);
        Ok(Stamp {
            len,
            modified,
            changed,
        })
    }
}

impl Persist for TaskMarker {
    fn put(&self, out: &mut Encoder) {
        let position = TaskMarker::ALL.iter().position(|m| m == self).unwrap_or(0);
        (position as u8).put(out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        TaskMarker::ALL
            .get(u8::take(input)? as usize)
            .copied()
            .ok_or(Corrupt)
    }
}

impl Persist for Properties {
    fn put(&self, out: &mut Encoder) {
        put_pairs(self.len(), self, out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        let len = input.take_len()?;
        let mut properties = Properties::with_capacity(len);
        for _ in 0..len {
            properties.insert(String::take(input)?, String::take(input)?);
        }
        Ok(properties)
    }
}

// `Records` reads this layout one record at a time.
persist_fields!(Block {
    id,
    text,
    properties,
    children
});

impl Persist for PageKind {
    fn put(&self, out: &mut Encoder) {
        match self {
            PageKind::Page => 0u8.put(out),
            PageKind::Journal { date } => {
                1u8.put(out);
                date.num_days_from_ce().put(out);
            }
        }
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        match u8::take(input)? {
            0 => Ok(PageKind::Page),
            1 => NaiveDate::from_num_days_from_ce_opt(i32::take(input)?)
                .map(|date| PageKind::Journal { date })
                .ok_or(Corrupt),
            _ => Err(Corrupt),
        }
    }
}

/// A page's blocks as they are packed: the cache holds what memory holds.
impl Persist for Blocks {
    fn put(&self, out: &mut Encoder) {
        let (count, bytes) = self.packed();
        count.put(out);
        out.put_bytes(&bytes);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        let count = usize::take(input)?;
        let bytes = input.take_bytes_owned()?;
        Ok(Blocks::from_packed(count, bytes.into()))
    }
}

persist_fields!(Page {
    slug,
    name,
    kind,
    file,
    front_matter,
    properties,
    body,
    ref_uuids,
    updated,
    hash
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_back_whatever_their_size_and_overlong_ones_do_not() {
        for n in [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u32::MAX as usize,
            usize::MAX,
        ] {
            assert_eq!(round_trip(&n), Ok(n));
        }
        let mut input = Decoder::new(&[0x80; 11]);
        assert_eq!(usize::take(&mut input), Err(Corrupt));
        // A count larger than what follows is refused before anything is allocated.
        let mut out = Encoder::default();
        1_000_000usize.put(&mut out);
        let mut input = Decoder::new(&out.bytes);
        assert_eq!(Vec::<u64>::take(&mut input), Err(Corrupt));
    }
}
