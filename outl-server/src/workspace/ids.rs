//! Block ids: minting short base32 ids, and carrying ids from an old version of a page's blocks
//! to a new one.

use std::collections::{HashMap, VecDeque};
use std::time::{SystemTime, UNIX_EPOCH};

use compact_str::CompactString;

use super::model::Block;

/// The property a user writes to give a block its own id.
pub const ID_PROPERTY: &str = "id";

const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
const MIN_LEN: u32 = 6;
/// Ids grow one character whenever fewer than this share of the id space would stay free, so a
/// random candidate is almost never taken.
const CROWDING_FACTOR: u128 = 64;
/// Candidates tried at one length before growing by a character.
const ATTEMPTS_PER_LEN: u32 = 16;

/// The id length for a workspace that already holds `taken` ids.
pub fn id_len(taken: usize) -> u32 {
    let mut len = MIN_LEN;
    while (taken as u128 + 1) * CROWDING_FACTOR > 32u128.pow(len) {
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
        let mut seed = blake3::Hasher::new();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        seed.update(&now.as_nanos().to_le_bytes());
        seed.update(&std::process::id().to_le_bytes());
        // RandomState is seeded from the OS's random source.
        let random =
            std::hash::BuildHasher::hash_one(&std::collections::hash_map::RandomState::new(), 0u8);
        seed.update(&random.to_le_bytes());
        IdMinter {
            key: *seed.finalize().as_bytes(),
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
        let id = base32(hasher.finalize().as_bytes(), len);
        if !taken(&id) {
            return id;
        }
        attempt += 1;
        if attempt % ATTEMPTS_PER_LEN == 0 {
            len += 1;
        }
    }
}

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
        out.push(ALPHABET[((bits >> nbits) & 31) as usize] as char);
    }
    out
}

/// The `id::` property of a block, if it has a usable one.
pub fn user_id(block: &Block) -> Option<&str> {
    block
        .properties
        .get(ID_PROPERTY)
        .map(|id| id.trim())
        .filter(|id| !id.is_empty() && !id.chars().any(|c| c.is_whitespace() || c.is_control()))
}

/// Gives the blocks of `new` the ids of their counterparts in `old`, so a block whose text did
/// not change keeps its id. Used by every write that replaces a page's blocks wholesale and by
/// reconcile. Blocks are matched in document order, first by equal text, then by position
/// relative to the nearest matched block before them. A block with an `id::` property keeps
/// that id; an unmatched block keeps the id it had (fresh or empty).
pub fn carry_ids(old: &[Block], new: &mut [Block]) {
    let old_flat = preorder(old);
    let new_flat = preorder(new);
    let user_ids: Vec<Option<&str>> = new_flat.iter().map(|b| user_id(b)).collect();
    let claimed: std::collections::HashSet<&str> = user_ids.iter().flatten().copied().collect();
    let available: Vec<bool> = old_flat
        .iter()
        .map(|b| !claimed.contains(b.id.as_str()))
        .collect();
    let old_texts: Vec<&str> = old_flat.iter().map(|b| b.text.as_str()).collect();
    let new_texts: Vec<&str> = new_flat.iter().map(|b| b.text.as_str()).collect();
    let wanted: Vec<bool> = user_ids.iter().map(Option::is_none).collect();
    let matches = match_positions(&old_texts, &new_texts, &available, &wanted);
    let ids: Vec<Option<CompactString>> = new_flat
        .iter()
        .zip(&user_ids)
        .zip(&matches)
        .map(|((_, user), matched)| match (user, matched) {
            (Some(user), _) => Some((*user).into()),
            (None, Some(i)) => Some(old_flat[*i].id.clone()),
            (None, None) => None,
        })
        .collect();
    let mut ids = ids.into_iter();
    set_ids_preorder(new, &mut ids);
}

fn preorder(blocks: &[Block]) -> Vec<&Block> {
    let mut out = Vec::new();
    for block in blocks {
        block.collect_preorder(&mut out);
    }
    out
}

fn set_ids_preorder(blocks: &mut [Block], ids: &mut impl Iterator<Item = Option<CompactString>>) {
    for block in blocks {
        if let Some(Some(id)) = ids.next() {
            block.id = id;
        }
        set_ids_preorder(&mut block.children, ids);
    }
}

