//! `passrate bench score`: times scoring a deterministic synthetic week (default 28 models ×
//! 400 tasks from about 280 families, 1,000 resamples per estimate) and prints the median over
//! several repetitions.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use passrate_score::synthetic::{WorkloadSpec, score_workload, workload};
use passrate_score::{Bootstrap, ScoreConfig, Stratify};

/// DESIGN §6: score 28 models × 400 tasks with 1,000 resamples each in at most this long.
const TARGET: Duration = Duration::from_secs(1);

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Number of synthetic models.
    #[arg(long, default_value_t = 28)]
    pub models: u32,
    /// Number of tasks per model.
    #[arg(long, default_value_t = 400)]
    pub tasks: u32,
    /// About how many families the tasks come from (the cluster bootstrap resamples
    /// families); as many as --tasks makes every task its own family.
    #[arg(long, default_value_t = 280)]
    pub families: u32,
    /// Bootstrap resamples per estimate.
    #[arg(long, default_value_t = 1_000)]
    pub resamples: u32,
    /// Timed repetitions; the median is reported.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..))]
    pub repetitions: u32,
    /// Bootstrap strata.
    #[arg(long, default_value = "none", value_parser = ["none", "category", "tier", "cell"])]
    pub stratify: String,
    /// Print one JSON object instead of a line of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let stratify = match args.stratify.as_str() {
        "category" => Stratify::Category,
        "tier" => Stratify::Tier,
        "cell" => Stratify::Cell,
        _ => Stratify::None,
    };
    let config = ScoreConfig {
        bootstrap: Bootstrap {
            resamples: args.resamples,
            stratify,
            ..Bootstrap::default()
        },
        ..ScoreConfig::default()
    };
    let spec = WorkloadSpec {
        models: args.models,
        tasks: args.tasks,
        families: args.families,
        ..WorkloadSpec::default()
    };
    // Generation is not part of scoring: done once, outside the timed region.
    let week = workload(&spec);

    let mut times = Vec::with_capacity(args.repetitions as usize);
    let mut first = None;
    for _ in 0..args.repetitions {
        let start = Instant::now();
        let scored =
            score_workload(&week, &config).context("failed to score the synthetic week")?;
        times.push(start.elapsed());
        // Every repetition must give the same numbers; a difference is a reproducibility bug.
        match &first {
            None => first = Some(scored),
            Some(f) if *f != scored => {
                bail!("repeated scoring of the same week gave different results")
            }
            Some(_) => {}
        }
    }
    let scored = first.context("no repetition ran")?;
    times.sort();
    let median = times[times.len() / 2];
    let (min, max) = (times[0], times[times.len() - 1]);
    let per_second = scored.resamples as f64 / median.as_secs_f64();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let default_size = args.models == 28 && args.tasks == 400 && args.resamples == 1_000;

    if args.json {
        let value = serde_json::json!({
            "bench": "score",
            "models": args.models,
            "tasks": args.tasks,
            "families": args.families,
            "resamples_per_estimate": args.resamples,
            "stratify": args.stratify,
            "repetitions": args.repetitions,
            "outcomes": week.outcome_count(),
            "resamples_total": scored.resamples,
            "median_ms": ms(median),
            "min_ms": ms(min),
            "max_ms": ms(max),
            "resamples_per_second": per_second,
            "target_ms": default_size.then(|| ms(TARGET)),
            "target_met": default_size.then_some(median <= TARGET),
        });
        println!("{value}");
    } else {
        let verdict = if !default_size {
            String::new()
        } else if median <= TARGET {
            format!("; target ≤ {:.0} ms met", ms(TARGET))
        } else {
            format!("; target ≤ {:.0} ms NOT met", ms(TARGET))
        };
        println!(
            "score {} models × {} tasks from ~{} families, {} resamples per estimate \
             ({} resamples in all, stratify {}): median {:.1} ms (min {:.1}, max {:.1}) over {} repetitions, {:.2} M resamples/s{}",
            args.models,
            args.tasks,
            args.families.min(args.tasks),
            args.resamples,
            scored.resamples,
            args.stratify,
            ms(median),
            ms(min),
            ms(max),
            args.repetitions,
            per_second / 1e6,
            verdict,
        );
    }
    Ok(passrate_schema::exit::OK)
}
