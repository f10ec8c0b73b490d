//! `passrate evaluate` end to end: the upstream sample formats, ids resolved to pool tasks,
//! bad input named by file and line, and nothing written to `--out` unless the evaluation
//! finished.

mod common;

use common::passrate;
use passrate_schema::exit;

const CORRECT: &str = "def add(a, b):\n    return a + b\n";

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    fs_err::write(&path, text).expect("write");
    path
}

#[test]
fn human_eval_completions_and_evalplus_solutions_are_judged_with_pass_at_k() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = common::write_pool(&dir.path().join("pool"));
    let line = |task: &str, key: &str, text: &str| {
        serde_json::json!({ "task_id": task, key: text }).to_string() + "\n"
    };
    // Two samples of e2e/add (one right, one wrong), one of e2e/is_even continuing its
    // prompt, one of e2e/gcd that is prose (no code).
    let samples = [
        line("e2e/add", "solution", CORRECT),
        line("e2e/add", "solution", "def add(a, b):\n    return a - b\n"),
        line("e2e/is_even", "completion", "    return n % 2 == 0\n"),
        line("e2e/gcd", "solution", "I cannot help with that."),
    ]
    .concat();
    let file = write(dir.path(), "samples.jsonl", &samples);
    let out = dir.path().join("out");
    let run = passrate()
        .args(["evaluate", "--json", "--k", "1,2", "--pool"])
        .arg(&pool)
        .arg("--out")
        .arg(&out)
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(
        run.status.code(),
        Some(exit::OK),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).expect("one JSON document");
    assert_eq!(doc["samples"], 4);
    assert_eq!(doc["tasks"], 3);
    // pass@1 = mean over tasks of c/n = (1/2 + 1 + 0) / 3.
    let p1 = doc["pass_at_k"]["1"]["point"].as_f64().expect("pass@1");
    assert!((p1 - 0.5).abs() < 1e-9, "{doc}");
    assert!(
        doc["pass_at_k"]["2"].is_null(),
        "pass@2 needs two samples on every task: {doc}"
    );
    let reasons: Vec<&str> = doc["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["pass", "wrong_answer", "pass", "no_code"]);
    assert!((doc["compliance"].as_f64().unwrap() - 0.75).abs() < 1e-9);
    let results: serde_json::Value =
        serde_json::from_slice(&fs_err::read(out.join("eval_results.json")).expect("results"))
            .expect("JSON");
    assert_eq!(results["eval"]["e2e/add"].as_array().unwrap().len(), 2);
    assert_eq!(results["eval"]["e2e/add"][1]["plus_status"], "fail");
    assert_eq!(
        fs_err::read_to_string(out.join("samples.jsonl"))
            .unwrap()
            .lines()
            .count(),
        4
    );
}

#[test]
fn a_bad_sample_line_names_file_and_line_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = common::write_pool(&dir.path().join("pool"));
    let out = dir.path().join("out");
    let cases = [
        (
            "missing.jsonl",
            format!(
                "{}\n{{\"task_id\": \"e2e/add\"}}\n",
                serde_json::json!({"task_id": "e2e/add", "solution": CORRECT})
            ),
            ":2: missing field `completion` or `solution`",
        ),
        (
            "unknown.jsonl",
            format!(
                "{}\n{}\n",
                serde_json::json!({"task_id": "e2e/add", "solution": CORRECT}),
                serde_json::json!({"task_id": "e2e/nope", "solution": CORRECT})
            ),
            "line 2: benchmark `passrate-e2e` has no task `e2e/nope`",
        ),
        (
            "broken.jsonl",
            "{\"task_id\": \n".to_string(),
            ":1: not JSON",
        ),
    ];
    for (name, text, message) in cases {
        let file = write(dir.path(), name, &text);
        let run = passrate()
            .args(["evaluate", "--pool"])
            .arg(&pool)
            .arg("--out")
            .arg(&out)
            .arg(&file)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(exit::BAD_INPUT), "{name}: {stderr}");
        assert!(
            stderr.contains(name) && stderr.contains(message),
            "{name}: {stderr}"
        );
        assert!(!out.exists(), "{name}: --out was written");
    }
}

#[test]
fn results_already_in_out_are_never_overwritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = common::write_pool(&dir.path().join("pool"));
    let out = dir.path().join("out");
    fs_err::create_dir_all(&out).unwrap();
    fs_err::write(out.join("samples.jsonl"), "kept\n").unwrap();
    let file = write(
        dir.path(),
        "s.jsonl",
        &(serde_json::json!({"task_id": "e2e/add", "solution": CORRECT}).to_string() + "\n"),
    );
    let run = passrate()
        .args(["evaluate", "--pool"])
        .arg(&pool)
        .arg("--out")
        .arg(&out)
        .arg(&file)
        .output()
        .expect("run");
    assert_eq!(
        run.status.code(),
        Some(exit::USAGE),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        fs_err::read_to_string(out.join("samples.jsonl")).unwrap(),
        "kept\n"
    );
}

#[test]
fn list_names_the_benchmarks_the_pool_can_judge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = common::write_pool(&dir.path().join("pool"));
    let run = passrate()
        .args(["evaluate", "--list", "--json", "--pool"])
        .arg(&pool)
        .output()
        .expect("run");
    assert_eq!(run.status.code(), Some(exit::OK));
    let list: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_eq!(list[0]["name"], "passrate-e2e");
    assert_eq!(list[0]["tasks"], 6, "{list}");
}
