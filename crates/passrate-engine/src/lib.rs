//! passrate-engine: the weekly run pipeline that glues the pool, the models, the extractor,
//! the runner, the scorer and the store together.
//!
//! [`Cycle::run`] samples the week's manifest, creates or resumes the run in the store, asks
//! every model ([`AnswerSource`]: configured models plus the pool's `reference` and
//! `known-buggy`) for every unit not yet stored, extracts and judges each answer on a
//! bounded set of blocking workers, commits each result as it completes, then scores each
//! model and appends its record. It never prints: it emits [`RunEvent`]s to an
//! [`EventSink`]. [`board::leaderboard`] rebuilds a week's leaderboard from the store.
//! [`evaluate::evaluate`] judges a file of samples ([`samples`]) on a fixed benchmark.
//!
//! [`RunEvent`]: passrate_schema::RunEvent

pub mod board;
pub mod cache;
pub mod cycle;
pub mod drift;
pub mod error;
pub mod evaluate;
pub mod judge;
pub mod quality;
pub mod samples;
pub mod source;

pub use board::{Board, BoardOptions, BoardRow, Section, leaderboard, leaderboard_with};
pub use cache::StoreCache;
pub use cycle::{
    Cycle, CycleOptions, CycleReport, EventSink, Timings, UnscoredModel, run_config, run_id,
    run_score_config,
};
pub use drift::DriftOptions;
pub use error::EngineError;
pub use judge::{GRADED_CATEGORIES, RetryPolicy, is_graded};
pub use source::{AnswerSource, KNOWN_BUGGY_MODEL, REFERENCE_MODEL, SourceAnswer};
