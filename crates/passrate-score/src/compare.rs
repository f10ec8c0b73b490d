//! Comparing models: paired cluster-bootstrap difference on shared tasks, tie flags, and the
//! leaderboard (order, rank intervals, tie groups).

use passrate_schema::Estimate;
use serde::{Deserialize, Serialize};

use crate::bootstrap::{Interval, number_families};
use crate::rank::{rank_intervals, tie_groups};
use crate::rng::ResampleRng;
use crate::score::{Scorer, Scratch};
use crate::tally::{ModelOutcomes, TaskTally};

/// A model as the leaderboard sees it: its per-task results (for paired resampling) and its
/// headline estimate (as shown, with its own interval).
#[derive(Clone, Copy, Debug)]
pub struct Contender<'a> {
    pub outcomes: &'a ModelOutcomes,
    pub overall: Estimate,
}

/// Model `a` against model `b`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairComparison {
    pub a: String,
    pub b: String,
    /// Tasks (task id and language) both models have a scored result for.
    pub shared_tasks: u32,
    /// score(a) − score(b) on the shared tasks, with its paired bootstrap interval (both
    /// models drawn on the same families, on their shared tasks); `None` when the models
    /// share no task.
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
    /// 1-based position in the board's order; its uncertainty is `rank_low..=rank_high`.
    pub rank: u32,
    pub model: String,
    pub overall: Estimate,
    /// The model's rank interval over family resamples (rank 1 = best; models with equal
    /// resampled scores share the best rank): the lower and upper percentile the bootstrap's
    /// confidence names, e.g. [2.5%, 97.5%]. See `rank`.
    pub rank_low: u32,
    pub rank_high: u32,
    /// Models whose rank intervals overlap, directly or through others, share a group;
    /// groups are numbered 1, 2, … down the board. A singleton group is a model the
    /// bootstrap places apart from all others.
    pub tie_group: u32,
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
        // The shared tasks are numbered into families by the first model's labels (a task's
        // family follows from its id, so both models normally agree).
        let Scratch {
            order,
            ids,
            shared: pairs,
        } = &mut self.scratch;
        pairs.clear();
        pairs.extend(shared_indices(&first.tasks, &second.tasks));
        number_families(
            pairs.len(),
            |k| first.tasks[pairs[k].0 as usize].family.as_str(),
            order,
            ids,
        );
        self.resampler.clear();
        for (&(i, j), &family) in pairs.iter().zip(ids.iter()) {
            let (x, y) = (&first.tasks[i as usize], &second.tasks[j as usize]);
            self.resampler.push(
                family,
                stratify,
                x.category,
                x.tier,
                (x.passes, x.samples),
                (y.passes, y.samples),
            );
        }
        let shared = pairs.len() as u32;
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
    /// and reproducible), compares each with the next one down, and gives each its rank
    /// interval and tie group from `resamples` family resamples shared by all models (seeded
    /// from the run seed alone, so the draws do not depend on who is on the board).
    ///
    /// Pass only models that are ranked together: the rank interval assumes the contenders
    /// answered the same sample (see `rank`); the engine puts partial coverage and controls in
    /// sections of their own.
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
        let mut rng = ResampleRng::for_estimate(run_seed, &["leaderboard ranks"]);
        let intervals = rank_intervals(&mut self.ranks, &mut rng, &self.config.bootstrap, &order);
        let groups = tie_groups(&intervals);
        let mut rows = Vec::with_capacity(order.len());
        for (i, c) in order.iter().enumerate() {
            let vs_next = order
                .get(i + 1)
                .map(|next| self.compare(run_seed, **c, **next));
            rows.push(LeaderboardRow {
                rank: i as u32 + 1,
                model: c.outcomes.model.clone(),
                overall: c.overall,
                rank_low: intervals[i].0,
                rank_high: intervals[i].1,
                tie_group: groups[i],
                vs_next,
            });
        }
        rows
    }
}

/// Indices of the tasks present in both sorted tallies, matched by (task id, language).
pub(crate) fn shared_indices<'a>(
    a: &'a [TaskTally],
    b: &'a [TaskTally],
) -> impl Iterator<Item = (u32, u32)> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        while i < a.len() && j < b.len() {
            let ka = (a[i].task.as_str(), a[i].language);
            let kb = (b[j].task.as_str(), b[j].language);
            match ka.cmp(&kb) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    let pair = (i as u32, j as u32);
                    i += 1;
                    j += 1;
                    return Some(pair);
                }
            }
        }
        None
    })
}

/// Tasks present in both sorted tallies, matched by (task id, language).
pub(crate) fn shared_tasks<'a>(
    a: &'a [TaskTally],
    b: &'a [TaskTally],
) -> impl Iterator<Item = (&'a TaskTally, &'a TaskTally)> + 'a {
    shared_indices(a, b).map(|(i, j)| (&a[i as usize], &b[j as usize]))
}
