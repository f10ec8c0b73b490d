//! `passrate quality`: one model's quality scores in a run, explained task by task: which
//! passed answers also passed every extra input, their CPU time against the reference's on
//! the performance inputs, and which code measures fell outside the reference's band. Extra
//! and performance inputs are hidden tests: only counts and verdict names are shown.

use std::fmt::Write;

use passrate_schema::{QualityScores, UnitQuality, exit};
use passrate_store::{Store, UnitResult};
use serde::Serialize;

use super::CliError;
use super::output::{print_data, print_json};
use super::run::runtime;
use super::store_args::StoreArgs;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The model.
    #[arg(long)]
    model: String,
    /// The run (default: the run of the model's latest score record).
    #[arg(long)]
    run: Option<String>,
    /// One JSON document: the scores and every checked unit.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    store: StoreArgs,
}

/// What `--json` prints.
#[derive(Serialize)]
struct Report {
    run_id: String,
    model: String,
    week: String,
    /// The record's quality scores (`null` when the record has none).
    scores: Option<QualityScores>,
    units: Vec<CheckedUnit>,
}

#[derive(Serialize)]
struct CheckedUnit {
    task: String,
    language: passrate_schema::Language,
    sample: u32,
    quality: UnitQuality,
}

pub fn run(args: Args) -> Result<i32, CliError> {
    runtime()?.block_on(async {
        let store = args.store.open_existing().await?;
        let report = report(&store, &args).await;
        store.close().await;
        let report = report?;
        if args.json {
            print_json("the quality report", &report)?;
        } else {
            print_data(&render(&report))?;
        }
        Ok(exit::OK)
    })
}

async fn report(store: &Store, args: &Args) -> Result<Report, CliError> {
    let history = store.model_history(&args.model).await?;
    if history.is_empty() {
        return Err(CliError::Usage(format!(
            "no score record of model {} in the store",
            args.model
        )));
    }
    // The latest version of the record of the run asked for, or the latest record.
    let record = match &args.run {
        Some(run) => history
            .iter()
            .rev()
            .find(|r| &r.record.run_id == run)
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "model {} has no score record in run {run}",
                    args.model
                ))
            })?,
        None => history.last().expect("not empty"),
    };
    let record = &record.record;
    let units: Vec<UnitResult> = store.unit_results(&record.run_id, &args.model).await?;
    Ok(Report {
        run_id: record.run_id.clone(),
        model: args.model.clone(),
        week: record.week.clone(),
        scores: record.quality.clone(),
        units: units
            .into_iter()
            .filter_map(|u| {
                Some(CheckedUnit {
                    quality: u.quality?,
                    task: u.task,
                    language: u.language,
                    sample: u.sample_index,
                })
            })
            .collect(),
    })
}

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

fn render(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "quality of {} in run {} (week {}), over its passed answers; not part of the score",
        r.model, r.run_id, r.week
    );
    match &r.scores {
        None => {
            let _ = writeln!(s, "no quality scores: no passed answer was checked");
        }
        Some(q) => {
            if let Some(e) = &q.robustness {
                let _ = writeln!(
                    s,
                    "robustness       {} [{}, {}] pass on plus inputs: {} of {} passed answers \
                     with extra inputs",
                    pct(e.score),
                    pct(e.ci_low),
                    pct(e.ci_high),
                    e.passes,
                    e.total
                );
            }
            if let Some(e) = &q.efficiency {
                let _ = writeln!(
                    s,
                    "efficiency       {:.2}x [{:.2}, {:.2}] median CPU time / reference's over {} \
                     answers; slower than 10x: {} [{}, {}]",
                    e.ratio.median,
                    e.ratio.ci_low,
                    e.ratio.ci_high,
                    e.ratio.tasks,
                    pct(e.slow.score),
                    pct(e.slow.ci_low),
                    pct(e.slow.ci_high)
                );
            }
            if let Some(m) = &q.maintainability {
                let e = &m.within_band;
                let _ = writeln!(
                    s,
                    "maintainability  {} [{}, {}] within the reference's band: {} of {} answers",
                    pct(e.score),
                    pct(e.ci_low),
                    pct(e.ci_high),
                    e.passes,
                    e.total
                );
                let medians: Vec<String> = m
                    .medians
                    .iter()
                    .map(|(name, v)| format!("{name} {} / {}", v.candidate, v.reference))
                    .collect();
                let _ = writeln!(s, "  medians (answer / reference): {}", medians.join(", "));
            }
        }
    }
    if r.units.is_empty() {
        return s;
    }
    let width = r
        .units
        .iter()
        .map(|u| u.task.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<width$}  {:<10}  {:>6}  {:<22}  {:<26}  maintainability",
        "task", "language", "sample", "plus inputs", "cpu vs reference"
    );
    for u in &r.units {
        let q = &u.quality;
        let plus = q.robustness.as_ref().map_or("-".to_string(), |c| {
            if c.robust() {
                format!("pass {}/{}", c.passed, c.extra_tests)
            } else {
                format!("{} {}/{}", c.reason, c.passed, c.extra_tests)
            }
        });
        let cpu = q.efficiency.as_ref().map_or("-".to_string(), |e| {
            if e.measured() && e.reason == passrate_schema::Reason::Pass {
                format!(
                    "{:.2}x ({:.1} / {:.1} ms)",
                    e.ratio, e.candidate_cpu_ms, e.reference_cpu_ms
                )
            } else if e.measured() {
                format!(">{:.0}x ({})", e.ratio, e.reason)
            } else {
                format!("unmeasured ({})", e.reason)
            }
        });
        let band = q.maintainability.as_ref().map_or("-".to_string(), |m| {
            if m.within_band() {
                "within band".to_string()
            } else {
                format!("outside: {}", m.outside_band.join(", "))
            }
        });
        let _ = writeln!(
            s,
            "{:<width$}  {:<10}  {:>6}  {:<22}  {:<26}  {}",
            u.task,
            u.language.as_str(),
            u.sample,
            plus,
            cpu,
            band
        );
    }
    s
}
