//! Hidden tests for derived tasks whose reference is not their base task's: a bug-fixing
//! task's reference is HumanEvalPack's canonical solution, not the corrected one EvalPlus's
//! hidden inputs were checked against, so it takes only the base's public tests at
//! derivation ([`super::derived`]). Here each of the base's hidden call tests is run on every
//! language's reference of the derived task, and kept (hidden) where all of them return the
//! base's expected value: the inputs on which the canonical solution is right. A canonical
//! solution that is wrong on some HumanEval+ inputs (HumanEval's own fails 20 of 164 tasks
//! there) thus keeps every hidden test it can be held to.

use std::sync::atomic::{AtomicUsize, Ordering};

use passrate_schema::{Category, Expected, Task, TestCase, TestForm, Value, Visibility};

use super::build::{contains_opaque, equivalent, run_chunked};
use crate::exec::Executor;
use crate::validate::with_retries;

/// Categories whose derived tasks take only the base's public tests and are given the hidden
/// ones their references agree on. (Unit-test writing is judged by the answer's own tests
/// against the reference and faulty variants, never by the task's call tests.)
pub const SCREENED: [Category; 1] = [Category::BugFixing];

/// Adds to each task of a [`SCREENED`] category the hidden tests of its base
/// (`base_of(task)`) that every reference of the task passes. Returns how many were added, or
/// the first infrastructure failure (which ends the import: it is not the task's property).
/// `progress(task, done, total)` follows the screened tasks.
pub fn add_agreeing_hidden<'b>(
    exec: &dyn Executor,
    tasks: &mut [Task],
    base_of: &(dyn Fn(&Task) -> Option<&'b Task> + Sync),
    threads: usize,
    progress: &(dyn Fn(&Task, usize, usize) + Sync),
) -> Result<usize, String> {
    let total = tasks
        .iter()
        .filter(|t| SCREENED.contains(&t.category) && base_of(t).is_some())
        .count();
    let screened_so_far = AtomicUsize::new(0);
    let screened: Vec<Option<Result<Vec<TestCase>, String>>> = crate::parallel::map_in_order(
        tasks,
        threads,
        |task| {
            let base = base_of(task).filter(|_| SCREENED.contains(&task.category))?;
            Some(agreeing_hidden(exec, task, base))
        },
        |task, result, _| {
            if result.is_some() {
                progress(
                    task,
                    screened_so_far.fetch_add(1, Ordering::SeqCst) + 1,
                    total,
                );
            }
        },
    );
    let mut added = 0;
    for (task, result) in tasks.iter_mut().zip(screened) {
        if let Some(tests) = result.transpose()? {
            added += tests.len();
            task.tests.extend(tests);
        }
    }
    Ok(added)
}

/// CPU each base hidden test may take on a derived task's reference: the base's own reference
/// answers them within an evaluation's budgets; one this reference is much slower on (HumanEval's
/// canonical solutions are not EvalPlus's) is not kept, and should cost little.
pub const SCREEN_CALL_CPU_MS: u64 = 500;

/// Hidden tests tried per task, spread over the base's: enough for a suite that catches what
/// the public ones miss, few enough that a weekly run of bug-fixing tasks stays cheap.
pub const MAX_SCREENED: usize = 20;

/// The base's hidden call tests (with a stored expected value, at most [`MAX_SCREENED`]) that
/// every language of `task` runs with the base's expected value.
fn agreeing_hidden(exec: &dyn Executor, task: &Task, base: &Task) -> Result<Vec<TestCase>, String> {
    let all: Vec<&TestCase> = base
        .tests
        .iter()
        .filter(|t| t.visibility == Visibility::Hidden)
        .filter(|t| {
            matches!(&t.form, TestForm::Call { expected: Expected::Returns(v), .. } if !contains_opaque(v))
        })
        .collect();
    let candidates = super::spread(&all, MAX_SCREENED);
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let mut keep = vec![true; candidates.len()];
    for (language, variant) in &task.variants {
        // Which candidates apply to this language (a test may hold per-language copies).
        let applies: Vec<usize> = (0..candidates.len())
            .filter(|&i| {
                keep[i]
                    && (candidates[i].languages.is_empty()
                        || candidates[i].languages.contains(language))
            })
            .collect();
        let calls: Vec<Vec<Value>> = applies
            .iter()
            .map(|&i| match &candidates[i].form {
                TestForm::Call { args, .. } => args.clone(),
                TestForm::Sequence { .. } => unreachable!("only call tests are candidates"),
            })
            .collect();
        let run = |language, calls: &[Vec<Value>]| {
            with_retries(|| {
                exec.run_calls_within(
                    language,
                    &variant.reference_solution,
                    &variant.entry_point,
                    variant.class_name.as_deref(),
                    calls,
                    SCREEN_CALL_CPU_MS,
                )
            })
        };
        let out = run_chunked(&run, *language, &calls)?;
        let declared = passrate_runner::declared::variant_return(*language, variant);
        for (&i, outcome) in applies.iter().zip(out) {
            let TestForm::Call {
                expected: Expected::Returns(expected),
                ..
            } = &candidates[i].form
            else {
                unreachable!("only returned values are candidates")
            };
            let expected = passrate_runner::compare::conform(expected, &declared);
            keep[i] =
                matches!(outcome, Some(Ok(v)) if equivalent(&expected, &v, task.comparator.as_set));
        }
    }
    let languages: Vec<_> = task.variants.keys().copied().collect();
    Ok(candidates
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .filter_map(|(t, _)| {
            let mut t = t.clone();
            if !t.languages.is_empty() {
                t.languages.retain(|l| languages.contains(l));
                if t.languages.is_empty() {
                    return None;
                }
            }
            if languages.len() == 1 {
                t.languages.clear();
            }
            Some(t)
        })
        .collect())
}
