//! Run manifests, score records and run events: what the weekly cycle stores and emits.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::quality::QualityScores;
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
    /// The source problem the task derives from ([`Task::family`](crate::Task::family)); empty
    /// in manifests written before families were recorded (each task is then its own family).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub family: String,
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
    /// The drift panel: a fixed, stratified set of tasks asked every week beside the sample
    /// (disjoint from it) and scored apart from the leaderboard; the same tasks in the same
    /// languages from week to week while the pool's series stays the same.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub panel: Vec<ManifestItem>,
    /// The rotation the sample was drawn under; `None` in manifests written before rotation
    /// was applied by the sampler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<RotationUsed>,
}

/// The week's rotation: which share of the pool was out of the sample, and what changed
/// since the week before. A pure function of the pool and the week.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RotationUsed {
    /// Share of the active tasks that retires each week (0.05 = 5%).
    pub rate: f64,
    /// A retired task stays out of the sample for this many weeks.
    pub weeks_out: u32,
    /// Tasks the sample could be drawn from this week (the pool less the retired tasks and
    /// the drift panel).
    pub active_tasks: u32,
    /// Tasks out of the sample this week because they are retired.
    pub retired_tasks: u32,
    /// Tasks that retired this week (they were active last week).
    pub went_out: Vec<String>,
    /// Tasks that came back this week (they were retired last week).
    pub came_in: Vec<String>,
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
    /// Subscores by the language a task was posed in (absent in records written before
    /// they were kept).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_language: BTreeMap<Language, Estimate>,
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
    /// The score on the tasks the model answered (no `no_answer`), with its own interval: how a
    /// model with partial coverage is shown. Equal to `overall` at full coverage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered: Option<Estimate>,
    /// Task families (source problems) the scored tasks come from: the unit the bootstrap
    /// resamples. 0 in version 1 records.
    #[serde(default)]
    pub families: u32,
    /// Week-over-week drift signals on the drift panel and the shared sample tasks; `None`
    /// without a previous week (or a panel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift: Option<DriftSignals>,
    /// The rotation the week's sample was drawn under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<RotationUsed>,
    /// Robustness, efficiency and maintainability over the passed tasks (absent before
    /// version 3, and when no passed task could be checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<QualityScores>,
}

/// Did a model whose identifier has not changed behave differently from its previous week?
/// Two signals: exact McNemar on the first sample's verdicts of the drift panel and of the
/// sample tasks both weeks share, and the answer-change rate (share of panel answers whose
/// normalized code changed: a provider that swaps the model behind an identifier changes most
/// answers at temperature 0 even when the pass rate barely moves).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DriftSignals {
    pub previous_week: String,
    pub previous_run_id: String,
    /// Tasks compared by McNemar (panel and shared sample tasks, each scored both weeks).
    pub tasks_compared: u32,
    pub both_pass: u32,
    pub both_fail: u32,
    /// Passed the previous week, fails this week.
    pub now_failing: u32,
    /// Failed the previous week, passes this week.
    pub now_passing: u32,
    /// Two-sided exact McNemar p-value.
    pub p_value: f64,
    pub alpha: f64,
    /// Panel units with code both weeks.
    pub answers_compared: u32,
    /// Of those, answers whose normalized code changed.
    pub answers_changed: u32,
    /// `answers_changed / answers_compared` (0 when nothing was compared).
    pub answer_change_rate: f64,
    /// The rate above which the answers are flagged as changed.
    pub change_threshold: f64,
    /// One line per signal that fired, naming the test and its numbers; empty when none did.
    pub flags: Vec<String>,
    /// The tasks whose verdict flipped, `task (language)`, sorted.
    pub flipped_tasks: Vec<String>,
}

impl DriftSignals {
    /// Either signal fired: the same identifier likely serves a different model.
    pub fn flagged(&self) -> bool {
        !self.flags.is_empty()
    }
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
    /// A unit's sandbox fault persisted after the retries, so the task's reference ran as a
    /// control in the same language and configuration. `candidate_caused`: the reference ran
    /// cleanly, so the answer caused the fault and `recorded` is its verdict (`runtime_error`);
    /// otherwise the reference faulted too and the unit is `sandbox_error` (infrastructure).
    ControlRun {
        run_id: String,
        model: String,
        task: String,
        language: Language,
        sample_index: u32,
        /// Executions of the answer that faulted.
        attempts: u32,
        /// The answer's last fault.
        fault: String,
        /// The reference's verdict (`pass`, …) when it ran cleanly, or its fault.
        control: String,
        candidate_caused: bool,
        recorded: Reason,
    },
    /// One request to a model's API failed (the model's own retry loop, or its circuit
    /// breaker refusing to send).
    ApiRetry {
        run_id: String,
        model: String,
        task: String,
        language: Language,
        sample_index: u32,
        attempt: u32,
        error: String,
        /// Another attempt follows; `false` on the last one (the unit becomes `api_error`).
        will_retry: bool,
    },
    /// A model's pre-flight request succeeded (the run stops at the first that fails).
    PreflightPassed {
        model: String,
        /// What was checked, e.g. `chat completion (auth, model name)`.
        checked: String,
        latency_ms: u64,
    },
    /// A model got no score record: it has no scored task, or units that ended in `api_error`
    /// (a resumed run retries them).
    ModelUnscored {
        run_id: String,
        model: String,
        api_errors: u32,
        sandbox_errors: u32,
        /// The first infrastructure error's detail.
        first_error: Option<String>,
    },
    RunFinished {
        run_id: String,
        wall_ms: u64,
    },
}
