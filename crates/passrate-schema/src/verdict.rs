//! Verdicts: what happened when a candidate was judged, per test and per task.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::task::{Category, Language, Tier, Visibility};
use crate::value::Value;

/// Why a test or a task did (not) pass. Stable snake_case codes: scripts and the store rely
/// on them. Infrastructure reasons (`sandbox_error`, `api_error`) are never a model's
/// failure: they are retried and reported apart.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    Pass,
    WrongAnswer,
    RuntimeError,
    Timeout,
    MemoryLimit,
    OutputLimit,
    CompileError,
    /// The sandbox or harness infrastructure failed (retried; never scored).
    SandboxError,
    /// The model API failed after retries (never scored as the model's failure).
    ApiError,
    /// The replay or model gave no answer for the task (a non-pass, reported as coverage).
    NoAnswer,
    // Format compliance (passrate-extract).
    NoCode,
    WrongLanguage,
    SyntaxError,
    MissingEntryPoint,
    SignatureMismatch,
    ClassInsteadOfFunction,
    ScriptWithoutFunction,
    /// A category grader (documentation, unit tests, refactoring) rejected the answer; the
    /// verdict's `detail` names the rule.
    GraderRule,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Pass => "pass",
            Reason::WrongAnswer => "wrong_answer",
            Reason::RuntimeError => "runtime_error",
            Reason::Timeout => "timeout",
            Reason::MemoryLimit => "memory_limit",
            Reason::OutputLimit => "output_limit",
            Reason::CompileError => "compile_error",
            Reason::SandboxError => "sandbox_error",
            Reason::ApiError => "api_error",
            Reason::NoAnswer => "no_answer",
            Reason::NoCode => "no_code",
            Reason::WrongLanguage => "wrong_language",
            Reason::SyntaxError => "syntax_error",
            Reason::MissingEntryPoint => "missing_entry_point",
            Reason::SignatureMismatch => "signature_mismatch",
            Reason::ClassInsteadOfFunction => "class_instead_of_function",
            Reason::ScriptWithoutFunction => "script_without_function",
            Reason::GraderRule => "grader_rule",
        }
    }

    /// Infrastructure faults: retried, reported, never counted against the model.
    pub fn is_infrastructure(self) -> bool {
        matches!(self, Reason::SandboxError | Reason::ApiError)
    }

    /// Format-compliance failures (the answer never reached execution).
    pub fn is_noncompliant(self) -> bool {
        matches!(
            self,
            Reason::NoCode
                | Reason::WrongLanguage
                | Reason::SyntaxError
                | Reason::MissingEntryPoint
                | Reason::SignatureMismatch
                | Reason::ClassInsteadOfFunction
                | Reason::ScriptWithoutFunction
        )
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An exception raised by the candidate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorInfo {
    /// Simple type name, e.g. `ZeroDivisionError`, `TypeError`, `ArithmeticException`.
    pub kind: String,
    pub message: String,
}

/// The result of one test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestResult {
    /// Index into the task's `tests`.
    pub index: usize,
    pub visibility: Visibility,
    pub reason: Reason,
    /// What the candidate returned (public tests only in user-facing output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// CPU time the harness measured for this test, when it could.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us: Option<u64>,
    /// A short human explanation (e.g. "expected int, got float").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The verdict on one candidate for one task in one language.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    pub task: String,
    pub language: Language,
    /// `Pass` only if the answer was compliant and every test passed.
    pub reason: Reason,
    pub tests_passed: usize,
    pub tests_total: usize,
    pub cpu_ms: u64,
    /// The same CPU time in microseconds, where the sandbox measured it (what efficiency
    /// compares; absent in verdicts that did not execute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us: Option<u64>,
    pub wall_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_memory_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<TestResult>,
    /// Explanation of the task-level reason (compiler output, grader rule, sandbox error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What a category grader (documentation, unit tests, refactoring) checked and found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grader: Option<GraderReport>,
}

/// One rule of a category grader that the answer broke.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RuleFailure {
    /// Stable rule name, `<grader>.<rule>`, e.g. `doc.param_undocumented`,
    /// `refactor.max_nesting_depth`, `tests.fails_on_reference`.
    pub rule: String,
    /// What exactly broke it, for a person (e.g. "parameter `threshold` is not documented").
    pub detail: String,
}

/// A category grader's findings. A verdict with any `failed_rules` is not a pass; its reason
/// is `grader_rule` unless the call tests failed first.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct GraderReport {
    /// `documentation`, `unit_tests` or `refactoring`.
    pub grader: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_rules: Vec<RuleFailure>,
    /// Unit-test writing: faulty implementations the answer's tests caught.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faulty_caught: Option<u32>,
    /// Unit-test writing: faulty implementations the task lists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faulty_total: Option<u32>,
    /// Measurements the rules were checked against (e.g. `max_nesting_depth`: 2,
    /// `examples`: 3, `tests`: 5), by name.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub metrics: std::collections::BTreeMap<String, u64>,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.reason == Reason::Pass
    }

    /// A hidden test failed. Its input, expected value, the answer's value, its error and
    /// its detail are then never shown: an error message ("invalid literal for int() with
    /// base 10: '.'") describes the hidden input as well as the expected value would.
    pub fn hidden_test_failed(&self) -> bool {
        self.tests
            .iter()
            .any(|t| t.visibility == Visibility::Hidden && t.reason != Reason::Pass)
    }

    /// The task-level explanation as every output may show it: withheld when a hidden test
    /// failed, since it is then usually that test's own detail.
    pub fn public_detail(&self) -> Option<&str> {
        if self.hidden_test_failed() {
            None
        } else {
            self.detail.as_deref()
        }
    }
}

/// One task's outcome for one model in a run: the unit the scorer consumes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskOutcome {
    pub task: String,
    pub category: Category,
    pub tier: Tier,
    pub language: Language,
    pub sample_index: u32,
    pub reason: Reason,
    /// The task's family ([`Task::family`](crate::Task::family)), the unit the bootstrap
    /// resamples; empty when unknown (the task is then its own family).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub family: String,
}

impl TaskOutcome {
    pub fn passed(&self) -> bool {
        self.reason == Reason::Pass
    }

    /// The resampling unit: the family, or the task itself when the family is unknown.
    pub fn family_or_task(&self) -> &str {
        if self.family.is_empty() {
            &self.task
        } else {
            &self.family
        }
    }
}
