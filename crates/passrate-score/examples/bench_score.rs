//! Runs the `passrate bench score` command file directly, so the command compiles and can be
//! timed with this crate alone (the CLI wires the same file as a subcommand).

#[path = "../../passrate/src/commands/bench_score.rs"]
mod bench_score;

use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: bench_score::Args,
}

fn main() -> anyhow::Result<()> {
    let code = bench_score::run(Cli::parse().args)?;
    std::process::exit(code);
}
