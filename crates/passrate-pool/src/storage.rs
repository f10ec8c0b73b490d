//! The on-disk pool: a directory with an index, one JSON Lines file per task family
//! (gzip-compressed), and the upstream licence files. Nothing in it changes from week to
//! week: which tasks a week samples is computed from the pool and the week
//! ([`crate::rotation`]), never stored.
//!
//! Layout (format version 1):
//!
//! ```text
//! pool/
//!   pool.json                  {"format_version": 1, "series": 1, "task_files": ["tasks/humaneval.jsonl.gz", …]}
//!   tasks/<family>.jsonl.gz    one `passrate_schema::Task` per line, sorted by id
//!   extra/<family>.jsonl.gz    {"id": …, "tests": [TestCase, …]}: a task's unscored hidden tests
//!   perf/<family>.jsonl.gz     {"id": …, "tests": [TestCase, …], "reference_cpu_ms": {"python": 41.0, …}}:
//!                              a task's performance inputs
//!   licenses/<dataset>/…       LICENSE / NOTICE files copied from the upstream datasets
//!   README.md                  this description, the tier rule and the caps
//! ```
//!
//! The family of a task is its id up to the first `/` (`humaneval`, `translate`, …).
//! The series is the pool's major version: it keys the drift panel ([`crate::panel`]), so
//! bumping it draws a new panel; `pool.json` without it is series 1. The pool version is a
//! blake3 hash over the canonical serialisation of every task (sorted by id) and the series.
//! A `rotation.json` left by older builds (a reserve and a manual log) is ignored.
//!
//! Extra tests (every dataset input a task does not score, with the reference's result) are
//! listed in `pool.json`'s `extra_files` and read only on demand ([`Pool::extra_tests`]), so
//! loading the pool costs what it did without them; they are not part of the version, since
//! nothing is scored on them.
//!
//! Performance sets ([`PerfSet`], made by [`crate::import::perf`]: inputs scaled up until the
//! reference needs a measurable CPU time, with each language's reference CPU on them) are
//! kept the same way: `perf_files` in `pool.json`, read on demand ([`Pool::perf_set`], each
//! family's file once per loaded pool), not part of the version. Each of their tests lists
//! the languages it covers.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use passrate_schema::{Language, Task, TestCase, TestForm};
use serde::{Deserialize, Serialize};

use crate::check::check_task;
use crate::error::PoolError;

/// Version of the pool directory layout (`pool.json`).
pub const POOL_FORMAT_VERSION: u32 = 1;
/// Environment variable overriding the bundled pool directory.
pub const POOL_ENV: &str = "PASSRATE_POOL";

/// The series of a pool whose `pool.json` does not name one.
pub const DEFAULT_SERIES: u32 = 1;

const INDEX_FILE: &str = "pool.json";

/// `pool.json`. Unknown keys are rejected, as in task files: the index is written by
/// `pool import` and a key this build does not know means a pool it cannot read faithfully.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolIndex {
    pub format_version: u32,
    /// The pool's major version (see [`Pool::series`]); absent in pools written before it
    /// existed, which are series 1.
    #[serde(default = "default_series")]
    pub series: u32,
    pub task_files: Vec<String>,
    /// Files of extra tests (see the module documentation); absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_files: Vec<String>,
    /// Files of performance sets (see the module documentation); absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub perf_files: Vec<String>,
}

/// One line of an extra-tests file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExtraTests {
    pub id: String,
    pub tests: Vec<TestCase>,
}

/// A task's performance inputs: hidden call tests on inputs scaled up from the task's own until
/// its reference needs a measurable CPU time, each listing the languages it covers, and each
/// covered language's reference CPU on the whole set (ms, the median of its executions'
/// cgroup CPU when run as an answer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PerfSet {
    pub tests: Vec<TestCase>,
    pub reference_cpu_ms: BTreeMap<Language, f64>,
}

/// One line of a performance file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerfLine {
    pub id: String,
    pub tests: Vec<TestCase>,
    pub reference_cpu_ms: BTreeMap<Language, f64>,
}

/// The lines of one file beside the tasks (extra tests, performance sets) by task id with
/// their line numbers, each kept deflate-compressed (test inputs repeat themselves: a
/// family's lines take a few percent of their size) and parsed on request (a cycle needs a
/// few of them).
type LineIndex = HashMap<String, (usize, Arc<[u8]>)>;

/// Files beside the tasks read so far, by path relative to the pool: each is read once per
/// loaded pool, whichever thread asks first. A clone of the pool starts empty.
#[derive(Default)]
struct SideFiles(Mutex<HashMap<String, Arc<LineIndex>>>);

impl Clone for SideFiles {
    fn clone(&self) -> Self {
        SideFiles::default()
    }
}

