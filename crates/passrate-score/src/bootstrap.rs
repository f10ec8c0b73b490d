//! Percentile cluster bootstrap over task families (plain, stratified, paired),
//! allocation-free once warm.
//!
//! Every task contributes a numerator (passing samples) and a denominator (scored samples).
//! Tasks of one family (one source problem across its categories and languages: the
//! completion, fix, translations and tests built from `humaneval/96`) succeed or fail
//! together, so they are not independent draws: a resample draws *families* with replacement,
//! as many as the estimate has, and its statistic is Σnum / Σden over every task of the drawn
//! families (passes / tasks when each task has one sample). Resampling tasks as if independent
//! would understate the variance by the design effect `1 + (m − 1)ρ` (m: size-weighted mean
//! family size, ρ: within-family correlation); `tests/coverage.rs` measures both.
//!
//! An estimate's families are the families that have tasks in it, carrying only those tasks
//! (a category subscore resamples the families with a task in that category, with only those
//! tasks). Families are laid out in order of first appearance among the estimate's tasks,
//! which are in (task id, language) order; so when every task is its own family the families
//! are the tasks in the same order, the generator's draws pick the same tasks, and every
//! interval equals the task bootstrap's bit for bit.
//!
//! Which families are drawn depends only on the generator and on the stratum sizes, never on
//! the values: so flipping a task from fail to pass can only raise every resample, and two
//! models resampled with the same seed see the same families (the paired difference).

use passrate_schema::{Category, Tier};
use serde::{Deserialize, Serialize};

use crate::error::ScoreError;
use crate::rng::ResampleRng;

/// How families are grouped before resampling. Stratified resampling draws, within each
/// group, as many families as the group has, mirroring a sample whose cell sizes were fixed by
/// design (the weekly manifest fixes tier × category cells); plain resampling draws from all
/// families. A stratum of one family contributes no variance, so stratify only where strata
/// hold several families (at 400 tasks, cells hold about 8–23 tasks).
///
/// A family can span strata (its completion task is tier 1, its bug fix tier 2). It is placed
/// whole in the stratum of its first task in (task id, language) order, rather than split:
/// splitting would resample a family's parts independently, which is the very independence
/// the cluster bootstrap exists to avoid, and dropping stratification would make `Category`,
/// `Tier` and `Cell` silently mean `None`. The first task is a rule of the task ids alone
/// (never of results), it reduces to today's task stratum when families are single tasks,
/// and a stratum's family count is then fixed across resamples as the design's cell counts
/// are; its task count may vary with the families that reach into other strata, so
/// stratification then removes somewhat less variance than it would with single-task
/// families. `None` stays the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stratify {
    /// Plain bootstrap: resample among all the estimate's tasks.
    #[default]
    None,
    Category,
    Tier,
    /// Tier × category cells, as the weekly sampler allocates them.
    Cell,
}

pub(crate) const MAX_STRATA: usize = Category::ALL.len() * Tier::ALL.len();

impl Stratify {
    pub(crate) fn stratum(self, category: Category, tier: Tier) -> usize {
        // Positions in the schema's `ALL` lists; they only decide grouping and order.
        let c = Category::ALL
            .iter()
            .position(|&x| x == category)
            .unwrap_or(0);
        let t = Tier::ALL.iter().position(|&x| x == tier).unwrap_or(0);
        match self {
            Stratify::None => 0,
            Stratify::Category => c,
            Stratify::Tier => t,
            Stratify::Cell => c * Tier::ALL.len() + t,
        }
    }
}

/// Resampling settings shared by every interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bootstrap {
    /// Number of resamples (DESIGN: 1,000).
    pub resamples: u32,
    /// Two-sided confidence level, e.g. 0.95.
    pub confidence: f64,
    pub stratify: Stratify,
}

impl Default for Bootstrap {
    fn default() -> Self {
        Bootstrap {
            resamples: 1_000,
            confidence: 0.95,
            stratify: Stratify::None,
        }
    }
}

impl Bootstrap {
    pub fn validate(&self) -> Result<(), ScoreError> {
        if self.resamples == 0 {
            return Err(ScoreError::InvalidConfig(
                "resamples must be at least 1".into(),
            ));
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(ScoreError::InvalidConfig(format!(
                "confidence must be strictly between 0 and 1, got {}",
                self.confidence
            )));
        }
        Ok(())
    }

