//! `passrate run`: the weekly cycle. Resolves the settings (CLI > environment > defaults),
//! builds the models, the sandbox and the store, runs the engine, shows its events (progress
//! bars on a terminal, JSON Lines with `--json`) and prints the week's leaderboard on stdout.
//! Re-running the same command resumes the same run.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use passrate_engine::{AnswerSource, Cycle, CycleOptions, EventSink};
use passrate_models::{CacheMode, Model, ModelsConfig, process_env};
use passrate_pool::{Pool, current_week, parse_week};
use passrate_runner::{Runner, RunnerOptions};
use passrate_sandbox::{Sandbox, SandboxConfig};
use passrate_schema::{RunEvent, exit};
use passrate_store::Store;

use super::CliError;
pub use super::sample::ScheduleArgs;
pub use super::store_args::StoreArgs;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// ISO week, e.g. 2026-W48 (default: the current week).
    #[arg(long)]
    pub week: Option<String>,
    /// models.toml (default: the bundled replays). The `reference` and `known-buggy` models
    /// built from the pool are always added.
    #[arg(long, env = "PASSRATE_MODELS")]
    pub models: Option<PathBuf>,
    /// Pool directory (default: the bundled pool).
    #[arg(long, env = "PASSRATE_POOL")]
    pub pool: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Tasks in the sample.
    #[arg(long, default_value_t = passrate_pool::sample::DEFAULT_SAMPLE_SIZE)]
    pub size: usize,
    /// Category shares, the rotation and the drift panel.
    #[command(flatten)]
    pub schedule: ScheduleArgs,
    /// Ask models again instead of using cached answers (units already stored in this run
    /// stay as they are: results are append-only).
    #[arg(long)]
    pub refresh: bool,
    /// Reuse the cached answers of an earlier run (its id, as `passrate run` prints it)
    /// instead of asking API and command models afresh; recorded in the run.
    #[arg(long, value_name = "RUN")]
    pub reuse_answers_from: Option<String>,
    /// JSON Lines on stdout: every event, then the leaderboard.
    #[arg(long)]
    pub json: bool,
    /// Print the wall time of each stage on stderr at the end.
    #[arg(long)]
    pub timings: bool,
    /// Skip the quality checks of passed answers (robustness, efficiency, maintainability):
    /// the pass rate only. A different run from the same command with quality.
    #[arg(long)]
    pub no_quality: bool,
}

/// The bundled models.toml: beside the repository's crates, or beside the executable.
pub fn bundled_models() -> Result<PathBuf, CliError> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../replays/models.toml");
    if repo.is_file() {
        return Ok(repo);
    }
    if let Ok(exe) = std::env::current_exe()
        && let Some(dir) = exe.parent()
    {
        let beside = dir.join("replays/models.toml");
        if beside.is_file() {
            return Ok(beside);
        }
    }
    Err(CliError::NoBundledModels { looked: repo })
}