impl std::fmt::Debug for SideFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files = self.0.lock().map(|m| m.len()).unwrap_or_default();
        write!(f, "SideFiles({files} read)")
    }
}

fn default_series() -> u32 {
    DEFAULT_SERIES
}

/// A content hash identifying a pool exactly.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PoolVersion(pub String);

impl PoolVersion {
    /// The first 12 hex digits, as shown to people.
    pub fn short(&self) -> &str {
        &self.0[..12.min(self.0.len())]
    }
}

impl std::fmt::Display for PoolVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A licence or notice file shipped beside the tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LicenseFile {
    /// Path relative to `licenses/`, e.g. `humaneval/LICENSE`.
    pub path: String,
    pub contents: Vec<u8>,
}

/// A loaded, checked pool.
#[derive(Clone, Debug)]
pub struct Pool {
    tasks: Vec<Task>,
    by_id: HashMap<String, usize>,
    series: u32,
    dir: Option<PathBuf>,
    /// Extra tests held in memory (an import's, until saved), by task id.
    extra_tests: BTreeMap<String, Vec<TestCase>>,
    /// `extra_files` of the loaded `pool.json`.
    extra_files: Vec<String>,
    /// Performance sets held in memory (an import's, until saved), by task id.
    perf_sets: BTreeMap<String, PerfSet>,
    /// `perf_files` of the loaded `pool.json` (none once [`Pool::with_perf_sets`] replaced
    /// them).
    perf_files: Vec<String>,
    side_read: SideFiles,
    /// [`Pool::version`], computed once: it serialises every task, and each sample records
    /// it. Reset by everything that can change the content.
    version: OnceLock<PoolVersion>,
}

impl Pool {
    /// Builds a pool of series 1 from tasks, checking each and rejecting duplicate ids.
    pub fn new(mut tasks: Vec<Task>) -> Result<Pool, PoolError> {
        tasks.sort_by(|a, b| a.id.cmp(&b.id));
        let mut by_id = HashMap::with_capacity(tasks.len());
        let memory = PathBuf::from("<memory>");
        for (i, task) in tasks.iter().enumerate() {
            if let Err(problem) = check_task(task) {
                return Err(PoolError::InvalidTask {
                    file: memory.clone(),
                    line: i + 1,
                    problem,
                });
            }
            if by_id.insert(task.id.clone(), i).is_some() {
                return Err(PoolError::DuplicateId {
                    id: task.id.clone(),
                    file: memory.clone(),
                    line: i + 1,
                    first: memory.clone(),
                });
            }
        }
        Ok(Pool {
            tasks,
            by_id,
            series: DEFAULT_SERIES,
            dir: None,
            extra_tests: BTreeMap::new(),
            extra_files: Vec::new(),
            perf_sets: BTreeMap::new(),
            perf_files: Vec::new(),
            side_read: SideFiles::default(),
            version: OnceLock::new(),
        })
    }

    /// The same pool in another series (see [`Pool::series`]).
    pub fn with_series(mut self, series: u32) -> Pool {
        self.series = series;
        self.version = OnceLock::new();
        self
    }

    /// Loads a pool directory, naming the file, line and JSON field path of any bad input.
    pub fn load(dir: impl AsRef<Path>) -> Result<Pool, PoolError> {
        let dir = dir.as_ref();
        let index_path = dir.join(INDEX_FILE);
        let index: PoolIndex = read_document(&index_path)?;
        if index.format_version != POOL_FORMAT_VERSION {
            return Err(PoolError::FormatVersion {
                file: index_path,
                found: index.format_version,
                supported: POOL_FORMAT_VERSION,
            });
        }
        let mut tasks = Vec::new();
        let mut seen: HashMap<String, (PathBuf, usize)> = HashMap::new();
        for rel in &index.task_files {
            let path = dir.join(rel);
            for (line, task) in read_task_file(&path)? {
                if let Err(problem) = check_task(&task) {
                    return Err(PoolError::InvalidTask {
                        file: path.clone(),
                        line,
                        problem,
                    });
                }
                if let Some((first, _)) = seen.get(&task.id) {
                    return Err(PoolError::DuplicateId {
                        id: task.id.clone(),
                        file: path.clone(),
                        line,
                        first: first.clone(),
                    });
                }
                seen.insert(task.id.clone(), (path.clone(), line));
                tasks.push(task);
            }
        }
        if index.series == 0 {
            return Err(PoolError::Document {
                file: index_path,
                message: "at `series`: the series starts at 1".into(),
            });
        }
        let mut pool = Pool::new(tasks)?.with_series(index.series);
        pool.dir = Some(dir.to_path_buf());
        pool.extra_files = index.extra_files;
        pool.perf_files = index.perf_files;
        Ok(pool)
    }

