//! Performance inputs ([`passrate_pool::import::perf`]) for bundled tasks, through the real
//! sandbox: a linear task gets inputs its reference needs a measurable CPU time on, whose
//! expected values every covered language's reference returns; tasks sharing a reference and
//! tests share one set through the cache; and the sets survive a save and a load without
//! changing the pool's version.

use std::collections::BTreeMap;

use passrate_pool::cache::Cache;
use passrate_pool::import::perf::{self, PERF_INPUTS, PERF_MAX_INPUT_BYTES, PERF_MIN_CPU_MS};
use passrate_pool::storage::PerfSet;
use passrate_pool::{Executor, LicenseFile, Pool};
use passrate_schema::{Expected, Language, Task, TestForm, Visibility};

fn runner() -> passrate_runner::Runner {
    let sandbox = passrate_sandbox::Sandbox::new(passrate_sandbox::SandboxConfig::default())
        .expect("the sandbox starts (needs root)");
    passrate_runner::Runner::new(
        sandbox,
        passrate_pool::import::pipeline::intake_runner_options(),
    )
}

fn bundled(ids: &[&str]) -> Vec<Task> {
    let pool = Pool::bundled().expect("the bundled pool");
    ids.iter()
        .map(|id| pool.get(id).expect("a bundled task").clone())
        .collect()
}

fn executions(runner: &passrate_runner::Runner) -> u64 {
    runner.exec_stats().values().map(|c| c.executions).sum()
}

/// Whether `language`'s reference of `task` returns every expected value of `set` that
/// applies to it, as the judge compares it.
fn reference_passes(
    runner: &passrate_runner::Runner,
    task: &Task,
    set: &PerfSet,
    language: Language,
) -> bool {
    let mut probe = task.clone();
    probe.category = passrate_schema::Category::FunctionCompletion;
    probe.category_data = Default::default();
    probe.calibration = Default::default();
    probe.tests = set.tests.clone();
    probe.limits.cpu_ms = Some(10_000);
    let verdict = runner
        .evaluate(
            &probe,
            language,
            &task.variants[&language].reference_solution,
        )
        .expect("the reference runs");
    verdict.passed() && verdict.tests_total > 0
}

#[test]
fn a_linear_task_gets_inputs_its_references_need_measurable_cpu_on() {
    let runner = runner();
    let cache = Cache::in_memory(&runner.fingerprint());
    // humaneval/1 (separate_paren_groups) and humaneval/18 (how_many_times): one pass over a
    // string in Python.
    for task in bundled(&["humaneval/1", "humaneval/18"]) {
        let set = perf::build(&runner, &cache, &task)
            .expect("no infrastructure failure")
            .unwrap_or_else(|| panic!("{} gets a performance set", task.id));
        let python = set.reference_cpu_ms[&Language::Python];
        assert!(
            python >= PERF_MIN_CPU_MS as f64,
            "{}: {python} ms of Python reference CPU",
            task.id
        );
        let inputs: std::collections::BTreeSet<String> = set
            .tests
            .iter()
            .map(|t| match &t.form {
                TestForm::Call { args, .. } => serde_json::to_string(args).expect("encodes"),
                TestForm::Sequence { .. } => panic!("perf tests are calls"),
            })
            .collect();
        assert!(
            (1..=PERF_INPUTS).contains(&inputs.len()),
            "{}: {} inputs",
            task.id,
            inputs.len()
        );
        for test in &set.tests {
            assert_eq!(test.visibility, Visibility::Hidden);
            assert!(!test.languages.is_empty(), "each test names its languages");
            let TestForm::Call { args, .. } = &test.form else {
                unreachable!()
            };
            let size: usize = args.iter().map(|a| a.canonical_bytes().len()).sum();
            assert!(size <= PERF_MAX_INPUT_BYTES, "{size} bytes");
        }
        // The expected values are what each covered language's reference returns: its
        // reference passes the set as an answer, with the values and CPU recorded.
        for (language, ms) in &set.reference_cpu_ms {
            assert!(*ms > 0.0);
            assert!(
                set.tests.iter().any(|t| t.languages.contains(language)),
                "{}: {language} measured but not covered",
                task.id
            );
            assert!(
                reference_passes(&runner, &task, &set, *language),
                "{}: the {language} reference fails its own set",
                task.id
            );
        }
        // Every language whose reference agrees with Python's on the inputs is covered
        // (HumanEval-X's JavaScript and Java references of both agree).
        for language in task.variants.keys() {
            let variant = &task.variants[language];
            let calls: Vec<Vec<passrate_schema::Value>> = set
                .tests
                .iter()
                .filter(|t| t.languages.contains(&Language::Python))
                .filter_map(|t| match &t.form {
                    TestForm::Call { args, .. } => Some(args.clone()),
                    TestForm::Sequence { .. } => None,
                })
                .collect();
            let out = runner
                .run_calls(
                    *language,
                    &variant.reference_solution,
                    &variant.entry_point,
                    variant.class_name.as_deref(),
                    &calls,
                )
                .expect("the reference runs");
            let agrees = out.iter().zip(&calls).all(|(outcome, args)| {
                let Ok(got) = outcome else { return false };
                set.tests.iter().any(|t| match &t.form {
                    TestForm::Call {
                        args: a,
                        expected: Expected::Returns(v),
                    } => {
                        a == args
                            && passrate_pool::import::build::equivalent(
                                &passrate_runner::compare::conform(
                                    v,
                                    &passrate_runner::declared::variant_return(*language, variant),
                                ),
                                got,
                                false,
                            )
                    }
                    TestForm::Call {
                        args: a,
                        expected: Expected::ReturnsDigest(d),
                    } => a == args && passrate_runner::digest::matches(d, got),
                    _ => false,
                })
            });
            assert!(agrees, "{}: the {language} reference agrees", task.id);
            assert!(
                set.tests.iter().all(|t| t.languages.contains(language)),
                "{}: {language} agrees on every input and covers them all",
                task.id
            );
        }
    }
}

