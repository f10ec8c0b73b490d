//! Rotation: the pool keeps a reserve; each rotation retires a small share of the active
//! tasks of every category × tier cell into the reserve and brings the same number of
//! reserve tasks in, chosen by keyed hashes of the week's seed. Every rotation is logged
//! with the pool versions before and after, so each week's pool is traceable.

use std::collections::{BTreeMap, BTreeSet};

use passrate_schema::{Category, Tier};
use serde::{Deserialize, Serialize};

use crate::error::RotationError;
use crate::sample::{parse_week, week_seed};
use crate::storage::Pool;

/// Version of `rotation.json`.
pub const ROTATION_FORMAT_VERSION: u32 = 1;
/// Share of each cell held in reserve when a pool is first imported.
pub const INITIAL_RESERVE_SHARE: f64 = 0.05;

/// `rotation.json`: which tasks are in reserve, and every rotation so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RotationState {
    pub format_version: u32,
    pub reserve: BTreeSet<String>,
    #[serde(default)]
    pub log: Vec<RotationEntry>,
}

impl Default for RotationState {
    fn default() -> Self {
        RotationState {
            format_version: ROTATION_FORMAT_VERSION,
            reserve: BTreeSet::new(),
            log: Vec::new(),
        }
    }
}

/// One rotation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RotationEntry {
    pub week: String,
    pub rate: f64,
    pub retired: Vec<String>,
    pub introduced: Vec<String>,
    pub pool_version_before: String,
    pub pool_version_after: String,
}

fn cells(pool: &Pool) -> BTreeMap<(Category, Tier), Vec<String>> {
    let mut cells: BTreeMap<(Category, Tier), Vec<String>> = BTreeMap::new();
    for task in pool.tasks() {
        cells
            .entry((task.category, task.tier))
            .or_default()
            .push(task.id.clone());
    }
    cells
}

/// The initial reserve of a freshly imported pool: in every cell, the `share` of tasks with
/// the smallest `blake3("reserve/<id>")` (at least one task stays active per cell).
pub fn initial_reserve(pool: &Pool, share: f64) -> BTreeSet<String> {
    let mut reserve = BTreeSet::new();
    for (_, mut ids) in cells(pool) {
        let n = ((ids.len() as f64) * share).floor() as usize;
        let n = n.min(ids.len().saturating_sub(1));
        ids.sort_by_key(|id| *blake3::hash(format!("reserve/{id}").as_bytes()).as_bytes());
        reserve.extend(ids.into_iter().take(n));
    }
    reserve
}

/// Rotates the pool for `week`: in every cell, `round(rate × active)` active tasks (capped
/// by the cell's reserve) with the smallest `blake3_keyed(seed, "retire/<id>")` go to the
/// reserve, and as many reserve tasks with the smallest `blake3_keyed(seed,
/// "introduce/<id>")` become active. Weeks must increase; each week rotates once.
pub fn rotate(pool: &mut Pool, week: &str, rate: f64) -> Result<RotationEntry, RotationError> {
    let week = parse_week(week)?;
    if !(rate > 0.0 && rate <= 0.5) {
        return Err(RotationError::Rate(rate));
    }
    if let Some(last) = pool.rotation().log.last() {
        if last.week == week {
            return Err(RotationError::AlreadyRotated(week));
        }
        if last.week > week {
            return Err(RotationError::NotAfter {
                week,
                last: last.week.clone(),
            });
        }
    }
    let seed = week_seed(&week)?;
    let before = pool.version();
    let mut retired = Vec::new();
    let mut introduced = Vec::new();
    for (_, ids) in cells(pool) {
        let (mut reserve, mut active): (Vec<String>, Vec<String>) = ids
            .into_iter()
            .partition(|id| pool.rotation().reserve.contains(id));
        let n = ((active.len() as f64) * rate).round() as usize;
        let n = n.min(reserve.len());
        let key = |prefix: &str, id: &str| {
            *blake3::keyed_hash(&seed.0, format!("{prefix}/{id}").as_bytes()).as_bytes()
        };
        active.sort_by_key(|id| key("retire", id));
        reserve.sort_by_key(|id| key("introduce", id));
        retired.extend(active.into_iter().take(n));
        introduced.extend(reserve.into_iter().take(n));
    }
    retired.sort();
    introduced.sort();
    let state = pool.rotation_mut();
    for id in &introduced {
        state.reserve.remove(id);
    }
    for id in &retired {
        state.reserve.insert(id.clone());
    }
    let after = pool.version();
    let entry = RotationEntry {
        week,
        rate,
        retired,
        introduced,
        pool_version_before: before.0,
        pool_version_after: after.0,
    };
    pool.rotation_mut().log.push(entry.clone());
    Ok(entry)
}
