//! The scored suites chosen by mutation ([`passrate_pool::import::select`]), through the real
//! sandbox: given a bundled task's whole suite (its scored tests and its extra tests
//! together), the choice keeps at most the cap of inputs and kills every mutant the whole
//! suite kills; the score stored in the bundled pool is what a fresh measurement of its
//! scored suite gives; and a thin suite gets inputs aimed at its surviving mutants that every
//! language's reference passes.

use std::collections::BTreeSet;

use passrate_pool::Pool;
use passrate_pool::import::select::{MAX_SCORED, MUTANTS, select};
use passrate_pool::strength::call_kills;
use passrate_schema::{Language, Task, TestForm};

fn runner() -> passrate_runner::Runner {
    let sandbox = passrate_sandbox::Sandbox::new(passrate_sandbox::SandboxConfig::default())
        .expect("the sandbox starts (needs root)");
    passrate_runner::Runner::new(
        sandbox,
        passrate_pool::import::pipeline::intake_runner_options(),
    )
}

/// Distinct inputs among `task`'s tests.
fn inputs(task: &Task) -> usize {
    task.tests
        .iter()
        .map(|t| match &t.form {
            TestForm::Call { args, .. } => serde_json::to_string(args).expect("encodes"),
            TestForm::Sequence { .. } => unreachable!("measured tasks have call tests only"),
        })
        .collect::<BTreeSet<_>>()
        .len()
}

fn mutant_programs(task: &Task, language: Language) -> Vec<String> {
    passrate_extract::mutants::mutants(
        language,
        &task.variants[&language].reference_solution,
        MUTANTS,
    )
    .into_iter()
    .map(|m| m.code)
    .collect()
}

/// Bundled tasks with extra tests and a stored score, one from each dataset that has them.
fn measured_with_extras(pool: &Pool) -> Vec<&Task> {
    ["humaneval/", "mbpp/"]
        .iter()
        .flat_map(|prefix| {
            pool.tasks()
                .iter()
                .filter(move |t| t.id.starts_with(prefix))
                .filter(|t| t.calibration.mutation.is_some())
                .step_by(37)
                // Each look-up reads the dataset's extra file: only a few are looked at.
                .filter(|t| pool.extra_tests(&t.id).is_ok_and(|e| e.len() > 20))
                .take(2)
        })
        .collect()
}

#[test]
fn the_scored_suite_kills_every_mutant_the_whole_suite_kills() {
    let pool = Pool::bundled().expect("the bundled pool");
    let runner = runner();
    let tasks = measured_with_extras(&pool);
    assert_eq!(tasks.len(), 4, "two tasks from each of HumanEval and MBPP");
    for task in tasks {
        let language = task
            .calibration
            .mutation
            .as_ref()
            .expect("measured")
            .language;
        let mut whole = task.clone();
        whole
            .tests
            .extend(pool.extra_tests(&task.id).expect("extra tests read"));
        let programs = mutant_programs(task, language);
        let codes: Vec<&str> = programs.iter().map(String::as_str).collect();
        let whole_kills = call_kills(&runner, &whole, language, &codes).expect("executes");
        let selection = select(&runner, &whole, language, &[], None)
            .expect("executes")
            .expect("measured");
        let score = selection.score.clone().expect("mutants load");
        let mut chosen = whole.clone();
        chosen.tests.extend(selection.added.iter().cloned());
        let mut scored = selection.scored.iter();
        chosen
            .tests
            .retain(|_| *scored.next().expect("one flag per test"));
        assert!(
            inputs(&chosen) <= MAX_SCORED,
            "{}: {} inputs scored",
            task.id,
            inputs(&chosen)
        );
        let chosen_kills = call_kills(&runner, &chosen, language, &codes).expect("executes");
        let killed = |k: &Option<BTreeSet<usize>>| k.as_ref().is_some_and(|f| !f.is_empty());
        for (m, (whole, chosen)) in whole_kills.iter().zip(&chosen_kills).enumerate() {
            assert!(
                !killed(whole) || killed(chosen),
                "{}: mutant {m} is killed by the whole suite, not by the scored one",
                task.id
            );
        }
        assert_eq!(
            chosen_kills.iter().filter(|k| killed(k)).count(),
            score.killed as usize,
            "{}: the stored score is what the scored suite kills",
            task.id
        );
    }
}

