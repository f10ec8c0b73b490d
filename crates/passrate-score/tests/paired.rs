//! Paired differences, tie flags and the leaderboard order.

mod common;

use common::{contender, first_k, score};
use passrate_schema::Estimate;
use passrate_score::{Contender, ModelOutcomes, ScoreConfig, Scorer};

fn scorer() -> Scorer {
    Scorer::new(ScoreConfig::default()).unwrap()
}

fn pattern(n: usize, percent: usize, salt: usize) -> Vec<bool> {
    (0..n)
        .map(|i| (i * 37 + salt * 11) % 100 < percent)
        .collect()
}

#[test]
fn swapping_the_models_negates_the_difference_exactly() {
    let a = score("s", "alpha", &pattern(400, 60, 1));
    let b = score("s", "beta", &pattern(400, 50, 2));
    let ab = scorer().compare("s", contender(&a), contender(&b));
    let ba = scorer().compare("s", contender(&b), contender(&a));
    let (x, y) = (ab.difference.unwrap(), ba.difference.unwrap());
    assert_eq!((x.point, x.low, x.high), (-y.point, -y.high, -y.low));
    assert_eq!(ab.tied, ba.tied);
}

#[test]
fn a_dominating_model_has_a_positive_difference() {
    // b passes a subset of what a passes: a − b ≥ 0 on every resample.
    let a_passes = first_k(400, 300);
    let b_passes = first_k(400, 220);
    let a = score("s", "a", &a_passes);
    let b = score("s", "b", &b_passes);
    let c = scorer().compare("s", contender(&a), contender(&b));
    let d = c.difference.unwrap();
    assert!((d.point - 0.2).abs() < 1e-12);
    assert!(
        d.low > 0.0 && d.low <= d.point && d.point <= d.high,
        "{d:?}"
    );
    assert!(c.significant && !c.tied);
    assert_eq!(c.shared_tasks, 400);
}

#[test]
fn identical_models_differ_by_exactly_zero() {
    let a = score("s", "a", &pattern(400, 40, 3));
    let b = score("s", "b", &pattern(400, 40, 3));
    let c = scorer().compare("s", contender(&a), contender(&b));
    let d = c.difference.unwrap();
    assert_eq!((d.point, d.low, d.high), (0.0, 0.0, 0.0));
    assert!(c.tied && c.within_intervals && c.within_margin && !c.significant);
}

#[test]
fn pairing_narrows_the_interval_for_correlated_models() {
    // b = a with 20 passes turned into failures: highly correlated.
    let a_passes = pattern(400, 60, 4);
    let mut b_passes = a_passes.clone();
    b_passes
        .iter_mut()
        .filter(|p| **p)
        .take(20)
        .for_each(|p| *p = false);
    let a = score("s", "a", &a_passes);
    let b = score("s", "b", &b_passes);
    let d = scorer()
        .compare("s", contender(&a), contender(&b))
        .difference
        .unwrap();
    let paired_width = d.high - d.low;
    // Unpaired, the variances add: width ≈ sqrt(wa² + wb²).
    let wa = a.1.overall.ci_high - a.1.overall.ci_low;
    let wb = b.1.overall.ci_high - b.1.overall.ci_low;
    let unpaired = (wa * wa + wb * wb).sqrt();
    assert!(
        paired_width < unpaired / 2.0,
        "{paired_width} vs {unpaired}"
    );
    assert!(
        d.low > 0.0,
        "20 more passes in 400 shared tasks, every one in a's favour"
    );
}

#[test]
fn tie_flags_follow_intervals_and_margin() {
    let mk = |score: f64, low: f64, high: f64| Estimate {
        passes: 0,
        total: 0,
        score,
        ci_low: low,
        ci_high: high,
    };
    let a_out = common::group("a", &first_k(10, 5));
    let b_out = common::group("b", &first_k(10, 5));
    let pair = |ea, eb| {
        scorer().compare(
            "s",
            Contender {
                outcomes: &a_out,
                overall: ea,
            },
            Contender {
                outcomes: &b_out,
                overall: eb,
            },
        )
    };
    // b's score inside a's interval.
    let c = pair(mk(0.60, 0.50, 0.70), mk(0.55, 0.52, 0.58));
    assert!(c.within_intervals && !c.within_margin && c.tied);
    // Disjoint, but exactly 2 points apart.
    let c = pair(mk(0.50, 0.495, 0.505), mk(0.48, 0.475, 0.485));
    assert!(!c.within_intervals && c.within_margin && c.tied);
    // Disjoint and 3 points apart.
    let c = pair(mk(0.51, 0.505, 0.515), mk(0.48, 0.475, 0.485));
    assert!(!c.within_intervals && !c.within_margin && !c.tied);
}

#[test]
fn only_shared_tasks_are_paired() {
    let a = score("s", "a", &first_k(400, 200));
    let b_outcomes = ModelOutcomes {
        tasks: a.0.tasks[100..].to_vec(),
        model: "b".into(),
        ..a.0.clone()
    };
    let b_overall = a.1.overall;
    let c = scorer().compare(
        "s",
        contender(&a),
        Contender {
            outcomes: &b_outcomes,
            overall: b_overall,
        },
    );
    assert_eq!(c.shared_tasks, 300);
    let none = ModelOutcomes {
        tasks: Vec::new(),
        ..b_outcomes.clone()
    };
    let c = scorer().compare(
        "s",
        contender(&a),
        Contender {
            outcomes: &none,
            overall: b_overall,
        },
    );
    assert_eq!((c.shared_tasks, c.difference), (0, None));
}

#[test]
fn leaderboard_orders_best_first_and_annotates_neighbours() {
    let models = [
        score("s", "mid", &pattern(400, 50, 5)),
        score("s", "top", &pattern(400, 80, 6)),
        score("s", "low", &pattern(400, 20, 7)),
        score("s", "mid-twin", &pattern(400, 50, 8)),
    ];
    let contenders: Vec<Contender<'_>> = models.iter().map(contender).collect();
    let rows = scorer().leaderboard("s", &contenders);
    let names: Vec<&str> = rows.iter().map(|r| r.model.as_str()).collect();
    assert_eq!(names[0], "top");
    assert_eq!(names[3], "low");
    assert!(
        rows.windows(2)
            .all(|w| w[0].overall.score >= w[1].overall.score)
    );
    assert_eq!(
        rows.iter().map(|r| r.rank).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    // The two 50% models are tied; the others are clearly apart.
    assert!(rows[1].vs_next.as_ref().unwrap().tied);
    assert!(!rows[0].vs_next.as_ref().unwrap().tied);
    assert!(!rows[2].vs_next.as_ref().unwrap().tied);
    assert!(rows[3].vs_next.is_none());
    let first = rows[0].vs_next.as_ref().unwrap();
    assert_eq!((first.a.as_str(), first.b.as_str()), ("top", names[1]));
}
