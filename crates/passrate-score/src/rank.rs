//! Rank intervals and tie groups for a leaderboard (as Chatbot Arena reports them): ranks
//! recomputed on bootstrap resamples of families, so a rank carries its uncertainty.
//!
//! Each resample draws families with replacement (the families of every contender's tasks,
//! as many as there are, stratified as `Bootstrap::stratify` says), the same draw for every
//! model, and scores each model as Σnum / Σden over its own tasks in the drawn families. The
//! models are ranked on those scores: rank 1 is the best, and models with equal scores share
//! the best of their ranks (1 + the number of models strictly ahead), so identical models get
//! identical ranks. A model's rank interval is the pair of order statistics of its ranks that
//! `Bootstrap::tail_index` names (the 26th smallest and largest of 1,000 at 95%). Models whose
//! intervals overlap, directly or through others, form one tie group.
//!
//! The rank interval assumes the contenders answered the same sample: a model scored on fewer
//! tasks is still ranked on every resample (0 where none of its tasks was drawn), so mixing
//! coverages would rank coverage, not skill. The engine decides which models are ranked
//! together and passes in only those.

use crate::bootstrap::{Bootstrap, MAX_STRATA, number_families, ratio};
use crate::compare::Contender;
use crate::rng::ResampleRng;

/// Reusable buffers for the rank bootstrap (owned by a `Scorer`).
#[derive(Debug, Default)]
pub(crate) struct RankScratch {
    /// Every (contender, task index) pair, sorted by (task id, language, contender).
    entries: Vec<(u32, u32)>,
    order: Vec<u32>,
    ids: Vec<u32>,
    /// Per family (rows) and contender (columns): summed passes and samples.
    num: Vec<u32>,
    den: Vec<u32>,
    /// Stratum of each family (that of its first task).
    strata: Vec<usize>,
    /// Families in stratum order, and the bounds of each stratum in it.
    layout: Vec<u32>,
    bounds: Vec<usize>,
    /// How many times each family was drawn in the current resample.
    drawn: Vec<u32>,
    sums: Vec<(u64, u64)>,
    scores: Vec<f64>,
    /// Rank of contender m in resample r at `m * resamples + r`.
    ranks: Vec<u32>,
}

