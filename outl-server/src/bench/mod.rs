//! `outl bench`: the measurements behind docs/performance.md, runnable by anyone.
//!
//! - `gen` writes a deterministic, realistic workspace of any size ([`generate`]).
//! - `replies` measures every tool's reply as sent, in bytes and o200k tokens, against the
//!   wire before RFC 0276 ([`prerfc`]).
//! - `latency` drives the real binary over stdio and Streamable HTTP: start-up, memory,
//!   p50/p90/p99 per class of call, pipelined and concurrent throughput.
//!
//! Benchmarks report; they never assert a wall-clock time.

mod client;
pub mod generate;
mod latency;
pub mod prerfc;
pub mod replies;
mod rng;
pub(crate) mod scratch;
mod stats;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    command: BenchCommand,
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Write a deterministic, realistic Logseq workspace: the same pages and seed give the
    /// same bytes.
    Gen(GenArgs),
    /// Bytes and o200k tokens of every tool's reply as sent, against the wire before RFC 0276.
    Replies(replies::RepliesArgs),
    /// Start-up, memory, and p50/p90/p99 of tools/call over stdio and Streamable HTTP, driving
    /// the real binary on a scratch copy of the workspace.
    Latency(latency::LatencyArgs),
}

#[derive(Debug, Args)]
struct GenArgs {
    /// Pages to write, journal days included (about a third are journals).
    #[arg(long, default_value_t = 2_862)]
    pages: usize,
    /// Seed of the random stream.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The folder to write; created if missing, refused if it already holds pages.
    dir: PathBuf,
}

/// Runs one `outl bench` subcommand; results go to stdout, progress to stderr.
pub fn run(args: &BenchArgs) -> ExitCode {
    let result = match &args.command {
        BenchCommand::Gen(gen_args) => run_gen(gen_args),
        BenchCommand::Replies(replies_args) => replies::run(replies_args),
        BenchCommand::Latency(latency_args) => latency::run(latency_args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("outl bench: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run_gen(args: &GenArgs) -> Result<(), String> {
    let summary = generate::write_workspace(&args.dir, args.pages, args.seed)
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
