//! Pool statistics (counts per category × tier × language) and task display.
//!
//! The counts of tasks and tests describe the pool; `active`, `retired` and `panel`
//! describe one week under one sample configuration, since rotation makes "active" a
//! property of the week ([`crate::rotation`]): active tasks are those the week's sample may
//! draw, retired ones are out by rotation, panel ones are asked beside the sample.

use std::collections::BTreeMap;

use passrate_schema::{Category, Language, Task, Tier, Visibility};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::SampleError;
use crate::rotation::{Schedule, Status};
use crate::sample::{SampleConfig, parse_week};
use crate::storage::Pool;

/// One row of `pool stats`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StatsRow {
    pub category: Category,
    pub tier: Tier,
    pub language: Language,
    /// Tasks offering this language (a task with three variants counts in three rows).
    pub tasks: usize,
    /// Of those, tasks the week's sample may draw.
    pub active: usize,
    /// Tests per task in this language (public and hidden): smallest, median, largest.
    pub tests_min: usize,
    pub tests_median: usize,
    pub tests_max: usize,
    /// Share of this cell's tests that are hidden.
    pub hidden_share: f64,
    /// Active tasks under the suite minimum ([`crate::validate::MIN_TESTS`] tests with
    /// [`crate::validate::MIN_HIDDEN`] hidden) in a category judged by its tests.
    pub active_below_minimum: usize,
}

/// Counts of the pool, and of its active, retired and panel tasks in one week.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Stats {
    pub pool_version: String,
    pub series: u32,
    /// The week `active`, `retired` and `panel` describe.
    pub week: String,
    pub tasks: usize,
    pub active: usize,
    pub retired: usize,
    pub panel: usize,
    pub tests: usize,
    pub hidden_tests: usize,
    pub by_category: BTreeMap<Category, usize>,
    pub by_tier: BTreeMap<Tier, usize>,
    pub by_language: BTreeMap<Language, usize>,
    /// Every non-empty category × tier × language cell, in that order.
    pub rows: Vec<StatsRow>,
    /// Test suites per category, every language of every task together.
    pub suites: BTreeMap<Category, Suites>,
}

/// A category's test suites: tests per task and language, and how many are hidden.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Suites {
    pub tests_min: usize,
    pub tests_median: usize,
    pub tests_max: usize,
    pub hidden_share: f64,
    /// Active task variants under the suite minimum (see [`StatsRow::active_below_minimum`]).
    pub active_below_minimum: usize,
    /// Tasks whose suite intake measured by mutation ([`passrate_schema::MutationScore`]).
    pub mutation_measured: usize,
    /// Their median mutation score (share of loading mutants the scored tests kill).
    pub mutation_median: Option<f64>,
    /// Of those, tasks under [`MUTATION_TARGET`](crate::strength::MUTATION_TARGET).
    pub mutation_below_target: usize,
}

impl Suites {
    fn from_counts(mut tests: Vec<usize>, hidden: usize, active_below_minimum: usize) -> Suites {
        tests.sort_unstable();
        let total: usize = tests.iter().sum();
        Suites {
            mutation_measured: 0,
            mutation_median: None,
            mutation_below_target: 0,
            tests_min: tests.first().copied().unwrap_or(0),
            tests_median: tests.get(tests.len() / 2).copied().unwrap_or(0),
            tests_max: tests.last().copied().unwrap_or(0),
            hidden_share: if total == 0 {
                0.0
            } else {
                hidden as f64 / total as f64
            },
            active_below_minimum,
        }
    }
}

/// One cell's running counts.
#[derive(Default)]
struct Cell {
    tasks: usize,
    active: usize,
    /// Tests per task, one entry per task.
    tests: Vec<usize>,
    hidden: usize,
    active_below_minimum: usize,
}