    /// Index of the lower bound among the sorted resample statistics; the upper bound is the
    /// same distance from the top. With 1,000 resamples at 95%: the 26th smallest (index 25)
    /// and the 26th largest (index 974), leaving 25 resamples outside on each side.
    pub fn tail_index(&self) -> usize {
        let tail = f64::from(self.resamples) * (1.0 - self.confidence) / 2.0;
        // The epsilon absorbs representation error (1 - 0.95 is 0.050000000000000044).
        let k = (tail + 1e-9).floor() as usize;
        k.min((self.resamples as usize - 1) / 2)
    }
}

/// A point estimate with its percentile interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Interval {
    pub point: f64,
    pub low: f64,
    pub high: f64,
}

/// Numbers the families of `n` tasks 0, 1, … in order of first appearance (task `i`'s family
/// is `name(i)`), writing task `i`'s number to `ids[i]`; returns the number of families.
/// `order` is scratch space. Sorting indices (unstable, so nothing is allocated) groups equal
/// names; the lowest index of each group is its first appearance.
pub(crate) fn number_families<'a>(
    n: usize,
    name: impl Fn(usize) -> &'a str,
    order: &mut Vec<u32>,
    ids: &mut Vec<u32>,
) -> u32 {
    order.clear();
    order.extend(0..n as u32);
    order.sort_unstable_by(|&a, &b| name(a as usize).cmp(name(b as usize)).then(a.cmp(&b)));
    ids.clear();
    ids.resize(n, 0);
    // First label every task with the index of its family's first task…
    for group in order.chunk_by(|&a, &b| name(a as usize) == name(b as usize)) {
        for &i in group {
            ids[i as usize] = group[0];
        }
    }
    // …then renumber those first tasks in index order. A later task's first task has a lower
    // index, so it has already been renumbered when the later task is reached.
    let mut next = 0;
    for i in 0..n {
        let first = ids[i] as usize;
        ids[i] = if first == i {
            next += 1;
            next - 1
        } else {
            ids[first]
        };
    }
    next
}

/// Reusable buffers for resampling; a `Scorer` owns one and feeds it every estimate, so after
/// the first few estimates nothing is allocated.
#[derive(Debug, Default)]
pub(crate) struct Resampler {
    /// Staged tasks: (family number, stratum, values).
    staged: Vec<(u32, usize, [u32; 4])>,
    /// Family number → its position in `families` (`u32::MAX`: not seen yet).
    slot: Vec<u32>,
    /// One entry per family, in order of first appearance: (stratum of its first task, sums
    /// of its tasks' values).
    families: Vec<(usize, [u32; 4])>,
    columns: [Vec<u32>; 4],
    bounds: Vec<usize>,
    stats: Vec<f64>,
}

impl Resampler {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Starts a new estimate.
    pub(crate) fn clear(&mut self) {
        self.staged.clear();
    }

    /// Adds one task of family `family` (a number from `number_families`): `a` is (numerator,
    /// denominator) of the first (or only) model, `b` that of the second model for a paired
    /// difference (ignored otherwise).
    pub(crate) fn push(
        &mut self,
        family: u32,
        stratify: Stratify,
        category: Category,
        tier: Tier,
        a: (u32, u32),
        b: (u32, u32),
    ) {
        let stratum = stratify.stratum(category, tier);
        self.staged.push((family, stratum, [a.0, a.1, b.0, b.1]));
    }

    /// Sums the staged tasks family by family, families in order of first appearance, each
    /// in the stratum of its first task. With one task per family this is the staged list
    /// itself, unchanged: the resamples then draw exactly what the task bootstrap drew.
    fn group(&mut self) {
        let width = self
            .staged
            .iter()
            .map(|s| s.0 as usize + 1)
            .max()
            .unwrap_or(0);
        self.slot.clear();
        self.slot.resize(width, u32::MAX);
        self.families.clear();
        for &(family, stratum, values) in &self.staged {
            let slot = &mut self.slot[family as usize];
            if *slot == u32::MAX {
                *slot = self.families.len() as u32;
                self.families.push((stratum, values));
            } else {
                let sums = &mut self.families[*slot as usize].1;
                for (sum, value) in sums.iter_mut().zip(values) {
                    *sum += value;
                }
            }
        }
    }

