//! Issue 23, bad input, through the binary: a pool task file with a key passrate does not
//! know, replay files that cannot be read, and numeric limits too large to convert are each
//! refused with a message that says where (file, line, field; or the flag and its range),
//! never accepted silently or wrapped into another value. (A store on a read-only mount is
//! `store_locations.rs`.)

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use assert_cmd::prelude::*;
use common::{passrate, run_args, write_pool};
use passrate_schema::exit;
use predicates::prelude::*;

/// The fixture pool's only task file, decompressed, one JSON object per line.
fn task_lines(pool: &Path) -> (PathBuf, Vec<serde_json::Value>) {
    let file = pool.join("tasks/e2e.jsonl.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(fs_err::File::open(&file).expect("the fixture task file"))
        .read_to_string(&mut text)
        .expect("gzip");
    let lines = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a task line"))
        .collect();
    (file, lines)
}

fn write_gz(path: &Path, bytes: &[u8]) {
    let mut gz = flate2::write::GzEncoder::new(
        fs_err::File::create(path).expect("writable"),
        flate2::Compression::default(),
    );
    gz.write_all(bytes).expect("write");
    gz.finish().expect("gzip");
}

/// Writes `lines` back over the task file.
fn rewrite(file: &Path, lines: &[serde_json::Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    write_gz(file, text.as_bytes());
}

#[test]
fn an_unknown_key_in_a_pool_task_file_is_bad_input_naming_file_line_and_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let (file, good) = task_lines(&pool);
    let pool_arg = pool.display().to_string();
    passrate()
        .args(["pool", "show", "e2e/add", "--pool", &pool_arg])
        .assert()
        .code(exit::OK);

    // Commands that load the whole pool (`stats`, `run`, `validate`) read every line; `show`
    // and `check` read only their task's.
    // Top level, line 3: `comparater` for `comparator` used to leave the exact comparator.
    let mut lines = good.clone();
    lines[2]["comparater"] = serde_json::json!({"abs_tol": 0.01});
    rewrite(&file, &lines);
    let column = lines[2]
        .to_string()
        .find("\"comparater\"")
        .expect("the key")
        + 1;
    let out = passrate()
        .args(["pool", "stats", "--pool", &pool_arg])
        .assert()
        .code(exit::BAD_INPUT)
        .stderr(predicate::str::contains("tasks/e2e.jsonl.gz:3:"))
        .stderr(predicate::str::contains("unknown field `comparater`"))
        .get_output()
        .stderr
        .clone();
    // The column is in the key (the parser stops just past it).
    let stderr = String::from_utf8_lossy(&out);
    let at = stderr
        .split("tasks/e2e.jsonl.gz:3:")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|c| c.parse::<usize>().ok())
        .expect("a column after the line");
    assert!(
        (column..=column + "\"comparater\"".len()).contains(&at),
        "{stderr}"
    );

    // Nested, line 5: a misspelt key inside a test (flattened into its form).
    let mut lines = good;
    lines[4]["tests"][1]["comparator"] = serde_json::json!({"abs_tol": 0.1, "reltol": 0.1});
    rewrite(&file, &lines);
    passrate()
        .args(["pool", "stats", "--pool", &pool_arg])
        .assert()
        .code(exit::BAD_INPUT)
        .stderr(predicate::str::contains("tasks/e2e.jsonl.gz:5:"))
        .stderr(predicate::str::contains("at `tests[1].comparator.reltol`"))
        .stderr(predicate::str::contains("unknown field `reltol`"));
}

/// `passrate run` with a models.toml whose only model replays `file` (in `dir`).
fn run_replay(dir: &Path, file: &str) -> assert_cmd::assert::Assert {
    let pool = write_pool(&dir.join("pool"));
    let models = dir.join("models.toml");
    fs_err::write(
        &models,
        format!("# answers recorded earlier\n[[model]]\nid = \"replayed\"\nadapter = \"replay\"\nfile = \"{file}\"\n"),
    )
    .expect("write models.toml");
    passrate()
        .args(run_args(&pool, &models, &dir.join("data")))
        .assert()
        .code(exit::BAD_INPUT)
        .stderr(predicate::str::contains(format!(
            "{}:5:8: model `replayed`: failed to load the replay file",
            models.display()
        )))
}

#[test]
fn a_missing_replay_file_is_reported_at_the_models_toml_line_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    run_replay(dir.path(), "gone.jsonl")
        .stderr(predicate::str::contains("gone.jsonl"))
        .stderr(predicate::str::contains("No such file"));
}

#[test]
fn invalid_utf8_in_a_replay_is_reported_by_line_not_byte_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs_err::write(
        dir.path().join("bad.jsonl"),
        b"{\"task\": \"e2e/add\", \"text\": \"x\"}\n{\"task\": \"e2e/sub\", \"text\": \"\xff\"}\n",
    )
    .expect("write");
    run_replay(dir.path(), "bad.jsonl")
        .stderr(predicate::str::contains("bad.jsonl:2:"))
        .stderr(predicate::str::contains("invalid UTF-8"));
}

