//! The task pool: on-disk storage and content-hash versions, importers for public datasets,
//! intake validation, tiers from intake factors, statistics, and the weekly stratified
//! sampler with its rotation (which tasks a week may draw, a pure function of the pool and
//! the week) and its drift panel (a fixed set asked every week beside the sample).
//!
//! Layering: this crate reads and writes tasks and uses the runner only through the
//! [`exec::Executor`] trait, for recording tests and intake validation.

pub mod cache;
pub mod check;
pub mod error;
pub mod exec;
pub mod import;
pub mod panel;
mod parallel;
pub mod pylit;
pub mod rotation;
pub mod sample;
pub mod stats;
pub mod storage;
pub mod strength;
pub mod structure;
pub mod tier;
pub mod validate;

pub use check::check_task;
pub use error::{PoolError, SampleError, TaskProblem};
pub use exec::{ExecError, Executor, RecordedCall};
pub use panel::drift_panel;
pub use rotation::{RotationConfig, Schedule, Status, WeekRotation, rotation};
pub use sample::{SampleConfig, Seed, allocate, current_week, parse_week, sample, week_seed};
pub use stats::{Stats, Suites, redact, stats};
pub use storage::{
    DEFAULT_SERIES, LicenseFile, POOL_ENV, POOL_FORMAT_VERSION, PerfSet, Pool, PoolVersion,
    bundled_dir,
};
pub use tier::tier_for;
pub use validate::{
    Recorded, ValidationReport, validate, validate_task, validate_task_with, validate_with,
};

/// `pool/README.md`, written with every pool.
pub const POOL_README: &str = include_str!("pool_readme.md");