    /// Groups the staged tasks into families, then lays the families out stratum by stratum
    /// (stable: first-appearance order within a stratum), by counting rather than sorting so
    /// that nothing is allocated.
    fn arrange(&mut self) {
        self.group();
        let mut counts = [0usize; MAX_STRATA + 1];
        for &(s, _) in &self.families {
            counts[s + 1] += 1;
        }
        for s in 0..MAX_STRATA {
            counts[s + 1] += counts[s];
        }
        self.bounds.clear();
        self.bounds.push(0);
        for s in 0..MAX_STRATA {
            if counts[s + 1] > counts[s] {
                self.bounds.push(counts[s + 1]);
            }
        }
        let n = self.families.len();
        for column in &mut self.columns {
            column.clear();
            column.resize(n, 0);
        }
        let mut next = counts;
        for &(s, values) in &self.families {
            let at = next[s];
            next[s] += 1;
            for (column, value) in self.columns.iter_mut().zip(values) {
                column[at] = value;
            }
        }
    }

    /// Percentile interval of Σnum / Σden over the staged tasks (first model), resampling
    /// families.
    pub(crate) fn single(&mut self, rng: &mut ResampleRng, config: &Bootstrap) -> Interval {
        if self.staged.is_empty() {
            return Interval {
                point: 0.0,
                low: 0.0,
                high: 0.0,
            };
        }
        self.arrange();
        let [num, den, _, _] = &self.columns;
        let point = ratio(sum(num), sum(den));
        // With equal denominators (one sample per task and one task per family) Σden is the
        // same for every resample: skip summing it.
        let uniform = den.iter().all(|&d| d == den[0]);
        let fixed_den = den[0] as u64 * num.len() as u64;
        self.stats.clear();
        for _ in 0..config.resamples {
            let (mut sn, mut sd) = (0u64, 0u64);
            for w in self.bounds.windows(2) {
                let (num, den) = (&num[w[0]..w[1]], &den[w[0]..w[1]]);
                let len = num.len() as u32;
                if uniform {
                    for _ in 0..len {
                        sn += u64::from(num[rng.below(len) as usize]);
                    }
                } else {
                    for _ in 0..len {
                        let i = rng.below(len) as usize;
                        sn += u64::from(num[i]);
                        sd += u64::from(den[i]);
                    }
                }
            }
            self.stats
                .push(ratio(sn, if uniform { fixed_den } else { sd }));
        }
        let (low, high) = percentile(&mut self.stats, config);
        Interval { point, low, high }
    }

    /// Percentile interval of (Σnum_a / Σden_a) − (Σnum_b / Σden_b), both models drawn on
    /// the same resampled families.
    pub(crate) fn paired(&mut self, rng: &mut ResampleRng, config: &Bootstrap) -> Interval {
        if self.staged.is_empty() {
            return Interval {
                point: 0.0,
                low: 0.0,
                high: 0.0,
            };
        }
        self.arrange();
        let [na, da, nb, db] = &self.columns;
        let point = ratio(sum(na), sum(da)) - ratio(sum(nb), sum(db));
        self.stats.clear();
        for _ in 0..config.resamples {
            let mut s = [0u64; 4];
            for w in self.bounds.windows(2) {
                let r = w[0]..w[1];
                let (na, da, nb, db) = (&na[r.clone()], &da[r.clone()], &nb[r.clone()], &db[r]);
                let len = na.len() as u32;
                for _ in 0..len {
                    let i = rng.below(len) as usize;
                    s[0] += u64::from(na[i]);
                    s[1] += u64::from(da[i]);
                    s[2] += u64::from(nb[i]);
                    s[3] += u64::from(db[i]);
                }
            }
            self.stats.push(ratio(s[0], s[1]) - ratio(s[2], s[3]));
        }
        let (low, high) = percentile(&mut self.stats, config);
        Interval { point, low, high }
    }
}

fn sum(values: &[u32]) -> u64 {
    values.iter().map(|&v| u64::from(v)).sum()
}

