//! Rotation: which tasks a week's sample may draw from. The active set of a week is a pure
//! function of the pool, the week and the sample configuration; nothing is stored or
//! written, so every run of a week, on any machine and at any later time, sees the same set.
//!
//! The schedule, in every category × tier cell:
//!
//! * The cell's rotating tasks are all its tasks except the drift panel's
//!   ([`crate::panel`]), which never rotate. They are ranked by
//!   `blake3_keyed(ROTATION_KEY, task id)` (ties, which would need a hash collision, by id),
//!   with the fixed key `ROTATION_KEY = blake3("passrate-pool/rotation/1")`, not the week's
//!   seed: a task keeps its place from week to week, and adding one task to a cell moves
//!   each other task's phase by at most ⌈P / n⌉ weeks (one week in every cell of the bundled
//!   pool, where n ≥ P).
//! * The cycle is `P = weeks_out + A` weeks, with `A = round(1 / rate)` active weeks (the
//!   default 5 % and 12 weeks give 12 + 20 = 32). The task at rank `i` of `n` has the phase
//!   `floor(i × P / n)`, so every phase holds `floor(n / P)` or `ceil(n / P)` tasks.
//! * The week index `t` counts weeks since [`EPOCH_WEEK`] (2026-W01; negative before it). A
//!   task is retired in week `t` iff `(t − phase) mod P < weeks_out`: it is out for exactly
//!   `weeks_out` consecutive weeks, then active for `A` weeks, and so on.
//! * Each week the tasks of one phase retire: n / P (within one task) of the cell, which is
//!   1 / A of its ≈ n · A / P active tasks. The effective rate is therefore `1 / round(1 /
//!   rate)`: exactly the rate for 5 % (1/20), 1/3 for a rate of 0.3. As many tasks come back
//!   (those that retired `weeks_out` weeks before), so every cell's active count stays
//!   within one task of n · A / P, which is what lets every week's sample fit.
//! * What went out and came in during week W is the comparison of W with the week before. A
//!   task that goes out in W is back in W + weeks_out, never sooner, and never in W + 1
//!   (the bug this replaced: the manual `pool rotate` brought 285 of W51's 296 retirees back
//!   in W52).
//!
//! Within a pool the guarantees are exact. When the pool's tasks change (a re-import), the
//! ranks, and so the phases, of a cell's other tasks can move by ⌈P / n⌉ weeks per task
//! added or removed; a series bump ([`Pool::series`]) draws a new panel, which changes the
//! rotating tasks of every cell, so the schedule starts afresh with the new series.

use std::collections::{BTreeMap, BTreeSet};

use passrate_schema::{Category, ManifestItem, RotationUsed, Task, Tier};
use serde::Serialize;

use crate::error::SampleError;
use crate::panel::drift_panel;
use crate::sample::{SampleConfig, parse_week};
use crate::storage::Pool;

/// The first week of the rotation's calendar (index 0). Any fixed week would do; changing it
/// shifts every task's schedule.
pub const EPOCH_WEEK: &str = "2026-W01";
/// Default share of the active tasks that retires each week.
pub const DEFAULT_RATE: f64 = 0.05;
/// Default number of weeks a retired task stays out.
pub const DEFAULT_WEEKS_OUT: u32 = 12;

/// How the active set rotates from week to week.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RotationConfig {
    /// Share of the active tasks that retires each week, in (0, 0.5]; the schedule uses
    /// `1 / round(1 / rate)` (see the module docs).
    pub rate: f64,
    /// A retired task stays out of the sample for exactly this many weeks (at least 1).
    pub weeks_out: u32,
}

impl Default for RotationConfig {
    fn default() -> Self {
        RotationConfig {
            rate: DEFAULT_RATE,
            weeks_out: DEFAULT_WEEKS_OUT,
        }
    }
}

impl RotationConfig {
    /// Rejects a rate outside (0, 0.5] (NaN included) and `weeks_out` of 0.
    pub fn validate(&self) -> Result<(), SampleError> {
        if !(self.rate > 0.0 && self.rate <= 0.5) {
            return Err(SampleError::Config(format!(
                "rotation rate must be in (0, 0.5], got {}",
                self.rate
            )));
        }
        if self.weeks_out == 0 {
            return Err(SampleError::Config(
                "a retired task must stay out at least 1 week (weeks_out is 0)".into(),
            ));
        }
        Ok(())
    }

