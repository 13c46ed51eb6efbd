//! Restructuring a page's outline in memory: taking a block out with its subtree and putting
//! one in at a [`Place`]. Inserting, moving, indenting, outdenting and deleting blocks are each
//! one or both of these inside [`Workspace::edit`](super::Workspace::edit), which validates and
//! writes the result.

use super::ids::served_id;
use thin_vec::ThinVec;

use super::block::{Block, BlockList};
use super::model::Page;

/// Where [`Page::put_block`] puts a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place<'a> {
    /// The last child of the block with this id.
    LastChildOf(&'a str),
    /// The next sibling of the block with this id.
    After(&'a str),
    /// The last block of the page's top level.
    End,
}

impl Page {
    /// Removes the block with this id, with its subtree, and returns it.
    pub fn take_block(&mut self, id: &str) -> Option<Block> {
        take_from(self.blocks_mut(), &served_id(id))
    }

    /// Puts `block` (with its subtree) at `place`; gives it back when the block `place` names
    /// is not on this page.
    pub fn put_block(&mut self, place: Place<'_>, block: Block) -> Result<(), Block> {
        match place {
            Place::End => {
                self.blocks_mut().push(block);
                Ok(())
            }
            Place::LastChildOf(parent) => match self.blocks_mut().find_mut(parent) {
                Some(parent) => {
                    parent.children.push(block);
                    Ok(())
                }
                None => Err(block),
            },
            Place::After(sibling) => put_after(self.blocks_mut(), &served_id(sibling), block),
        }
    }
}

impl Block {
    /// Whether `id` is this block's or one of its descendants'.
    pub fn contains(&self, id: &str) -> bool {
        fn holds(block: &Block, id: &str) -> bool {
            block.id == id || block.children.iter().any(|child| holds(child, id))
        }
        holds(self, &served_id(id))
    }

    /// This block and its descendants.
    pub fn subtree_len(&self) -> usize {
        1 + self.children.iter().map(Block::subtree_len).sum::<usize>()
    }
}

fn take_from(blocks: &mut ThinVec<Block>, id: &str) -> Option<Block> {
    if let Some(at) = blocks.iter().position(|b| b.id == id) {
        return Some(blocks.remove(at));
    }
    blocks
        .iter_mut()
        .find_map(|b| take_from(&mut b.children, id))
}

fn put_after(blocks: &mut ThinVec<Block>, sibling: &str, block: Block) -> Result<(), Block> {
    if let Some(at) = blocks.iter().position(|b| b.id == sibling) {
        blocks.insert(at + 1, block);
        return Ok(());
    }
    let mut block = block;
    for candidate in blocks.iter_mut() {
        match put_after(&mut candidate.children, sibling, block) {
            Ok(()) => return Ok(()),
            Err(back) => block = back,
        }
    }
    Err(block)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PageKind;

    fn block(id: &str, children: Vec<Block>) -> Block {
        Block {
            children: children.into(),
            ..Block::new(id, format!("text of {id}"))
        }
    }

    /// a (b (c), d), e
    fn page() -> Page {
        let blocks = thin_vec::thin_vec![
            block(
                "a",
                vec![block("b", vec![block("c", vec![])]), block("d", vec![])],
            ),
            block("e", vec![]),
        ];
        Page::new(
            "p".into(),
            "p".into(),
            PageKind::Page,
            "pages/p.md".into(),
            Default::default(),
            blocks,
        )
    }

    /// The outline as `id(children) id …`.
    fn shape(blocks: &[Block]) -> String {
        blocks
            .iter()
            .map(|b| {
                if b.children.is_empty() {
                    b.id.to_string()
                } else {
                    format!("{}({})", b.id, shape(&b.children))
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn take_removes_a_subtree_anywhere() {
        let mut p = page();
        let b = p.take_block("b").expect("b is on the page");
        assert_eq!(shape(std::slice::from_ref(&b)), "b(c)");
        assert_eq!(b.subtree_len(), 2);
        assert_eq!(shape(&p.blocks()), "a(d) e");
        assert_eq!(p.take_block("c"), None, "c left with b");
        assert_eq!(p.take_block("e").map(|e| e.id), Some("e".into()));
        assert_eq!(shape(&p.blocks()), "a(d)");
    }

    #[test]
    fn put_places_last_child_after_a_sibling_or_at_the_end() {
        let mut p = page();
        p.put_block(Place::LastChildOf("c"), block("x", vec![]))
            .unwrap();
        p.put_block(Place::After("b"), block("y", vec![])).unwrap();
        p.put_block(Place::After("e"), block("z", vec![])).unwrap();
        p.put_block(Place::End, block("w", vec![])).unwrap();
        assert_eq!(shape(&p.blocks()), "a(b(c(x)) y d) e z w");
    }

    #[test]
    fn put_gives_the_block_back_when_the_anchor_is_elsewhere() {
        let mut p = page();
        let back = p.put_block(Place::After("nope"), block("x", vec![block("x1", vec![])]));
        assert_eq!(back.map_err(|b| shape(&[b])), Err("x(x1)".to_string()));
        let back = p.put_block(Place::LastChildOf("nope"), block("y", vec![]));
        assert_eq!(back.map_err(|b| b.id), Err("y".into()));
        assert_eq!(shape(&p.blocks()), "a(b(c) d) e");
    }

    #[test]
    fn paths_and_containment() {
        let p = page();
        let blocks = p.blocks();
        let (path, _) = blocks.find("c").unwrap();
        assert_eq!(path, [0, 0, 0]);
        assert_eq!(blocks.at(&path).map(|b| b.id.as_str()), Some("c"));
        assert_eq!(blocks.at(&[0, 1]).map(|b| b.id.as_str()), Some("d"));
        assert_eq!(blocks.at(&[0, 2]), None);
        assert_eq!(blocks.at(&[]), None);
        let a = blocks.at(&[0]).unwrap();
        assert!(a.contains("a") && a.contains("c") && !a.contains("e"));
    }
}
