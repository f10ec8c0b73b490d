//! Intake validation: every reference answer goes through `Executor::evaluate`, the path a
//! model's answer takes, twice — or once during an import for a reference whose expected
//! values that import just recorded from it ([`Recorded`]: the recording is the first run).
//! A task is rejected when a reference does not pass, when two runs disagree on any test's
//! result, or when a known-faulty variant passes (its bug
//! would go unnoticed). Documentation and refactoring tasks also need known-bad answers to
//! fail by the grader's rules ([`doc_known_bad`], [`refactor_behaviour`]). The per-test CPU
//! time of the reference (the largest over its evaluation runs) becomes
//! `calibration.reference_test_cpu_us`, the base of per-test budgets.

use std::collections::BTreeMap;

use passrate_schema::{
    Category, CategoryData, Comparator, Language, Reason, Signature, Task, TestCase, Variant,
    Verdict,
};
use serde::Serialize;

use crate::cache::Cache;
use crate::exec::Executor;
use crate::import::build::Rejection;

/// Number of times each reference is evaluated.
pub const RUNS: usize = 2;
/// Extra attempts after an infrastructure failure of one execution.
pub const RETRIES: usize = 2;

/// Everything one evaluation depends on (the cache key's input).
#[derive(Serialize)]
struct EvalInput<'a> {
    language: Language,
    answer: &'a str,
    entry_point: &'a str,
    class_name: Option<&'a str>,
    preamble: Option<&'a str>,
    /// Extraction checks the answer against it.
    signature: &'a Signature,
    extractor_version: &'static str,
    /// Category graders beyond call tests read the whole task; call-test categories share
    /// entries (a translation task's reference is its source problem's, same tests).
    grader: Option<(Category, &'a Variant, &'a CategoryData, &'static str)>,
    /// The tests the language runs, with their effective comparator, `languages` cleared
    /// (it only selects tests, it does not change them).
    tests: Vec<(TestCase, &'a Comparator)>,
    limits: &'a passrate_schema::LimitOverrides,
    calibration: Option<&'a Vec<u64>>,
    /// Unit-test writing: the suite harnesses, which the runner's fingerprint (the first
    /// three harnesses) does not cover.
    #[serde(skip_serializing_if = "Option::is_none")]
    suite_harnesses: Option<Vec<&'static str>>,
}

/// Tests a task must have in each language, public and hidden together, when its category is
/// judged by them.
pub const MIN_TESTS: usize = 5;

/// Hidden tests a task must have in each language, likewise.
pub const MIN_HIDDEN: usize = 1;

/// Whether a suite of `tests` tests, `hidden` of them hidden, is below the minimum for a task
/// of `category`. Unit-test writing is judged by the answer's own tests run against the
/// reference and the faulty variants, not by call tests: no minimum.
pub fn below_suite_minimum(category: Category, tests: usize, hidden: usize) -> bool {
    category != Category::UnitTestWriting && (tests < MIN_TESTS || hidden < MIN_HIDDEN)
}

/// The suite minimum, per language.
fn suite_minimum(task: &Task) -> Result<(), Rejection> {
    for language in task.variants.keys() {
        let (n, h) = task.tests_for(*language).fold((0, 0), |(n, h), (_, t)| {
            (
                n + 1,
                h + usize::from(t.visibility == passrate_schema::Visibility::Hidden),
            )
        });
        if below_suite_minimum(task.category, n, h) {
            return Err(reject(
                task,
                format!(
                    "{language}: {n} tests, {h} hidden (a task needs at least {MIN_TESTS} tests with {MIN_HIDDEN} hidden)"
                ),
            ));
        }
    }
    Ok(())
}

fn judged_by_call_tests(category: Category) -> bool {
    matches!(
        category,
        Category::FunctionCompletion
            | Category::AlgorithmImplementation
            | Category::BugFixing
            | Category::CodeTranslation
    )
}

/// The cache key of one evaluation of `answer` on `task`'s `language` tests: everything
/// the verdict depends on.
pub fn eval_key(
    cache: &Cache,
    task: &Task,
    language: Language,
    answer: &str,
) -> Result<String, String> {
    input_key(
        cache,
        task,
        language,
        answer,
        !judged_by_call_tests(task.category),
    )
}

/// The key [`eval_key`] gives the same code on the same tests in a call-test category: what
/// the call tests' execution depends on, without the category's grader. A refactoring
/// task's reference with this key runs exactly the execution its base task's reference did.
fn call_tests_key(
    cache: &Cache,
    task: &Task,
    language: Language,
    answer: &str,
) -> Result<String, String> {
    input_key(cache, task, language, answer, false)
}

fn input_key(
    cache: &Cache,
    task: &Task,
    language: Language,
    answer: &str,
    with_grader: bool,
) -> Result<String, String> {
    let variant = task
        .variants
        .get(&language)
        .ok_or_else(|| format!("no {language} variant"))?;
    let input = EvalInput {
        language,
        answer,
        entry_point: &variant.entry_point,
        class_name: variant.class_name.as_deref(),
        preamble: variant.preamble.as_deref(),
        signature: &variant.signature,
        extractor_version: passrate_extract::EXTRACTOR_VERSION,
        grader: with_grader.then_some((
            task.category,
            variant,
            &task.category_data,
            passrate_grade::grader_version(task.category),
        )),
        tests: task
            .tests_for(language)
            .map(|(_, t)| {
                let mut t2 = t.clone();
                t2.languages.clear();
                (t2, task.comparator_for(t))
            })
            .collect(),
        limits: &task.limits,
        calibration: task.calibration.reference_test_cpu_us.get(&language),
        suite_harnesses: (task.category == Category::UnitTestWriting)
            .then(|| passrate_runner::suite::suite_sources().collect()),
    };
    Ok(cache.key("eval", &input))
}

/// Evaluates `answer` `runs` times, through the cache: run `k` is its own entry (the input's
/// key and `k`), so the runs stay independent executions while a single evaluation of the
/// same input elsewhere (a refactoring task's behaviour check on its reference) is the first
/// run of the two, not a third execution.
pub fn evaluate_cached(
    exec: &dyn Executor,
    cache: &Cache,
    task: &Task,
    language: Language,
    answer: &str,
    runs: usize,
) -> Result<Vec<Verdict>, String> {
    let key = eval_key(cache, task, language, answer)?;
    evaluate_keyed(exec, cache, task, language, answer, &key, runs)
}

fn evaluate_keyed(
    exec: &dyn Executor,
    cache: &Cache,
    task: &Task,
    language: Language,
    answer: &str,
    key: &str,
    runs: usize,
) -> Result<Vec<Verdict>, String> {
    let mut verdicts = Vec::with_capacity(runs);
    for run in 0..runs {
        let verdict: Verdict = cache.get_or_compute("eval", &format!("{key}-{run}"), || {
            with_retries(|| exec.evaluate_run(task, language, answer, cache, run))
        })?;
        verdicts.push(verdict);
    }
    // A shared entry may come from another task with the same code and tests.
    for v in &mut verdicts {
        v.task = task.id.clone();
    }
    Ok(verdicts)
}

/// Prefix of the message of an execution that failed for infrastructure reasons after its
/// retries (such results are never cached).
pub const INFRASTRUCTURE: &str = "infrastructure: ";

/// Runs `f`, retrying infrastructure failures; the error is the whole message chain,
/// prefixed with [`INFRASTRUCTURE`] when the machinery failed.
pub fn with_retries<T>(
    mut f: impl FnMut() -> Result<T, crate::exec::ExecError>,
) -> Result<T, String> {
    let mut attempt = 0;
    loop {
        match f() {
            Ok(v) => return Ok(v),
            Err(e) if e.infrastructure && attempt < RETRIES => attempt += 1,
            Err(e) => {
                let chain =
                    std::iter::successors(Some(&e as &dyn std::error::Error), |e| e.source())
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>();
                // thiserror's Display already includes `#[error("{0}")]`-style sources; keep
                // distinct links only.
                let mut parts: Vec<String> = Vec::new();
                for part in chain {
                    if !parts.iter().any(|p| p.contains(&part)) {
                        parts.push(part);
                    }
                }
                let prefix = if e.infrastructure { INFRASTRUCTURE } else { "" };
                return Err(format!("{prefix}{}", parts.join(": ")));
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct ValidationReport {
    /// Tasks that passed, with their calibration filled in (input order).
    pub accepted: Vec<Task>,
    pub rejected: Vec<Rejection>,
    /// Total CPU time of all reference runs, in milliseconds.
    pub cpu_ms: u64,
}

fn reject(task: &Task, reason: String) -> Rejection {
    Rejection {
        id: task.id.clone(),
        stage: "validate".to_owned(),
        reason,
    }
}

fn summarize(v: &Verdict) -> String {
    let failing = v
        .tests
        .iter()
        .find(|t| t.reason != Reason::Pass)
        .map(|t| {
            format!(
                "; test {} {}{}",
                t.index,
                t.reason,
                t.detail
                    .as_deref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            )
        })
        .unwrap_or_default();
    format!(
        "{} ({}/{} tests){}{}",
        v.reason,
        v.tests_passed,
        v.tests_total,
        v.detail
            .as_deref()
            .map(|d| format!(": {d}"))
            .unwrap_or_default(),
        failing
    )
}

/// Validates one task, returning it with calibration, or why it is rejected.
pub fn validate_task(
    exec: &dyn Executor,
    cache: &Cache,
    task: &Task,
) -> Result<(Task, u64), Rejection> {
    validate_task_with(exec, cache, task, &Recorded::default())
}

/// Evaluation keys (see [`eval_key`]) whose tests' expected values are that very code's
/// outputs, recorded by a sandboxed run of the import that built the task: the reference
/// of a built task in each of its languages, on exactly its tests. For those, one run
/// through the evaluation path is the second run of the determinism check (a pass means
/// its results equal the recorded ones under the task's comparator), so intake runs it
/// once; so is a refactoring task's reference on exactly its base task's recorded tests
/// ([`Recorded::covers`]). Every other reference runs [`RUNS`] times.
#[derive(Clone, Debug, Default)]
pub struct Recorded(std::collections::HashSet<String>);

impl Recorded {
    /// Marks the references of tasks built (recorded) in this import.
    pub fn from_built<'a>(cache: &Cache, tasks: impl IntoIterator<Item = &'a Task>) -> Recorded {
        let mut keys = std::collections::HashSet::new();
        for task in tasks {
            if !judged_by_call_tests(task.category) {
                continue;
            }
            for (language, variant) in &task.variants {
                if let Ok(key) = eval_key(cache, task, *language, &variant.reference_solution) {
                    keys.insert(key);
                }
            }
        }
        Recorded(keys)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether `answer` (with evaluation key `key`) is a recorded reference on its recorded
    /// tests. A refactoring task's reference counts when its call tests are a recorded
    /// reference's, unchanged: its grader adds only static checks to that very execution
    /// (which the intake cache shares with the base task's evaluation).
    fn covers(
        &self,
        cache: &Cache,
        task: &Task,
        language: Language,
        answer: &str,
        key: &str,
    ) -> bool {
        self.0.contains(key)
            || (task.category == Category::Refactoring
                && call_tests_key(cache, task, language, answer).is_ok_and(|k| self.0.contains(&k)))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// [`validate_task`], with the references in `recorded` evaluated once.
pub fn validate_task_with(
    exec: &dyn Executor,
    cache: &Cache,
    task: &Task,
    recorded: &Recorded,
) -> Result<(Task, u64), Rejection> {
    let trimmed;
    let task = if task.category == Category::Refactoring {
        trimmed = refactor_behaviour(exec, cache, task)?;
        &trimmed
    } else {
        task
    };
    suite_minimum(task)?;
    let mut calibrated = task.clone();
    calibrated.calibration.reference_test_cpu_us = BTreeMap::new();
    let mut cpu_ms = 0;
    for (language, variant) in &task.variants {
        let answer = &variant.reference_solution;
        let key = eval_key(cache, task, *language, answer)
            .map_err(|e| reject(task, format!("{language}: {e}")))?;
        let n = if recorded.covers(cache, task, *language, answer, &key) {
            1
        } else {
            RUNS
        };
        let runs = evaluate_keyed(exec, cache, task, *language, answer, &key, n)
            .map_err(|e| reject(task, format!("{language}: {e}")))?;
        for (run, verdict) in runs.iter().enumerate() {
            cpu_ms += verdict.cpu_ms;
            if !verdict.passed() {
                return Err(reject(
                    task,
                    format!(
                        "{language} reference fails on run {}: {}",
                        run + 1,
                        summarize(verdict)
                    ),
                ));
            }
        }
        let first = &runs[0];
        for other in &runs[1..] {
            for (a, b) in first.tests.iter().zip(&other.tests) {
                // Sets are encoded in the runtime's iteration order, which string hashing
                // randomises per process (Mbpp/945): compare values, not encodings, and
                // collections as sets where the test's comparator does (Mbpp/2 returns
                // `tuple(set(a) & set(b))`, whose order is just as random).
                let as_set = task
                    .tests
                    .get(a.index)
                    .is_some_and(|t| task.comparator_for(t).as_set);
                let same_actual = match (&a.actual, &b.actual) {
                    (Some(x), Some(y)) => crate::import::build::equivalent(x, y, as_set),
                    (x, y) => x == y,
                };
                if !same_actual || a.reason != b.reason {
                    return Err(reject(
                        task,
                        format!(
                            "{language} reference is not deterministic on test {}",
                            a.index
                        ),
                    ));
                }
            }
        }
        let applicable = task.tests_for(*language).count();
        calibrate(&mut calibrated, *language, applicable, &runs);
        if task.category == Category::UnitTestWriting {
            // The reference suite passed: it passes on the implementation and catches every
            // faulty variant. A suite that asserts nothing must not (else the task's faulty
            // variants are not faulty, or the grader is blind).
            let trivial = passrate_grade::unittest::trivial_suite(*language);
            let key = eval_key(cache, task, *language, trivial)
                .map_err(|e| reject(task, format!("{language}: {e}")))?;
            let fails = cache
                .get_or_compute("trivial-suite", &key, || {
                    with_retries(|| exec.trivial_suite_fails(task, *language))
                })
                .map_err(|e| reject(task, format!("{language}: {e}")))?;
            if !fails {
                return Err(reject(
                    task,
                    format!("{language}: a suite that asserts nothing passes"),
                ));
            }
        }
        if task.category == Category::BugFixing {
            // Known-bad code is judged as a model's answer will be on the accepted task: with
            // the per-test budgets just measured on the reference. A faulty variant that loops
            // then stops at its first test's budget, not at the execution's overall cap.
            for (k, faulty) in variant.faulty_variants.iter().enumerate() {
                let verdict = evaluate_cached(exec, cache, &calibrated, *language, faulty, 1)
                    .map_err(|e| reject(task, format!("{language}: {e}")))?
                    .remove(0);
                cpu_ms += verdict.cpu_ms;
                if verdict.passed() {
                    return Err(reject(
                        task,
                        format!("{language} faulty variant {k} passes every test"),
                    ));
                }
            }
        }
        if task.category == Category::DocumentationGeneration {
            cpu_ms += doc_known_bad(exec, cache, &calibrated, *language, variant)?;
        }
    }
    Ok((calibrated, cpu_ms))
}

/// Sets `task`'s per-test calibration for `language` to the largest CPU each of its
/// `applicable` tests took over the reference's `runs` (left unset when none was measured).
fn calibrate(task: &mut Task, language: Language, applicable: usize, runs: &[Verdict]) {
    let per_test: Vec<u64> = (0..applicable)
        .map(|i| {
            runs.iter()
                .filter_map(|r| r.tests.get(i).and_then(|t| t.cpu_us))
                .max()
                .unwrap_or(0)
        })
        .collect();
    if per_test.iter().any(|&us| us > 0) {
        task.calibration
            .reference_test_cpu_us
            .insert(language, per_test);
    }
}

fn rule_names(v: &Verdict) -> Vec<&str> {
    v.grader
        .iter()
        .flat_map(|g| g.failed_rules.iter().map(|r| r.rule.as_str()))
        .collect()
}

/// Documentation: known-bad answers must fail. The undocumented given code, and the
/// reference with one example's claimed result changed, which must fail by
/// `doc.example_wrong` (the examples really are run and compared).
fn doc_known_bad(
    exec: &dyn Executor,
    cache: &Cache,
    task: &Task,
    language: Language,
    variant: &Variant,
) -> Result<u64, Rejection> {
    let mut cpu_ms = 0;
    let run = |code: &str| {
        evaluate_cached(exec, cache, task, language, code, 1)
            .map(|mut v| v.remove(0))
            .map_err(|e| reject(task, format!("{language}: {e}")))
    };
    if let Some(given) = &variant.given_code {
        let v = run(given)?;
        cpu_ms += v.cpu_ms;
        if v.passed() {
            return Err(reject(
                task,
                format!("{language} undocumented given code passes"),
            ));
        }
    }
    let bad = passrate_grade::doc::with_wrong_example(
        language,
        &variant.reference_solution,
        &variant.entry_point,
    )
    .ok_or_else(|| {
        reject(
            task,
            format!("{language} reference has no example to alter"),
        )
    })?;
    let v = run(&bad)?;
    cpu_ms += v.cpu_ms;
    if v.passed() || !rule_names(&v).contains(&"doc.example_wrong") {
        return Err(reject(
            task,
            format!(
                "{language} reference with a wrong example is not caught: {}",
                summarize(&v)
            ),
        ));
    }
    Ok(cpu_ms)
}

/// Refactoring: the behaviour to keep is where the given code and the reference agree with
/// the tests. Both are run on every test; a public test either fails rejects the task, a
/// hidden test either fails is dropped (the given implementations predate the hidden
/// inputs). The given code must break a structural target, or there is nothing to refactor.
fn refactor_behaviour(exec: &dyn Executor, cache: &Cache, task: &Task) -> Result<Task, Rejection> {
    let mut keep = vec![true; task.tests.len()];
    for (language, variant) in &task.variants {
        let given = variant
            .given_code
            .as_deref()
            .ok_or_else(|| reject(task, format!("{language} has no given code")))?;
        let reference =
            evaluate_cached(exec, cache, task, *language, &variant.reference_solution, 1)
                .map_err(|e| reject(task, format!("{language}: {e}")))?
                .remove(0);
        // The given code is judged as a model's answer will be, with the per-test budgets of
        // the reference: a test it cannot finish within them is one no faithful refactoring
        // could be expected to pass either (dropped when hidden), and a loop in it stops at
        // that test's budget rather than the execution's whole limit.
        let mut calibrated = task.clone();
        let applicable = task.tests_for(*language).count();
        calibrate(
            &mut calibrated,
            *language,
            applicable,
            std::slice::from_ref(&reference),
        );
        let given_verdict = evaluate_cached(exec, cache, &calibrated, *language, given, 1)
            .map_err(|e| reject(task, format!("{language}: {e}")))?
            .remove(0);
        for (who, v) in [("given code", given_verdict), ("reference", reference)] {
            if who == "given code" && rule_names(&v).iter().all(|r| !r.starts_with("refactor.")) {
                return Err(reject(
                    task,
                    format!(
                        "{language} given code breaks no structural target: {}",
                        summarize(&v)
                    ),
                ));
            }
            if v.tests.is_empty() {
                return Err(reject(
                    task,
                    format!("{language} {who} runs no test: {}", summarize(&v)),
                ));
            }
            for t in v.tests.iter().filter(|t| t.reason != Reason::Pass) {
                if t.visibility == passrate_schema::Visibility::Public {
                    return Err(reject(
                        task,
                        format!(
                            "{language} {who} fails public test {}: {}",
                            t.index,
                            summarize(&v)
                        ),
                    ));
                }
                if let Some(k) = keep.get_mut(t.index) {
                    *k = false;
                }
            }
        }
    }
    let mut out = task.clone();
    out.tests = task
        .tests
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(t, _)| t.clone())
        .collect();
    Ok(out)
}

/// Called after each task: (task, its rejection if any, done, total).
pub type ValidateProgress<'a> = dyn Fn(&Task, Option<&Rejection>, usize, usize) + Sync + 'a;

/// Validates tasks on `threads` workers; accepted tasks keep the input order.
pub fn validate(
    exec: &dyn Executor,
    cache: &Cache,
    tasks: Vec<Task>,
    threads: usize,
    progress: &ValidateProgress<'_>,
) -> ValidationReport {
    validate_with(exec, cache, tasks, threads, &Recorded::default(), progress)
}

/// [`validate`], with the references in `recorded` evaluated once (see [`Recorded`]).
pub fn validate_with(
    exec: &dyn Executor,
    cache: &Cache,
    tasks: Vec<Task>,
    threads: usize,
    recorded: &Recorded,
    progress: &ValidateProgress<'_>,
) -> ValidationReport {
    let results = crate::parallel::map_in_order(
        &tasks,
        threads,
        |task| validate_task_with(exec, cache, task, recorded),
        |task, result, done| progress(task, result.as_ref().err(), done, tasks.len()),
    );
    let mut report = ValidationReport::default();
    for result in results {
        match result {
            Ok((task, cpu)) => {
                report.cpu_ms += cpu;
                report.accepted.push(task);
            }
            Err(r) => report.rejected.push(r),
        }
    }
    report
}
