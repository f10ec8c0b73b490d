//! End-to-end cycles through the real binary, the real sandbox and a real SQLite store:
//! leaderboard output, idempotent re-runs, kill -9 and resume, and infrastructure faults
//! that never count as model failures.

mod common;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use common::{WEEK, passrate, run_args, write_models, write_pool};
use serde_json::Value as Json;

fn run_ok(args: &[String]) -> (String, String) {
    let output = passrate().args(args).output().expect("spawn passrate");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "passrate {args:?} failed ({}):\n{stderr}\n{stdout}",
        output.status
    );
    (stdout, stderr)
}

fn json_lines(text: &str) -> Vec<Json> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect()
}

/// Each model's stored records, without the time each was appended.
fn records(data: &std::path::Path, models: &[&str]) -> Vec<Json> {
    let mut all = Vec::new();
    for model in models {
        let (stdout, _) = run_ok(&[
            "history".into(),
            (*model).into(),
            "--json".into(),
            "--data-dir".into(),
            data.display().to_string(),
        ]);
        for mut stored in json_lines(&stdout) {
            stored.as_object_mut().unwrap().remove("recorded_at");
            all.push(stored);
        }
    }
    all
}

#[test]
fn a_cycle_prints_the_leaderboard_and_a_rerun_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let pool = write_pool(&dir.path().join("pool"));
    let models = write_models(dir.path(), false);
    let data = dir.path().join("data");
    let args = run_args(&pool, &models, &data);

    let (first, stderr) = run_ok(&args);
    assert!(
        stderr.contains("30 units judged, 0 already stored, 3 record(s) appended"),
        "{stderr}"
    );
    insta::with_settings!({filters => vec![
        (r"seed [0-9a-f]{12}", "seed [SEED]"),
        (r"pool [0-9a-f]{12}", "pool [POOL]"),
    ]}, {
        insta::assert_snapshot!("fixture_leaderboard", first);
    });

    // The same command again: the run is found, nothing is judged or appended, and the
    // leaderboard is the same.
    let (second, stderr) = run_ok(&args);
    assert!(
        stderr.contains("(resumed): 0 units judged, 30 already stored, 0 record(s) appended"),
        "{stderr}"
    );
    assert_eq!(first, second);

    // `leaderboard` reads back exactly what `run` printed.
    let (board, _) = run_ok(&[
        "leaderboard".into(),
        "--week".into(),
        WEEK.into(),
        "--data-dir".into(),
        data.display().to_string(),
    ]);
    assert_eq!(board, first);
    let history = records(&data, &["reference", "known-buggy", "lazy"]);
    assert_eq!(history.len(), 3, "one record per model, never duplicated");
    for stored in &history {
        assert_eq!(stored["record"]["record_version"], 1);
        assert_eq!(stored["record"]["week"], WEEK);
        let provenance = &stored["record"]["provenance"];
        assert!(
            provenance["runtime_versions"]["python"].is_string(),
            "{provenance}"
        );
        assert_eq!(
            provenance["extractor_version"],
            passrate_extract::EXTRACTOR_VERSION
        );
    }

    // `quality` explains the model's quality scores from the same store, task by task; the
    // controls are not checked.
    let quality = |model: &str, json: bool| {
        let mut args = vec![
            "quality".to_string(),
            "--model".into(),
            model.into(),
            "--data-dir".into(),
            data.display().to_string(),
        ];
        if json {
            args.push("--json".into());
        }
        run_ok(&args).0
    };
    let report: Json = serde_json::from_str(&quality("lazy", true)).expect("one JSON document");
    let lazy = history
        .iter()
        .find(|s| s["record"]["model"] == "lazy")
        .unwrap();
    assert_eq!(report["scores"], lazy["record"]["quality"], "{report}");
    let units = report["units"].as_array().unwrap();
    assert!(!units.is_empty(), "{report}");
    for unit in units {
        assert!(unit["quality"]["maintainability"].is_object(), "{unit}");
    }
    let text = quality("lazy", false);
    assert!(text.contains("maintainability  100.0 ["), "{text}");
    assert!(text.contains("within band"), "{text}");
    let reference = quality("reference", true);
    let reference: Json = serde_json::from_str(&reference).unwrap();
    assert!(reference["scores"].is_null() && reference["units"] == serde_json::json!([]));
}