    /// Weeks a task is active per cycle: `round(1 / rate)`, at least 2 for a valid rate.
    pub fn active_weeks(&self) -> u32 {
        (1.0 / self.rate).round() as u32
    }

    /// Length of the cycle in weeks: `weeks_out + active_weeks`.
    pub fn cycle_weeks(&self) -> u64 {
        u64::from(self.weeks_out) + u64::from(self.active_weeks())
    }
}

/// Where a task stands in a week.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The week's sample may draw it.
    Active,
    /// Out of the sample this week by rotation.
    Retired,
    /// On the drift panel: asked every week beside the sample, never in it.
    Panel,
}

/// The Monday of an ISO week.
fn monday(week: &str) -> Result<time::Date, SampleError> {
    let canonical = parse_week(week)?;
    let (year, number) = canonical
        .split_once("-W")
        .expect("parse_week returns YYYY-Www");
    let bad = || SampleError::InvalidWeek(week.to_owned());
    time::Date::from_iso_week_date(
        year.parse().map_err(|_| bad())?,
        number.parse().map_err(|_| bad())?,
        time::Weekday::Monday,
    )
    .map_err(|_| bad())
}

/// Weeks from [`EPOCH_WEEK`] to `week` (negative before it).
pub fn week_index(week: &str) -> Result<i64, SampleError> {
    let days = monday(week)?.to_julian_day() - monday(EPOCH_WEEK)?.to_julian_day();
    Ok(i64::from(days).div_euclid(7))
}

/// The ISO week `delta` weeks after `week` (before it when negative), in canonical form.
pub fn week_offset(week: &str, delta: i64) -> Result<String, SampleError> {
    let out_of_range = || SampleError::InvalidWeek(format!("{week} + {delta} weeks"));
    let days = delta.checked_mul(7).ok_or_else(out_of_range)?;
    let date = monday(week)?
        .checked_add(time::Duration::days(days))
        .ok_or_else(out_of_range)?;
    Ok(crate::sample::iso_week_of(date))
}

fn rotation_key() -> [u8; 32] {
    *blake3::hash(b"passrate-pool/rotation/1").as_bytes()
}

/// A pool's rotation schedule under one configuration: the drift panel and every other
/// task's phase. Building it costs one keyed hash per task; asking it about a week is a
/// comparison per task.
#[derive(Clone, Debug)]
pub struct Schedule<'p> {
    pool: &'p Pool,
    rotation: RotationConfig,
    panel: Vec<ManifestItem>,
    /// By index into `pool.tasks()`: the task's phase, `None` for panel tasks.
    phases: Vec<Option<u64>>,
}

impl<'p> Schedule<'p> {
    /// Validates the rotation, draws the drift panel (`config.panel_size`, the config's
    /// shares) and ranks every other task of each cell.
    pub fn new(pool: &'p Pool, config: &SampleConfig) -> Result<Schedule<'p>, SampleError> {
        config.rotation.validate()?;
        let panel = drift_panel(pool, config.panel_size, config)?;
        let on_panel: BTreeSet<&str> = panel.iter().map(|i| i.task.as_str()).collect();
        let key = rotation_key();
        let tasks = pool.tasks();
        // Per cell: (index into `tasks`, rank key) of each rotating task.
        type Ranked = Vec<(usize, [u8; 32])>;
        let mut cells: BTreeMap<(Category, Tier), Ranked> = BTreeMap::new();
        for (i, task) in tasks.iter().enumerate() {
            if !on_panel.contains(task.id.as_str()) {
                cells
                    .entry((task.category, task.tier))
                    .or_default()
                    .push((i, *blake3::keyed_hash(&key, task.id.as_bytes()).as_bytes()));
            }
        }
        let cycle = config.rotation.cycle_weeks();
        let mut phases = vec![None; tasks.len()];
        for mut ranked in cells.into_values() {
            ranked.sort_by(|a, b| {
                a.1.cmp(&b.1)
                    .then_with(|| tasks[a.0].id.cmp(&tasks[b.0].id))
            });
            let n = ranked.len() as u64;
            for (rank, (i, _)) in ranked.into_iter().enumerate() {
                phases[i] = Some(rank as u64 * cycle / n);
            }
        }
        Ok(Schedule {
            pool,
            rotation: config.rotation,
            panel,
            phases,
        })
    }

    pub fn pool(&self) -> &'p Pool {
        self.pool
    }

    pub fn config(&self) -> RotationConfig {
        self.rotation
    }

