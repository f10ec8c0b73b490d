//! The `command` adapter with small shell scripts, and the `replay` adapter through `Model`.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{model, task};
use passrate_models::{AttemptError, CacheMode, MemoryCache, ModelError, Origin, Outcome};
use passrate_schema::Language;

fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    fs_err::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs_err::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

fn command_model(program: &str, extra: &str) -> passrate_models::Model {
    model(&format!(
        "adapter = \"command\"\ncommand = [\"{program}\"]\nretry_base_s = 0.01\nretry_max_s = 0.02\n{extra}"
    ))
}

#[tokio::test]
async fn the_command_gets_the_request_on_stdin_and_answers_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let request = dir.path().join("request.json");
    let program = script(
        dir.path(),
        "answer.sh",
        &format!(
            "cat > '{}'\nprintf '%s\\n' '{{\"text\": \"def add(a, b):\\n    return a + b\", \"usage\": {{\"input_tokens\": 7, \"output_tokens\": 9}}}}'",
            request.display()
        ),
    );
    let m = command_model(
        &program,
        "prices = { input_per_mtok = 1.0, output_per_mtok = 1.0 }",
    );
    let cache = MemoryCache::new();
    let fetched = m
        .answer(
            &task("humaneval/3"),
            Language::Python,
            2,
            &cache,
            CacheMode::Use,
        )
        .await
        .unwrap();
    let answer = fetched.answer;
    assert_eq!(
        answer.outcome.text(),
        Some("def add(a, b):\n    return a + b")
    );
    assert_eq!(answer.usage.output_tokens, Some(9));
    assert_eq!(answer.cost_usd, Some(16.0 / 1e6));
    let sent: serde_json::Value =
        serde_json::from_str(&fs_err::read_to_string(&request).unwrap()).unwrap();
    assert_eq!(sent["task"], "humaneval/3");
    assert_eq!(sent["language"], "python");
    assert_eq!(sent["sample_index"], 2);
    assert_eq!(sent["entry_point"], "add");
    assert_eq!(sent["format_version"], 1);
    assert!(
        sent["prompt"]["user"]
            .as_str()
            .unwrap()
            .contains("Add two numbers.")
    );
    // Commands are cached like any remote model.
    fs_err::remove_file(&request).unwrap();
    let again = m
        .answer(
            &task("humaneval/3"),
            Language::Python,
            2,
            &cache,
            CacheMode::Use,
        )
        .await
        .unwrap();
    assert_eq!(again.origin, Origin::Cached);
    assert!(!request.exists(), "the command was not run again");
}

#[tokio::test]
async fn plain_stdout_is_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let program = script(
        dir.path(),
        "plain.sh",
        "cat > /dev/null\nprintf 'print(42)\\n'",
    );
    let answer = command_model(&program, "")
        .answer(
            &task("t/1"),
            Language::Python,
            0,
            &MemoryCache::new(),
            CacheMode::Use,
        )
        .await
        .unwrap()
        .answer;
    assert_eq!(answer.outcome.text(), Some("print(42)\n"));
    assert_eq!(answer.usage.input_tokens, None);
}

#[tokio::test]
async fn a_slow_command_is_killed_with_what_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    let program = script(
        dir.path(),
        "slow.sh",
        &format!("sleep 30 &\necho $! > '{}'\nwait", pid_file.display()),
    );
    let m = command_model(&program, "timeout_s = 0.5\nmax_retries = 0");
    let started = Instant::now();
    let result = m
        .answer(
            &task("t/1"),
            Language::Python,
            0,
            &MemoryCache::new(),
            CacheMode::Use,
        )
        .await;
    let elapsed = started.elapsed();
    match result {
        Err(ModelError::Api { source, .. }) => {
            assert_eq!(source, AttemptError::Timeout(Duration::from_millis(500)))
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    let pid = fs_err::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    // The grandchild `sleep` was in the command's process group: it is gone (or a zombie
    // awaiting its reaper) shortly after.
    let gone = (0..50).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        match fs_err::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat.split_whitespace().nth(2) == Some("Z"),
        }
    });
    assert!(gone, "sleep {pid} survived the timeout");
}

