//! Block ids: minting short decimal ids, the short id a UUID is served by, and the UUID that
//! encodes a short id.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The property a user writes to give a block its own id.
pub const ID_PROPERTY: &str = "id";

/// The alphabet of the base32 ids outl minted before it minted decimal ones, which blocks keep.
const BASE32: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
/// A minted id is a number of this many decimal digits at least, with no leading zero. A model
/// reads a run of digits as one token in three, and a run of random letters and digits as one
/// in about one and a half: six digits are 2 tokens where six base32 characters were 4.
const MIN_LEN: u32 = 6;
/// Ids grow one digit whenever fewer than this share of the id space would stay free, so a
/// random candidate is rarely taken (six digits serve 112,000 blocks).
const CROWDING_FACTOR: u128 = 8;
/// Candidates tried at one length before growing by a digit.
const ATTEMPTS_PER_LEN: u32 = 16;

/// How many ids of `len` digits there are.
fn id_space(len: u32) -> u128 {
    9 * 10u128.pow(len - 1)
}

/// The id length for a workspace that already holds `taken` ids.
pub fn id_len(taken: usize) -> u32 {
    let mut len = MIN_LEN;
    while (taken as u128 + 1) * CROWDING_FACTOR > id_space(len) {
        len += 1;
    }
    len
}

/// Mints ids that nobody else holds.
///
/// Ids of blocks that outl adopts (a page it had never seen) derive from the block's file,
/// position and text, so a crash before their sidecar reaches the disk mints the same ids
/// again. Ids of blocks that a write creates are random and reach the disk in the op log.
#[derive(Debug)]
pub struct IdMinter {
    key: [u8; 32],
    counter: u64,
}

impl IdMinter {
    pub fn new() -> IdMinter {
        IdMinter {
            key: unique_key(),
            counter: 0,
        }
    }

    /// A random id for which `taken` is false; `count` is how many ids the workspace holds.
    pub fn fresh(&mut self, count: usize, taken: impl Fn(&str) -> bool) -> String {
        self.counter += 1;
        let material = self.counter.to_le_bytes();
        mint(&self.key, &material, count, taken)
    }
}

/// 32 bytes no other call, process or moment gets: the time, the process, a count of calls and
/// the OS's random source.
fn unique_key() -> [u8; 32] {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let mut seed = blake3::Hasher::new();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    seed.update(&now.as_nanos().to_le_bytes());
    seed.update(&std::process::id().to_le_bytes());
    seed.update(&CALLS.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    // RandomState is seeded from the OS's random source.
    let random =
        std::hash::BuildHasher::hash_one(&std::collections::hash_map::RandomState::new(), 0u8);
    seed.update(&random.to_le_bytes());
    *seed.finalize().as_bytes()
}

/// A name for a new session, unlike any other session's: 12 hex digits.
pub fn new_session() -> super::Session {
    blake3::hash(&unique_key()).to_hex()[..12].into()
}

/// An id derived from `material` (file, position, text), unless that one is taken.
pub fn derived_id(material: &[u8], count: usize, taken: impl Fn(&str) -> bool) -> String {
    mint(&[0u8; 32], material, count, taken)
}

impl Default for IdMinter {
    fn default() -> Self {
        IdMinter::new()
    }
}

fn mint(key: &[u8; 32], material: &[u8], count: usize, taken: impl Fn(&str) -> bool) -> String {
    let mut len = id_len(count);
    let mut attempt: u32 = 0;
    loop {
        let mut hasher = blake3::Hasher::new_keyed(key);
        hasher.update(material);
        hasher.update(&attempt.to_le_bytes());
        let id = decimal(hasher.finalize().as_bytes(), len);
        if !taken(&id) {
            return id;
        }
        attempt += 1;
        if attempt.is_multiple_of(ATTEMPTS_PER_LEN) {
            len += 1;
        }
    }
}

/// A number of `len` digits, the first not a zero, drawn from `bytes`.
fn decimal(bytes: &[u8; 32], len: u32) -> String {
    let mut drawn = [0u8; 16];
    drawn.copy_from_slice(&bytes[..16]);
    let first = 10u128.pow(len - 1);
    (first + u128::from_le_bytes(drawn) % id_space(len)).to_string()
}

/// `len` base32 characters drawn from `bytes`.
fn base32(bytes: &[u8; 32], len: u32) -> String {
    let mut bits: u64 = 0;
    let mut nbits = 0;
    let mut out = String::with_capacity(len as usize);
    let mut input = bytes.iter();
    while out.len() < len as usize {
        if nbits < 5 {
            // 32 bytes give 51 characters, more than any length ever asked for.
            let byte = input.next().copied().unwrap_or(0);
            bits = (bits << 8) | u64::from(byte);
            nbits += 8;
        }
        nbits -= 5;
        out.push(BASE32[((bits >> nbits) & 31) as usize] as char);
    }
    out
}

/// The length of the short id a UUID is served as: long enough that two of a graph's UUIDs
/// almost never share one (about one pair in seven at 100,000 of them).
const UUID_ID_LEN: u32 = 7;

pub use outl_format::is_uuid;

/// The id a block is served by: a UUID (31 tokens each time a reply carries it) as a short id
/// derived from it, the same at every open (or the one it encodes, see `anchor_uuid`); any
/// other id as it is. Tools take either.
pub fn served_id(id: &str) -> Cow<'_, str> {
    if !is_uuid(id) {
        return Cow::Borrowed(id);
    }
    if let Some(anchored) = anchored_id(id) {
        return Cow::Owned(anchored);
    }
    let hash = blake3::hash(id.to_ascii_lowercase().as_bytes());
    Cow::Owned(base32(hash.as_bytes(), UUID_ID_LEN))
}

