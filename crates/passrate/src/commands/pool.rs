//! `passrate pool`: statistics, one task, intake validation, a week's rotation, import and
//! performance inputs.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use passrate_pool::cache::Cache;
use passrate_pool::import::pipeline::{self, Event, ImportOptions};
use passrate_pool::{Executor, Pool, current_week, redact, rotation, stats, validate};

use super::CliError;
use super::output::print_data;
use super::sample::ScheduleArgs;

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
    /// Counts per category × tier × language, and how many tasks are active (may be
    /// sampled), retired by rotation and on the drift panel in a week.
    Stats {
        /// ISO week the active, retired and panel counts describe (default: the current week).
        #[arg(long)]
        week: Option<String>,
        #[command(flatten)]
        schedule: ScheduleArgs,
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
    /// Measures test suites by mutation: mutants of each task's reference (operators,
    /// off-by-one literals, negated conditions) judged as answers are; prints the killed share
    /// per task and language, the survivors, and the median per category.
    Strength {
        /// Tasks to measure (default: every `--every`th task of the measured categories:
        /// function completion, algorithm implementation, bug fixing).
        #[arg(long = "task")]
        tasks: Vec<String>,
        /// Only this category.
        #[arg(long, value_parser = parse_category)]
        category: Option<passrate_schema::Category>,
        /// Only this language (default: every language a task offers).
        #[arg(long, value_parser = parse_language)]
        lang: Option<passrate_schema::Language>,
        /// Measure every N-th task, in id order.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        every: u64,
        /// Mutants per task and language, spread over the reference.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
        mutants: u64,
        /// Worker threads (0: two per sandbox slot).
        #[arg(long, default_value_t = 0, value_parser = threads_range())]
        threads: usize,
        /// Executions at once (the sandbox's slots; default: one per core, plus one).
        #[arg(long, value_parser = slots_range())]
        slots: Option<usize>,
        /// One JSON object per task and language instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Runs every reference through the evaluation path twice and reports rejections, with
    /// a timing summary (wall, tasks/s, CPU).
    Validate {
        /// Worker threads (0: two per sandbox slot, so host-side work overlaps execution).
        #[arg(long, default_value_t = 0, value_parser = threads_range())]
        threads: usize,
        /// Executions at once (the sandbox's slots; default: one per core, plus one).
        #[arg(long, value_parser = slots_range())]
        slots: Option<usize>,
        /// Reuse (and store) evaluation results in this directory (default: no cache, every
        /// reference runs).
        #[arg(long)]
        cache: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// A week's rotation: how many tasks are active and retired, and which went out and
    /// came in since the week before. Computed from the pool and the week; writes nothing.
    Rotation {
        /// ISO week, e.g. 2026-W52 (default: the current week).
        #[arg(long)]
        week: Option<String>,
        #[command(flatten)]
        schedule: ScheduleArgs,
        /// One JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Generates performance inputs for the pool's call-test tasks (inputs scaled up until the
    /// reference needs a measurable CPU time, with each language's reference CPU on them) and
    /// writes them beside the tasks, replacing any it had (atomically, like `import`; the
    /// tasks and the pool version do not change). Prints how many tasks got a set per
    /// category and language, and the median reference CPU.
    Perf {
        /// Worker threads (0: two per sandbox slot, so host-side work overlaps execution).
        #[arg(long, alias = "threads", default_value_t = 0, value_parser = threads_range())]
        jobs: usize,
        /// Executions at once (the sandbox's slots; default: one per core, plus one).
        #[arg(long, value_parser = slots_range())]
        slots: Option<usize>,
        /// Reuse (and store) results in this intake cache directory (default: none, every
        /// reference runs; tasks sharing a reference and tests still share one set).
        #[arg(long)]
        cache: Option<PathBuf>,
        /// One JSON object per category and language instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Regenerates the pool from the public datasets (atomically replaces the directory).
    Import {
        /// Data directory (default: $PASSRATE_DATA or ../shared/data).
        #[arg(long)]
        data: Option<PathBuf>,
        /// Worker threads (0: two per sandbox slot, so host-side work overlaps execution).
        #[arg(long, default_value_t = 0, value_parser = threads_range())]
        threads: usize,
        /// Executions at once (the sandbox's slots; default: one per core, plus one).
        #[arg(long, value_parser = slots_range())]
        slots: Option<usize>,
        /// Intake cache directory (default: target/pool-cache in the repository). Entries
        /// are keyed by the content hash of their inputs and the runner's fingerprint.
        #[arg(long, conflicts_with = "no_cache")]
        cache: Option<PathBuf>,
        /// Execute everything, reading and writing no cache.
        #[arg(long)]
        no_cache: bool,
        /// Leave out MBXP's Java variants of `mbpp/N` (about 2,600 Java executions).
        #[arg(long)]
        no_mbxp_java: bool,
        /// The new pool's version and directory as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

fn parse_category(s: &str) -> Result<passrate_schema::Category, String> {
    passrate_schema::Category::ALL
        .into_iter()
        .find(|c| c.as_str() == s)
        .ok_or_else(|| {
            let known: Vec<&str> = passrate_schema::Category::ALL
                .iter()
                .map(|c| c.as_str())
                .collect();
            format!("unknown category `{s}` ({})", known.join(", "))
        })
}

fn parse_language(s: &str) -> Result<passrate_schema::Language, String> {
    passrate_schema::Language::parse(s)
        .ok_or_else(|| format!("unknown language `{s}` (python, javascript, java)"))
}

fn load(dir: &Option<PathBuf>) -> Result<Pool, CliError> {
    super::spinner::during("loading the pool", || match dir {
        Some(d) => Pool::load(d),
        None => Pool::bundled(),
    })
    .map_err(CliError::Pool)
}

/// `--threads`: 0 (automatic) up to a bound far past any host, so a typo is a usage error
/// rather than thousands of threads.
pub(super) fn threads_range() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(0..=4096)
}

/// `--slots`: executions at once, each a sandbox slot (a warm fork server for Python).
pub(super) fn slots_range() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..=1024)
}

/// The runner intake uses (see `pipeline::intake_runner_options`); `validate` uses the same
/// so its verdicts and cache keys match the import's.
fn runner(slots: Option<usize>) -> Result<passrate_runner::Runner, CliError> {
    let mut config = passrate_sandbox::SandboxConfig::default();
    if let Some(n) = slots {
        if n == 0 {
            return Err(CliError::Usage("--slots must be at least 1".to_string()));
        }
        config.slots = n;
    } else {
        // An execution leaves its core idle while it starts, hands over, waits on the
        // compile server or sleeps (classeval/92 waits out an 11 s wall-clock limit): one
        // slot more than the cores keeps them busy. Whole imports on 2 cores: 304.2 s at
        // 98.4 % busy against 313.3 s at 95.1 % (README, "The task pool", "Measured").
        config.slots += 1;
    }
    let sandbox = super::spinner::during("starting the sandbox", || {
        passrate_sandbox::Sandbox::new(config)
    })?;
    Ok(passrate_runner::Runner::new(
        sandbox,
        pipeline::intake_runner_options(),
    ))
}

fn threads(requested: usize, runner: &passrate_runner::Runner) -> usize {
    if requested > 0 {
        requested
    } else {
        2 * runner.sandbox().slots().max(1)
    }
}

/// Prints progress on stderr: a line per stage start and end, and every few seconds the
/// counts so far per task family (done / total, rejected), rate and the time left.
struct Printer<'a> {
    start: Instant,
    every: Duration,
    state: Mutex<PrinterState>,
    /// Its executions per program kind are summed up at the end of each stage.
    runner: &'a passrate_runner::Runner,
}

#[derive(Default)]
struct PrinterState {
    stage_start: Option<Instant>,
    last: Option<Instant>,
    /// family → (done, rejected)
    families: BTreeMap<String, (usize, usize)>,
    stats_at_start: BTreeMap<&'static str, passrate_runner::ExecCount>,
}

impl<'a> Printer<'a> {
    fn new(runner: &'a passrate_runner::Runner) -> Printer<'a> {
        Printer {
            start: Instant::now(),
            every: Duration::from_secs(5),
            state: Mutex::new(PrinterState::default()),
            runner,
        }
    }

    fn event(&self, e: &Event<'_>) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        match e {
            Event::Start { stage, total } => {
                s.stage_start = Some(now);
                s.last = Some(now);
                s.families.clear();
                s.stats_at_start = self.runner.exec_stats();
                if *total > 0 {
                    super::notice!(
                        "[{:>6.1} s] {stage}: {total} items",
                        self.start.elapsed().as_secs_f64()
                    );
                }
            }
            Event::Done {
                stage,
                id,
                rejected,
                done,
                total,
            } => {
                let family = passrate_pool::storage::family(id).to_owned();
                let entry = s.families.entry(family).or_default();
                entry.0 += 1;
                entry.1 += usize::from(rejected.is_some());
                if s.last.is_some_and(|l| now.duration_since(l) < self.every) && done < total {
                    return;
                }
                s.last = Some(now);
                let elapsed = s
                    .stage_start
                    .map_or(0.0, |t| now.duration_since(t).as_secs_f64());
                let rate = *done as f64 / elapsed.max(1e-3);
                let left = (*total - *done) as f64 / rate.max(1e-9);
                let families: Vec<String> = s
                    .families
                    .iter()
                    .map(|(f, (d, r))| {
                        if *r > 0 {
                            format!("{f} {d} ({r} rejected)")
                        } else {
                            format!("{f} {d}")
                        }
                    })
                    .collect();
                super::notice!(
                    "[{:>6.1} s] {stage}: {done}/{total}, {rate:.1}/s, ~{left:.0} s left | {}",
                    self.start.elapsed().as_secs_f64(),
                    families.join(", ")
                );
            }
            Event::End { stage, elapsed } => {
                let per_kind: Vec<String> = self
                    .runner
                    .exec_stats()
                    .into_iter()
                    .filter_map(|(kind, now)| {
                        let before = s.stats_at_start.get(kind).copied().unwrap_or_default();
                        let n = now.executions - before.executions;
                        let cpu = (now.cpu_us - before.cpu_us) as f64 / 1e6;
                        (n > 0).then(|| format!("{kind} {n} ({cpu:.1} s CPU)"))
                    })
                    .collect();
                let executions = if per_kind.is_empty() {
                    String::new()
                } else {
                    format!("; executions: {}", per_kind.join(", "))
                };
                super::notice!(
                    "[{:>6.1} s] {stage}: done in {:.1} s{executions}",
                    self.start.elapsed().as_secs_f64(),
                    elapsed.as_secs_f64()
                );
            }
        }
    }
}

/// CPU seconds of passrate's own process (`/proc/self/stat` utime + stime) and of everything
/// that ran in the sandbox's cgroup group (its leaves: executions, pre-started programs, the
/// compile servers). Reaped children (`cutime`) are not a measure of the sandboxes: processes
/// reparented away from passrate (a jail's init outliving its holder) and the long-lived
/// compile servers are never reaped by it.
#[derive(Clone, Copy, Default)]
struct HostCpu {
    own: f64,
    /// `None` when the group's CPU cannot be read.
    sandboxes: Option<f64>,
}

impl HostCpu {
    fn now(runner: &passrate_runner::Runner) -> HostCpu {
        HostCpu {
            own: own_cpu_s(),
            sandboxes: runner
                .sandbox()
                .cgroup_layout()
                .group_cpu_us()
                .ok()
                .map(|us| us as f64 / 1e6),
        }
    }
}

impl std::ops::Sub for HostCpu {
    type Output = HostCpu;
    fn sub(self, rhs: HostCpu) -> HostCpu {
        HostCpu {
            own: self.own - rhs.own,
            sandboxes: self.sandboxes.zip(rhs.sandboxes).map(|(a, b)| a - b),
        }
    }
}

impl std::fmt::Display for HostCpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.sandboxes {
            Some(s) => write!(
                f,
                "{:.1} s (passrate {:.1} s + sandboxes {:.1} s, the cgroup group's total: other \
                 passrate processes sharing the group add to it)",
                self.own + s,
                self.own,
                s
            ),
            None => write!(f, "passrate {:.1} s (sandboxes' CPU unreadable)", self.own),
        }
    }
}

