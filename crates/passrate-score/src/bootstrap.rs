//! Percentile bootstrap over tasks (plain, stratified, paired), allocation-free once warm.
//!
//! Every task contributes a numerator (passing samples) and a denominator (scored samples);
//! a resample draws tasks with replacement and its statistic is Σnum / Σden, which is
//! passes / tasks when each task has one sample. Which tasks are drawn depends only on the
//! generator and on the stratum sizes, never on the values: so flipping a task from fail to
//! pass can only raise every resample, and two models resampled with the same seed see the
//! same tasks (the paired difference).

use passrate_schema::{Category, Tier};
use serde::{Deserialize, Serialize};

use crate::error::ScoreError;
use crate::rng::ResampleRng;

/// How tasks are grouped before resampling. Stratified resampling draws, within each group,
/// as many tasks as the group has, mirroring a sample whose cell sizes were fixed by design
/// (the weekly manifest fixes tier × category cells); plain resampling draws from all tasks.
/// A stratum of one task contributes no variance, so stratify only where strata hold several
/// tasks (at 400 tasks, cells hold about 8–23).
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

const MAX_STRATA: usize = Category::ALL.len() * Tier::ALL.len();

impl Stratify {
    fn stratum(self, category: Category, tier: Tier) -> usize {
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
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub point: f64,
    pub low: f64,
    pub high: f64,
}

/// Reusable buffers for resampling; a `Scorer` owns one and feeds it every estimate, so after
/// the first few estimates nothing is allocated.
#[derive(Debug, Default)]
pub(crate) struct Resampler {
    staged: Vec<(usize, [u32; 4])>,
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

    /// Adds one task: `a` is (numerator, denominator) of the first (or only) model, `b` that
    /// of the second model for a paired difference (ignored otherwise).
    pub(crate) fn push(
        &mut self,
        stratify: Stratify,
        category: Category,
        tier: Tier,
        a: (u32, u32),
        b: (u32, u32),
    ) {
        let stratum = stratify.stratum(category, tier);
        self.staged.push((stratum, [a.0, a.1, b.0, b.1]));
    }

    /// Lays the staged tasks out stratum by stratum (stable: input order within a stratum),
    /// by counting rather than sorting so that nothing is allocated.
    fn arrange(&mut self) {
        let mut counts = [0usize; MAX_STRATA + 1];
        for &(s, _) in &self.staged {
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
        let n = self.staged.len();
        for column in &mut self.columns {
            column.clear();
            column.resize(n, 0);
        }
        let mut next = counts;
        for &(s, values) in &self.staged {
            let at = next[s];
            next[s] += 1;
            for (column, value) in self.columns.iter_mut().zip(values) {
                column[at] = value;
            }
        }
    }

    /// Percentile interval of Σnum / Σden over the staged tasks (first model).
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
        // With equal denominators (the usual one sample per task) Σden is the same for every
        // resample: skip summing it.
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
    /// the same resampled tasks.
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

fn ratio(num: u64, den: u64) -> f64 {
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
        for (c, t, v) in cells {
            r.push(Stratify::Category, c, t, (v, 1), (0, 1));
        }
        r.arrange();
        assert_eq!(r.columns[0], [2, 4, 1, 3]);
        assert_eq!(r.bounds, [0, 2, 4]);
    }

    #[test]
    fn a_constant_sample_has_a_degenerate_interval() {
        let mut r = Resampler::new();
        r.clear();
        for _ in 0..50 {
            r.push(
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
