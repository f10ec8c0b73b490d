//! Drift between weeks for one model id: exact McNemar on shared tasks.

mod common;

use common::{first_k, group};
use passrate_score::{ScoreConfig, ScoreError, Scorer, drift};

#[test]
fn discordant_pairs_decide_the_flag() {
    // Last week: tasks 0..200 pass. This week: tasks 0..190 and 200..212 pass.
    // Discordant: 10 passed only last week, 12 only this week: no evidence of change.
    let last = group("m", &first_k(400, 200));
    let mut now = first_k(400, 190);
    now[200..212].iter_mut().for_each(|p| *p = true);
    let r = drift(&group("m", &now), &last, 0.05).unwrap();
    assert_eq!((r.only_last_week, r.only_this_week), (10, 12));
    assert_eq!((r.both_pass, r.both_fail, r.shared_tasks), (190, 188, 400));
    assert!(!r.suspected_update && r.p_value > 0.5);
    assert_eq!(r.last_week_score, 0.5);
    assert_eq!(r.this_week_score, 202.0 / 400.0);

    // This week: 30 of last week's passes fail, 1 new pass: a silent update.
    let mut now = first_k(400, 170);
    now[399] = true;
    let r = drift(&group("m", &now), &last, 0.05).unwrap();
    assert_eq!((r.only_last_week, r.only_this_week), (30, 1));
    // 2 · (1 + 31) / 2^31.
    assert!((r.p_value - 64.0 / 2_147_483_648.0).abs() < 1e-18);
    assert!(r.suspected_update);
}

#[test]
fn the_threshold_is_configurable() {
    let last = group("m", &first_k(100, 50));
    // Discordant 1 vs 9: p = 22/1024 ≈ 0.0215.
    let mut now = first_k(100, 49);
    now[50..59].iter_mut().for_each(|p| *p = true);
    let strict = Scorer::new(ScoreConfig {
        drift_alpha: 0.01,
        ..ScoreConfig::default()
    })
    .unwrap();
    let r = strict.drift(&group("m", &now), &last).unwrap();
    assert!((r.p_value - 22.0 / 1024.0).abs() < 1e-12);
    assert!(!r.suspected_update);
    assert!(
        drift(&group("m", &now), &last, 0.05)
            .unwrap()
            .suspected_update
    );
}

#[test]
fn only_shared_tasks_count_and_ids_must_match() {
    let last = group("m", &first_k(300, 100));
    let now = group("m", &first_k(400, 100));
    assert_eq!(drift(&now, &last, 0.05).unwrap().shared_tasks, 300);
    assert!(matches!(
        drift(&group("other", &first_k(10, 1)), &last, 0.05),
        Err(ScoreError::ModelMismatch { .. })
    ));
}
