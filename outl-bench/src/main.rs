//! The `outl-bench` binary: the subcommands of [`outl_bench::Cli`].

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    outl_bench::run(&outl_bench::Cli::parse())
}
