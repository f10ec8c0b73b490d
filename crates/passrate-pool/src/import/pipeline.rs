//! The whole import: parse every dataset, record and build the base tasks, derive the
//! others, validate everything, generate the accepted tasks' performance inputs
//! ([`super::perf`]), and assemble the pool with its initial reserve and the licence files.
//! Deterministic for a given data directory and runner (the performance inputs through the
//! cache: see [`super::perf`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use passrate_schema::{Language, Task};
use serde::Deserialize;

use super::build::{DroppedVariant, Rejection, build_all};
use super::humaneval::HumanEvalProblem;
use super::{ImportError, RawTask, classeval, derived, humaneval, mbpp, quixbugs, read_jsonl};
use crate::cache::{Cache, CacheStats};
use crate::exec::Executor;
use crate::storage::{LicenseFile, Pool};
use crate::validate::{Recorded, validate_with};

/// Licence and notice files shipped with the pool, relative to the data directory.
pub const LICENSE_FILES: &[&str] = &[
    "humaneval/LICENSE",
    "humanevalplus/LICENSE",
    "humanevalpack/LICENSE",
    "humaneval-x/LICENSE",
    "mbpp/NOTICE.md",
    "mbppplus/LICENSE",
    "mxeval/LICENSE",
    "mxeval/NOTICE",
    "mxeval/mbxp/LICENSE",
    "quixbugs/LICENSE",
    "classeval/LICENSE",
];

/// Every dataset, parsed (no execution).
#[derive(Clone, Debug)]
pub struct Parsed {
    pub humaneval: Vec<HumanEvalProblem>,
    pub mbpp: Vec<RawTask>,
    pub quixbugs: Vec<RawTask>,
    /// ClassEval's class-level tasks (Python, `sequence` tests).
    pub classeval: Vec<RawTask>,
    /// Second implementations for refactoring tasks, by base task id and language.
    pub alternatives: BTreeMap<String, BTreeMap<Language, String>>,
    /// Problems left out while parsing, with the reason.
    pub rejected: Vec<Rejection>,
}

impl Parsed {
    /// The raw tasks whose tests are recorded (the others derive from these). ClassEval and
    /// QuixBugs first: a few of their references end only at a wall-clock limit (seconds of
    /// waiting, little CPU), which overlaps the rest of the recording when started early but
    /// idles the cores when it is the stage's last item (classeval/92: the last ~10 s of an
    /// import's record stage, one core busy at most).
    pub fn base_tasks(&self) -> Vec<RawTask> {
        self.classeval
            .iter()
            .cloned()
            .chain(self.quixbugs.iter().cloned())
            .chain(self.humaneval.iter().map(|p| p.raw.clone()))
            .chain(self.mbpp.iter().cloned())
            .collect()
    }
}

#[derive(Debug, Deserialize)]
struct HumanEvalXRecord {
    task_id: String,
    prompt: String,
    canonical_solution: String,
}

/// Parses every dataset under `data`.
pub fn parse_all(data: &Path) -> Result<Parsed, ImportError> {
    let mut rejected = Vec::new();
    let mut humaneval = humaneval::load(data)?;
    humaneval.retain(
        |p| match humaneval::LEFT_OUT.iter().find(|(n, _)| *n == p.number) {
            Some((_, why)) => {
                rejected.push(Rejection {
                    id: p.raw.id.clone(),
                    stage: "parse".to_owned(),
                    reason: (*why).to_owned(),
                });
                false
            }
            None => true,
        },
    );
    let mut alternatives: BTreeMap<String, BTreeMap<Language, String>> = BTreeMap::new();
    for p in &humaneval {
        alternatives
            .entry(p.raw.id.clone())
            .or_default()
            .insert(Language::Python, p.original_python.clone());
    }
    for (language, file) in [
        (Language::Javascript, "humaneval-x/humaneval_js.jsonl.gz"),
        (Language::Java, "humaneval-x/humaneval_java.jsonl.gz"),
    ] {
        let records: Vec<HumanEvalXRecord> = read_jsonl(&data.join(file))?;
        for r in records {
            if let Some(n) = r.task_id.rsplit('/').next() {
                alternatives
                    .entry(format!("humaneval/{n}"))
                    .or_default()
                    .insert(language, format!("{}{}", r.prompt, r.canonical_solution));
            }
        }
    }
    for (id, code) in mbpp::original_implementations(data)? {
        alternatives
            .entry(id)
            .or_default()
            .insert(Language::Python, code);
    }
    // JavaScript and Java have no second official implementation of MBPP problems; MBXP's
    // example completions are one (issue 4: refactoring in every language).
    for (id, by_language) in mbpp::mbxp_sample_implementations(data)? {
        let entry = alternatives.entry(id).or_default();
        for (language, code) in by_language {
            entry.entry(language).or_insert(code);
        }
    }
    let (classeval, classeval_rejected) = classeval::load(data)?;
    rejected.extend(classeval_rejected);
    Ok(Parsed {
        humaneval,
        mbpp: mbpp::load(data)?,
        quixbugs: quixbugs::load(data)?,
        classeval,
        alternatives,
        rejected,
    })
}

