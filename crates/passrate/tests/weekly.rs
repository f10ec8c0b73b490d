//! The weekly cycle, honest (issue: fresh answers every week, drift that can see, API
//! failures that are loud, sections that compare like with like), through the real binary,
//! the real sandbox and a real SQLite store, on a pool of simple tasks.

mod common;

use std::path::Path;

use common::{passrate, plus_run_args, plus_tasks, write_plus_models, write_tasks};
use serde_json::Value as Json;

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[String]) -> Output {
    let output = passrate().args(args).output().expect("spawn passrate");
    Output {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn run_ok(args: &[String]) -> Output {
    let out = run(args);
    assert_eq!(
        out.code, 0,
        "passrate {args:?} failed:\n{}\n{}",
        out.stderr, out.stdout
    );
    out
}

fn events(stdout: &str) -> Vec<Json> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect()
}

/// The leaderboard row of `model` in a `run --json` output, whichever section holds it.
fn row<'a>(events: &'a [Json], model: &str) -> &'a Json {
    let board = &events.last().expect("events")["leaderboard"];
    ["ranked", "partial", "controls"]
        .iter()
        .flat_map(|section| board[section].as_array().expect("a section").iter())
        .find(|r| r["record"]["model"] == model)
        .unwrap_or_else(|| panic!("{model} is on the board: {board}"))
}

fn run_id(events: &[Json]) -> String {
    events
        .iter()
        .find(|e| e["event"] == "run_started")
        .and_then(|e| e["run_id"].as_str())
        .expect("a run_started event")
        .to_string()
}

struct Fixture {
    /// Kept for its lifetime: the directory holds everything below.
    _dir: tempfile::TempDir,
    mode: std::path::PathBuf,
    models: std::path::PathBuf,
    pool: std::path::PathBuf,
    data: std::path::PathBuf,
}

impl Fixture {
    fn new(mode: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let pool = write_tasks(&dir.path().join("pool"), plus_tasks(120));
        let mode_file = dir.path().join("mode");
        fs_err::write(&mode_file, mode).unwrap();
        let models = write_plus_models(dir.path(), &[("plus", &mode_file)]);
        let data = dir.path().join("data");
        Fixture {
            mode: mode_file,
            models,
            pool,
            data,
            _dir: dir,
        }
    }

    fn set_mode(&self, mode: &str) {
        fs_err::write(&self.mode, mode).unwrap();
    }

    fn args(&self, week: &str) -> Vec<String> {
        plus_run_args(week, &self.pool, &self.models, &self.data)
    }
}

