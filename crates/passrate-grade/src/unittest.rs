//! The unit-test writing grader: an answer's tests must all pass against the task's
//! implementation (the reference, shown to the model as `given_code`) and each faulty variant
//! the task lists must make at least one of them fail.
//!
//! One sandboxed suite execution per implementation ([`Runner::run_suite`]), run in parallel
//! across the sandbox's slots. Rules, each `tests.<rule>` in `failed_rules`:
//! `none_found` (no test functions), `error` (the tests do not compile or load against the
//! reference), `fails_on_reference` (a test fails on the reference; named with its error),
//! `misses_faulty` (a faulty variant survived every test), `fails_on_equivalent_rewrite` (a
//! test that passes on the reference fails on one of its equivalent rewrites, [`crate::rewrite`]:
//! the suite tests the reference's text, not its behaviour). A limit reached on the reference
//! (time, memory, output) is the verdict's reason, as for any other answer.

use std::collections::BTreeMap;

use passrate_runner::{RunnerError, SuiteOutcome, SuiteTarget};
use passrate_schema::{GraderReport, Language, Reason, RuleFailure, Task, Variant, Verdict};

use crate::rewrite::{self, Rewrite};
use crate::{Execute, GradeError};

/// The grader's name in reports.
pub const GRADER: &str = "unit_tests";

/// A well-formed suite that asserts nothing: it must fail every unit-test task (it catches no
/// faulty variant). Intake checks each task with it, and the `known-buggy` model answers it.
pub fn trivial_suite(language: Language) -> &'static str {
    match language {
        Language::Python => "def test_nothing():\n    assert True\n",
        Language::Javascript => {
            "const test = require('node:test');\nconst assert = require('node:assert');\n\ntest('nothing', () => {\n  assert.ok(true);\n});\n"
        }
        Language::Java => {
            "public class SolutionTest {\n    static void testNothing() {\n        assert true;\n    }\n}\n"
        }
    }
}

fn rule(name: &str, detail: String) -> RuleFailure {
    RuleFailure {
        rule: format!("tests.{name}"),
        detail,
    }
}

fn with_preamble(preamble: Option<&str>, code: &str) -> String {
    match preamble {
        Some(p) => format!("{p}\n{code}"),
        None => code.to_owned(),
    }
}

/// Whether the tests caught a faulty implementation: a test that passed on the reference
/// fails on it (or it does not even load with the tests).
fn caught(reference: &SuiteOutcome, faulty: &SuiteOutcome) -> bool {
    if faulty.load_error.is_some() || faulty.suite_error.is_some() {
        return true;
    }
    if reference.all_passed() {
        return !faulty.all_passed();
    }
    reference
        .cases
        .iter()
        .filter(|c| c.passed())
        .any(|r| !faulty.cases.iter().any(|f| f.name == r.name && f.passed()))
}

fn describe_error(e: Option<&passrate_schema::ErrorInfo>) -> String {
    match e {
        Some(e) if e.message.is_empty() => e.kind.clone(),
        Some(e) => format!("{}: {}", e.kind, e.message),
        None => "failed".to_owned(),
    }
}

fn task_error(task: &Task, language: Language, why: &str) -> GradeError {
    GradeError::Task {
        task: task.id.clone(),
        language,
        why: why.to_owned(),
    }
}

/// What a unit-test task's suites run against: the implementation under test first, then
/// each faulty variant, then each equivalent rewrite of the implementation, preamble
/// included.
struct Implementations<'t> {
    variant: &'t Variant,
    implementations: Vec<String>,
    rewrites: Vec<Rewrite>,
    target: SuiteTarget<'t>,
}

fn implementations(task: &Task, language: Language) -> Result<Implementations<'_>, GradeError> {
    let variant = task
        .variants
        .get(&language)
        .ok_or_else(|| RunnerError::NoVariant {
            task: task.id.clone(),
            language,
        })?;
    let given = variant
        .given_code
        .as_deref()
        .ok_or_else(|| task_error(task, language, "no implementation under test (given_code)"))?;
    if variant.faulty_variants.is_empty() {
        return Err(task_error(task, language, "no faulty variants to catch"));
    }
    let preamble = variant.preamble.as_deref();
    let rewrites = rewrite::equivalent_rewrites(language, given, preamble);
    let implementations = std::iter::once(given)
        .chain(variant.faulty_variants.iter().map(String::as_str))
        .chain(rewrites.iter().map(|r| r.code.as_str()))
        .map(|code| with_preamble(preamble, code))
        .collect();
    let target = SuiteTarget::new(
        &variant.entry_point,
        variant.class_name.as_deref(),
        &task.limits,
    );
    Ok(Implementations {
        variant,
        implementations,
        rewrites,
        target,
    })
}