    /// The same pool holding `extra` as its tasks' extra tests (entries for ids not in the
    /// pool, or with no tests, are dropped). Not part of the version.
    pub fn with_extra_tests(mut self, extra: BTreeMap<String, Vec<TestCase>>) -> Pool {
        self.extra_tests = extra
            .into_iter()
            .filter(|(id, tests)| !tests.is_empty() && self.by_id.contains_key(id))
            .collect();
        self
    }

    /// A task's extra tests: hidden inputs of its dataset that it does not score, with the
    /// primary reference's result. Read from the pool directory on demand: the first request
    /// for a family reads its file once, later ones parse only the task's own line.
    pub fn extra_tests(&self, id: &str) -> Result<Vec<TestCase>, PoolError> {
        if let Some(tests) = self.extra_tests.get(id) {
            return Ok(tests.clone());
        }
        let rel = format!("extra/{}.jsonl.gz", family(id));
        if !self.extra_files.contains(&rel) {
            return Ok(Vec::new());
        }
        Ok(self
            .side_line::<ExtraTests>(&rel, id)?
            .map(|(_, extra)| extra.tests)
            .unwrap_or_default())
    }

    /// Task `id`'s line of the side file `rel` (its line number and contents), read through
    /// the file's index; `None` when the pool has no directory, no such task, or the file no
    /// line for it.
    fn side_line<T: for<'de> Deserialize<'de>>(
        &self,
        rel: &str,
        id: &str,
    ) -> Result<Option<(usize, T)>, PoolError> {
        let (Some(dir), Some(_)) = (&self.dir, self.get(id)) else {
            return Ok(None);
        };
        let index = self.side_index(dir, rel)?;
        let Some((line, packed)) = index.get(id) else {
            return Ok(None);
        };
        let bad = |message: String| PoolError::Document {
            file: dir.join(rel),
            message: format!("line {line}{message}"),
        };
        let text = unpack(packed).map_err(|e| bad(format!(": {e}")))?;
        let de = &mut serde_json::Deserializer::from_str(&text);
        let parsed = serde_path_to_error::deserialize(de)
            .map_err(|e| bad(format!(" at `{}`: {}", e.path(), e.inner())))?;
        Ok(Some((*line, parsed)))
    }

    /// The line index of the side file `rel` of the pool in `dir`, read on first use.
    fn side_index(&self, dir: &Path, rel: &str) -> Result<Arc<LineIndex>, PoolError> {
        let mut read = self.side_read.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(index) = read.get(rel) {
            return Ok(index.clone());
        }
        let index = Arc::new(read_line_index(&dir.join(rel))?);
        read.insert(rel.to_string(), index.clone());
        Ok(index)
    }

    /// The same pool with `sets` as its performance sets, replacing any it had (entries for ids
    /// not in the pool, or with no tests, are dropped). Not part of the version.
    pub fn with_perf_sets(mut self, sets: BTreeMap<String, PerfSet>) -> Pool {
        self.perf_sets = sets
            .into_iter()
            .filter(|(id, set)| !set.tests.is_empty() && self.by_id.contains_key(id))
            .collect();
        self.perf_files = Vec::new();
        self.side_read = SideFiles::default();
        self
    }

    /// A task's performance set (see [`PerfSet`]), `None` when it has none. Read from the pool
    /// directory on demand: the first request for a task family reads its file once and
    /// keeps its lines, later requests parse only the task's own line.
    pub fn perf_set(&self, id: &str) -> Result<Option<PerfSet>, PoolError> {
        if let Some(set) = self.perf_sets.get(id) {
            return Ok(Some(set.clone()));
        }
        let rel = format!("perf/{}.jsonl.gz", family(id));
        if !self.perf_files.contains(&rel) {
            return Ok(None);
        }
        let (Some((line, parsed)), Some(task), Some(dir)) = (
            self.side_line::<PerfLine>(&rel, id)?,
            self.get(id),
            &self.dir,
        ) else {
            return Ok(None);
        };
        let bad = |message: String| PoolError::Document {
            file: dir.join(&rel),
            message: format!("line {line}{message}"),
        };
        for (i, t) in parsed.tests.iter().enumerate() {
            let problem = if !matches!(t.form, TestForm::Call { .. }) {
                Some("is not a call".to_owned())
            } else if t.languages.is_empty() {
                Some("names no language".to_owned())
            } else {
                t.languages
                    .iter()
                    .find(|l| !task.variants.contains_key(l))
                    .map(|l| format!("covers {l}, which the task does not have"))
            };
            if let Some(problem) = problem {
                return Err(bad(format!(": test {i} of {id} {problem}")));
            }
        }
        Ok(Some(PerfSet {
            tests: parsed.tests,
            reference_cpu_ms: parsed.reference_cpu_ms,
        }))
    }