#[test]
fn every_week_asks_command_models_afresh_and_drift_sees_a_silent_swap() {
    let fx = Fixture::new("good");
    let w10 = events(&run_ok(&fx.args("2026-W10")).stdout);
    let plus = row(&w10, "plus");
    assert_eq!(plus["record"]["overall"]["score"], 1.0, "{plus}");
    assert!(plus["record"]["drift"].is_null(), "no earlier week");

    // The provider swaps the model behind the same identifier. Next week's run must ask
    // again (the bug: the answer cache served last week's answers and hid the change).
    fx.set_mode("swapped");
    let w11 = events(&run_ok(&fx.args("2026-W11")).stdout);
    let record = &row(&w11, "plus")["record"];
    let score = record["overall"]["score"].as_f64().unwrap();
    assert!(score < 0.8, "fresh answers are scored: {record}");
    let drift = &record["drift"];
    assert_eq!(drift["previous_week"], "2026-W10", "{drift}");
    // The panel is the same 40 tasks both weeks: it gives McNemar its power.
    assert!(drift["tasks_compared"].as_u64().unwrap() >= 40, "{drift}");
    assert!(drift["p_value"].as_f64().unwrap() < 0.001, "{drift}");
    assert_eq!(drift["answers_compared"], 40, "{drift}");
    assert_eq!(drift["answer_change_rate"], 1.0, "{drift}");
    let flags: Vec<&str> = drift["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(flags.len(), 2, "both signals fire: {flags:?}");
    assert!(flags[0].starts_with("McNemar"), "{flags:?}");
    assert!(flags[1].starts_with("answer change"), "{flags:?}");
    let flipped = drift["flipped_tasks"].as_array().unwrap();
    assert!(
        flipped
            .iter()
            .all(|t| t.as_str().unwrap().starts_with("e2e/plus_")),
        "{flipped:?}"
    );
    assert_eq!(
        flipped.len() as u64,
        drift["now_failing"].as_u64().unwrap() + drift["now_passing"].as_u64().unwrap()
    );

    // The text board names the flags and the flipped tasks.
    let board = run_ok(&[
        "leaderboard".into(),
        "--week".into(),
        "2026-W11".into(),
        "--data-dir".into(),
        fx.data.display().to_string(),
    ]);
    assert!(
        board.stdout.contains("drift: plus: McNemar"),
        "{}",
        board.stdout
    );
    assert!(
        board.stdout.contains("drift: plus: flipped e2e/plus_"),
        "{}",
        board.stdout
    );

    // Explicit reuse: a run that names W10's run takes W10's answers where the same task was
    // asked (the whole panel), and is a run of its own (the choice is recorded).
    let mut args = fx.args("2026-W11");
    args.extend(["--reuse-answers-from".into(), run_id(&w10)]);
    let reused = events(&run_ok(&args).stdout);
    assert_ne!(run_id(&reused), run_id(&w11));
    let drift = &row(&reused, "plus")["record"]["drift"];
    assert_eq!(drift["answers_compared"], 40, "{drift}");
    assert_eq!(drift["answers_changed"], 0, "panel answers reused: {drift}");

    // Reusing a run that does not exist is a usage error, before anything runs.
    let mut args = fx.args("2026-W12");
    args.extend([
        "--reuse-answers-from".into(),
        "2026-W01-000000000000".into(),
    ]);
    let out = run(&args);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("2026-W01-000000000000"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_unchanged_model_is_not_flagged_over_ten_weeks() {
    let fx = Fixture::new("good");
    for week in 10..20 {
        let week = format!("2026-W{week}");
        let out = events(&run_ok(&fx.args(&week)).stdout);
        let record = &row(&out, "plus")["record"];
        assert_eq!(record["overall"]["score"], 1.0, "{record}");
        if week == "2026-W10" {
            continue;
        }
        let drift = &record["drift"];
        assert_eq!(drift["answers_compared"], 40, "{week}: {drift}");
        assert_eq!(drift["answers_changed"], 0, "{week}: {drift}");
        assert_eq!(drift["p_value"], 1.0, "{week}: {drift}");
        assert_eq!(drift["flags"], serde_json::json!([]), "{week}: {drift}");
    }
}

#[test]
fn partial_coverage_and_controls_are_shown_apart_from_the_ranked_models() {
    let dir = tempfile::tempdir().unwrap();
    let pool = write_tasks(&dir.path().join("pool"), plus_tasks(120));
    let (good, half) = (dir.path().join("good"), dir.path().join("half"));
    fs_err::write(&good, "good").unwrap();
    fs_err::write(&half, "half").unwrap();
    let models = write_plus_models(dir.path(), &[("full", &good), ("partial", &half)]);
    let data = dir.path().join("data");
    let out = events(&run_ok(&plus_run_args("2026-W10", &pool, &models, &data)).stdout);
    let board = &out.last().unwrap()["leaderboard"];
    let ids = |section: &str| -> Vec<String> {
        board[section]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["record"]["model"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids("ranked"), ["full"]);
    assert_eq!(ids("partial"), ["partial"]);
    assert_eq!(ids("controls"), ["reference", "known-buggy"]);
    assert_eq!(
        board["alerts"],
        serde_json::json!([]),
        "controls scored 100% and 0%"
    );

    let full = &board["ranked"][0];
    assert_eq!(full["rank"], 1);
    assert_eq!(
        (full["rank_low"].clone(), full["rank_high"].clone()),
        (1.into(), 1.into())
    );
    assert_eq!(full["tie_group"], 1);

    // The partial model is shown with its score on the tasks it answered (all of which it
    // passes), not 50% of the sample, and with that subset's n.
    let partial = &board["partial"][0];
    let record = &partial["record"];
    assert!(record["coverage"].as_f64().unwrap() < 1.0, "{record}");
    assert_eq!(partial["shown"]["score"], 1.0, "{partial}");
    assert_eq!(partial["shown"]["total"], record["answered"]["total"]);
    assert!(partial["rank"].is_null() && partial["tie_group"].is_null());
    for control in board["controls"].as_array().unwrap() {
        assert!(
            control["rank"].is_null(),
            "controls are never ranked: {control}"
        );
    }

    let text = run_ok(&[
        "leaderboard".into(),
        "--week".into(),
        "2026-W10".into(),
        "--data-dir".into(),
        data.display().to_string(),
    ])
    .stdout;
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle}: {text}"))
    };
    assert!(at("ranked:") < at("partial coverage:") && at("partial coverage:") < at("controls:"));
}

/// An OpenAI-compatible endpoint in Python that answers every request with `status` and an
/// OpenAI-style error body; prints its port.
const ERROR_SERVER: &str = r#"
import http.server, json, sys
status = int(sys.argv[1])
class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"error": {"message": "Incorrect API key provided: sk-wr***ng.", "type": "invalid_request_error", "code": "invalid_api_key"}}).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"#;

