//! The store's behaviour, each test body run on real SQLite and real PostgreSQL.

mod common;

use std::collections::BTreeSet;
use std::error::Error as _;

use anyhow::{Context, ensure};
use common::{Arg, Target, manifest, record, unit};
use passrate_schema::{Reason, TaskOutcome};
use passrate_store::{BackendKind, Store, StoreError};

on_both_backends!(
    score_records_refuse_update_and_delete,
    corrections_append_new_versions,
    concurrent_appends_get_distinct_versions,
    append_for_run_is_idempotent,
    unit_insert_is_idempotent,
    unit_quality_is_stored_with_the_unit,
    infrastructure_faults_are_logged_and_the_unit_stays_to_do,
    resume_lists_completed_units_after_reopen,
    runs_are_created_once_and_conflicts_refused,
    cache_get_put_and_replace,
    history_is_ordered_and_previous_week_found,
    leaderboard_shows_latest_version_per_model,
    older_format_fixture_reads_and_newer_format_is_refused,
    bad_records_are_refused_and_store_unchanged,
    migration_upgrades_an_existing_database,
    database_from_a_newer_passrate_is_refused,
);

fn chain(error: &dyn std::error::Error) -> String {
    let mut parts = vec![error.to_string()];
    let mut source = error.source();
    while let Some(e) = source {
        parts.push(e.to_string());
        source = e.source();
    }
    parts.join(": ")
}

async fn score_records_refuse_update_and_delete(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    let stored = store
        .append_score_record(&record("m", "2026-W48", "run-1", 200))
        .await?;
    let run = store
        .create_run(
            "run-1",
            &manifest("2026-W48", &["t1"]),
            &serde_json::json!({}),
        )
        .await?;
    ensure!(run.inserted);
    store
        .insert_unit_result(&unit("run-1", "m", "t1", 0, Reason::Pass))
        .await?;
    store.finish_run("run-1").await?;

    let attempts = [
        "UPDATE score_records SET score = 1.0",
        "UPDATE score_records SET record_version = 7 WHERE model = 'm'",
        "DELETE FROM score_records",
        "UPDATE unit_results SET reason = 'pass'",
        "DELETE FROM unit_results",
        "UPDATE runs SET week = '2026-W49'",
        "DELETE FROM run_finishes",
        "DELETE FROM runs",
    ];
    for sql in attempts {
        let error = t
            .raw
            .execute(sql, vec![])
            .await
            .err()
            .with_context(|| format!("`{sql}` succeeded on an append-only table"))?;
        ensure!(
            error.to_string().contains("append-only"),
            "`{sql}` failed for another reason: {error}"
        );
    }
    if t.backend == BackendKind::Postgres {
        let error = t.raw.execute("TRUNCATE score_records", vec![]).await;
        ensure!(error.is_err(), "TRUNCATE succeeded on score_records");
    }

    let again = store.score_record("m", "2026-W48", None).await?;
    ensure!(again.as_ref() == Some(&stored), "record changed: {again:?}");
    ensure!(t.raw.count("unit_results").await? == 1);
    ensure!(
        store
            .run("run-1")
            .await?
            .context("run gone")?
            .finished_at
            .is_some()
    );
    Ok(())
}

async fn corrections_append_new_versions(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    let first = store
        .append_score_record(&record("m", "2026-W48", "run-1", 200))
        .await?;
    ensure!(first.record.record_version == 1, "{first:?}");
    let correction = store
        .append_score_record(&record("m", "2026-W48", "run-1", 210))
        .await?;
    ensure!(correction.record.record_version == 2);
    let other_week = store
        .append_score_record(&record("m", "2026-W49", "run-2", 190))
        .await?;
    ensure!(
        other_week.record.record_version == 1,
        "versions are per (model, week)"
    );

    let latest = store
        .score_record("m", "2026-W48", None)
        .await?
        .context("none")?;
    ensure!(latest == correction, "latest is {latest:?}");
    let v1 = store
        .score_record("m", "2026-W48", Some(1))
        .await?
        .context("no v1")?;
    ensure!(v1 == first && v1.record.overall.passes == 200);
    ensure!(
        store
            .score_record("m", "2026-W48", Some(3))
            .await?
            .is_none()
    );
    ensure!(
        store
            .score_record("other", "2026-W48", None)
            .await?
            .is_none()
    );
    ensure!(t.raw.count("score_records").await? == 3);
    Ok(())
}