/// Everything a cycle needs, built from the arguments.
pub struct Prepared {
    pub cycle: Cycle,
    /// Samples per model, for progress bars.
    pub samples: BTreeMap<String, u32>,
    /// Milliseconds spent loading the pool, building the models and starting the sandbox.
    pub setup_ms: [(&'static str, u64); 3],
}

pub fn prepare(args: &Args, store: Store) -> Result<Prepared, CliError> {
    let week = match &args.week {
        Some(w) => parse_week(w)?,
        None => current_week(),
    };
    let clock = Instant::now();
    let pool = match &args.pool {
        Some(dir) => Pool::load(dir),
        None => Pool::bundled(),
    }
    .map_err(CliError::Pool)?;
    let pool_ms = ms(clock.elapsed());
    let clock = Instant::now();
    let models_path = match &args.models {
        Some(p) => p.clone(),
        None => bundled_models()?,
    };
    let config = ModelsConfig::load(&models_path)?;
    let mut sources = vec![
        Arc::new(AnswerSource::reference()),
        Arc::new(AnswerSource::known_buggy()),
    ];
    for model in Model::build_all(&config, &process_env)? {
        sources.push(Arc::new(AnswerSource::model(model)));
    }
    let models_ms = ms(clock.elapsed());
    let clock = Instant::now();
    let sandbox = Sandbox::new(SandboxConfig::default())?;
    let runner = Runner::new(sandbox, RunnerOptions::default());
    let sandbox_ms = ms(clock.elapsed());
    let mut options = CycleOptions::new(week);
    options.sample = args.schedule.config(args.size)?;
    options.reuse_answers_from = args.reuse_answers_from.clone();
    options.quality = !args.no_quality;
    options.cache_mode = if args.refresh {
        CacheMode::Refresh
    } else {
        CacheMode::Use
    };
    let samples = sources
        .iter()
        .map(|s| (s.id().to_string(), s.samples()))
        .collect();
    Ok(Prepared {
        cycle: Cycle {
            store,
            runner: Arc::new(runner),
            pool: Arc::new(pool),
            sources,
            options,
        },
        samples,
        setup_ms: [
            ("load pool", pool_ms),
            ("build models", models_ms),
            ("start sandbox", sandbox_ms),
        ],
    })
}

fn ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Writes data to stdout. A reader that stopped reading (`| head`) is not an error: the
/// results are stored either way.
pub fn print_data(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

pub fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)
}

/// Progress bars only where a person watches: stderr is a terminal, not under CI, not
/// `--quiet`.
fn wants_progress() -> bool {
    super::spinner::wants_progress()
}

/// One bar per model, on stderr.
struct Progress {
    multi: MultiProgress,
    bars: Mutex<BTreeMap<String, ProgressBar>>,
    samples: BTreeMap<String, u32>,
    style: ProgressStyle,
}

impl Progress {
    fn new(samples: BTreeMap<String, u32>) -> Progress {
        let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        let template = if color {
            "{prefix:>28} {bar:30.cyan/blue} {pos:>4}/{len:4} {elapsed_precise} {rate:>8} eta {eta:>4} {msg}"
        } else {
            "{prefix:>28} {bar:30} {pos:>4}/{len:4} {elapsed_precise} {rate:>8} eta {eta:>4} {msg}"
        };
        Progress {
            multi: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
            bars: Mutex::new(BTreeMap::new()),
            samples,
            style: ProgressStyle::with_template(template)
                .expect("a valid template")
                // indicatif's `{per_sec}` prints every digit of the float.
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.1}/s", state.per_sec());
                    },
                )
                .progress_chars("=> "),
        }
    }

    fn on(&self, event: &RunEvent) {
        let mut bars = self.bars.lock().unwrap_or_else(|e| e.into_inner());
        match event {
            RunEvent::RunStarted { models, tasks, .. } => {
                for model in models {
                    let n = *tasks as u64 * u64::from(*self.samples.get(model).unwrap_or(&1));
                    let bar = self.multi.add(ProgressBar::new(n));
                    bar.set_style(self.style.clone());
                    bar.set_prefix(model.clone());
                    bars.insert(model.clone(), bar);
                }
            }
            RunEvent::TaskFinished { model, .. } => {
                if let Some(bar) = bars.get(model) {
                    bar.inc(1);
                }
            }
            RunEvent::InfrastructureRetry { model, attempt, .. } => {
                if let Some(bar) = bars.get(model) {
                    bar.set_message(format!("sandbox retry {attempt}"));
                }
            }
            RunEvent::ModelFinished { model, overall, .. } => {
                if let Some(bar) = bars.get(model) {
                    bar.finish_with_message(format!("{:.1}%", overall.score * 100.0));
                }
            }
            RunEvent::ApiRetry { model, attempt, .. } => {
                if let Some(bar) = bars.get(model) {
                    bar.set_message(format!("API retry {attempt}"));
                }
            }
            RunEvent::RunFinished { .. }
            | RunEvent::PreflightPassed { .. }
            | RunEvent::ModelUnscored { .. }
            | RunEvent::ControlRun { .. } => {}
        }
    }
}

/// The lines a person needs on stderr whatever the display: each model's pre-flight, the
/// first API error of each model (later ones are counted in the run's summary), each sandbox
/// fault the control run classified, and models left unscored.
struct Notices {
    first_api_error: Mutex<std::collections::BTreeSet<String>>,
}

