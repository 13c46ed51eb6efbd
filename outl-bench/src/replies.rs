//! `outl-bench replies`: what every tool's reply costs a model, against the wire before RFC
//! 0276, and what `tools/list` costs.
//!
//! One representative call per tool (reads on a typical page and journal day, writes on a
//! scratch copy so that they are real), run through the registry in process. The same handler
//! output is projected twice: by `outl_registry::tool_success_payload`, as the server sends it,
//! and by [`pre_rfc_result`], as it was sent before. Each is measured as the whole JSON-RPC
//! `result` object, compact as on the wire, in bytes and in o200k tokens.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clap::Args;
use outl_registry::{Payload, Reply, ToolEntry, tool_definitions, tool_success_payload};
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

use super::prerfc::pre_rfc_result;
use super::scratch::Scratch;
use super::stats;
use outl_tools::{Outl, REGISTRY};
use outl_workspace::Error;
use outl_workspace::{Block, BlockList, Page, Workspace};

/// RFC 0276's targets: the total at least this much below the pre-RFC wire, in tokens.
const TOTAL_TARGET_PERCENT: f64 = 65.0;
/// And `outl_daily_today`, the call every session starts with.
const DAILY_TODAY_TARGET_PERCENT: f64 = 70.0;
/// Keys listed per tool in the report's last column.
const COSTLIEST_SHOWN: usize = 4;
/// The most tokens the `tools/list` result may take as sent, every tool's definition together.
const TOOLS_LIST_TARGET_TOKENS: u64 = 4_000;

#[derive(Debug, Args)]
pub struct RepliesArgs {
    /// The workspace to measure (made by `outl-bench gen`, or any Logseq graph); it is copied
    /// first and the copy takes the writes.
    #[arg(long, short = 'w', value_name = "DIR")]
    workspace: PathBuf,
    /// The day `outl_daily_today` reads. Its journal is made a copy of the median journal day,
    /// so the call measures a typical day whatever the date.
    #[arg(long, value_name = "YYYY-MM-DD")]
    today: Option<NaiveDate>,
}

/// The sizes of one tool's reply on both wires.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Measured {
    pub pre_rfc_bytes: u64,
    pub pre_rfc_tokens: u64,
    pub bytes: u64,
    pub tokens: u64,
    /// For a JSON payload, the keys whose values cost the most tokens on the wire, with what
    /// leaving each out would save; largest first.
    pub costliest: Vec<(String, u64)>,
}

impl std::ops::AddAssign<&Measured> for Measured {
    fn add_assign(&mut self, other: &Measured) {
        self.pre_rfc_bytes += other.pre_rfc_bytes;
        self.pre_rfc_tokens += other.pre_rfc_tokens;
        self.bytes += other.bytes;
        self.tokens += other.tokens;
    }
}

/// Measures the reply to one call of `tool`.
pub fn measure(
    bpe: &CoreBPE,
    tool: &ToolEntry<Outl>,
    reply: &Reply<Error>,
) -> Result<Measured, String> {
    let tokens = |text: &str| bpe.encode_ordinary(text).len() as u64;
    let data = reply.data().map_err(|e| e.to_string())?;
    let pre_rfc = pre_rfc_result(tool.name(), &data).to_string();
    let sent = wire_text(reply);
    let sent_tokens = tokens(&sent);
    let costliest = match tool.spec.payload {
        Payload::Markdown { .. } => Vec::new(),
        Payload::Json => {
            let pruned = sent_data(&sent)?;
            let mut keys = Vec::new();
            collect_keys(&pruned, &mut keys);
            let mut costs: Vec<(String, u64)> = keys
                .into_iter()
                .map(|key| {
                    let mut without = pruned.clone();
                    remove_key(&mut without, &key);
                    let without =
                        Reply::new::<Outl, _>("outl-bench replies", Payload::Json, without);
                    let saved = sent_tokens.saturating_sub(tokens(&wire_text(&without)));
                    (key, saved)
                })
                .collect();
            costs.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            costs
        }
    };
    Ok(Measured {
        pre_rfc_bytes: pre_rfc.len() as u64,
        pre_rfc_tokens: tokens(&pre_rfc),
        bytes: sent.len() as u64,
        tokens: sent_tokens,
        costliest,
    })
}

