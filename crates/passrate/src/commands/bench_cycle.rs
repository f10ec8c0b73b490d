//! `passrate bench cycle`: a full cycle (bundled pool and models by default) in a fresh,
//! temporary store, so nothing is cached or resumed, with its wall time broken down by stage.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

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
    /// Only the cycle with quality checks (default: also the functional cycle alone, before
    /// it, to show what quality adds).
    #[arg(long)]
    quality_only: bool,
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
    let busy = "  busy, summed over units";
    line("  quality checks", t.quality_ms, busy);
    line("    robustness", t.robustness_ms, busy);
    line("    efficiency", t.efficiency_ms, busy);
    line("    maintainability", t.maintainability_ms, busy);
    line("scoring", t.scoring_ms, "");
    line("score records", t.records_ms, "");
    line("cycle total", t.total_ms, "");
    s
}

/// One cycle's figures.
struct Measured {
    report: passrate_engine::CycleReport,
    setup: [(&'static str, u64); 3],
    wall_ms: u64,
    /// CPU of everything the sandbox ran (its cgroup), in milliseconds.
    sandbox_cpu_ms: u64,
    /// CPU of this process and the children it waited for (ruff), in milliseconds.
    own_cpu_ms: u64,
}

/// This process's CPU and that of its waited-for children, from `/proc/self/stat`.
fn own_cpu_ms() -> anyhow::Result<u64> {
    let stat = fs_err::read_to_string("/proc/self/stat")?;
    // Fields after the command name (which may hold spaces), 1-based from field 3.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or_else(|| anyhow::anyhow!("/proc/self/stat has no command name"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime, stime, cutime, cstime are fields 14-17, i.e. 11-14 after the name.
    let ticks: u64 = fields
        .get(11..15)
        .ok_or_else(|| anyhow::anyhow!("/proc/self/stat is short"))?
        .iter()
        .map(|f| f.parse::<u64>())
        .sum::<Result<u64, _>>()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Ok(ticks * 1000 / hz)
}

fn measure(args: &Args, quality: bool) -> anyhow::Result<Measured> {
    let dir = std::env::temp_dir().join(format!(
        "passrate-bench-cycle-{}-{}",
        std::process::id(),
        if quality { "quality" } else { "functional" }
    ));
    let run_args = run::Args {
        week: args.week.clone(),
        models: args.models.clone(),
        pool: args.pool.clone(),
        store: StoreArgs {
            database: None,
            data_dir: Some(dir.clone()),
        },
        size: args.size,
        schedule: ScheduleArgs {
            shares: args.shares.clone(),
            ..ScheduleArgs::default()
        },
        refresh: false,
        reuse_answers_from: None,
        json: false,
        timings: false,
        no_quality: !quality,
    };
    let result = runtime()?.block_on(async {
        let store = run_args.store.open().await?;
        let prepared = run::prepare(&run_args, store.clone())?;
        let layout = prepared.cycle.runner.sandbox().cgroup_layout().clone();
        let (cpu0, own0, clock) = (layout.group_cpu_us()?, own_cpu_ms()?, Instant::now());
        let report = prepared
            .cycle
            .run(std::sync::Arc::new(|_: &passrate_schema::RunEvent| {}))
            .await?;
        let wall_ms = clock.elapsed().as_millis() as u64;
        let (cpu1, own1) = (layout.group_cpu_us()?, own_cpu_ms()?);
        store.close().await;
        anyhow::Ok(Measured {
            report,
            setup: prepared.setup_ms,
            wall_ms,
            sandbox_cpu_ms: cpu1.saturating_sub(cpu0) / 1000,
            own_cpu_ms: own1.saturating_sub(own0),
        })
    });
    // The store was temporary: remove it whatever happened.
    let _ = fs_err::remove_dir_all(&dir);
    result
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let functional = if args.quality_only {
        None
    } else {
        Some(measure(&args, false)?)
    };
    let quality = measure(&args, true)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let one = |m: &Measured| {
            let setup: serde_json::Map<String, serde_json::Value> = m
                .setup
                .iter()
                .map(|(k, v)| (k.to_string(), (*v).into()))
                .collect();
            serde_json::json!({
                "run_id": m.report.run_id,
                "tasks": m.report.manifest.items.len(),
                "models": m.report.records.len(),
                "units": m.report.executed_units,
                "setup_ms": setup,
                "timings": m.report.timings,
                "wall_ms": m.wall_ms,
                "sandbox_cpu_ms": m.sandbox_cpu_ms,
                "own_cpu_ms": m.own_cpu_ms,
            })
        };
        let line = serde_json::json!({
            "functional": functional.as_ref().map(one),
            "with_quality": one(&quality),
        });
        writeln!(out, "{line}")?;
        return Ok(exit::OK);
    }
    let r = &quality.report;
    writeln!(
        out,
        "cycle {}: {} tasks × {} models = {} units",
        r.run_id,
        r.manifest.items.len(),
        r.records.len(),
        r.executed_units
    )?;
    write!(out, "{}", render_timings(&r.timings, &quality.setup))?;
    if let Some(f) = &functional {
        let ratio = |a: u64, b: u64| {
            if b == 0 {
                "-".to_string()
            } else {
                format!("{:+.1}%", (a as f64 / b as f64 - 1.0) * 100.0)
            }
        };
        writeln!(out)?;
        writeln!(
            out,
            "{:<24} {:>12} {:>12} {:>9}",
            "side by side", "functional", "+ quality", "added"
        )?;
        for (name, a, b) in [
            ("cycle wall", f.wall_ms, quality.wall_ms),
            ("sandbox CPU", f.sandbox_cpu_ms, quality.sandbox_cpu_ms),
            ("passrate CPU", f.own_cpu_ms, quality.own_cpu_ms),
            (
                "all CPU",
                f.sandbox_cpu_ms + f.own_cpu_ms,
                quality.sandbox_cpu_ms + quality.own_cpu_ms,
            ),
        ] {
            writeln!(
                out,
                "{name:<24} {:>10.2} s {:>10.2} s {:>9}",
                a as f64 / 1000.0,
                b as f64 / 1000.0,
                ratio(b, a)
            )?;
        }
    }
    Ok(exit::OK)
}
