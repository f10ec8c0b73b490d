//! The drift panel over fixture pools: stratified like the sample, the same every week,
//! disjoint from every week's sample and out of rotation, and redrawn when the series
//! changes. The bundled pool's panel is checked in `bundled_rotation.rs`.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use passrate_pool::panel::panel_key;
use passrate_pool::rotation::week_offset;
use passrate_pool::{Pool, SampleConfig, Schedule, Status, allocate, drift_panel, sample};
use passrate_schema::{Category, Tier};

fn pool(per_cell: usize) -> Pool {
    Pool::new(common::grid(per_cell)).unwrap()
}

fn config() -> SampleConfig {
    SampleConfig {
        size: 42,
        panel_size: 42,
        ..SampleConfig::default()
    }
}

fn ids(items: &[passrate_schema::ManifestItem]) -> BTreeSet<String> {
    items.iter().map(|i| i.task.clone()).collect()
}

#[test]
fn the_panel_is_stratified_by_the_sample_shares() {
    let pool = pool(20);
    let config = config();
    let panel = drift_panel(&pool, 42, &config).unwrap();
    assert_eq!(panel.len(), 42);
    assert_eq!(ids(&panel).len(), 42, "no task twice");
    let allocation = allocate(
        &SampleConfig {
            size: 42,
            ..config.clone()
        },
        &panel_key(pool.series()),
    )
    .unwrap();
    let mut got: BTreeMap<(Category, Tier), usize> = BTreeMap::new();
    for item in &panel {
        let task = pool.get(&item.task).unwrap();
        assert_eq!((task.category, task.tier), (item.category, item.tier));
        assert!(task.variants.contains_key(&item.language));
        assert_eq!(item.family, task.family(), "the family is filled");
        assert_eq!(item.task_version, task.version);
        *got.entry((item.category, item.tier)).or_default() += 1;
    }
    for (cell, n) in allocation {
        assert_eq!(got.get(&cell).copied().unwrap_or(0), n, "{cell:?}");
    }
    assert!(drift_panel(&pool, 0, &config).unwrap().is_empty());
}

#[test]
fn the_panel_is_the_same_every_week_and_never_sampled_or_rotated() {
    let pool = pool(20);
    let config = config();
    let panel = drift_panel(&pool, 42, &config).unwrap();
    let panel_ids = ids(&panel);
    let schedule = Schedule::new(&pool, &config).unwrap();
    for delta in 0..60 {
        let week = week_offset("2026-W01", delta).unwrap();
        let m = sample(&pool, &week, &config).unwrap();
        assert_eq!(
            m.panel, panel,
            "{week}: the same tasks in the same languages"
        );
        assert!(
            ids(&m.items).is_disjoint(&panel_ids),
            "{week}: panel in the sample"
        );
        let used = m.rotation.unwrap();
        assert!(used.went_out.iter().all(|id| !panel_ids.contains(id)));
        assert!(used.came_in.iter().all(|id| !panel_ids.contains(id)));
        for id in &panel_ids {
            assert_eq!(schedule.status(id, &week).unwrap(), Some(Status::Panel));
        }
    }
}

#[test]
fn a_new_series_draws_a_new_panel() {
    let one = pool(20);
    let two = one.clone().with_series(2);
    let config = config();
    let a = drift_panel(&one, 42, &config).unwrap();
    let b = drift_panel(&two, 42, &config).unwrap();
    assert_ne!(ids(&a), ids(&b), "series 2 draws other tasks");
    assert_eq!(
        a,
        drift_panel(&Pool::new(common::grid(20)).unwrap(), 42, &config).unwrap(),
        "the same series, the same panel"
    );
    assert_eq!(
        b,
        drift_panel(&one.clone().with_series(2), 42, &config).unwrap()
    );
}
