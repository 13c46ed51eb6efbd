//! Reading a long page, block tree or journal day in slices: each call returns its blocks in
//! document order (a block, then its children, across levels) from a `cursor` on, at most
//! `limit` of them and no more than its reply budget holds, and says where the next slice
//! starts. The slices of a read, one after the other, give exactly the whole read.
//!
//! A slice keeps the outline's nesting: a block whose parent is in the same slice is among its
//! parent's children, and a block whose parent came in an earlier slice tops the slice and
//! names its parent (`parent`), so that the slices join back into the tree. A markdown slice
//! is the markdown of its blocks as the page holds them, cut at the lines where blocks begin.

use serde::Serialize;

use super::paging;
use super::wire_len;
use outl_format::ParsedBlock;
use outl_workspace::Block;
use outl_workspace::Error;

/// Bytes a reply keeps for its [`Cut`], which is known only once the slice is.
pub const CUT_BYTES: usize = 48;

/// Which blocks one call returns: those from position `start` in document order, at most
/// `limit` of them, while the reply stays within `bytes` (always at least one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: usize,
    pub limit: usize,
    pub bytes: usize,
}

impl Window {
    /// The window of a read's `limit`, `cursor` and `budget` arguments; `INVALID_ARGUMENTS`
    /// for a cursor this server did not hand out.
    pub fn of(
        limit: Option<u32>,
        cursor: Option<&str>,
        budget: Option<u32>,
    ) -> Result<Self, Error> {
        Ok(Window {
            start: paging::position(cursor)?,
            limit: limit.map_or(usize::MAX, |limit| limit.max(1) as usize),
            bytes: paging::budget_bytes(budget),
        })
    }
}

/// Where a slice cut short continues; a reply carries it flattened, and not at all when the
/// read reached its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cut {
    /// Pass as `cursor` for the next slice.
    pub next_cursor: String,
    /// Blocks after this slice.
    pub remaining: usize,
}

impl Cut {
    fn at(next: usize, total: usize) -> Option<Cut> {
        (next < total).then(|| Cut {
            next_cursor: next.to_string(),
            remaining: total - next,
        })
    }
}

/// A tree of blocks a slice walks.
pub trait Tree: Sized {
    fn children(&self) -> &[Self];
}

impl Tree for Block {
    fn children(&self) -> &[Block] {
        &self.children
    }
}

impl Tree for ParsedBlock {
    fn children(&self) -> &[ParsedBlock] {
        &self.children
    }
}

/// A node of a slice's reply.
pub trait SliceNode: Serialize {
    /// Appends `child` to the node's children.
    fn adopt(&mut self, child: Self);

    /// The bytes the node's JSON on the wire grows by when it adopts a child, beside the
    /// child's own and its separator.
    fn adoption_bytes(&self) -> usize;
}

/// One block a slice takes, as [`slice_tree`] hands it to the node maker.
pub struct Visit<'t, T> {
    pub block: &'t T,
    /// Its position in document order: what a cursor names.
    pub position: usize,
    /// Its parent and the parent's position, when the parent is in an earlier slice.
    pub parent: Option<(&'t T, usize)>,
    /// How many children the depth limit leaves out (none when it cuts nothing here).
    pub children_omitted: usize,
}

