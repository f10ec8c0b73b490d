//! `passrate pool strength` on bundled tasks, through the real sandbox: mutants of the
//! reference are judged as answers are, every mutant is accounted for, and a buggy variant
//! the tests are known to catch is caught.

mod common;

use common::passrate;

fn strength(args: &[&str]) -> Vec<serde_json::Value> {
    let out = passrate()
        .args(["pool", "strength", "--json"])
        .args(args)
        .output()
        .expect("run passrate pool strength");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn mutants_of_a_bug_fixing_reference_are_killed_and_its_buggy_variant_caught() {
    let rows = strength(&[
        "--task",
        "humanevalfix/0",
        "--lang",
        "python",
        "--mutants",
        "6",
    ]);
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["task"], "humanevalfix/0");
    assert_eq!(r["language"], "python");
    let n = |k: &str| r[k].as_u64().unwrap_or_else(|| panic!("{k} in {r}"));
    assert!(n("mutants") >= 4, "{r}");
    let survivors = r["survivors"].as_array().expect("survivors").len() as u64;
    assert_eq!(
        n("killed") + survivors + n("stillborn"),
        n("mutants"),
        "{r}"
    );
    assert!(n("killed") >= 1, "{r}");
    // HumanEvalPack's buggy has_close_elements fails the task's tests (validation checks it).
    assert_eq!((n("faulty_killed"), n("faulty")), (1, 1), "{r}");
    let score = r["score"].as_f64().expect("a score");
    assert!((0.0..=1.0).contains(&score));
}

#[test]
fn an_unknown_task_is_bad_input() {
    let out = passrate()
        .args(["pool", "strength", "--task", "nope/1"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope/1"));
}
