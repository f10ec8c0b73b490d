//! One snapshot per cheap command of the real binary (as uv's `uv_snapshot!`): exit code,
//! stdout and stderr together, with temporary paths, hashes and times filtered, so a change
//! to what a user sees shows up as a diff to review. The fixture pool keeps the data stable.
//!
//! After an intended change: `INSTA_UPDATE=always cargo test -p passrate --test
//! cli_snapshots` (or `cargo insta review`), then read the diff of `tests/snapshots/`.
//! Not here: `passrate --help`, `sandbox` and `serve`, whose commands are being added to, and
//! commands that take minutes (`run`, `pool validate`, `pool import`, `bench`).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{passrate, write_pool};

/// `success`, `exit_code`, stdout and stderr in one text, as uv's snapshots show them.
fn render(cmd: &mut Command) -> String {
    // No terminal anywhere and no COLUMNS, so help wraps at clap's default width (100) and
    // no spinner shows.
    let out = cmd
        .stdin(Stdio::null())
        .env_remove("COLUMNS")
        .env_remove("CI")
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    format!(
        "success: {}\nexit_code: {}\n----- stdout -----\n{}\n----- stderr -----\n{}",
        out.status.success(),
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Snapshots `cmd` under `name` with `dir` shown as `[TEMP]`, hashes as `[HASH]` and
/// durations as `[TIME]`.
fn snapshot(name: &str, dir: &Path, cmd: &mut Command) {
    let text = render(cmd);
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&dir.display().to_string()), "[TEMP]");
    settings.add_filter(r"\b[0-9a-f]{12,64}\b", "[HASH]");
    settings.add_filter(r"\b\d+(\.\d+)? (s|ms)\b", "[TIME]");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect()
}

/// Fixture sample options: the fixture holds function completion and bug fixing only, and
/// too few tasks for a drift panel.
const FIXTURE_SCHEDULE: &[&str] = &[
    "--panel-size",
    "0",
    "--share",
    "algorithm_implementation=0",
    "--share",
    "code_translation=0",
    "--share",
    "documentation_generation=0",
    "--share",
    "unit_test_writing=0",
    "--share",
    "refactoring=0",
];

#[test]
fn help_of_each_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    for command in [
        vec!["sample"],
        vec!["check"],
        vec!["extract"],
        vec!["evaluate"],
        vec!["export"],
        vec!["pool"],
        vec!["pool", "stats"],
        vec!["pool", "show"],
        vec!["pool", "validate"],
        vec!["pool", "rotation"],
        vec!["pool", "import"],
        vec!["pool", "perf"],
        vec!["run"],
        vec!["quality"],
        vec!["leaderboard"],
        vec!["history"],
        vec!["schema"],
        vec!["completions"],
        vec!["man"],
    ] {
        let name = format!("help_{}", command.join("_"));
        snapshot(&name, dir.path(), passrate().args(&command).arg("--help"));
    }
}

#[test]
fn schema_lists_the_documents() {
    let dir = tempfile::tempdir().expect("tempdir");
    snapshot("schema", dir.path(), passrate().arg("schema"));
}

#[test]
fn extract_text_and_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let answer = dir.path().join("answer.md");
    fs_err::write(
        &answer,
        "Here you go:\n```python\ndef add(a, b):\n    return a + b\n```\nHope it helps.\n",
    )
    .expect("write");
    let prose = dir.path().join("prose.md");
    fs_err::write(&prose, "I cannot help with that.\n").expect("write");
    let args = ["extract", "--lang", "python", "--entry-point", "add"];
    snapshot("extract", dir.path(), passrate().args(args).arg(&answer));
    snapshot(
        "extract_json",
        dir.path(),
        passrate().args(args).arg("--json").arg(&answer),
    );
    snapshot(
        "extract_prose",
        dir.path(),
        passrate().args(args).arg(&prose),
    );
    snapshot(
        "extract_missing_file",
        dir.path(),
        passrate().args(args).arg(dir.path().join("missing.md")),
    );
}

#[test]
fn sample_of_a_week() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let sample = |extra: &[&str]| {
        let mut cmd = passrate();
        cmd.args(["sample", "--week", common::WEEK, "--size", "10", "--pool"])
            .arg(&pool)
            .args(FIXTURE_SCHEDULE)
            .args(extra);
        cmd
    };
    snapshot("sample", dir.path(), &mut sample(&[]));
    snapshot("sample_quiet", dir.path(), &mut sample(&["--quiet"]));
    snapshot(
        "sample_bad_share",
        dir.path(),
        &mut sample(&["--share", "nonsense=1"]),
    );
}

