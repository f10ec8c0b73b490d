//! Subcommands. Each module exposes `Args` (clap) and `run(args) -> anyhow::Result<i32>`.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "passrate", version, about = "Weekly, reproducible pass rates of code-generation models")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {}

pub fn main() -> i32 {
    let cli = Cli::parse();
    match cli.command {}
}
