//! The weekly sample: a seed fixed by the ISO week, a stratified allocation over
//! category × tier cells, and a keyed-hash order inside each cell. No RNG API is involved,
//! so the same week and pool give the same manifest with any build on any machine.
//!
//! * Seed: `blake3("2026-W48")`, the canonical ISO week text (`YYYY-Www`), as 32 bytes; shown
//!   as 64 hex digits.
//! * Allocation: the sample size is split over tiers by their shares (default 40/40/20), then
//!   each tier's seats over categories by their shares (default equal), both by the largest
//!   remainder method with exact integer arithmetic; equal remainders are ordered by
//!   `blake3_keyed(seed, "cell/<tier>/<category>")` so no cell is always favoured.
//! * Inside a cell: the week's active tasks ([`crate::rotation`]: the pool less the drift
//!   panel and the tasks retired that week) ordered by `blake3_keyed(seed, task id)`; the
//!   first n are taken.
//! * Language: `u64_le(blake3_keyed(seed, "language/<task id>")[..8]) mod k` indexes the
//!   task's k variants in language order (python, javascript, java).
//! * The manifest also carries the drift panel ([`crate::panel`]) and the week's rotation.

use std::collections::BTreeMap;

use passrate_schema::{
    Category, Language, Manifest, ManifestItem, RECORD_FORMAT_VERSION, Task, Tier,
};

use crate::error::SampleError;
use crate::panel::DEFAULT_PANEL_SIZE;
use crate::rotation::{RotationConfig, Schedule, Status};
use crate::storage::Pool;

/// Default number of tasks per week.
pub const DEFAULT_SAMPLE_SIZE: usize = 400;

/// Size and shares of a sample, its rotation and its drift panel.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleConfig {
    pub size: usize,
    /// Relative weights of the tiers (default 40/40/20).
    pub tier_shares: BTreeMap<Tier, u32>,
    /// Relative weights of the categories (default: 1 each).
    pub category_shares: BTreeMap<Category, u32>,
    /// How the active set changes from week to week (default: 5 % retire, 12 weeks out).
    pub rotation: RotationConfig,
    /// Tasks on the drift panel, stratified by the same shares (default 100; 0: no panel).
    pub panel_size: usize,
}

impl Default for SampleConfig {
    fn default() -> Self {
        SampleConfig {
            size: DEFAULT_SAMPLE_SIZE,
            tier_shares: [(Tier::One, 40), (Tier::Two, 40), (Tier::Three, 20)].into(),
            category_shares: Category::ALL.into_iter().map(|c| (c, 1)).collect(),
            rotation: RotationConfig::default(),
            panel_size: DEFAULT_PANEL_SIZE,
        }
    }
}

/// A week's seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Seed(pub [u8; 32]);

impl Seed {
    pub fn hex(&self) -> String {
        blake3::Hash::from_bytes(self.0).to_hex().to_string()
    }

    pub(crate) fn keyed(&self, data: &[u8]) -> [u8; 32] {
        *blake3::keyed_hash(&self.0, data).as_bytes()
    }
}

/// Parses an ISO week (`2026-W48`, also `2026-w48` or `2026W48`) into its canonical text.
pub fn parse_week(text: &str) -> Result<String, SampleError> {
    let bad = || SampleError::InvalidWeek(text.to_owned());
    let upper = text.trim().to_ascii_uppercase();
    let (year, week) = upper.split_once('W').ok_or_else(bad)?;
    let year = year.strip_suffix('-').unwrap_or(year);
    if year.len() != 4 || week.len() != 2 {
        return Err(bad());
    }
    let year: i32 = year.parse().map_err(|_| bad())?;
    let week: u8 = week.parse().map_err(|_| bad())?;
    time::Date::from_iso_week_date(year, week, time::Weekday::Monday).map_err(|_| bad())?;
    Ok(format!("{year:04}-W{week:02}"))
}

/// The ISO week a date falls in, in canonical form.
pub fn iso_week_of(date: time::Date) -> String {
    let (year, week, _) = date.to_iso_week_date();
    format!("{year:04}-W{week:02}")
}

/// The current ISO week (UTC).
pub fn current_week() -> String {
    iso_week_of(time::OffsetDateTime::now_utc().date())
}

/// The seed of a week: blake3 of its canonical text.
pub fn week_seed(week: &str) -> Result<Seed, SampleError> {
    let week = parse_week(week)?;
    Ok(Seed(*blake3::hash(week.as_bytes()).as_bytes()))
}