    /// One task of the pool in `dir`, without loading the others: a command that needs a
    /// single task (`check`, `pool show`) reads `pool.json`, then only the task's own file
    /// (`tasks/<family>.jsonl.gz`, where [`Pool::save`] puts it), parses only the line that
    /// holds it and checks that task. `None` when that file does not hold it; callers that
    /// must tell "not in the pool" from "not where save puts it" load the whole pool then.
    pub fn load_task(dir: impl AsRef<Path>, id: &str) -> Result<Option<Task>, PoolError> {
        let dir = dir.as_ref();
        let index_path = dir.join(INDEX_FILE);
        let index: PoolIndex = read_document(&index_path)?;
        if index.format_version != POOL_FORMAT_VERSION {
            return Err(PoolError::FormatVersion {
                file: index_path,
                found: index.format_version,
                supported: POOL_FORMAT_VERSION,
            });
        }
        let rel = format!("tasks/{}.jsonl.gz", family(id));
        if !index.task_files.contains(&rel) {
            return Ok(None);
        }
        let path = dir.join(&rel);
        let Some((line, task)) = read_one_task(&path, id)? else {
            return Ok(None);
        };
        check_task(&task).map_err(|problem| PoolError::InvalidTask {
            file: path.clone(),
            line,
            problem,
        })?;
        Ok(Some(task))
    }

    /// The pool shipped with passrate: `$PASSRATE_POOL`, else the repository's `pool/`
    /// (found from this crate's manifest directory), else `pool/` beside the executable.
    pub fn bundled() -> Result<Pool, PoolError> {
        Pool::load(bundled_dir()?)
    }

    /// Where this pool was loaded from.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Every task, sorted by id. Which of them a week may sample is
    /// [`crate::rotation::Schedule::active_tasks`].
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    pub fn get(&self, id: &str) -> Option<&Task> {
        self.by_id.get(id).map(|&i| &self.tasks[i])
    }

    /// The pool's major version (`series` in `pool.json`, default 1). It keys the drift
    /// panel: bumping it (a deliberate, breaking change of the pool) draws a new panel and
    /// new panel languages, so drift is only compared within a series.
    pub fn series(&self) -> u32 {
        self.series
    }

    /// Replaces calibration data (intake validation) without touching anything else.
    pub fn task_mut(&mut self, id: &str) -> Option<&mut Task> {
        self.version = OnceLock::new();
        self.by_id.get(id).map(|&i| &mut self.tasks[i])
    }

    /// Content hash: blake3 over `passrate-pool/1\n`, each task's canonical JSON (sorted by
    /// id, one per line), then `series <n>\n`. The series is part of it because it changes
    /// the drift panel, so two pools that pose different tasks never share a version.
    pub fn version(&self) -> PoolVersion {
        self.version.get_or_init(|| self.compute_version()).clone()
    }

