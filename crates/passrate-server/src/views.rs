//! What the API returns and the pages show, as types that describe themselves (JSON Schema
//! via schemars, from which the OpenAPI document is built).
//!
//! The board and the pool stats are the engine's and the pool's own types (re-exported here),
//! so the API can never show a board other than `passrate leaderboard --json`'s.

use std::collections::BTreeMap;

use passrate_schema::{
    Category, Estimate, GraderReport, Language, Manifest, Provenance, Reason, ScoreRecord,
    Signature, Source, TestCase, TestResult, Tier, UnitQuality, Verdict, Visibility,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use passrate_engine::{Board, BoardRow, Section};
pub use passrate_pool::{Stats as PoolStats, stats::StatsRow};
pub use passrate_score::{Interval, PairComparison};

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
            detail: v.public_detail().map(str::to_owned),
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
    /// The quality checks of a passed answer: counts, CPU times and code measures only
    /// (extra and performance inputs are hidden tests).
    pub quality: Option<UnitQuality>,
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