pub(crate) fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// The two order statistics `tail_index` names; selection, not a full sort.
fn percentile(stats: &mut [f64], config: &Bootstrap) -> (f64, f64) {
    let k = config.tail_index();
    let top = stats.len() - 1 - k;
    let low = *stats.select_nth_unstable_by(k, f64::total_cmp).1;
    let high = *stats.select_nth_unstable_by(top, f64::total_cmp).1;
    (low, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_index_matches_the_documented_positions() {
        let b = |resamples, confidence| Bootstrap {
            resamples,
            confidence,
            stratify: Stratify::None,
        };
        assert_eq!(b(1_000, 0.95).tail_index(), 25);
        assert_eq!(b(1_000, 0.90).tail_index(), 50);
        assert_eq!(b(2_000, 0.99).tail_index(), 10);
        assert_eq!(b(10, 0.95).tail_index(), 0);
        assert_eq!(b(1, 0.01).tail_index(), 0);
    }

    #[test]
    fn invalid_settings_are_rejected() {
        let mut b = Bootstrap::default();
        assert!(b.validate().is_ok());
        b.confidence = 1.0;
        assert!(b.validate().is_err());
        b.confidence = f64::NAN;
        assert!(b.validate().is_err());
        b = Bootstrap {
            resamples: 0,
            ..Bootstrap::default()
        };
        assert!(b.validate().is_err());
    }

    #[test]
    fn strata_are_laid_out_contiguously_and_stably() {
        let mut r = Resampler::new();
        r.clear();
        let cells = [
            (Category::Refactoring, Tier::One, 1),
            (Category::BugFixing, Tier::Two, 2),
            (Category::Refactoring, Tier::Three, 3),
            (Category::BugFixing, Tier::One, 4),
        ];
        for (family, (c, t, v)) in cells.into_iter().enumerate() {
            r.push(family as u32, Stratify::Category, c, t, (v, 1), (0, 1));
        }
        r.arrange();
        assert_eq!(r.columns[0], [2, 4, 1, 3]);
        assert_eq!(r.bounds, [0, 2, 4]);
    }

    #[test]
    fn families_are_numbered_by_first_appearance() {
        let names = ["he/9", "mbpp/2", "he/9", "cls/1", "mbpp/2", "he/10"];
        let (mut order, mut ids) = (Vec::new(), Vec::new());
        let n = number_families(names.len(), |i| names[i], &mut order, &mut ids);
        assert_eq!(n, 4);
        assert_eq!(ids, [0, 1, 0, 2, 1, 3]);
        // Distinct names number 0, 1, 2, … in input order whatever their sort order.
        let distinct = ["z", "b", "y", "a"];
        number_families(4, |i| distinct[i], &mut order, &mut ids);
        assert_eq!(ids, [0, 1, 2, 3]);
    }

    #[test]
    fn a_family_is_summed_and_placed_in_its_first_tasks_stratum() {
        let mut r = Resampler::new();
        r.clear();
        // Family 7 spans both categories; its first task is a bug fix, so it is laid out
        // whole among the bug fixes, after family 3 which appeared before it.
        r.push(
            3,
            Stratify::Category,
            Category::BugFixing,
            Tier::One,
            (1, 1),
            (0, 1),
        );
        r.push(
            7,
            Stratify::Category,
            Category::BugFixing,
            Tier::One,
            (1, 2),
            (1, 1),
        );
        r.push(
            5,
            Stratify::Category,
            Category::Refactoring,
            Tier::One,
            (0, 1),
            (0, 1),
        );
        r.push(
            7,
            Stratify::Category,
            Category::Refactoring,
            Tier::Two,
            (2, 3),
            (0, 1),
        );
        r.arrange();
        assert_eq!(r.columns[0], [1, 3, 0]);
        assert_eq!(r.columns[1], [1, 5, 1]);
        assert_eq!(r.columns[2], [0, 1, 0]);
        assert_eq!(r.columns[3], [1, 2, 1]);
        assert_eq!(r.bounds, [0, 2, 3]);
        assert_eq!(r.families.len(), 3);
    }

    #[test]
    fn a_constant_sample_has_a_degenerate_interval() {
        let mut r = Resampler::new();
        r.clear();
        for family in 0..50 {
            r.push(
                family / 3,
                Stratify::None,
                Category::BugFixing,
                Tier::One,
                (1, 1),
                (0, 1),
            );
        }
        let mut rng = ResampleRng::from_seed([1; 32]);
        let i = r.single(&mut rng, &Bootstrap::default());
        assert_eq!((i.point, i.low, i.high), (1.0, 1.0, 1.0));
        let d = r.paired(&mut rng, &Bootstrap::default());
        assert_eq!((d.point, d.low, d.high), (1.0, 1.0, 1.0));
    }
}