/// The first eight hex digits of the UUIDs that [`anchor_uuid`] makes: "outl" in ASCII.
const ANCHOR_MARK: &str = "6f75746c";
/// The bits of an anchor's payload: the 22 hex digits beside the mark, version and variant.
/// Its first 5 say what the rest holds: a base32 id of 1 to 16 characters (5 bits each, then
/// zeros), or, from 17 on, a decimal id of 1 to 15 digits (the number, in the last bits).
const ANCHOR_BITS: usize = 88;
const ANCHOR_TAG_BITS: usize = 5;
/// The longest base32 id a UUID encodes: 16 characters of 5 bits fill the payload.
const ANCHOR_BASE32_MAX_LEN: usize = 16;
/// The longest decimal id a UUID encodes, and the tag of one digit less than a decimal id's.
const ANCHOR_DECIMAL_MAX_LEN: usize = 15;
const ANCHOR_DECIMAL_TAG: usize = ANCHOR_BASE32_MAX_LEN;

/// The UUID a block served by the short id `id` gets as its `id::` when a ref points to it, so
/// that Logseq resolves the ref: a version 8 UUID (RFC 9562's own format) that encodes `id`, so
/// the block keeps being served by `id` on every later open, with or without outl's sidecar.
/// `None` for an id that is not one outl mints, decimal or base32 (another alphabet, or too
/// long).
pub fn anchor_uuid(id: &str) -> Option<String> {
    let tag_at = ANCHOR_BITS - ANCHOR_TAG_BITS;
    let payload = if let Some(number) = decimal_id(id) {
        ((ANCHOR_DECIMAL_TAG + id.len()) as u128) << tag_at | number
    } else {
        if id.is_empty() || id.len() > ANCHOR_BASE32_MAX_LEN {
            return None;
        }
        let mut payload = id.len() as u128;
        for c in id.bytes() {
            let digit = BASE32.iter().position(|&a| a == c)?;
            payload = (payload << 5) | digit as u128;
        }
        payload << (tag_at - 5 * id.len())
    };
    let hex = format!("{payload:022x}");
    Some(format!(
        "{ANCHOR_MARK}-{}-8{}-8{}-{}",
        &hex[..4],
        &hex[4..7],
        &hex[7..10],
        &hex[10..]
    ))
}

/// The number a decimal id of outl's stands for: up to [`ANCHOR_DECIMAL_MAX_LEN`] digits, the
/// first not a zero.
fn decimal_id(id: &str) -> Option<u128> {
    let digits = !id.starts_with('0') && id.bytes().all(|b| b.is_ascii_digit());
    (digits && (1..=ANCHOR_DECIMAL_MAX_LEN).contains(&id.len()))
        .then(|| id.parse().ok())
        .flatten()
}

