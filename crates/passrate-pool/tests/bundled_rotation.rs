//! Rotation and the drift panel on the bundled pool (`pool/` in the repository) with the
//! default configuration, over long runs of consecutive weeks: every week's 400-task sample
//! fits, retired tasks stay out 12 weeks, about 5 % of each cell retires each week, the
//! panel is fixed and never sampled, and nothing in the pool directory is written.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use passrate_pool::rotation::{week_index, week_offset};
use passrate_pool::{Pool, SampleConfig, Schedule, allocate, rotation, sample, week_seed};
use passrate_schema::{Category, Tier};

fn repo_pool() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pool")
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool::load(repo_pool()).expect("the bundled pool loads"))
}

const FIRST: &str = "2026-W01";

/// 120 consecutive weeks from 2026-W01 (through 2026-W53 and into 2028) all sample 400
/// tasks; prints each cell's smallest margin (active tasks less the most it was asked for).
#[test]
fn the_default_sample_fits_in_120_consecutive_weeks() {
    let pool = pool();
    let config = SampleConfig::default();
    let schedule = Schedule::new(pool, &config).unwrap();
    let panel: BTreeSet<&str> = schedule.panel().iter().map(|i| i.task.as_str()).collect();
    assert_eq!(panel.len(), 100);
    let mut margin: BTreeMap<(Category, Tier), i64> = BTreeMap::new();
    for delta in 0..120 {
        let week = week_offset(FIRST, delta).unwrap();
        let m = sample(pool, &week, &config).unwrap_or_else(|e| panic!("{week}: {e}"));
        assert_eq!(m.items.len(), 400, "{week}");
        assert_eq!(m.panel, schedule.panel(), "{week}: the panel is fixed");
        let sampled: BTreeSet<&str> = m.items.iter().map(|i| i.task.as_str()).collect();
        assert_eq!(sampled.len(), 400, "{week}: no task twice");
        assert!(
            sampled.is_disjoint(&panel),
            "{week}: a panel task is sampled"
        );
        let mut active: BTreeMap<(Category, Tier), i64> = BTreeMap::new();
        for t in schedule.active_tasks(&week).unwrap() {
            *active.entry((t.category, t.tier)).or_default() += 1;
        }
        let cells = allocate(&config, &week_seed(&week).unwrap()).unwrap();
        for (cell, needed) in cells {
            let slack = active.get(&cell).copied().unwrap_or(0) - needed as i64;
            let m = margin.entry(cell).or_insert(i64::MAX);
            *m = (*m).min(slack);
        }
    }
    for ((category, tier), slack) in &margin {
        eprintln!(
            "{category} tier {}: at least {slack} active tasks to spare",
            tier.number()
        );
        assert!(*slack >= 0);
    }
}

/// Over 64 consecutive weeks: what went out is out exactly 12 weeks, never back the week
/// after (W52's newcomers were W51's retirees), and about 5 % of each cell's active tasks
/// retire each week.
#[test]
fn retired_tasks_stay_out_twelve_weeks_and_five_percent_retire() {
    let pool = pool();
    let config = SampleConfig::default();
    let schedule = Schedule::new(pool, &config).unwrap();
    let cell = |id: &str| {
        let t = pool.get(id).unwrap();
        (t.category, t.tier)
    };
    let mut went_out_at: BTreeMap<String, i64> = BTreeMap::new();
    let mut previous = schedule.rotation(&week_offset(FIRST, -1).unwrap()).unwrap();
    let mut active_before: BTreeMap<(Category, Tier), usize> = BTreeMap::new();
    for t in schedule
        .active_tasks(&week_offset(FIRST, -1).unwrap())
        .unwrap()
    {
        *active_before.entry((t.category, t.tier)).or_default() += 1;
    }
    let (mut total_out, mut total_active) = (0usize, 0usize);
    let mut returns = 0;
    for delta in 0..64 {
        let week = week_offset(FIRST, delta).unwrap();
        let t = week_index(&week).unwrap();
        let used = schedule.rotation(&week).unwrap();
        assert!(!used.went_out.is_empty() && !used.came_in.is_empty());
        let previous_out: BTreeSet<&String> = previous.went_out.iter().collect();
        assert!(
            used.came_in.iter().all(|id| !previous_out.contains(id)),
            "{week}: last week's retirees came back"
        );
        for id in &used.came_in {
            if let Some(out) = went_out_at.get(id) {
                assert_eq!(t - out, 12, "{id} came back in {week}");
                returns += 1;
            }
        }
        for id in &used.went_out {
            went_out_at.insert(id.clone(), t);
        }
        let mut out_per_cell: BTreeMap<(Category, Tier), usize> = BTreeMap::new();
        for id in &used.went_out {
            *out_per_cell.entry(cell(id)).or_default() += 1;
        }
        for (c, active) in &active_before {
            let out = out_per_cell.get(c).copied().unwrap_or(0) as f64;
            let expected = 0.05 * *active as f64;
            // Within one task: a phase holds floor or ceil of n / 32 tasks, and last week's
            // active count is within one of 20 n / 32.
            assert!(
                (out - expected).abs() <= 1.05,
                "{week} {c:?}: {out} of {active} retired"
            );
        }
        total_out += used.went_out.len();
        total_active += active_before.values().sum::<usize>();
        active_before.clear();
        for task in schedule.active_tasks(&week).unwrap() {
            *active_before.entry((task.category, task.tier)).or_default() += 1;
        }
        previous = used;
    }
    assert!(returns > 1000, "only {returns} returns seen");
    let share = total_out as f64 / total_active as f64;
    assert!((0.049..=0.051).contains(&share), "{share}");
}

/// Through the public `rotation`: 2026-W52 brings back none of 2026-W51's retirees and
/// retires none of its newcomers.
#[test]
fn week_52_does_not_bring_back_week_51s_retirees() {
    let pool = pool();
    let config = SampleConfig::default();
    let w51 = rotation(pool, "2026-W51", &config).unwrap().rotation;
    let w52 = rotation(pool, "2026-W52", &config).unwrap().rotation;
    let set = |v: &Vec<String>| v.iter().cloned().collect::<BTreeSet<_>>();
    assert!(set(&w52.came_in).is_disjoint(&set(&w51.went_out)));
    assert!(set(&w52.went_out).is_disjoint(&set(&w51.came_in)));
    // As many come back as go out, within one per cell (a phase holds floor or ceil of
    // n / 32 of a cell's tasks).
    let mut balance: BTreeMap<(Category, Tier), i64> = BTreeMap::new();
    for (ids, sign) in [(&w52.went_out, 1), (&w52.came_in, -1)] {
        for id in ids {
            let t = pool.get(id).unwrap();
            *balance.entry((t.category, t.tier)).or_default() += sign;
        }
    }
    assert!(balance.values().all(|b| b.abs() <= 1), "{balance:?}");
    assert!(!w52.went_out.is_empty());
}

#[test]
fn sampling_writes_nothing_into_the_pool_directory() {
    let before = common::snapshot(&repo_pool());
    let pool = Pool::load(repo_pool()).unwrap();
    let config = SampleConfig::default();
    for week in ["2026-W51", "2026-W52", "2027-W01"] {
        sample(&pool, week, &config).unwrap();
        rotation(&pool, week, &config).unwrap();
        passrate_pool::stats(&pool, week, &config).unwrap();
    }
    assert_eq!(before, common::snapshot(&repo_pool()));
}
