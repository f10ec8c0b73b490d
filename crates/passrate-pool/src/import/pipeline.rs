//! The whole import: parse every dataset, record and build the base tasks, derive the
//! others, validate everything, and assemble the pool with its initial reserve and the
//! licence files. Deterministic for a given data directory and runner.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use passrate_schema::{Language, Task};
use serde::Deserialize;

use super::build::{DroppedVariant, Rejection, build_all};
use super::humaneval::HumanEvalProblem;
use super::{ImportError, RawTask, derived, humaneval, mbpp, quixbugs, read_jsonl};
use crate::exec::Executor;
use crate::rotation::{INITIAL_RESERVE_SHARE, RotationState, initial_reserve};
use crate::storage::{LicenseFile, Pool};
use crate::validate::validate;

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
];

/// Every dataset, parsed (no execution).
#[derive(Clone, Debug)]
pub struct Parsed {
    pub humaneval: Vec<HumanEvalProblem>,
    pub mbpp: Vec<RawTask>,
    pub quixbugs: Vec<RawTask>,
    /// Second implementations for refactoring tasks, by base task id and language.
    pub alternatives: BTreeMap<String, BTreeMap<Language, String>>,
}

impl Parsed {
    /// The raw tasks whose tests are recorded (the others derive from these).
    pub fn base_tasks(&self) -> Vec<RawTask> {
        self.humaneval
            .iter()
            .map(|p| p.raw.clone())
            .chain(self.mbpp.iter().cloned())
            .chain(self.quixbugs.iter().cloned())
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
    let humaneval = humaneval::load(data)?;
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
    Ok(Parsed {
        humaneval,
        mbpp: mbpp::load(data)?,
        quixbugs: quixbugs::load(data)?,
        alternatives,
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
    pub parse_time: Duration,
    pub build_time: Duration,
    pub validate_time: Duration,
    pub reference_cpu_ms: u64,
}

/// Progress of a long stage: (stage, done, total).
pub type Progress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

/// Runs the whole import and returns the pool (not yet written) with its licence files.
pub fn import(
    exec: &dyn Executor,
    data: &Path,
    threads: usize,
    progress: Progress<'_>,
) -> Result<(Pool, Vec<LicenseFile>, ImportReport), ImportError> {
    let mut report = ImportReport::default();
    let start = Instant::now();
    let parsed = parse_all(data)?;
    let raws = parsed.base_tasks();
    report.parsed = raws.len();
    report.parse_time = start.elapsed();

    let start = Instant::now();
    let mut built = BTreeMap::new();
    for result in build_all(exec, &raws, threads, &|d, t| progress("record", d, t)) {
        match result {
            Ok(b) => {
                report.dropped_variants.extend(b.dropped);
                built.insert(b.task.id.clone(), b.task);
            }
            Err(r) => report.rejected.push(r),
        }
    }
    report.built = built.len();
    let derived = derive_all(&parsed, &built);
    report.derived = derived.len();
    report.build_time = start.elapsed();

    let start = Instant::now();
    let tasks: Vec<Task> = built.into_values().chain(derived).collect();
    let validation = validate(exec, tasks, threads, &|d, t| progress("validate", d, t));
    report.validate_time = start.elapsed();
    report.reference_cpu_ms = validation.cpu_ms;
    report.rejected.extend(validation.rejected);
    report.accepted = validation.accepted.len();

    let pool = Pool::from_tasks(validation.accepted, RotationState::default())?;
    let reserve = initial_reserve(&pool, INITIAL_RESERVE_SHARE);
    let pool = Pool::from_tasks(
        pool.tasks().to_vec(),
        RotationState {
            reserve,
            ..RotationState::default()
        },
    )?;
    let licenses = read_licenses(data)?;
    Ok((pool, licenses, report))
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
