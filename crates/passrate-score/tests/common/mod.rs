//! Builders for the integration tests: outcomes from compact pass/fail patterns.
#![allow(dead_code)]

use passrate_schema::{Category, Language, Reason, TaskOutcome, Tier};
use passrate_score::{Contender, InfraPolicy, ModelOutcomes, ModelScore, ScoreConfig, Scorer};

/// Task `i` of a synthetic week: categories cycle, tiers split 40/40/20 over `n` tasks.
pub fn task(i: usize, n: usize, reason: Reason) -> TaskOutcome {
    TaskOutcome {
        task: format!("t{i:04}"),
        category: Category::ALL[i % Category::ALL.len()],
        tier: match i * 10 / n.max(1) {
            0..=3 => Tier::One,
            4..=7 => Tier::Two,
            _ => Tier::Three,
        },
        language: Language::Python,
        sample_index: 0,
        reason,
        family: String::new(),
    }
}

/// One outcome per task; `true` is a pass, `false` a wrong answer.
pub fn outcomes(passes: &[bool]) -> Vec<TaskOutcome> {
    let n = passes.len();
    passes
        .iter()
        .enumerate()
        .map(|(i, &p)| task(i, n, if p { Reason::Pass } else { Reason::WrongAnswer }))
        .collect()
}

/// `n` tasks of which the first `k` pass, spread over the categories and tiers by index.
pub fn first_k(n: usize, k: usize) -> Vec<bool> {
    (0..n).map(|i| i < k).collect()
}

pub fn group(model: &str, passes: &[bool]) -> ModelOutcomes {
    ModelOutcomes::from_outcomes(model, &outcomes(passes), InfraPolicy::Reject).unwrap()
}

pub fn score(seed: &str, model: &str, passes: &[bool]) -> (ModelOutcomes, ModelScore) {
    score_with(ScoreConfig::default(), seed, model, passes)
}

pub fn score_with(
    config: ScoreConfig,
    seed: &str,
    model: &str,
    passes: &[bool],
) -> (ModelOutcomes, ModelScore) {
    let mut scorer = Scorer::new(config).unwrap();
    scorer
        .score_outcomes(seed, model, &outcomes(passes))
        .unwrap()
}

pub fn contender<'a>(scored: &'a (ModelOutcomes, ModelScore)) -> Contender<'a> {
    Contender {
        outcomes: &scored.0,
        overall: scored.1.overall,
    }
}

/// Wilson score interval for k successes in n trials at 95%.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    (centre - half, centre + half)
}