#[test]
fn a_run_killed_mid_way_resumes_to_the_same_records() {
    let dir = tempfile::tempdir().unwrap();
    let pool = write_pool(&dir.path().join("pool"));
    let models = write_models(dir.path(), false);

    // Reference: an uninterrupted run.
    let whole = dir.path().join("whole");
    run_ok(&run_args(&pool, &models, &whole));

    // Interrupted: kill -9 after a few units were committed.
    let killed = dir.path().join("killed");
    let mut args = run_args(&pool, &models, &killed);
    args.push("--json".into());
    let mut child = passrate()
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn passrate");
    let mut seen = 0;
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    while seen < 8 {
        let line = lines.next().expect("events until the kill").unwrap();
        if line.contains("\"task_finished\"") {
            seen += 1;
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    drop(lines);

    let (stdout, _) = run_ok(&args);
    let events = json_lines(&stdout);
    let finished: Vec<&Json> = events
        .iter()
        .filter(|e| e["event"] == "task_finished")
        .collect();
    assert_eq!(finished.len(), 30, "every unit reported once");
    let resumed = finished.iter().filter(|e| e["cached"] == true).count();
    assert!(resumed >= 8, "the committed units were kept ({resumed})");
    assert!(resumed < 30, "the kill landed before the end ({resumed})");
    assert_eq!(events.last().unwrap()["event"], "leaderboard");

    let mut a = records(&whole, &["reference", "known-buggy", "lazy"]);
    let mut b = records(&killed, &["reference", "known-buggy", "lazy"]);
    // Separate stores start their runs at different times; everything else must match.
    for r in a.iter_mut().chain(b.iter_mut()) {
        r["record"].as_object_mut().unwrap().remove("evaluated_at");
    }
    assert_eq!(a, b);
}

#[test]
fn api_errors_leave_a_model_unscored_and_are_retried_when_the_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let pool = write_pool(&dir.path().join("pool"));
    let models = write_models(dir.path(), true);
    let data = dir.path().join("data");
    let mut args = run_args(&pool, &models, &data);
    args.push("--json".into());

    // Every request fails: the units are `api_error`, never a wrong answer; the model gets no
    // score record (it was not scored on anything), and the run exits 7 saying why.
    let output = passrate().args(&args).output().expect("spawn passrate");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(7), "{stderr}");
    assert!(stderr.contains("flaky-api"), "{stderr}");
    let events = json_lines(&stdout);
    let unscored = events
        .iter()
        .find(|e| e["event"] == "model_unscored")
        .expect("a model_unscored event");
    assert_eq!(unscored["model"], "flaky-api");
    assert_eq!(unscored["api_errors"], 10, "{unscored}");
    assert!(
        unscored["first_error"].as_str().unwrap().contains("75"),
        "the first error's detail: {unscored}"
    );
    // Each failed attempt is an event (one retry per unit: two attempts).
    let retries = events.iter().filter(|e| e["event"] == "api_retry").count();
    assert_eq!(retries, 20, "two attempts per unit");
    let board = &events.last().unwrap()["leaderboard"];
    let all: Vec<&Json> = ["ranked", "partial", "controls"]
        .iter()
        .flat_map(|s| board[s].as_array().unwrap().iter())
        .collect();
    assert!(all.iter().all(|r| r["record"]["model"] != "flaky-api"));
    for row in &all {
        assert_eq!(row["record"]["overall"]["total"], 10, "{row}");
    }

    // The API recovers; the same command resumes the run and retries exactly those units.
    fs_err::write(
        dir.path().join("flaky.sh"),
        "exec python3 \"$(dirname \"$0\")/lazy_model.py\"\n",
    )
    .unwrap();
    let (stdout, _) = run_ok(&args);
    let events = json_lines(&stdout);
    let judged: Vec<&Json> = events
        .iter()
        .filter(|e| e["event"] == "task_finished" && e["cached"] == false)
        .collect();
    assert_eq!(judged.len(), 10, "only the failed units run again");
    assert!(judged.iter().all(|e| e["model"] == "flaky-api"));
    let board = &events.last().unwrap()["leaderboard"];
    let flaky = ["ranked", "partial", "controls"]
        .iter()
        .flat_map(|s| board[s].as_array().unwrap().iter())
        .find(|r| r["record"]["model"] == "flaky-api")
        .expect("scored after the retry");
    assert_eq!(flaky["record"]["overall"]["total"], 10);
    assert!(
        flaky["record"]["reasons"].get("api_error").is_none(),
        "{flaky}"
    );
}
