//! `outl-bench relevance`: whether search finds the page a person means.
//!
//! A judged query set on the workspace `outl-bench gen --pages 2862 --seed 1` writes: each
//! query with the page that must come first. `outl_search` is asked the ways a person asks
//! for a page (its name in another case or form of the words, its last namespace part), and
//! `outl_page_list` the same with typos. For each tool the report gives every query's rank of
//! the right page and the share of queries where it is first and where it is in the top 5,
//! the tools called through the registry in process, on a scratch copy.

use std::path::PathBuf;

use clap::Args;
use serde_json::{Value, json};

use super::scratch::Scratch;
use outl_tools::REGISTRY;
use outl_workspace::Workspace;

#[derive(Debug, Args)]
pub struct RelevanceArgs {
    /// The workspace `outl-bench gen --pages 2862 --seed 1` writes (the queries name its
    /// pages); it is copied first.
    #[arg(long, short = 'w', value_name = "DIR")]
    workspace: PathBuf,
}

/// `outl_search` queries and the slug of the page that must come first.
const SEARCH_JUDGED: &[(&str, &str)] = &[
    ("careful search", "careful search"),
    ("Careful Searches", "careful search"),
    ("honest migrations", "honest migration"),
    ("visual roadmaps", "visual roadmap"),
    ("curious checklist", "curious checklist"),
    ("quiet storage", "quiet storage"),
    ("bob jansen", "bob jansen"),
    ("the remote planning", "books/the remote planning"),
    ("small compilers", "books/the small compiler"),
    ("public systems 2", "books/the public systems 2"),
    ("shakshuka", "recipes/shakshuka shakshuka"),
    ("stew bread", "recipes/stew bread"),
    ("tacos with chili", "recipes/tacos chili"),
    ("meridian", "projects/meridian"),
    ("beacon interviews", "projects/beacon/interviews"),
    ("orion habit", "projects/orion/habits"),
    ("early databases", "research/early database"),
    ("digital hiring", "areas/digital hiring"),
    ("human interfaces", "writing/human interface"),
    ("\"careful search\"", "careful search"),
];

/// `outl_page_list` queries, typos included, and the slug of the page that must come first.
const PAGE_LIST_JUDGED: &[(&str, &str)] = &[
    ("carefull search", "careful search"),
    ("honest migraton", "honest migration"),
    ("visual roadmpas", "visual roadmap"),
    ("curius checklist", "curious checklist"),
    ("bob jansne", "bob jansen"),
    ("remote planing", "books/the remote planning"),
    ("small compilr", "books/the small compiler"),
    ("shakshuka", "recipes/shakshuka shakshuka"),
    ("stew bred", "recipes/stew bread"),
    ("meridan", "projects/meridian"),
    ("beacn interviews", "projects/beacon/interviews"),
    ("orion habbits", "projects/orion/habits"),
    ("early databse", "research/early database"),
    ("digital hirng", "areas/digital hiring"),
    ("humen interface", "writing/human interface"),
    ("quiet stor", "quiet storage"),
];

/// The first slugs a tool's reply lists, in order, at most 5 distinct.
fn top_pages(tool: &str, reply: &Value) -> Vec<String> {
    let (list, key) = match tool {
        "outl_search" => ("hits", "page"),
        _ => ("pages", "slug"),
    };
    let mut pages: Vec<String> = Vec::new();
    for item in reply[list].as_array().into_iter().flatten() {
        if let Some(slug) = item[key].as_str()
            && !pages.iter().any(|seen| seen == slug)
        {
            pages.push(slug.to_string());
        }
    }
    pages.truncate(5);
    pages
}

/// The rank of the right page for each judged query of one tool.
struct Judged {
    tool: &'static str,
    ranks: Vec<(&'static str, &'static str, Option<usize>)>,
}

impl Judged {
    fn share(&self, within: usize) -> f64 {
        let hits = self
            .ranks
            .iter()
            .filter(|(.., rank)| rank.is_some_and(|rank| rank <= within))
            .count();
        100.0 * hits as f64 / self.ranks.len().max(1) as f64
    }
}

pub fn run(args: &RelevanceArgs) -> Result<(), String> {
    let scratch = Scratch::copy_of(&args.workspace)
        .map_err(|e| format!("cannot copy {}: {e}", args.workspace.display()))?;
    let ws = Workspace::open(scratch.path()).map_err(|e| format!("cannot open the copy: {e}"))?;
    let missing: Vec<&str> = SEARCH_JUDGED
        .iter()
        .chain(PAGE_LIST_JUDGED)
        .map(|&(_, slug)| slug)
        .filter(|slug| ws.snapshot().page(slug).is_none())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the workspace lacks the judged pages {missing:?}: the queries are judged on \
             `outl-bench gen --pages 2862 --seed 1`"
        ));
    }
    let mut judged = Vec::new();
    for (tool, queries) in [
        ("outl_search", SEARCH_JUDGED),
        ("outl_page_list", PAGE_LIST_JUDGED),
    ] {
        let mut ranks = Vec::new();
        for &(query, expected) in queries {
            let reply = REGISTRY
                .call(&ws, tool, json!({"query": query, "limit": 20}))
                .ok_or_else(|| format!("no tool {tool}"))?
                .and_then(|reply| reply.data())
                .map_err(|e| format!("{tool} {query:?}: {e}"))?;
            let rank = top_pages(tool, &reply)
                .iter()
                .position(|slug| slug == expected)
                .map(|at| at + 1);
            ranks.push((query, expected, rank));
        }
        judged.push(Judged { tool, ranks });
    }
    print_report(&judged);
    Ok(())
}

fn print_report(judged: &[Judged]) {
    println!("| tool | queries | right page first | right page in the top 5 |");
    println!("| --- | ---: | ---: | ---: |");
    for tool in judged {
        println!(
            "| `{}` | {} | {:.0}% | {:.0}% |",
            tool.tool,
            tool.ranks.len(),
            tool.share(1),
            tool.share(5)
        );
    }
    println!();
    println!("<details><summary>The judged queries</summary>");
    println!();
    println!("| tool | query | right page | its rank |");
    println!("| --- | --- | --- | ---: |");
    for tool in judged {
        for (query, expected, rank) in &tool.ranks {
            let rank = rank.map_or("not in the top 5".to_string(), |rank| rank.to_string());
            println!("| `{}` | `{query}` | `{expected}` | {rank} |", tool.tool);
        }
    }
    println!();
    println!("</details>");
}
