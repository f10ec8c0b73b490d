//! Test-suite strength, measured by mutation: the task's reference is mutated on its syntax
//! tree ([`passrate_extract::mutants`]) and each mutant is judged exactly as a model's answer
//! is ([`Executor::evaluate`]); the suite kills a mutant when the verdict is not a pass. The
//! task's known faulty variants (HumanEvalPack's and QuixBugs' buggy programs) are judged the
//! same way and reported beside.
//!
//! A mutant that does not even load (a compile or syntax error, a missing entry point: Java
//! rejects `true + 1`) is stillborn and left out: it says nothing of the tests. A surviving
//! mutant is either a fault the tests miss or equivalent to the reference; the score counts it
//! as missed, so it is a lower bound, and the survivors are named for a reader to tell which.
//!
//! Intake needs more than a verdict per mutant: which tests kill which mutant, to keep the
//! smallest scored suite that kills as many ([`call_kills`], one execution per mutant with
//! every call test, what completed kept when a call loops or crashes).

use std::collections::BTreeSet;

use passrate_schema::{Category, ErrorInfo, Expected, Language, Reason, Task, TestForm, Value};
use serde::Serialize;

use crate::exec::Executor;
use crate::validate::with_retries;

/// Categories whose reference is the program the tests judge (a translation shares its base
/// task's tests and reference; documentation, refactoring and unit-test writing are judged by
/// more than the call tests).
pub const MEASURED: [Category; 3] = [
    Category::FunctionCompletion,
    Category::AlgorithmImplementation,
    Category::BugFixing,
];

/// The share of mutants a suite should kill: intake aims inputs at the survivors of a suite
/// under it ([`crate::import::select`]), and `pool stats` counts the tasks still under it.
pub const MUTATION_TARGET: f64 = 0.8;

/// One task's suite in one language, against the reference's mutants.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Strength {
    pub task: String,
    pub category: Category,
    pub language: Language,
    pub tests: usize,
    /// Mutants judged (stillborn ones included).
    pub mutants: usize,
    pub stillborn: usize,
    pub killed: usize,
    /// Survivors, each as the mutant's description.
    pub survivors: Vec<String>,
    pub faulty: usize,
    pub faulty_killed: usize,
}

impl Strength {
    /// Killed share of the mutants that load; `None` without any.
    pub fn score(&self) -> Option<f64> {
        let live = self.mutants - self.stillborn;
        (live > 0).then(|| self.killed as f64 / live as f64)
    }
}

/// Verdicts that mean the program never ran its tests.
fn stillborn(reason: Reason) -> bool {
    reason == Reason::CompileError || reason.is_noncompliant()
}

/// Measures `task`'s suite in `language` against up to `limit` mutants of its reference.
pub fn measure(
    exec: &dyn Executor,
    task: &Task,
    language: Language,
    limit: usize,
) -> Result<Strength, String> {
    let variant = task
        .variants
        .get(&language)
        .ok_or_else(|| format!("{} has no {language} variant", task.id))?;
    let mutants = passrate_extract::mutants::mutants(language, &variant.reference_solution, limit);
    let mut s = Strength {
        task: task.id.clone(),
        category: task.category,
        language,
        tests: task.tests_for(language).count(),
        mutants: mutants.len(),
        stillborn: 0,
        killed: 0,
        survivors: Vec::new(),
        faulty: variant.faulty_variants.len(),
        faulty_killed: 0,
    };
    for mutant in &mutants {
        let verdict = with_retries(|| exec.evaluate(task, language, &mutant.code))?;
        if stillborn(verdict.reason) {
            s.stillborn += 1;
        } else if verdict.passed() {
            s.survivors.push(mutant.description.clone());
        } else {
            s.killed += 1;
        }
    }
    for faulty in &variant.faulty_variants {
        let verdict = with_retries(|| exec.evaluate(task, language, faulty))?;
        s.faulty_killed += usize::from(!verdict.passed());
    }
    Ok(s)
}