impl Notices {
    fn on(&self, event: &RunEvent, progress: Option<&Progress>) {
        let line = match event {
            RunEvent::PreflightPassed {
                model,
                checked,
                latency_ms,
            } => format!("pre-flight: {model} ok ({checked}, {latency_ms} ms)"),
            RunEvent::ApiRetry {
                model,
                task,
                attempt,
                error,
                will_retry,
                ..
            } => {
                let mut seen = self
                    .first_api_error
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                if !seen.insert(model.clone()) {
                    return;
                }
                let next = if *will_retry { "retrying" } else { "giving up" };
                format!("{model}: API error on {task} (attempt {attempt}, {next}): {error}")
            }
            RunEvent::ControlRun {
                model,
                task,
                language,
                attempts,
                fault,
                control,
                candidate_caused,
                recorded,
                ..
            } => {
                let verdict = if *candidate_caused {
                    format!(
                        "the reference ran cleanly ({control}), recorded as the answer's {recorded}"
                    )
                } else {
                    format!(
                        "the reference failed too ({control}), an infrastructure fault ({recorded})"
                    )
                };
                format!(
                    "{model}: sandbox failed on {task} ({language}) {attempts} time(s): {fault}; {verdict}"
                )
            }
            RunEvent::ModelUnscored {
                model,
                api_errors,
                sandbox_errors,
                first_error,
                ..
            } => format!(
                "{model}: no score recorded ({api_errors} units ended in api_error, \
                 {sandbox_errors} in sandbox_error){}",
                first_error
                    .as_deref()
                    .map(|e| format!("; first error: {e}"))
                    .unwrap_or_default()
            ),
            _ => return,
        };
        // `--quiet`: the exit code and the final error say what matters.
        if super::quiet() {
            return;
        }
        match progress {
            Some(p) => p.multi.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }
}

fn sink(json: bool, samples: BTreeMap<String, u32>) -> EventSink {
    if json {
        return Arc::new(|event: &RunEvent| {
            let line = serde_json::to_string(event).expect("events serialise");
            let mut out = std::io::stdout().lock();
            // A closed stdout (a pipe to `head`) must not abort the run: results are stored.
            let _ = writeln!(out, "{line}");
        });
    }
    let notices = Notices {
        first_api_error: Mutex::new(Default::default()),
    };
    if wants_progress() {
        let progress = Progress::new(samples);
        return Arc::new(move |event: &RunEvent| {
            notices.on(event, Some(&progress));
            progress.on(event);
        });
    }
    Arc::new(move |event: &RunEvent| notices.on(event, None))
}

pub fn run(args: Args) -> Result<i32, CliError> {
    let rt = runtime()?;
    rt.block_on(async {
        let store = args.store.open().await?;
        let prepared = super::spinner::during("loading the pool and starting the sandbox", || {
            prepare(&args, store.clone())
        })?;
        let events = sink(args.json, prepared.samples.clone());
        let report = prepared.cycle.run(events).await?;
        if !args.json {
            super::notice!(
                "run {}{}: {} units judged, {} already stored, {} record(s) appended",
                report.run_id,
                if report.resumed { " (resumed)" } else { "" },
                report.executed_units,
                report.stored_units,
                report.appended_records
            );
        }
        if args.timings {
            eprint!(
                "{}",
                super::bench_cycle::render_timings(&report.timings, &prepared.setup_ms)
            );
        }
        let board = passrate_engine::leaderboard(
            &store,
            &report.manifest.week,
            &prepared.cycle.options.score,
        )
        .await?;
        store.close().await;
        if args.json {
            let line = serde_json::json!({ "event": "leaderboard", "leaderboard": board });
            print_data(&format!("{line}\n")).map_err(CliError::Stdout)?;
        } else {
            print_data(&super::leaderboard::render(&board)).map_err(CliError::Stdout)?;
        }
        for alert in &board.alerts {
            eprintln!("ALERT: {alert}");
        }
        if !args.json && !super::quiet() {
            // The same store, in a browser: the board, each model's history, the runs.
            eprintln!(
                "to browse it: passrate serve --database {}  (then open http://127.0.0.1:8080/)",
                store.location()
            );
        }
        if report.has_api_errors() {
            let models: Vec<&str> = report
                .unscored
                .iter()
                .filter(|m| m.api_errors > 0)
                .map(|m| m.model.as_str())
                .collect();
            return Err(CliError::ModelApi {
                models: models.into_iter().map(str::to_string).collect(),
                run_id: report.run_id.clone(),
            });
        }
        Ok(exit::OK)
    })
}