#[test]
fn pool_show_stats_and_rotation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let pool_cmd = |args: &[&str]| {
        let mut cmd = passrate();
        cmd.arg("pool").args(args).arg("--pool").arg(&pool);
        cmd
    };
    snapshot("pool_show", dir.path(), &mut pool_cmd(&["show", "e2e/add"]));
    snapshot(
        "pool_show_json",
        dir.path(),
        &mut pool_cmd(&["show", "e2e/add", "--json"]),
    );
    snapshot(
        "pool_show_unknown_id",
        dir.path(),
        &mut pool_cmd(&["show", "e2e/nope"]),
    );
    let mut stats = pool_cmd(&["stats", "--week", common::WEEK]);
    stats.args(FIXTURE_SCHEDULE);
    snapshot("pool_stats", dir.path(), &mut stats);
    let mut rotation = pool_cmd(&["rotation", "--week", common::WEEK]);
    rotation.args(FIXTURE_SCHEDULE);
    snapshot("pool_rotation", dir.path(), &mut rotation);
    let mut rotation = pool_cmd(&["rotation", "--week", common::WEEK, "--json"]);
    rotation.args(FIXTURE_SCHEDULE);
    snapshot("pool_rotation_json", dir.path(), &mut rotation);
}

#[test]
fn check_errors_before_any_sandbox() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pool = write_pool(&dir.path().join("pool"));
    let answer = dir.path().join("answer.md");
    fs_err::write(
        &answer,
        "```python\ndef add(a, b):\n    return a + b\n```\n",
    )
    .expect("write");
    let check = |task: &str, lang: &str| {
        let mut cmd = passrate();
        cmd.args(["check", "--task", task, "--lang", lang, "--pool"])
            .arg(&pool)
            .arg(&answer);
        cmd
    };
    snapshot(
        "check_unknown_task",
        dir.path(),
        &mut check("e2e/nope", "python"),
    );
    snapshot(
        "check_no_variant",
        dir.path(),
        &mut check("e2e/gcd", "java"),
    );
}

#[test]
fn readers_without_a_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    snapshot(
        "leaderboard_no_store",
        dir.path(),
        passrate().current_dir(dir.path()).arg("leaderboard"),
    );
    snapshot(
        "history_no_store",
        dir.path(),
        passrate()
            .current_dir(dir.path())
            .args(["history", "some-model", "--data-dir"])
            .arg(dir.path().join("data")),
    );
    snapshot(
        "leaderboard_unknown_scheme",
        dir.path(),
        passrate().current_dir(dir.path()).args([
            "leaderboard",
            "--database",
            "mysql://localhost/x",
        ]),
    );
}

/// Run from a subdirectory, the readers look in the nearest `.passrate/` above it (as git
/// finds `.git/`), and say where.
#[test]
fn readers_find_the_data_directory_upward() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs_err::create_dir(dir.path().join(".passrate")).expect("mkdir");
    let deep = dir.path().join("a/b");
    fs_err::create_dir_all(&deep).expect("mkdir");
    snapshot(
        "leaderboard_found_upward",
        dir.path(),
        passrate().current_dir(&deep).arg("leaderboard"),
    );
}

#[test]
fn completions_and_man_page() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = passrate()
        .args(["completions", "bash"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let script = String::from_utf8_lossy(&out.stdout);
    // Every subcommand completes, nested ones included.
    for word in ["leaderboard", "rotation", "--reuse-answers-from", "--quiet"] {
        assert!(script.contains(word), "{word} in the bash completions");
    }
    snapshot(
        "completions_unknown_shell",
        dir.path(),
        passrate().args(["completions", "tcsh"]),
    );
    let out = passrate().arg("man").output().expect("runs");
    assert!(out.status.success());
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains(".TH passrate 1"), "{page}");
    // roff escapes hyphens; each subcommand has a section with its options.
    for section in [
        ".SH \"PASSRATE RUN\"",
        ".SH \"PASSRATE POOL\"",
        "\\fB\\-\\-reuse\\-answers\\-from\\fR",
    ] {
        assert!(page.contains(section), "{section} in the man page");
    }
}