/// Measures every (task, language) of `units` on `threads` threads, in order; the first
/// failure to execute ends it.
pub fn measure_all(
    exec: &dyn Executor,
    units: &[(&Task, Language)],
    limit: usize,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<Strength>, String> {
    crate::parallel::map_in_order(
        units,
        threads,
        |(task, language)| measure(exec, task, *language, limit),
        |_, _, done| progress(done, units.len()),
    )
    .into_iter()
    .collect()
}

/// CPU one call of a mutant may take in [`call_kills`]: a mutant that loops is stopped
/// early (the reference answers every call within the intake allowance, and a finite slowdown
/// a judge would time out is rare among one-place changes).
pub const MUTANT_CALL_CPU_MS: u64 = 250;

/// Whether [`call_kills`] can measure `task` in `language`: every test that applies is a call.
pub fn calls_only(task: &Task, language: Language) -> bool {
    task.tests_for(language)
        .all(|(_, t)| matches!(t.form, TestForm::Call { .. }))
}

/// For each program (a mutant of `task`'s reference in `language`, or a known faulty
/// variant): `None` if it does not load (a compile or load error), else the indices into
/// `task.tests` of the tests it fails. One execution per program runs every call test that
/// applies to `language`; when a call stops the execution (past [`MUTANT_CALL_CPU_MS`], a
/// crash), that test fails and the calls after it are not known to. Only for
/// [`calls_only`] tasks. Infrastructure failures (after retries) are the error.
pub fn call_kills(
    exec: &dyn Executor,
    task: &Task,
    language: Language,
    programs: &[&str],
) -> Result<Vec<Option<BTreeSet<usize>>>, String> {
    let variant = task
        .variants
        .get(&language)
        .ok_or_else(|| format!("{} has no {language} variant", task.id))?;
    let tests: Vec<(usize, &Vec<Value>, &Expected)> = task
        .tests_for(language)
        .filter_map(|(i, t)| match &t.form {
            TestForm::Call { args, expected } => Some((i, args, expected)),
            TestForm::Sequence { .. } => None,
        })
        .collect();
    let calls: Vec<Vec<Value>> = tests.iter().map(|(_, args, _)| (*args).clone()).collect();
    let declared = passrate_runner::declared::variant_return(language, variant);
    let mut out = Vec::with_capacity(programs.len());
    for code in programs {
        let partial = match with_retries(|| {
            exec.run_calls_until(
                language,
                code,
                &variant.entry_point,
                variant.class_name.as_deref(),
                &calls,
                MUTANT_CALL_CPU_MS,
            )
        }) {
            Ok(p) => p,
            Err(e) if e.starts_with(crate::validate::INFRASTRUCTURE) => return Err(e),
            Err(_) => {
                out.push(None);
                continue;
            }
        };
        let mut failed = BTreeSet::new();
        for ((i, _, expected), outcome) in tests.iter().zip(&partial.outcomes) {
            let cmp = passrate_runner::compare::for_language(
                task.comparator_for(&task.tests[*i]),
                language,
            );
            if !satisfies(expected, outcome, &declared, &cmp) {
                failed.insert(*i);
            }
        }
        if partial.stopped.is_some()
            && let Some((i, _, _)) = tests.get(partial.outcomes.len())
        {
            failed.insert(*i);
        }
        out.push(Some(failed));
    }
    Ok(out)
}

/// Whether one call's outcome is what the test expects, as the judge compares it.
fn satisfies(
    expected: &Expected,
    outcome: &Result<Value, ErrorInfo>,
    declared: &passrate_runner::declared::Declared,
    cmp: &passrate_schema::Comparator,
) -> bool {
    match (expected, outcome) {
        (Expected::Returns(want), Ok(got)) => passrate_runner::compare::matches(
            &passrate_runner::compare::conform(want, declared),
            got,
            cmp,
        ),
        (Expected::ReturnsDigest(want), Ok(got)) => {
            passrate_runner::digest::digest(got).blake3 == want.blake3
        }
        (Expected::Raises(kind), Err(error)) => error.kind == *kind,
        _ => false,
    }
}
