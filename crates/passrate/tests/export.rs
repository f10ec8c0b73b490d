//! `passrate export`: every unit behind a week's board or of a run, as JSON Lines or CSV.

mod common;

use common::{WEEK, passrate, run_args, write_models, write_pool};
use passrate_schema::exit;

fn ok(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().expect("run passrate");
    assert_eq!(
        out.status.code(),
        Some(exit::OK),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn a_weeks_units_export_as_json_lines_and_csv_with_one_row_each() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let models = write_models(dir.path(), false);
    let data = dir.path().join("data");
    ok(passrate().args(run_args(&pool, &models, &data)));
    let data_arg = data.display().to_string();

    let lines = ok(passrate().args(["export", "--week", WEEK, "--data-dir", &data_arg]));
    let rows: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    // Three models (lazy, reference, known-buggy) × the 10 tasks of the sample.
    assert_eq!(rows.len(), 30, "{lines}");
    let lazy: Vec<&serde_json::Value> = rows.iter().filter(|r| r["model"] == "lazy").collect();
    assert_eq!(lazy.len(), 10);
    let is_even = lazy
        .iter()
        .find(|r| r["task"] == "e2e/is_even")
        .expect("e2e/is_even is sampled");
    assert_eq!(is_even["verdict"], "pass");
    assert!(is_even["answer"].as_str().unwrap().contains("def is_even"));
    assert_eq!(
        is_even["extracted_code"],
        "def is_even(n):\n    return n % 2 == 0\n"
    );
    assert!(rows.iter().all(|r| r["run_id"] == rows[0]["run_id"]));

    let one = ok(passrate().args([
        "export",
        "--week",
        WEEK,
        "--model",
        "lazy",
        "--format",
        "csv",
        "--data-dir",
        &data_arg,
    ]));
    let mut csv = one.lines();
    assert_eq!(
        csv.next(),
        Some(
            "run_id,model,task,language,category,tier,sample,verdict,reason,detail,answer,extracted_code,input_tokens,output_tokens,cost_usd,cpu_ms"
        )
    );
    // Answers span lines: count records by their run id at the start of a line.
    let run_id = rows[0]["run_id"].as_str().unwrap();
    assert_eq!(
        one.lines()
            .filter(|l| l.starts_with(&format!("{run_id},lazy,")))
            .count(),
        10
    );

    // The same units by run id.
    let by_run = ok(passrate().args(["export", "--run", run_id, "--data-dir", &data_arg]));
    assert_eq!(by_run, lines);
}

#[test]
fn export_of_an_unknown_run_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let models = write_models(dir.path(), false);
    let data = dir.path().join("data");
    ok(passrate().args(run_args(&pool, &models, &data)));
    let out = passrate()
        .args(["export", "--run", "nope", "--data-dir"])
        .arg(&data)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(exit::USAGE));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no run nope"));
}