/// The data a JSON reply's text carries, read back from the `CallToolResult` sent.
fn sent_data(sent: &str) -> Result<Value, String> {
    let result: Value = serde_json::from_str(sent).map_err(|e| e.to_string())?;
    let text = result["content"][0]["text"]
        .as_str()
        .ok_or("a JSON reply without a text content")?;
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// `tools/list` in bytes and o200k tokens: the whole result as the server sends it, and the
/// part of it a host hands the model as its tool definitions, each tool's `name`,
/// `description` and `inputSchema` (the annotations are for the host to decide on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolsList {
    pub bytes: u64,
    pub tokens: u64,
    pub read_bytes: u64,
    pub read_tokens: u64,
}

impl ToolsList {
    pub fn measure(bpe: &CoreBPE) -> ToolsList {
        let tokens = |text: &str| bpe.encode_ordinary(text).len() as u64;
        let tools = tool_definitions(&REGISTRY);
        // Tools are plain data: serializing them cannot fail.
        let sent =
            serde_json::to_string(&rmcp::model::ListToolsResult::with_all_items(tools.clone()))
                .unwrap_or_default();
        let read: Vec<Value> = tools
            .iter()
            .map(|tool| {
                let tool = serde_json::to_value(tool).unwrap_or_default();
                json!({
                    "name": tool["name"],
                    "description": tool["description"],
                    "inputSchema": tool["inputSchema"],
                })
            })
            .collect();
        let read = json!({ "tools": read }).to_string();
        ToolsList {
            bytes: sent.len() as u64,
            tokens: tokens(&sent),
            read_bytes: read.len() as u64,
            read_tokens: tokens(&read),
        }
    }
}

/// The `result` object the server sends for this handler output, as compact JSON.
fn wire_text(reply: &Reply<Error>) -> String {
    let mut result = tool_success_payload(reply);
    // rmcp leaves `resultType` (a 2026-07-28 field) out for peers on the protocol versions outl
    // speaks, so it is not part of what is sent.
    result.result_type = None;
    // A `CallToolResult` is plain data: serializing it cannot fail.
    serde_json::to_string(&result).unwrap_or_default()
}

/// Every object key in `value`, once each, in order of first appearance.
fn collect_keys(value: &Value, keys: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if !keys.contains(key) {
                    keys.push(key.clone());
                }
                collect_keys(child, keys);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_keys(item, keys)),
        _ => {}
    }
}

/// Removes `key` from every object in `value`.
fn remove_key(value: &mut Value, key: &str) {
    match value {
        Value::Object(map) => {
            map.shift_remove(key);
            map.values_mut().for_each(|child| remove_key(child, key));
        }
        Value::Array(items) => items.iter_mut().for_each(|item| remove_key(item, key)),
        _ => {}
    }
}

pub fn run(args: &RepliesArgs) -> Result<(), String> {
    let scratch = Scratch::copy_of(&args.workspace)
        .map_err(|e| format!("cannot copy {}: {e}", args.workspace.display()))?;
    let today = args
        .today
        .unwrap_or_else(|| chrono::Local::now().date_naive());
    make_today_typical(scratch.path(), today)?;
    let ws = Workspace::open(scratch.path()).map_err(|e| format!("cannot open the copy: {e}"))?;
    let targets = Targets::of(&ws, today)?;
    let bpe = tiktoken_rs::o200k_base().map_err(|e| format!("cannot load o200k_base: {e}"))?;

    let mut measured: HashMap<&str, Result<Measured, String>> = HashMap::new();
    let mut used: HashMap<&str, Value> = HashMap::new();
    for tool in in_call_order(REGISTRY.tools()) {
        let name = tool.name();
        let Some(call) = representative_call(name, &targets) else {
            measured.insert(name, Err("no representative call".into()));
            continue;
        };
        if let Some(setup) = call.setup {
            setup(&ws, &targets)?;
        }
        used.insert(name, call.arguments.clone());
        let outcome = match tool.call(&ws, call.arguments) {
            Ok(reply) => measure(&bpe, tool, &reply),
            Err(e) => Err(e.to_string()),
        };
        measured.insert(name, outcome);
    }

    let tools_list = ToolsList::measure(&bpe);
    print_report(
        &measured,
        &used,
        &targets,
        scratch.markdown_bytes,
        tools_list,
    )
}