async fn concurrent_appends_get_distinct_versions(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    let writers = 16u32;
    let mut handles = Vec::new();
    for i in 0..writers {
        let store = store.clone();
        handles.push(tokio::spawn(async move {
            store
                .append_score_record(&record("m", "2026-W48", &format!("run-{i}"), 100 + i))
                .await
        }));
    }
    let mut versions = BTreeSet::new();
    for handle in handles {
        versions.insert(handle.await??.record.record_version);
    }
    ensure!(
        versions == (1..=writers).collect::<BTreeSet<_>>(),
        "versions {versions:?}"
    );
    let history = store.model_history("m").await?;
    let stored: Vec<u32> = history.iter().map(|r| r.record.record_version).collect();
    ensure!(
        stored == (1..=writers).collect::<Vec<_>>(),
        "stored {stored:?}"
    );
    Ok(())
}

async fn append_for_run_is_idempotent(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    let rec = record("m", "2026-W48", "run-1", 200);
    let mut handles = Vec::new();
    for _ in 0..6 {
        let store = store.clone();
        let rec = rec.clone();
        handles.push(tokio::spawn(async move {
            store.append_score_record_for_run(&rec).await
        }));
    }
    let mut inserted = 0;
    for handle in handles {
        let outcome = handle.await??;
        ensure!(outcome.value.record.record_version == 1);
        inserted += usize::from(outcome.inserted);
    }
    ensure!(inserted == 1, "{inserted} calls inserted the run's record");

    // A resumed run scores again (later evaluated_at): the first record stays.
    let mut later = rec.clone();
    later.evaluated_at = "2026-11-24T00:00:00Z".to_string();
    let again = store.append_score_record_for_run(&later).await?;
    ensure!(!again.inserted && again.value.record.evaluated_at == rec.evaluated_at);

    // Another model of the same run, and a deliberate correction, still append.
    let other = store
        .append_score_record_for_run(&record("n", "2026-W48", "run-1", 150))
        .await?;
    ensure!(other.inserted && other.value.record.record_version == 1);
    let correction = store.append_score_record(&later).await?;
    ensure!(correction.record.record_version == 2);
    ensure!(t.raw.count("score_records").await? == 3);

    // The run's result changes (units that had faulted were re-run): a correction is
    // appended once, however many writers, and is what the leaderboard shows; the same
    // result again appends nothing.
    let mut rerun = record("n", "2026-W48", "run-1", 160);
    rerun.evaluated_at = "2026-11-25T00:00:00Z".to_string();
    let mut handles = Vec::new();
    for _ in 0..4 {
        let store = store.clone();
        let rerun = rerun.clone();
        handles.push(tokio::spawn(async move {
            store.append_score_record_for_run(&rerun).await
        }));
    }
    let mut inserted = 0;
    for handle in handles {
        let outcome = handle.await??;
        ensure!(outcome.value.record.record_version == 2);
        ensure!(outcome.value.record.overall.passes == 160);
        inserted += usize::from(outcome.inserted);
    }
    ensure!(inserted == 1, "{inserted} calls appended the correction");
    let again = store.append_score_record_for_run(&rerun).await?;
    ensure!(!again.inserted && again.value.record.record_version == 2);
    let board = store.leaderboard("2026-W48").await?;
    let n = board
        .iter()
        .find(|r| r.record.model == "n")
        .expect("n on the board");
    ensure!(n.record.overall.passes == 160 && n.record.record_version == 2);
    ensure!(t.raw.count("score_records").await? == 4);
    Ok(())
}

