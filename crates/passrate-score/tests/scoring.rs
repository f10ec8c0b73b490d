//! What a model's score reports: pass rate, subscores, compliance, coverage, reasons, pass@k,
//! and the refusal to count infrastructure faults against the model.

mod common;

use common::task;
use passrate_schema::{Category, Reason, TaskOutcome, Tier};
use passrate_score::{InfraPolicy, ScoreConfig, ScoreError, Scorer};

fn scorer(policy: InfraPolicy) -> Scorer {
    Scorer::new(ScoreConfig {
        infrastructure: policy,
        ..ScoreConfig::default()
    })
    .unwrap()
}

/// 10 tasks: 4 pass, 2 wrong answers, 1 syntax error, 1 no code, 2 no answer.
fn week() -> Vec<TaskOutcome> {
    let reasons = [
        Reason::Pass,
        Reason::Pass,
        Reason::Pass,
        Reason::Pass,
        Reason::WrongAnswer,
        Reason::WrongAnswer,
        Reason::SyntaxError,
        Reason::NoCode,
        Reason::NoAnswer,
        Reason::NoAnswer,
    ];
    reasons
        .iter()
        .enumerate()
        .map(|(i, &r)| task(i, 10, r))
        .collect()
}

#[test]
fn rates_and_counts() {
    let (_, s) = scorer(InfraPolicy::Reject)
        .score_outcomes("s", "m", &week())
        .unwrap();
    assert_eq!((s.overall.passes, s.overall.total), (4, 10));
    assert_eq!(s.overall.score, 0.4);
    // Answered: 8; compliant among them: 6 (4 passes + 2 wrong answers).
    assert_eq!(s.compliance_rate, 6.0 / 8.0);
    assert_eq!(s.coverage, 0.8);
    assert_eq!(s.reasons[&Reason::Pass], 4);
    assert_eq!(s.reasons[&Reason::NoAnswer], 2);
    assert_eq!(s.reasons.values().sum::<u32>(), 10);
    assert!(
        s.pass_at_k.is_empty(),
        "single-sample runs report no pass@k"
    );
    // Subscores partition the tasks.
    let by_cat: u32 = s.by_category.values().map(|e| e.total).sum();
    let by_tier: u32 = s.by_tier.values().map(|e| e.total).sum();
    assert_eq!((by_cat, by_tier), (10, 10));
    assert_eq!(s.by_tier[&Tier::One].total, 4);
    assert_eq!(s.by_tier[&Tier::Three].total, 2);
    // Tasks 0 and 7 are function completion: one pass, one no_code.
    let fc = s.by_category[&Category::FunctionCompletion];
    assert_eq!((fc.passes, fc.total), (1, 2));
    assert_eq!(s.by_category.len(), 7);
}

#[test]
fn infrastructure_faults_are_refused_or_excluded_never_failed() {
    let mut outcomes = week();
    outcomes[4].reason = Reason::SandboxError;
    outcomes[5].reason = Reason::ApiError;
    let err = scorer(InfraPolicy::Reject)
        .score_outcomes("s", "m", &outcomes)
        .unwrap_err();
    assert!(
        matches!(err, ScoreError::Infrastructure { count: 2, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("InfraPolicy::Exclude"));

    let (_, s) = scorer(InfraPolicy::Exclude)
        .score_outcomes("s", "m", &outcomes)
        .unwrap();
    // The two faulty tasks leave the denominator: 4 of 8, not 4 of 10.
    assert_eq!((s.overall.passes, s.overall.total), (4, 8));
    assert_eq!(
        (s.scored_tasks, s.unscored_tasks, s.excluded_samples),
        (8, 2, 2)
    );
    assert_eq!(s.reasons[&Reason::SandboxError], 1);
}

#[test]
fn several_samples_give_pass_at_k_and_sample_level_estimates() {
    // 4 tasks × 5 samples with 0, 1, 3, 5 passes.
    let mut outcomes = Vec::new();
    for (i, passes) in [0u32, 1, 3, 5].into_iter().enumerate() {
        for s in 0..5 {
            let mut o = task(
                i,
                4,
                if s < passes {
                    Reason::Pass
                } else {
                    Reason::WrongAnswer
                },
            );
            o.sample_index = s;
            outcomes.push(o);
        }
    }
    let (_, s) = scorer(InfraPolicy::Reject)
        .score_outcomes("s", "m", &outcomes)
        .unwrap();
    assert_eq!((s.overall.passes, s.overall.total), (9, 20));
    // pass@1 = mean c/n = (0 + 0.2 + 0.6 + 1) / 4.
    assert!((s.pass_at_k[&1] - 0.45).abs() < 1e-12);
    // pass@10 and pass@100 need 10 and 100 samples: not reported.
    assert_eq!(s.pass_at_k.keys().copied().collect::<Vec<_>>(), [1]);

    let mut scorer = Scorer::new(ScoreConfig {
        pass_at_k: vec![1, 2, 5],
        ..ScoreConfig::default()
    })
    .unwrap();
    let (_, s) = scorer.score_outcomes("s", "m", &outcomes).unwrap();
    // pass@2 per task: 0, 1 − C(4,2)/C(5,2) = 0.4, 1 − C(2,2)/C(5,2) = 0.9, 1.
    assert!((s.pass_at_k[&2] - (0.0 + 0.4 + 0.9 + 1.0) / 4.0).abs() < 1e-12);
    // pass@5 is 1 for every task with a pass.
    assert!((s.pass_at_k[&5] - 0.75).abs() < 1e-12);
}

#[test]
fn invalid_configuration_is_an_error() {
    for config in [
        ScoreConfig {
            tie_margin: -0.1,
            ..ScoreConfig::default()
        },
        ScoreConfig {
            drift_alpha: 0.0,
            ..ScoreConfig::default()
        },
        ScoreConfig {
            pass_at_k: vec![0],
            ..ScoreConfig::default()
        },
    ] {
        assert!(matches!(
            Scorer::new(config),
            Err(ScoreError::InvalidConfig(_))
        ));
    }
}

#[test]
fn empty_input_scores_zero_without_subscores() {
    let (_, s) = scorer(InfraPolicy::Reject)
        .score_outcomes("s", "m", &[])
        .unwrap();
    assert_eq!(
        (s.overall.total, s.overall.score, s.overall.ci_high),
        (0, 0.0, 0.0)
    );
    assert!(s.by_category.is_empty() && s.by_tier.is_empty());
}
