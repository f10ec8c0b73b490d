//! Infrastructure faults through the real binary: a sandbox that breaks after its start-up
//! probe (a jail launcher that starts the real jail once, then exits 1) faults on the answer
//! and on the reference's control run alike, so `check` reports a sandbox failure (exit 5)
//! and `run` records `sandbox_error`, never a model's failure, with a `control_run` event per
//! unit; and `leaderboard` over a real SQLite store does not rank a model with 2% of its units
//! in faults while it ranks one with 0.5%.

mod common;
#[path = "../../passrate-engine/tests/fixtures/fault_store.rs"]
mod fault_store;

use std::path::{Path, PathBuf};

use common::{passrate, run_args, write_models, write_pool};
use fault_store::{MODELS, WEEK, fill};
use passrate_engine::REFERENCE_MODEL;
use passrate_schema::exit;
use passrate_store::Store;
use serde_json::Value as Json;

/// `passrate __jail` for the start-up probe, then a launcher that exits without a word.
fn broken_after_probe(dir: &Path) -> PathBuf {
    let script = dir.join("jail-once.sh");
    let marker = dir.join("probed");
    fs_err::write(
        &script,
        format!(
            "#!/bin/sh\nif mkdir '{}' 2>/dev/null; then exec '{}' __jail \"$@\"; fi\nexit 1\n",
            marker.display(),
            env!("CARGO_BIN_EXE_passrate")
        ),
    )
    .expect("write the launcher");
    let mut perms = fs_err::metadata(&script).expect("stat").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs_err::set_permissions(&script, perms).expect("chmod");
    script
}

#[test]
fn check_reports_a_sandbox_failure_when_the_reference_fails_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let answer = dir.path().join("answer.md");
    fs_err::write(
        &answer,
        "```python\ndef add(a, b):\n    return b + a\n```\n",
    )
    .expect("write");
    let output = passrate()
        .args(["check", "--task", "e2e/add", "--lang", "python", "--pool"])
        .arg(&pool)
        .arg(&answer)
        .env("PASSRATE_JAIL", broken_after_probe(dir.path()))
        .output()
        .expect("spawn passrate");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(exit::SANDBOX_ERROR), "{stderr}");
    assert!(output.stdout.is_empty(), "no verdict is printed");
    assert!(stderr.contains("sandbox"), "{stderr}");
}

#[test]
fn a_run_on_a_broken_sandbox_records_no_model_failure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let models = write_models(dir.path(), false);
    let data = dir.path().join("data");
    let output = passrate()
        .args(run_args(&pool, &models, &data))
        .arg("--json")
        .env("PASSRATE_JAIL", broken_after_probe(dir.path()))
        .output()
        .expect("spawn passrate");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let events: Vec<Json> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect();
    let of = |kind: &str| -> Vec<&Json> { events.iter().filter(|e| e["event"] == kind).collect() };
    let finished = of("task_finished");
    assert_eq!(finished.len(), 30, "{stderr}");
    // Every answer that reached the sandbox faulted (answers without code never do).
    let faulted = finished
        .iter()
        .filter(|e| e["reason"] == "sandbox_error")
        .count();
    for e in &finished {
        assert!(
            e["reason"] == "sandbox_error" || e["reason"] == "no_answer",
            "{e}"
        );
    }
    assert!(faulted >= 20, "{faulted} faulted units");
    // One control per faulted unit: the reference failed as the answer did, so nobody is
    // blamed.
    let controls = of("control_run");
    assert_eq!(controls.len(), faulted, "{stderr}");
    for c in &controls {
        assert_eq!(c["candidate_caused"], false, "{c}");
        assert_eq!(c["recorded"], "sandbox_error", "{c}");
        assert_eq!(c["attempts"], 4, "{c}");
    }
    // The models whose every answer faulted have no scored task and get no record.
    for model in ["lazy", REFERENCE_MODEL] {
        assert!(
            of("model_unscored").iter().any(|e| e["model"] == model),
            "{model}: {stderr}"
        );
    }
}

#[test]
fn leaderboard_does_not_rank_a_model_over_one_percent_faults() {
    let dir = tempfile::tempdir().expect("tempdir");
    let location = dir.path().join("board.sqlite3").display().to_string();
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(async {
            let store = Store::open(&location).await?;
            fill(&store, &MODELS).await?;
            store.close().await;
            anyhow::Ok(())
        })
        .expect("fill the store");
    let leaderboard = |json: bool| {
        let mut cmd = passrate();
        cmd.args(["leaderboard", "--week", WEEK, "--database", &location]);
        if json {
            cmd.arg("--json");
        }
        let output = cmd.output().expect("spawn passrate");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("UTF-8")
    };

    let text = leaderboard(false);
    let unranked_at = text
        .find("not ranked: infrastructure faults above 1.0% of the model's units")
        .unwrap_or_else(|| panic!("an unranked section:\n{text}"));
    let faulty = text
        .lines()
        .find(|l| l.starts_with("faulty "))
        .unwrap_or_else(|| panic!("a faulty row:\n{text}"));
    assert!(
        faulty.ends_with("not ranked: 4 infrastructure faults (2.0% of 200 units), re-run to rank"),
        "{faulty}"
    );
    assert!(text.find(faulty).expect("row") > unranked_at);
    // `steady` is ranked: its row is in the ranked table, above the unranked section.
    let steady = text.find("steady").expect("steady's row");
    assert!(steady < unranked_at, "{text}");
    assert!(text.contains(
        "infrastructure faults (not scored; `u` = tasks left unscored): steady 1 (0.5% of 200 \
         units), faulty 4 (2.0% of 200 units)"
    ));
    insta::with_settings!({ snapshot_path => "snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("leaderboard_unranked", text);
    });

    let board: Json = serde_json::from_str(&leaderboard(true)).expect("JSON");
    let models = |section: &str| -> Vec<String> {
        board[section]
            .as_array()
            .expect("a section")
            .iter()
            .map(|r| r["record"]["model"].as_str().expect("model").to_string())
            .collect()
    };
    assert_eq!(models("unranked"), ["faulty"]);
    let mut ranked = models("ranked");
    ranked.sort();
    assert_eq!(ranked, ["clean", "steady"]);
    let row = &board["unranked"][0];
    assert_eq!(row["section"], "unranked");
    assert_eq!(row["rank"], Json::Null);
    assert_eq!(row["infrastructure_faults"], 4);
    assert_eq!(row["units"], 200);
    assert_eq!(row["fault_share"], 0.02);
    assert_eq!(board["options"]["max_fault_share"], 0.01);
    assert_eq!(board["alerts"], serde_json::json!([]));
}
