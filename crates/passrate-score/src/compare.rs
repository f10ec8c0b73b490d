//! Comparing models: paired bootstrap difference on shared tasks, tie flags, leaderboard order.

use passrate_schema::Estimate;
use serde::{Deserialize, Serialize};

use crate::bootstrap::Interval;
use crate::rng::ResampleRng;
use crate::score::Scorer;
use crate::tally::{ModelOutcomes, TaskTally};

/// A model as the leaderboard sees it: its per-task results (for paired resampling) and its
/// headline estimate (as shown, with its own interval).
#[derive(Clone, Copy, Debug)]
pub struct Contender<'a> {
    pub outcomes: &'a ModelOutcomes,
    pub overall: Estimate,
}

/// Model `a` against model `b`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairComparison {
    pub a: String,
    pub b: String,
    /// Tasks (task id and language) both models have a scored result for.
    pub shared_tasks: u32,
    /// score(a) − score(b) on the shared tasks, with its paired bootstrap interval; `None`
    /// when the models share no task.
    pub difference: Option<Interval>,
    /// Either model's score lies inside the other's interval (the leaderboard cannot order
    /// them by what it shows).
    pub within_intervals: bool,
    /// The two shown scores are within `tie_margin` of each other.
    pub within_margin: bool,
    /// `within_intervals || within_margin`: shown as a tie.
    pub tied: bool,
    /// The paired interval excludes 0: the order is supported on the shared tasks.
    pub significant: bool,
}

/// One leaderboard line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardRow {
    /// 1-based position; ties are not merged into one rank, they are flagged on the pair.
    pub rank: u32,
    pub model: String,
    pub overall: Estimate,
    /// This model against the next one down; `None` on the last row.
    pub vs_next: Option<PairComparison>,
}

impl Scorer {
    /// Compares two models. The paired resamples are seeded from the run seed and the two
    /// model ids in sorted order, so `compare(b, a)` is exactly the negation of
    /// `compare(a, b)`.
    pub fn compare(
        &mut self,
        run_seed: &str,
        a: Contender<'_>,
        b: Contender<'_>,
    ) -> PairComparison {
        let (first, second, swapped) = if a.outcomes.model <= b.outcomes.model {
            (a.outcomes, b.outcomes, false)
        } else {
            (b.outcomes, a.outcomes, true)
        };
        let stratify = self.config.bootstrap.stratify;
        self.resampler.clear();
        let mut shared = 0u32;
        for (x, y) in shared_tasks(&first.tasks, &second.tasks) {
            shared += 1;
            self.resampler.push(
                stratify,
                x.category,
                x.tier,
                (x.passes, x.samples),
                (y.passes, y.samples),
            );
        }
        let difference = (shared > 0).then(|| {
            let mut rng =
                ResampleRng::for_estimate(run_seed, &["paired", &first.model, &second.model]);
            let d = self.resampler.paired(&mut rng, &self.config.bootstrap);
            if swapped {
                Interval {
                    point: -d.point,
                    low: -d.high,
                    high: -d.low,
                }
            } else {
                d
            }
        });

        let (sa, sb) = (&a.overall, &b.overall);
        let inside = |score: f64, e: &Estimate| e.ci_low <= score && score <= e.ci_high;
        let within_intervals = inside(sa.score, sb) || inside(sb.score, sa);
        // The epsilon keeps an exact 2-point gap (0.50 vs 0.48) on the tied side despite
        // rounding in the subtraction.
        let within_margin = (sa.score - sb.score).abs() <= self.config.tie_margin + 1e-9;
        let significant = difference.is_some_and(|d| d.low > 0.0 || d.high < 0.0);
        PairComparison {
            a: a.outcomes.model.clone(),
            b: b.outcomes.model.clone(),
            shared_tasks: shared,
            difference,
            within_intervals,
            within_margin,
            tied: within_intervals || within_margin,
            significant,
        }
    }

    /// Orders models best first (score, then lower bound, then model id, so the order is total
    /// and reproducible) and compares each with the next one down.
    pub fn leaderboard(
        &mut self,
        run_seed: &str,
        contenders: &[Contender<'_>],
    ) -> Vec<LeaderboardRow> {
        let mut order: Vec<&Contender<'_>> = contenders.iter().collect();
        order.sort_by(|x, y| {
            y.overall
                .score
                .total_cmp(&x.overall.score)
                .then(y.overall.ci_low.total_cmp(&x.overall.ci_low))
                .then_with(|| x.outcomes.model.cmp(&y.outcomes.model))
        });
        let mut rows = Vec::with_capacity(order.len());
        for (i, c) in order.iter().enumerate() {
            let vs_next = order
                .get(i + 1)
                .map(|next| self.compare(run_seed, **c, **next));
            rows.push(LeaderboardRow {
                rank: i as u32 + 1,
                model: c.outcomes.model.clone(),
                overall: c.overall,
                vs_next,
            });
        }
        rows
    }
}

/// Tasks present in both sorted tallies, matched by (task id, language).
pub(crate) fn shared_tasks<'a>(
    a: &'a [TaskTally],
    b: &'a [TaskTally],
) -> impl Iterator<Item = (&'a TaskTally, &'a TaskTally)> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        while i < a.len() && j < b.len() {
            let ka = (a[i].task.as_str(), a[i].language);
            let kb = (b[j].task.as_str(), b[j].language);
            match ka.cmp(&kb) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let pair = (&a[i], &b[j]);
                    i += 1;
                    j += 1;
                    return Some(pair);
                }
            }
        }
        None
    })
}
