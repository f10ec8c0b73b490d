//! The drift panel: a fixed, stratified set of tasks asked every week beside the sample and
//! scored apart from the leaderboard, so a model's verdicts on the same tasks can be
//! compared week to week (McNemar) with more power than the few tasks two weekly samples
//! happen to share.
//!
//! * Key: `K = blake3("passrate-pool/panel/series-<series>")`, the pool's series
//!   ([`Pool::series`]); the week plays no part, so the panel is the same every week of a
//!   series and a new one is drawn only when the series is bumped.
//! * Allocation: the sample's ([`crate::allocate`]) with the panel's size and the sample's
//!   tier and category shares, equal remainders ordered by keyed hashes under `K`.
//! * Inside a cell: all the cell's tasks ordered by `blake3_keyed(K, task id)`; the first n
//!   are taken. Within a series, the panel changes only if a cell's tasks change (a task
//!   removed, or a new one ordered before the last panel task).
//! * Language: `u64_le(blake3_keyed(K, "language/<task id>")[..8]) mod k` over the task's k
//!   variants in language order, fixed per series like the tasks.
//!
//! Panel tasks are never rotated and never in a week's active set ([`crate::rotation`]), so
//! the panel and the sample are disjoint and a run never poses a task in two languages.

use std::collections::BTreeMap;

use passrate_schema::{Category, ManifestItem, Task, Tier};

use crate::error::SampleError;
use crate::sample::{SampleConfig, Seed, allocate, choose_language};
use crate::storage::Pool;

/// Default number of drift panel tasks.
pub const DEFAULT_PANEL_SIZE: usize = 100;

/// The panel's key for a series.
pub fn panel_key(series: u32) -> Seed {
    Seed(*blake3::hash(format!("passrate-pool/panel/series-{series}").as_bytes()).as_bytes())
}

/// The pool's drift panel of `size` tasks (none for 0), stratified by `config`'s tier and
/// category shares (its own size, rotation and panel size are not used). Items are ordered
/// by cell, then by the keyed hash.
pub fn drift_panel(
    pool: &Pool,
    size: usize,
    config: &SampleConfig,
) -> Result<Vec<ManifestItem>, SampleError> {
    if size == 0 {
        return Ok(Vec::new());
    }
    let key = panel_key(pool.series());
    let cells = allocate(
        &SampleConfig {
            size,
            ..config.clone()
        },
        &key,
    )?;
    type Ranked<'a> = Vec<(&'a Task, [u8; 32])>;
    let mut by_cell: BTreeMap<(Category, Tier), Ranked<'_>> = BTreeMap::new();
    for task in pool.tasks() {
        by_cell
            .entry((task.category, task.tier))
            .or_default()
            .push((task, key.keyed(task.id.as_bytes())));
    }
    let mut items = Vec::with_capacity(size);
    for ((category, tier), needed) in cells {
        if needed == 0 {
            continue;
        }
        let mut candidates = by_cell.remove(&(category, tier)).unwrap_or_default();
        if candidates.len() < needed {
            return Err(SampleError::NotEnoughPanelTasks {
                category,
                tier,
                needed,
                available: candidates.len(),
            });
        }
        candidates.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.id.cmp(&b.0.id)));
        for (task, _) in candidates.into_iter().take(needed) {
            items.push(ManifestItem {
                task: task.id.clone(),
                task_version: task.version,
                language: choose_language(&key, task),
                category,
                tier,
                family: task.family(),
            });
        }
    }
    Ok(items)
}
