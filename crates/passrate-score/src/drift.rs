//! Drift: did a model whose identifier has not changed behave differently this week? Exact
//! McNemar test on the tasks both weeks share.

use serde::{Deserialize, Serialize};

use crate::compare::shared_tasks;
use crate::error::ScoreError;
use crate::score::Scorer;
use crate::tally::ModelOutcomes;

/// The week-over-week comparison of one model on the tasks both weeks share. Each task
/// counts once, by its lowest-index scored sample, because McNemar's test needs one paired
/// binary outcome per task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DriftReport {
    pub model: String,
    pub shared_tasks: u32,
    pub both_pass: u32,
    pub both_fail: u32,
    /// Passed last week, fails this week.
    pub only_last_week: u32,
    /// Fails last week, passes this week.
    pub only_this_week: u32,
    /// Pass rates on the shared tasks.
    pub last_week_score: f64,
    pub this_week_score: f64,
    /// Two-sided exact McNemar p-value.
    pub p_value: f64,
    pub alpha: f64,
    /// `p_value < alpha`: the same identifier likely serves a different model.
    pub suspected_update: bool,
}

/// Two-sided exact McNemar test: with `b` and `c` discordant pairs, the p-value of
/// `min(b, c)` or fewer successes in `b + c` fair coin flips, doubled (capped at 1).
pub fn mcnemar_exact(b: u32, c: u32) -> f64 {
    let n = b + c;
    let k = b.min(c);
    if n == 0 {
        return 1.0;
    }
    // Log-space so that 2^-n does not underflow for large n; terms grow up to i = k ≤ n/2, so
    // they are summed relative to the last (largest) one.
    let mut log_terms = Vec::with_capacity(k as usize + 1);
    let mut log_term = -f64::from(n) * std::f64::consts::LN_2;
    log_terms.push(log_term);
    for i in 0..k {
        log_term += (f64::from(n - i) / f64::from(i + 1)).ln();
        log_terms.push(log_term);
    }
    let largest = log_term;
    let relative: f64 = log_terms.iter().map(|t| (t - largest).exp()).sum();
    (2.0 * largest.exp() * relative).min(1.0)
}

impl Scorer {
    /// Compares `this_week` with `last_week` for the same model id.
    pub fn drift(
        &self,
        this_week: &ModelOutcomes,
        last_week: &ModelOutcomes,
    ) -> Result<DriftReport, ScoreError> {
        drift(this_week, last_week, self.config.drift_alpha)
    }
}

/// Compares `this_week` with `last_week` for the same model id at significance `alpha`.
pub fn drift(
    this_week: &ModelOutcomes,
    last_week: &ModelOutcomes,
    alpha: f64,
) -> Result<DriftReport, ScoreError> {
    if this_week.model != last_week.model {
        return Err(ScoreError::ModelMismatch {
            this_week: this_week.model.clone(),
            last_week: last_week.model.clone(),
        });
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(ScoreError::InvalidConfig(format!(
            "drift alpha must be strictly between 0 and 1, got {alpha}"
        )));
    }
    let mut cells = [[0u32; 2]; 2];
    for (now, before) in shared_tasks(&this_week.tasks, &last_week.tasks) {
        cells[usize::from(before.first_passed)][usize::from(now.first_passed)] += 1;
    }
    let [[both_fail, only_this_week], [only_last_week, both_pass]] = cells;
    let shared = both_fail + only_this_week + only_last_week + both_pass;
    let rate = |passes: u32| {
        if shared == 0 {
            0.0
        } else {
            f64::from(passes) / f64::from(shared)
        }
    };
    let p_value = mcnemar_exact(only_last_week, only_this_week);
    Ok(DriftReport {
        model: this_week.model.clone(),
        shared_tasks: shared,
        both_pass,
        both_fail,
        only_last_week,
        only_this_week,
        last_week_score: rate(both_pass + only_last_week),
        this_week_score: rate(both_pass + only_this_week),
        p_value,
        alpha,
        suspected_update: p_value < alpha,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.max(1e-300)
    }

    #[test]
    fn known_p_values() {
        // 2 · (1/2)^5.
        assert!(close(mcnemar_exact(0, 5), 0.0625));
        // 2 · (1 + 10)/2^10; R: binom.test(1, 10)$p.value = 0.02148438.
        assert!(close(mcnemar_exact(1, 9), 22.0 / 1024.0));
        assert!(close(mcnemar_exact(9, 1), 22.0 / 1024.0));
        // 2 · (1 + 15 + 105 + 455)/2^15.
        assert!(close(mcnemar_exact(3, 12), 1152.0 / 32768.0));
        // R: binom.test(10, 30)$p.value = 0.09873715.
        assert!((mcnemar_exact(10, 20) - 0.098_737_15).abs() < 1e-8);
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(4, 4), 1.0);
        assert_eq!(mcnemar_exact(0, 1), 1.0);
    }

    #[test]
    fn large_counts_do_not_underflow() {
        // 2^-1200 underflows to 0 in plain f64, so summing probabilities directly would give 0.
        // Exact value (rational arithmetic): 8.535366081034334e-09.
        let p = mcnemar_exact(500, 700);
        assert!((p / 8.535_366_081_034_334e-9 - 1.0).abs() < 1e-9, "{p}");
        // Exact: 8.457089535503927e-06.
        let p = mcnemar_exact(900, 1_100);
        assert!((p / 8.457_089_535_503_927e-6 - 1.0).abs() < 1e-9, "{p}");
        assert_eq!(mcnemar_exact(1_000, 1_000), 1.0);
    }
}