fn print_report(
    measured: &HashMap<&str, Result<Measured, String>>,
    used: &HashMap<&str, Value>,
    targets: &Targets,
    markdown_bytes: u64,
    tools_list: ToolsList,
) -> Result<(), String> {
    println!(
        "Workspace: {} pages, {} journal days, {} blocks, {} of markdown. Typical page `{}`, \
         typical journal day {}.\n",
        targets.pages,
        targets.journals,
        targets.blocks,
        stats::bytes(markdown_bytes),
        targets.page,
        targets.journal
    );
    println!(
        "| tool | payload | pre-RFC bytes | bytes | pre-RFC tokens | tokens | tokens saved | \
         costliest keys (tokens saved without each) |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
    let mut total = Measured::default();
    let mut failures = Vec::new();
    for tool in REGISTRY.tools() {
        let name = tool.name();
        let payload = match tool.spec.payload {
            Payload::Json => "json".to_owned(),
            Payload::Markdown { field, .. } => format!("markdown({field})"),
        };
        match measured.get(name) {
            Some(Ok(m)) => {
                total += m;
                let costliest: Vec<String> = m
                    .costliest
                    .iter()
                    .take(COSTLIEST_SHOWN)
                    .map(|(key, saved)| format!("`{key}` {saved}"))
                    .collect();
                println!(
                    "| `{name}` | {payload} | {} | {} | {} | {} | {:.1}% | {} |",
                    m.pre_rfc_bytes,
                    m.bytes,
                    m.pre_rfc_tokens,
                    m.tokens,
                    stats::reduction(m.pre_rfc_tokens, m.tokens),
                    costliest.join(", ")
                );
            }
            Some(Err(why)) => {
                println!("| `{name}` | {payload} | | | | | not measured | |");
                failures.push(format!("{name}: {why}"));
            }
            None => failures.push(format!("{name}: not run")),
        }
    }
    let total_saved = stats::reduction(total.pre_rfc_tokens, total.tokens);
    println!(
        "| **total** | | {} | {} | {} | {} | **{total_saved:.1}%** | |\n",
        total.pre_rfc_bytes, total.bytes, total.pre_rfc_tokens, total.tokens
    );
    println!(
        "Bytes saved in total: {:.1}%.\n",
        stats::reduction(total.pre_rfc_bytes, total.bytes)
    );
    println!(
        "| `tools/list`, {} tools | bytes | tokens |\n| --- | ---: | ---: |",
        REGISTRY.tools().len()
    );
    println!(
        "| the result, as sent | {} | {} |",
        tools_list.bytes, tools_list.tokens
    );
    println!(
        "| the tool definitions a model reads: `name`, `description`, `inputSchema` | {} | {} |\n",
        tools_list.read_bytes, tools_list.read_tokens
    );

    let daily_saved = match measured.get("outl_daily_today") {
        Some(Ok(m)) => Some(stats::reduction(m.pre_rfc_tokens, m.tokens)),
        _ => None,
    };
    println!("| target | tokens saved | met |");
    println!("| --- | ---: | --- |");
    println!(
        "| total at least {TOTAL_TARGET_PERCENT}% below the pre-RFC wire | {total_saved:.1}% | {} |",
        yes_no(total_saved >= TOTAL_TARGET_PERCENT)
    );
    match daily_saved {
        Some(saved) => println!(
            "| `outl_daily_today` at least {DAILY_TODAY_TARGET_PERCENT}% below | {saved:.1}% | {} |",
            yes_no(saved >= DAILY_TODAY_TARGET_PERCENT)
        ),
        None => println!(
            "| `outl_daily_today` at least {DAILY_TODAY_TARGET_PERCENT}% below | not measured | no |"
        ),
    }
    println!(
        "| `tools/list`, as sent, at most {TOOLS_LIST_TARGET_TOKENS} tokens | {} tokens | {} |\n",
        tools_list.tokens,
        yes_no(tools_list.tokens <= TOOLS_LIST_TARGET_TOKENS)
    );

    println!("<details><summary>The calls measured</summary>\n");
    println!("| tool | arguments |");
    println!("| --- | --- |");
    for tool in REGISTRY.tools() {
        if let Some(arguments) = used.get(tool.name()) {
            println!("| `{}` | `{arguments}` |", tool.name());
        }
    }
    println!("\n</details>");

    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} tool(s) not measured:\n  {}",
            failures.len(),
            failures.join("\n  ")
        ))
    }
}

fn yes_no(met: bool) -> &'static str {
    if met { "yes" } else { "**no**" }
}

