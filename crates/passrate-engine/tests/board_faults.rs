//! The board and infrastructure faults, on a real SQLite store filled through the store's
//! writer API with records scored by the real scorer: every row shows its faults and their
//! share of the model's units, and a model whose faults exceed 1% of its units is not ranked
//! (section `unranked`) while one at 0.5% is.

#[path = "fixtures/fault_store.rs"]
mod fault_store;

use fault_store::{MODELS, WEEK, fill};
use passrate_engine::{
    BoardOptions, KNOWN_BUGGY_MODEL, REFERENCE_MODEL, Section, leaderboard, leaderboard_with,
    run_score_config,
};
use passrate_store::Store;

#[tokio::test]
async fn a_model_over_one_percent_faults_is_not_ranked() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store = Store::open(&dir.path().join("board.sqlite3").display().to_string()).await?;
    fill(&store, &MODELS).await?;

    let board = leaderboard(&store, WEEK, &run_score_config()).await?;
    assert_eq!(board.options, BoardOptions::default());
    let ranked: Vec<&str> = board
        .ranked
        .iter()
        .map(|r| r.record.model.as_str())
        .collect();
    assert_eq!(ranked.len(), 2);
    assert!(
        ranked.contains(&"steady") && ranked.contains(&"clean"),
        "{ranked:?}"
    );
    assert!(board.partial.is_empty());
    assert_eq!(board.controls.len(), 1);

    let [faulty] = board.unranked.as_slice() else {
        panic!("one unranked model: {:?}", board.unranked);
    };
    assert_eq!(faulty.record.model, "faulty");
    assert_eq!(faulty.section, Section::Unranked);
    assert_eq!(faulty.rank, None);
    assert_eq!(faulty.tie_group, None);
    assert_eq!(faulty.vs_next, None);
    assert_eq!((faulty.infrastructure_faults, faulty.units), (4, 200));
    assert!((faulty.fault_share - 0.02).abs() < 1e-12);
    // The faulted units leave its denominator; the 196 others are its score.
    assert_eq!(faulty.shown.total, 196);
    assert_eq!(
        faulty.unranked_note().as_deref(),
        Some("not ranked: 4 infrastructure faults (2.0% of 200 units), re-run to rank")
    );

    let steady = board
        .ranked
        .iter()
        .find(|r| r.record.model == "steady")
        .expect("steady is ranked");
    assert_eq!((steady.infrastructure_faults, steady.units), (1, 200));
    assert!((steady.fault_share - 0.005).abs() < 1e-12);
    assert!(steady.rank.is_some());
    assert_eq!(steady.unranked_note(), None);
    // The ranked section compares only the ranked models: the last one has no next.
    assert!(board.ranked.last().expect("rows").vs_next.is_none());

    for row in board.rows() {
        assert!(
            row.units == 200,
            "{}: {} units",
            row.record.model,
            row.units
        );
    }
    let reference = &board.controls[0];
    assert_eq!(reference.record.model, REFERENCE_MODEL);
    assert_eq!(reference.fault_share, 0.0);
    assert!(board.alerts.is_empty(), "{:?}", board.alerts);
    assert!(!board.rows().any(|r| r.record.model == KNOWN_BUGGY_MODEL));

    // A looser threshold ranks it; a threshold of 0 leaves only the fault-free model ranked.
    let loose = BoardOptions {
        max_fault_share: 0.03,
    };
    let board = leaderboard_with(&store, WEEK, &run_score_config(), &loose).await?;
    assert!(board.unranked.is_empty());
    assert_eq!(board.ranked.len(), 3);
    let strict = BoardOptions {
        max_fault_share: 0.0,
    };
    let board = leaderboard_with(&store, WEEK, &run_score_config(), &strict).await?;
    let unranked: Vec<&str> = board
        .unranked
        .iter()
        .map(|r| r.record.model.as_str())
        .collect();
    assert_eq!(unranked, ["faulty", "steady"]);
    assert_eq!(board.ranked.len(), 1);
    store.close().await;
    Ok(())
}
