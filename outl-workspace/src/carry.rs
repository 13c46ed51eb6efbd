//! Carrying block ids from one version of a page's blocks to the next: by `id::` and by an
//! alignment of the two versions (see `align`), or from a list of ids in document order (a
//! sidecar's, an op's).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use compact_str::CompactString;

use super::align;
use super::block::{Block, BlockList, user_id};

/// Gives the blocks of `new` the ids of their counterparts in `old`: one id for a block through
/// every version of its page, whatever changed around it. Used by every write that replaces a
/// page's blocks wholesale, by reconcile and by the read of a page edited outside outl.
///
/// A block with an `id::` property continues the old block with that `id::` (or that id), and
/// has that id when there is none; of several blocks with one `id::` (a pasted copy) only the
/// first does, as Logseq keeps it. The others continue the old blocks that the alignment of the
/// two versions pairs them with (see `align`): a block edited, moved, or left in place among
/// blocks added and removed keeps its id; a pasted copy does not. A block with no counterpart
/// keeps the id it had (fresh or empty).
pub fn carry_ids(old: &[Block], new: &mut [Block]) {
    let old_flat = old.preorder();
    let new_flat = new.preorder();
    let mut matched: Vec<Option<usize>> = vec![None; new_flat.len()];
    let mut used = vec![false; old_flat.len()];
    let mut by_id: HashMap<Cow<'_, str>, usize> = HashMap::new();
    for (i, block) in old_flat.iter().enumerate() {
        if let Some(user) = user_id(block) {
            by_id.entry(user).or_insert(i);
        }
        if !block.id.is_empty() {
            by_id.entry(Cow::Borrowed(block.id.as_str())).or_insert(i);
        }
    }
    let mut ids: Vec<Option<CompactString>> = vec![None; new_flat.len()];
    let mut claimed: HashSet<Cow<'_, str>> = HashSet::new();
    for (j, block) in new_flat.iter().enumerate() {
        let Some(user) = user_id(block) else {
            continue;
        };
        if claimed.insert(user.clone()) {
            ids[j] = Some(user.as_ref().into());
            if let Some(&i) = by_id.get(&user) {
                matched[j] = Some(i);
                used[i] = true;
            }
        }
    }
    // Old blocks whose id a new block claims are taken, matched or not.
    for (i, block) in old_flat.iter().enumerate() {
        if claimed.contains(block.id.as_str())
            || user_id(block).is_some_and(|u| claimed.contains(&u))
        {
            used[i] = true;
        }
    }
    let olds: Vec<usize> = (0..old_flat.len()).filter(|&i| !used[i]).collect();
    let news: Vec<usize> = (0..new_flat.len())
        .filter(|&j| user_id(new_flat[j]).is_none())
        .collect();
    let old_texts: Vec<&str> = olds.iter().map(|&i| old_flat[i].text.as_str()).collect();
    let new_texts: Vec<&str> = news.iter().map(|&j| new_flat[j].text.as_str()).collect();
    for (at, continued) in align::align(&old_texts, &new_texts).into_iter().enumerate() {
        matched[news[at]] = continued.map(|k| olds[k]);
    }
    for (id, continued) in ids.iter_mut().zip(&matched) {
        if let Some(i) = continued {
            *id = Some(old_flat[*i].id.clone());
        }
    }
    set_ids_preorder(new, &mut ids.into_iter());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{ID_PROPERTY, served_id};

    fn block(id: &str, text: &str, children: Vec<Block>) -> Block {
        Block {
            children: children.into(),
            ..Block::new(id, text)
        }
    }

    fn ids(blocks: &[Block]) -> Vec<String> {
        blocks.preorder().iter().map(|b| b.id.to_string()).collect()
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
        // A UUID is served by its short id.
        let short = served_id("6571a3f0-1111-2222-3333-444455556666");
        assert_eq!(short.len(), 7);
        assert_eq!(ids(&new), [short.as_ref(), "aaaaaa"]);
    }
}