/// Splits `total` seats over weighted items by the largest remainder method. Equal
/// remainders are ordered by `tie_key` (smaller first).
fn largest_remainder<K: Clone + Ord>(
    total: usize,
    weights: &[(K, u32)],
    tie_key: impl Fn(&K) -> [u8; 32],
) -> Vec<(K, usize)> {
    let sum: u128 = weights.iter().map(|(_, w)| u128::from(*w)).sum();
    if sum == 0 {
        return weights.iter().map(|(k, _)| (k.clone(), 0)).collect();
    }
    let mut seats: Vec<(K, usize, u128)> = weights
        .iter()
        .map(|(k, w)| {
            let numerator = total as u128 * u128::from(*w);
            (k.clone(), (numerator / sum) as usize, numerator % sum)
        })
        .collect();
    let given: usize = seats.iter().map(|s| s.1).sum();
    let mut order: Vec<usize> = (0..seats.len()).collect();
    order.sort_by(|&a, &b| {
        seats[b]
            .2
            .cmp(&seats[a].2)
            .then_with(|| tie_key(&seats[a].0).cmp(&tie_key(&seats[b].0)))
    });
    for &i in order.iter().take(total - given) {
        seats[i].1 += 1;
    }
    seats.into_iter().map(|(k, n, _)| (k, n)).collect()
}

/// How many tasks each category × tier cell gets. Both margins are fixed exactly: each tier
/// gets its largest-remainder share of the sample and so does each category, the same every
/// week (rounding each tier's categories on their own let a category's total drift by up to
/// the number of tiers). Each cell is the floor or the ceiling of its exact quota
/// `size × tier share × category share`; which cells round up is decided by a flow over the
/// cells (largest remainders first, ties by the week's seed), so that every row and column
/// reaches its total.
pub fn allocate(
    config: &SampleConfig,
    seed: &Seed,
) -> Result<BTreeMap<(Category, Tier), usize>, SampleError> {
    let tiers: Vec<(Tier, u32)> = config
        .tier_shares
        .iter()
        .filter(|(_, w)| **w > 0)
        .map(|(t, w)| (*t, *w))
        .collect();
    let categories: Vec<(Category, u32)> = config
        .category_shares
        .iter()
        .filter(|(_, w)| **w > 0)
        .map(|(c, w)| (*c, *w))
        .collect();
    if tiers.is_empty() || categories.is_empty() {
        return Err(SampleError::Config(
            "at least one tier and one category need a positive share".into(),
        ));
    }
    // The margins do not depend on the week (ties broken by a fixed hash of the name), so a
    // category's or tier's total is the same in every week's sample.
    let per_tier = largest_remainder(config.size, &tiers, |t| {
        *blake3::hash(format!("tier/{}", t.number()).as_bytes()).as_bytes()
    });
    let per_category = largest_remainder(config.size, &categories, |c| {
        *blake3::hash(format!("category/{}", c.as_str()).as_bytes()).as_bytes()
    });
    let tier_sum: u128 = tiers.iter().map(|(_, w)| u128::from(*w)).sum();
    let category_sum: u128 = categories.iter().map(|(_, w)| u128::from(*w)).sum();
    let denominator = tier_sum * category_sum;
    // Floors, and the cells with a remainder in the order they should round up.
    let mut cells = vec![vec![0usize; categories.len()]; tiers.len()];
    let mut fractional: Vec<(usize, usize, u128, [u8; 32])> = Vec::new();
    for (i, (tier, tw)) in tiers.iter().enumerate() {
        for (j, (category, cw)) in categories.iter().enumerate() {
            let numerator = config.size as u128 * u128::from(*tw) * u128::from(*cw);
            cells[i][j] = (numerator / denominator) as usize;
            let remainder = numerator % denominator;
            if remainder > 0 {
                let key =
                    seed.keyed(format!("cell/{}/{}", tier.number(), category.as_str()).as_bytes());
                fractional.push((i, j, remainder, key));
            }
        }
    }
    fractional.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.3.cmp(&b.3)));
    let mut row_need: Vec<usize> = per_tier
        .iter()
        .enumerate()
        .map(|(i, (_, n))| n - cells[i].iter().sum::<usize>())
        .collect();
    let mut col_need: Vec<usize> = per_category
        .iter()
        .enumerate()
        .map(|(j, (_, n))| n - cells.iter().map(|row| row[j]).sum::<usize>())
        .collect();
    let mut up = vec![vec![false; categories.len()]; tiers.len()];
    let can_round = |i: usize, j: usize| fractional.iter().any(|f| f.0 == i && f.1 == j);
    // Greedy first, in remainder order; then augmenting paths for what greedy left.
    for &(i, j, _, _) in &fractional {
        if row_need[i] > 0 && col_need[j] > 0 {
            up[i][j] = true;
            row_need[i] -= 1;
            col_need[j] -= 1;
        }
    }
    while let Some(start) = row_need.iter().position(|&n| n > 0) {
        let path = augmenting_path(start, &up, &col_need, &can_round).ok_or_else(|| {
            SampleError::Config("the tier and category shares cannot both be met".into())
        })?;
        // path: (row, col) cells alternately rounded up (even) and back down (odd).
        for (k, &(i, j)) in path.iter().enumerate() {
            up[i][j] = k % 2 == 0;
        }
        row_need[start] -= 1;
        let &(_, last_col) = path.last().expect("a path has a cell");
        col_need[last_col] -= 1;
    }
    let mut out = BTreeMap::new();
    for (i, (tier, _)) in tiers.iter().enumerate() {
        for (j, (category, _)) in categories.iter().enumerate() {
            out.insert((*category, *tier), cells[i][j] + usize::from(up[i][j]));
        }
    }
    Ok(out)
}

