//! The quality checks of one passed answer, beside its verdict and never part of it:
//!
//! * **robustness**: the answer on the task's extra tests (hidden inputs kept beyond the
//!   scored suite: HumanEval+/MBPP+ inputs, generated inputs), one execution through the same
//!   grading path as the verdict, with the same retries and control run;
//! * **efficiency**: the answer's CPU time against the reference's on the task's performance
//!   inputs, both read from the sandbox's cgroup in the same configuration and repeated until
//!   two executions agree within [`EFFICIENCY_AGREEMENT`] (at most [`EFFICIENCY_MAX_REPEATS`]),
//!   each less the baseline of a stub of the entry point that returns at once on the same
//!   inputs (decoding large inputs costs the harness as much as a linear function costs, and
//!   would pull every ratio towards 1); the reference and the stub are measured once per run
//!   and language ([`ReferenceCache`]);
//! * **maintainability**: static measures of the extracted code against the reference's
//!   (`passrate_extract::maintain`), with ruff's findings for Python when ruff is installed.
//!
//! Only a passed answer is checked, so quality never counts a failure twice. An
//! infrastructure fault that persists leaves a check unmeasured (`None`): it is never the
//! answer's quality, and the control run decides as for verdicts, so an answer that breaks
//! the sandbox on an extra input fails robustness rather than escaping it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use passrate_extract::{maintain, stub};
use passrate_grade::Execute;
use passrate_pool::PerfSet;
use passrate_schema::{
    Category, CodeMeasures, EfficiencyCheck, Expected, Language, MaintainabilityCheck, Reason,
    RobustnessCheck, SLOW_RATIO, Task, TestCase, TestForm, UnitQuality, Variant,
};

use crate::error::EngineError;
use crate::judge::{Execution, RetryPolicy, execute, reference_code, variant_of};

/// Two executions whose CPU times differ by at most this share of their mean agree…
pub const EFFICIENCY_AGREEMENT: f64 = 0.10;
/// …or by at most this many milliseconds (the stub's few milliseconds jitter by more than a
/// tenth, and that jitter is well inside what the rules on the reference's work allow for).
pub const EFFICIENCY_AGREEMENT_MS: f64 = 1.0;
/// The extra tests of one robustness execution expect at most this many bytes of results
/// (HumanEval/83's half-million-digit integers): the answer's values must fit the
/// execution's output limit, so larger sets are run in several executions.
pub const ROBUSTNESS_CHUNK_BYTES: u64 = 256 * 1024;
/// Executions of one side (answer or reference) at most, when they keep disagreeing.
pub const EFFICIENCY_MAX_REPEATS: u32 = 5;
/// Each performance input's budget is this many times the reference's CPU on it, so an
/// answer that runs out of it is certainly past [`SLOW_RATIO`] (the runner's own per-test
/// budget factor is applied on top, see [`perf_probe`]).
pub const EFFICIENCY_BUDGET_RATIO: f64 = 12.0;
/// Performance inputs an answer runs (a set's first, its heaviest): two of them measure as
/// precisely as three, in two thirds of the time.
pub const EFFICIENCY_MAX_INPUTS: usize = 2;
/// The reference's own work on the performance inputs (its CPU less the stub's) must be at
/// least this many milliseconds…
pub const EFFICIENCY_MIN_WORK_MS: f64 = 5.0;
/// …and at least this share of the stub's CPU, for a ratio to be measured: below either, the
/// repeats' noise is a large part of the difference.
pub const EFFICIENCY_MIN_WORK_SHARE: f64 = 0.25;

/// The categories whose answer is an implementation comparable with the reference's;
/// documentation answers restate given code and unit-test answers are tests.
pub fn measures_maintainability(category: Category) -> bool {
    !matches!(
        category,
        Category::DocumentationGeneration | Category::UnitTestWriting
    )
}

/// What the checks of one task need besides the answer.
#[derive(Clone, Debug, Default)]
pub struct QualityInputs {
    /// The task's extra tests (every language; filtered per answer).
    pub extra: Arc<Vec<TestCase>>,
    pub perf: Option<Arc<PerfSet>>,
    /// Run ruff on Python answers (and their references) when it is installed.
    pub lint: bool,
}

/// A value computed once by whichever thread asks first (`None`: it could not be).
type Once<T> = Arc<OnceLock<Option<T>>>;