/// The pool's counts, with `week`'s rotation under `config`.
pub fn stats(pool: &Pool, week: &str, config: &SampleConfig) -> Result<Stats, SampleError> {
    let week = parse_week(week)?;
    let statuses = Schedule::new(pool, config)?.statuses(&week)?;
    let mut by_status: BTreeMap<Status, usize> = BTreeMap::new();
    let mut cells: BTreeMap<(Category, Tier, Language), Cell> = BTreeMap::new();
    let mut by_category = BTreeMap::new();
    let mut by_tier = BTreeMap::new();
    let mut by_language = BTreeMap::new();
    let (mut tests, mut hidden) = (0, 0);
    for (task, &status) in pool.tasks().iter().zip(&statuses) {
        *by_status.entry(status).or_insert(0) += 1;
        let active = status == Status::Active;
        *by_category.entry(task.category).or_insert(0) += 1;
        *by_tier.entry(task.tier).or_insert(0) += 1;
        tests += task.tests.len();
        hidden += task
            .tests
            .iter()
            .filter(|t| t.visibility == Visibility::Hidden)
            .count();
        for language in task.variants.keys() {
            *by_language.entry(*language).or_insert(0) += 1;
            let cell = cells
                .entry((task.category, task.tier, *language))
                .or_default();
            let (n, h) = task.tests_for(*language).fold((0, 0), |(n, h), (_, t)| {
                (n + 1, h + usize::from(t.visibility == Visibility::Hidden))
            });
            cell.tasks += 1;
            cell.active += usize::from(active);
            cell.tests.push(n);
            cell.hidden += h;
            cell.active_below_minimum +=
                usize::from(active && crate::validate::below_suite_minimum(task.category, n, h));
        }
    }
    let mut mutation: BTreeMap<Category, Vec<f64>> = BTreeMap::new();
    for task in pool.tasks() {
        if let Some(score) = task.calibration.mutation.as_ref().and_then(|m| m.score()) {
            mutation.entry(task.category).or_default().push(score);
        }
    }
    let mut per_category: BTreeMap<Category, (Vec<usize>, usize, usize)> = BTreeMap::new();
    for ((category, _, _), cell) in &cells {
        let c = per_category.entry(*category).or_default();
        c.0.extend(&cell.tests);
        c.1 += cell.hidden;
        c.2 += cell.active_below_minimum;
    }
    let suites = per_category
        .into_iter()
        .map(|(category, (tests, hidden, below))| {
            let mut suites = Suites::from_counts(tests, hidden, below);
            if let Some(scores) = mutation.get_mut(&category) {
                scores.sort_by(f64::total_cmp);
                suites.mutation_measured = scores.len();
                suites.mutation_median = Some(scores[scores.len() / 2]);
                suites.mutation_below_target = scores
                    .iter()
                    .filter(|s| **s < crate::strength::MUTATION_TARGET)
                    .count();
            }
            (category, suites)
        })
        .collect();
    let count = |s: Status| by_status.get(&s).copied().unwrap_or(0);
    Ok(Stats {
        pool_version: pool.version().0,
        series: pool.series(),
        week,
        tasks: pool.tasks().len(),
        active: count(Status::Active),
        retired: count(Status::Retired),
        panel: count(Status::Panel),
        tests,
        hidden_tests: hidden,
        by_category,
        by_tier,
        by_language,
        rows: cells
            .into_iter()
            .map(|((category, tier, language), cell)| {
                let suites =
                    Suites::from_counts(cell.tests, cell.hidden, cell.active_below_minimum);
                StatsRow {
                    category,
                    tier,
                    language,
                    tasks: cell.tasks,
                    active: cell.active,
                    tests_min: suites.tests_min,
                    tests_median: suites.tests_median,
                    tests_max: suites.tests_max,
                    hidden_share: suites.hidden_share,
                    active_below_minimum: suites.active_below_minimum,
                }
            })
            .collect(),
        suites,
    })
}

/// A task as `pool show` prints it: hidden tests are removed unless asked for (their
/// number stays visible), and so is the calibration of removed tests.
pub fn redact(task: &Task, include_hidden: bool) -> (Task, usize) {
    if include_hidden {
        return (task.clone(), 0);
    }
    let mut shown = task.clone();
    let before = shown.tests.len();
    // Calibration lists follow `tests_for(language)`: drop the entries of hidden tests.
    for (language, per_test) in shown.calibration.reference_test_cpu_us.iter_mut() {
        let keep: Vec<bool> = task
            .tests_for(*language)
            .map(|(_, t)| t.visibility == Visibility::Public)
            .collect();
        let mut i = 0;
        per_test.retain(|_| {
            let k = keep.get(i).copied().unwrap_or(false);
            i += 1;
            k
        });
    }
    shown.tests.retain(|t| t.visibility == Visibility::Public);
    let removed = before - shown.tests.len();
    (shown, removed)
}
