//! Golden tests of the bundled pool (`pool/` in the repository): its version (content hash)
//! and its counts per category × tier × language (with week 2026-W48's active, retired and
//! panel counts) are pinned, every task's invariants hold, and the sample of week 2026-W48
//! (with its rotation and drift panel) is pinned.
//!
//! After regenerating the pool on purpose, refresh the golden files with
//! `PASSRATE_BLESS=1 cargo test -p passrate-pool --test bundled` and commit them with it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use passrate_pool::{Pool, SampleConfig, Schedule, Status, check_task, sample, stats, tier_for};
use passrate_schema::{Category, Language, Tier, Visibility};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn repo_pool() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pool")
}

fn load() -> Pool {
    Pool::load(repo_pool()).expect("the bundled pool loads")
}

/// Compares `actual` with the golden file, or rewrites it under `PASSRATE_BLESS=1`.
fn golden(name: &str, actual: &str) {
    let path = golden_dir().join(name);
    if std::env::var_os("PASSRATE_BLESS").is_some() {
        fs_err::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = fs_err::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs from the bundled pool (regenerated? rerun with PASSRATE_BLESS=1 and commit)\n--- expected\n{expected}\n--- actual\n{actual}",
        path.display()
    );
}

const WEEK: &str = "2026-W48";

/// The counts table: one line per category × tier, tasks, the week's active tasks, and
/// tasks per language.
fn stats_table(pool: &Pool) -> String {
    let config = SampleConfig::default();
    let s = stats(pool, WEEK, &config).expect("stats of the default configuration");
    let mut out = format!(
        "series {} week {} tasks {} active {} retired {} panel {} tests {} hidden {}\n",
        s.series, s.week, s.tasks, s.active, s.retired, s.panel, s.tests, s.hidden_tests
    );
    let schedule = Schedule::new(pool, &config).expect("the default schedule");
    let mut tasks: BTreeMap<(Category, Tier), (usize, usize)> = BTreeMap::new();
    for (task, status) in pool.tasks().iter().zip(schedule.statuses(WEEK).unwrap()) {
        let cell = tasks.entry((task.category, task.tier)).or_default();
        cell.0 += 1;
        cell.1 += usize::from(status == Status::Active);
    }
    out.push_str("category tier tasks active python javascript java\n");
    for category in Category::ALL {
        for tier in Tier::ALL {
            let n = |l: Language| {
                s.rows
                    .iter()
                    .find(|r| r.category == category && r.tier == tier && r.language == l)
                    .map_or(0, |r| r.tasks)
            };
            let (t, a) = tasks.get(&(category, tier)).copied().unwrap_or_default();
            out.push_str(&format!(
                "{} {} {t} {a} {} {} {}\n",
                category.as_str(),
                tier.number(),
                n(Language::Python),
                n(Language::Javascript),
                n(Language::Java)
            ));
        }
    }
    out
}

#[test]
fn version_and_stats_are_pinned() {
    let pool = load();
    golden("bundled-pool-version.txt", &format!("{}\n", pool.version()));
    golden("bundled-pool-stats.txt", &stats_table(&pool));
}

#[test]
fn covers_every_category_tier_and_language_at_scale() {
    let pool = load();
    assert!(pool.tasks().len() >= 2400, "{} tasks", pool.tasks().len());
    let s = stats(&pool, WEEK, &SampleConfig::default()).unwrap();
    for category in Category::ALL {
        for tier in Tier::ALL {
            assert!(
                s.rows
                    .iter()
                    .any(|r| r.category == category && r.tier == tier && r.active > 0),
                "no active {category} task in tier {}",
                tier.number()
            );
        }
    }
    for language in Language::ALL {
        assert!(s.by_language.get(&language).copied().unwrap_or(0) > 0);
    }
}