#[test]
fn tasks_sharing_a_reference_and_tests_share_one_set_through_the_cache() {
    let runner = runner();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let tasks = bundled(&[
        "translate/humaneval/1/python-java",
        "translate/humaneval/1/javascript-java",
    ]);
    let cache = Cache::new(Some(dir.path().to_path_buf()), &runner.fingerprint());
    let first = perf::build_cached(&runner, &cache, &tasks[0]).expect("no infrastructure failure");
    let before = executions(&runner);
    let second = perf::build_cached(&runner, &cache, &tasks[1]).expect("no infrastructure failure");
    assert_eq!(first, second, "the same Java reference on the same tests");
    assert_eq!(executions(&runner), before, "the second costs no execution");
    let set = first.expect("a performance set");
    assert!(set.tests.iter().all(|t| t.languages == [Language::Java]));
    // A rebuild (a new process) reads the stored set: identical, nothing executed.
    let again = Cache::new(Some(dir.path().to_path_buf()), &runner.fingerprint());
    let before = executions(&runner);
    assert_eq!(
        perf::build_cached(&runner, &again, &tasks[0]).expect("no infrastructure failure"),
        Some(set)
    );
    assert_eq!(executions(&runner), before);
}

#[test]
fn perf_sets_survive_a_save_and_a_load_and_leave_the_version_alone() {
    let runner = runner();
    let cache = Cache::in_memory(&runner.fingerprint());
    // humaneval/18 gets a set; humaneval/3 (below_zero: one pass over at most a few thousand
    // integers) and the documentation task (no performance inputs) get none.
    let tasks = bundled(&["humaneval/18", "humaneval/3", "doc/humaneval/18"]);
    let mut sets = BTreeMap::new();
    for task in &tasks {
        if let Some(set) = perf::build_cached(&runner, &cache, task).expect("no failure") {
            sets.insert(task.id.clone(), set);
        }
    }
    assert_eq!(
        sets.keys().collect::<Vec<_>>(),
        ["humaneval/18"],
        "only the linear string task"
    );
    let plain = Pool::new(tasks.clone()).expect("valid tasks");
    let pool = Pool::new(tasks)
        .expect("valid tasks")
        .with_perf_sets(sets.clone());
    assert_eq!(pool.version(), plain.version(), "not part of the version");
    assert_eq!(
        pool.perf_set("humaneval/18").unwrap(),
        sets.get("humaneval/18").cloned()
    );

    let root = tempfile::tempdir().expect("a temporary directory");
    let dir = root.path().join("pool");
    let licenses = [LicenseFile {
        path: "humaneval/LICENSE".to_owned(),
        contents: b"MIT".to_vec(),
    }];
    pool.save_with(&dir, &licenses, &[("REJECTIONS.md", b"# none\n")])
        .expect("saved");
    let index: serde_json::Value =
        serde_json::from_str(&fs_err::read_to_string(dir.join("pool.json")).unwrap()).unwrap();
    assert_eq!(
        index["perf_files"],
        serde_json::json!(["perf/humaneval.jsonl.gz"])
    );
    let loaded = Pool::load(&dir).expect("loads");
    assert_eq!(loaded.version(), plain.version());
    for id in [
        "humaneval/18",
        "humaneval/3",
        "doc/humaneval/18",
        "humaneval/999",
    ] {
        assert_eq!(
            loaded.perf_set(id).expect("reads"),
            sets.get(id).cloned(),
            "{id}"
        );
    }
    // Written back (as `pool perf` does), the loaded sets, the licences and the report stay.
    loaded.resave(&dir).expect("written back");
    let reloaded = Pool::load(&dir).expect("loads");
    assert_eq!(
        reloaded.perf_set("humaneval/18").unwrap(),
        sets.get("humaneval/18").cloned()
    );
    assert_eq!(reloaded.version(), plain.version());
    assert_eq!(
        fs_err::read(dir.join("licenses/humaneval/LICENSE")).unwrap(),
        b"MIT"
    );
    assert_eq!(
        fs_err::read(dir.join("REJECTIONS.md")).unwrap(),
        b"# none\n"
    );
    // Replaced by none, the files go.
    reloaded
        .with_perf_sets(BTreeMap::new())
        .resave(&dir)
        .expect("written back");
    assert!(!dir.join("perf").exists());
    let bare = Pool::load(&dir).expect("loads");
    assert_eq!(bare.perf_set("humaneval/18").unwrap(), None);
    let index = fs_err::read_to_string(dir.join("pool.json")).unwrap();
    assert!(!index.contains("perf_files"), "{index}");
}
