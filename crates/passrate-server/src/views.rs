//! What the API returns and the pages show, as types that describe themselves (JSON Schema
//! via schemars, from which the OpenAPI document is built).
//!
//! The board and the pool stats come from the engine and the pool, whose types are not
//! `JsonSchema`; they are mirrored here field for field and converted through serde, and
//! `the_api` (tests/api.rs) checks that the API's board and pool stats equal the originals
//! serialized, so the API can never show a board other than `passrate leaderboard --json`'s.

use std::collections::BTreeMap;

use passrate_schema::{
    Category, DriftSignals, Estimate, GraderReport, Language, Manifest, Provenance, Reason,
    ScoreRecord, Signature, Source, TestCase, TestResult, Tier, Verdict, Visibility,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;

/// Converts between a type and its mirror through their JSON form.
pub fn mirror<T: Serialize, M: serde::de::DeserializeOwned>(value: &T) -> Result<M, ApiError> {
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .map_err(|e| ApiError::Internal {
            action: format!("convert {} for the API", std::any::type_name::<T>()),
            detail: e.to_string(),
        })
}

/// Which part of the board a row is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Ranked,
    PartialCoverage,
    Controls,
}

/// A difference with its paired bootstrap interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Interval {
    pub point: f64,
    pub low: f64,
    pub high: f64,
}

/// Model `a` against model `b` on the tasks both scored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PairComparison {
    pub a: String,
    pub b: String,
    pub shared_tasks: u32,
    /// score(a) − score(b) on the shared tasks; `null` when they share no task.
    pub difference: Option<Interval>,
    pub within_intervals: bool,
    pub within_margin: bool,
    /// Shown as a tie.
    pub tied: bool,
    /// The paired interval excludes 0.
    pub significant: bool,
}

/// One line of the leaderboard (the engine's `BoardRow`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BoardRow {
    pub section: Section,
    pub rank: Option<u32>,
    pub rank_low: Option<u32>,
    pub rank_high: Option<u32>,
    /// Models whose rank intervals overlap share a group (ranked section only).
    pub tie_group: Option<u32>,
    /// The score shown: the whole sample (ranked, controls) or the answered tasks (partial).
    pub shown: Estimate,
    pub record: ScoreRecord,
    pub unscored_tasks: u32,
    pub infrastructure_faults: u32,
    pub vs_next: Option<PairComparison>,
    pub drift: Option<DriftSignals>,
}

/// A week's leaderboard in three sections (the engine's `Board`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Board {
    pub week: String,
    pub ranked: Vec<BoardRow>,
    pub partial: Vec<BoardRow>,
    pub controls: Vec<BoardRow>,
    /// Controls that did not score what they must.
    pub alerts: Vec<String>,
}

impl Board {
    pub fn rows(&self) -> impl Iterator<Item = &BoardRow> {
        self.ranked
            .iter()
            .chain(&self.partial)
            .chain(&self.controls)
    }
}

/// The weeks with records, oldest first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Weeks {
    pub weeks: Vec<String>,
}

/// A stored score record with the time it was appended.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct StoredRecord {
    pub record: ScoreRecord,
    pub recorded_at: String,
}

/// One page of a model's history: every record version, oldest week first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct History {
    pub model: String,
    /// 1-based.
    pub page: u32,
    pub per_page: u32,
    /// Records over all pages.
    pub total: u32,
    pub pages: u32,
    pub records: Vec<StoredRecord>,
}

/// A model's record in a run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunModel {
    pub model: String,
    pub record_version: u32,
    pub overall: Estimate,
    pub coverage: f64,
    pub provenance: Provenance,
}

/// A run: its manifest, the settings it ran with, and what produced its records.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunView {
    pub run_id: String,
    pub week: String,
    pub manifest: Manifest,
    /// The run's settings as the engine recorded them.
    pub settings: serde_json::Value,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// The latest record of each model this run scored, best first.
    pub models: Vec<RunModel>,
}

