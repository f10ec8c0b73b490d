//! The benchmark's synthetic week is deterministic, of the stated size, and scores fully.

use passrate_score::ScoreConfig;
use passrate_score::synthetic::{WorkloadSpec, score_workload, workload};

#[test]
fn the_default_workload_is_28_models_by_400_tasks_and_stable() {
    let spec = WorkloadSpec::default();
    let week = workload(&spec);
    assert_eq!(week.models.len(), 28);
    assert!(week.models.iter().all(|(_, o)| o.len() == 400));
    assert_eq!(week.outcome_count(), 11_200);
    assert_eq!(week, workload(&spec));
    let other = workload(&WorkloadSpec {
        run_seed: "other".into(),
        ..spec
    });
    assert_ne!(week.models[0].1, other.models[0].1);
}

#[test]
fn scoring_the_workload_covers_every_estimate() {
    let spec = WorkloadSpec {
        models: 4,
        tasks: 140,
        ..WorkloadSpec::default()
    };
    let scored = score_workload(&workload(&spec), &ScoreConfig::default()).unwrap();
    assert_eq!(scored.scores.len(), 4);
    for s in &scored.scores {
        assert_eq!(
            (s.overall.total, s.by_category.len(), s.by_tier.len()),
            (140, 7, 3)
        );
        assert!(
            s.coverage < 1.0 && s.compliance_rate < 1.0,
            "missing and bad answers occur"
        );
    }
    // 4 models × (1 + 7 + 3) estimates + 3 adjacent pairs, 1,000 resamples each.
    assert_eq!(scored.resamples, (4 * 11 + 3) * 1_000);
    assert_eq!(scored.leaderboard.len(), 4);
    let spread: Vec<f64> = scored.scores.iter().map(|s| s.overall.score).collect();
    assert!(
        spread.iter().any(|&x| (x - spread[0]).abs() > 0.05),
        "models differ: {spread:?}"
    );
}