/// Writes `today`'s journal as a copy of the median journal day (by size), so that
/// `outl_daily_today` reads a typical day.
fn make_today_typical(root: &Path, today: NaiveDate) -> Result<(), String> {
    let journals = root.join("journals");
    let mut days: Vec<(u64, PathBuf)> = std::fs::read_dir(&journals)
        .map_err(|e| format!("cannot list {}: {e}", journals.display()))?
        .filter_map(Result::ok)
        .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "md"))
        .filter_map(|entry| Some((entry.metadata().ok()?.len(), entry.path())))
        .collect();
    days.sort();
    let Some((_, median)) = days.get(days.len() / 2) else {
        return Err(format!("{} holds no journal day", journals.display()));
    };
    let target = journals.join(format!("{}.md", today.format("%Y_%m_%d")));
    if *median != target {
        std::fs::copy(median, &target)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    }
    Ok(())
}

/// Reads first, then writes, then undo and redo (which need the writes before them), then the
/// log: every other read sees the workspace as generated, and the history tools have
/// something to act on.
fn in_call_order(tools: &'static [ToolEntry<Outl>]) -> Vec<&'static ToolEntry<Outl>> {
    let rank = |tool: &ToolEntry<Outl>| match tool.name() {
        "outl_undo" => 3,
        "outl_redo" => 4,
        // The log is read last, when it holds the writes above.
        "outl_log" => 5,
        _ if tool.spec.annotations.read_only => 0,
        // Deleting and renaming go after the other writes, which use pages they might move.
        _ if tool.spec.annotations.destructive => 2,
        _ => 1,
    };
    let mut ordered: Vec<&ToolEntry<Outl>> = tools.iter().collect();
    ordered.sort_by_key(|tool| rank(tool));
    ordered
}

/// What the representative calls act on, chosen from the workspace itself.
struct Targets {
    /// The topic page with the median number of blocks.
    page: String,
    /// Its markdown, for the call that replaces it.
    page_markdown: String,
    /// Its blocks as markdown (no page properties, which hold its `title::`), for the calls
    /// that write a page's worth into another page.
    blocks_markdown: String,
    /// Pages next to it in size, for the calls that rename, delete and reconcile one.
    spare_pages: Vec<String>,
    /// The journal day with the median number of blocks.
    journal: String,
    today: NaiveDate,
    /// The typical page's first top-level block with children (or its first block).
    tree: String,
    /// A block one level down, for outdenting.
    child: String,
    /// A top-level block after the first, for indenting.
    second_top: String,
    /// Leaf blocks of the typical page and journal day, each used by one write.
    leaves: Vec<String>,
    /// A block other blocks reference.
    referenced: String,
    /// A tag of median popularity.
    tag: String,
    query: String,
    pages: usize,
    journals: usize,
    blocks: usize,
}

impl Targets {
    fn of(ws: &Workspace, today: NaiveDate) -> Result<Targets, String> {
        let graph = ws.snapshot();
        let by_size = |journal: bool| {
            let mut pages: Vec<&Page> = graph
                .pages()
                .filter(|p| p.date().is_some() == journal && p.body.count() > 0)
                .collect();
            pages.sort_by_key(|p| (p.body.count(), p.slug.clone()));
            pages
        };
        let topics = by_size(false);
        let journals = by_size(true);
        let middle = topics.len() / 2;
        let (Some(page), Some(journal)) = (topics.get(middle), journals.get(journals.len() / 2))
        else {
            return Err("the workspace needs pages and journal days with blocks".into());
        };
        let spare_pages: Vec<String> = topics
            .iter()
            .skip(middle + 1)
            .take(3)
            .map(|p| p.slug.clone())
            .collect();
        let blocks = page.blocks();
        let tree = blocks
            .iter()
            .find(|b| !b.children.is_empty())
            .unwrap_or(&blocks[0]);
        let child = blocks
            .iter()
            .find_map(|b| b.children.first())
            .unwrap_or(tree);
        let second_top = blocks.get(1).unwrap_or(&blocks[0]);
        // The typical page's leaves first; a small page has few, so the journal's follow.
        let mut leaves = Vec::new();
        collect_leaves(&blocks, &mut leaves);
        let journal_blocks = journal.blocks();
        collect_leaves(&journal_blocks, &mut leaves);
        let leaves: Vec<String> = leaves
            .into_iter()
            .filter(|id| *id != tree.id && *id != child.id && *id != second_top.id)
            .collect();
        let tags = graph.index().tags();
        let tag = tags
            .get(tags.len() / 2)
            .map(|(tag, _)| (*tag).to_owned())
            .unwrap_or_else(|| "idea".into());
        let referenced = graph
            .pages()
            .find_map(|p| {
                p.blocks().preorder().into_iter().find_map(|b| {
                    (b.properties.contains_key("id") && !graph.index().block_refs(&b.id).is_empty())
                        .then(|| b.id.to_string())
                })
            })
            .unwrap_or_else(|| tree.id.to_string());
        let query = first_words(&blocks[0].text, 2);
        Ok(Targets {
            page: page.slug.clone(),
            page_markdown: ws.render_page(page),
            blocks_markdown: ws.render_blocks(&blocks),
            spare_pages,
            journal: journal.slug.clone(),
            today,
            tree: tree.id.to_string(),
            child: child.id.to_string(),
            second_top: second_top.id.to_string(),
            leaves,
            referenced,
            tag,
            query,
            pages: topics.len(),
            journals: journals.len(),
            blocks: graph.block_count(),
        })
    }

    /// The `n`th leaf of the typical page, else its first block with children.
    fn leaf(&self, n: usize) -> &str {
        self.leaves.get(n).unwrap_or(&self.tree)
    }

    fn spare(&self, n: usize) -> &str {
        self.spare_pages.get(n).unwrap_or(&self.page)
    }
}

fn collect_leaves(blocks: &[Block], out: &mut Vec<String>) {
    for block in blocks {
        if block.children.is_empty() {
            out.push(block.id.to_string());
        } else {
            collect_leaves(&block.children, out);
        }
    }
}

/// The first `n` words of four letters or more, for a search that finds the block again.
fn first_words(text: &str, n: usize) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 4)
        .take(n)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What must happen on disk before a call.