fn own_cpu_s() -> f64 {
    let Ok(stat) = fs_err::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may contain spaces) start at ") ".
    let Some(rest) = stat.rsplit_once(") ").map(|(_, r)| r) else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14–15 of the full line (11–12 here, 0-based).
    let sum: u64 = fields
        .get(11..13)
        .map(|f| f.iter().filter_map(|x| x.parse::<u64>().ok()).sum())
        .unwrap_or(0);
    // The clock tick is 100 Hz on every Linux platform passrate supports.
    sum as f64 / 100.0
}

/// One row of `pool perf`'s summary.
#[derive(serde::Serialize)]
struct PerfRow {
    category: passrate_schema::Category,
    language: passrate_schema::Language,
    /// Tasks of the category offering the language.
    eligible: usize,
    /// Those whose set covers the language.
    with_set: usize,
    /// Their inputs in the language.
    inputs: usize,
    median_reference_cpu_ms: Option<f64>,
}

fn perf_summary(
    pool: &Pool,
    sets: &BTreeMap<String, passrate_pool::storage::PerfSet>,
) -> Vec<PerfRow> {
    let mut rows = Vec::new();
    for category in passrate_schema::Category::ALL {
        for language in passrate_schema::Language::ALL {
            let tasks: Vec<&passrate_schema::Task> = pool
                .tasks()
                .iter()
                .filter(|t| t.category == category && t.variants.contains_key(&language))
                .collect();
            if tasks.is_empty() {
                continue;
            }
            let mut cpu = Vec::new();
            let mut inputs = 0;
            for set in tasks.iter().filter_map(|t| sets.get(&t.id)) {
                if let Some(ms) = set.reference_cpu_ms.get(&language) {
                    cpu.push(*ms);
                    inputs += set
                        .tests
                        .iter()
                        .filter(|t| t.languages.contains(&language))
                        .count();
                }
            }
            cpu.sort_by(f64::total_cmp);
            rows.push(PerfRow {
                category,
                language,
                eligible: tasks.len(),
                with_set: cpu.len(),
                inputs,
                median_reference_cpu_ms: (!cpu.is_empty()).then(|| cpu[cpu.len() / 2]),
            });
        }
    }
    rows
}