async fn unit_insert_is_idempotent(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    store
        .create_run(
            "run-1",
            &manifest("2026-W48", &["t1", "t2"]),
            &serde_json::json!({}),
        )
        .await?;
    let first = unit("run-1", "m", "t1", 0, Reason::Pass);
    ensure!(
        store.insert_unit_result(&first).await?,
        "first insert not stored"
    );
    ensure!(
        !store.insert_unit_result(&first).await?,
        "second insert stored"
    );
    let different = unit("run-1", "m", "t1", 0, Reason::WrongAnswer);
    ensure!(!store.insert_unit_result(&different).await?);
    let stored = store.unit_results("run-1", "m").await?;
    ensure!(stored == vec![first.clone()], "stored {stored:?}");

    // Another sample of the same task is another unit.
    ensure!(
        store
            .insert_unit_result(&unit("run-1", "m", "t1", 1, Reason::Timeout))
            .await?
    );
    ensure!(t.raw.count("unit_results").await? == 2);

    // A verdict for another task is refused before anything is written.
    let mut mismatched = unit("run-1", "m", "t2", 0, Reason::Pass);
    mismatched.verdict.task = "t1".to_string();
    let error = store.insert_unit_result(&mismatched).await.unwrap_err();
    ensure!(matches!(error, StoreError::Invalid { .. }), "{error}");

    // A unit of a run that does not exist is a typed error.
    let error = store
        .insert_unit_result(&unit("no-such-run", "m", "t1", 0, Reason::Pass))
        .await
        .unwrap_err();
    ensure!(matches!(error, StoreError::UnknownRun { .. }), "{error}");
    ensure!(t.raw.count("unit_results").await? == 2);
    Ok(())
}

async fn unit_quality_is_stored_with_the_unit(t: &Target) -> anyhow::Result<()> {
    use passrate_schema::{
        CodeMeasures, EfficiencyCheck, MaintainabilityCheck, RobustnessCheck, UnitQuality,
    };
    let store = t.open().await?;
    store
        .create_run(
            "run-q",
            &manifest("2026-W48", &["t1", "t2"]),
            &serde_json::json!({}),
        )
        .await?;
    let measures = |statements| CodeMeasures {
        cyclomatic_complexity: 3,
        max_nesting_depth: 2,
        statements,
        duplicated_blocks: 0,
        short_names: 1,
        lint_findings: Some(0),
    };
    let mut checked = unit("run-q", "m", "t1", 0, Reason::Pass);
    checked.quality = Some(UnitQuality {
        robustness: Some(RobustnessCheck {
            extra_tests: 120,
            passed: 119,
            reason: Reason::WrongAnswer,
        }),
        efficiency: Some(EfficiencyCheck {
            inputs: 3,
            candidate_cpu_ms: 41.25,
            reference_cpu_ms: 20.5,
            baseline_cpu_ms: 0.5,
            ratio: 41.25 / 20.5,
            repeats: 2,
            spread: 0.03,
            reason: Reason::Pass,
        }),
        maintainability: Some(MaintainabilityCheck {
            candidate: measures(14),
            reference: measures(6),
            outside_band: vec!["statements".into()],
        }),
    });
    let unchecked = unit("run-q", "m", "t2", 0, Reason::WrongAnswer);
    ensure!(store.insert_unit_result(&checked).await?);
    ensure!(store.insert_unit_result(&unchecked).await?);
    let stored = store.unit_results("run-q", "m").await?;
    ensure!(stored == vec![checked, unchecked], "stored {stored:?}");
    Ok(())
}

async fn infrastructure_faults_are_logged_and_the_unit_stays_to_do(
    t: &Target,
) -> anyhow::Result<()> {
    let store = t.open().await?;
    store
        .create_run(
            "run-1",
            &manifest("2026-W48", &["t1", "t2"]),
            &serde_json::json!({}),
        )
        .await?;
    store
        .insert_unit_result(&unit("run-1", "m", "t1", 0, Reason::Pass))
        .await?;
    // A fault is logged, is not a result (a resumed run does the unit again), and stands in
    // for the unit among the outcomes until a result comes.
    ensure!(
        store
            .insert_unit_result(&unit("run-1", "m", "t2", 0, Reason::ApiError))
            .await?
    );
    ensure!(
        store
            .insert_unit_result(&unit("run-1", "m", "t2", 0, Reason::SandboxError))
            .await?
    );
    ensure!(t.raw.count("unit_results").await? == 1);
    ensure!(t.raw.count("unit_faults").await? == 2);
    let done = store.completed_units("run-1").await?;
    ensure!(done.len() == 1 && done[0].task == "t1", "{done:?}");
    let reasons = |outcomes: Vec<passrate_schema::TaskOutcome>| -> Vec<(String, Reason)> {
        outcomes.into_iter().map(|o| (o.task, o.reason)).collect()
    };
    let latest = reasons(store.task_outcomes("run-1", "m").await?);
    ensure!(
        latest
            == [
                ("t1".into(), Reason::Pass),
                ("t2".into(), Reason::SandboxError)
            ],
        "the latest fault stands in: {latest:?}"
    );
    let faults = store.unit_faults("run-1", "m").await?;
    ensure!(faults.len() == 2 && faults[0].verdict.reason == Reason::ApiError);

    // The retry succeeds: the result replaces the fault among the outcomes; the log stays.
    ensure!(
        store
            .insert_unit_result(&unit("run-1", "m", "t2", 0, Reason::WrongAnswer))
            .await?
    );
    let after = reasons(store.task_outcomes("run-1", "m").await?);
    ensure!(
        after
            == [
                ("t1".into(), Reason::Pass),
                ("t2".into(), Reason::WrongAnswer)
            ],
        "{after:?}"
    );
    // A fault of a decided unit is not logged.
    ensure!(
        !store
            .insert_unit_result(&unit("run-1", "m", "t2", 0, Reason::ApiError))
            .await?
    );
    ensure!(t.raw.count("unit_faults").await? == 2);
    // Outcomes carry the family the run's manifest gives each task.
    let outcomes = store.task_outcomes("run-1", "m").await?;
    ensure!(
        outcomes
            .iter()
            .all(|o| o.family == format!("fam/{}", o.task)),
        "{outcomes:?}"
    );
    Ok(())
}

