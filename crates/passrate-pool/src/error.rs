//! Typed errors of the pool: loading, checking, importing, and sampling (with its rotation
//! and drift panel).

use std::path::PathBuf;

/// A problem with one task found by [`crate::check_task`] or by the pool-level checks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("task `{task}`: {message}")]
pub struct TaskProblem {
    pub task: String,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    #[error("failed to read pool file")]
    Io(#[from] std::io::Error),
    /// A task line that is not a task: bad JSON, a wrong type or value, a missing or an
    /// unknown key (task files reject keys they do not know, so a misspelt one cannot
    /// silently leave a field at its default).
    #[error("failed to parse {file}:{line}:{column} at `{path}`: {message}")]
    Parse {
        file: PathBuf,
        line: usize,
        /// 1-based column in the line where the parser stopped (just past the bad key or
        /// value).
        column: usize,
        /// JSON field path inside the line, e.g. `tests[3].expected`.
        path: String,
        message: String,
    },
    #[error("failed to parse {file}: {message}")]
    Document { file: PathBuf, message: String },
    #[error("duplicate task id `{id}` in {file}:{line} (first seen in {first})")]
    DuplicateId {
        id: String,
        file: PathBuf,
        line: usize,
        first: PathBuf,
    },
    #[error("invalid task in {file}:{line}: {problem}")]
    InvalidTask {
        file: PathBuf,
        line: usize,
        problem: TaskProblem,
    },
    #[error("unsupported pool format version {found} in {file} (this build reads {supported})")]
    FormatVersion {
        file: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("no pool directory found: {0}")]
    NotFound(String),
}

#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    #[error("invalid ISO week `{0}` (expected e.g. 2026-W48)")]
    InvalidWeek(String),
    #[error("invalid sample configuration: {0}")]
    Config(String),
    #[error(
        "cell {category} × {tier} needs {needed} tasks but this week's active pool has {available} ({missing} missing; {retired} retired by rotation, {panel} on the drift panel)"
    )]
    NotEnoughTasks {
        category: passrate_schema::Category,
        tier: passrate_schema::Tier,
        needed: usize,
        available: usize,
        missing: usize,
        /// Tasks of the cell out of this week's sample because they are retired.
        retired: usize,
        /// Tasks of the cell on the drift panel (never in a sample).
        panel: usize,
    },
    #[error(
        "cell {category} × {tier} needs {needed} drift panel tasks but the pool has {available}"
    )]
    NotEnoughPanelTasks {
        category: passrate_schema::Category,
        tier: passrate_schema::Tier,
        needed: usize,
        available: usize,
    },
}
