//! `outl-bench pages`: what reading a page with `outl_page_get` costs a model, against the
//! page's own markdown.
//!
//! Every page of a scratch copy of the workspace is read whole through the registry, slice
//! after slice, each reply projected by `outl_registry::tool_success_payload` as the server
//! sends it. A read is measured as what a host hands the model, the reply's text contents, in
//! o200k tokens; the page as the markdown its file holds. The report gives, for topic pages and
//! journal days apart, the median of the pages' ratios, the typical ratio (that of the page the
//! median token of their markdown is on, so that neither the many short pages nor one very long
//! one decide it) and the ratio of all of them read together; and, to weigh what the ids cost,
//! the typical ratio of the file with one id per block beside it (a reply can go below it, as
//! it leaves out the file's `id::` lines and bullets).

use std::path::PathBuf;

use clap::Args;
use outl_registry::{ToolEntry, tool_success_payload};
use rmcp::model::ContentBlock;
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

use super::scratch::Scratch;
use outl_tools::{Outl, REGISTRY};
use outl_workspace::{BlockList, Page, Workspace};

#[derive(Debug, Args)]
pub struct PagesArgs {
    /// The workspace to measure (made by `outl-bench gen`, or any Logseq graph); it is copied
    /// first, and the copy is read.
    #[arg(long, short = 'w', value_name = "DIR")]
    workspace: PathBuf,
}

/// One page read whole, in o200k tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PageRead {
    /// The page's file.
    markdown: u64,
    /// The replies of `outl_page_get`, every slice of the page.
    read: u64,
    /// The page's block ids, one after the other with a space between.
    ids: u64,
}

impl PageRead {
    fn ratio(&self) -> f64 {
        self.read as f64 / self.markdown as f64
    }

    fn with_ids(&self) -> f64 {
        (self.markdown + self.ids) as f64 / self.markdown as f64
    }
}

pub fn run(args: &PagesArgs) -> Result<(), String> {
    let scratch = Scratch::copy_of(&args.workspace)
        .map_err(|e| format!("cannot copy {}: {e}", args.workspace.display()))?;
    let ws = Workspace::open(scratch.path()).map_err(|e| format!("cannot open the copy: {e}"))?;
    let bpe = tiktoken_rs::o200k_base().map_err(|e| format!("cannot load o200k_base: {e}"))?;
    let tool = REGISTRY
        .get("outl_page_get")
        .ok_or("outl_page_get is not registered")?;
    // What each page is, taken before any read: a snapshot holds the graph's read lock, which a
    // read may need for writing when it looks for files changed outside outl.
    let pages: Vec<(String, String, bool, String)> = ws
        .snapshot()
        .pages()
        .map(|page| {
            let journal = page.date().is_some();
            (
                page.slug.clone(),
                page.file.clone(),
                journal,
                block_ids(page),
            )
        })
        .collect();
    let (mut topics, mut journals) = (Vec::new(), Vec::new());
    for (slug, file, journal, ids) in pages {
        let markdown = std::fs::read_to_string(scratch.path().join(&file))
            .map_err(|e| format!("cannot read {file}: {e}"))?;
        let markdown = tokens(&bpe, &markdown);
        // An empty file has no ratio; its reply is the slug and meta alone.
        if markdown == 0 {
            continue;
        }
        let read = PageRead {
            markdown,
            read: read_whole(&bpe, tool, &ws, &slug)?,
            ids: tokens(&bpe, &ids),
        };
        if journal {
            journals.push(read);
        } else {
            topics.push(read);
        }
    }
    println!(
        "Workspace: {} topic pages and {} journal days with markdown; tokens are o200k.\n",
        topics.len(),
        journals.len()
    );
    println!("| pages | read whole | median | typical | all together | file and ids, typical |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (label, reads) in [("topic pages", &topics), ("journal days", &journals)] {
        if reads.is_empty() {
            continue;
        }
        let ratios: Vec<(f64, u64)> = reads.iter().map(|r| (r.ratio(), r.markdown)).collect();
        let with_ids: Vec<(f64, u64)> = reads.iter().map(|r| (r.with_ids(), r.markdown)).collect();
        let all = reads.iter().map(|r| r.read).sum::<u64>() as f64
            / reads.iter().map(|r| r.markdown).sum::<u64>() as f64;
        println!(
            "| {label} | {} | {:.2}× | {:.2}× | {all:.2}× | {:.2}× |",
            reads.len(),
            median(&ratios),
            typical(&ratios),
            typical(&with_ids),
        );
    }
    Ok(())
}