async fn resume_lists_completed_units_after_reopen(t: &Target) -> anyhow::Result<()> {
    let tasks = ["t1", "t2", "t3"];
    let manifest = manifest("2026-W48", &tasks);
    let config = serde_json::json!({"models": ["a", "b"], "samples": 1});
    let store = t.open().await?;
    ensure!(
        store
            .create_run("run-1", &manifest, &config)
            .await?
            .inserted
    );
    store
        .insert_unit_result(&unit("run-1", "b", "t2", 0, Reason::Pass))
        .await?;
    store
        .insert_unit_result(&unit("run-1", "a", "t1", 0, Reason::WrongAnswer))
        .await?;
    store
        .insert_unit_result(&unit("run-1", "a", "t3", 0, Reason::NoAnswer))
        .await?;
    // The process dies here.
    store.close().await;

    let store = t.open().await?;
    let resumed = store.create_run("run-1", &manifest, &config).await?;
    ensure!(!resumed.inserted && resumed.value.finished_at.is_none());
    let done = store.completed_units("run-1").await?;
    let keys: Vec<(&str, &str, u32, Reason)> = done
        .iter()
        .map(|u| (u.model.as_str(), u.task.as_str(), u.sample_index, u.reason))
        .collect();
    ensure!(
        keys == vec![
            ("a", "t1", 0, Reason::WrongAnswer),
            ("a", "t3", 0, Reason::NoAnswer),
            ("b", "t2", 0, Reason::Pass),
        ],
        "completed {keys:?}"
    );

    // Finish the rest, replaying one already-done unit as a racing worker would.
    for (model, task) in [("a", "t2"), ("b", "t1"), ("b", "t3"), ("b", "t2")] {
        store
            .insert_unit_result(&unit("run-1", model, task, 0, Reason::Pass))
            .await?;
    }
    ensure!(store.finish_run("run-1").await?);
    ensure!(!store.finish_run("run-1").await?, "finished twice");
    ensure!(store.completed_units("run-1").await?.len() == 6);
    let outcomes = store.task_outcomes("run-1", "a").await?;
    let expected: Vec<TaskOutcome> = [
        ("t1", Reason::WrongAnswer),
        ("t2", Reason::Pass),
        ("t3", Reason::NoAnswer),
    ]
    .into_iter()
    .map(|(task, reason)| {
        // The family comes from the run's manifest.
        let mut outcome = unit("run-1", "a", task, 0, reason).outcome();
        outcome.family = format!("fam/{task}");
        outcome
    })
    .collect();
    ensure!(outcomes == expected, "outcomes {outcomes:?}");
    ensure!(store.completed_units("run-2").await?.is_empty());
    Ok(())
}