/// Tasks derived from the built base tasks.
pub fn derive_all(parsed: &Parsed, built: &BTreeMap<String, Task>) -> Vec<Task> {
    let mut out = Vec::new();
    for problem in &parsed.humaneval {
        let Some(base) = built.get(&problem.raw.id) else {
            continue;
        };
        out.extend(derived::bug_fix(problem, base));
        out.extend(derived::documentation(problem, base));
        out.extend(derived::unit_tests(problem, base));
        out.extend(derived::translations(base));
    }
    // MBPP problems with MBXP variants that agree with Python: translations between every
    // pair of their languages (their tests and references are the base task's, so
    // validating them re-runs nothing the base task did not).
    for raw in &parsed.mbpp {
        if let Some(base) = built.get(&raw.id) {
            out.extend(derived::translations(base));
        }
    }
    for (id, alternatives) in &parsed.alternatives {
        if let Some(base) = built.get(id) {
            out.extend(derived::refactors(base, alternatives));
        }
    }
    out
}

/// What an import did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ImportReport {
    pub parsed: usize,
    pub built: usize,
    pub derived: usize,
    pub accepted: usize,
    pub rejected: Vec<Rejection>,
    pub dropped_variants: Vec<DroppedVariant>,
    /// What accepted tasks lost at build time (task id, note), e.g. hidden tests.
    pub notes: Vec<(String, String)>,
    /// Variants left out by option (not a failure), e.g. MBXP Java without `mbxp_java`.
    pub omitted_variants: usize,
    pub parse_time: Duration,
    pub build_time: Duration,
    pub validate_time: Duration,
    /// CPU of the reference executions of validation (from the cache when it hit).
    pub reference_cpu_ms: u64,
    /// References whose expected values this import recorded: validated with one run
    /// through the evaluation path (the recording was the other), see [`Recorded`].
    pub recorded_references: usize,
    /// Hidden tests made from generated inputs ([`super::generate`]) in built tasks.
    pub generated_tests: usize,
    /// Hidden tests the scored-suite choice ([`super::select`]) moved to the extra tests.
    pub unscored_tests: usize,
    /// Hidden tests given to bug-fixing tasks from their base ([`super::screen`]).
    pub screened_hidden_tests: usize,
    /// Accepted tasks given a performance set ([`super::perf`]).
    pub perf_sets: usize,
    pub perf_time: Duration,
    pub cache: CacheStats,
}

/// How an import runs.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    /// Worker threads (each blocks on a sandbox slot while executing).
    pub threads: usize,
    /// Persisted intake cache (`None`: only deduplicate within this run).
    pub cache_dir: Option<PathBuf>,
    /// Keep MBXP's Java variants of `mbpp/N` (about 2,600 Java executions for the ~870
    /// problems, a large share of an uncached import's CPU).
    pub mbxp_java: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            threads: 2,
            cache_dir: None,
            mbxp_java: true,
        }
    }
}