/// Intake's check that this grader is not blind to a task: [`trivial_suite`] must fail it,
/// so some faulty variant must load and survive a suite that asserts nothing. Runs that
/// suite on the faulty variants one at a time and stops at the first survivor (`true`);
/// `false` when every faulty variant fails even that suite, which any answer would then
/// "catch". The implementation under test is not run: the caller has just seen the task's
/// reference suite pass on it, and against a reference that passes every test [`caught`]
/// counts a faulty variant as survived exactly when all its tests pass too.
pub fn trivial_suite_survives(
    runner: &dyn Execute,
    task: &Task,
    language: Language,
) -> Result<bool, GradeError> {
    let Implementations {
        variant,
        implementations,
        target,
        ..
    } = implementations(task, language)?;
    let tests = trivial_suite(language);
    for faulty in &implementations[1..=variant.faulty_variants.len()] {
        let outcome = runner.run_suite(language, faulty, tests, &target)?;
        if outcome.all_passed() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Grades `tests` (an extracted, format-compliant answer) for a unit-test writing task.
pub fn grade(
    runner: &dyn Execute,
    task: &Task,
    language: Language,
    tests: &str,
) -> Result<Verdict, GradeError> {
    let Implementations {
        variant,
        implementations,
        rewrites,
        target,
    } = implementations(task, language)?;
    let task_error = |why: &str| task_error(task, language, why);
    // Reference and faulty runs are independent executions: run them side by side.
    let outcomes: Vec<Result<SuiteOutcome, RunnerError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = implementations
            .iter()
            .map(|code| scope.spawn(|| runner.run_suite(language, code, tests, &target)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("suite threads do not panic"))
            .collect()
    });
    let mut runs = Vec::with_capacity(outcomes.len());
    for o in outcomes {
        runs.push(o?);
    }
    let reference = &runs[0];
    let faulty_runs = &runs[1..=variant.faulty_variants.len()];
    let rewrite_runs = &runs[1 + variant.faulty_variants.len()..];
    // A rewrite that does not load is this grader's fault, never the answer's.
    for (r, run) in rewrites.iter().zip(rewrite_runs) {
        if let Some(e) = &run.load_error {
            return Err(task_error(&format!(
                "the equivalent rewrite `{}` does not load: {}",
                r.name,
                describe_error(Some(e))
            )));
        }
    }
    if let Some(e) = &reference.load_error {
        return Err(task_error(&format!(
            "the implementation under test does not load: {}",
            describe_error(Some(e))
        )));
    }

    let faulty_total = variant.faulty_variants.len() as u32;
    let mut failed = Vec::new();
    let mut reason = Reason::Pass;
    let mut faulty_caught = 0u32;
    if let Some(e) = &reference.suite_error {
        failed.push(rule(
            "error",
            format!(
                "the tests do not load against the reference: {}",
                describe_error(Some(e))
            ),
        ));
    } else if reference.discovered && reference.cases.is_empty() && reference.stop.is_none() {
        let form = match language {
            Language::Python => "`test_*` functions",
            Language::Javascript => "`test(...)`/`it(...)` tests",
            Language::Java => "static `test*` or `@Test` methods",
        };
        failed.push(rule("none_found", format!("the answer has no {form}")));
    } else {
        if let Some(stop) = &reference.stop
            && matches!(
                stop.reason,
                Reason::Timeout | Reason::MemoryLimit | Reason::OutputLimit
            )
        {
            reason = stop.reason;
        }
        if let Some(first) = reference.first_failure() {
            if matches!(
                first.reason,
                Reason::Timeout | Reason::MemoryLimit | Reason::OutputLimit
            ) {
                reason = first.reason;
            }
            let failing = reference.cases.iter().filter(|c| !c.passed()).count();
            failed.push(rule(
                "fails_on_reference",
                format!(
                    "test `{}` fails on the reference: {}{}",
                    first.name,
                    describe_error(first.error.as_ref()),
                    if failing > 1 {
                        format!(" ({} of {} tests fail)", failing, reference.cases.len())
                    } else {
                        String::new()
                    }
                ),
            ));
        } else if let Some(stop) = &reference.stop {
            failed.push(rule(
                "fails_on_reference",
                format!("the tests did not finish on the reference: {}", stop.detail),
            ));
        }
        let mut survivors = Vec::new();
        for (k, faulty) in faulty_runs.iter().enumerate() {
            if caught(reference, faulty) {
                faulty_caught += 1;
            } else {
                survivors.push(k);
            }
        }
        if let Some(&k) = survivors.first() {
            let all = if survivors.len() > 1 {
                format!(
                    " ({} of {faulty_total} faulty variants survived)",
                    survivors.len()
                )
            } else {
                String::new()
            };
            failed.push(rule(
                "misses_faulty",
                format!(
                    "faulty variant {k} survived: every test that passes on the reference passes on it{all}"
                ),
            ));
        }
    }
    // Only a suite that passes on the reference says anything about a rewrite.
    let mut rewrites_passed = 0u64;
    let mut rewrite_failures = Vec::new();
    for (r, run) in rewrites.iter().zip(rewrite_runs) {
        if run.all_passed() {
            rewrites_passed += 1;
        } else if reference.all_passed() {
            rewrite_failures.push((r, run));
        }
    }
    if let Some((r, run)) = rewrite_failures.first() {
        let what = match (run.suite_error.as_ref(), run.first_failure(), &run.stop) {
            (Some(e), _, _) => format!(
                "the tests do not load against the equivalent rewrite `{}` ({}): {}",
                r.name,
                r.what,
                describe_error(Some(e))
            ),
            (None, Some(c), _) => format!(
                "test `{}` fails on the equivalent rewrite `{}` of the reference ({}): {}",
                c.name,
                r.name,
                r.what,
                describe_error(c.error.as_ref())
            ),
            (None, None, stop) => format!(
                "the tests did not finish on the equivalent rewrite `{}` of the reference ({}){}",
                r.name,
                r.what,
                stop.as_ref()
                    .map(|s| format!(": {}", s.detail))
                    .unwrap_or_default()
            ),
        };
        let others = if rewrite_failures.len() > 1 {
            let names: Vec<&str> = rewrite_failures[1..].iter().map(|(r, _)| r.name).collect();
            format!("; it fails on `{}` too", names.join("`, `"))
        } else {
            String::new()
        };
        failed.push(rule(
            "fails_on_equivalent_rewrite",
            format!("{what}{others}: the tests depend on the reference's text, not only on its behaviour"),
        ));
    }
    if !failed.is_empty() && reason == Reason::Pass {
        reason = Reason::GraderRule;
    }
    let tests_passed = reference.cases.iter().filter(|c| c.passed()).count();
    let mut metrics = BTreeMap::new();
    metrics.insert("tests".to_owned(), reference.cases.len() as u64);
    metrics.insert("tests_passed_on_reference".to_owned(), tests_passed as u64);
    metrics.insert("rewrites".to_owned(), rewrites.len() as u64);
    metrics.insert("rewrites_passed".to_owned(), rewrites_passed);
    Ok(Verdict {
        task: task.id.clone(),
        language,
        reason,
        tests_passed,
        tests_total: reference.cases.len(),
        cpu_ms: runs.iter().map(|r| r.cpu_us).sum::<u64>() / 1000,
        cpu_us: Some(runs.iter().map(|r| r.cpu_us).sum::<u64>()),
        wall_ms: runs.iter().map(|r| r.wall_us).max().unwrap_or(0) / 1000,
        peak_memory_bytes: runs.iter().filter_map(|r| r.peak_memory_bytes).max(),
        tests: Vec::new(),
        detail: failed.first().map(|f| format!("{}: {}", f.rule, f.detail)),
        grader: Some(GraderReport {
            grader: GRADER.to_owned(),
            failed_rules: failed,
            faulty_caught: Some(faulty_caught),
            faulty_total: Some(faulty_total),
            metrics,
        }),
    })
}