    fn compute_version(&self) -> PoolVersion {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"passrate-pool/1\n");
        for task in &self.tasks {
            let json = serde_json::to_vec(task).expect("tasks always serialise");
            hasher.update(&json);
            hasher.update(b"\n");
        }
        hasher.update(format!("series {}\n", self.series).as_bytes());
        PoolVersion(hasher.finalize().to_hex().to_string())
    }

    /// Writes the pool to `dir` atomically: everything goes to a sibling temporary directory
    /// that then replaces `dir` with renames, so readers see the old or the new pool.
    pub fn save(&self, dir: impl AsRef<Path>, licenses: &[LicenseFile]) -> Result<(), PoolError> {
        self.save_with(dir, licenses, &[])
    }

    /// [`Pool::save`] plus extra files written beside `pool.json` in the same atomic
    /// replacement (e.g. the intake's rejection report). They are not part of the version.
    pub fn save_with(
        &self,
        dir: impl AsRef<Path>,
        licenses: &[LicenseFile],
        extra: &[(&str, &[u8])],
    ) -> Result<(), PoolError> {
        let dir = dir.as_ref();
        let parent = dir.parent().unwrap_or(Path::new("."));
        fs_err::create_dir_all(parent)?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "pool".to_owned());
        let staging = parent.join(format!(".{name}.tmp-{}", std::process::id()));
        if staging.exists() {
            fs_err::remove_dir_all(&staging)?;
        }
        fs_err::create_dir_all(staging.join("tasks"))?;
        let mut families: BTreeMap<&str, Vec<&Task>> = BTreeMap::new();
        for task in &self.tasks {
            families.entry(family(&task.id)).or_default().push(task);
        }
        let mut index = PoolIndex {
            format_version: POOL_FORMAT_VERSION,
            series: self.series,
            task_files: Vec::new(),
            extra_files: Vec::new(),
            perf_files: Vec::new(),
        };
        // Compressing the families' files is most of a save: one thread each.
        let written: Vec<(String, Result<(), PoolError>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = families
                .iter()
                .map(|(family, tasks)| {
                    let rel = format!("tasks/{family}.jsonl.gz");
                    let path = staging.join(&rel);
                    (rel, scope.spawn(move || write_task_file(&path, tasks)))
                })
                .collect();
            handles
                .into_iter()
                .map(|(rel, h)| (rel, h.join().expect("task file writers do not panic")))
                .collect()
        });
        for (rel, result) in written {
            result?;
            index.task_files.push(rel);
        }
        // A loaded pool's extra tests come from its files, each read once.
        let mut all: BTreeMap<String, Vec<TestCase>> = BTreeMap::new();
        if let Some(from) = &self.dir {
            for rel in &self.extra_files {
                for e in read_extra_file(&from.join(rel))? {
                    all.insert(e.id, e.tests);
                }
            }
        }
        all.extend(self.extra_tests.clone());
        let mut extra_lines: BTreeMap<&str, Vec<ExtraTests>> = BTreeMap::new();
        for task in &self.tasks {
            if let Some(tests) = all.remove(&task.id).filter(|t| !t.is_empty()) {
                extra_lines
                    .entry(family(&task.id))
                    .or_default()
                    .push(ExtraTests {
                        id: task.id.clone(),
                        tests,
                    });
            }
        }
        if !extra_lines.is_empty() {
            fs_err::create_dir_all(staging.join("extra"))?;
        }
        for (family, lines) in &extra_lines {
            let rel = format!("extra/{family}.jsonl.gz");
            write_lines(&staging.join(&rel), lines)?;
            index.extra_files.push(rel);
        }
        index.perf_files = self.write_perf_files(&staging)?;
        write_json(&staging.join(INDEX_FILE), &index)?;
        for license in licenses {
            let path = staging.join("licenses").join(&license.path);
            if let Some(p) = path.parent() {
                fs_err::create_dir_all(p)?;
            }
            fs_err::write(&path, &license.contents)?;
        }
        fs_err::write(staging.join("README.md"), crate::POOL_README)?;
        for (name, contents) in extra {
            fs_err::write(staging.join(name), contents)?;
        }
        replace_dir(&staging, dir)?;
        Ok(())
    }
}

impl Pool {
    /// Writes the performance files under `staging` (a loaded pool's lines copied as they
    /// are, one family at a time, those in memory serialised), returning their paths.
    fn write_perf_files(&self, staging: &Path) -> Result<Vec<String>, PoolError> {
        let mut families: Vec<&str> = self
            .perf_sets
            .keys()
            .map(|id| family(id))
            .chain(self.perf_files.iter().filter_map(|rel| {
                rel.strip_prefix("perf/")
                    .and_then(|f| f.strip_suffix(".jsonl.gz"))
            }))
            .collect();
        families.sort_unstable();
        families.dedup();
        let mut written = Vec::new();
        for fam in families {
            let rel = format!("perf/{fam}.jsonl.gz");
            let mut lines: BTreeMap<String, String> = BTreeMap::new();
            if let Some(from) = &self.dir
                && self.perf_files.contains(&rel)
            {
                for (id, (line, packed)) in read_line_index(&from.join(&rel))? {
                    if self.by_id.contains_key(&id) {
                        let text = unpack(&packed).map_err(|e| PoolError::Document {
                            file: from.join(&rel),
                            message: format!("line {line}: {e}"),
                        })?;
                        lines.insert(id, text);
                    }
                }
            }
            for (id, set) in self.perf_sets.iter().filter(|(id, _)| family(id) == fam) {
                let line = PerfLine {
                    id: id.clone(),
                    tests: set.tests.clone(),
                    reference_cpu_ms: set.reference_cpu_ms.clone(),
                };
                let text = serde_json::to_string(&line).map_err(std::io::Error::other)?;
                lines.insert(id.clone(), text);
            }
            if lines.is_empty() {
                continue;
            }
            fs_err::create_dir_all(staging.join("perf"))?;
            write_raw_lines(&staging.join(&rel), lines.values().map(String::as_str))?;
            written.push(rel);
        }
        Ok(written)
    }

