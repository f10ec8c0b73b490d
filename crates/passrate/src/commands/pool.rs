//! `passrate pool`: statistics, one task, intake validation, rotation and import.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use passrate_pool::import::pipeline;
use passrate_pool::{Pool, redact, rotate, stats, validate};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Pool directory (default: the bundled pool).
    #[arg(long, global = true, env = "PASSRATE_POOL")]
    pool: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Counts per category × tier × language.
    Stats {
        #[arg(long)]
        json: bool,
    },
    /// Prints one task (hidden tests redacted unless asked for).
    Show {
        id: String,
        #[arg(long)]
        include_hidden: bool,
        #[arg(long)]
        json: bool,
    },
    /// Runs every reference through the evaluation path twice and reports rejections.
    Validate {
        #[arg(long, default_value_t = 2)]
        threads: usize,
        #[arg(long)]
        json: bool,
    },
    /// Retires and introduces a share of tasks for a week, and records it.
    Rotate {
        #[arg(long)]
        week: String,
        #[arg(long, default_value_t = 0.05)]
        rate: f64,
    },
    /// Regenerates the pool from the public datasets (atomically replaces the directory).
    Import {
        /// Data directory (default: $PASSRATE_DATA or ../shared/data).
        #[arg(long)]
        data: Option<PathBuf>,
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
}

fn load(dir: &Option<PathBuf>) -> anyhow::Result<Pool> {
    Ok(match dir {
        Some(d) => Pool::load(d)?,
        None => Pool::bundled()?,
    })
}

fn runner() -> anyhow::Result<passrate_runner::Runner> {
    let sandbox = passrate_sandbox::Sandbox::new(passrate_sandbox::SandboxConfig::default())
        .context("failed to start the sandbox")?;
    Ok(passrate_runner::Runner::new(
        sandbox,
        passrate_runner::RunnerOptions::default(),
    ))
}

fn progress(stage: &str, done: usize, total: usize) {
    if done == total || done % 100 == 0 {
        eprintln!("{stage}: {done}/{total}");
    }
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let mut out = std::io::stdout().lock();
    match args.command {
        Command::Stats { json } => {
            let pool = load(&args.pool)?;
            let s = stats(&pool);
            if json {
                for row in &s.rows {
                    writeln!(out, "{}", serde_json::to_string(row)?)?;
                }
                return Ok(0);
            }
            writeln!(
                out,
                "pool {}  tasks {} (active {}, reserve {})  tests {} ({} hidden)",
                &s.pool_version[..12],
                s.tasks,
                s.active,
                s.reserve,
                s.tests,
                s.hidden_tests
            )?;
            writeln!(
                out,
                "{:<26} {:>5} {:>8} {:>11} {:>6}",
                "category", "tier", "python", "javascript", "java"
            )?;
            let mut cells = std::collections::BTreeMap::new();
            for row in &s.rows {
                cells.insert((row.category, row.tier, row.language), row.tasks);
            }
            for category in passrate_schema::Category::ALL {
                for tier in passrate_schema::Tier::ALL {
                    let n = |l| cells.get(&(category, tier, l)).copied().unwrap_or(0);
                    writeln!(
                        out,
                        "{:<26} {:>5} {:>8} {:>11} {:>6}",
                        category.as_str(),
                        tier.number(),
                        n(passrate_schema::Language::Python),
                        n(passrate_schema::Language::Javascript),
                        n(passrate_schema::Language::Java)
                    )?;
                }
            }
            Ok(0)
        }
        Command::Show {
            id,
            include_hidden,
            json,
        } => {
            let pool = load(&args.pool)?;
            let Some(task) = pool.get(&id) else {
                eprintln!("error: no task `{id}` in pool {}", pool.version().short());
                return Ok(2);
            };
            let (shown, removed) = redact(task, include_hidden);
            if json {
                writeln!(out, "{}", serde_json::to_string(&shown)?)?;
            } else {
                writeln!(out, "{}", serde_json::to_string_pretty(&shown)?)?;
            }
            if removed > 0 {
                eprintln!("{removed} hidden tests redacted (use --include-hidden)");
            }
            Ok(0)
        }
        Command::Validate { threads, json } => {
            let pool = load(&args.pool)?;
            let runner = runner()?;
            let start = Instant::now();
            let report = validate(&runner, pool.tasks().to_vec(), threads, &|d, t| {
                progress("validate", d, t)
            });
            for r in &report.rejected {
                if json {
                    writeln!(out, "{}", serde_json::to_string(r)?)?;
                } else {
                    writeln!(out, "rejected {}: {}", r.id, r.reason)?;
                }
            }
            eprintln!(
                "validated {} tasks in {:.1} s: {} accepted, {} rejected (reference CPU {} ms)",
                pool.tasks().len(),
                start.elapsed().as_secs_f64(),
                report.accepted.len(),
                report.rejected.len(),
                report.cpu_ms
            );
            Ok(if report.rejected.is_empty() { 0 } else { 1 })
        }
        Command::Rotate { week, rate } => {
            let mut pool = load(&args.pool)?;
            let entry = rotate(&mut pool, &week, rate)?;
            pool.save_rotation()?;
            writeln!(out, "{}", serde_json::to_string(&entry)?)?;
            eprintln!(
                "{}: retired {}, introduced {}; pool {} → {}",
                entry.week,
                entry.retired.len(),
                entry.introduced.len(),
                &entry.pool_version_before[..12],
                &entry.pool_version_after[..12]
            );
            Ok(0)
        }
        Command::Import { data, threads } => {
            let data = data.unwrap_or_else(pipeline::default_data_dir);
            let target = match &args.pool {
                Some(p) => p.clone(),
                None => passrate_pool::bundled_dir().unwrap_or_else(|_| {
                    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../pool")
                }),
            };
            let runner = runner()?;
            let start = Instant::now();
            let (pool, licenses, report) = pipeline::import(&runner, &data, threads, &progress)?;
            pool.save(&target, &licenses)?;
            for r in &report.rejected {
                eprintln!("rejected {} ({}): {}", r.id, r.stage, r.reason);
            }
            for d in &report.dropped_variants {
                eprintln!("dropped {} {}: {}", d.id, d.language, d.reason);
            }
            eprintln!(
                "imported {} tasks ({} base parsed, {} built, {} derived, {} rejected, {} variants dropped) in {:.1} s (parse {:.1} s, record {:.1} s, validate {:.1} s)",
                report.accepted,
                report.parsed,
                report.built,
                report.derived,
                report.rejected.len(),
                report.dropped_variants.len(),
                start.elapsed().as_secs_f64(),
                report.parse_time.as_secs_f64(),
                report.build_time.as_secs_f64(),
                report.validate_time.as_secs_f64()
            );
            writeln!(out, "{} {}", pool.version(), target.display())?;
            Ok(0)
        }
    }
}
