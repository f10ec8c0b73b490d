//! `passrate check`: judge one candidate (a file or stdin) against a task's tests from the
//! pool, after extraction and format checks, and print the verdict. Exit code 0 whenever a
//! verdict was reached, whatever it is.

use std::path::PathBuf;

use passrate_extract::{ExtractRequest, extract};
use passrate_pool::Pool;
use passrate_runner::{Runner, RunnerOptions};
use passrate_sandbox::{Sandbox, SandboxConfig};
use passrate_schema::{Language, Reason, Task, TestResult, Verdict, Visibility, exit};
use serde_json::{Value as Json, json};

use super::CliError;
use super::output::{print_data, print_json};

#[derive(clap::Args)]
pub struct Args {
    /// Task id, e.g. `humaneval/12`.
    #[arg(long)]
    task: String,
    /// Language of the candidate: python, javascript (js) or java.
    #[arg(long, value_parser = parse_language)]
    lang: Language,
    /// Pool directory (default: the bundled pool).
    #[arg(long)]
    pool: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// The candidate (a model's answer), or `-` for stdin.
    file: String,
}

/// The task alone (its own file, one line parsed), so `check` answers in well under a
/// second; only an id the pool may not hold loads the whole pool, to say so with its version.
pub(super) fn open_task(pool: Option<&std::path::Path>, id: &str) -> Result<Task, CliError> {
    let dir = match pool {
        Some(dir) => dir.to_path_buf(),
        None => passrate_pool::bundled_dir().map_err(CliError::Pool)?,
    };
    if let Some(task) = Pool::load_task(&dir, id).map_err(CliError::Pool)? {
        return Ok(task);
    }
    let pool = Pool::load(&dir).map_err(CliError::Pool)?;
    pool.get(id).cloned().ok_or_else(|| CliError::UnknownTask {
        id: id.to_string(),
        pool: pool.version().short().to_string(),
    })
}

fn parse_language(s: &str) -> Result<Language, String> {
    Language::parse(s).ok_or_else(|| format!("unknown language `{s}` (python, javascript, java)"))
}

pub fn run(args: Args) -> Result<i32, CliError> {
    let raw = super::extract::read_input(&args.file, "the candidate")?;
    let task = open_task(args.pool.as_deref(), &args.task)?;
    let task = &task;
    let variant = task
        .variants
        .get(&args.lang)
        .ok_or_else(|| CliError::NoVariant {
            task: task.id.clone(),
            language: args.lang,
            offered: task
                .variants
                .keys()
                .map(|l| l.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })?;
    // The request `run` judges with, prompt included: the same answer gets the same verdict.
    let extraction = extract(
        &ExtractRequest::for_answer(args.lang, task.category, variant),
        &raw,
    );
    let verdict = if extraction.compliant {
        let sandbox = super::spinner::during("starting the sandbox", || {
            Sandbox::new(SandboxConfig::default())
        })?;
        let runner = Runner::new(sandbox, RunnerOptions::default());
        // As `run` judges: sandbox faults retried, then classified by a control run.
        passrate_engine::judge::execute(
            &runner,
            task,
            args.lang,
            variant,
            &extraction.code,
            passrate_engine::RetryPolicy::default(),
            &|_, _| {},
        )
        .and_then(passrate_engine::judge::Execution::into_verdict)
        .map_err(|source| CliError::Grade {
            task: task.id.clone(),
            source,
        })?
    } else {
        passrate_grade::unexecuted_verdict(
            task,
            args.lang,
            extraction.reason.unwrap_or(Reason::NoCode),
            extraction.detail.clone(),
        )
    };
    if args.json {
        print_json("the verdict", &to_json(&verdict))?;
    } else {
        print_data(&text(&verdict))?;
    }
    Ok(exit::OK)
}

/// Public tests show everything; hidden tests only whether they passed and the verdict name.
fn test_json(t: &TestResult) -> Json {
    let passed = t.reason == Reason::Pass;
    match t.visibility {
        Visibility::Hidden => json!({
            "index": t.index,
            "visibility": "hidden",
            "passed": passed,
            "reason": t.reason,
        }),
        Visibility::Public => json!({
            "index": t.index,
            "visibility": "public",
            "passed": passed,
            "reason": t.reason,
            "actual": t.actual,
            "error": t.error,
            "cpu_us": t.cpu_us,
            "detail": t.detail,
        }),
    }
}

fn to_json(v: &Verdict) -> Json {
    json!({
        "task": v.task,
        "lang": v.language,
        "verdict": if v.passed() { "pass" } else { "fail" },
        "reason": v.reason,
        "tests_passed": v.tests_passed,
        "tests_total": v.tests_total,
        "cpu_ms": v.cpu_ms,
        "detail": v.public_detail(),
        "tests": v.tests.iter().map(test_json).collect::<Vec<_>>(),
    })
}

fn text(v: &Verdict) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let head = if v.passed() {
        "pass".to_owned()
    } else {
        format!("fail ({})", v.reason)
    };
    let _ = writeln!(
        out,
        "{head}  {} {}  {}/{} tests  cpu {} ms",
        v.task, v.language, v.tests_passed, v.tests_total, v.cpu_ms
    );
    // The first failing public test prints its own detail below. When a hidden test failed,
    // the task's detail is that test's and is withheld (`Verdict::public_detail`).
    let first_failing_public = v
        .tests
        .iter()
        .find(|t| t.reason != Reason::Pass)
        .is_some_and(|t| t.visibility == Visibility::Public);
    if !v.passed()
        && !first_failing_public
        && let Some(d) = v.public_detail()
    {
        let _ = writeln!(out, "  {d}");
    }
    for t in &v.tests {
        if t.reason == Reason::Pass {
            continue;
        }
        // Writing to a String cannot fail.
        let _ = match t.visibility {
            Visibility::Hidden => writeln!(out, "  hidden test {}: {}", t.index, t.reason),
            Visibility::Public => writeln!(
                out,
                "  public test {}: {}{}",
                t.index,
                t.reason,
                t.detail
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            ),
        };
    }
    out
}
