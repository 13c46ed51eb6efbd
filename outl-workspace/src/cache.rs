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
//! The file is in the encoding of `codec`. A header (magic and format version, checksum, the
//! build's stamp, the settings' digest, the seq, the length of the first section) comes first,
//! then two sections, the pages and the index, decoded on two threads.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use chrono::{Datelike, NaiveDate};

use super::STATE_DIR;
use super::codec::{Corrupt, Decoder, Encoder, Persist, persist_fields};
use super::disk::{self, Durability};
use super::model::{Page, PageKind};
use super::packed::Blocks;
use super::stamp::Stamp;

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
            let covered = input.rest();
            let stamp = Stamp::take(&mut input)?;
            let saved_settings = input.take_array::<32>()?;
            let seq = u64::take(&mut input)?;
            let pages_len = usize::try_from(u64::take(&mut input)?).map_err(|_| Corrupt)?;
            if pages_len > input.rest().len() {
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
        let start = bytes.len() - input.rest().len();
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
        out.put_raw(MAGIC);
        out.put_raw(&[0; CHECKSUM_LEN]);
        build_stamp()?.put(&mut out);
        out.put_raw(settings);
        seq.put(&mut out);
        let len_at = out.len();
        0u64.put(&mut out);
        let start = out.len();
        pages(&mut out);
        let pages_len = (out.len() - start) as u64;
        out.put_at(len_at, &pages_len.to_le_bytes());
        index(&mut out);
        Some(EncodedCache {
            bytes: out.into_bytes(),
        })
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