/// Rank intervals of `contenders` (any order; the result is index for index), from
/// `config.resamples` family resamples drawn by `rng`.
pub(crate) fn rank_intervals(
    scratch: &mut RankScratch,
    rng: &mut ResampleRng,
    config: &Bootstrap,
    contenders: &[&Contender<'_>],
) -> Vec<(u32, u32)> {
    let models = contenders.len();
    if models == 0 {
        return Vec::new();
    }
    let RankScratch {
        entries,
        order,
        ids,
        num,
        den,
        strata,
        layout,
        bounds,
        drawn,
        sums,
        scores,
        ranks,
    } = scratch;
    let tally = |&(m, t): &(u32, u32)| &contenders[m as usize].outcomes.tasks[t as usize];

    // The families of all contenders, numbered in (task id, language) order so that the
    // layout depends on the tasks, not on the order the contenders are given in.
    entries.clear();
    for (m, c) in contenders.iter().enumerate() {
        entries.extend((0..c.outcomes.tasks.len() as u32).map(|t| (m as u32, t)));
    }
    entries.sort_unstable_by(|x, y| {
        let (a, b) = (tally(x), tally(y));
        (a.task.as_str(), a.language, x.0).cmp(&(b.task.as_str(), b.language, y.0))
    });
    let families = number_families(
        entries.len(),
        |k| tally(&entries[k]).family.as_str(),
        order,
        ids,
    ) as usize;
    num.clear();
    num.resize(families * models, 0);
    den.clear();
    den.resize(families * models, 0);
    strata.clear();
    for (entry, &f) in entries.iter().zip(ids.iter()) {
        let t = tally(entry);
        if f as usize == strata.len() {
            strata.push(config.stratify.stratum(t.category, t.tier));
        }
        let at = f as usize * models + entry.0 as usize;
        num[at] += t.passes;
        den[at] += t.samples;
    }

    // Families stratum by stratum, first-appearance order within each (as `Resampler`).
    let mut counts = [0usize; MAX_STRATA + 1];
    for &s in strata.iter() {
        counts[s + 1] += 1;
    }
    for s in 0..MAX_STRATA {
        counts[s + 1] += counts[s];
    }
    bounds.clear();
    bounds.push(0);
    for s in 0..MAX_STRATA {
        if counts[s + 1] > counts[s] {
            bounds.push(counts[s + 1]);
        }
    }
    layout.clear();
    layout.resize(families, 0);
    for (f, &s) in strata.iter().enumerate() {
        layout[counts[s]] = f as u32;
        counts[s] += 1;
    }

    let resamples = config.resamples as usize;
    ranks.clear();
    ranks.resize(models * resamples, 0);
    for r in 0..resamples {
        drawn.clear();
        drawn.resize(families, 0);
        for w in bounds.windows(2) {
            let len = (w[1] - w[0]) as u32;
            for _ in 0..len {
                drawn[layout[w[0] + rng.below(len) as usize] as usize] += 1;
            }
        }
        sums.clear();
        sums.resize(models, (0, 0));
        for (f, &times) in drawn.iter().enumerate() {
            if times == 0 {
                continue;
            }
            let times = u64::from(times);
            let row = f * models..(f + 1) * models;
            for ((sum, &n), &d) in sums.iter_mut().zip(&num[row.clone()]).zip(&den[row]) {
                sum.0 += times * u64::from(n);
                sum.1 += times * u64::from(d);
            }
        }
        scores.clear();
        scores.extend(sums.iter().map(|&(n, d)| ratio(n, d)));
        for (m, &score) in scores.iter().enumerate() {
            let ahead = scores.iter().filter(|&&other| other > score).count();
            ranks[m * resamples + r] = ahead as u32 + 1;
        }
    }

    let k = config.tail_index();
    ranks
        .chunks_mut(resamples)
        .map(|own| {
            let low = *own.select_nth_unstable(k).1;
            let high = *own.select_nth_unstable(resamples - 1 - k).1;
            (low, high)
        })
        .collect()
}

/// Tie groups over rank intervals given in board order: intervals that overlap, directly or
/// through a chain of others, share a group. Groups are numbered 1, 2, … in the board order
/// of their first member.
pub(crate) fn tie_groups(intervals: &[(u32, u32)]) -> Vec<u32> {
    // Union-find over the (few) contenders; every pair is checked, not only neighbours,
    // because an interval can reach past the next row.
    let mut parent: Vec<usize> = (0..intervals.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for i in 0..intervals.len() {
        for j in i + 1..intervals.len() {
            let ((li, hi), (lj, hj)) = (intervals[i], intervals[j]);
            if li <= hj && lj <= hi {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                // The lower index stays the root, so a group's root is its first member.
                parent[ri.max(rj)] = ri.min(rj);
            }
        }
    }
    let mut group = vec![0u32; intervals.len()];
    let mut next = 0;
    for i in 0..intervals.len() {
        let r = root(&mut parent, i);
        if r == i {
            next += 1;
            group[i] = next;
        } else {
            group[i] = group[r];
        }
    }
    group
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_intervals_chain_into_groups() {
        // Rows 1–2 and 2–3 overlap, so 1–3 are one group although rows 1 and 3 do not touch;
        // [5, 5] and [6, 6] overlap nothing.
        let intervals = [(1, 2), (2, 3), (3, 4), (5, 5), (6, 6)];
        assert_eq!(tie_groups(&intervals), [1, 1, 1, 2, 3]);
        // An interval that skips its neighbour still joins the group it overlaps, and the
        // neighbour in between comes after in numbering.
        let intervals = [(1, 1), (3, 3), (1, 2)];
        assert_eq!(tie_groups(&intervals), [1, 2, 1]);
        assert_eq!(tie_groups(&[]), Vec::<u32>::new());
    }
}
