//! Scoring: pass rates with reproducible cluster-bootstrap intervals, subscores, pass@k, paired
//! model comparisons with tie flags, leaderboard rank intervals with tie groups, and
//! week-over-week drift tests. Pure functions, no IO.
//!
//! Choices that shape every number:
//! - A task passes only when its reason is `Pass` (compliant and every test passed);
//!   `no_answer` is a non-pass, also reported as coverage.
//! - Infrastructure outcomes are never a model's failure. By default scoring refuses them
//!   (`ScoreError::Infrastructure`); `InfraPolicy::Exclude` drops them and reports how many
//!   samples and tasks were left unscored.
//! - Intervals are 95% percentile bootstraps with 1,000 resamples of task *families* (the
//!   source problem a task derives from; `TaskTally::family`), because tasks of one family
//!   pass or fail together (`bootstrap`). With one task per family this is exactly the task
//!   bootstrap. Each estimate (model × overall/category/tier, a model pair, the leaderboard's
//!   ranks) has its own `ChaCha8Rng`, seeded with blake3 of the run seed and the estimate's
//!   name, and only its raw 32-bit output is used, through our own unbiased bounded-integer
//!   mapping (`rng`), so a dependency upgrade cannot move a stored interval.
//! - Ranks carry intervals from the same family resampling, and models whose rank intervals
//!   overlap share a tie group (`rank`).

pub mod bootstrap;
pub mod compare;
pub mod drift;
pub mod error;
pub mod passk;
pub mod quality;
pub mod rank;
pub mod rng;
pub mod score;
pub mod synthetic;
pub mod tally;

pub use bootstrap::{Bootstrap, Interval, Stratify};
pub use compare::{Contender, LeaderboardRow, PairComparison};
pub use drift::{DriftReport, drift, mcnemar_exact};
pub use error::ScoreError;
pub use passk::{mean_pass_at_k, pass_at_k, pass_at_k_interval};
pub use quality::{QualityUnit, quality_scores};
pub use rng::{ResampleRng, derive_seed};
pub use score::{ModelScore, ScoreConfig, Scorer};
pub use tally::{InfraPolicy, ModelOutcomes, TaskTally};