    /// The drift panel, in the order [`crate::drift_panel`] gives.
    pub fn panel(&self) -> &[ManifestItem] {
        &self.panel
    }

    /// The rotation phase of a task (0 ≤ phase < cycle), `None` for panel and unknown tasks.
    pub fn phase(&self, id: &str) -> Option<u64> {
        self.index_of(id).and_then(|i| self.phases[i])
    }

    fn index_of(&self, id: &str) -> Option<usize> {
        self.pool
            .tasks()
            .binary_search_by(|t| t.id.as_str().cmp(id))
            .ok()
    }

    fn status_at(&self, i: usize, t: i64) -> Status {
        match self.phases[i] {
            None => Status::Panel,
            Some(phase) => {
                // Cycle and phase are below 2^33: the i64 arithmetic cannot overflow for any
                // week the calendar can name.
                let cycle = self.rotation.cycle_weeks() as i64;
                if (t - phase as i64).rem_euclid(cycle) < i64::from(self.rotation.weeks_out) {
                    Status::Retired
                } else {
                    Status::Active
                }
            }
        }
    }

    /// Where task `id` stands in `week`; `None` when the pool has no such task.
    pub fn status(&self, id: &str, week: &str) -> Result<Option<Status>, SampleError> {
        let t = week_index(week)?;
        Ok(self.index_of(id).map(|i| self.status_at(i, t)))
    }

    /// Every task's status in `week`, in the order of `pool.tasks()`.
    pub fn statuses(&self, week: &str) -> Result<Vec<Status>, SampleError> {
        let t = week_index(week)?;
        Ok((0..self.phases.len())
            .map(|i| self.status_at(i, t))
            .collect())
    }

    /// The tasks `week`'s sample may draw from, sorted by id: the pool less the panel and
    /// the tasks retired that week.
    pub fn active_tasks(&self, week: &str) -> Result<Vec<&'p Task>, SampleError> {
        self.with_status(week, Status::Active)
    }

    /// The tasks out of `week`'s sample by rotation, sorted by id.
    pub fn retired_tasks(&self, week: &str) -> Result<Vec<&'p Task>, SampleError> {
        self.with_status(week, Status::Retired)
    }

    fn with_status(&self, week: &str, status: Status) -> Result<Vec<&'p Task>, SampleError> {
        let t = week_index(week)?;
        Ok(self
            .pool
            .tasks()
            .iter()
            .enumerate()
            .filter(|(i, _)| self.status_at(*i, t) == status)
            .map(|(_, task)| task)
            .collect())
    }

    /// The week's rotation: counts, and what changed since the week before.
    pub fn rotation(&self, week: &str) -> Result<RotationUsed, SampleError> {
        let t = week_index(week)?;
        let mut used = RotationUsed {
            rate: self.rotation.rate,
            weeks_out: self.rotation.weeks_out,
            active_tasks: 0,
            retired_tasks: 0,
            went_out: Vec::new(),
            came_in: Vec::new(),
        };
        // Tasks are sorted by id, so both lists come out sorted.
        for (i, task) in self.pool.tasks().iter().enumerate() {
            let now = self.status_at(i, t);
            match now {
                Status::Active => used.active_tasks += 1,
                Status::Retired => used.retired_tasks += 1,
                Status::Panel => continue,
            }
            match (self.status_at(i, t - 1), now) {
                (Status::Active, Status::Retired) => used.went_out.push(task.id.clone()),
                (Status::Retired, Status::Active) => used.came_in.push(task.id.clone()),
                _ => {}
            }
        }
        Ok(used)
    }
}

/// A week's rotation as `passrate pool rotation` shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WeekRotation {
    /// Canonical ISO week.
    pub week: String,
    pub pool_version: String,
    pub series: u32,
    /// Tasks on the drift panel (neither active nor retired).
    pub panel_tasks: u32,
    #[serde(flatten)]
    pub rotation: RotationUsed,
}

/// The rotation of `week` under `config` (its rotation, panel size and shares: the panel is
/// not rotated, so it takes part in which tasks rotate).
pub fn rotation(
    pool: &Pool,
    week: &str,
    config: &SampleConfig,
) -> Result<WeekRotation, SampleError> {
    let week = parse_week(week)?;
    let schedule = Schedule::new(pool, config)?;
    Ok(WeekRotation {
        rotation: schedule.rotation(&week)?,
        panel_tasks: schedule.panel().len() as u32,
        series: pool.series(),
        pool_version: pool.version().0,
        week,
    })
}
