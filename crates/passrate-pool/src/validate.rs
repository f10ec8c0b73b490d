//! Intake validation: every reference answer goes through `Executor::evaluate`, the path a
//! model's answer takes, twice. A task is rejected when a reference does not pass, when the
//! two runs disagree on any test's result, or when a known-faulty variant passes (its bug
//! would go unnoticed). The per-test CPU time of the reference (the larger of the two
//! runs) becomes `calibration.reference_test_cpu_us`, the base of per-test budgets.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use passrate_schema::{Category, Reason, Task, Verdict};

use crate::exec::Executor;
use crate::import::build::Rejection;

/// Number of times each reference is evaluated.
pub const RUNS: usize = 2;

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
pub fn validate_task(exec: &dyn Executor, task: &Task) -> Result<(Task, u64), Rejection> {
    let mut calibrated = task.clone();
    calibrated.calibration.reference_test_cpu_us = BTreeMap::new();
    let mut cpu_ms = 0;
    for (language, variant) in &task.variants {
        let answer = match (task.category, &variant.given_code) {
            (Category::UnitTestWriting, Some(code)) => code,
            _ => &variant.reference_solution,
        };
        let mut runs: Vec<Verdict> = Vec::with_capacity(RUNS);
        for run in 0..RUNS {
            let verdict = exec
                .evaluate(task, *language, answer)
                .map_err(|e| reject(task, format!("{language}: {e}")))?;
            cpu_ms += verdict.cpu_ms;
            if !verdict.passed() {
                return Err(reject(
                    task,
                    format!(
                        "{language} reference fails on run {}: {}",
                        run + 1,
                        summarize(&verdict)
                    ),
                ));
            }
            runs.push(verdict);
        }
        let first = &runs[0];
        for other in &runs[1..] {
            for (a, b) in first.tests.iter().zip(&other.tests) {
                if a.actual != b.actual || a.reason != b.reason {
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
        let per_test: Vec<u64> = (0..applicable)
            .map(|i| {
                runs.iter()
                    .filter_map(|r| r.tests.get(i).and_then(|t| t.cpu_us))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        if per_test.iter().any(|&us| us > 0) {
            calibrated
                .calibration
                .reference_test_cpu_us
                .insert(*language, per_test);
        }
        if matches!(
            task.category,
            Category::BugFixing | Category::UnitTestWriting
        ) {
            for (k, faulty) in variant.faulty_variants.iter().enumerate() {
                let verdict = exec
                    .evaluate(task, *language, faulty)
                    .map_err(|e| reject(task, format!("{language}: {e}")))?;
                cpu_ms += verdict.cpu_ms;
                if verdict.passed() {
                    return Err(reject(
                        task,
                        format!("{language} faulty variant {k} passes every test"),
                    ));
                }
            }
        }
    }
    Ok((calibrated, cpu_ms))
}

/// Validates tasks on `threads` workers; accepted tasks keep the input order.
pub fn validate(
    exec: &dyn Executor,
    tasks: Vec<Task>,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> ValidationReport {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    type Slot = Option<Result<(Task, u64), Rejection>>;
    let results: Mutex<Vec<Slot>> = Mutex::new((0..tasks.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(task) = tasks.get(i) else { break };
                    let result = validate_task(exec, task);
                    results.lock().expect("no panics while locked")[i] = Some(result);
                    progress(done.fetch_add(1, Ordering::SeqCst) + 1, tasks.len());
                }
            });
        }
    });
    let mut report = ValidationReport::default();
    for result in results.into_inner().expect("no panics while locked") {
        match result.expect("every task validated") {
            Ok((task, cpu)) => {
                report.cpu_ms += cpu;
                report.accepted.push(task);
            }
            Err(r) => report.rejected.push(r),
        }
    }
    report
}