async fn runs_are_created_once_and_conflicts_refused(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    let m = manifest("2026-W48", &["t1", "t2"]);
    let config = serde_json::json!({"size": 400});
    let created = store.create_run("run-1", &m, &config).await?;
    ensure!(created.inserted && created.value.manifest == m && created.value.config == config);

    let other_manifest = manifest("2026-W48", &["t1", "t3"]);
    let error = store
        .create_run("run-1", &other_manifest, &config)
        .await
        .unwrap_err();
    ensure!(
        matches!(
            error,
            StoreError::RunConflict {
                field: "manifest",
                ..
            }
        ),
        "{error}"
    );
    let error = store
        .create_run("run-1", &m, &serde_json::json!({"size": 10}))
        .await
        .unwrap_err();
    ensure!(
        matches!(
            error,
            StoreError::RunConflict {
                field: "config",
                ..
            }
        ),
        "{error}"
    );
    let error = store
        .create_run("run-x", &manifest("week 48", &["t1"]), &config)
        .await
        .unwrap_err();
    ensure!(matches!(error, StoreError::Invalid { .. }), "{error}");

    let stored = store.run("run-1").await?.context("run missing")?;
    ensure!(stored == created.value, "run changed: {stored:?}");
    store.create_run("run-0", &m, &config).await?;
    store
        .create_run("run-w49", &manifest("2026-W49", &["t1"]), &config)
        .await?;
    let week: Vec<String> = store
        .runs_for_week("2026-W48")
        .await?
        .into_iter()
        .map(|r| r.run_id)
        .collect();
    ensure!(
        week.len() == 2 && week.contains(&"run-0".to_string()),
        "{week:?}"
    );
    ensure!(store.run("nope").await?.is_none());
    let error = store.finish_run("nope").await.unwrap_err();
    ensure!(matches!(error, StoreError::UnknownRun { .. }), "{error}");
    Ok(())
}

async fn cache_get_put_and_replace(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    let key = "blake3:0123abcd";
    ensure!(store.cache_get(key).await?.is_none());
    let answer = serde_json::json!({
        "raw": {"choices": [{"message": {"content": "def f(): ..."}}]},
        "text": "def f(): ...",
        "usage": {"prompt_tokens": 10, "completion_tokens": 4},
        "latency_ms": 812,
    });
    ensure!(store.cache_put(key, &answer).await?, "first put not stored");
    let second = serde_json::json!({"text": "something else"});
    ensure!(!store.cache_put(key, &second).await?, "second put stored");
    ensure!(store.cache_get(key).await? == Some(answer.clone()));
    ensure!(store.cache_get("blake3:other").await?.is_none());

    store.cache_replace(key, &second).await?;
    ensure!(store.cache_get(key).await? == Some(second));
    store.cache_replace("blake3:new", &answer).await?;
    ensure!(store.cache_get("blake3:new").await? == Some(answer));
    ensure!(t.raw.count("response_cache").await? == 2);
    Ok(())
}

async fn history_is_ordered_and_previous_week_found(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    for (run_id, week) in [("r47", "2026-W47"), ("r48", "2026-W48")] {
        store
            .create_run(
                run_id,
                &manifest(week, &["t1", "t2"]),
                &serde_json::json!({}),
            )
            .await?;
    }
    store
        .insert_unit_result(&unit("r47", "m", "t2", 0, Reason::Pass))
        .await?;
    store
        .insert_unit_result(&unit("r47", "m", "t1", 0, Reason::Timeout))
        .await?;

    // Appended out of order, with corrections, across a year boundary.
    for (week, run_id, passes) in [
        ("2026-W48", "r48", 230),
        ("2025-W52", "r-old", 150),
        ("2026-W47", "r47", 200),
        ("2026-W48", "r48", 232),
        ("2026-W47", "r47", 201),
        ("2026-W01", "r-jan", 180),
    ] {
        store
            .append_score_record(&record("m", week, run_id, passes))
            .await?;
    }
    store
        .append_score_record(&record("other", "2026-W49", "rx", 1))
        .await?;

    let history: Vec<(String, u32, u32)> = store
        .model_history("m")
        .await?
        .into_iter()
        .map(|r| {
            (
                r.record.week,
                r.record.record_version,
                r.record.overall.passes,
            )
        })
        .collect();
    let expected = [
        ("2025-W52", 1, 150),
        ("2026-W01", 1, 180),
        ("2026-W47", 1, 200),
        ("2026-W47", 2, 201),
        ("2026-W48", 1, 230),
        ("2026-W48", 2, 232),
    ]
    .map(|(w, v, p)| (w.to_string(), v, p));
    ensure!(history == expected, "history {history:?}");
    ensure!(store.weeks().await? == ["2025-W52", "2026-W01", "2026-W47", "2026-W48", "2026-W49"]);
    ensure!(store.model_history("nobody").await?.is_empty());

    let previous = store
        .previous_record("m", "2026-W48")
        .await?
        .context("none")?;
    ensure!(previous.record.week == "2026-W47" && previous.record.record_version == 2);
    let (record, outcomes) = store
        .previous_week_outcomes("m", "2026-W48")
        .await?
        .context("no previous outcomes")?;
    ensure!(record.record.run_id == "r47");
    let tasks: Vec<(&str, Reason)> = outcomes
        .iter()
        .map(|o| (o.task.as_str(), o.reason))
        .collect();
    ensure!(
        tasks == [("t1", Reason::Timeout), ("t2", Reason::Pass)],
        "{tasks:?}"
    );
    ensure!(store.previous_record("m", "2025-W52").await?.is_none());
    ensure!(
        store
            .previous_week_outcomes("other", "2026-W49")
            .await?
            .is_none()
    );
    Ok(())
}

