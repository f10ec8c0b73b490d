//! Category graders: the one place that turns an extracted, format-compliant answer into a
//! verdict. Function completion, algorithm implementation, bug fixing and translation are
//! judged by the task's call tests (the runner); documentation generation, unit-test writing
//! and refactoring each have their own grader, still deterministic and decided outside the
//! sandbox. Everything that judges an answer (the weekly run, `passrate check`, intake
//! validation) goes through [`grade`], so a reference and a model's answer take one path.

pub mod doc;
pub mod refactor;
pub mod rewrite;
pub mod unittest;

use std::collections::BTreeMap;

use passrate_runner::{Runner, RunnerError, SuiteOutcome, SuiteTarget};
use passrate_schema::{
    Category, ErrorInfo, GraderReport, Language, Reason, RuleFailure, Task, Value, Verdict,
};

/// The executions graders ask for. [`Runner`] is the one implementation that runs anything;
/// intake wraps it to reuse an identical execution (same code, tests, limits) it already
/// made, e.g. a refactoring task's call tests on its base task's reference.
pub trait Execute: Sync {
    /// [`Runner::evaluate`]: the task's call tests on `code`.
    fn evaluate(&self, task: &Task, language: Language, code: &str)
    -> Result<Verdict, RunnerError>;
    /// [`Runner::run_calls`]: `entry_point` of `code` on each argument list.
    fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, RunnerError>;
    /// [`Runner::run_suite`]: a test suite against one implementation.
    fn run_suite(
        &self,
        language: Language,
        implementation: &str,
        tests: &str,
        target: &SuiteTarget<'_>,
    ) -> Result<SuiteOutcome, RunnerError>;
}

impl Execute for Runner {
    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        code: &str,
    ) -> Result<Verdict, RunnerError> {
        Runner::evaluate(self, task, language, code)
    }

    fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, RunnerError> {
        Runner::run_calls(self, language, code, entry_point, class_name, calls)
    }

    fn run_suite(
        &self,
        language: Language,
        implementation: &str,
        tests: &str,
        target: &SuiteTarget<'_>,
    ) -> Result<SuiteOutcome, RunnerError> {
        Runner::run_suite(self, language, implementation, tests, target)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    #[error(transparent)]
    Runner(#[from] RunnerError),
    /// The category has no grader: judging it by call tests alone would pass answers the
    /// category must fail (an undocumented function, a test file that tests nothing).
    #[error("{category} answers have no grader")]
    Ungraded { category: Category },
    /// The task lacks what its category's grader needs (a task defect, caught at intake).
    #[error("task {task} ({language}) cannot be graded: {why}")]
    Task {
        task: String,
        language: Language,
        why: String,
    },
}

impl GradeError {
    /// Infrastructure faults: retried, never counted against the model.
    pub fn is_infrastructure(&self) -> bool {
        match self {
            GradeError::Runner(e) => e.is_infrastructure(),
            GradeError::Ungraded { .. } | GradeError::Task { .. } => false,
        }
    }
}

/// Bumped whenever a grader's rules change what it decides (part of intake cache keys and
/// of a run's configuration).
pub const GRADER_VERSION: &str = "4";

/// The version of what decides a category's verdicts, for intake cache keys: categories
/// judged by call tests alone depend on the runner only (whose fingerprint keys the whole
/// cache), so a change to a category grader does not re-run the whole pool.
pub fn grader_version(category: Category) -> &'static str {
    match category {
        Category::FunctionCompletion
        | Category::AlgorithmImplementation
        | Category::BugFixing
        | Category::CodeTranslation => CALL_TESTS_VERSION,
        Category::DocumentationGeneration | Category::UnitTestWriting | Category::Refactoring => {
            GRADER_VERSION
        }
    }
}

/// The call-test path's version in intake cache keys (the value `GRADER_VERSION` had when
/// only call tests judged; bump it if that path itself changes outside the runner).
const CALL_TESTS_VERSION: &str = "1";

/// Categories that have a grader; a weekly run samples only these.
pub const GRADED_CATEGORIES: &[Category] = &[
    Category::FunctionCompletion,
    Category::AlgorithmImplementation,
    Category::BugFixing,
    Category::CodeTranslation,
    Category::DocumentationGeneration,
    Category::Refactoring,
    Category::UnitTestWriting,
];

pub fn is_graded(category: Category) -> bool {
    GRADED_CATEGORIES.contains(&category)
}

/// Judges `code` (already extracted and format-compliant) for `task` in `language`.
pub fn grade(
    runner: &dyn Execute,
    task: &Task,
    language: Language,
    code: &str,
) -> Result<Verdict, GradeError> {
    match task.category {
        Category::FunctionCompletion
        | Category::AlgorithmImplementation
        | Category::BugFixing
        | Category::CodeTranslation => Ok(runner.evaluate(task, language, code)?),
        Category::DocumentationGeneration => doc::grade(runner, task, language, code),
        Category::Refactoring => refactor::grade(runner, task, language, code),
        Category::UnitTestWriting => unittest::grade(runner, task, language, code),
    }
}

/// The verdict of a grader that checked `failed` rules, on top of the call tests' verdict
/// when the category runs them: the tests' failure comes first, then the first broken rule
/// (`grader_rule`, named in `detail`); the report lists every broken rule and the metrics.
pub(crate) fn graded_verdict(
    task: &Task,
    language: Language,
    grader: &str,
    failed_rules: Vec<RuleFailure>,
    metrics: BTreeMap<String, u64>,
    tests: Option<Verdict>,
) -> Verdict {
    let mut verdict = tests.unwrap_or_else(|| {
        let mut v = unexecuted_verdict(task, language, Reason::Pass, None);
        // Without call tests, the examples the grader ran are the verdict's tests.
        v.tests_total = metrics.get("examples").copied().unwrap_or(0) as usize;
        v.tests_passed = metrics.get("examples_correct").copied().unwrap_or(0) as usize;
        v
    });
    if verdict.passed()
        && let Some(first) = failed_rules.first()
    {
        verdict.reason = Reason::GraderRule;
        verdict.detail = Some(format!("{}: {}", first.rule, first.detail));
    }
    verdict.grader = Some(GraderReport {
        grader: grader.to_owned(),
        failed_rules,
        metrics,
        ..GraderReport::default()
    });
    verdict
}

/// A verdict reached without executing anything (no answer, non-compliant, infrastructure).
pub fn unexecuted_verdict(
    task: &Task,
    language: Language,
    reason: Reason,
    detail: Option<String>,
) -> Verdict {
    Verdict {
        task: task.id.clone(),
        language,
        reason,
        tests_passed: 0,
        tests_total: task.tests_for(language).count(),
        cpu_ms: 0,
        cpu_us: None,
        wall_ms: 0,
        peak_memory_bytes: None,
        tests: Vec::new(),
        detail,
        grader: None,
    }
}
