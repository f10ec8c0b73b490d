//! Every exit code of README's table (`passrate_schema::exit`), returned by the real binary
//! in a case that provokes it, with the message that says why. Each case is cheap: the
//! sandbox cases fail at start-up, the model API case at the pre-flight.

mod common;

use std::path::Path;
use std::process::Stdio;

use assert_cmd::prelude::*;
use common::{passrate, run_args, write_pool, write_tasks};
use passrate_schema::exit;
use predicates::prelude::*;

/// A candidate that `check` judges compliant, so it goes on to start the sandbox.
fn candidate(dir: &Path) -> String {
    let path = dir.join("answer.md");
    fs_err::write(&path, "```python\ndef add(a, b):\n    return a + b\n```\n").expect("write");
    path.display().to_string()
}

fn check_args(pool: &Path, file: &str) -> Vec<String> {
    ["check", "--task", "e2e/add", "--lang", "python", "--pool"]
        .iter()
        .map(|s| s.to_string())
        .chain([pool.display().to_string(), file.to_string()])
        .collect()
}

#[test]
fn ok_0_when_the_command_did_what_was_asked() {
    passrate()
        .args(["schema"])
        .assert()
        .code(exit::OK)
        .stdout(predicate::str::contains("score-record"));
}

/// A write to stdout that fails (a full disk) used to panic (exit 101) in `println!`.
#[test]
fn internal_1_when_stdout_cannot_be_written() {
    let full = fs_err::File::options()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    passrate()
        .args(["schema", "task"])
        .stdout(Stdio::from(full.into_parts().0))
        .assert()
        .code(exit::INTERNAL)
        .stderr(predicate::str::contains("failed to write to stdout"))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn usage_2_for_a_malformed_command_line() {
    passrate().args(["pool", "show"]).assert().code(exit::USAGE);
    // Values clap cannot check on its own are usage errors too.
    passrate()
        .args(["sample", "--share", "nonsense=1"])
        .assert()
        .code(exit::USAGE)
        .stderr(predicate::str::contains("unknown category `nonsense`"));
    passrate()
        .args(["leaderboard", "--database", "mysql://localhost/x"])
        .assert()
        .code(exit::USAGE)
        .stderr(predicate::str::contains("unknown database scheme"));
}

/// `pool show` of an unknown id used to exit 2 (usage): the command line was well formed,
/// the id is input the pool does not hold.
#[test]
fn bad_input_3_for_an_unknown_task_a_missing_file_or_an_unreadable_pool() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let pool_arg = pool.display().to_string();
    passrate()
        .args(["pool", "show", "e2e/nope", "--pool", &pool_arg])
        .assert()
        .code(exit::BAD_INPUT)
        .stderr(predicate::str::contains("no task `e2e/nope` in pool"));
    passrate()
        .args(["check", "--task", "e2e/nope", "--lang", "python"])
        .args(["--pool", &pool_arg, "-"])
        .stdin(Stdio::null())
        .assert()
        .code(exit::BAD_INPUT)
        .stderr(predicate::str::contains("e2e/nope"));
    let missing = dir.path().join("missing.md").display().to_string();
    passrate()
        .args([
            "extract",
            "--lang",
            "python",
            "--entry-point",
            "f",
            &missing,
        ])
        .assert()
        .code(exit::BAD_INPUT)
        .stderr(predicate::str::contains(&missing));
    let not_a_pool = dir.path().join("not-a-pool").display().to_string();
    passrate()
        .args(["sample", "--pool", &not_a_pool])
        .assert()
        .code(exit::BAD_INPUT)
        .stderr(predicate::str::contains("failed to load the pool"));
}

/// The sandbox's cgroup root pointed where no cgroup can be created: the host cannot
/// sandbox, and the message says what to do.
#[test]
fn sandbox_unavailable_4_when_the_host_cannot_sandbox() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let file = candidate(dir.path());
    passrate()
        .args(check_args(&pool, &file))
        .env("PASSRATE_CGROUP_ROOT", dir.path().join("no/such/cgroup"))
        .assert()
        .code(exit::SANDBOX_UNAVAILABLE)
        .stderr(predicate::str::contains("the host cannot run the sandbox"))
        .stderr(predicate::str::contains("hint:"))
        .stdout(predicate::str::is_empty());
}

/// A jail launcher that exits without a word (`/bin/false`): the sandbox fails while
/// running its start-up probe, an infrastructure fault and never a verdict.
#[test]
fn sandbox_error_5_when_the_sandbox_fails_while_running() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let file = candidate(dir.path());
    passrate()
        .args(check_args(&pool, &file))
        .env("PASSRATE_JAIL", "/bin/false")
        .assert()
        .code(exit::SANDBOX_ERROR)
        .stderr(predicate::str::contains("sandbox failure"))
        .stdout(predicate::str::is_empty());
}

#[test]
fn store_error_6_when_a_reader_finds_no_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data").display().to_string();
    passrate()
        .args(["history", "m", "--data-dir", &data])
        .assert()
        .code(exit::STORE_ERROR)
        .stderr(predicate::str::contains(&data));
}

/// An API model whose endpoint nothing listens on: the pre-flight fails and nothing runs.
/// (Units left in `api_error` after a run exit 7 too: `cycle.rs` and `weekly.rs`.)
#[test]
fn model_api_error_7_when_the_pre_flight_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let models = dir.path().join("models.toml");
    fs_err::write(
        &models,
        format!(
            "[[model]]\nid = \"remote\"\nadapter = \"openai\"\n\
             endpoint = \"http://127.0.0.1:{port}/v1\"\nmodel = \"m\"\n\
             api_key_env = \"PASSRATE_TEST_KEY\"\nmax_retries = 0\n"
        ),
    )
    .expect("write models.toml");
    passrate()
        .args(run_args(&pool, &models, &dir.path().join("data")))
        .env("PASSRATE_TEST_KEY", "sk-test")
        .assert()
        .code(exit::MODEL_API_ERROR)
        .stderr(predicate::str::contains("pre-flight"))
        .stderr(predicate::str::contains(format!("127.0.0.1:{port}")));
}

/// `pool validate` used to exit 1 when it rejected tasks: a reference that fails its own
/// tests is rejected, listed on stdout, and the exit code is 8.
#[test]
fn validation_failed_8_when_pool_validate_rejects_a_task() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut tasks = common::plus_tasks(2);
    // Suites that meet validation's minimum (5 tests), so that only the wrong reference
    // is rejected.
    for (k, task) in tasks.iter_mut().enumerate() {
        for x in [0, 7] {
            task.tests.push(common::call(
                vec![common::int(x)],
                common::int(x + k as i64),
            ));
        }
    }
    let variant = tasks[1]
        .variants
        .get_mut(&passrate_schema::Language::Python)
        .expect("a Python variant");
    variant.reference_solution = "def plus_1(x):\n    return x\n".to_string();
    let pool = write_tasks(&dir.path().join("pool"), tasks);
    passrate()
        .args(["pool", "validate", "--pool"])
        .arg(&pool)
        .assert()
        .code(exit::VALIDATION_FAILED)
        .stdout(predicate::str::contains("rejected e2e/plus_1"))
        .stdout(predicate::str::contains("e2e/plus_0").not())
        .stderr(predicate::str::contains(
            "pool validation rejected 1 of 2 tasks",
        ));
}
