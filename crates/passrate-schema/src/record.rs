//! Run manifests, score records and run events: what the weekly cycle stores and emits.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::task::{Category, Language, Tier};
use crate::verdict::Reason;

/// One entry of a week's sample: a task and the language it is posed in.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct ManifestItem {
    pub task: String,
    pub task_version: u32,
    pub language: Language,
    pub category: Category,
    pub tier: Tier,
}

/// The week's sample: the same for every model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Manifest {
    pub format_version: u32,
    /// ISO week, e.g. `2026-W48`.
    pub week: String,
    /// Hex seed derived from the week (see `passrate-pool`'s sampler).
    pub seed: String,
    /// Content hash of the pool the sample was drawn from.
    pub pool_version: String,
    pub items: Vec<ManifestItem>,
}

/// A proportion with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Estimate {
    pub passes: u32,
    pub total: u32,
    /// passes / total (0 when total is 0).
    pub score: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// Execution limits an evaluation ran under (stored with every record).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LimitsUsed {
    pub cpu_ms: u64,
    pub wall_ms: u64,
    pub memory_mib: u64,
    pub heap_mib: u64,
    pub pids: u32,
    pub workdir_mib: u64,
    pub output_bytes: u64,
}

/// What produced a record, so any number can be traced and reproduced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Provenance {
    pub passrate_version: String,
    pub extractor_version: String,
    pub limits: LimitsUsed,
    /// e.g. `{"python": "3.11.2", "node": "v20.20.2", "java": "17.0.15"}`.
    pub runtime_versions: BTreeMap<String, String>,
}

/// A model's score for one week. Append-only: a correction is a new record with a higher
/// `record_version` for the same (model, week); nothing is updated in place.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScoreRecord {
    pub format_version: u32,
    pub model: String,
    pub week: String,
    /// RFC 3339 date-time of the evaluation.
    pub evaluated_at: String,
    pub record_version: u32,
    pub run_id: String,
    pub seed: String,
    pub pool_version: String,
    pub overall: Estimate,
    pub by_category: BTreeMap<Category, Estimate>,
    pub by_tier: BTreeMap<Tier, Estimate>,
    /// Share of answers that were format-compliant.
    pub compliance_rate: f64,
    /// Share of tasks the model gave an answer for (replays may not cover every task).
    pub coverage: f64,
    /// Count of outcomes per reason.
    pub reasons: BTreeMap<Reason, u32>,
    /// pass@k for k = 1, 10, … when the model gave several samples per task.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pass_at_k: BTreeMap<u32, f64>,
    pub provenance: Provenance,
}

/// Events the engine emits; the terminal display, the JSON Lines writer and the store
/// subscribe to them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunEvent {
    RunStarted {
        run_id: String,
        week: String,
        seed: String,
        pool_version: String,
        models: Vec<String>,
        tasks: usize,
    },
    TaskFinished {
        run_id: String,
        model: String,
        task: String,
        language: Language,
        sample_index: u32,
        reason: Reason,
        /// Resumed from the store rather than executed now.
        cached: bool,
    },
    ModelFinished {
        run_id: String,
        model: String,
        overall: Estimate,
    },
    InfrastructureRetry {
        run_id: String,
        model: String,
        task: String,
        attempt: u32,
        error: String,
    },
    RunFinished {
        run_id: String,
        wall_ms: u64,
    },
}