type Setup = fn(&Workspace, &Targets) -> Result<(), String>;

/// One call: its arguments and its setup.
struct Call {
    arguments: Value,
    setup: Option<Setup>,
}

fn call(arguments: Value) -> Option<Call> {
    Some(Call {
        arguments,
        setup: None,
    })
}

/// The call each tool is measured with; `None` for a tool this benchmark does not know yet,
/// which the report names.
fn representative_call(tool: &str, t: &Targets) -> Option<Call> {
    let today = t.today.format("%Y-%m-%d").to_string();
    match tool {
        "outl_workspace_info" => call(json!({})),
        "outl_page_list" => call(json!({})),
        "outl_page_get" | "outl_page_render" | "outl_links" => call(json!({"slug": t.page})),
        "outl_page_backlinks" => call(json!({"slug": t.page})),
        "outl_page_create" => call(json!({
            "name": "Benchmark notes",
            "md": t.blocks_markdown,
        })),
        "outl_page_update" => call(json!({
            "slug": t.page,
            "md": format!("{}- One more block at the end\n", t.page_markdown),
        })),
        "outl_page_append" => call(json!({
            "slug": t.page,
            "md": "- Follow-up from the review\n\t- TODO Send the notes to the team\n",
        })),
        "outl_page_rename" => call(json!({
            "slug": t.spare(0),
            "new_name": format!("{} renamed", t.spare(0)),
        })),
        "outl_page_delete" => call(json!({"slug": t.spare(1)})),
        "outl_page_reconcile" => Some(Call {
            arguments: json!({"slug": t.spare(2)}),
            setup: Some(edit_outside_outl),
        }),
        "outl_block_get" => call(json!({"id": t.leaf(0)})),
        "outl_block_tree" => call(json!({"id": t.tree})),
        "outl_block_refs" => call(json!({"id": t.referenced})),
        "outl_block_insert" => call(json!({
            "parent_id": t.tree,
            "text": "TODO Check the numbers with the team",
        })),
        "outl_block_update" => call(json!({
            "id": t.leaf(1),
            "text": "Reviewed the draft with the team",
        })),
        "outl_block_delete" => call(json!({"id": t.leaf(2)})),
        "outl_block_move" => call(json!({"id": t.leaf(3), "parent_id": t.tree})),
        "outl_block_indent" => call(json!({"id": t.second_top})),
        "outl_block_outdent" => call(json!({"id": t.child})),
        "outl_block_todo" => call(json!({"id": t.leaf(4), "state": "DONE"})),
        "outl_block_property_set" => call(json!({
            "id": t.leaf(5),
            "key": "status",
            "value": "reviewed",
        })),
        "outl_block_property_remove" => call(json!({"id": t.leaf(5), "key": "status"})),
        "outl_block_collapse" => call(json!({"id": t.tree, "collapsed": true})),
        "outl_daily_today" => call(json!({})),
        "outl_daily_get" => call(json!({"date": t.journal})),
        "outl_daily_list" => call(json!({})),
        "outl_daily_append" => call(json!({
            "date": today,
            "md": "- TODO Follow up on the review\n",
        })),
        "outl_export_md" => call(json!({"slug": t.page})),
        "outl_export_json" => call(json!({"slug": t.page})),
        "outl_import_md" => call(json!({
            "name": "Imported notes",
            "md": t.blocks_markdown,
            "mode": "create",
        })),
        "outl_search" => call(json!({"query": t.query})),
        "outl_tasks" => call(json!({})),
        "outl_tags" => call(json!({})),
        "outl_tag_get" => call(json!({"tag": t.tag})),
        "outl_property_query" => call(json!({"key": "status", "value": "active"})),
        "outl_recent" => call(json!({})),
        "outl_log" => call(json!({})),
        "outl_undo" | "outl_redo" => call(json!({})),
        _ => None,
    }
}

