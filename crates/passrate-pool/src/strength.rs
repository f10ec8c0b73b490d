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

use passrate_schema::{Category, Language, Reason, Task};
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
