//! What every tool shares, said once: the server's instructions, which a model reads at
//! `initialize`, and the arguments they describe instead of each `inputSchema`.

/// The arguments that mean the same in every tool that takes them (a page, a block, markdown to
/// write, a slice's size, where it continues, the reply's size), described once, in
/// [`INSTRUCTIONS`], instead of in each `inputSchema`: an argument field of one of these names
/// has no doc comment, and every other one has (checked at compile time).
pub const SHARED_ARGS: [&str; 6] = ["slug", "id", "md", "limit", "cursor", "budget"];

/// What a model is told once, at `initialize`: what every tool shares, said here once rather
/// than in each tool's description (docs/tools.md quotes it).
pub const INSTRUCTIONS: &str = "\
outl serves one outliner workspace: markdown pages of nested blocks, and a journal page per day.

Pages: a page argument (`slug`, `page`) takes the page's name, its slug (the name lowercased) \
or an alias (`alias::`), in any case; a journal day also by its date (2026-11-30) or its title \
(Nov 30th, 2026). Blocks: a block argument (`id`, `parent_id`, `after_id`) takes a block's short \
id, found in the `outline` of outl_page_get, outl_daily_today, outl_daily_get and \
outl_block_tree and in hits, never in markdown. A hit of a search or list is a block's `page` \
(slug), `id` and `text`, or a page's `page` alone.

Outline nodes are arrays: [id, text, fields, children], `fields` an object of what the block \
has besides its text (`todo`, `collapsed`, `properties`, `scheduled`, `deadline`, `logbook`, \
`parent`, `children_omitted`), `children` its nodes; each is left out when empty.

Markdown to write (`md`): `- ` bullets, a tab per level; `key:: value` lines under a bullet are its \
properties, before the first bullet the page's; a block starting with TODO, DOING, DONE, \
LATER, NOW, WAITING or CANCELED is a task; a new one takes the `task_markers` of \
outl_workspace_info, the graph's own. A block's SCHEDULED/DEADLINE lines and \
:LOGBOOK: drawer are read as `scheduled`, `deadline` and `logbook` beside its text, and a \
text update keeps them.

Slices: a list returns `limit` items (50 if left out, 200 at most) with `total`, and \
`next_cursor` while more remain: pass it as `cursor` for the next ones. A read of a page, \
block tree, journal day, render or export returns its blocks in document order: `limit` of \
them if asked, `depth` levels deep for page and block-tree reads (a node whose children were \
left out says how many in `children_omitted`), and no more than its reply holds, about 10,000 \
tokens or `budget` (up to 50,000). A read cut short carries `next_cursor` and `remaining` \
(after markdown, in a second text), and a block whose parent came in an earlier slice names \
its `parent`. A write of more than 200 blocks lists the ids of its top-level blocks only, with \
`ids_total`.

Undo: every write is an op of outl_log, which outl_undo can undo and outl_redo redo.

Errors: a failed call returns isError and structuredContent.error {code, message, data}, data \
saying what to do next: PAGE_NOT_FOUND suggests pages, INVALID_ARGUMENTS lists each problem, \
and a page edited outside outl refuses writes (PAGE_MARKDOWN_AHEAD_OF_LOG) until \
outl_page_reconcile adopts it. A string argument holds 1,000 characters unless its schema \
says more.";

#[cfg(test)]
mod tests {
    use super::*;

    /// `1,000` for 1000: how the instructions write a number.
    fn grouped(n: usize) -> String {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, digit) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(digit);
        }
        out
    }

    #[test]
    fn the_instructions_state_the_limits_the_code_applies() {
        use crate::pages::MAX_LISTED_IDS;
        use crate::paging::{DEFAULT_BUDGET, DEFAULT_LIMIT, MAX_BUDGET, MAX_LIMIT};
        use outl_registry::MAX_STRING_CHARS;
        for stated in [
            format!("more than {MAX_LISTED_IDS} blocks lists the ids of its top-level"),
            format!("`limit` items ({DEFAULT_LIMIT} if left out, {MAX_LIMIT} at most)"),
            format!("about {} tokens", grouped(DEFAULT_BUDGET as usize)),
            format!("(up to {})", grouped(MAX_BUDGET as usize)),
            format!("holds {} characters", grouped(MAX_STRING_CHARS)),
        ] {
            assert!(
                INSTRUCTIONS.contains(&stated),
                "the instructions do not say {stated:?}"
            );
        }
    }

    #[test]
    fn the_instructions_describe_the_shared_arguments() {
        for arg in SHARED_ARGS {
            assert!(
                INSTRUCTIONS.contains(&format!("`{arg}`")),
                "no inputSchema describes `{arg}`, and the instructions do not name it"
            );
        }
    }
}