/// A block still to visit: its level, and its parent with the parent's position.
type Pending<'t, T> = (&'t T, usize, Option<(&'t T, usize)>);

/// The slice of the trees `roots`, `levels` deep, that `window` holds, each block made into a
/// node by `make`; the reply around the nodes takes `spent` bytes, and each block `extra`
/// bytes more beside its node (the journal reads' markdown of it, by position).
pub fn slice_tree<T: Tree, N: SliceNode>(
    roots: &[T],
    levels: usize,
    window: Window,
    spent: usize,
    mut make: impl FnMut(Visit<'_, T>) -> N,
    extra: impl Fn(usize) -> usize,
) -> (Vec<N>, Option<Cut>) {
    // Blocks still to visit, the next last.
    let mut to_visit: Vec<Pending<'_, T>> =
        roots.iter().rev().map(|root| (root, 1, None)).collect();
    let mut sliced: Vec<N> = Vec::new();
    // The nodes of the slice whose children may still come, outermost first, with levels.
    let mut open: Vec<(usize, N)> = Vec::new();
    let (mut position, mut taken, mut bytes) = (0, 0, spent);
    let mut next: Option<usize> = None;
    while let Some((block, level, parent)) = to_visit.pop() {
        let at = position;
        position += 1;
        let children = block.children();
        if level < levels {
            to_visit.extend(
                children
                    .iter()
                    .rev()
                    .map(|child| (child, level + 1, Some((block, at)))),
            );
        }
        if at < window.start || next.is_some() {
            continue;
        }
        if taken == window.limit {
            next = Some(at);
            continue;
        }
        close_to(&mut open, &mut sliced, level);
        // The node's parent, if it is in the slice, is the innermost open node.
        let adoption = open.last().map_or(0, |(_, parent)| parent.adoption_bytes());
        let node = make(Visit {
            block,
            position: at,
            parent: if open.is_empty() { parent } else { None },
            children_omitted: if level == levels { children.len() } else { 0 },
        });
        // Its separator, and what its parent's JSON grows by to hold it.
        let cost = wire_len(&node) + 1 + adoption + extra(at);
        if taken > 0 && bytes + cost > window.bytes {
            next = Some(at);
            continue;
        }
        bytes += cost;
        taken += 1;
        open.push((level, node));
    }
    close_to(&mut open, &mut sliced, 1);
    (sliced, next.and_then(|next| Cut::at(next, position)))
}

/// Closes the open nodes at `level` and deeper, each into its parent or the slice's tops.
fn close_to<N: SliceNode>(open: &mut Vec<(usize, N)>, sliced: &mut Vec<N>, level: usize) {
    while open
        .last()
        .is_some_and(|(open_level, _)| *open_level >= level)
    {
        let Some((_, node)) = open.pop() else { break };
        match open.last_mut() {
            Some((_, parent)) => parent.adopt(node),
            None => sliced.push(node),
        }
    }
}

/// The slice of `md` that `window` holds, `md` being cut into blocks at `starts` (as
/// [`outl_format::parse_with_starts`] gives them); the first slice begins with what comes
/// before the first block. At least one block, when any is left; the bytes are those of the
/// markdown alone.
pub fn slice_markdown<'m>(md: &'m str, starts: &[usize], window: Window) -> (&'m str, Option<Cut>) {
    let total = starts.len();
    if window.start >= total {
        let whole = if window.start == 0 { md } else { "" };
        return (whole, None);
    }
    let offset = |block: usize| match block {
        0 => 0,
        block if block >= total => md.len(),
        block => starts[block],
    };
    let begin = offset(window.start);
    let last = window.start.saturating_add(window.limit).min(total);
    let mut end = window.start + 1;
    while end < last && offset(end + 1) - begin <= window.bytes {
        end += 1;
    }
    (&md[begin..offset(end)], Cut::at(end, total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outline::OutlineNode;
    use outl_format::parse_with_starts;

    fn block(id: &str, children: Vec<Block>) -> Block {
        Block {
            children: children.into(),
            ..Block::new(id, format!("text of {id}"))
        }
    }

    /// a(b(c, d), e), f(g)
    fn page() -> Vec<Block> {
        vec![
            block(
                "a",
                vec![
                    block("b", vec![block("c", vec![]), block("d", vec![])]),
                    block("e", vec![]),
                ],
            ),
            block("f", vec![block("g", vec![])]),
        ]
    }

    fn node(visit: Visit<'_, Block>) -> OutlineNode {
        let mut node = OutlineNode::alone(visit.block);
        node.parent = visit.parent.map(|(parent, _)| parent.id.clone());
        node.children_omitted = visit.children_omitted;
        node
    }

    fn window(start: usize, limit: usize) -> Window {
        Window {
            start,
            limit,
            bytes: usize::MAX,
        }
    }

    /// Ids of a slice: `id`, `id<parent` for a top with a parent, children in brackets.
    fn shape(nodes: &[OutlineNode]) -> String {
        nodes
            .iter()
            .map(|n| {
                let parent = n
                    .parent
                    .as_deref()
                    .map(|p| format!("<{p}"))
                    .unwrap_or_default();
                let children = if n.children.is_empty() {
                    String::new()
                } else {
                    format!("({})", shape(&n.children))
                };
                format!("{}{parent}{children}", n.id)
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn slices_cut_across_levels_and_name_the_parents_they_lack() {
        let page = page();
        let slice = |start, limit| slice_tree(&page, 50, window(start, limit), 0, node, |_| 0);
        let (whole, cut) = slice(0, usize::MAX);
        assert_eq!((shape(&whole), cut), ("a(b(c d) e) f(g)".to_owned(), None));
        let (first, cut) = slice(0, 3);
        assert_eq!(shape(&first), "a(b(c))");
        assert_eq!(
            cut,
            Some(Cut {
                next_cursor: "3".into(),
                remaining: 4
            })
        );
        let (second, cut) = slice(3, 3);
        assert_eq!(shape(&second), "d<b e<a f");
        assert_eq!(cut.map(|c| c.next_cursor), Some("6".to_owned()));
        let (last, cut) = slice(6, 3);
        assert_eq!((shape(&last), cut), ("g<f".to_owned(), None));
        let (past, cut) = slice(9, 3);
        assert!(past.is_empty() && cut.is_none());
    }

    #[test]
    fn depth_counts_only_the_levels_read() {
        let page = page();
        let (top, cut) = slice_tree(&page, 1, window(1, 5), 0, node, |_| 0);
        assert_eq!((shape(&top), cut), ("f".to_owned(), None));
        assert_eq!(top[0].children_omitted, 1);
    }

    #[test]
    fn the_budget_cuts_but_takes_one_block_at_least() {
        let page = page();
        let one = wire_len(&OutlineNode::alone(&page[0])) + 1;
        let budget = |bytes| Window {
            start: 0,
            limit: usize::MAX,
            bytes,
        };
        // b brings a children's array into a, a leaf until then.
        let adoption = ",[]".len();
        let (nodes, cut) = slice_tree(&page, 50, budget(one * 2 + adoption + 10), 10, node, |_| 0);
        assert_eq!(shape(&nodes), "a(b)");
        let (nodes, _) = slice_tree(&page, 50, budget(one * 2 + adoption + 9), 10, node, |_| 0);
        assert_eq!(shape(&nodes), "a");
        assert_eq!(cut.map(|c| c.remaining), Some(5));
        let (nodes, _) = slice_tree(&page, 50, budget(1), 100, node, |_| 0);
        assert_eq!(shape(&nodes), "a");
        let (nodes, _) = slice_tree(&page, 50, budget(one * 3), 0, node, |_| one);
        assert_eq!(shape(&nodes), "a", "the extra bytes of each block count");
    }

    #[test]
    fn a_slice_takes_no_more_bytes_on_the_wire_than_its_budget() {
        let page = page();
        let count = |nodes: &[OutlineNode]| -> usize {
            fn all(nodes: &[OutlineNode]) -> usize {
                nodes.iter().map(|n| 1 + all(&n.children)).sum()
            }
            all(nodes)
        };
        for bytes in 0..400 {
            let window = Window {
                start: 0,
                limit: usize::MAX,
                bytes,
            };
            let (nodes, _) = slice_tree(&page, 50, window, 0, node, |_| 0);
            // One block is taken whatever the budget; past that, the budget holds.
            if count(&nodes) > 1 {
                let sent = wire_len(&nodes);
                assert!(
                    sent <= bytes + 1,
                    "{sent} bytes sent for a budget of {bytes}"
                );
            }
        }
    }

    #[test]
    fn markdown_slices_join_into_the_page() {
        let md = "title:: x\n\n- a\n  prop:: 1\n\t- b\n\n\t\t- c\n- d\n";
        let (_, starts) = parse_with_starts(md);
        assert_eq!(starts.len(), 4);
        let mut joined = String::new();
        let mut start = 0;
        loop {
            let (text, cut) = slice_markdown(md, &starts, window(start, 1));
            joined.push_str(text);
            match cut {
                Some(cut) => start = cut.next_cursor.parse().unwrap(),
                None => break,
            }
        }
        assert_eq!(joined, md);
        let (first, cut) = slice_markdown(md, &starts, window(0, 2));
        assert_eq!(first, "title:: x\n\n- a\n  prop:: 1\n\t- b\n\n");
        assert_eq!(cut.map(|c| c.remaining), Some(2));
        let small = Window {
            start: 1,
            limit: usize::MAX,
            bytes: 5,
        };
        assert_eq!(slice_markdown(md, &starts, small).0, "\t- b\n\n");
        assert_eq!(slice_markdown("", &[], window(0, 3)), ("", None));
        assert_eq!(
            slice_markdown("tags:: t\n", &[], window(0, 3)),
            ("tags:: t\n", None)
        );
    }
}