#[test]
fn every_task_holds_its_invariants() {
    let pool = load();
    let licenses = repo_pool().join("licenses");
    let mut datasets = BTreeSet::new();
    for task in pool.tasks() {
        check_task(task).unwrap_or_else(|p| panic!("{p:?}"));
        let id = &task.id;
        assert_eq!(task.tier, tier_for(&task.factors), "{id}: tier");
        // Ids say what they are: the family matches the category.
        let family = id.split('/').next().unwrap_or_default();
        let expected_family: &[&str] = match task.category {
            Category::FunctionCompletion => &["humaneval", "classeval"],
            Category::AlgorithmImplementation => &["mbpp"],
            Category::BugFixing => &["humanevalfix", "quixbugs"],
            Category::CodeTranslation => &["translate"],
            Category::DocumentationGeneration => &["doc"],
            Category::UnitTestWriting => &["unittest"],
            Category::Refactoring => &["refactor"],
        };
        assert!(expected_family.contains(&family), "{id}: {}", task.category);
        assert!(
            !task.source.dataset.is_empty() && !task.source.license.is_empty(),
            "{id}: source"
        );
        datasets.insert(task.source.dataset.clone());
        // Calibration, where validation measured per-test CPU, is aligned with the tests
        // the language runs (the base of its budgets).
        for (language, cal) in &task.calibration.reference_test_cpu_us {
            assert!(task.variants.contains_key(language), "{id}: {language}");
            assert_eq!(
                cal.len(),
                task.tests_for(*language).count(),
                "{id}: {language} calibration length"
            );
        }
        // Unit-test writing is judged by the answer's own tests and documentation by its
        // examples run on the reference: neither runs call tests, so neither has budgets.
        let runs_call_tests = !matches!(
            task.category,
            Category::UnitTestWriting | Category::DocumentationGeneration
        );
        for language in [Language::Javascript, Language::Java] {
            if task.variants.contains_key(&language) && runs_call_tests {
                assert!(
                    task.calibration
                        .reference_test_cpu_us
                        .contains_key(&language),
                    "{id}: no {language} calibration"
                );
            }
        }
        // Derived tasks that hand the model code never hand it the reference.
        for (language, v) in &task.variants {
            if let Some(given) = &v.given_code {
                assert_ne!(given, &v.reference_solution, "{id} {language}: given");
            }
            for faulty in &v.faulty_variants {
                assert_ne!(faulty, &v.reference_solution, "{id} {language}: faulty");
            }
        }
        // Every task judged by its tests has the suite minimum in every language.
        for language in task.variants.keys() {
            let (n, h) = task.tests_for(*language).fold((0, 0), |(n, h), (_, t)| {
                (n + 1, h + usize::from(t.visibility == Visibility::Hidden))
            });
            assert!(
                !passrate_pool::validate::below_suite_minimum(task.category, n, h),
                "{id} {language}: {n} tests, {h} hidden"
            );
            // A weekly run scores at most the cap of hidden inputs per task (beyond public
            // tests): the rest of a large suite is kept as extra tests.
            let hidden_inputs: BTreeSet<String> = task
                .tests_for(*language)
                .filter(|(_, t)| t.visibility == Visibility::Hidden)
                .map(|(_, t)| serde_json::to_string(&t.form).expect("encodes"))
                .collect();
            assert!(
                hidden_inputs.len() <= passrate_pool::import::select::MAX_SCORED,
                "{id} {language}: {} hidden tests scored",
                hidden_inputs.len()
            );
        }
        // Tasks whose reference the tests judge carry their suite's mutation score, except
        // class tasks (sequence tests).
        let measured = matches!(family, "humaneval" | "humanevalfix" | "mbpp" | "quixbugs");
        if let Some(m) = &task.calibration.mutation {
            assert!(measured, "{id}: a mutation score on a task not measured");
            assert!(m.killed <= m.mutants, "{id}: {m:?}");
            assert_eq!(
                (m.survivors.len() + m.equivalent.len()) as u32,
                m.mutants - m.killed,
                "{id}: {m:?}"
            );
            assert!(
                m.score()
                    .is_none_or(|s| s >= passrate_pool::strength::MUTATION_TARGET),
                "{id}: a suite under the target is rejected at intake: {m:?}"
            );
            assert!(task.variants.contains_key(&m.language), "{id}: {m:?}");
        }
    }
    for dataset in &datasets {
        // Licence directories are named after the dataset.
        let dir = dataset.as_str();
        assert!(
            licenses.join(dir).is_dir(),
            "no licence directory for dataset {dataset}"
        );
    }
}

#[test]
fn week_2026_w48_sample_is_pinned() {
    let pool = load();
    let manifest = sample(&pool, WEEK, &SampleConfig::default()).expect("the default sample fits");
    assert_eq!(manifest.items.len(), 400);
    assert_eq!(manifest.panel.len(), 100);
    let ids: BTreeSet<&str> = manifest.items.iter().map(|i| i.task.as_str()).collect();
    assert_eq!(ids.len(), 400, "no task twice");
    let rotation = manifest
        .rotation
        .as_ref()
        .expect("the rotation is recorded");
    let mut text = format!(
        "week {}\nseed {}\npool {}\nrotation rate {} weeks_out {} active {} retired {} went_out {} came_in {}\n",
        manifest.week,
        manifest.seed,
        manifest.pool_version,
        rotation.rate,
        rotation.weeks_out,
        rotation.active_tasks,
        rotation.retired_tasks,
        rotation.went_out.len(),
        rotation.came_in.len()
    );
    let panel = manifest.panel.iter().take(10).map(|i| ("panel ", i));
    for (prefix, item) in manifest.items.iter().take(30).map(|i| ("", i)).chain(panel) {
        text.push_str(&format!(
            "{prefix}{}\t{}\t{}\ttier{}\n",
            item.task,
            item.language,
            item.category,
            item.tier.number()
        ));
    }
    golden("bundled-sample-2026-W48.txt", &text);
}