/// Progress of an import, reported as it happens (the library never prints).
#[derive(Debug)]
pub enum Event<'a> {
    /// A stage starts with `total` items.
    Start { stage: &'static str, total: usize },
    /// One item of a stage finished (`rejected` if it did not make it).
    Done {
        stage: &'static str,
        id: &'a str,
        rejected: Option<&'a Rejection>,
        done: usize,
        total: usize,
    },
    /// A stage ended.
    End {
        stage: &'static str,
        elapsed: Duration,
    },
}

/// Receives [`Event`]s; called from worker threads.
pub type Progress<'a> = &'a (dyn Fn(&Event<'_>) + Sync);

/// Runs the whole import and returns the pool (not yet written) with its licence files.
pub fn import(
    exec: &dyn Executor,
    data: &Path,
    options: &ImportOptions,
    progress: Progress<'_>,
) -> Result<(Pool, Vec<LicenseFile>, ImportReport), ImportError> {
    let cache = Cache::new(options.cache_dir.clone(), &exec.fingerprint());
    let mut report = ImportReport::default();
    let start = Instant::now();
    progress(&Event::Start {
        stage: "parse",
        total: 0,
    });
    let mut parsed = parse_all(data)?;
    if !options.mbxp_java {
        for raw in &mut parsed.mbpp {
            report.omitted_variants += usize::from(raw.variants.remove(&Language::Java).is_some());
        }
    }
    report.rejected.extend(parsed.rejected.iter().cloned());
    let raws = parsed.base_tasks();
    report.parsed = raws.len();
    report.parse_time = start.elapsed();
    progress(&Event::End {
        stage: "parse",
        elapsed: report.parse_time,
    });

    let start = Instant::now();
    progress(&Event::Start {
        stage: "record",
        total: raws.len(),
    });
    let mut built = BTreeMap::new();
    let mut extra_tests = BTreeMap::new();
    let mut generated = 0;
    let results = build_all(
        exec,
        &cache,
        &raws,
        options.threads,
        &|raw, rejected, done, total| {
            progress(&Event::Done {
                stage: "record",
                id: &raw.id,
                rejected,
                done,
                total,
            })
        },
    );
    for result in results {
        match result {
            Ok(b) => {
                generated += b.generated;
                report.unscored_tests += b.unscored;
                report.dropped_variants.extend(b.dropped);
                report
                    .notes
                    .extend(b.notes.into_iter().map(|n| (b.task.id.clone(), n)));
                extra_tests.insert(b.task.id.clone(), b.extra_tests);
                built.insert(b.task.id.clone(), b.task);
            }
            Err(r) => report.rejected.push(r),
        }
    }
    report.built = built.len();
    let mut derived = derive_all(&parsed, &built);
    report.derived = derived.len();
    // Bug-fixing tasks' references are HumanEvalPack's canonical solutions: they get the
    // base's hidden tests those agree on.
    let base_of = |task: &Task| {
        task.id
            .strip_prefix("humanevalfix/")
            .and_then(|n| built.get(&format!("humaneval/{n}")))
    };
    progress(&Event::Start {
        stage: "screen",
        total: derived
            .iter()
            .filter(|t| super::screen::SCREENED.contains(&t.category))
            .count(),
    });
    let screen_start = Instant::now();
    report.screened_hidden_tests = super::screen::add_agreeing_hidden(
        exec,
        &mut derived,
        &base_of,
        options.threads,
        &|task, done, total| {
            progress(&Event::Done {
                stage: "screen",
                id: &task.id,
                rejected: None,
                done,
                total,
            })
        },
    )
    .map_err(|e| ImportError::Exec(crate::exec::ExecError::infrastructure(e)))?;
    // Their suites are measured and strengthened as a built task's are, against mutants of
    // their own (HumanEvalPack) reference, with their base's preconditions.
    let contracts: BTreeMap<&str, &str> = parsed
        .humaneval
        .iter()
        .filter_map(|p| Some((p.raw.id.as_str(), p.raw.contract.as_deref()?)))
        .collect();
    let selections = crate::parallel::map_in_order(
        &derived,
        options.threads,
        |task| match task.variants.iter().next() {
            Some((&language, variant)) if super::screen::SCREENED.contains(&task.category) => {
                let screening = base_of(task)
                    .filter(|_| language == Language::Python)
                    .and_then(|base| contracts.get(base.id.as_str()))
                    .and_then(|c| super::contract::contracted(variant, c));
                super::select::select(exec, task, language, &[], screening.as_deref())
            }
            _ => Ok(None),
        },
        |_, _, _| {},
    );
    let mut weak = BTreeSet::new();
    for (task, selection) in derived.iter_mut().zip(selections) {
        let selection =
            selection.map_err(|e| ImportError::Exec(crate::exec::ExecError::infrastructure(e)))?;
        let Some(selection) = selection else { continue };
        let extra = extra_tests.entry(task.id.clone()).or_default();
        match super::select::apply(task, extra, selection) {
            Ok(applied) => {
                report.dropped_variants.extend(applied.dropped);
                report.unscored_tests += applied.unscored;
            }
            Err(reason) => {
                report.rejected.push(Rejection {
                    id: task.id.clone(),
                    stage: "select".to_owned(),
                    reason,
                });
                weak.insert(task.id.clone());
            }
        }
    }
    derived.retain(|t| !weak.contains(&t.id));
    progress(&Event::End {
        stage: "screen",
        elapsed: screen_start.elapsed(),
    });
    report.generated_tests = generated;
    report.build_time = start.elapsed();
    progress(&Event::End {
        stage: "record",
        elapsed: report.build_time,
    });

    let start = Instant::now();
    // Built tasks' expected values are their references' recorded outputs: one more run
    // through the evaluation path completes the two-run determinism check for them.
    let recorded = Recorded::from_built(&cache, built.values());
    report.recorded_references = recorded.len();
    let tasks: Vec<Task> = built.into_values().chain(derived).collect();
    progress(&Event::Start {
        stage: "validate",
        total: tasks.len(),
    });
    let validation = validate_with(
        exec,
        &cache,
        tasks,
        options.threads,
        &recorded,
        &|task, rejected, done, total| {
            progress(&Event::Done {
                stage: "validate",
                id: &task.id,
                rejected,
                done,
                total,
            })
        },
    );
    report.validate_time = start.elapsed();
    progress(&Event::End {
        stage: "validate",
        elapsed: report.validate_time,
    });
    report.reference_cpu_ms = validation.cpu_ms;
    report.rejected.extend(validation.rejected);
    report.accepted = validation.accepted.len();
    report.cache = cache.stats();

    let pool = Pool::new(validation.accepted)?.with_extra_tests(extra_tests);
    let start = Instant::now();
    let perf_sets = perf_sets(exec, &cache, pool.tasks(), options.threads, progress)?;
    report.perf_sets = perf_sets.len();
    report.perf_time = start.elapsed();
    report.cache = cache.stats();
    let pool = pool.with_perf_sets(perf_sets);
    let licenses = read_licenses(data)?;
    Ok((pool, licenses, report))
}

/// The performance sets of `tasks` ([`super::perf::build_all`]) by task id, reported as stage
/// `perf`. An infrastructure failure (after retries) ends the import, as in the other stages.
pub fn perf_sets(
    exec: &dyn Executor,
    cache: &Cache,
    tasks: &[Task],
    threads: usize,
    progress: Progress<'_>,
) -> Result<BTreeMap<String, crate::storage::PerfSet>, ImportError> {
    let start = Instant::now();
    progress(&Event::Start {
        stage: "perf",
        total: tasks.len(),
    });
    let results = super::perf::build_all(exec, cache, tasks, threads, &|task, done, total| {
        progress(&Event::Done {
            stage: "perf",
            id: &task.id,
            rejected: None,
            done,
            total,
        })
    });
    progress(&Event::End {
        stage: "perf",
        elapsed: start.elapsed(),
    });
    let mut sets = BTreeMap::new();
    for (task, result) in tasks.iter().zip(results) {
        let set = result.map_err(|e| {
            ImportError::Exec(crate::exec::ExecError::infrastructure(format!(
                "{}: performance inputs: {e}",
                task.id
            )))
        })?;
        if let Some(set) = set {
            sets.insert(task.id.clone(), set);
        }
    }
    Ok(sets)
}

impl ImportReport {
    /// The rejection report: every rejected task and dropped or omitted variant with its
    /// reason, sorted, without timings (so it only changes when the outcome does).
    pub fn rejections_markdown(&self, options: &ImportOptions) -> String {
        let mut out = String::from(
            "# Intake rejections\n\nGenerated with the pool by `passrate pool import`. Tasks \
             that are not in the pool, and language variants removed from tasks that are, \
             with the reason.\n\n",
        );
        if !options.mbxp_java {
            out.push_str(&format!(
                "MBXP Java variants of `mbpp/N` were left out by option (`--no-mbxp-java`): \
                 {} variants.\n\n",
                self.omitted_variants
            ));
        }
        let mut rejected = self.rejected.clone();
        rejected.sort_by(|a, b| a.id.cmp(&b.id));
        out.push_str(&format!("## Rejected tasks ({})\n\n", rejected.len()));
        out.push_str("| task | stage | reason |\n|---|---|---|\n");
        for r in &rejected {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                r.id,
                r.stage,
                markdown_cell(&r.reason)
            ));
        }
        let mut dropped = self.dropped_variants.clone();
        dropped.sort_by(|a, b| (&a.id, a.language).cmp(&(&b.id, b.language)));
        out.push_str(&format!(
            "\n## Dropped variants ({})\n\n| task | language | reason |\n|---|---|---|\n",
            dropped.len()
        ));
        for d in &dropped {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                d.id,
                d.language,
                markdown_cell(&d.reason)
            ));
        }
        let mut notes = self.notes.clone();
        notes.sort();
        out.push_str(&format!(
            "\n## Tests left out of built tasks ({})\n\n| task | note |\n|---|---|\n",
            notes.len()
        ));
        for (id, note) in &notes {
            out.push_str(&format!("| `{id}` | {} |\n", markdown_cell(note)));
        }
        out
    }
}

