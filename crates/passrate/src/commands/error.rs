//! The errors the command line expects, each with the exit code it ends with (as nextest's
//! `ExpectedError`): one variant per kind of failure, each keeping its source, converted from
//! the library errors at the command boundary. `exit_code` matches every variant, and every
//! variant of the library errors it wraps, without a wildcard arm: a new library error does
//! not compile until someone decides its exit code.

use std::error::Error as StdError;
use std::path::PathBuf;

use passrate_engine::EngineError;
use passrate_grade::GradeError;
use passrate_models::ConfigError;
use passrate_pool::{PoolError, SampleError};
use passrate_runner::RunnerError;
use passrate_sandbox::SandboxError;
use passrate_schema::{Language, exit};
use passrate_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A command-line value clap cannot check on its own (e.g. `--slots 0`).
    #[error("{0}")]
    Usage(String),
    /// A file or stdin named on the command line; for a file, the source names the path.
    #[error("failed to read {what}")]
    ReadInput {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("failed to load the pool")]
    Pool(#[source] PoolError),
    #[error("failed to write the pool to {}", dir.display())]
    WritePool {
        dir: PathBuf,
        #[source]
        source: PoolError,
    },
    /// A task id the pool does not hold: bad input, not a malformed command line.
    #[error("no task `{id}` in pool {pool}")]
    UnknownTask { id: String, pool: String },
    #[error("task `{task}` has no {language} variant (it has: {offered})")]
    NoVariant {
        task: String,
        language: Language,
        offered: String,
    },
    #[error(transparent)]
    Sample(#[from] SampleError),
    #[error("failed to load the models")]
    Models(#[from] ConfigError),
    #[error("no bundled models.toml (looked in {})", looked.display())]
    NoBundledModels { looked: PathBuf },
    #[error("failed to start the sandbox")]
    Sandbox(#[from] SandboxError),
    #[error("failed to judge the candidate for {task}")]
    Grade {
        task: String,
        #[source]
        source: GradeError,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the cycle failed")]
    Engine(#[from] EngineError),
    /// The run finished but models are left without a score because of API errors.
    #[error("model API errors left {} without a score (run {run_id})", models.join(", "))]
    ModelApi { models: Vec<String>, run_id: String },
    /// `pool validate` rejected tasks; they are listed on stdout.
    #[error("pool validation rejected {rejected} of {tasks} tasks")]
    ValidationFailed { rejected: usize, tasks: usize },
    #[error(transparent)]
    Samples(#[from] passrate_engine::samples::SamplesError),
    #[error("{}", file.display())]
    Resolve {
        file: PathBuf,
        #[source]
        source: passrate_engine::evaluate::ResolveError,
    },
    #[error("failed to write {}", path.display())]
    WriteOutput {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Samples whose judging ended in a sandbox fault after retries: reported, not scored.
    #[error("{count} samples ended in an infrastructure fault and were not scored")]
    UnscoredSamples { count: usize },
    #[error("failed to import the pool")]
    Import(#[from] passrate_pool::import::ImportError),
    /// `pool strength` could not execute a mutant (after retries).
    #[error("measuring the test suites failed: {0}")]
    Measure(String),
    #[error("failed to start the async runtime")]
    Runtime(#[source] std::io::Error),
    #[error("failed to write to stdout")]
    Stdout(#[source] std::io::Error),
    #[error("failed to encode {what} as JSON")]
    Json {
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
    /// A command that still returns `anyhow` (`sandbox`, `serve`, `bench`): see
    /// [`untyped_exit_code`].
    #[error(transparent)]
    Untyped(Box<dyn StdError + Send + Sync + 'static>),
}

impl From<anyhow::Error> for CliError {
    fn from(err: anyhow::Error) -> CliError {
        CliError::Untyped(err.into())
    }
}

impl From<std::fmt::Error> for CliError {
    /// Only formatting into a `String` uses `fmt::Write`, which cannot fail on its own.
    fn from(err: std::fmt::Error) -> CliError {
        CliError::Stdout(std::io::Error::other(err))
    }
}

impl CliError {
    /// A `map_err` adapter for JSON encoding of `what`.
    pub fn json(what: &'static str) -> impl FnOnce(serde_json::Error) -> CliError {
        move |source| CliError::Json { what, source }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Usage(_) => exit::USAGE,
            CliError::ReadInput { .. }
            | CliError::Pool(_)
            | CliError::WritePool { .. }
            | CliError::UnknownTask { .. }
            | CliError::NoVariant { .. }
            | CliError::Sample(_)
            | CliError::Models(_)
            | CliError::NoBundledModels { .. }
            | CliError::Samples(_)
            | CliError::Resolve { .. } => exit::BAD_INPUT,
            CliError::WriteOutput { .. } => exit::INTERNAL,
            CliError::UnscoredSamples { .. } => exit::SANDBOX_ERROR,
            CliError::Sandbox(e) => sandbox_code(e),
            CliError::Grade { source, .. } => grade_code(source),
            CliError::Store(e) => store_code(e),
            CliError::Engine(e) => engine_code(e),
            CliError::ModelApi { .. } => exit::MODEL_API_ERROR,
            CliError::ValidationFailed { .. } => exit::VALIDATION_FAILED,
            CliError::Import(e) => import_code(e),
            CliError::Measure(_) => exit::SANDBOX_ERROR,
            CliError::Runtime(_) | CliError::Stdout(_) | CliError::Json { .. } => exit::INTERNAL,
            CliError::Untyped(e) => untyped_exit_code(e.as_ref()),
        }
    }

    /// What to try next, where the error alone does not say it.
    fn hint(&self) -> Option<String> {
        match self {
            CliError::UnknownTask { .. } => Some(
                "task ids look like `humaneval/12`; `passrate sample --json` lists a week's"
                    .to_string(),
            ),
            CliError::NoBundledModels { .. } => {
                Some("pass --models with your models.toml".to_string())
            }
            CliError::ModelApi { .. } => {
                Some("run the same command again to retry those units".to_string())
            }
            CliError::ValidationFailed { .. } => {
                Some("the rejected tasks and their reasons are on stdout".to_string())
            }
            CliError::Engine(EngineError::UnknownRun(_)) => {
                Some("`passrate run` prints each run's id on stderr".to_string())
            }
            _ => None,
        }
    }

    /// Prints the error on stderr: its message, each cause once (a cause whose text the
    /// lines above already show is left out), and a hint where one helps.
    pub fn report(&self) {
        eprint!("{}", self.render());
    }

    fn render(&self) -> String {
        let mut out = format!("error: {self}\n");
        let mut shown = self.to_string();
        let mut cause = self.source();
        while let Some(e) = cause {
            let text = e.to_string();
            if !shown.contains(&text) {
                out.push_str(&format!("  caused by: {text}\n"));
                shown.push_str(&text);
            }
            cause = e.source();
        }
        if let Some(hint) = self.hint() {
            out.push_str(&format!("  hint: {hint}\n"));
        }
        out
    }
}

fn sandbox_code(e: &SandboxError) -> i32 {
    match e {
        SandboxError::Unavailable { .. } => exit::SANDBOX_UNAVAILABLE,
        SandboxError::InvalidRequest(_) => exit::BAD_INPUT,
        SandboxError::Launcher { .. } | SandboxError::Internal(_) => exit::SANDBOX_ERROR,
    }
}

fn runner_code(e: &RunnerError) -> i32 {
    match e {
        RunnerError::Sandbox(e) => sandbox_code(e),
        RunnerError::HarnessDidNotStart(_) | RunnerError::Random(_) => exit::SANDBOX_ERROR,
        // A task the runner cannot pose: the pool given is at fault.
        RunnerError::NoVariant { .. } | RunnerError::InvalidTask(_) => exit::BAD_INPUT,
        // Intake's recording paths, never reached by a command's own judging.
        RunnerError::Unsupported(_)
        | RunnerError::Reference { .. }
        | RunnerError::CheckFailed(_) => exit::INTERNAL,
    }
}

fn grade_code(e: &GradeError) -> i32 {
    match e {
        GradeError::Runner(e) => runner_code(e),
        GradeError::Task { .. } => exit::BAD_INPUT,
        GradeError::Ungraded { .. } => exit::INTERNAL,
    }
}

fn store_code(e: &StoreError) -> i32 {
    match e {
        // A location passrate cannot use is the caller's misuse of `--database`.
        StoreError::UnsupportedScheme { .. } => exit::USAGE,
        StoreError::CreateDir { .. }
        | StoreError::BadLocation { .. }
        | StoreError::Missing { .. }
        | StoreError::Outdated { .. }
        | StoreError::UnreadableWal { .. }
        | StoreError::Open { .. }
        | StoreError::Migrate { .. }
        | StoreError::Query { .. }
        | StoreError::Encode { .. }
        | StoreError::Decode { .. }
        | StoreError::Corrupt { .. }
        | StoreError::Invalid { .. }
        | StoreError::NewerFormat { .. }
        | StoreError::RunConflict { .. }
        | StoreError::UnknownRun { .. }
        | StoreError::AppendRecord { .. }
        | StoreError::VersionContention { .. } => exit::STORE_ERROR,
    }
}

fn engine_code(e: &EngineError) -> i32 {
    match e {
        EngineError::Sample { .. }
        | EngineError::UnknownTask { .. }
        | EngineError::NoVariant { .. }
        | EngineError::DuplicateModel(_)
        | EngineError::Pool { .. } => exit::BAD_INPUT,
        EngineError::Store(e) => store_code(e),
        EngineError::Grade { source, .. } => grade_code(source),
        EngineError::Preflight(_) => exit::MODEL_API_ERROR,
        // `--reuse-answers-from` naming a run the store does not hold.
        EngineError::UnknownRun(_) => exit::USAGE,
        EngineError::Model(_)
        | EngineError::Score { .. }
        | EngineError::Incomplete { .. }
        | EngineError::Worker(_) => exit::INTERNAL,
    }
}

fn import_code(e: &passrate_pool::import::ImportError) -> i32 {
    use passrate_pool::import::ImportError;
    match e {
        ImportError::Io(_)
        | ImportError::Parse { .. }
        | ImportError::Data { .. }
        | ImportError::Pool(_) => exit::BAD_INPUT,
        ImportError::Exec(e) if e.infrastructure => exit::SANDBOX_ERROR,
        ImportError::Exec(_) => exit::INTERNAL,
    }
}

/// The exit code of an error from a command not yet converted to [`CliError`] (`sandbox`,
/// `serve` and the benchmarks, edited elsewhere): the first library error in its chain
/// decides, through the same functions as the typed variants; anything else is internal.
/// Goes away when those commands return `CliError`.
fn untyped_exit_code(err: &(dyn StdError + 'static)) -> i32 {
    let mut cause = Some(err);
    while let Some(e) = cause {
        if let Some(e) = e.downcast_ref::<SandboxError>() {
            return sandbox_code(e);
        }
        if let Some(e) = e.downcast_ref::<RunnerError>() {
            return runner_code(e);
        }
        if let Some(e) = e.downcast_ref::<StoreError>() {
            return store_code(e);
        }
        if let Some(e) = e.downcast_ref::<EngineError>() {
            return engine_code(e);
        }
        if let Some(e) = e.downcast_ref::<CliError>() {
            return e.exit_code();
        }
        if e.downcast_ref::<ConfigError>().is_some()
            || e.downcast_ref::<PoolError>().is_some()
            || e.downcast_ref::<SampleError>().is_some()
        {
            return exit::BAD_INPUT;
        }
        cause = e.source();
    }
    exit::INTERNAL
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain is shown once: a cause whose text the message already carries (a
    /// `transparent` wrapper, or a message that embeds its source) is not repeated.
    #[test]
    fn render_shows_each_cause_once_with_the_hint() {
        let err = CliError::Pool(PoolError::Io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no such file",
        )));
        assert_eq!(
            err.render(),
            "error: failed to load the pool\n  caused by: failed to read pool file\n  \
             caused by: no such file\n"
        );
        let err = CliError::UnknownTask {
            id: "x/1".into(),
            pool: "abc".into(),
        };
        let text = err.render();
        assert!(
            text.starts_with("error: no task `x/1` in pool abc\n  hint: "),
            "{text}"
        );
        let err = CliError::Sample(SampleError::InvalidWeek("w".into()));
        assert_eq!(
            err.render(),
            "error: invalid ISO week `w` (expected e.g. 2026-W48)\n"
        );
    }

    /// An untyped error carrying a library error keeps that error's exit code.
    #[test]
    fn untyped_errors_keep_their_library_exit_code() {
        let err: CliError = anyhow::Error::new(SandboxError::Unavailable {
            what: "w".into(),
            hint: "h".into(),
        })
        .context("failed to start")
        .into();
        assert_eq!(err.exit_code(), exit::SANDBOX_UNAVAILABLE);
        let err: CliError = anyhow::anyhow!("something else").into();
        assert_eq!(err.exit_code(), exit::INTERNAL);
    }
}
