//! The quality dimension beside the pass rate: what is checked on one passed answer
//! ([`UnitQuality`]) and what a model's week summarises from them ([`QualityScores`]).
//! Quality is measured only on answers that passed, so it never counts a failure twice, and
//! it is never mixed into the pass rate.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::record::Estimate;
use crate::verdict::Reason;

/// Static measures of a piece of code, taken on its syntax tree (never by running it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CodeMeasures {
    /// McCabe complexity of the most complex function.
    pub cyclomatic_complexity: u32,
    /// Most control-flow statements open at once in any function.
    pub max_nesting_depth: u32,
    /// Statements in the whole code (simple statements and compound-statement headers).
    pub statements: u32,
    /// Occurrences of a block of code that repeats an earlier one.
    pub duplicated_blocks: u32,
    /// Distinct single-letter names bound outside loop headers, comprehensions, lambdas and
    /// catch clauses (where a one-letter name is the convention).
    pub short_names: u32,
    /// Findings of a real linter (Python: ruff's default rules); `None` where no linter ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lint_findings: Option<u32>,
}

/// Whether a passed answer also passes the task's extra inputs: hidden inputs kept beyond the
/// scored tests (HumanEval+/MBPP+ inputs, generated inputs). EvalPlus's "plus" split.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RobustnessCheck {
    pub extra_tests: u32,
    pub passed: u32,
    /// `pass` when every extra test passed, otherwise the first failing test's reason.
    pub reason: Reason,
}

impl RobustnessCheck {
    pub fn robust(&self) -> bool {
        self.reason == Reason::Pass
    }
}

/// The answer's CPU time against the reference's on the task's performance inputs, both
/// measured from the sandbox's cgroup in the same configuration, each repeated, each less the
/// baseline: the same inputs given to a stub of the entry point that returns at once (the
/// harness's own cost of decoding the inputs and reporting).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EfficiencyCheck {
    pub inputs: u32,
    /// CPU milliseconds of the answer: the mean of its two closest executions that agree,
    /// else its least.
    pub candidate_cpu_ms: f64,
    /// CPU milliseconds of the reference, taken the same way.
    pub reference_cpu_ms: f64,
    /// CPU milliseconds of the stub, taken the same way.
    pub baseline_cpu_ms: f64,
    /// `(candidate − baseline) / (reference − baseline)`; the budget's ratio when the answer
    /// ran out of CPU (a lower bound).
    pub ratio: f64,
    /// Executions of the answer.
    pub repeats: u32,
    /// Largest relative distance of one execution from `candidate_cpu_ms`.
    pub spread: f64,
    /// `pass`, or why the answer did not get through the performance inputs (`timeout`:
    /// slower than the budget; a crash, a limit or a wrong value): each counts slow.
    pub reason: Reason,
}

impl EfficiencyCheck {
    /// It has a ratio: it got through the inputs, or ran out of CPU (a lower bound).
    pub fn measured(&self) -> bool {
        matches!(self.reason, Reason::Pass | Reason::Timeout)
    }

    /// Slower than [`SLOW_RATIO`]× the reference, or did not get through the inputs.
    pub fn slow(&self) -> bool {
        self.reason != Reason::Pass || self.ratio > SLOW_RATIO
    }
}

/// The answer's static measures beside the reference's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MaintainabilityCheck {
    pub candidate: CodeMeasures,
    pub reference: CodeMeasures,
    /// Measures outside the band around the reference (`cyclomatic_complexity`, …), empty when
    /// the answer is within it.
    pub outside_band: Vec<String>,
}

impl MaintainabilityCheck {
    pub fn within_band(&self) -> bool {
        self.outside_band.is_empty()
    }
}

/// Quality checks of one passed answer. A check is `None` where it does not apply (no extra
/// inputs, no performance inputs, a category whose answer is not a function).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UnitQuality {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robustness: Option<RobustnessCheck>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<EfficiencyCheck>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maintainability: Option<MaintainabilityCheck>,
}

impl UnitQuality {
    pub fn is_empty(&self) -> bool {
        self.robustness.is_none() && self.efficiency.is_none() && self.maintainability.is_none()
    }
}

/// A median with its 95% cluster-bootstrap interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Median {
    pub tasks: u32,
    pub median: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// A model's efficiency for a week.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EfficiencyScore {
    /// CPU time relative to the reference, over the passed tasks measured.
    pub ratio: Median,
    /// Share of the passed tasks with performance inputs that were slower than [`SLOW_RATIO`]×
    /// the reference or did not get through those inputs ("brute force").
    pub slow: Estimate,
}

/// A model's maintainability for a week.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MaintainabilityScore {
    /// Share of passed tasks whose code is within the band around the reference.
    pub within_band: Estimate,
    /// Per measure: the median over the passed tasks of the answer's value and of the
    /// reference's.
    pub medians: BTreeMap<String, MeasureMedians>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MeasureMedians {
    pub candidate: f64,
    pub reference: f64,
}

/// A model's quality scores for a week, each over the passed tasks it applies to, each with a
/// cluster-bootstrap interval over task families.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QualityScores {
    /// Share of passed tasks with extra inputs that pass all of them ("pass on plus inputs").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robustness: Option<Estimate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<EfficiencyScore>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maintainability: Option<MaintainabilityScore>,
}

/// An answer this many times slower than the reference is counted slow.
pub const SLOW_RATIO: f64 = 10.0;