async fn leaderboard_shows_latest_version_per_model(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    for (model, passes) in [
        ("alpha", 300),
        ("beta", 320),
        ("gamma", 250),
        ("alpha", 330),
    ] {
        store
            .append_score_record(&record(model, "2026-W48", "r", passes))
            .await?;
    }
    store
        .append_score_record(&record("delta", "2026-W47", "r", 399))
        .await?;
    // Equal scores are ordered by model id.
    store
        .append_score_record(&record("aardvark", "2026-W48", "r", 250))
        .await?;

    let board: Vec<(String, u32, u32)> = store
        .leaderboard("2026-W48")
        .await?
        .into_iter()
        .map(|r| {
            (
                r.record.model,
                r.record.record_version,
                r.record.overall.passes,
            )
        })
        .collect();
    let expected = [
        ("alpha", 2, 330),
        ("beta", 1, 320),
        ("aardvark", 1, 250),
        ("gamma", 1, 250),
    ]
    .map(|(m, v, p)| (m.to_string(), v, p));
    ensure!(board == expected, "leaderboard {board:?}");
    ensure!(store.models_in_week("2026-W48").await? == ["aardvark", "alpha", "beta", "gamma"]);
    ensure!(store.leaderboard("2026-W01").await?.is_empty());
    Ok(())
}

/// Plants a record row directly, as an older or newer passrate would have written it.
async fn plant_record(t: &Target, json: &str, format_version: i64) -> anyhow::Result<()> {
    let value: serde_json::Value = serde_json::from_str(json)?;
    let text = |key: &str| Arg::Text(value[key].as_str().unwrap_or_default().to_string());
    let sql = "INSERT INTO score_records (model, week, record_version, format_version, \
               evaluated_at, run_id, seed, pool_version, passes, total, score, ci_low, ci_high, \
               compliance_rate, coverage, by_category_json, by_tier_json, provenance_json, \
               passrate_version, idempotency_key, record_json, recorded_at) VALUES ($1, $2, $3, \
               $4, $5, $6, $7, $8, 1, 2, 0.5, 0.1, 0.9, 1.0, 1.0, '{}', '{}', '{}', 'old', NULL, \
               $9, '2026-01-01T00:00:00Z')";
    t.raw
        .execute(
            sql,
            vec![
                text("model"),
                text("week"),
                Arg::Int(value["record_version"].as_i64().unwrap_or(1)),
                Arg::Int(format_version),
                text("evaluated_at"),
                text("run_id"),
                text("seed"),
                text("pool_version"),
                Arg::Text(json.to_string()),
            ],
        )
        .await?;
    Ok(())
}

