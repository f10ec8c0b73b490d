//! Rotation over fixture pools: the week's active set is a pure function of the pool and the
//! week, a share of each cell retires each week and stays out `weeks_out` weeks, and the
//! configuration is checked. The bundled pool's schedule is checked in `bundled_rotation.rs`.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use passrate_pool::rotation::{EPOCH_WEEK, week_index, week_offset};
use passrate_pool::{
    Pool, RotationConfig, SampleConfig, SampleError, Schedule, Status, rotation, sample,
};
use passrate_schema::{Category, Tier};

fn pool(per_cell: usize) -> Pool {
    Pool::new(common::grid(per_cell)).unwrap()
}

fn config(rate: f64, weeks_out: u32, panel_size: usize) -> SampleConfig {
    SampleConfig {
        size: 21,
        rotation: RotationConfig { rate, weeks_out },
        panel_size,
        ..SampleConfig::default()
    }
}

fn cell_of(pool: &Pool, id: &str) -> (Category, Tier) {
    let task = pool.get(id).unwrap();
    (task.category, task.tier)
}

#[test]
fn week_index_counts_weeks_from_the_epoch_across_years() {
    assert_eq!(week_index(EPOCH_WEEK).unwrap(), 0);
    assert_eq!(week_index("2026-W02").unwrap(), 1);
    assert_eq!(week_index("2025-W52").unwrap(), -1);
    // 2026 has 53 ISO weeks.
    assert_eq!(week_index("2026-W53").unwrap(), 52);
    assert_eq!(week_index("2027-W01").unwrap(), 53);
    assert_eq!(week_offset("2026-W53", 1).unwrap(), "2027-W01");
    assert_eq!(week_offset("2027-W01", -1).unwrap(), "2026-W53");
    assert_eq!(week_offset("2026-W10", 0).unwrap(), "2026-W10");
}

#[test]
fn the_active_set_is_a_pure_function_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pool");
    pool(20).save(&path, &[]).unwrap();
    let before = common::snapshot(&path);
    let loaded = Pool::load(&path).unwrap();
    let again = Pool::load(&path).unwrap();
    let config = config(0.05, 12, 21);
    for delta in 0..40 {
        let week = week_offset("2026-W40", delta).unwrap();
        let a = Schedule::new(&loaded, &config).unwrap();
        let b = Schedule::new(&again, &config).unwrap();
        let ids = |s: &Schedule<'_>| -> Vec<String> {
            s.active_tasks(&week)
                .unwrap()
                .iter()
                .map(|t| t.id.clone())
                .collect()
        };
        assert_eq!(
            ids(&a),
            ids(&b),
            "{week}: same pool and week, same active set"
        );
        assert_eq!(
            sample(&loaded, &week, &config).unwrap(),
            sample(&again, &week, &config).unwrap()
        );
        rotation(&loaded, &week, &config).unwrap();
        passrate_pool::stats(&loaded, &week, &config).unwrap();
    }
    assert_eq!(
        before,
        common::snapshot(&path),
        "the pool directory is unchanged"
    );
}

