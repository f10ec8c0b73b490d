//! A hidden test shows only whether it passed and its verdict name, in every output of
//! `check`: an error message describes the hidden input as much as its expected value would.

mod common;

use common::{passrate, tasks, write_tasks};
use passrate_schema::Visibility;

/// Judges an answer to `e2e/add` (first test public, second hidden) which raises, naming the
/// input, only on the hidden test; returns stdout.
fn check_with_hidden_failure(json: bool) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut pool = tasks();
    let add = pool
        .iter_mut()
        .find(|t| t.id == "e2e/add")
        .expect("e2e/add");
    add.tests[0].visibility = Visibility::Public;
    add.tests[1].visibility = Visibility::Hidden;
    let pool_dir = write_tasks(&dir.path().join("pool"), pool);
    let answer = dir.path().join("answer.py");
    fs_err::write(
        &answer,
        "def add(a, b):\n    if a < 0:\n        raise ValueError(f'the secret input is {a}')\n    return a + b\n",
    )
    .expect("write the answer");
    let mut cmd = passrate();
    cmd.args(["check", "--task", "e2e/add", "--lang", "python", "--pool"])
        .arg(&pool_dir)
        .arg(&answer);
    if json {
        cmd.arg("--json");
    }
    let out = cmd.output().expect("run passrate check");
    assert!(
        out.status.success(),
        "check must reach a verdict: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("secret"),
        "stderr leaks the hidden test: {stderr}"
    );
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

#[test]
fn check_text_shows_a_failing_hidden_test_only_by_its_verdict_name() {
    let text = check_with_hidden_failure(false);
    assert!(text.starts_with("fail (runtime_error)"), "{text}");
    assert!(text.contains("hidden test 1: runtime_error"), "{text}");
    assert!(
        !text.contains("secret"),
        "the text leaks the hidden test's error: {text}"
    );
    assert!(
        !text.contains("-4"),
        "the text leaks the hidden input: {text}"
    );
}

#[test]
fn check_json_shows_a_failing_hidden_test_only_by_its_verdict_name() {
    let text = check_with_hidden_failure(true);
    assert!(
        !text.contains("secret"),
        "the JSON leaks the hidden test's error: {text}"
    );
    let verdict: serde_json::Value = serde_json::from_str(&text).expect("one JSON document");
    let test = |index: u64| {
        verdict["tests"]
            .as_array()
            .expect("tests")
            .iter()
            .find(|t| t["index"] == index)
            .unwrap_or_else(|| panic!("no test {index}: {verdict}"))
    };
    let hidden = test(1);
    assert_eq!(hidden["visibility"], "hidden");
    assert_eq!(hidden["passed"], false);
    assert_eq!(hidden["reason"], "runtime_error");
    let mut keys: Vec<&String> = hidden.as_object().expect("object").keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        ["index", "passed", "reason", "visibility"],
        "{hidden}"
    );
    assert!(verdict["detail"].is_null(), "{verdict}");
    // The public test keeps its details.
    assert_eq!(test(0)["visibility"], "public", "{verdict}");
    assert_eq!(test(0)["passed"], true);
}
