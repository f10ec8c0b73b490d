//! Pinned intervals on small fixed inputs: any change to seeding, the generator, the
//! bounded mapping, the stratum layout or the percentile rule shows up here.

mod common;

use common::{contender, score, score_with, task};
use passrate_schema::{Category, Reason, TaskOutcome, Tier};
use passrate_score::{Bootstrap, ScoreConfig, Scorer, Stratify};

/// 16 tasks with 1–4 samples each and varied passes: Σpasses/Σsamples takes many distinct
/// values per resample, so the pinned bounds identify the exact resample stream.
fn multi_sample() -> Vec<TaskOutcome> {
    let mut out = Vec::new();
    for i in 0..16 {
        let samples = 1 + i % 4;
        let passes = (i * 7 + 3) % (samples + 1);
        for s in 0..samples {
            let mut o = task(
                i,
                16,
                if s < passes {
                    Reason::Pass
                } else {
                    Reason::Timeout
                },
            );
            o.sample_index = s as u32;
            out.push(o);
        }
    }
    out
}

fn score_multi(stratify: Stratify) -> passrate_score::ModelScore {
    let config = ScoreConfig {
        bootstrap: Bootstrap {
            stratify,
            ..Bootstrap::default()
        },
        ..ScoreConfig::default()
    };
    let mut scorer = Scorer::new(config).unwrap();
    scorer
        .score_outcomes("golden-seed", "model-m", &multi_sample())
        .unwrap()
        .1
}

#[test]
fn multi_sample_golden() {
    let plain = score_multi(Stratify::None);
    assert_eq!(bounds(plain.overall), GOLDEN_MULTI_PLAIN);
    let tier = score_multi(Stratify::Tier);
    assert_eq!(bounds(tier.overall), GOLDEN_MULTI_TIER);
    // 16 tasks over 21 cells: every cell holds one task at most, so a cell-stratified
    // resample always redraws the same tasks and the interval collapses onto the estimate.
    let cell = score_multi(Stratify::Cell);
    assert_eq!(bounds(cell.overall), (21, 40, 0.525, 0.525));
    assert_eq!(
        plain.pass_at_k.get(&1).copied(),
        Some(GOLDEN_MULTI_PASS_AT_1)
    );
}

const A: [bool; 12] = [
    true, false, true, true, false, false, true, false, true, true, true, false,
];
const B: [bool; 12] = [
    true, false, false, true, false, false, true, false, false, true, false, false,
];

fn bounds(e: passrate_schema::Estimate) -> (u32, u32, f64, f64) {
    (e.passes, e.total, e.ci_low, e.ci_high)
}

#[test]
fn plain_bootstrap_golden() {
    let (_, s) = score("golden-seed", "model-a", &A);
    assert_eq!(bounds(s.overall), GOLDEN_OVERALL);
    assert_eq!(bounds(s.by_tier[&Tier::One]), GOLDEN_TIER_ONE);
    assert_eq!(
        bounds(s.by_category[&Category::FunctionCompletion]),
        GOLDEN_FUNCTION_COMPLETION
    );
}

#[test]
fn stratified_bootstrap_golden() {
    let config = ScoreConfig {
        bootstrap: Bootstrap {
            stratify: Stratify::Tier,
            ..Bootstrap::default()
        },
        ..ScoreConfig::default()
    };
    let (_, s) = score_with(config, "golden-seed", "model-a", &A);
    assert_eq!(bounds(s.overall), GOLDEN_STRATIFIED_OVERALL);
}

#[test]
fn paired_difference_golden() {
    let a = score("golden-seed", "model-a", &A);
    let b = score("golden-seed", "model-b", &B);
    let mut scorer = Scorer::new(ScoreConfig::default()).unwrap();
    let c = scorer.compare("golden-seed", contender(&a), contender(&b));
    let d = c.difference.unwrap();
    assert_eq!((c.shared_tasks, d.point, d.low, d.high), GOLDEN_PAIRED);
}

const GOLDEN_OVERALL: (u32, u32, f64, f64) = (7, 12, 4.0 / 12.0, 10.0 / 12.0);
const GOLDEN_TIER_ONE: (u32, u32, f64, f64) = (3, 5, 0.2, 1.0);
const GOLDEN_FUNCTION_COMPLETION: (u32, u32, f64, f64) = (1, 2, 0.0, 1.0);
const GOLDEN_STRATIFIED_OVERALL: (u32, u32, f64, f64) = (7, 12, 4.0 / 12.0, 10.0 / 12.0);
const GOLDEN_PAIRED: (u32, f64, f64, f64) = (12, 7.0 / 12.0 - 4.0 / 12.0, 0.0, 0.5);
const GOLDEN_MULTI_PLAIN: (u32, u32, f64, f64) = (21, 40, 0.35714285714285715, 0.6923076923076923);
const GOLDEN_MULTI_TIER: (u32, u32, f64, f64) = (21, 40, 0.37777777777777777, 0.6944444444444444);
/// Mean of c/n over the 16 tasks = 115/192, computed by hand from `multi_sample`.
const GOLDEN_MULTI_PASS_AT_1: f64 = 115.0 / 192.0;

/// 60 tasks with 1–9 samples: the resample statistic is close to continuous, so adjacent
/// order statistics rarely coincide and an off-by-one in the percentile rule changes a bound.
#[test]
fn fine_grained_golden_at_several_levels() {
    let mut outcomes = Vec::new();
    for i in 0..60 {
        let samples = 1 + (i * 5) % 9;
        let passes = (i * 13 + 7) % (samples + 1);
        for s in 0..samples {
            let mut o = task(
                i,
                60,
                if s < passes {
                    Reason::Pass
                } else {
                    Reason::WrongAnswer
                },
            );
            o.sample_index = s as u32;
            outcomes.push(o);
        }
    }
    let found: Vec<(f64, f64)> = [0.95, 0.9, 0.8, 0.5]
        .into_iter()
        .map(|confidence| {
            let config = ScoreConfig {
                bootstrap: Bootstrap {
                    confidence,
                    ..Bootstrap::default()
                },
                ..ScoreConfig::default()
            };
            let mut scorer = Scorer::new(config).unwrap();
            let (_, s) = scorer
                .score_outcomes("golden-seed", "model-f", &outcomes)
                .unwrap();
            (s.overall.ci_low, s.overall.ci_high)
        })
        .collect();
    assert_eq!(found, GOLDEN_FINE);
}

const GOLDEN_FINE: [(f64, f64); 4] = [
    (0.2786885245901639, 0.4937888198757764),
    (0.2974683544303797, 0.47333333333333333),
    (0.3148148148148148, 0.45110410094637227),
    (0.34814814814814815, 0.4176470588235294),
];