/// What is measured on a task's reference once per run and language and shared by every
/// model's answers: its CPU on the performance inputs and its code measures.
#[derive(Debug, Default)]
pub struct ReferenceCache {
    times: Mutex<HashMap<(String, Language), Once<Yardstick>>>,
    measures: Mutex<HashMap<(String, Language, bool), Once<CodeMeasures>>>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Yardstick {
    reference: Measured,
    baseline: Measured,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Measured {
    cpu_ms: f64,
    repeats: u32,
    spread: f64,
}

impl ReferenceCache {
    fn slot(&self, task: &str, language: Language) -> Once<Yardstick> {
        self.times
            .lock()
            .expect("no panic while holding the lock")
            .entry((task.to_string(), language))
            .or_default()
            .clone()
    }

    fn measures(&self, task: &str, language: Language, lint: bool) -> Once<CodeMeasures> {
        self.measures
            .lock()
            .expect("no panic while holding the lock")
            .entry((task.to_string(), language, lint))
            .or_default()
            .clone()
    }
}

/// Checks a passed answer's `code`.
#[allow(clippy::too_many_arguments)]
pub fn check(
    exec: &dyn Execute,
    task: &Task,
    language: Language,
    code: &str,
    inputs: &QualityInputs,
    references: &ReferenceCache,
    policy: RetryPolicy,
    on_retry: &dyn Fn(u32, &str),
) -> Result<(UnitQuality, CheckTimes), EngineError> {
    let mut times = CheckTimes::default();
    let variant = variant_of(task, language)?;
    let grade_error = |source| EngineError::Grade {
        task: task.id.clone(),
        language,
        source,
    };
    let clock = Instant::now();
    let robustness = robustness(
        exec,
        task,
        language,
        variant,
        code,
        &inputs.extra,
        policy,
        on_retry,
    )
    .map_err(grade_error)?
    .filter(|r| !r.reason.is_infrastructure());
    times.robustness = clock.elapsed();
    let clock = Instant::now();
    let efficiency = match &inputs.perf {
        Some(perf) => efficiency(
            exec, task, language, variant, code, perf, references, policy,
        )
        .map_err(grade_error)?,
        None => None,
    };
    times.efficiency = clock.elapsed();
    let clock = Instant::now();
    let maintainability = if measures_maintainability(task.category) {
        maintainability(task, language, variant, code, inputs.lint, references)
    } else {
        None
    };
    times.maintainability = clock.elapsed();
    let quality = UnitQuality {
        robustness,
        efficiency,
        maintainability,
    };
    Ok((quality, times))
}

/// Where one check's time went.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckTimes {
    pub robustness: Duration,
    pub efficiency: Duration,
    pub maintainability: Duration,
}

/// A passed answer on `extra` (the task's extra tests), with the default retry policy: what
/// `evaluate` reports as EvalPlus's plus verdict.
pub fn robustness_of(
    exec: &dyn Execute,
    task: &Task,
    language: Language,
    code: &str,
    extra: &[TestCase],
) -> Result<Option<RobustnessCheck>, EngineError> {
    let variant = variant_of(task, language)?;
    robustness(
        exec,
        task,
        language,
        variant,
        code,
        extra,
        RetryPolicy::default(),
        &|_, _| {},
    )
    .map_err(|source| EngineError::Grade {
        task: task.id.clone(),
        language,
        source,
    })
}

/// The task with `tests` in place of its own (and no calibration: those times are of its
/// own tests).
fn probe(task: &Task, tests: Vec<TestCase>) -> Task {
    let mut probe = task.clone();
    probe.tests = tests;
    probe.calibration.reference_test_cpu_us.clear();
    probe
}

#[allow(clippy::too_many_arguments)]
fn robustness(
    exec: &dyn Execute,
    task: &Task,
    language: Language,
    variant: &Variant,
    code: &str,
    extra: &[TestCase],
    policy: RetryPolicy,
    on_retry: &dyn Fn(u32, &str),
) -> Result<Option<RobustnessCheck>, passrate_grade::GradeError> {
    let tests: Vec<TestCase> = extra
        .iter()
        .filter(|t| t.applies_to(language))
        .cloned()
        .collect();
    if tests.is_empty() {
        return Ok(None);
    }
    let mut check = RobustnessCheck {
        extra_tests: tests.len() as u32,
        passed: 0,
        reason: Reason::Pass,
    };
    for chunk in chunks(tests) {
        let probe = probe(task, chunk);
        match execute(exec, &probe, language, variant, code, policy, on_retry)? {
            Execution::Judged { verdict, .. } => {
                check.passed += verdict.tests_passed as u32;
                if check.reason == Reason::Pass {
                    check.reason = verdict.reason;
                }
            }
            // A failure already seen stands; otherwise the check is an infrastructure fault,
            // which the caller leaves unmeasured (cycle) or reports (evaluate).
            Execution::Fault { .. } => {
                if check.reason == Reason::Pass {
                    check.reason = Reason::SandboxError;
                }
                break;
            }
        }
    }
    Ok(Some(check))
}

/// `tests` in runs whose expected results stay under [`ROBUSTNESS_CHUNK_BYTES`] (a test
/// larger than that alone).
fn chunks(tests: Vec<TestCase>) -> Vec<Vec<TestCase>> {
    let mut chunks: Vec<Vec<TestCase>> = Vec::new();
    let mut bytes = 0;
    for test in tests {
        let size = expected_bytes(&test);
        if chunks.is_empty() || bytes + size > ROBUSTNESS_CHUNK_BYTES {
            chunks.push(Vec::new());
            bytes = 0;
        }
        bytes += size;
        chunks.last_mut().expect("pushed above").push(test);
    }
    chunks
}

fn expected_bytes(test: &TestCase) -> u64 {
    let expected = |e: &Expected| match e {
        Expected::Returns(v) => v.canonical_bytes().len() as u64,
        Expected::ReturnsDigest(d) => d.bytes,
        Expected::Raises(_) => 0,
    };
    match &test.form {
        TestForm::Call { expected: e, .. } => expected(e),
        TestForm::Sequence { steps, .. } => steps.iter().map(|s| expected(&s.expected)).sum(),
    }
}

/// The task posed on its performance inputs, with each input's budget
/// [`EFFICIENCY_BUDGET_RATIO`] times the reference's intake CPU on it.
fn perf_probe(task: &Task, language: Language, perf: &PerfSet) -> Option<Task> {
    let covered: Vec<&TestCase> = perf
        .tests
        .iter()
        .filter(|t| t.applies_to(language))
        .collect();
    let reference_ms = *perf.reference_cpu_ms.get(&language)?;
    if covered.is_empty() {
        return None;
    }
    // Intake measured the reference on the whole set; its share per input, for the
    // reference's own executions (the answer's come from this run's, `calibrated`).
    let per_input_ms = reference_ms / covered.len() as f64;
    let tests: Vec<TestCase> = covered
        .into_iter()
        .take(EFFICIENCY_MAX_INPUTS)
        .cloned()
        .collect();
    let total_ms = per_input_ms * tests.len() as f64;
    Some(calibrated(probe(task, tests), language, total_ms))
}

/// `probe` with each input's budget [`EFFICIENCY_BUDGET_RATIO`] times its share of
/// `reference_ms` (the reference's CPU on all of them).
fn calibrated(mut probe: Task, language: Language, reference_ms: f64) -> Task {
    // The runner budgets each test at `budget_factor ×` its calibrated reference time; the
    // calibration given here is scaled so that the budget comes out at
    // EFFICIENCY_BUDGET_RATIO × the reference's time.
    let factor = passrate_runner::RunnerOptions::default().budget_factor;
    let per_test_us = reference_ms * 1000.0 / probe.tests.len().max(1) as f64;
    let calibrated = (per_test_us * EFFICIENCY_BUDGET_RATIO / factor).ceil() as u64;
    let inputs = probe.tests.len();
    probe
        .calibration
        .reference_test_cpu_us
        .insert(language, vec![calibrated.max(1); inputs]);
    probe
}

/// Repeated executions of `code` on `probe` until two agree: `Ok(None)` when an execution
/// faulted (infrastructure), `Err(reason)` when `require_pass` and the code did not pass.
fn measure(
    exec: &dyn Execute,
    probe: &Task,
    language: Language,
    variant: &Variant,
    code: &str,
    policy: RetryPolicy,
    require_pass: bool,
) -> Result<Result<Option<Measured>, Reason>, passrate_grade::GradeError> {
    let mut times: Vec<f64> = Vec::new();
    while (times.len() as u32) < EFFICIENCY_MAX_REPEATS {
        let verdict = match execute(exec, probe, language, variant, code, policy, &|_, _| {})? {
            Execution::Judged { verdict, .. } => verdict,
            Execution::Fault { .. } => return Ok(Ok(None)),
        };
        if require_pass && verdict.reason != Reason::Pass {
            return Ok(Err(verdict.reason));
        }
        times.push(
            verdict
                .cpu_us
                .map_or(verdict.cpu_ms as f64, |us| us as f64 / 1000.0),
        );
        if agreed(&times).is_some() {
            break;
        }
    }
    // The closest two agreeing, else the least: noise (another process's cache misses, a
    // runtime's collector or compiler thread running longer) only ever adds CPU time.
    let cpu_ms = agreed(&times).unwrap_or_else(|| times.iter().copied().fold(f64::MAX, f64::min));
    Ok(Ok(Some(Measured {
        cpu_ms,
        repeats: times.len() as u32,
        spread: spread(&times, cpu_ms),
    })))
}

/// The mean of the closest two executions when they agree within [`EFFICIENCY_AGREEMENT`]
/// of their mean.
fn agreed(times: &[f64]) -> Option<f64> {
    let mut best: Option<(f64, f64)> = None;
    for (i, a) in times.iter().enumerate() {
        for b in &times[i + 1..] {
            let gap = (a - b).abs();
            let tolerance = (EFFICIENCY_AGREEMENT * (a + b) / 2.0).max(EFFICIENCY_AGREEMENT_MS);
            if gap <= tolerance && best.is_none_or(|(g, _)| gap < g) {
                best = Some((gap, (a + b) / 2.0));
            }
        }
    }
    best.map(|(_, mean)| mean)
}

/// Largest relative distance of one execution from `value`.
fn spread(values: &[f64], value: f64) -> f64 {
    if value <= 0.0 {
        return 0.0;
    }
    values
        .iter()
        .map(|v| (v - value).abs() / value)
        .fold(0.0, f64::max)
}

/// The reference's and the stub's CPU on a task's performance inputs in one language: what
/// an answer is measured against. `None` when either could not be measured, or when the
/// reference's own work (its CPU less the stub's) is under [`EFFICIENCY_MIN_WORK_MS`] or
/// [`EFFICIENCY_MIN_WORK_SHARE`] of the stub's: the inputs then exercise the harness more than
/// the function, and a ratio would measure noise.
fn yardstick(
    exec: &dyn Execute,
    probe: &Task,
    language: Language,
    variant: &Variant,
    policy: RetryPolicy,
) -> Result<Option<Yardstick>, passrate_grade::GradeError> {
    let reference = reference_code(probe, language, variant);
    let Some(stub) = stub::entry_point_stub(language, &reference, &variant.entry_point) else {
        return Ok(None);
    };
    let Ok(Some(reference)) = measure(exec, probe, language, variant, &reference, policy, true)?
    else {
        return Ok(None);
    };
    let Ok(Some(baseline)) = measure(exec, probe, language, variant, &stub, policy, false)? else {
        return Ok(None);
    };
    let work = reference.cpu_ms - baseline.cpu_ms;
    Ok(
        (work >= EFFICIENCY_MIN_WORK_MS && work >= EFFICIENCY_MIN_WORK_SHARE * baseline.cpu_ms)
            .then_some(Yardstick {
                reference,
                baseline,
            }),
    )
}

#[allow(clippy::too_many_arguments)]
fn efficiency(
    exec: &dyn Execute,
    task: &Task,
    language: Language,
    variant: &Variant,
    code: &str,
    perf: &PerfSet,
    references: &ReferenceCache,
    policy: RetryPolicy,
) -> Result<Option<EfficiencyCheck>, passrate_grade::GradeError> {
    let Some(probe) = perf_probe(task, language, perf) else {
        return Ok(None);
    };
    // Measured once, by the first unit to ask; the others wait for it rather than measure
    // the reference beside copies of itself. A task that cannot be graded has no yardstick.
    let yardstick = *references.slot(&task.id, language).get_or_init(|| {
        yardstick(exec, &probe, language, variant, policy)
            .ok()
            .flatten()
    });
    let Some(Yardstick {
        reference,
        baseline,
    }) = yardstick
    else {
        return Ok(None);
    };
    let work = reference.cpu_ms - baseline.cpu_ms;
    // The answer's budgets from the reference as measured in this run, not at intake.
    let probe = calibrated(probe, language, reference.cpu_ms);
    let check = |candidate: Option<Measured>, ratio: f64, reason: Reason| EfficiencyCheck {
        inputs: probe.tests.len() as u32,
        candidate_cpu_ms: candidate.map_or(0.0, |c| c.cpu_ms),
        reference_cpu_ms: reference.cpu_ms,
        baseline_cpu_ms: baseline.cpu_ms,
        ratio,
        repeats: candidate.map_or(1, |c| c.repeats),
        spread: candidate.map_or(0.0, |c| c.spread),
        reason,
    };
    Ok(
        match measure(exec, &probe, language, variant, code, policy, true)? {
            Ok(None) => None,
            Ok(Some(candidate)) => {
                // Noise can put a very fast answer under the stub: its work is then none.
                let ratio = (candidate.cpu_ms - baseline.cpu_ms).max(0.0) / work;
                Some(check(Some(candidate), ratio, Reason::Pass))
            }
            // Out of CPU: slower than the budget, which is past the slow threshold.
            Err(Reason::Timeout) => Some(check(None, EFFICIENCY_BUDGET_RATIO, Reason::Timeout)),
            // It did not get through the inputs (a crash, a limit, a wrong value): no ratio,
            // and counted among the slow answers, which did not handle them either.
            Err(reason) => Some(check(None, 0.0, reason)),
        },
    )
}

/// The code's measures, with ruff's findings for Python when `lint` (`None` in
/// `lint_findings` where ruff is missing or failed).
fn measures(language: Language, code: &str, lint: bool) -> Option<CodeMeasures> {
    let mut measures = maintain::code_measures(language, code).ok()?;
    if lint && language == Language::Python {
        measures.lint_findings = maintain::lint_python(code).ok().flatten();
    }
    Some(measures)
}

fn maintainability(
    task: &Task,
    language: Language,
    variant: &Variant,
    code: &str,
    lint: bool,
    references: &ReferenceCache,
) -> Option<MaintainabilityCheck> {
    // A reference too large to parse has no measures to compare against: the check is left
    // out rather than guessed.
    let mut reference = references
        .measures(&task.id, language, lint)
        .get_or_init(|| measures(language, &reference_code(task, language, variant), lint))
        .clone()?;
    let mut candidate = measures(language, code, lint)?;
    // Lint findings compare only when both sides were linted by the same ruff.
    if candidate.lint_findings.is_none() || reference.lint_findings.is_none() {
        candidate.lint_findings = None;
        reference.lint_findings = None;
    }
    let outside_band = maintain::outside_band(&candidate, &reference);
    Some(MaintainabilityCheck {
        candidate,
        reference,
        outside_band,
    })
}

const _: () = assert!(EFFICIENCY_BUDGET_RATIO > SLOW_RATIO);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_agreeing_pair_is_the_measurement() {
        assert_eq!(agreed(&[100.0, 108.0]), Some(104.0));
        assert_eq!(agreed(&[100.0, 125.0]), None);
        assert_eq!(agreed(&[100.0, 150.0, 104.0]), Some(102.0));
        assert_eq!(agreed(&[100.0, 109.0, 104.0]), Some(102.0));
        // Small times agree within a millisecond.
        assert_eq!(agreed(&[1.0, 1.8]), Some(1.4));
        assert_eq!(agreed(&[1.0, 2.5]), None);
        assert!((spread(&[90.0, 100.0, 120.0], 100.0) - 0.2).abs() < 1e-12);
    }

    fn sized(bytes: usize) -> TestCase {
        TestCase {
            visibility: passrate_schema::Visibility::Hidden,
            form: TestForm::Call {
                args: Vec::new(),
                expected: Expected::Returns(passrate_schema::Value::str("x".repeat(bytes))),
            },
            comparator: None,
            languages: Vec::new(),
        }
    }

    #[test]
    fn extra_tests_are_chunked_by_the_size_of_their_results() {
        let lens = |tests: Vec<TestCase>| chunks(tests).iter().map(Vec::len).collect::<Vec<_>>();
        assert_eq!(lens((0..5).map(|_| sized(10)).collect()), vec![5]);
        let big = ROBUSTNESS_CHUNK_BYTES as usize;
        assert_eq!(
            lens(vec![
                sized(10),
                sized(big),
                sized(10),
                sized(big / 2),
                sized(big / 2)
            ]),
            vec![1, 1, 2, 1]
        );
    }

    #[test]
    fn documentation_and_unit_tests_are_not_measured_for_maintainability() {
        assert!(!measures_maintainability(Category::DocumentationGeneration));
        assert!(!measures_maintainability(Category::UnitTestWriting));
        assert!(measures_maintainability(Category::BugFixing));
    }
}