#[tokio::test]
async fn exit_75_is_retried_and_other_failures_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("count");
    let program = script(
        dir.path(),
        "flaky.sh",
        &format!(
            "cat > /dev/null\necho x >> '{c}'\nif [ $(wc -l < '{c}') -lt 3 ]; then echo busy >&2; exit 75; fi\necho done",
            c = counter.display()
        ),
    );
    let answer = command_model(&program, "max_retries = 5")
        .answer(
            &task("t/1"),
            Language::Python,
            0,
            &MemoryCache::new(),
            CacheMode::Use,
        )
        .await
        .unwrap()
        .answer;
    assert_eq!(answer.attempts, 3);
    assert_eq!(answer.outcome.text(), Some("done\n"));

    let failing = script(
        dir.path(),
        "fail.sh",
        "cat > /dev/null\necho 'no such model' >&2\nexit 2",
    );
    let err = command_model(&failing, "max_retries = 5")
        .answer(
            &task("t/1"),
            Language::Python,
            0,
            &MemoryCache::new(),
            CacheMode::Use,
        )
        .await
        .unwrap_err();
    assert_eq!(err.attempts(), 1);
    assert!(
        err.to_string()
            .ends_with("command failed: exit status 2: no such model"),
        "{err}"
    );
}

#[tokio::test]
async fn the_replay_answers_what_it_has_and_no_answer_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    fs_err::write(
        dir.path().join("answers.jsonl"),
        concat!(
            r#"{"task": "humaneval/1", "language": "python", "text": "def add(a, b): return a + b", "upstream": {"id": "HumanEval/1"}}"#,
            "\n"
        ),
    )
    .unwrap();
    let text = "[[model]]\nid = \"replayed\"\nadapter = \"replay\"\nfile = \"answers.jsonl\"\n";
    fs_err::write(dir.path().join("models.toml"), text).unwrap();
    let config = passrate_models::ModelsConfig::load(&dir.path().join("models.toml")).unwrap();
    let m = passrate_models::Model::build_all(&config, &|_| None)
        .unwrap()
        .remove(0);
    let cache = MemoryCache::new();
    let hit = m
        .answer(
            &task("humaneval/1"),
            Language::Python,
            0,
            &cache,
            CacheMode::Use,
        )
        .await
        .unwrap();
    assert_eq!(hit.origin, Origin::Fetched);
    assert_eq!(
        hit.answer.outcome.text(),
        Some("def add(a, b): return a + b")
    );
    assert_eq!(hit.answer.attempts, 0);
    assert_eq!(
        hit.answer.raw.as_ref().unwrap()["upstream"]["id"],
        "HumanEval/1"
    );
    for (task_id, language, sample) in [
        ("humaneval/2", Language::Python, 0),
        ("humaneval/1", Language::Java, 0),
        ("humaneval/1", Language::Python, 1),
    ] {
        let miss = m
            .answer(&task(task_id), language, sample, &cache, CacheMode::Use)
            .await
            .unwrap();
        assert!(
            matches!(miss.answer.outcome, Outcome::NoAnswer { ref detail } if detail.contains(task_id)),
            "{miss:?}"
        );
    }
    assert!(cache.is_empty(), "replays are local: nothing is cached");
}

#[test]
fn a_missing_replay_file_is_a_start_up_error() {
    let text = "[[model]]\nid = \"r\"\nadapter = \"replay\"\nfile = \"nope.jsonl\"\n";
    let config =
        passrate_models::ModelsConfig::parse(text, "models.toml", Path::new("/nonexistent"))
            .unwrap();
    let err = passrate_models::Model::build_all(&config, &|_| None).unwrap_err();
    // The error names the models.toml line; its cause, the file that could not be read.
    let mut chain = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        chain.push_str(&format!("\ncaused by: {cause}"));
        source = cause.source();
    }
    assert!(chain.starts_with("models.toml:4:8: model `r`"), "{chain}");
    assert!(
        chain.contains("failed to read /nonexistent/nope.jsonl"),
        "{chain}"
    );
}
