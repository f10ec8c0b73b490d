//! The bundled pool's strengthened suites through the real sandbox: on MBPP tasks whose
//! hidden tests are generated (MBPP gives three asserts), every language's reference passes
//! every test; on bug-fixing tasks, which take the base's hidden tests their canonical
//! solutions pass, the reference passes and every known buggy variant fails. Intake validation
//! checks this for every task; this test keeps the check on the committed pool.

use passrate_pool::{Executor, Pool};
use passrate_schema::{Category, Language, Task, Visibility};

fn runner() -> passrate_runner::Runner {
    let sandbox = passrate_sandbox::Sandbox::new(passrate_sandbox::SandboxConfig::default())
        .expect("the sandbox starts (needs root)");
    passrate_runner::Runner::new(
        sandbox,
        passrate_pool::import::pipeline::intake_runner_options(),
    )
}

fn hidden(task: &Task, language: Language) -> usize {
    task.tests_for(language)
        .filter(|(_, t)| t.visibility == Visibility::Hidden)
        .count()
}

/// The first `n` tasks of `category` (id order) with `prefix` offering all three languages.
fn three_language_tasks<'p>(
    pool: &'p Pool,
    prefix: &str,
    category: Category,
    n: usize,
) -> Vec<&'p Task> {
    pool.tasks()
        .iter()
        .filter(|t| t.category == category && t.id.starts_with(prefix) && t.variants.len() == 3)
        .take(n)
        .collect()
}

#[test]
fn references_pass_generated_tests_in_every_language() {
    let pool = Pool::bundled().expect("the bundled pool");
    let runner = runner();
    // MBPP's own suite is three asserts: beyond them, the hidden tests are generated.
    let tasks: Vec<&Task> =
        three_language_tasks(&pool, "mbpp/", Category::AlgorithmImplementation, 40)
            .into_iter()
            .filter(|t| t.tests.len() <= 12)
            .take(6)
            .collect();
    assert_eq!(tasks.len(), 6);
    for task in tasks {
        for (language, variant) in &task.variants {
            assert!(hidden(task, *language) >= 1, "{} {language}", task.id);
            let v = Executor::evaluate(&runner, task, *language, &variant.reference_solution)
                .expect("executes");
            assert!(
                v.passed(),
                "{} {language}: {:?} {:?}",
                task.id,
                v.reason,
                v.detail
            );
        }
    }
}

#[test]
fn bug_fixing_references_pass_and_buggy_variants_fail_with_hidden_tests() {
    let pool = Pool::bundled().expect("the bundled pool");
    let runner = runner();
    let tasks = three_language_tasks(&pool, "humanevalfix/", Category::BugFixing, 5);
    assert_eq!(tasks.len(), 5);
    for task in tasks {
        for (language, variant) in &task.variants {
            assert!(hidden(task, *language) >= 1, "{} {language}", task.id);
            let v = Executor::evaluate(&runner, task, *language, &variant.reference_solution)
                .expect("executes");
            assert!(
                v.passed(),
                "{} {language}: {:?} {:?}",
                task.id,
                v.reason,
                v.detail
            );
            for faulty in &variant.faulty_variants {
                let v = Executor::evaluate(&runner, task, *language, faulty).expect("executes");
                assert!(
                    !v.passed(),
                    "{} {language}: a buggy variant passes",
                    task.id
                );
            }
        }
    }
}