    /// Writes the pool back to `dir` as [`Pool::save`] does (atomically), keeping the
    /// licence files and the other documents already there (`REJECTIONS.md`): for commands
    /// that change a loaded pool without re-importing it (`passrate pool perf`).
    pub fn resave(&self, dir: impl AsRef<Path>) -> Result<(), PoolError> {
        let dir = dir.as_ref();
        let mut licenses = Vec::new();
        let root = dir.join("licenses");
        if root.is_dir() {
            collect_files(&root, &root, &mut licenses)?;
        }
        licenses.sort_by(|a, b| a.path.cmp(&b.path));
        let mut documents: Vec<(String, Vec<u8>)> = Vec::new();
        for entry in fs_err::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type()?.is_file() && name != INDEX_FILE && name != "README.md" {
                documents.push((name, fs_err::read(entry.path())?));
            }
        }
        documents.sort();
        let extra: Vec<(&str, &[u8])> = documents
            .iter()
            .map(|(n, c)| (n.as_str(), c.as_slice()))
            .collect();
        self.save_with(dir, &licenses, &extra)
    }
}

/// Every file under `dir`, as licence files relative to `root`.
fn collect_files(root: &Path, dir: &Path, out: &mut Vec<LicenseFile>) -> Result<(), PoolError> {
    for entry in fs_err::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            collect_files(root, &path, out)?;
        } else {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            out.push(LicenseFile {
                path: rel.to_string_lossy().into_owned(),
                contents: fs_err::read(&path)?,
            });
        }
    }
    Ok(())
}

/// The series of the pool in `dir` (read from `pool.json` alone), or
/// [`DEFAULT_SERIES`] when there is no pool there yet; for re-imports, which keep it.
pub fn read_series(dir: &Path) -> Result<u32, PoolError> {
    let path = dir.join(INDEX_FILE);
    if !path.exists() {
        return Ok(DEFAULT_SERIES);
    }
    let index: PoolIndex = read_document(&path)?;
    Ok(index.series)
}