fn openai_models(dir: &Path, base_url: &str) -> std::path::PathBuf {
    let path = dir.join("models.toml");
    fs_err::write(
        &path,
        format!(
            "[[model]]\nid = \"remote\"\nadapter = \"openai\"\nendpoint = \"{base_url}\"\nmodel = \"gpt-x\"\napi_key_env = \"PASSRATE_TEST_KEY\"\nmax_retries = 1\nretry_base_s = 0.01\n"
        ),
    )
    .unwrap();
    path
}

fn no_records(data: &Path) {
    let out = run(&[
        "history".into(),
        "remote".into(),
        "--json".into(),
        "--data-dir".into(),
        data.display().to_string(),
    ]);
    assert!(
        out.stdout.trim().is_empty(),
        "nothing recorded: {}",
        out.stdout
    );
}

#[test]
fn a_wrong_key_stops_the_run_at_the_pre_flight_with_the_providers_message() {
    let dir = tempfile::tempdir().unwrap();
    let pool = write_tasks(&dir.path().join("pool"), plus_tasks(120));
    let mut server = std::process::Command::new("/usr/bin/python3")
        .args(["-c", ERROR_SERVER, "401"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(server.stdout.take().unwrap()),
        &mut port,
    )
    .unwrap();
    let models = openai_models(dir.path(), &format!("http://127.0.0.1:{}/v1", port.trim()));
    let data = dir.path().join("data");
    let out = passrate()
        .args(plus_run_args("2026-W10", &pool, &models, &data))
        .env("PASSRATE_TEST_KEY", "sk-wrong")
        .output()
        .unwrap();
    server.kill().unwrap();
    server.wait().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert!(stderr.contains("Incorrect API key provided"), "{stderr}");
    assert!(stderr.contains("remote"), "{stderr}");
    no_records(&data);
}

#[test]
fn an_unreachable_api_stops_the_run_at_the_pre_flight() {
    let dir = tempfile::tempdir().unwrap();
    let pool = write_tasks(&dir.path().join("pool"), plus_tasks(120));
    // A port nothing listens on: bind, read the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let models = openai_models(dir.path(), &format!("http://127.0.0.1:{port}/v1"));
    let data = dir.path().join("data");
    let out = passrate()
        .args(plus_run_args("2026-W10", &pool, &models, &data))
        .env("PASSRATE_TEST_KEY", "sk-test")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{stderr}");
    assert!(stderr.contains(&format!("127.0.0.1:{port}")), "{stderr}");
    no_records(&data);
}