#[test]
fn stored_scores_are_what_the_scored_suite_kills() {
    let pool = Pool::bundled().expect("the bundled pool");
    let runner = runner();
    for task in measured_with_extras(&pool) {
        let stored = task.calibration.mutation.as_ref().expect("measured");
        let programs = mutant_programs(task, stored.language);
        let codes: Vec<&str> = programs.iter().map(String::as_str).collect();
        let kills = call_kills(&runner, task, stored.language, &codes).expect("executes");
        let live = kills.iter().filter(|k| k.is_some()).count();
        let killed = kills
            .iter()
            .filter(|k| k.as_ref().is_some_and(|failed| !failed.is_empty()))
            .count();
        assert_eq!(
            (live, killed),
            (stored.mutants as usize, stored.killed as usize),
            "{}",
            task.id
        );
    }
}

/// `clamp(x)`: at most 10. Its dataset inputs (1 to 5) never reach the bound, so mutants of
/// the bound (`10` → `11`, `x > 10` → `x > 11`) survive them.
fn thin_clamp_task() -> Task {
    serde_json::from_value(serde_json::json!({
        "format_version": 1, "id": "test/clamp", "version": 1,
        "category": "function_completion", "tier": 1,
        "factors": {"conditions": 1, "solution_space": 1, "edge_cases": 0},
        "source": {"dataset": "test", "upstream_id": "clamp", "license": "MIT"},
        "variants": {
            "python": {
                "prompt": "", "entry_point": "clamp",
                "signature": {"params": [{"name": "x"}]},
                "reference_solution": "def clamp(x):\n    return 10 if x > 10 else x\n"
            },
            "javascript": {
                "prompt": "", "entry_point": "clamp",
                "signature": {"params": [{"name": "x"}]},
                "reference_solution": "function clamp(x) {\n  return x > 10 ? 10 : x;\n}\n"
            }
        },
        "tests": (1..=5).map(|n| serde_json::json!({
            "visibility": if n <= 3 { "public" } else { "hidden" },
            "form": "call",
            "args": [{"int": n.to_string()}],
            "expected": {"returns": {"int": n.to_string()}}
        })).collect::<Vec<_>>()
    }))
    .expect("a task")
}

#[test]
fn surviving_mutants_get_inputs_aimed_at_them_that_every_reference_agrees_on() {
    let runner = runner();
    let task = thin_clamp_task();
    let programs = mutant_programs(&task, Language::Python);
    let codes: Vec<&str> = programs.iter().map(String::as_str).collect();
    let before = call_kills(&runner, &task, Language::Python, &codes).expect("executes");
    let survived_before = before
        .iter()
        .filter(|k| k.as_ref().is_some_and(BTreeSet::is_empty))
        .count();
    assert!(
        survived_before >= 2,
        "the thin suite lets the bound's mutants live"
    );
    let selection = select(&runner, &task, Language::Python, &[], None)
        .expect("executes")
        .expect("measured");
    let score = selection.score.clone().expect("mutants load");
    assert!(!selection.added.is_empty(), "inputs aimed at the survivors");
    assert!(
        (score.mutants - score.killed) < survived_before as u32,
        "fewer survivors: {:?}",
        score.survivors
    );
    // The added tests hold for every language's reference, through the evaluation path.
    let mut grown = task.clone();
    grown.tests.extend(selection.added.iter().cloned());
    for (language, variant) in &grown.variants {
        let verdict = passrate_pool::Executor::evaluate(
            &runner,
            &grown,
            *language,
            &variant.reference_solution,
        )
        .expect("executes");
        assert!(verdict.passed(), "{language}: {verdict:?}");
    }
    // And they fail the mutants they were chosen for.
    let after = call_kills(&runner, &grown, Language::Python, &codes).expect("executes");
    let survived_after = after
        .iter()
        .filter(|k| k.as_ref().is_some_and(BTreeSet::is_empty))
        .count();
    assert_eq!(survived_after as u32, score.mutants - score.killed);
}
