//! `passrate sample`: the week's manifest (seed, pool version, rotation, task ids and the
//! drift panel). Also the options that decide a week's active set, shared with
//! `passrate pool stats` and `passrate pool rotation`.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

use passrate_pool::rotation::{DEFAULT_RATE, DEFAULT_WEEKS_OUT};
use passrate_pool::{Pool, SampleConfig, current_week, sample};
use passrate_schema::{Category, ManifestItem};

use super::CliError;
use super::output::{print_data, print_json};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// ISO week, e.g. 2026-W48 (default: the current week).
    #[arg(long)]
    week: Option<String>,
    /// Number of tasks.
    #[arg(long, default_value_t = passrate_pool::sample::DEFAULT_SAMPLE_SIZE)]
    size: usize,
    #[command(flatten)]
    schedule: ScheduleArgs,
    /// Pool directory (default: the bundled pool).
    #[arg(long, env = "PASSRATE_POOL")]
    pool: Option<PathBuf>,
    /// The manifest as one JSON document.
    #[arg(long)]
    json: bool,
}

/// What decides a week's active set besides the pool and the week: the rotation, and the
/// drift panel with its shares (panel tasks never rotate, so they shape the rotation).
#[derive(clap::Args, Debug, Clone)]
pub struct ScheduleArgs {
    /// Category weight, e.g. `--share bug_fixing=2` or `=0` to leave one out (default: 1
    /// each).
    #[arg(long = "share", value_name = "CATEGORY=WEIGHT")]
    pub shares: Vec<String>,
    /// Share of the active tasks that retires each week, in (0, 0.5].
    #[arg(long, default_value_t = DEFAULT_RATE)]
    pub rotation_rate: f64,
    /// Weeks a retired task stays out of the sample.
    #[arg(long, default_value_t = DEFAULT_WEEKS_OUT)]
    pub weeks_out: u32,
    /// Tasks on the drift panel (0: no panel).
    #[arg(long, default_value_t = passrate_pool::panel::DEFAULT_PANEL_SIZE)]
    pub panel_size: usize,
}

impl Default for ScheduleArgs {
    /// The command line's defaults.
    fn default() -> Self {
        ScheduleArgs {
            shares: Vec::new(),
            rotation_rate: DEFAULT_RATE,
            weeks_out: DEFAULT_WEEKS_OUT,
            panel_size: passrate_pool::panel::DEFAULT_PANEL_SIZE,
        }
    }
}

impl ScheduleArgs {
    /// The sample configuration with these options and `size` tasks.
    pub fn config(&self, size: usize) -> Result<SampleConfig, CliError> {
        let mut config = SampleConfig {
            size,
            panel_size: self.panel_size,
            ..SampleConfig::default()
        };
        config.rotation.rate = self.rotation_rate;
        config.rotation.weeks_out = self.weeks_out;
        let mut shares: BTreeMap<Category, u32> = config.category_shares.clone();
        for share in &self.shares {
            let usage = |why: String| CliError::Usage(format!("--share {share}: {why}"));
            let (name, weight) = share
                .split_once('=')
                .ok_or_else(|| usage("expected CATEGORY=WEIGHT".to_string()))?;
            let category = Category::parse(name).ok_or_else(|| {
                let names: Vec<&str> = Category::ALL.iter().map(|c| c.as_str()).collect();
                usage(format!("unknown category `{name}` ({})", names.join(", ")))
            })?;
            let weight = weight
                .parse()
                .map_err(|e| usage(format!("weight `{weight}`: {e}")))?;
            shares.insert(category, weight);
        }
        config.category_shares = shares;
        Ok(config)
    }
}

fn item_line(item: &ManifestItem) -> String {
    format!(
        "{}\t{}\t{}\ttier{}",
        item.task,
        item.language,
        item.category,
        item.tier.number()
    )
}

pub fn run(args: Args) -> Result<i32, CliError> {
    let pool = super::spinner::during("loading the pool", || match &args.pool {
        Some(d) => Pool::load(d),
        None => Pool::bundled(),
    })
    .map_err(CliError::Pool)?;
    let config = args.schedule.config(args.size)?;
    let week = args.week.unwrap_or_else(current_week);
    let manifest = sample(&pool, &week, &config)?;
    if args.json {
        print_json("the manifest", &manifest)?;
    } else {
        let mut out = String::new();
        writeln!(out, "week {}", manifest.week)?;
        writeln!(out, "seed {}", manifest.seed)?;
        writeln!(out, "pool {}", manifest.pool_version)?;
        if let Some(r) = &manifest.rotation {
            writeln!(
                out,
                "rotation rate {} weeks_out {}: {} active, {} retired; {} went out, {} came in",
                r.rate,
                r.weeks_out,
                r.active_tasks,
                r.retired_tasks,
                r.went_out.len(),
                r.came_in.len()
            )?;
        }
        for item in &manifest.items {
            writeln!(out, "{}", item_line(item))?;
        }
        writeln!(
            out,
            "panel {} tasks, series {}",
            manifest.panel.len(),
            pool.series()
        )?;
        for item in &manifest.panel {
            writeln!(out, "{}", item_line(item))?;
        }
        print_data(&out)?;
    }
    super::notice!(
        "{} tasks and {} drift panel tasks from pool {}",
        manifest.items.len(),
        manifest.panel.len(),
        &manifest.pool_version[..12]
    );
    Ok(passrate_schema::exit::OK)
}
