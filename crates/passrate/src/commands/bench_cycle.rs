//! `passrate bench cycle`: a full cycle (bundled pool and models by default) in a fresh,
//! temporary store, so nothing is cached or resumed, with its wall time broken down by stage.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use passrate_engine::Timings;
use passrate_schema::exit;

use super::run::{self, ScheduleArgs, StoreArgs, runtime};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// ISO week (default: the current week).
    #[arg(long)]
    week: Option<String>,
    /// models.toml (default: the bundled replays).
    #[arg(long)]
    models: Option<PathBuf>,
    /// Pool directory (default: the bundled pool).
    #[arg(long, env = "PASSRATE_POOL")]
    pool: Option<PathBuf>,
    /// Tasks in the sample.
    #[arg(long, default_value_t = passrate_pool::sample::DEFAULT_SAMPLE_SIZE)]
    size: usize,
    /// Category weight, as for `passrate run`.
    #[arg(long = "share", value_name = "CATEGORY=WEIGHT")]
    shares: Vec<String>,
    /// One JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The stage table (setup stages first when known).
pub fn render_timings(t: &Timings, setup: &[(&'static str, u64)]) -> String {
    let mut s = String::new();
    let mut line = |name: &str, ms: u64, note: &str| {
        let _ = writeln!(s, "{name:<28} {:>9.3} s{note}", ms as f64 / 1000.0);
    };
    for (name, ms) in setup {
        line(name, *ms, "");
    }
    line("sample", t.sample_ms, "");
    line("create/resume run", t.create_run_ms, "");
    line("units (wall)", t.units_wall_ms, "");
    line("  generation", t.generation_ms, "  busy, summed over units");
    line("  extraction", t.extraction_ms, "  busy, summed over units");
    line("  execution", t.execution_ms, "  busy, summed over units");
    line("  commits", t.commit_ms, "  busy, summed over units");
    line("scoring", t.scoring_ms, "");
    line("score records", t.records_ms, "");
    line("cycle total", t.total_ms, "");
    s
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let dir = std::env::temp_dir().join(format!("passrate-bench-cycle-{}", std::process::id()));
    let run_args = run::Args {
        week: args.week,
        models: args.models,
        pool: args.pool,
        store: StoreArgs {
            database: None,
            data_dir: Some(dir.clone()),
        },
        size: args.size,
        schedule: ScheduleArgs {
            shares: args.shares,
            ..ScheduleArgs::default()
        },
        refresh: false,
        reuse_answers_from: None,
        json: false,
        timings: false,
    };
    let result = runtime()?.block_on(async {
        let store = run_args.store.open().await?;
        let prepared = run::prepare(&run_args, store.clone())?;
        let report = prepared
            .cycle
            .run(std::sync::Arc::new(|_: &passrate_schema::RunEvent| {}))
            .await?;
        store.close().await;
        anyhow::Ok((report, prepared.setup_ms))
    });
    // The store was temporary: remove it whatever happened.
    let _ = fs_err::remove_dir_all(&dir);
    let (report, setup) = result?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let setup: serde_json::Map<String, serde_json::Value> = setup
            .iter()
            .map(|(k, v)| (k.to_string(), (*v).into()))
            .collect();
        let line = serde_json::json!({
            "run_id": report.run_id,
            "tasks": report.manifest.items.len(),
            "models": report.records.len(),
            "units": report.executed_units,
            "setup_ms": setup,
            "timings": report.timings,
        });
        writeln!(out, "{line}")?;
    } else {
        writeln!(
            out,
            "cycle {}: {} tasks × {} models = {} units",
            report.run_id,
            report.manifest.items.len(),
            report.records.len(),
            report.executed_units
        )?;
        write!(out, "{}", render_timings(&report.timings, &setup))?;
    }
    Ok(exit::OK)
}