#[test]
fn each_week_about_the_rate_of_each_cell_retires_and_stays_out() {
    for (rate, weeks_out, per_cell) in [(0.05, 12, 40), (0.1, 4, 30), (0.5, 1, 9), (0.3, 6, 25)] {
        let pool = pool(per_cell);
        let config = config(rate, weeks_out, 21);
        let schedule = Schedule::new(&pool, &config).unwrap();
        let effective = 1.0 / (1.0 / rate).round();
        let mut went_out_at: BTreeMap<String, i64> = BTreeMap::new();
        let start = "2026-W30";
        let mut previous = schedule.rotation(&week_offset(start, -1).unwrap()).unwrap();
        let mut active_before: BTreeMap<(Category, Tier), usize> = BTreeMap::new();
        for t in schedule
            .active_tasks(&week_offset(start, -1).unwrap())
            .unwrap()
        {
            *active_before.entry((t.category, t.tier)).or_default() += 1;
        }
        for delta in 0..80 {
            let week = week_offset(start, delta).unwrap();
            let used = schedule.rotation(&week).unwrap();
            let active = schedule.active_tasks(&week).unwrap();
            let retired = schedule.retired_tasks(&week).unwrap();
            assert_eq!(used.active_tasks as usize, active.len());
            assert_eq!(used.retired_tasks as usize, retired.len());
            assert_eq!(active.len() + retired.len() + 21, pool.tasks().len());
            // Per cell: the share of last week's active tasks that retired is the rate,
            // within one task (a phase holds floor or ceil of n / cycle tasks).
            let mut out_per_cell: BTreeMap<(Category, Tier), usize> = BTreeMap::new();
            for id in &used.went_out {
                *out_per_cell.entry(cell_of(&pool, id)).or_default() += 1;
            }
            for (cell, active) in &active_before {
                let out = out_per_cell.get(cell).copied().unwrap_or(0) as f64;
                let expected = effective * *active as f64;
                assert!(
                    (out - expected).abs() <= 1.0 + effective,
                    "rate {rate}, {week}, {cell:?}: {out} of {active} went out"
                );
            }
            // Went out this week: out now, in last week. Came in: the reverse.
            let retired_ids: BTreeSet<&str> = retired.iter().map(|t| t.id.as_str()).collect();
            assert!(
                used.went_out
                    .iter()
                    .all(|id| retired_ids.contains(id.as_str()))
            );
            assert!(
                used.came_in
                    .iter()
                    .all(|id| !retired_ids.contains(id.as_str())),
                "{week}"
            );
            // The regression: last week's retirees never come straight back (unless they
            // are only ever out for one week).
            for id in used.came_in.iter().filter(|_| weeks_out > 1) {
                assert!(
                    !previous.went_out.contains(id),
                    "{id} went out in the week before {week} and came back in {week}"
                );
            }
            // A task that went out is out for exactly weeks_out weeks.
            let t = week_index(&week).unwrap();
            for id in &used.came_in {
                if let Some(out) = went_out_at.get(id) {
                    assert_eq!(t - out, i64::from(weeks_out), "{id} back in {week}");
                }
            }
            for id in &used.went_out {
                went_out_at.insert(id.clone(), t);
            }
            for task in &retired {
                if let Some(out) = went_out_at.get(&task.id) {
                    assert!(t - out < i64::from(weeks_out), "{} out too long", task.id);
                }
            }
            active_before.clear();
            for t in &active {
                *active_before.entry((t.category, t.tier)).or_default() += 1;
            }
            previous = used;
        }
        assert!(
            went_out_at.len() > pool.tasks().len() / 2,
            "rate {rate}: most tasks rotated within 80 weeks"
        );
    }
}

#[test]
fn every_cell_keeps_an_almost_constant_active_count() {
    let pool = pool(40);
    let config = config(0.05, 12, 0);
    let schedule = Schedule::new(&pool, &config).unwrap();
    for delta in 0..64 {
        let week = week_offset("2026-W01", delta).unwrap();
        let mut per_cell: BTreeMap<(Category, Tier), usize> = BTreeMap::new();
        for t in schedule.active_tasks(&week).unwrap() {
            *per_cell.entry((t.category, t.tier)).or_default() += 1;
        }
        assert_eq!(per_cell.len(), 21, "{week}: a cell has no active task");
        // 40 tasks, 20 of 32 phases active: 25, within one.
        for (cell, n) in per_cell {
            assert!((24..=26).contains(&n), "{week} {cell:?}: {n} active");
        }
    }
}

#[test]
fn invalid_rotation_settings_are_rejected_with_a_clear_message() {
    let pool = pool(20);
    for (rate, weeks_out, words) in [
        (0.0, 12, "rate must be in (0, 0.5]"),
        (0.6, 12, "rate must be in (0, 0.5]"),
        (f64::NAN, 12, "rate must be in (0, 0.5]"),
        (-0.1, 12, "rate must be in (0, 0.5]"),
        (0.05, 0, "at least 1 week"),
    ] {
        let err = sample(&pool, "2026-W10", &config(rate, weeks_out, 0)).unwrap_err();
        assert!(matches!(err, SampleError::Config(_)), "{err}");
        assert!(err.to_string().contains(words), "{err}");
        assert!(rotation(&pool, "2026-W10", &config(rate, weeks_out, 0)).is_err());
    }
    assert!(rotation(&pool, "2026-W54", &config(0.05, 12, 0)).is_err());
}

#[test]
fn the_manifest_records_the_rotation_it_used() {
    let pool = pool(20);
    let config = config(0.1, 4, 21);
    let m = sample(&pool, "2026-W20", &config).unwrap();
    let used = m.rotation.expect("the rotation is recorded");
    assert_eq!(used, rotation(&pool, "2026-W20", &config).unwrap().rotation);
    assert_eq!((used.rate, used.weeks_out), (0.1, 4));
    let schedule = Schedule::new(&pool, &config).unwrap();
    for item in &m.items {
        assert_eq!(
            schedule.status(&item.task, "2026-W20").unwrap(),
            Some(Status::Active),
            "{} is sampled but not active",
            item.task
        );
        assert!(!item.family.is_empty());
    }
}