async fn older_format_fixture_reads_and_newer_format_is_refused(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    // Written by format 1 and frozen: when the format moves on, this must still read.
    let v1 = include_str!("fixtures/score_record_v1.json");
    plant_record(t, v1, 1).await?;
    let read = store
        .score_record("replay-gpt-4", "2026-W05", None)
        .await?
        .context("fixture not read")?;
    ensure!(read.record.format_version == 1 && read.record.record_version == 1);
    ensure!(read.record.overall.passes == 278 && read.record.overall.total == 400);
    ensure!(read.record.by_tier.len() == 3 && read.record.reasons[&Reason::NoAnswer] == 12);
    ensure!(read.record.provenance.runtime_versions["java"] == "17.0.15");
    // A correction after it appends version 2 in the current format.
    let mut correction = read.record.clone();
    correction.format_version = passrate_schema::RECORD_FORMAT_VERSION;
    let next = store.append_score_record(&correction).await?;
    ensure!(next.record.record_version == 2);
    // Format 2's additions read as absent from a format 1 record, and round-trip once set.
    ensure!(read.record.drift.is_none() && read.record.answered.is_none());
    ensure!(read.record.families == 0 && read.record.rotation.is_none());
    let mut with_answered = next.record.clone();
    with_answered.answered = Some(read.record.overall);
    with_answered.families = 250;
    let third = store.append_score_record(&with_answered).await?;
    ensure!(third.record.answered == Some(read.record.overall) && third.record.families == 250);
    // Format 3's quality scores read as absent from a format 2 record.
    let v2 = v1
        .replace("\"format_version\": 1", "\"format_version\": 2")
        .replace("replay-gpt-4", "replay-v2");
    plant_record(t, &v2, 2).await?;
    let read_v2 = store
        .score_record("replay-v2", "2026-W05", None)
        .await?
        .context("format 2 record not read")?;
    ensure!(read_v2.record.format_version == 2 && read_v2.record.quality.is_none());

    let newer = v1
        .replace("\"format_version\": 1", "\"format_version\": 99")
        .replace("replay-gpt-4", "from-the-future");
    plant_record(t, &newer, 99).await?;
    let error = store
        .score_record("from-the-future", "2026-W05", None)
        .await
        .unwrap_err();
    ensure!(
        matches!(error, StoreError::NewerFormat { found: 99, .. }),
        "{error}"
    );
    let message = error.to_string();
    ensure!(
        message.contains("format version 99") && message.contains("upgrade passrate"),
        "unclear message: {message}"
    );
    // Other records stay readable.
    ensure!(store.model_history("replay-gpt-4").await?.len() == 3);
    Ok(())
}

async fn bad_records_are_refused_and_store_unchanged(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    store
        .append_score_record(&record("m", "2026-W48", "r", 200))
        .await?;

    let mut nan = record("m", "2026-W48", "r", 200);
    nan.overall.ci_high = f64::NAN;
    let mut bad_week = record("m", "2026-W48", "r", 200);
    bad_week.week = "48".to_string();
    let mut future = record("m", "2026-W48", "r", 200);
    future.format_version = passrate_schema::RECORD_FORMAT_VERSION + 1;
    let mut no_model = record("m", "2026-W48", "r", 200);
    no_model.model = " ".to_string();
    for bad in [nan, bad_week, future, no_model] {
        let error = store.append_score_record(&bad).await.unwrap_err();
        let StoreError::AppendRecord { source, .. } = &error else {
            anyhow::bail!("unexpected error {error}");
        };
        ensure!(
            matches!(**source, StoreError::Invalid { .. }),
            "{}",
            chain(&error)
        );
        ensure!(
            error.to_string()
                == format!(
                    "failed to insert score record for model {} week {}",
                    bad.model, bad.week
                ),
            "message: {error}"
        );
        ensure!(error.source().is_some());
    }
    let history = store.model_history("m").await?;
    ensure!(history.len() == 1 && history[0].record.record_version == 1);
    ensure!(t.raw.count("score_records").await? == 1);

    // A store that cannot reach its database says what it was doing.
    store.close().await;
    let error = store
        .append_score_record(&record("m", "2026-W48", "r", 201))
        .await
        .unwrap_err();
    let text = chain(&error);
    ensure!(
        text.starts_with("failed to insert score record for model m week 2026-W48: failed to "),
        "chain: {text}"
    );
    Ok(())
}

/// Copies the first migration of the backend into a directory, as an older passrate had it.
fn first_migration_only(t: &Target) -> anyhow::Result<tempfile::TempDir> {
    let backend = match t.backend {
        BackendKind::Sqlite => "sqlite",
        BackendKind::Postgres => "postgres",
    };
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(backend);
    let dir = tempfile::tempdir()?;
    let mut copied = 0;
    for entry in std::fs::read_dir(&source)? {
        let path = entry?.path();
        if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("0001_"))
        {
            std::fs::copy(&path, dir.path().join(path.file_name().context("name")?))?;
            copied += 1;
        }
    }
    ensure!(
        copied == 1,
        "expected one 0001 migration in {}",
        source.display()
    );
    Ok(dir)
}