/// Appends a block to a spare page's file behind outl's back, as another editor would.
fn edit_outside_outl(ws: &Workspace, t: &Targets) -> Result<(), String> {
    let file = ws
        .snapshot()
        .page(t.spare(2))
        .map(|p| p.file.clone())
        .ok_or_else(|| format!("no page {}", t.spare(2)))?;
    let path = ws.root().join(&file);
    let mut markdown =
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {file}: {e}"))?;
    markdown.push_str("- Added in another editor\n");
    std::fs::write(&path, markdown).map_err(|e| format!("cannot write {file}: {e}"))?;
    ws.refresh().map_err(|e| format!("cannot refresh: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::LAST_JOURNAL;

    #[test]
    fn every_tool_has_a_representative_call() {
        let targets = Targets {
            page: "projects/apollo".into(),
            page_markdown: "- one\n".into(),
            blocks_markdown: "- one\n".into(),
            spare_pages: vec!["a".into(), "b".into(), "c".into()],
            journal: "2026-11-29".into(),
            today: LAST_JOURNAL,
            tree: "t1".into(),
            child: "c1".into(),
            second_top: "s1".into(),
            leaves: vec!["l1".into()],
            referenced: "r1".into(),
            tag: "idea".into(),
            query: "budget".into(),
            pages: 1,
            journals: 1,
            blocks: 3,
        };
        let missing: Vec<&str> = REGISTRY
            .tools()
            .iter()
            .map(|tool| tool.name())
            .filter(|name| representative_call(name, &targets).is_none())
            .collect();
        assert!(missing.is_empty(), "no representative call for {missing:?}");
    }

    #[test]
    fn tools_list_fits_its_budget() {
        let bpe = tiktoken_rs::o200k_base().expect("o200k_base ships with tiktoken-rs");
        let listed = ToolsList::measure(&bpe);
        assert!(
            listed.tokens <= TOOLS_LIST_TARGET_TOKENS,
            "tools/list takes {} tokens, over {TOOLS_LIST_TARGET_TOKENS}: say what every tool \
             shares in the server's instructions, once",
            listed.tokens
        );
        assert!(listed.read_tokens < listed.tokens && listed.read_bytes < listed.bytes);
    }

    #[test]
    fn the_pre_rfc_wire_costs_more_than_the_projection() {
        let bpe = tiktoken_rs::o200k_base().expect("o200k_base ships with tiktoken-rs");
        let tool = REGISTRY
            .get("outl_workspace_info")
            .expect("outl_workspace_info is registered");
        let data =
            json!({"path": "/notes", "pages": 3, "journals": 1, "blocks": 12, "version": "0.1.0"});
        let reply =
            Reply::<Error>::new::<Outl, _>("outl_workspace_info", Payload::Json, data.clone());
        let m = measure(&bpe, tool, &reply).expect("measured");
        let sent = json!({"content": [{"type": "text", "text": data.to_string()}]}).to_string();
        assert_eq!(m.bytes, sent.len() as u64);
        assert_eq!(m.tokens, bpe.encode_ordinary(&sent).len() as u64);
        assert!(m.pre_rfc_bytes > 2 * m.bytes, "{m:?}");
        assert!(m.pre_rfc_tokens > 2 * m.tokens, "{m:?}");
    }
}