/// One line, pipes escaped, at most 300 characters.
fn markdown_cell(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = if one_line.len() > 300 {
        format!("{}…", &one_line[..one_line.floor_char_boundary(300)])
    } else {
        one_line
    };
    cut.replace('|', "\\|")
}

/// The runner options intake uses: the defaults, except that a reference run during
/// recording may use no more test CPU than an evaluation allows (`tests_cpu_ms`, 2 s by
/// default) instead of the runner's 20 s intake allowance. A reference that needs more
/// cannot pass validation anyway, and HumanEvalPack's JavaScript and Java references of a
/// few problems (exponential `fib`-style recursion) take the whole allowance on the
/// HumanEval+ inputs, which cost minutes per generation for nothing.
pub fn intake_runner_options() -> passrate_runner::RunnerOptions {
    let defaults = passrate_runner::RunnerOptions::default();
    let tests_cpu_ms = [&defaults.python, &defaults.javascript, &defaults.java]
        .iter()
        .map(|l| l.tests_cpu_ms)
        .max()
        .unwrap_or(defaults.intake_cpu_ms);
    passrate_runner::RunnerOptions {
        intake_cpu_ms: tests_cpu_ms,
        ..defaults
    }
}

/// Reads the licence and notice files to ship with the pool.
pub fn read_licenses(data: &Path) -> Result<Vec<LicenseFile>, ImportError> {
    LICENSE_FILES
        .iter()
        .map(|rel| {
            Ok(LicenseFile {
                path: (*rel).to_owned(),
                contents: fs_err::read(data.join(rel))?,
            })
        })
        .collect()
}

/// The data directory used when none is given: `$PASSRATE_DATA`, else `../shared/data`
/// beside the repository (where the project keeps its copy of the public datasets).
pub fn default_data_dir() -> PathBuf {
    std::env::var_os("PASSRATE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
}