async fn migration_upgrades_an_existing_database(t: &Target) -> anyhow::Result<()> {
    // A database created by a passrate that had only the first migration, with data in it.
    let old = sqlx::migrate::Migrator::new(first_migration_only(t)?.path()).await?;
    match &t.raw {
        common::Raw::Sqlite(pool) => old.run(pool).await?,
        common::Raw::Postgres(pool) => old.run(pool).await?,
    }
    ensure!(
        t.raw
            .execute("SELECT 1 FROM response_cache", vec![])
            .await
            .is_err()
    );
    let m = manifest("2026-W48", &["t1"]);
    let manifest_json = serde_json::to_string(&m)?;
    t.raw
        .execute(
            "INSERT INTO runs (run_id, week, seed, pool_version, manifest_json, config_json, \
             started_at) VALUES ('old-run', '2026-W48', 'seed-2026-W48', 'pool-abc123', $1, \
             '{}', '2026-11-23T00:00:00Z')",
            vec![Arg::Text(manifest_json)],
        )
        .await?;

    let store = t.open().await?;
    let run = store
        .run("old-run")
        .await?
        .context("old run lost by migration")?;
    ensure!(run.manifest == m);
    ensure!(store.cache_put("k", &serde_json::json!(1)).await?);
    store.close().await;
    // Opening again applies nothing and keeps everything.
    let store = t.open().await?;
    ensure!(store.cache_get("k").await? == Some(serde_json::json!(1)));
    ensure!(store.run("old-run").await?.is_some());
    Ok(())
}

async fn database_from_a_newer_passrate_is_refused(t: &Target) -> anyhow::Result<()> {
    let store = t.open().await?;
    store
        .append_score_record(&record("m", "2026-W48", "r", 200))
        .await?;
    store.close().await;
    t.raw
        .execute(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, \
             execution_time) VALUES (99990101000000, 'from a newer passrate', TRUE, $1, 0)",
            vec![Arg::Bytes(vec![0; 48])],
        )
        .await?;
    let error = Store::open(&t.location).await.unwrap_err();
    ensure!(
        matches!(error, StoreError::Migrate { .. }),
        "{}",
        chain(&error)
    );
    ensure!(error.to_string().contains("newer passrate"), "{error}");
    ensure!(t.raw.count("score_records").await? == 1, "data touched");
    Ok(())
}

// SQLite-only: how a location is turned into a store.

#[tokio::test]
async fn sqlite_locations_open_and_create_directories() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let nested = dir.path().join("a").join("b").join("store.db");
    let store = Store::open(nested.to_str().context("utf-8")?).await?;
    store.cache_put("k", &serde_json::json!("v")).await?;
    store.close().await;
    ensure!(nested.exists());

    let url = format!("sqlite://{}", nested.display());
    let store = Store::open(&url).await?;
    ensure!(
        store.cache_get("k").await? == Some(serde_json::json!("v")),
        "URL opened another file"
    );
    store.close().await;

    let data = dir.path().join("data");
    let store = Store::open_data_dir(&data).await?;
    store.cache_put("k", &serde_json::json!(2)).await?;
    ensure!(data.join(passrate_store::DEFAULT_DATABASE_FILE).exists());
    store.close().await;

    let memory = Store::open("sqlite::memory:").await?;
    ensure!(memory.backend() == BackendKind::Sqlite);
    memory.cache_put("k", &serde_json::json!(3)).await?;
    ensure!(memory.cache_get("k").await? == Some(serde_json::json!(3)));
    Ok(())
}

#[tokio::test]
async fn unreachable_postgres_error_names_it_without_the_password() -> anyhow::Result<()> {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let error = Store::open("postgres://user:hunter2@127.0.0.1:1/passrate")
        .await
        .unwrap_err();
    let text = chain(&error);
    ensure!(matches!(error, StoreError::Open { .. }), "{text}");
    ensure!(
        text.starts_with("failed to open the store at postgres://user:***@127.0.0.1:1/passrate"),
        "{text}"
    );
    ensure!(!text.contains("hunter2"), "password leaked: {text}");
    Ok(())
}
