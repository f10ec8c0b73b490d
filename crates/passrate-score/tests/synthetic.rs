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
fn the_default_workload_has_about_280_families_and_they_leave_outcomes_alone() {
    let families = |spec: &WorkloadSpec| {
        let mut names: Vec<String> = workload(spec).models[0]
            .1
            .iter()
            .map(|o| o.family.clone())
            .collect();
        names.dedup();
        names.len()
    };
    let spec = WorkloadSpec::default();
    // Cuts fall with probability 279/399 per gap: 280 ± 9 (one standard deviation).
    assert!(
        (250..=310).contains(&families(&spec)),
        "{}",
        families(&spec)
    );
    let singletons = WorkloadSpec {
        families: 400,
        ..spec.clone()
    };
    assert_eq!(families(&singletons), 400);
    // Families come from their own stream: the verdicts are the same either way.
    let reasons = |spec: &WorkloadSpec| -> Vec<_> {
        workload(spec)
            .models
            .iter()
            .flat_map(|(_, o)| o.iter().map(|o| o.reason))
            .collect()
    };
    assert_eq!(reasons(&spec), reasons(&singletons));
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
    // 4 models × (1 + 7 + 3) estimates + 3 adjacent pairs + the rank intervals, 1,000
    // resamples each.
    assert_eq!(scored.resamples, (4 * 11 + 3 + 1) * 1_000);
    assert_eq!(scored.leaderboard.len(), 4);
    let spread: Vec<f64> = scored.scores.iter().map(|s| s.overall.score).collect();
    assert!(
        spread.iter().any(|&x| (x - spread[0]).abs() > 0.05),
        "models differ: {spread:?}"
    );
}