/// A breadth-first augmenting path from row `start` to a column that still needs a seat:
/// row → (round a cell up) → column → (round another row's cell back down) → row … .
fn augmenting_path(
    start: usize,
    up: &[Vec<bool>],
    col_need: &[usize],
    can_round: &dyn Fn(usize, usize) -> bool,
) -> Option<Vec<(usize, usize)>> {
    let (rows, cols) = (up.len(), col_need.len());
    // For each column reached: the (row, col) cell that reached it; for each row reached:
    // the (row, col) cell it was left through (rounded back down).
    let mut col_from: Vec<Option<usize>> = vec![None; cols];
    let mut row_from: Vec<Option<usize>> = vec![None; rows];
    let mut row_seen = vec![false; rows];
    row_seen[start] = true;
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(i) = queue.pop_front() {
        for j in 0..cols {
            if up[i][j] || !can_round(i, j) || col_from[j].is_some() {
                continue;
            }
            col_from[j] = Some(i);
            if col_need[j] > 0 {
                // Walk back: cell (i, j) up, then the cell that brought us to row i down, …
                let mut path = vec![(i, j)];
                let mut row = i;
                while let Some(col) = row_from[row] {
                    path.push((row, col));
                    let prev = col_from[col].expect("a column on the path was reached");
                    path.push((prev, col));
                    row = prev;
                }
                // Reversed, the path starts at `start`'s cell: even positions go up.
                path.reverse();
                return Some(path);
            }
            for (k, row_up) in up.iter().enumerate() {
                if row_up[j] && !row_seen[k] {
                    row_seen[k] = true;
                    row_from[k] = Some(j);
                    queue.push_back(k);
                }
            }
        }
    }
    None
}

/// The language a sampled task is posed in.
pub fn choose_language(seed: &Seed, task: &Task) -> Language {
    let languages: Vec<Language> = task.variants.keys().copied().collect();
    let hash = seed.keyed(format!("language/{}", task.id).as_bytes());
    let n = u64::from_le_bytes(hash[..8].try_into().expect("8 bytes"));
    languages[(n % languages.len() as u64) as usize]
}

/// Draws the week's sample from the week's active tasks (see [`crate::rotation`]), with the
/// drift panel and the rotation it used.
pub fn sample(pool: &Pool, week: &str, config: &SampleConfig) -> Result<Manifest, SampleError> {
    let week = parse_week(week)?;
    let seed = week_seed(&week)?;
    let cells = allocate(config, &seed)?;
    let schedule = Schedule::new(pool, config)?;
    type Ranked<'a> = Vec<(&'a Task, [u8; 32])>;
    let mut by_cell: BTreeMap<(Category, Tier), Ranked<'_>> = BTreeMap::new();
    for task in schedule.active_tasks(&week)? {
        by_cell
            .entry((task.category, task.tier))
            .or_default()
            .push((task, seed.keyed(task.id.as_bytes())));
    }
    let mut items = Vec::with_capacity(config.size);
    for ((category, tier), needed) in cells {
        if needed == 0 {
            continue;
        }
        let mut candidates = by_cell.remove(&(category, tier)).unwrap_or_default();
        if candidates.len() < needed {
            let (mut retired, mut panel) = (0, 0);
            for (task, status) in pool.tasks().iter().zip(schedule.statuses(&week)?) {
                if (task.category, task.tier) == (category, tier) {
                    retired += usize::from(status == Status::Retired);
                    panel += usize::from(status == Status::Panel);
                }
            }
            return Err(SampleError::NotEnoughTasks {
                category,
                tier,
                needed,
                available: candidates.len(),
                missing: needed - candidates.len(),
                retired,
                panel,
            });
        }
        candidates.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.id.cmp(&b.0.id)));
        for (task, _) in candidates.into_iter().take(needed) {
            items.push(ManifestItem {
                task: task.id.clone(),
                task_version: task.version,
                language: choose_language(&seed, task),
                category,
                tier,
                family: task.family(),
            });
        }
    }
    Ok(Manifest {
        format_version: RECORD_FORMAT_VERSION,
        seed: seed.hex(),
        pool_version: pool.version().0,
        items,
        panel: schedule.panel().to_vec(),
        rotation: Some(schedule.rotation(&week)?),
        week,
    })
}