fn tokens(bpe: &CoreBPE, text: &str) -> u64 {
    bpe.encode_ordinary(text).len() as u64
}

/// The tokens of every slice of `outl_page_get` on the page, as the model reads them.
fn read_whole(
    bpe: &CoreBPE,
    tool: &ToolEntry<Outl>,
    ws: &Workspace,
    slug: &str,
) -> Result<u64, String> {
    let mut spent = 0;
    let mut cursor: Option<String> = None;
    loop {
        let mut arguments = json!({ "slug": slug });
        if let Some(cursor) = &cursor {
            arguments["cursor"] = Value::from(cursor.as_str());
        }
        let reply = tool
            .call(ws, arguments)
            .map_err(|e| format!("outl_page_get {slug}: {e}"))?;
        for content in &tool_success_payload(&reply).content {
            if let ContentBlock::Text(text) = content {
                spent += tokens(bpe, &text.text);
            }
        }
        let data = reply.data().map_err(|e| e.to_string())?;
        cursor = data
            .get("next_cursor")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if cursor.is_none() {
            return Ok(spent);
        }
    }
}

/// The page's block ids in document order, a space between each.
fn block_ids(page: &Page) -> String {
    let blocks = page.blocks();
    let ids: Vec<&str> = blocks.preorder().iter().map(|b| b.id.as_str()).collect();
    ids.join(" ")
}

/// The median of the ratios, each page counting once.
fn median(ratios: &[(f64, u64)]) -> f64 {
    let mut sorted: Vec<f64> = ratios.iter().map(|(ratio, _)| *ratio).collect();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// The ratio of the page that the median token of all the pages' markdown is on: each page
/// weighed by its markdown.
fn typical(ratios: &[(f64, u64)]) -> f64 {
    let mut sorted = ratios.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = sorted
        .iter()
        .map(|(_, weight)| weight)
        .sum::<u64>()
        .div_ceil(2);
    let mut seen = 0;
    for (ratio, weight) in &sorted {
        seen += weight;
        if seen >= half {
            return *ratio;
        }
    }
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typical_ratio_weighs_each_page_by_its_markdown() {
        // Many short pages at 2×, one long one at 1.1× holding most of the markdown.
        let mut ratios = vec![(2.0, 10); 9];
        ratios.push((1.1, 1_000));
        assert_eq!(median(&ratios), 2.0);
        assert_eq!(typical(&ratios), 1.1);
        assert_eq!(median(&[(1.0, 1), (3.0, 1)]), 2.0);
        assert_eq!(typical(&[(1.5, 5), (1.2, 5)]), 1.2);
    }

    #[test]
    fn a_long_page_is_read_slice_after_slice() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("pages")).expect("pages/");
        let long: String = (0..2_000)
            .map(|i| format!("- block {i} with a few words of text in it\n"))
            .collect();
        std::fs::write(dir.path().join("pages/long.md"), &long).expect("write a page");
        let ws = Workspace::open(dir.path()).expect("open");
        let bpe = tiktoken_rs::o200k_base().expect("o200k_base ships with tiktoken-rs");
        let tool = REGISTRY.get("outl_page_get").expect("registered");
        let whole = read_whole(&bpe, tool, &ws, "long").expect("read");
        let first = tool
            .call(&ws, json!({"slug": "long"}))
            .expect("first slice");
        let first = tool_success_payload(&first);
        let ContentBlock::Text(first) = &first.content[0] else {
            panic!("a text content")
        };
        assert!(
            whole > 2 * tokens(&bpe, &first.text),
            "{whole} tokens for the whole page"
        );
        assert!(
            whole > tokens(&bpe, &long),
            "{whole} tokens for the whole page"
        );
    }
}
