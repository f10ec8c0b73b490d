//! Rank intervals and tie groups on the leaderboard: separated models are alone with exact
//! ranks, identical models share everything, close models share a group.

mod common;

use common::{contender, outcomes, score};
use passrate_schema::TaskOutcome;
use passrate_score::{
    Contender, LeaderboardRow, ModelOutcomes, ModelScore, ResampleRng, ScoreConfig, Scorer,
};

/// `n` independent tasks, each passing with probability `percent`%: unlike a regular
/// pattern, two models' passes are then as unrelated as two real models' can be.
fn pattern(n: usize, percent: u32, salt: usize) -> Vec<bool> {
    let mut rng = ResampleRng::for_estimate("rank tests", &[&salt.to_string()]);
    (0..n).map(|_| rng.below(100) < percent).collect()
}

fn board(models: &[(ModelOutcomes, ModelScore)]) -> Vec<LeaderboardRow> {
    let contenders: Vec<Contender<'_>> = models.iter().map(contender).collect();
    Scorer::new(ScoreConfig::default())
        .unwrap()
        .leaderboard("s", &contenders)
}

fn summary(rows: &[LeaderboardRow]) -> Vec<(&str, u32, u32, u32, u32)> {
    rows.iter()
        .map(|r| {
            (
                r.model.as_str(),
                r.rank,
                r.rank_low,
                r.rank_high,
                r.tie_group,
            )
        })
        .collect()
}

#[test]
fn clearly_separated_models_have_exact_ranks_and_groups_of_their_own() {
    // 90%, 60%, 30% and 5% on 400 tasks: each gap is over 20 standard errors.
    let models = [
        score("s", "c", &pattern(400, 30, 1)),
        score("s", "a", &pattern(400, 90, 2)),
        score("s", "d", &pattern(400, 5, 3)),
        score("s", "b", &pattern(400, 60, 4)),
    ];
    let rows = board(&models);
    assert_eq!(
        summary(&rows),
        [
            ("a", 1, 1, 1, 1),
            ("b", 2, 2, 2, 2),
            ("c", 3, 3, 3, 3),
            ("d", 4, 4, 4, 4)
        ]
    );
}

#[test]
fn identical_models_share_one_rank_interval_and_group() {
    // Today's complaint: 28 tied replays got 28 distinct ranks. The positions stay 1…28 (the
    // board needs an order), but every resample scores them equally, so all share rank 1.
    let same = pattern(400, 55, 5);
    let models: Vec<_> = (0..28)
        .map(|i| score("s", &format!("replay-{i:02}"), &same))
        .collect();
    let rows = board(&models);
    assert_eq!(rows.len(), 28);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(
            (r.rank, r.rank_low, r.rank_high, r.tie_group),
            (i as u32 + 1, 1, 1, 1),
            "{}",
            r.model
        );
    }
}

#[test]
fn close_models_share_a_group_and_a_distant_one_does_not() {
    // 52% and 50% on 400 tasks differ by less than one standard error; 20% is far below.
    let models = [
        score("s", "x", &pattern(400, 52, 6)),
        score("s", "y", &pattern(400, 50, 7)),
        score("s", "z", &pattern(400, 20, 8)),
    ];
    let rows = board(&models);
    let s = summary(&rows);
    assert_eq!((s[0].0, s[0].4), ("x", 1));
    assert_eq!((s[1].0, s[1].4), ("y", 1));
    assert_eq!(s[2], ("z", 3, 3, 3, 2));
    // Either of the two can come first on a resample.
    assert_eq!((s[0].2, s[0].3, s[1].2, s[1].3), (1, 2, 1, 2));
    // The paired comparison with the next row is still there.
    assert!(rows[0].vs_next.as_ref().unwrap().tied);
}

#[test]
fn a_group_spans_a_chain_of_overlapping_intervals() {
    // Scores 8 points apart on 200 tasks (≈ 1.6 standard errors of a difference between
    // neighbours): neighbours' rank intervals overlap, so the chain forms one group although
    // the first and the last (24 points apart) never swap; a model far below stands alone.
    let models = [
        score("s", "p66", &pattern(200, 66, 1)),
        score("s", "p58", &pattern(200, 58, 2)),
        score("s", "p50", &pattern(200, 50, 3)),
        score("s", "p42", &pattern(200, 42, 4)),
        score("s", "p5", &pattern(200, 5, 5)),
    ];
    let rows = board(&models);
    let groups: Vec<u32> = rows.iter().map(|r| r.tie_group).collect();
    assert_eq!(groups, [1, 1, 1, 1, 2], "{:?}", summary(&rows));
    assert!(rows[0].rank_high < rows[3].rank_low, "{:?}", summary(&rows));
}

#[test]
fn ranks_resample_families_not_tasks() {
    // Two models that disagree on 24 of 80 families, each family five identical tasks: a
    // wins 15, b wins 9, a gap of 7.5 points. As 80 families the gap is ≈ 1.2 standard errors
    // of the paired difference and either model can lead; the same outcomes as 400
    // independent tasks would claim √5 times the precision (≈ 2.8 standard errors) and rank
    // a first on nearly every resample.
    let fam = |passes: &[bool]| -> Vec<TaskOutcome> {
        let mut out = outcomes(passes);
        for (i, o) in out.iter_mut().enumerate() {
            o.family = format!("family/{:03}", i / 5);
        }
        out
    };
    let a_families: Vec<bool> = (0..80).map(|f| f % 2 == 0).collect();
    let mut b_families = a_families.clone();
    // Families 0, 2, …, 28 pass for a only; 1, 3, …, 17 pass for b only.
    for f in (0..30).step_by(2).chain((1..18).step_by(2)) {
        b_families[f] = !b_families[f];
    }
    let expand = |families: &[bool]| -> Vec<bool> {
        families
            .iter()
            .flat_map(|&p| std::iter::repeat_n(p, 5))
            .collect()
    };
    let (a, b) = (expand(&a_families), expand(&b_families));
    let mut scorer = Scorer::new(ScoreConfig::default()).unwrap();
    let ranked = |scorer: &mut Scorer, a: Vec<TaskOutcome>, b: Vec<TaskOutcome>| {
        let a = scorer.score_outcomes("s", "a", &a).unwrap();
        let b = scorer.score_outcomes("s", "b", &b).unwrap();
        let rows = scorer.leaderboard("s", &[contender(&a), contender(&b)]);
        (rows[0].rank_high, rows[1].rank_low, rows[1].tie_group)
    };
    let naive = ranked(&mut scorer, outcomes(&a), outcomes(&b));
    let clustered = ranked(&mut scorer, fam(&a), fam(&b));
    assert_eq!(naive, (1, 2, 2), "as tasks, a is always ahead");
    assert_eq!(clustered, (2, 1, 1), "as families, either can lead");
}
