//! `passrate sample`: the week's manifest (seed, pool version, task ids).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use passrate_pool::{Pool, SampleConfig, current_week, sample};
use passrate_schema::Category;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// ISO week, e.g. 2026-W48 (default: the current week).
    #[arg(long)]
    week: Option<String>,
    /// Number of tasks.
    #[arg(long, default_value_t = passrate_pool::sample::DEFAULT_SAMPLE_SIZE)]
    size: usize,
    /// Category weight, e.g. `--share bug_fixing=2` (default: 1 each).
    #[arg(long = "share", value_name = "CATEGORY=WEIGHT")]
    shares: Vec<String>,
    /// Pool directory (default: the bundled pool).
    #[arg(long, env = "PASSRATE_POOL")]
    pool: Option<PathBuf>,
    /// The manifest as one JSON document.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let pool = match &args.pool {
        Some(d) => Pool::load(d)?,
        None => Pool::bundled()?,
    };
    let mut config = SampleConfig {
        size: args.size,
        ..SampleConfig::default()
    };
    let mut shares: BTreeMap<Category, u32> = config.category_shares.clone();
    for share in &args.shares {
        let (name, weight) = share
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--share expects CATEGORY=WEIGHT, got `{share}`"))?;
        let category =
            Category::parse(name).ok_or_else(|| anyhow::anyhow!("unknown category `{name}`"))?;
        shares.insert(category, weight.parse()?);
    }
    config.category_shares = shares;
    let week = args.week.unwrap_or_else(current_week);
    let manifest = sample(&pool, &week, &config)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&manifest)?)?;
    } else {
        writeln!(out, "week {}", manifest.week)?;
        writeln!(out, "seed {}", manifest.seed)?;
        writeln!(out, "pool {}", manifest.pool_version)?;
        for item in &manifest.items {
            writeln!(
                out,
                "{}\t{}\t{}\ttier{}",
                item.task,
                item.language,
                item.category,
                item.tier.number()
            )?;
        }
    }
    eprintln!(
        "{} tasks from pool {}",
        manifest.items.len(),
        &manifest.pool_version[..12]
    );
    Ok(0)
}
