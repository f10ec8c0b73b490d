//! pass@k: the unbiased estimator of Chen et al. (2021) from n samples with c passes.

use crate::bootstrap::{Bootstrap, Interval};
use crate::rng::ResampleRng;

/// Probability that at least one of `k` samples drawn without replacement from `n` samples,
/// `c` of which pass, passes: `1 − C(n−c, k) / C(n, k)`. `None` when `k` is 0 or exceeds `n`
/// (the estimator is undefined there) or `c > n`.
///
/// The ratio of binomials is evaluated as the product `Π_{i=n−c+1}^{n} (1 − k/i)`, which
/// never forms a large binomial coefficient and so stays exact to rounding for any n.
pub fn pass_at_k(n: u32, c: u32, k: u32) -> Option<f64> {
    if k == 0 || k > n || c > n {
        return None;
    }
    if n - c < k {
        // Every choice of k samples contains a passing one.
        return Some(1.0);
    }
    let k = f64::from(k);
    let all_fail = (n - c + 1..=n).fold(1.0, |acc, i| acc * (1.0 - k / f64::from(i)));
    Some(1.0 - all_fail)
}

/// Mean of `pass_at_k` over tasks given as (samples, passes); `None` when there is no task or
/// when some task has fewer than `k` samples (mixing would bias the mean).
pub fn mean_pass_at_k(tasks: impl IntoIterator<Item = (u32, u32)>, k: u32) -> Option<f64> {
    let mut total = 0.0;
    let mut count = 0u32;
    for (n, c) in tasks {
        total += pass_at_k(n, c, k)?;
        count += 1;
    }
    (count > 0).then(|| total / f64::from(count))
}

/// `mean_pass_at_k` with a percentile bootstrap interval that resamples whole tasks (a
/// task's samples share its difficulty, so they are one cluster). `None` where
/// `mean_pass_at_k` is undefined.
pub fn pass_at_k_interval(
    tasks: &[(u32, u32)],
    k: u32,
    bootstrap: &Bootstrap,
    seed: [u8; 32],
) -> Option<Interval> {
    let per_task: Vec<f64> = tasks
        .iter()
        .map(|&(n, c)| pass_at_k(n, c, k))
        .collect::<Option<_>>()?;
    let point = mean_pass_at_k(tasks.iter().copied(), k)?;
    let count = u32::try_from(per_task.len()).ok()?;
    let mut rng = ResampleRng::from_seed(seed);
    let mut means: Vec<f64> = (0..bootstrap.resamples.max(1))
        .map(|_| {
            let total: f64 = (0..count)
                .map(|_| per_task[rng.below(count) as usize])
                .sum();
            total / f64::from(count)
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let tail = bootstrap.tail_index();
    Some(Interval {
        point,
        low: means[tail],
        high: means[means.len() - 1 - tail],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn hand_computed_values() {
        // pass@1 is c/n.
        assert!(close(pass_at_k(10, 3, 1).unwrap(), 0.3));
        // 1 − C(7,5)/C(10,5) = 1 − 21/252.
        assert!(close(pass_at_k(10, 3, 5).unwrap(), 1.0 - 21.0 / 252.0));
        // 1 − C(15,10)/C(20,10) = 1 − 3003/184756.
        assert!(close(
            pass_at_k(20, 5, 10).unwrap(),
            1.0 - 3003.0 / 184_756.0
        ));
        // 1 − C(3,2)/C(5,2) = 1 − 3/10.
        assert!(close(pass_at_k(5, 2, 2).unwrap(), 0.7));
        assert_eq!(pass_at_k(5, 0, 2), Some(0.0));
        assert_eq!(pass_at_k(5, 4, 2), Some(1.0));
        assert_eq!(pass_at_k(5, 5, 5), Some(1.0));
        assert_eq!(pass_at_k(4, 1, 5), None);
        assert_eq!(pass_at_k(4, 1, 0), None);
        assert_eq!(pass_at_k(4, 5, 1), None);
    }

    #[test]
    fn large_n_stays_finite_and_ordered() {
        let p10 = pass_at_k(1_000, 7, 10).unwrap();
        let p100 = pass_at_k(1_000, 7, 100).unwrap();
        assert!(0.0 < p10 && p10 < p100 && p100 < 1.0, "{p10} {p100}");
    }

    #[test]
    fn mean_over_tasks() {
        let m = mean_pass_at_k([(10, 3), (10, 0), (10, 10)], 1).unwrap();
        assert!(close(m, (0.3 + 0.0 + 1.0) / 3.0));
        assert_eq!(mean_pass_at_k([(10, 3), (1, 1)], 2), None);
        assert_eq!(mean_pass_at_k([], 1), None);
    }

    #[test]
    fn the_interval_holds_the_point_and_narrows_to_it_when_every_task_agrees() {
        let tasks = [(10, 3), (10, 10), (10, 0), (10, 5), (10, 7)];
        let b = Bootstrap::default();
        let i = pass_at_k_interval(&tasks, 1, &b, [7; 32]).unwrap();
        assert!(close(i.point, 0.5));
        assert!(i.low < i.point && i.point < i.high, "{i:?}");
        assert!(i.low >= 0.0 && i.high <= 1.0);
        // Same seed, same interval.
        assert_eq!(pass_at_k_interval(&tasks, 1, &b, [7; 32]), Some(i));
        let same = [(10, 4); 20];
        let j = pass_at_k_interval(&same, 1, &b, [7; 32]).unwrap();
        assert!(close(j.low, 0.4) && close(j.high, 0.4), "{j:?}");
        assert_eq!(pass_at_k_interval(&tasks, 11, &b, [7; 32]), None);
    }
}