#[test]
fn a_truncated_gzipped_replay_names_the_line_reached() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lines: String = (0..4_000)
        .map(|i| format!("{{\"task\": \"e2e/t{i}\", \"text\": \"answer {i}\"}}\n"))
        .collect();
    let whole = dir.path().join("whole.gz");
    write_gz(&whole, lines.as_bytes());
    let bytes = fs_err::read(&whole).expect("read");
    fs_err::write(
        dir.path().join("cut.jsonl.gz"),
        &bytes[..bytes.len() * 2 / 3],
    )
    .expect("write");
    run_replay(dir.path(), "cut.jsonl.gz")
        .stderr(predicate::str::is_match(r"cut\.jsonl\.gz:[1-9][0-9]*: ").expect("regex"))
        .stderr(predicate::str::contains("truncated or corrupt"));
}

/// A trivial program for `sandbox exec`.
fn program(dir: &Path) -> String {
    let path = dir.join("hello.py");
    fs_err::write(&path, "print('hello')\n").expect("write");
    path.display().to_string()
}

#[test]
fn cli_limits_out_of_range_are_usage_errors_naming_the_flag_and_range() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = program(dir.path());
    // The values of the issue: 2^44 + 16 MiB ran with 16 MiB, 2^63 ms of CPU killed a
    // trivial program in 5 ms.
    for (flag, value, range) in [
        ("--memory-mib", "17592186044432", "8..=1048576"),
        ("--cpu-ms", "9223372036854775808", "1..=86400000"),
        ("--wall-ms", "18446744073709551615", "1..=259200000"),
        ("--heap-mib", "17592186044432", "1..=1048576"),
        ("--pids", "4294967295", "1..=4194304"),
        ("--memory-mib", "4", "8..=1048576"),
        ("--cpu-ms", "0", "1..=86400000"),
    ] {
        passrate()
            .args(["sandbox", "exec", "--lang", "python", flag, value, &file])
            .assert()
            .code(exit::USAGE)
            .stderr(predicate::str::contains(flag))
            .stderr(predicate::str::contains(format!(
                "{value} is not in {range}"
            )));
    }
    for args in [
        ["pool", "validate", "--slots", "0"],
        ["pool", "validate", "--threads", "18446744073709551615"],
        ["pool", "import", "--slots", "100000"],
        ["bench", "runner", "--slots", "0"],
    ] {
        passrate()
            .args(args)
            .assert()
            .code(exit::USAGE)
            .stderr(predicate::str::contains(args[2]))
            .stderr(predicate::str::contains("is not in"));
    }
}

#[test]
fn cli_limits_in_range_reach_the_sandbox_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = program(dir.path());
    // The largest accepted values run the program (nothing wrapped into a tiny limit).
    let out = passrate()
        .args(["sandbox", "exec", "--lang", "python", "--json"])
        .args(["--cpu-ms", "86400000", "--wall-ms", "60000"])
        .args(["--memory-mib", "1048576", "--heap-mib", "1048576", &file])
        .assert()
        .code(exit::OK)
        .get_output()
        .stdout
        .clone();
    let outcome: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
    assert_eq!(outcome["status"], "ok", "{outcome}");
    assert_eq!(outcome["stdout"], "hello\n", "{outcome}");
    // And a memory limit is that limit: 32 MiB of Python data fit in 64 MiB, not in 16.
    let hog = dir.path().join("hog.py");
    fs_err::write(&hog, "x = bytearray(32 << 20)\nprint(len(x))\n").expect("write");
    for (mib, status) in [("64", "ok"), ("16", "memory_limit")] {
        let out = passrate()
            .args(["sandbox", "exec", "--lang", "python", "--json"])
            .args(["--memory-mib", mib, "--heap-mib", "1024"])
            .arg(&hog)
            .assert()
            .code(exit::OK)
            .get_output()
            .stdout
            .clone();
        let outcome: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
        assert_eq!(outcome["status"], status, "{mib} MiB: {outcome}");
    }
}

/// A task's own limit overrides are converted to CPU microseconds and memory bytes by the
/// runner: out of the sandbox's range they used to wrap into a tiny limit. They are refused
/// when the pool loads, naming the task's line and the field.
#[test]
fn a_task_limit_out_of_range_is_bad_input_naming_line_and_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let (file, good) = task_lines(&pool);
    let pool_arg = pool.display().to_string();
    for (field, value) in [
        ("memory_mib", 17_592_186_044_432u64),
        ("cpu_ms", 9_223_372_036_854_775_808),
    ] {
        let mut lines = good.clone();
        lines[1]["limits"] = serde_json::json!({ field: value });
        rewrite(&file, &lines);
        passrate()
            .args(["pool", "show", "e2e/add", "--pool", &pool_arg])
            .assert()
            .code(exit::BAD_INPUT)
            .stderr(predicate::str::contains(
                "tasks/e2e.jsonl.gz:2: task `e2e/add`",
            ))
            .stderr(predicate::str::contains(format!(
                "`limits.{field}` = {value} is out of range"
            )));
    }
}