/// The directory `Pool::bundled` loads.
pub fn bundled_dir() -> Result<PathBuf, PoolError> {
    if let Some(dir) = std::env::var_os(POOL_ENV) {
        return Ok(PathBuf::from(dir));
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pool");
    if repo.join(INDEX_FILE).exists() {
        return Ok(repo);
    }
    if let Ok(exe) = std::env::current_exe()
        && let Some(dir) = exe.parent()
    {
        let beside = dir.join("pool");
        if beside.join(INDEX_FILE).exists() {
            return Ok(beside);
        }
    }
    Err(PoolError::NotFound(format!(
        "set {POOL_ENV} or run from the repository (looked in {})",
        repo.display()
    )))
}

/// The file family of a task id: its first path segment.
pub fn family(id: &str) -> &str {
    id.split('/').next().unwrap_or(id)
}

fn read_document<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, PoolError> {
    let text = fs_err::read_to_string(path)?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    serde_path_to_error::deserialize(de).map_err(|e| PoolError::Document {
        file: path.to_path_buf(),
        message: format!("at `{}`: {}", e.path(), e.inner()),
    })
}

/// Reads a JSON Lines task file (gzip when the name ends in `.gz`), returning each task with
/// its 1-based line number.
pub fn read_task_file(path: &Path) -> Result<Vec<(usize, Task)>, PoolError> {
    let file = fs_err::File::open(path)?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut tasks = Vec::new();
    for (i, line) in BufReader::new(reader).lines().enumerate() {
        let line = line.map_err(|e| PoolError::Document {
            file: path.to_path_buf(),
            message: format!("line {}: {e}", i + 1),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let de = &mut serde_json::Deserializer::from_str(&line);
        let task: Task = serde_path_to_error::deserialize(de).map_err(|e| {
            let inner = e.inner();
            PoolError::Parse {
                file: path.to_path_buf(),
                line: i + 1,
                column: inner.column(),
                path: e.path().to_string(),
                message: without_position(inner),
            }
        })?;
        tasks.push((i + 1, task));
    }
    Ok(tasks)
}

/// The task `id` from a task file, parsing only its line: a line is a candidate when its
/// `"id"` (the second key as [`Pool::save`] writes it, looked for near the start) is `id`.
fn read_one_task(path: &Path, id: &str) -> Result<Option<(usize, Task)>, PoolError> {
    let file = fs_err::File::open(path)?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let wanted = format!("\"id\":{}", serde_json::Value::from(id));
    for (i, line) in BufReader::new(reader).lines().enumerate() {
        let line = line.map_err(|e| PoolError::Document {
            file: path.to_path_buf(),
            message: format!("line {}: {e}", i + 1),
        })?;
        let head = &line.as_bytes()[..line.len().min(64 + wanted.len())];
        if !head.windows(wanted.len()).any(|w| w == wanted.as_bytes()) {
            continue;
        }
        let de = &mut serde_json::Deserializer::from_str(&line);
        let task: Task = serde_path_to_error::deserialize(de).map_err(|e| {
            let inner = e.inner();
            PoolError::Parse {
                file: path.to_path_buf(),
                line: i + 1,
                column: inner.column(),
                path: e.path().to_string(),
                message: without_position(inner),
            }
        })?;
        if task.id == id {
            return Ok(Some((i + 1, task)));
        }
    }
    Ok(None)
}

/// serde_json's message without its trailing " at line 1 column N" (the line of a JSON
/// Lines file is always 1 to the parser; the error carries the file's own line and column).
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(message) => message.to_owned(),
        None => text,
    }
}

/// Reads an extra-tests file (see [`ExtraTests`]).
pub fn read_extra_file(path: &Path) -> Result<Vec<ExtraTests>, PoolError> {
    read_json_lines(path)
}

/// Reads a gzipped JSON Lines file of `T`s, naming the file, line and field of a bad one.
fn read_json_lines<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>, PoolError> {
    let reader = BufReader::new(GzDecoder::new(fs_err::File::open(path)?));
    let mut out = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| PoolError::Document {
            file: path.to_path_buf(),
            message: format!("line {}: {e}", i + 1),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let de = &mut serde_json::Deserializer::from_str(&line);
        out.push(
            serde_path_to_error::deserialize(de).map_err(|e| PoolError::Document {
                file: path.to_path_buf(),
                message: format!("line {} at `{}`: {}", i + 1, e.path(), e.inner()),
            })?,
        );
    }
    Ok(out)
}

/// Reads a side file's lines by task id (with their line numbers), parsing only the ids.
fn read_line_index(path: &Path) -> Result<LineIndex, PoolError> {
    #[derive(Deserialize)]
    struct Id {
        id: String,
    }
    let reader = BufReader::new(GzDecoder::new(fs_err::File::open(path)?));
    let mut out = HashMap::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| PoolError::Document {
            file: path.to_path_buf(),
            message: format!("line {}: {e}", i + 1),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let id: Id = serde_json::from_str(&line).map_err(|e| PoolError::Document {
            file: path.to_path_buf(),
            message: format!("line {}: {}", i + 1, without_position(&e)),
        })?;
        out.insert(id.id, (i + 1, pack(&line)?));
    }
    Ok(out)
}

/// A line deflate-compressed (fast: [`read_line_index`] packs a whole family at once).
fn pack(line: &str) -> std::io::Result<Arc<[u8]>> {
    let mut encoder = flate2::write::DeflateEncoder::new(
        Vec::with_capacity(line.len() / 16),
        Compression::fast(),
    );
    encoder.write_all(line.as_bytes())?;
    Ok(encoder.finish()?.into())
}

fn unpack(packed: &[u8]) -> std::io::Result<String> {
    let mut text = String::new();
    flate2::read::DeflateDecoder::new(packed).read_to_string(&mut text)?;
    Ok(text)
}

/// Reads a performance file (see [`PerfLine`]).
pub fn read_perf_file(path: &Path) -> Result<Vec<PerfLine>, PoolError> {
    read_json_lines(path)
}

fn write_task_file(path: &Path, tasks: &[&Task]) -> Result<(), PoolError> {
    write_lines(path, tasks)
}

/// Writes one JSON document per line, gzip-compressed with content-only headers.
fn write_lines<T: Serialize>(path: &Path, items: &[T]) -> Result<(), PoolError> {
    write_gz(path, |out| {
        for item in items {
            serde_json::to_writer(&mut *out, item).map_err(std::io::Error::other)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// Writes lines already encoded, as [`write_lines`] does.
fn write_raw_lines<'a>(path: &Path, lines: impl Iterator<Item = &'a str>) -> Result<(), PoolError> {
    write_gz(path, |out| {
        for line in lines {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// A gzip file with content-only headers, its contents written by `write`.
fn write_gz(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), PoolError> {
    let file = fs_err::File::create(path)?;
    // The default level (6) and no timestamp/name in the header: the bytes depend on the
    // content only. Level 9 made translate.jsonl.gz (56 MB of JSON) 4 % smaller for 2.8× the
    // time (4.0 against 1.4 s, flate2's default backend), the longest step of a save.
    let gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(file, Compression::default());
    // serde_json writes in small pieces, and each write into the encoder prepares (zeroes)
    // its whole output buffer: buffered, a save of the pool spent ~7 s of CPU in memset.
    let mut buffered = std::io::BufWriter::with_capacity(1 << 20, gz);
    write(&mut buffered)?;
    let gz = buffered.into_inner().map_err(|e| e.into_error())?;
    let file: fs_err::File = GzEncoder::finish(gz)?;
    file.sync_all()?;
    Ok(())
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), PoolError> {
    let mut text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    text.push('\n');
    fs_err::write(path, text)?;
    Ok(())
}

/// Moves `staging` to `dir`, keeping the old directory until the new one is in place.
fn replace_dir(staging: &Path, dir: &Path) -> Result<(), PoolError> {
    if dir.exists() {
        let old = staging.with_extension("old");
        if old.exists() {
            fs_err::remove_dir_all(&old)?;
        }
        fs_err::rename(dir, &old)?;
        if let Err(e) = fs_err::rename(staging, dir) {
            // Put the old pool back so a failed import leaves nothing half-done.
            fs_err::rename(&old, dir)?;
            return Err(e.into());
        }
        fs_err::remove_dir_all(&old)?;
    } else {
        fs_err::rename(staging, dir)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real task line from the bundled pool, as a JSON object to edit.
    fn bundled_task() -> serde_json::Value {
        let dir = bundled_dir().expect("the repository's pool");
        let file = dir.join("tasks/quixbugs.jsonl.gz");
        let (_, task) = read_task_file(&file)
            .expect("the bundled pool loads")
            .remove(0);
        serde_json::to_value(&task).expect("tasks serialise")
    }

    /// Writes `lines` as a plain JSON Lines task file and reads it back.
    fn read_lines(lines: &[serde_json::Value]) -> Result<Vec<(usize, Task)>, PoolError> {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("tasks.jsonl");
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        fs_err::write(&path, text.join("\n")).expect("writable");
        read_task_file(&path)
    }

    fn parse_error(err: PoolError) -> (usize, usize, String, String) {
        match err {
            PoolError::Parse {
                line,
                column,
                path,
                message,
                ..
            } => (line, column, path, message),
            other => panic!("expected a parse error, got {other}"),
        }
    }

    #[test]
    fn an_unknown_top_level_key_in_a_task_file_is_rejected_with_line_and_column() {
        let good = bundled_task();
        let mut bad = good.clone();
        bad["comparater"] = serde_json::json!({"abs_tol": 0.001});
        let err = read_lines(&[good.clone(), good, bad.clone()]).unwrap_err();
        let text = err.to_string();
        let (line, column, _, message) = parse_error(err);
        assert_eq!(line, 3);
        assert!(
            message.starts_with("unknown field `comparater`"),
            "{message}"
        );
        // The parser stops just past the key: the column points into this line at it.
        let key_at = bad.to_string().find("\"comparater\"").unwrap() + 1;
        assert!(
            (key_at..=key_at + "\"comparater\"".len()).contains(&column),
            "column {column}, key at {key_at}"
        );
        assert!(text.contains(&format!("tasks.jsonl:3:{column}")), "{text}");
        assert!(!text.contains("at line 1 column"), "{text}");
    }

    #[test]
    fn an_unknown_nested_key_in_a_task_file_is_rejected_with_its_path() {
        let good = bundled_task();
        type Edit = fn(&mut serde_json::Value);
        let cases: [(&str, Edit); 5] = [
            ("source", |t| t["source"]["licence"] = "MIT".into()),
            ("factors", |t| t["factors"]["edge"] = 1.into()),
            // serde_path_to_error cannot name a map key that is an enum (`Language`).
            ("variants.?.entrypoint", |t| {
                t["variants"]["python"]["entrypoint"] = "f".into()
            }),
            ("limits", |t| t["limits"] = serde_json::json!({"cpu": 5})),
            // A test is flattened into its form: the unknown key is caught by the form.
            ("tests[0]", |t| t["tests"][0]["visiblity"] = "public".into()),
        ];
        for (at, edit) in cases {
            let mut bad = good.clone();
            edit(&mut bad);
            let (line, _, path, message) = parse_error(read_lines(&[bad]).unwrap_err());
            assert_eq!(line, 1, "{at}");
            assert!(message.starts_with("unknown field"), "{at}: {message}");
            assert!(path.starts_with(at), "{at}: path `{path}`");
        }
    }

    #[test]
    fn known_keys_with_default_values_written_out_are_accepted() {
        let mut task = bundled_task();
        task["comparator"] = serde_json::json!({"unordered": false, "numeric": false});
        task["limits"] = serde_json::json!({});
        task["category_data"] = serde_json::json!({"symptom": null});
        task["tests"][0]["languages"] = serde_json::json!([]);
        assert_eq!(read_lines(&[task]).unwrap().len(), 1);
    }

    #[test]
    fn a_pool_is_shared_across_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Pool>();
    }

    #[test]
    fn an_unknown_key_in_pool_json_is_rejected() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let index = dir.path().join(INDEX_FILE);
        fs_err::write(
            &index,
            r#"{"format_version": 1, "series": 1, "task_files": [], "seires": 2}"#,
        )
        .expect("writable");
        let err = Pool::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("pool.json"), "{err}");
        assert!(err.contains("unknown field `seires`"), "{err}");
    }
}