/// The short id a UUID of [`anchor_uuid`]'s encodes, in any case; `None` for any other UUID.
fn anchored_id(uuid: &str) -> Option<String> {
    let hex = uuid.replace('-', "").to_ascii_lowercase();
    if !hex.starts_with(ANCHOR_MARK) || &hex[12..13] != "8" || &hex[16..17] != "8" {
        return None;
    }
    let payload =
        u128::from_str_radix(&[&hex[8..12], &hex[13..16], &hex[17..]].concat(), 16).ok()?;
    let tag_at = ANCHOR_BITS - ANCHOR_TAG_BITS;
    let tag = (payload >> tag_at) as usize;
    let rest = payload & ((1u128 << tag_at) - 1);
    if tag > ANCHOR_DECIMAL_TAG {
        // The number, with exactly the digits the tag says.
        let id = rest.to_string();
        return (id.len() == tag - ANCHOR_DECIMAL_TAG).then_some(id);
    }
    let unused = tag_at - 5 * tag;
    if tag == 0 || rest & ((1u128 << unused) - 1) != 0 {
        return None;
    }
    let digit = |i: usize| BASE32[(payload >> (tag_at - 5 - 5 * i)) as usize & 31] as char;
    Some((0..tag).map(digit).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_short_decimal_numbers_and_grow_when_crowded() {
        let mut minter = IdMinter::new();
        for _ in 0..1_000 {
            let id = minter.fresh(0, |_| false);
            assert_eq!(id.len(), 6);
            assert!(decimal_id(&id).is_some(), "{id}");
        }
        assert_eq!(id_len(100_000), 6);
        assert_eq!(id_len(120_000), 7);
        assert_eq!(id_len(10_000_000), 8);
        // Every six-digit candidate taken: the minter moves on to seven.
        assert_eq!(minter.fresh(0, |id| id.len() == 6).len(), 7);
    }

    #[test]
    fn derived_ids_repeat_and_avoid_taken_ones() {
        let a = derived_id(b"pages/a.md\0", 10, |_| false);
        assert_eq!(a, derived_id(b"pages/a.md\0", 10, |_| false));
        let b = derived_id(b"pages/a.md\0", 10, |id| id == a);
        assert_ne!(a, b);
    }

    #[test]
    fn a_uuid_is_served_by_a_short_id_of_its_own_and_any_case_of_it() {
        let uuid = "63DB4C7F-0B35-4A2B-9C4E-0123456789AB";
        assert!(is_uuid(uuid) && !is_uuid("6f3a2c") && !is_uuid(&uuid[1..]));
        assert_eq!(served_id(uuid), served_id(&uuid.to_lowercase()));
        assert_ne!(
            served_id(uuid),
            served_id("63db4c7f-0b35-4a2b-9c4e-0123456789ac")
        );
        assert_eq!(served_id("6f3a2c"), "6f3a2c");
    }

    #[test]
    fn an_anchor_uuid_is_served_by_the_short_id_it_encodes() {
        let longest_decimal = "9".repeat(ANCHOR_DECIMAL_MAX_LEN);
        for id in [
            "a",
            "7nwepb",
            "zz2345x",
            "abcdefghijklmnop",
            "1",
            "482913",
            "2345670",
            &longest_decimal,
        ] {
            let uuid = anchor_uuid(id).unwrap();
            assert!(is_uuid(&uuid), "{uuid}");
            assert!(uuid.starts_with("6f75746c-"), "{uuid}");
            // Version 8, variant 10: a UUID as RFC 9562 defines one.
            assert_eq!(&uuid[14..15], "8");
            assert_eq!(&uuid[19..20], "8");
            assert_eq!(served_id(&uuid), id);
            assert_eq!(served_id(&uuid.to_uppercase()), id);
        }
        assert_eq!(anchor_uuid("abcdefghijklmnopq"), None);
        assert_eq!(anchor_uuid("1234567890123456"), None);
        // A zero first is not a decimal id of outl's, nor a base32 one.
        assert_eq!(anchor_uuid("012345"), None);
        assert_eq!(anchor_uuid("has-dash"), None);
        assert_eq!(anchor_uuid(""), None);
        // A UUID that only looks like one (stray bits past its length) is a plain UUID.
        let stray = "6f75746c-0800-8000-8000-000000000001";
        assert_eq!(served_id(stray).len(), UUID_ID_LEN as usize);
    }
}