/// `target/pool-cache` beside the pool directory: in the repository, its `target/`. Found
/// from the pool at run time, so the binary carries no build-machine path.
fn default_cache_dir(pool_dir: &Path) -> PathBuf {
    pool_dir
        .parent()
        .unwrap_or(Path::new("."))
        .join("target/pool-cache")
}

pub fn run(args: Args) -> Result<i32, CliError> {
    // Data is gathered and printed once, also when the command fails after writing some
    // (`validate`'s rejections come before its exit code 8).
    let mut out = String::new();
    let result = run_into(args, &mut out);
    print_data(&out)?;
    result
}

fn run_into(args: Args, out: &mut String) -> Result<i32, CliError> {
    match args.command {
        Command::Stats {
            week,
            schedule,
            json,
        } => {
            let pool = load(&args.pool)?;
            let week = week.unwrap_or_else(current_week);
            let s = stats(&pool, &week, &schedule.config(0)?)?;
            if json {
                for row in &s.rows {
                    let line = serde_json::to_string(row).map_err(CliError::json("a stats row"))?;
                    writeln!(out, "{line}")?;
                }
                return Ok(0);
            }
            writeln!(
                out,
                "pool {} series {}  tasks {} (week {}: active {}, retired {}, panel {})  tests {} ({} hidden)",
                &s.pool_version[..12],
                s.series,
                s.tasks,
                s.week,
                s.active,
                s.retired,
                s.panel,
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
            writeln!(
                out,
                "\n{:<26} {:>19} {:>7} {:>13} {:>15} {:>8} {:>9}",
                "suites",
                "tests min/med/max",
                "hidden",
                "below minimum",
                "mutation median",
                "measured",
                format!(
                    "under {:.0}%",
                    passrate_pool::strength::MUTATION_TARGET * 100.0
                )
            )?;
            for (category, suites) in &s.suites {
                writeln!(
                    out,
                    "{:<26} {:>19} {:>6.1}% {:>13} {:>15} {:>8} {:>9}",
                    category.as_str(),
                    format!(
                        "{}/{}/{}",
                        suites.tests_min, suites.tests_median, suites.tests_max
                    ),
                    suites.hidden_share * 100.0,
                    suites.active_below_minimum,
                    suites
                        .mutation_median
                        .map_or("-".to_owned(), |m| format!("{:.0}%", m * 100.0)),
                    suites.mutation_measured,
                    suites.mutation_below_target
                )?;
            }
            Ok(0)
        }
        Command::Strength {
            tasks,
            category,
            lang,
            every,
            mutants,
            threads: requested,
            slots,
            json,
        } => {
            let pool = load(&args.pool)?;
            let chosen: Vec<&passrate_schema::Task> = if tasks.is_empty() {
                pool.tasks()
                    .iter()
                    .filter(|t| passrate_pool::strength::MEASURED.contains(&t.category))
                    .filter(|t| category.is_none_or(|c| t.category == c))
                    .step_by(every as usize)
                    .collect()
            } else {
                tasks
                    .iter()
                    .map(|id| {
                        pool.get(id).ok_or_else(|| CliError::UnknownTask {
                            id: id.clone(),
                            pool: pool.version().short().to_string(),
                        })
                    })
                    .collect::<Result<_, _>>()?
            };
            let units: Vec<(&passrate_schema::Task, passrate_schema::Language)> = chosen
                .iter()
                .flat_map(|t| t.variants.keys().map(move |l| (*t, *l)))
                .filter(|(_, l)| lang.is_none_or(|want| *l == want))
                .collect();
            let runner = runner(slots)?;
            let threads = threads(requested, &runner);
            let bar = super::spinner::bar(units.len(), "mutating", "tasks");
            let measured = passrate_pool::strength::measure_all(
                &runner,
                &units,
                mutants as usize,
                threads,
                &|done, _| {
                    if let Some(bar) = &bar {
                        bar.set_position(done as u64);
                    }
                },
            )
            .map_err(CliError::Measure)?;
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            if json {
                for s in &measured {
                    let mut line =
                        serde_json::to_value(s).map_err(CliError::json("a measurement"))?;
                    line["score"] = serde_json::json!(s.score());
                    writeln!(out, "{line}")?;
                }
                return Ok(0);
            }
            writeln!(
                out,
                "{:<28} {:<10} {:>5} {:>7} {:>6} {:>6} {:>7}  first survivor",
                "task", "language", "tests", "mutants", "killed", "score", "faulty"
            )?;
            for s in &measured {
                writeln!(
                    out,
                    "{:<28} {:<10} {:>5} {:>7} {:>6} {:>6} {:>7}  {}",
                    s.task,
                    s.language.as_str(),
                    s.tests,
                    s.mutants - s.stillborn,
                    s.killed,
                    s.score()
                        .map_or("n/a".to_string(), |x| format!("{:.0}%", x * 100.0)),
                    format!("{}/{}", s.faulty_killed, s.faulty),
                    s.survivors.first().map_or("", String::as_str)
                )?;
            }
            let mut by_category: BTreeMap<passrate_schema::Category, Vec<f64>> = BTreeMap::new();
            for s in &measured {
                if let Some(x) = s.score() {
                    by_category.entry(s.category).or_default().push(x);
                }
            }
            writeln!(out)?;
            for (category, mut scores) in by_category {
                scores.sort_by(f64::total_cmp);
                let at_least = scores
                    .iter()
                    .filter(|x| **x >= passrate_pool::strength::MUTATION_TARGET)
                    .count();
                writeln!(
                    out,
                    "{:<28} median {:>4.0}%  {} of {} at {:.0}% or more",
                    category.as_str(),
                    scores[scores.len() / 2] * 100.0,
                    at_least,
                    scores.len(),
                    passrate_pool::strength::MUTATION_TARGET * 100.0
                )?;
            }
            Ok(0)
        }
        Command::Show {
            id,
            include_hidden,
            json,
        } => {
            let task = super::check::open_task(args.pool.as_deref(), &id)?;
            let (shown, removed) = redact(&task, include_hidden);
            let text = if json {
                serde_json::to_string(&shown)
            } else {
                serde_json::to_string_pretty(&shown)
            }
            .map_err(CliError::json("the task"))?;
            writeln!(out, "{text}")?;
            if removed > 0 {
                super::notice!("{removed} hidden tests redacted (use --include-hidden)");
            }
            Ok(0)
        }
        Command::Validate {
            threads: requested,
            slots,
            cache,
            json,
        } => {
            let load_start = Instant::now();
            let pool = load(&args.pool)?;
            let load_time = load_start.elapsed();
            let runner = runner(slots)?;
            let threads = threads(requested, &runner);
            let cache = Cache::new(cache, &runner.fingerprint());
            let printer = Printer::new(&runner);
            let cpu_before = HostCpu::now(&runner);
            let start = Instant::now();
            printer.event(&Event::Start {
                stage: "validate",
                total: pool.tasks().len(),
            });
            let report = validate(
                &runner,
                &cache,
                pool.tasks().to_vec(),
                threads,
                &|task, rejected, done, total| {
                    printer.event(&Event::Done {
                        stage: "validate",
                        id: &task.id,
                        rejected,
                        done,
                        total,
                    })
                },
            );
            let wall = start.elapsed();
            printer.event(&Event::End {
                stage: "validate",
                elapsed: wall,
            });
            let host_cpu = HostCpu::now(&runner) - cpu_before;
            for r in &report.rejected {
                if json {
                    let line = serde_json::to_string(r).map_err(CliError::json("a rejection"))?;
                    writeln!(out, "{line}")?;
                } else {
                    writeln!(out, "rejected {}: {}", r.id, r.reason)?;
                }
            }
            let n = pool.tasks().len();
            let stats = cache.stats();
            super::notice!(
                "pool {}: validated {n} tasks in {:.1} s wall ({:.1} tasks/s, {threads} threads, load {:.2} s): {} accepted, {} rejected",
                pool.version().short(),
                wall.as_secs_f64(),
                n as f64 / wall.as_secs_f64().max(1e-9),
                load_time.as_secs_f64(),
                report.accepted.len(),
                report.rejected.len(),
            );
            super::notice!(
                "CPU: {:.1} s in sandboxes (cgroup, reference runs{}), {}; cache {} hits, {} misses",
                report.cpu_ms as f64 / 1000.0,
                if stats.hits > 0 {
                    ", cached ones as recorded"
                } else {
                    ""
                },
                host_cpu,
                stats.hits,
                stats.misses
            );
            if report.rejected.is_empty() {
                Ok(passrate_schema::exit::OK)
            } else {
                Err(CliError::ValidationFailed {
                    rejected: report.rejected.len(),
                    tasks: n,
                })
            }
        }
        Command::Rotation {
            week,
            schedule,
            json,
        } => {
            let pool = load(&args.pool)?;
            let week = week.unwrap_or_else(current_week);
            let r = rotation(&pool, &week, &schedule.config(0)?)?;
            if json {
                let line = serde_json::to_string(&r).map_err(CliError::json("the rotation"))?;
                writeln!(out, "{line}")?;
                return Ok(0);
            }
            let used = &r.rotation;
            writeln!(
                out,
                "week {}  pool {}  series {}",
                r.week,
                &r.pool_version[..12],
                r.series
            )?;
            writeln!(
                out,
                "rate {}  weeks_out {}  active {}  retired {}  panel {}",
                used.rate, used.weeks_out, used.active_tasks, used.retired_tasks, r.panel_tasks
            )?;
            for id in &used.went_out {
                writeln!(out, "out\t{id}")?;
            }
            for id in &used.came_in {
                writeln!(out, "in\t{id}")?;
            }
            super::notice!(
                "{}: {} went out, {} came in",
                r.week,
                used.went_out.len(),
                used.came_in.len()
            );
            Ok(0)
        }
        Command::Perf {
            jobs,
            slots,
            cache,
            json,
        } => {
            let dir = match &args.pool {
                Some(p) => p.clone(),
                None => passrate_pool::bundled_dir().map_err(CliError::Pool)?,
            };
            let pool = load(&Some(dir.clone()))?;
            let runner = runner(slots)?;
            let threads = threads(jobs, &runner);
            let cache = Cache::new(cache, &runner.fingerprint());
            super::notice!(
                "performance inputs for {} tasks of pool {} with {threads} threads on {} sandbox slots",
                pool.tasks().len(),
                pool.version().short(),
                runner.sandbox().slots()
            );
            let printer = Printer::new(&runner);
            let cpu_before = HostCpu::now(&runner);
            let start = Instant::now();
            let sets = pipeline::perf_sets(&runner, &cache, pool.tasks(), threads, &|e| {
                printer.event(e)
            })?;
            let wall = start.elapsed();
            let host_cpu = HostCpu::now(&runner) - cpu_before;
            let version = pool.version();
            let summary = perf_summary(&pool, &sets);
            let with_sets = sets.len();
            let pool = pool.with_perf_sets(sets);
            pool.resave(&dir).map_err(|source| CliError::WritePool {
                dir: dir.clone(),
                source,
            })?;
            let perf_bytes: u64 = fs_err::read_dir(dir.join("perf"))
                .map(|entries| {
                    entries
                        .filter_map(Result::ok)
                        .filter_map(|e| e.metadata().ok())
                        .map(|m| m.len())
                        .sum()
                })
                .unwrap_or(0);
            if json {
                for row in &summary {
                    let line =
                        serde_json::to_string(row).map_err(CliError::json("a summary row"))?;
                    writeln!(out, "{line}")?;
                }
            } else {
                writeln!(
                    out,
                    "{:<26} {:<10} {:>8} {:>9} {:>7} {:>16}",
                    "category", "language", "eligible", "with set", "inputs", "median ref CPU"
                )?;
                for row in &summary {
                    writeln!(
                        out,
                        "{:<26} {:<10} {:>8} {:>9} {:>7} {:>13}",
                        row.category.as_str(),
                        row.language.as_str(),
                        row.eligible,
                        row.with_set,
                        row.inputs,
                        row.median_reference_cpu_ms
                            .map_or("-".to_owned(), |m| format!("{m:.0} ms"))
                    )?;
                }
            }
            super::notice!(
                "{with_sets} tasks with performance inputs in {:.1} s wall ({}; cache {} hits, {} misses); perf files {:.1} MiB; pool {} unchanged, written to {}",
                wall.as_secs_f64(),
                host_cpu,
                cache.stats().hits,
                cache.stats().misses,
                perf_bytes as f64 / (1 << 20) as f64,
                version.short(),
                dir.display()
            );
            Ok(0)
        }
        Command::Import {
            data,
            threads: requested,
            slots,
            cache,
            no_cache,
            no_mbxp_java,
            json,
        } => {
            let data = data.unwrap_or_else(pipeline::default_data_dir);
            let target = match &args.pool {
                Some(p) => p.clone(),
                // No bundled pool anywhere: a new one in the working directory.
                None => passrate_pool::bundled_dir().unwrap_or_else(|_| PathBuf::from("pool")),
            };
            let runner = runner(slots)?;
            let options = ImportOptions {
                threads: threads(requested, &runner),
                cache_dir: if no_cache {
                    None
                } else {
                    Some(cache.unwrap_or_else(|| default_cache_dir(&target)))
                },
                mbxp_java: !no_mbxp_java,
            };
            super::notice!(
                "importing from {} with {} threads on {} sandbox slots, cache {}",
                data.display(),
                options.threads,
                runner.sandbox().slots(),
                options
                    .cache_dir
                    .as_ref()
                    .map_or("off".to_owned(), |d| d.display().to_string())
            );
            let printer = Printer::new(&runner);
            let cpu_before = HostCpu::now(&runner);
            let start = Instant::now();
            // A re-import keeps the pool's series: only a deliberate bump draws a new panel.
            let series = passrate_pool::storage::read_series(&target).map_err(CliError::Pool)?;
            let (pool, licenses, report) =
                pipeline::import(&runner, &data, &options, &|e| printer.event(e))?;
            let pool = pool.with_series(series);
            let rejections = report.rejections_markdown(&options);
            pool.save_with(
                &target,
                &licenses,
                &[("REJECTIONS.md", rejections.as_bytes())],
            )
            .map_err(|source| CliError::WritePool {
                dir: target.clone(),
                source,
            })?;
            let host_cpu = HostCpu::now(&runner) - cpu_before;
            let mut by_stage: BTreeMap<&str, usize> = BTreeMap::new();
            for r in &report.rejected {
                *by_stage.entry(r.stage.as_str()).or_default() += 1;
            }
            super::notice!(
                "imported {} tasks ({} base parsed, {} built, {} derived; rejected {} {:?}; {} variants dropped, {} omitted by option)",
                report.accepted,
                report.parsed,
                report.built,
                report.derived,
                report.rejected.len(),
                by_stage,
                report.dropped_variants.len(),
                report.omitted_variants,
            );
            super::notice!(
                "time: {:.1} s wall (parse {:.1} s, record {:.1} s, validate {:.1} s); CPU {}, {:.1} s reference runs in sandboxes; cache {} hits, {} misses",
                start.elapsed().as_secs_f64(),
                report.parse_time.as_secs_f64(),
                report.build_time.as_secs_f64(),
                report.validate_time.as_secs_f64(),
                host_cpu,
                report.reference_cpu_ms as f64 / 1000.0,
                report.cache.hits,
                report.cache.misses
            );
            super::notice!(
                "tests: {} hidden tests from generated inputs, {} hidden tests given to bug-fixing tasks from their base, {} hidden tests kept as extra tests beyond the scored suites chosen by mutation",
                report.generated_tests,
                report.screened_hidden_tests,
                report.unscored_tests
            );
            super::notice!(
                "determinism: {} recorded references ran once more through the evaluation path (two runs in all); every other reference ran twice",
                report.recorded_references
            );
            super::notice!(
                "rejection report: {}",
                target.join("REJECTIONS.md").display()
            );
            if json {
                let line = serde_json::json!({
                    "pool_version": pool.version().to_string(),
                    "dir": target,
                });
                writeln!(out, "{line}")?;
            } else {
                writeln!(out, "{} {}", pool.version(), target.display())?;
            }
            Ok(0)
        }
    }
}