/// Sets the ids of `blocks` from `ids` in document order (a sidecar's list).
pub fn assign_preorder(blocks: &mut [Block], ids: &[impl AsRef<str>]) {
    let mut ids = ids.iter().map(|id| Some(id.as_ref().into()));
    set_ids_preorder(blocks, &mut ids);
}

/// For each new text, the index of the old text it continues, if any. Only old entries marked
/// `available` are matched, and only new entries marked `wanted`.
fn match_positions(
    old: &[&str],
    new: &[&str],
    available: &[bool],
    wanted: &[bool],
) -> Vec<Option<usize>> {
    let mut by_text: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (i, text) in old.iter().enumerate() {
        if available[i] {
            by_text.entry(text).or_default().push_back(i);
        }
    }
    let mut used = vec![false; old.len()];
    let mut matches: Vec<Option<usize>> = new
        .iter()
        .zip(wanted)
        .map(|(text, &wanted)| {
            if !wanted {
                return None;
            }
            let i = by_text.get_mut(text)?.pop_front()?;
            used[i] = true;
            Some(i)
        })
        .collect();
    // An edited block sits where its old version sat, counted from the last block that kept
    // its text.
    let mut anchor: Option<(usize, usize)> = None; // (new index, old index)
    for j in 0..new.len() {
        if let Some(i) = matches[j] {
            anchor = Some((j, i));
            continue;
        }
        if !wanted[j] {
            continue;
        }
        let candidate = match anchor {
            Some((nj, oi)) => oi + (j - nj),
            None => j,
        };
        if candidate < old.len() && available[candidate] && !used[candidate] {
            used[candidate] = true;
            matches[j] = Some(candidate);
        }
    }
    matches
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outline::Properties;

    fn block(id: &str, text: &str, children: Vec<Block>) -> Block {
        Block {
            id: id.into(),
            text: text.into(),
            properties: Properties::new(),
            children: children.into(),
        }
    }

    fn ids(blocks: &[Block]) -> Vec<String> {
        preorder(blocks).iter().map(|b| b.id.to_string()).collect()
    }

    #[test]
    fn ids_are_short_base32_and_grow_when_crowded() {
        let mut minter = IdMinter::new();
        let id = minter.fresh(0, |_| false);
        assert_eq!(id.len(), 6);
        assert!(id.bytes().all(|b| ALPHABET.contains(&b)));
        assert_eq!(id_len(1_000_000), 6);
        assert_eq!(id_len(20_000_000), 7);
        // Every six-character candidate taken: the minter moves on to seven.
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
    fn unchanged_blocks_keep_ids_and_edits_keep_their_place() {
        let old = vec![
            block("aaaaaa", "one", vec![block("bbbbbb", "child", vec![])]),
            block("cccccc", "two", vec![]),
            block("dddddd", "three", vec![]),
        ];
        // Reordered, one edited in place, one inserted.
        let mut new = vec![
            block("", "two", vec![]),
            block("", "one", vec![block("", "child edited", vec![])]),
            block("", "inserted", vec![]),
            block("", "three", vec![]),
        ];
        carry_ids(&old, &mut new);
        assert_eq!(ids(&new), ["cccccc", "aaaaaa", "bbbbbb", "", "dddddd"]);
    }

    #[test]
    fn duplicate_texts_match_in_order() {
        let old = vec![
            block("aaaaaa", "same", vec![]),
            block("bbbbbb", "same", vec![]),
        ];
        let mut new = vec![
            block("", "same", vec![]),
            block("", "same", vec![]),
            block("", "same", vec![]),
        ];
        carry_ids(&old, &mut new);
        assert_eq!(ids(&new), ["aaaaaa", "bbbbbb", ""]);
    }

    #[test]
    fn user_id_property_wins() {
        let old = vec![block("aaaaaa", "text", vec![])];
        let mut user = block("fresh1", "text", vec![]);
        user.properties.insert(
            ID_PROPERTY.into(),
            "6571a3f0-1111-2222-3333-444455556666".into(),
        );
        let mut new = vec![user, block("", "text", vec![])];
        carry_ids(&old, &mut new);
        assert_eq!(
            ids(&new),
            ["6571a3f0-1111-2222-3333-444455556666", "aaaaaa"]
        );
    }
}