/// The verdict on one unit with hidden tests removed: no inputs, expected or actual values,
/// errors or details of a hidden test, only how many there were and how many passed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PublicVerdict {
    pub reason: Reason,
    pub tests_passed: usize,
    pub tests_total: usize,
    pub hidden_tests: usize,
    pub hidden_tests_passed: usize,
    pub cpu_ms: u64,
    pub wall_ms: u64,
    /// Results of the public tests only.
    pub public_tests: Vec<TestResult>,
    /// The task-level explanation, withheld when a hidden test failed (it may describe it).
    pub detail: Option<String>,
    pub grader: Option<GraderReport>,
}

impl PublicVerdict {
    pub fn from_verdict(v: &Verdict) -> PublicVerdict {
        let hidden: Vec<&TestResult> = v
            .tests
            .iter()
            .filter(|t| t.visibility == Visibility::Hidden)
            .collect();
        let hidden_failed = hidden.iter().any(|t| t.reason != Reason::Pass);
        PublicVerdict {
            reason: v.reason,
            tests_passed: v.tests_passed,
            tests_total: v.tests_total,
            hidden_tests: hidden.len(),
            hidden_tests_passed: hidden.iter().filter(|t| t.reason == Reason::Pass).count(),
            cpu_ms: v.cpu_ms,
            wall_ms: v.wall_ms,
            public_tests: v
                .tests
                .iter()
                .filter(|t| t.visibility == Visibility::Public)
                .cloned()
                .collect(),
            detail: if hidden_failed {
                None
            } else {
                v.detail.clone()
            },
            grader: v.grader.clone(),
        }
    }
}

/// One unit of a run for one model.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Outcome {
    pub task: String,
    pub task_version: u32,
    pub sample_index: u32,
    pub language: Language,
    pub category: Category,
    pub tier: Tier,
    pub reason: Reason,
    /// The model's raw answer.
    pub answer: Option<String>,
    pub extracted_code: Option<String>,
    pub verdict: PublicVerdict,
    pub generation_ms: u64,
    pub execution_ms: u64,
    /// Tokens and cost, as the model adapter reported them.
    pub usage: Option<serde_json::Value>,
}

/// A run's per-task outcomes for one model.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Outcomes {
    pub run_id: String,
    pub model: String,
    pub outcomes: Vec<Outcome>,
}

/// A task on which two models' verdicts differ.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DifferingTask {
    pub task: String,
    pub language: Language,
    pub sample_index: u32,
    pub a: Reason,
    pub b: Reason,
}

/// Two models compared on a week's shared tasks.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Comparison {
    pub week: String,
    pub a: Estimate,
    pub b: Estimate,
    pub comparison: PairComparison,
    /// Tasks one model passed and the other did not, by task id.
    pub differing: Vec<DifferingTask>,
}

/// One cell of the pool stats.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct StatsRow {
    pub category: Category,
    pub tier: Tier,
    pub language: Language,
    pub tasks: usize,
    pub active: usize,
}

/// The pool's counts, with a week's rotation (passrate-pool's `Stats`).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct PoolStats {
    pub pool_version: String,
    pub series: u32,
    pub week: String,
    pub tasks: usize,
    pub active: usize,
    pub retired: usize,
    pub panel: usize,
    pub tests: usize,
    pub hidden_tests: usize,
    pub by_category: BTreeMap<Category, usize>,
    pub by_tier: BTreeMap<Tier, usize>,
    pub by_language: BTreeMap<Language, usize>,
    pub rows: Vec<StatsRow>,
}

/// A task in one language, as the model is shown it (no reference solution, no faulty
/// variants: those would hand out the answers).
#[derive(Debug, Serialize, JsonSchema)]
pub struct PublicVariant {
    pub prompt: String,
    pub entry_point: String,
    pub class_name: Option<String>,
    pub signature: Signature,
    pub given_code: Option<String>,
}

/// The public view of a task: what a model sees, and its public tests.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskView {
    pub id: String,
    pub version: u32,
    pub category: Category,
    pub tier: Tier,
    pub family: String,
    pub source: Source,
    pub variants: BTreeMap<Language, PublicVariant>,
    pub public_tests: Vec<TestCase>,
    /// How many hidden tests the task has (their content is never shown).
    pub hidden_tests: usize,
}

/// `/healthz`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Health {
    /// `ok` when the store answered.
    pub status: String,
    pub store: String,
}
