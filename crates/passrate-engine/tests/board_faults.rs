//! The board and infrastructure faults, on a real SQLite store filled through the store's
//! writer API with records scored by the real scorer: every row shows its faults and their
//! share of the model's units, and a model whose faults exceed 1% of its units is not ranked
//! (section `unranked`) while one at 0.5% is.

use std::collections::BTreeMap;

use passrate_engine::{
    BoardOptions, KNOWN_BUGGY_MODEL, REFERENCE_MODEL, Section, leaderboard, leaderboard_with,
    run_score_config,
};
use passrate_schema::{
    Category, Language, LimitsUsed, Manifest, ManifestItem, Provenance, RECORD_FORMAT_VERSION,
    Reason, ScoreRecord, Tier, Verdict,
};
use passrate_score::Scorer;
use passrate_store::{Store, UnitResult};

const WEEK: &str = "2026-W48";
const UNITS: usize = 200;

/// `(model, units that end in sandbox_error)`: 4 of 200 is 2%, 1 of 200 is 0.5%.
const MODELS: [(&str, usize); 4] = [
    ("faulty", 4),
    ("steady", 1),
    ("clean", 0),
    (REFERENCE_MODEL, 0),
];

fn items() -> Vec<ManifestItem> {
    (0..UNITS)
        .map(|i| ManifestItem {
            task: format!("fixture/{i}"),
            task_version: 1,
            language: Language::Python,
            category: Category::FunctionCompletion,
            tier: Tier::ALL[i % 3],
            family: format!("fixture/{i}"),
        })
        .collect()
}

fn verdict(item: &ManifestItem, reason: Reason) -> Verdict {
    Verdict {
        task: item.task.clone(),
        language: item.language,
        reason,
        tests_passed: usize::from(reason == Reason::Pass),
        tests_total: 1,
        cpu_ms: 1,
        wall_ms: 1,
        peak_memory_bytes: None,
        tests: Vec::new(),
        detail: reason
            .is_infrastructure()
            .then(|| "after 4 attempt(s): the jail exited; the reference failed too".into()),
        grader: None,
    }
}

/// Fills a store with one run of [`MODELS`], each record scored from the outcomes the store
/// gives back, as the cycle scores them.
async fn fill(store: &Store) -> anyhow::Result<()> {
    let items = items();
    let manifest = Manifest {
        format_version: 1,
        week: WEEK.into(),
        seed: "seed-fixture".into(),
        pool_version: "fixture".into(),
        items: items.clone(),
        panel: Vec::new(),
        rotation: None,
    };
    let run_id = format!("{WEEK}-fixture00001");
    store
        .create_run(&run_id, &manifest, &serde_json::json!({"fixture": true}))
        .await?;
    let mut scorer = Scorer::new(run_score_config())?;
    for (model, faults) in MODELS {
        for (i, item) in items.iter().enumerate() {
            let reason = if i < faults {
                Reason::SandboxError
            } else if model == REFERENCE_MODEL || i % 3 != 0 {
                Reason::Pass
            } else {
                Reason::WrongAnswer
            };
            store
                .insert_unit_result(&UnitResult {
                    run_id: run_id.clone(),
                    model: model.into(),
                    task: item.task.clone(),
                    task_version: item.task_version,
                    sample_index: 0,
                    language: item.language,
                    category: item.category,
                    tier: item.tier,
                    raw_answer: Some("```python\ndef f(): pass\n```".into()),
                    extracted_code: Some("def f(): pass\n".into()),
                    verdict: verdict(item, reason),
                    generation_ms: 1,
                    execution_ms: 1,
                    usage: None,
                    completed_at: "2026-11-30T12:00:00Z".into(),
                })
                .await?;
        }
        let outcomes = store.task_outcomes(&run_id, model).await?;
        anyhow::ensure!(outcomes.len() == UNITS, "every unit has an outcome");
        let (_, score) = scorer.score_outcomes(&manifest.seed, model, &outcomes)?;
        let record = ScoreRecord {
            format_version: RECORD_FORMAT_VERSION,
            model: model.into(),
            week: WEEK.into(),
            evaluated_at: "2026-11-30T12:00:00Z".into(),
            record_version: 0,
            run_id: run_id.clone(),
            seed: manifest.seed.clone(),
            pool_version: manifest.pool_version.clone(),
            overall: score.overall,
            by_category: score.by_category,
            by_tier: score.by_tier,
            by_language: score.by_language,
            compliance_rate: score.compliance_rate,
            coverage: score.coverage,
            reasons: score.reasons,
            pass_at_k: score.pass_at_k,
            provenance: Provenance {
                passrate_version: "0.1.0".into(),
                extractor_version: "1.2.0".into(),
                limits: LimitsUsed {
                    cpu_ms: 2000,
                    wall_ms: 4000,
                    memory_mib: 256,
                    heap_mib: 30,
                    pids: 64,
                    workdir_mib: 16,
                    output_bytes: 1 << 20,
                },
                runtime_versions: BTreeMap::new(),
            },
            answered: Some(score.overall),
            families: score.scored_families,
            drift: None,
            rotation: None,
        };
        store.append_score_record_for_run(&record).await?;
    }
    store.finish_run(&run_id).await?;
    Ok(())
}

#[tokio::test]
async fn a_model_over_one_percent_faults_is_not_ranked() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store = Store::open(&dir.path().join("board.sqlite3").display().to_string()).await?;
    fill(&store).await?;

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
