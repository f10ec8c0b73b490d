//! `passrate bench check`: one `passrate check` of a HumanEval answer end to end (a new
//! process each time: the pool opened for the one task, the sandbox started, the answer
//! extracted and judged), beside opening the pool for that task alone and loading it whole,
//! in the same run. Medians over the repetitions; the targets are ARCHITECTURE.md's.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use passrate_pool::Pool;

const CHECK_TARGET: Duration = Duration::from_millis(300);
const OPEN_TARGET: Duration = Duration::from_millis(50);

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The task judged (its reference solution is the answer).
    #[arg(long, default_value = "humaneval/0")]
    pub task: String,
    /// Timed repetitions of each measurement; medians are reported.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repetitions: u32,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let dir = passrate_pool::bundled_dir()?;
    let task = Pool::load_task(&dir, &args.task)?
        .with_context(|| format!("no task {} in {}", args.task, dir.display()))?;
    let (language, variant) = task
        .variants
        .iter()
        .next()
        .context("the task has no variant")?;
    let answer = std::env::temp_dir().join(format!("passrate-bench-check-{}", std::process::id()));
    fs_err::write(&answer, &variant.reference_solution)?;
    let result = measure(&args, &dir, language.as_str(), &answer);
    let _ = fs_err::remove_file(&answer);
    result
}

fn measure(
    args: &Args,
    dir: &std::path::Path,
    language: &str,
    answer: &std::path::Path,
) -> anyhow::Result<i32> {
    let exe = std::env::current_exe()?;
    let (mut check, mut open, mut load) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..args.repetitions {
        let start = Instant::now();
        let out = std::process::Command::new(&exe)
            .args(["check", "--task", &args.task, "--lang", language, "--json"])
            .arg(answer)
            .env_remove("NODE_EXTRA_CA_CERTS")
            .output()?;
        check.push(start.elapsed());
        let verdict: serde_json::Value =
            serde_json::from_slice(&out.stdout).with_context(|| {
                format!(
                    "check printed no verdict: {}",
                    String::from_utf8_lossy(&out.stderr)
                )
            })?;
        if verdict["verdict"] != "pass" {
            bail!(
                "the reference solution of {} did not pass: {verdict}",
                args.task
            );
        }
        let start = Instant::now();
        Pool::load_task(dir, &args.task)?;
        open.push(start.elapsed());
    }
    for _ in 0..args.repetitions.min(3) {
        let start = Instant::now();
        Pool::load(dir)?;
        load.push(start.elapsed());
    }
    let (check, open, load) = (median(check), median(open), median(load));
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "task": args.task,
                "repetitions": args.repetitions,
                "check_ms": ms(check),
                "open_one_task_ms": ms(open),
                "load_whole_pool_ms": ms(load),
            })
        );
    } else {
        let met = |d: Duration, t: Duration| if d <= t { "yes" } else { "no" };
        println!("| measurement | median | target | met |");
        println!("|---|---:|---:|---|");
        println!(
            "| `passrate check` of {}'s reference ({language}), end to end | {:.0} ms | ≤ {} ms | {} |",
            args.task,
            ms(check),
            CHECK_TARGET.as_millis(),
            met(check, CHECK_TARGET)
        );
        println!(
            "| open the pool for that task alone | {:.1} ms | ≤ {} ms | {} |",
            ms(open),
            OPEN_TARGET.as_millis(),
            met(open, OPEN_TARGET)
        );
        println!(
            "| load the whole pool (for comparison) | {:.0} ms | | |",
            ms(load)
        );
    }
    Ok(0)
}
