//! outl-bench: the measurements behind docs/performance.md, runnable by anyone, as the
//! `outl-bench` binary.
//!
//! This crate owns the benchmarks, the workspace generator and what only they need (the o200k
//! tokenizer): none of it is in the `outl` binary. It may use `outl-server`'s library (the tool
//! registry, the workspace, the projection), and drives the `outl` binary as a host would
//! through `outl-client`, the client the end-to-end tests use; nothing of outl depends on it.
//!
//! - `gen` writes a deterministic, realistic workspace of any size ([`generate`]).
//! - `replies` measures every tool's reply as sent, in bytes and o200k tokens, against the
//!   wire before RFC 0276 (`prerfc`), and `tools/list`.
//! - `pages` reads every page with `outl_page_get` and sets its tokens against the page's
//!   markdown.
//! - `latency` drives the real `outl` binary (the one beside `outl-bench`, or `--outl PATH`)
//!   over stdio and Streamable HTTP: start-up, memory, p50/p90/p99 per class of call,
//!   pipelined and concurrent throughput.
//! - `relevance` asks `outl_search` and `outl_page_list` a judged query set on the generated
//!   workspace: the share of queries whose right page comes first, and in the top 5.
//!
//! Benchmarks report; they never assert a wall-clock time.

pub mod generate;
mod latency;
mod memory;
mod page_reads;
mod prerfc;
mod relevance;
mod replies;
mod rng;
pub mod scratch;
mod stats;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "outl-bench",
    version,
    about = "Benchmarks of outl: generate a workspace, measure reply sizes, page reads, latency \
             and search relevance (docs/performance.md)."
)]
pub struct Cli {
    #[command(subcommand)]
    command: BenchCommand,
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Write a deterministic, realistic Logseq workspace: the same pages and seed give the
    /// same bytes.
    Gen(GenArgs),
    /// Bytes and o200k tokens of every tool's reply as sent, against the wire before RFC 0276,
    /// and of `tools/list`.
    Replies(replies::RepliesArgs),
    /// The o200k tokens of reading every page whole with `outl_page_get`, against those of its
    /// markdown: the median, typical and overall ratio, for topic pages and journal days.
    Pages(page_reads::PagesArgs),
    /// Start-up, memory, and p50/p90/p99 of tools/call over stdio and Streamable HTTP, driving
    /// the real `outl` binary (by default the one beside this binary; `--outl PATH` to choose)
    /// on a scratch copy of the workspace.
    Latency(latency::LatencyArgs),
    /// The share of a judged query set whose right page `outl_search` and `outl_page_list`
    /// rank first, and in the top 5, on the 2,862-page generated workspace.
    Relevance(relevance::RelevanceArgs),
}

#[derive(Debug, Args)]
struct GenArgs {
    /// Pages to write, journal days included (about a third are journals).
    #[arg(long, default_value_t = 2_862)]
    pages: usize,
    /// Seed of the random stream.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write pages in an older style instead of the canonical one (repeat the flag, or give a
    /// comma-separated list, to combine styles).
    #[arg(long = "style", value_enum, value_delimiter = ',')]
    styles: Vec<Style>,
    /// Percent of the pages written in the `--style` styles; the others stay canonical.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(0..=100))]
    style_share: u64,
    /// The folder to write; created if missing, refused if it already holds pages.
    dir: PathBuf,
}

/// An older style for `outl-bench gen --style`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Style {
    /// Page properties as YAML front matter between `---` lines.
    FrontMatter,
    /// Two spaces a level instead of a tab.
    TwoSpaces,
    /// Four spaces a level instead of a tab.
    FourSpaces,
    /// `\r\n` line breaks.
    Crlf,
    /// No line break after the last line.
    NoFinalNewline,
    /// Org pages (`.org` files) in Logseq's org style.
    Org,
}

impl GenArgs {
    fn styles(&self) -> Result<generate::Styles, String> {
        let has = |style| self.styles.contains(&style);
        if has(Style::TwoSpaces) && has(Style::FourSpaces) {
            return Err("--style two-spaces and four-spaces exclude each other".into());
        }
        if has(Style::Org)
            && [Style::FrontMatter, Style::TwoSpaces, Style::FourSpaces]
                .into_iter()
                .any(has)
        {
            return Err(
                "--style org writes org pages, which have no front matter or space indents".into(),
            );
        }
        Ok(generate::Styles {
            front_matter: has(Style::FrontMatter),
            indent_spaces: if has(Style::TwoSpaces) {
                Some(2)
            } else if has(Style::FourSpaces) {
                Some(4)
            } else {
                None
            },
            crlf: has(Style::Crlf),
            no_final_newline: has(Style::NoFinalNewline),
            org: has(Style::Org),
            share: if self.styles.is_empty() {
                0
            } else {
                self.style_share
            },
        })
    }
}

/// Runs one `outl-bench` subcommand; results go to stdout, progress to stderr.
pub fn run(args: &Cli) -> ExitCode {
    let result = match &args.command {
        BenchCommand::Gen(gen_args) => run_gen(gen_args),
        BenchCommand::Replies(replies_args) => replies::run(replies_args),
        BenchCommand::Pages(pages_args) => page_reads::run(pages_args),
        BenchCommand::Latency(latency_args) => latency::run(latency_args),
        BenchCommand::Relevance(relevance_args) => relevance::run(relevance_args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("outl-bench: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run_gen(args: &GenArgs) -> Result<(), String> {
    let summary = generate::write_workspace(&args.dir, args.pages, args.seed, args.styles()?)
        .map_err(|e| format!("cannot write {}: {e}", args.dir.display()))?;
    println!(
        "wrote {} pages and {} journal days ({} blocks, {} bytes of markdown) to {}",
        summary.pages,
        summary.journals,
        summary.blocks,
        summary.markdown_bytes,
        args.dir.display()
    );
    Ok(())
}
