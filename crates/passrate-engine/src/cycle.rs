//! The weekly cycle: sample → create or resume the run → answer, extract, judge and commit
//! every unit not yet stored → score each model → append its record.
//!
//! Resumability rests on the store: the run id is a hash of everything that decides the
//! results (week, pool version, sample shares, models, limits, scoring), so the same command
//! finds the same run; each `(run, model, task, sample)` result is committed the moment it is
//! known and inserted at most once; a score record is appended at most once per (run,
//! model), and its evaluation time is the run's start, so a cycle killed at any point and
//! run again ends with exactly the records an uninterrupted one would have written.
//!
//! Infrastructure faults are never a model's failure: sandbox faults are retried
//! ([`RetryPolicy`]) and then classified by a control run of the task's reference (a clean
//! reference puts the fault on the answer: `runtime_error`), and model API faults are retried
//! by the model's own policy; what still fails is recorded as `sandbox_error` / `api_error`. Scoring uses
//! [`InfraPolicy::Exclude`](passrate_score::InfraPolicy): those units leave the denominator
//! (a task with only such outcomes is unscored) and stay visible in the record's `reasons`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use passrate_models::CacheMode;
use passrate_pool::{Pool, SampleConfig};
use passrate_runner::Runner;
use passrate_schema::{
    LimitsUsed, Manifest, ManifestItem, Provenance, RECORD_FORMAT_VERSION, Reason, RunEvent,
    ScoreRecord, TaskOutcome,
};
use passrate_score::{InfraPolicy, QualityUnit, ScoreConfig, Scorer};
use passrate_store::{Store, StoredRecord, UnitResult};
use serde::Serialize;
use serde_json::json;
use tokio::sync::Semaphore;

use crate::cache::StoreCache;
use crate::drift::{self, DriftOptions, WeekSide};
use crate::error::EngineError;
use crate::judge::{GRADED_CATEGORIES, RetryPolicy, judge, ms, unexecuted_verdict};
use crate::quality::{self, QualityInputs, ReferenceCache};
use crate::source::AnswerSource;

/// Where the engine's events go (the terminal display, the JSON Lines writer, tests).
pub type EventSink = Arc<dyn Fn(&RunEvent) + Send + Sync>;

/// Version of the run configuration document (part of the run id).
pub const RUN_CONFIG_VERSION: u32 = 2;

/// The scoring configuration of a run: the defaults, with infrastructure outcomes excluded
/// from the denominator (they were retried already) instead of refused.
pub fn run_score_config() -> ScoreConfig {
    ScoreConfig {
        infrastructure: InfraPolicy::Exclude,
        ..ScoreConfig::default()
    }
}

/// How a cycle runs.
#[derive(Clone, Debug)]
pub struct CycleOptions {
    /// ISO week, e.g. `2026-W48`.
    pub week: String,
    pub sample: SampleConfig,
    /// `Refresh` re-asks models for units not yet stored in this run (stored units are
    /// final: the run is append-only).
    pub cache_mode: CacheMode,
    pub retry: RetryPolicy,
    pub score: ScoreConfig,
    /// Units in flight at once (across models); execution is bounded separately by the
    /// sandbox's slots.
    pub units_in_flight: usize,
    /// A run whose cached answers this run may reuse (recorded in the run's configuration);
    /// `None`: every API and command model is asked afresh.
    pub reuse_answers_from: Option<String>,
    /// One request per API model before the run; a failure stops the run.
    pub preflight: bool,
    pub drift: DriftOptions,
    /// Check every passed answer of the sample for robustness, efficiency and
    /// maintainability (the `quality` module) and score them beside the pass rate.
    pub quality: bool,
}

impl CycleOptions {
    pub fn new(week: impl Into<String>) -> CycleOptions {
        CycleOptions {
            week: week.into(),
            sample: SampleConfig::default(),
            cache_mode: CacheMode::Use,
            retry: RetryPolicy::default(),
            score: run_score_config(),
            units_in_flight: 32,
            reuse_answers_from: None,
            preflight: true,
            drift: DriftOptions::default(),
            quality: true,
        }
    }
}

/// Wall time of each stage. Stages that run concurrently (generation, extraction,
/// execution, commits) are sums over units: busy time, which can exceed the wall time of
/// the units phase.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Timings {
    pub sample_ms: u64,
    pub create_run_ms: u64,
    pub units_wall_ms: u64,
    pub generation_ms: u64,
    pub extraction_ms: u64,
    pub execution_ms: u64,
    pub commit_ms: u64,
    /// Quality checks of passed answers (busy time, inside the units phase), and its parts.
    pub quality_ms: u64,
    pub robustness_ms: u64,
    pub efficiency_ms: u64,
    pub maintainability_ms: u64,
    pub scoring_ms: u64,
    pub records_ms: u64,
    pub total_ms: u64,
}

/// What a cycle did.
#[derive(Clone, Debug)]
pub struct CycleReport {
    pub run_id: String,
    pub manifest: Manifest,
    /// The run existed already (this call resumed or re-ran it).
    pub resumed: bool,
    /// Units judged by this call.
    pub executed_units: u64,
    /// Units found already stored.
    pub stored_units: u64,
    /// Score records this call appended (0 on an idempotent re-run).
    pub appended_records: u32,
    /// Each model's record (appended now or found), in source order.
    pub records: Vec<StoredRecord>,
    /// Models that got no record: no scored task, or units that ended in `api_error`.
    pub unscored: Vec<UnscoredModel>,
    pub timings: Timings,
}

impl CycleReport {
    /// Some model ended with units in `api_error`: the run is not complete (exit 7); the same
    /// command retries those units.
    pub fn has_api_errors(&self) -> bool {
        self.unscored.iter().any(|m| m.api_errors > 0)
    }
}

/// A model the run could not score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnscoredModel {
    pub model: String,
    /// Units whose latest attempt ended in a model API error.
    pub api_errors: u32,
    /// Units whose latest attempt ended in a sandbox error.
    pub sandbox_errors: u32,
    /// The first infrastructure error's detail, as recorded.
    pub first_error: Option<String>,
}

/// Everything a cycle needs. The pool and runner are shared with blocking worker threads.
pub struct Cycle {
    pub store: Store,
    pub runner: Arc<Runner>,
    pub pool: Arc<Pool>,
    pub sources: Vec<Arc<AnswerSource>>,
    pub options: CycleOptions,
}

impl std::fmt::Debug for Cycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cycle")
            .field("store", &self.store)
            .field("sources", &self.sources)
            .field("options", &self.options)
            .finish()
    }
}

/// The limits every execution of a run is held to (stored with each record).
pub fn limits_used(runner: &Runner) -> LimitsUsed {
    let options = runner.options();
    let sandbox = passrate_sandbox::Limits::default();
    LimitsUsed {
        cpu_ms: options.python.tests_cpu_ms,
        wall_ms: sandbox.wall_ms,
        memory_mib: options.memory_bytes >> 20,
        heap_mib: options.heap_bytes >> 20,
        pids: options.pids,
        workdir_mib: options.workdir_bytes >> 20,
        output_bytes: options.output_bytes,
    }
}

/// Interpreter and compiler versions as the sandbox resolved them on this host.
pub fn runtime_versions(runner: &Runner) -> BTreeMap<String, String> {
    let runtimes = runner.sandbox().runtimes();
    [
        ("python", &runtimes.python),
        ("node", &runtimes.node),
        ("java", &runtimes.java),
        ("javac", &runtimes.javac),
    ]
    .into_iter()
    .filter_map(|(name, rt)| rt.as_ref().map(|rt| (name.to_string(), rt.version.clone())))
    .collect()
}

/// The run's configuration document: everything that decides its results.
pub fn run_config(
    manifest: &Manifest,
    options: &CycleOptions,
    sources: &[Arc<AnswerSource>],
    limits: &LimitsUsed,
) -> serde_json::Value {
    let sample = &options.sample;
    let score = &options.score;
    let tiers: BTreeMap<String, u32> = sample
        .tier_shares
        .iter()
        .map(|(t, w)| (t.number().to_string(), *w))
        .collect();
    let categories: BTreeMap<&str, u32> = sample
        .category_shares
        .iter()
        .map(|(c, w)| (c.as_str(), *w))
        .collect();
    let mut config = json!({
        "version": RUN_CONFIG_VERSION,
        "week": manifest.week,
        "pool_version": manifest.pool_version,
        "sample": { "size": sample.size, "tier_shares": tiers, "category_shares": categories },
        "models": sources.iter().map(|s| s.identity()).collect::<Vec<_>>(),
        "limits": limits,
        "score": score,
        "extractor_version": passrate_extract::EXTRACTOR_VERSION,
        "graded_categories": GRADED_CATEGORIES.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
        "grader_version": passrate_grade::GRADER_VERSION,
        "reuse_answers_from": options.reuse_answers_from,
        "drift": options.drift,
    });
    // Absent when on, so turning quality on kept the ids of runs stored before it existed.
    if !options.quality {
        config["quality"] = json!(false);
    }
    config
}

/// `<week>-<first 12 hex digits of blake3(config)>`: the same command finds the same run.
pub fn run_id(week: &str, config: &serde_json::Value) -> String {
    let hash = blake3::hash(config.to_string().as_bytes()).to_hex();
    format!("{week}-{}", &hash[..12])
}

struct Unit {
    source: Arc<AnswerSource>,
    item: ManifestItem,
    sample_index: u32,
}

#[derive(Default)]
struct Busy {
    generation: AtomicU64,
    extraction: AtomicU64,
    execution: AtomicU64,
    quality: AtomicU64,
    robustness: AtomicU64,
    efficiency: AtomicU64,
    maintainability: AtomicU64,
    commit: AtomicU64,
}

struct Shared {
    store: Store,
    cache: StoreCache,
    runner: Arc<Runner>,
    pool: Arc<Pool>,
    run_id: String,
    mode: CacheMode,
    retry: RetryPolicy,
    exec: Arc<Semaphore>,
    sink: EventSink,
    busy: Busy,
    /// What the quality checks of each sampled task need; `None` with quality off.
    quality: Option<HashMap<String, QualityInputs>>,
    references: ReferenceCache,
}

impl Cycle {
    /// Runs (or resumes) the cycle to the end.
    pub async fn run(&self, sink: EventSink) -> Result<CycleReport, EngineError> {
        let started = Instant::now();
        let mut timings = Timings::default();
        let week = &self.options.week;
        let manifest =
            passrate_pool::sample(&self.pool, week, &self.options.sample).map_err(|source| {
                EngineError::Sample {
                    week: week.clone(),
                    source,
                }
            })?;
        timings.sample_ms = ms(started.elapsed());
        for item in manifest.items.iter().chain(&manifest.panel) {
            if self.pool.get(&item.task).is_none() {
                return Err(EngineError::UnknownTask {
                    task: item.task.clone(),
                });
            }
        }
        let mut seen = HashSet::new();
        for source in &self.sources {
            if !seen.insert(source.id()) {
                return Err(EngineError::DuplicateModel(source.id().to_string()));
            }
        }
        if self.options.preflight {
            self.preflight(&sink).await?;
        }
        if let Some(other) = &self.options.reuse_answers_from
            && self.store.run(other).await?.is_none()
        {
            return Err(EngineError::UnknownRun(other.clone()));
        }

        let phase = Instant::now();
        let limits = limits_used(&self.runner);
        let config = run_config(&manifest, &self.options, &self.sources, &limits);
        let run_id = run_id(&manifest.week, &config);
        let created = self.store.create_run(&run_id, &manifest, &config).await?;
        let run = created.value;
        // Units with a result; a unit whose attempts so far ended in infrastructure faults
        // has none and is done again.
        let done: HashMap<(String, String, u32), Reason> = self
            .store
            .completed_units(&run_id)
            .await?
            .into_iter()
            .map(|u| ((u.model, u.task, u.sample_index), u.reason))
            .collect();
        timings.create_run_ms = ms(phase.elapsed());
        for source in &self.sources {
            source.report_to(sink.clone(), &run_id);
        }
        sink(&RunEvent::RunStarted {
            run_id: run_id.clone(),
            week: manifest.week.clone(),
            seed: manifest.seed.clone(),
            pool_version: manifest.pool_version.clone(),
            models: self.sources.iter().map(|s| s.id().to_string()).collect(),
            tasks: manifest.items.len() + manifest.panel.len(),
        });

        // Interleave models (item-major) so every model progresses from the start and a
        // slow API does not hold the sandbox idle. The drift panel is asked beside the sample.
        let mut pending = Vec::new();
        let mut stored_units = 0u64;
        for item in manifest.items.iter().chain(&manifest.panel) {
            for source in &self.sources {
                for sample_index in 0..source.samples() {
                    let key = (source.id().to_string(), item.task.clone(), sample_index);
                    if let Some(reason) = done.get(&key) {
                        stored_units += 1;
                        sink(&RunEvent::TaskFinished {
                            run_id: run_id.clone(),
                            model: source.id().to_string(),
                            task: item.task.clone(),
                            language: item.language,
                            sample_index,
                            reason: *reason,
                            cached: true,
                        });
                    } else {
                        pending.push(Unit {
                            source: source.clone(),
                            item: item.clone(),
                            sample_index,
                        });
                    }
                }
            }
        }

        let phase = Instant::now();
        let quality = if self.options.quality {
            let pool = self.pool.clone();
            let tasks: Vec<String> = manifest.items.iter().map(|i| i.task.clone()).collect();
            Some(
                tokio::task::spawn_blocking(move || quality_inputs(&pool, &tasks))
                    .await
                    .map_err(|e| EngineError::Worker(e.to_string()))??,
            )
        } else {
            None
        };
        timings.quality_ms += ms(phase.elapsed());
        let shared = Arc::new(Shared {
            store: self.store.clone(),
            cache: StoreCache::new(
                self.store.clone(),
                run_id.clone(),
                self.options.reuse_answers_from.clone(),
            ),
            runner: self.runner.clone(),
            pool: self.pool.clone(),
            run_id: run_id.clone(),
            mode: self.options.cache_mode,
            retry: self.options.retry,
            exec: Arc::new(Semaphore::new(self.runner.sandbox().slots())),
            sink: sink.clone(),
            busy: Busy::default(),
            quality,
            references: ReferenceCache::default(),
        });
        let executed_units = pending.len() as u64;
        let mut results = futures::stream::iter(pending)
            .map(|unit| run_unit(shared.clone(), unit))
            .buffer_unordered(self.options.units_in_flight.max(1));
        while let Some(result) = results.next().await {
            result?;
        }
        drop(results);
        timings.units_wall_ms = ms(phase.elapsed());
        timings.generation_ms = busy_ms(&shared.busy.generation);
        timings.extraction_ms = busy_ms(&shared.busy.extraction);
        timings.execution_ms = busy_ms(&shared.busy.execution);
        timings.commit_ms = busy_ms(&shared.busy.commit);
        timings.quality_ms += busy_ms(&shared.busy.quality);
        timings.robustness_ms = busy_ms(&shared.busy.robustness);
        timings.efficiency_ms = busy_ms(&shared.busy.efficiency);
        timings.maintainability_ms = busy_ms(&shared.busy.maintainability);
        let families: HashMap<&str, &str> = manifest
            .items
            .iter()
            .map(|i| {
                let family = if i.family.is_empty() {
                    &i.task
                } else {
                    &i.family
                };
                (i.task.as_str(), family.as_str())
            })
            .collect();

        let provenance = Provenance {
            passrate_version: env!("CARGO_PKG_VERSION").to_string(),
            extractor_version: passrate_extract::EXTRACTOR_VERSION.to_string(),
            limits,
            runtime_versions: runtime_versions(&self.runner),
        };
        let mut scorer = Scorer::new(self.options.score.clone()).map_err(EngineError::score(""))?;
        let in_sample: HashSet<&str> = manifest.items.iter().map(|i| i.task.as_str()).collect();
        let mut records = Vec::with_capacity(self.sources.len());
        let mut unscored = Vec::new();
        let mut appended_records = 0;
        for source in &self.sources {
            let model = source.id();
            let phase = Instant::now();
            let all_outcomes = self.store.task_outcomes(&run_id, model).await?;
            let expected =
                (manifest.items.len() + manifest.panel.len()) * source.samples() as usize;
            if all_outcomes.len() != expected {
                return Err(EngineError::Incomplete {
                    model: model.to_string(),
                    stored: all_outcomes.len(),
                    expected,
                });
            }
            // The leaderboard scores the sample; the panel serves drift only.
            let outcomes: Vec<TaskOutcome> = all_outcomes
                .iter()
                .filter(|o| in_sample.contains(o.task.as_str()))
                .cloned()
                .collect();
            let (_, score) = scorer
                .score_outcomes(&manifest.seed, model, &outcomes)
                .map_err(EngineError::score(model))?;
            let api_errors = count(&all_outcomes, Reason::ApiError);
            if score.scored_tasks == 0 || api_errors > 0 {
                let faults = self.store.unit_faults(&run_id, model).await?;
                let missing = UnscoredModel {
                    model: model.to_string(),
                    api_errors,
                    sandbox_errors: count(&all_outcomes, Reason::SandboxError),
                    first_error: faults
                        .first()
                        .and_then(|f| f.verdict.detail.clone())
                        .or_else(|| faults.first().map(|f| f.verdict.reason.to_string())),
                };
                sink(&RunEvent::ModelUnscored {
                    run_id: run_id.clone(),
                    model: missing.model.clone(),
                    api_errors: missing.api_errors,
                    sandbox_errors: missing.sandbox_errors,
                    first_error: missing.first_error.clone(),
                });
                unscored.push(missing);
                continue;
            }
            let answered: Vec<TaskOutcome> = outcomes
                .iter()
                .filter(|o| o.reason != Reason::NoAnswer)
                .cloned()
                .collect();
            let answered = if answered.len() == outcomes.len() {
                score.overall
            } else {
                scorer
                    .score_outcomes(&manifest.seed, &format!("{model}/answered"), &answered)
                    .map_err(EngineError::score(model))?
                    .1
                    .overall
            };
            let units = self.store.unit_results(&run_id, model).await?;
            let quality_units: Vec<QualityUnit<'_>> = units
                .iter()
                .filter(|u| u.verdict.reason == Reason::Pass)
                .filter_map(|u| {
                    Some(QualityUnit {
                        task: &u.task,
                        family: families.get(u.task.as_str())?,
                        language: u.language,
                        category: u.category,
                        tier: u.tier,
                        quality: u.quality.as_ref()?,
                    })
                })
                .collect();
            let quality =
                passrate_score::quality_scores(&mut scorer, &manifest.seed, model, &quality_units);
            let current = WeekSide {
                manifest: &manifest,
                outcomes: &all_outcomes,
                units: &units,
            };
            let drift = drift::against_previous_week(
                &self.store,
                model,
                &manifest.week,
                &current,
                &self.options.drift,
            )
            .await?;
            timings.scoring_ms += ms(phase.elapsed());
            let phase = Instant::now();
            let record = ScoreRecord {
                format_version: RECORD_FORMAT_VERSION,
                model: model.to_string(),
                week: manifest.week.clone(),
                // The run's start, not now: a resumed run writes the record an uninterrupted
                // one would have.
                evaluated_at: run.started_at.clone(),
                record_version: 0,
                run_id: run_id.clone(),
                seed: manifest.seed.clone(),
                pool_version: manifest.pool_version.clone(),
                overall: score.overall,
                by_category: score.by_category,
                by_tier: score.by_tier,
                by_language: score.by_language,
                compliance_rate: score.compliance_rate,
                coverage: score.coverage,
                reasons: score.reasons,
                pass_at_k: score.pass_at_k,
                provenance: provenance.clone(),
                answered: Some(answered),
                families: score.scored_families,
                drift,
                rotation: manifest.rotation.clone(),
                quality,
            };
            let stored = self.store.append_score_record_for_run(&record).await?;
            timings.records_ms += ms(phase.elapsed());
            if stored.inserted {
                appended_records += 1;
            }
            sink(&RunEvent::ModelFinished {
                run_id: run_id.clone(),
                model: model.to_string(),
                overall: stored.value.record.overall,
            });
            records.push(stored.value);
        }
        // A run with a model left unscored for API errors is resumed, not finished.
        if !unscored.iter().any(|m| m.api_errors > 0) {
            self.store.finish_run(&run_id).await?;
        }
        timings.total_ms = ms(started.elapsed());
        sink(&RunEvent::RunFinished {
            run_id: run_id.clone(),
            wall_ms: timings.total_ms,
        });
        Ok(CycleReport {
            run_id,
            manifest,
            resumed: !created.inserted,
            executed_units,
            stored_units,
            appended_records,
            records,
            unscored,
            timings,
        })
    }

    /// Checks every API model with one request before anything is recorded; the first
    /// failure stops the run with the provider's message.
    async fn preflight(&self, sink: &EventSink) -> Result<(), EngineError> {
        for source in &self.sources {
            match source.preflight().await {
                None => {}
                Some(Ok(passed)) => sink(&RunEvent::PreflightPassed {
                    model: source.id().to_string(),
                    checked: passed.checked.to_string(),
                    latency_ms: passed.latency_ms,
                }),
                Some(Err(source)) => return Err(EngineError::Preflight(Box::new(source))),
            }
        }
        Ok(())
    }
}

fn count(outcomes: &[TaskOutcome], reason: Reason) -> u32 {
    outcomes.iter().filter(|o| o.reason == reason).count() as u32
}

/// Busy time is summed in microseconds: most units take well under a millisecond to
/// extract, and summing rounded milliseconds would report zero.
fn add(counter: &AtomicU64, d: Duration) {
    let us = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    counter.fetch_add(us, Ordering::Relaxed);
}

fn busy_ms(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed) / 1000
}

/// One unit, start to commit.
async fn run_unit(shared: Arc<Shared>, unit: Unit) -> Result<(), EngineError> {
    let Unit {
        source,
        item,
        sample_index,
    } = unit;
    let task = shared
        .pool
        .get(&item.task)
        .ok_or_else(|| EngineError::UnknownTask {
            task: item.task.clone(),
        })?;
    let language = item.language;
    let model = source.id().to_string();
    let started = Instant::now();
    let answer = source
        .answer(task, language, sample_index, &shared.cache, shared.mode)
        .await;
    add(&shared.busy.generation, started.elapsed());
    let answer = match answer {
        Ok(answer) => Ok(answer),
        Err(e) => match e.reason() {
            Some(reason) => Err((reason, e)),
            None => return Err(EngineError::Model(e)),
        },
    };
    let (raw_answer, extracted_code, verdict, generation_ms, execution_ms, usage, quality) =
        match answer {
            Err((reason, error)) => {
                let detail = format!("{error}");
                (
                    None,
                    None,
                    unexecuted_verdict(task, language, reason, Some(detail)),
                    ms(started.elapsed()),
                    0,
                    Some(json!({ "attempts": error.attempts() })),
                    None,
                )
            }
            Ok(answer) => {
                // Only answers with text need a sandbox slot.
                let _permit = match answer.text {
                    Some(_) => Some(
                        shared
                            .exec
                            .clone()
                            .acquire_owned()
                            .await
                            .expect("the semaphore is never closed"),
                    ),
                    None => None,
                };
                let worker = shared.clone();
                let text = answer.text.clone();
                let detail = answer.no_answer_detail.clone();
                let task_id = item.task.clone();
                let retry_model = model.clone();
                let is_control = source.is_control();
                let judged = tokio::task::spawn_blocking(move || {
                    let task = worker.pool.get(&task_id).expect("checked above");
                    let on_retry = |attempt: u32, error: &str| {
                        (worker.sink)(&RunEvent::InfrastructureRetry {
                            run_id: worker.run_id.clone(),
                            model: retry_model.clone(),
                            task: task_id.clone(),
                            attempt,
                            error: error.to_string(),
                        });
                    };
                    let judged = judge(
                        worker.runner.as_ref(),
                        task,
                        language,
                        text.as_deref(),
                        detail.as_deref(),
                        worker.retry,
                        &on_retry,
                    )?;
                    if let Some(control) = &judged.control {
                        (worker.sink)(&RunEvent::ControlRun {
                            run_id: worker.run_id.clone(),
                            model: retry_model.clone(),
                            task: task_id.clone(),
                            language,
                            sample_index,
                            attempts: control.attempts,
                            fault: control.fault.clone(),
                            control: match &control.control {
                                Ok(reason) => reason.to_string(),
                                Err(fault) => fault.clone(),
                            },
                            candidate_caused: control.candidate_caused(),
                            recorded: judged.verdict.reason,
                        });
                    }
                    let started = Instant::now();
                    // The controls are never ranked, and their quality is the reference's by
                    // construction: checking it would cost as much as every model's.
                    let inputs = worker
                        .quality
                        .as_ref()
                        .filter(|_| !is_control)
                        .and_then(|q| q.get(&task_id));
                    let quality = match (inputs, &judged.extracted_code) {
                        (Some(inputs), Some(code)) if judged.verdict.reason == Reason::Pass => {
                            let checked = quality::check(
                                worker.runner.as_ref(),
                                task,
                                language,
                                code,
                                inputs,
                                &worker.references,
                                worker.retry,
                                &on_retry,
                            );
                            match checked {
                                Ok((checked, times)) => {
                                    add(&worker.busy.robustness, times.robustness);
                                    add(&worker.busy.efficiency, times.efficiency);
                                    add(&worker.busy.maintainability, times.maintainability);
                                    (!checked.is_empty()).then_some(checked)
                                }
                                // The verdict stands: a check the grader refuses (a pool bug)
                                // leaves the unit unchecked rather than the run stuck.
                                Err(error) => {
                                    tracing::warn!(
                                        task = %task_id,
                                        %language,
                                        "quality check left out: {error}"
                                    );
                                    None
                                }
                            }
                        }
                        _ => None,
                    };
                    add(&worker.busy.quality, started.elapsed());
                    Ok::<_, EngineError>((judged, quality))
                })
                .await
                .map_err(|e| EngineError::Worker(e.to_string()))??;
                let (judged, quality) = judged;
                add(&shared.busy.extraction, judged.extract_time);
                add(&shared.busy.execution, judged.execution_time);
                (
                    answer.text,
                    judged.extracted_code,
                    judged.verdict,
                    answer.generation_ms,
                    ms(judged.execution_time),
                    answer.usage,
                    quality,
                )
            }
        };
    let reason = verdict.reason;
    let result = UnitResult {
        run_id: shared.run_id.clone(),
        model: model.clone(),
        task: item.task.clone(),
        task_version: item.task_version,
        sample_index,
        language,
        category: item.category,
        tier: item.tier,
        raw_answer,
        extracted_code,
        verdict,
        generation_ms,
        execution_ms,
        usage,
        completed_at: now_rfc3339(),
        quality,
    };
    let commit = Instant::now();
    shared.store.insert_unit_result(&result).await?;
    add(&shared.busy.commit, commit.elapsed());
    (shared.sink)(&RunEvent::TaskFinished {
        run_id: shared.run_id.clone(),
        model,
        task: item.task,
        language,
        sample_index,
        reason,
        cached: false,
    });
    Ok(())
}

/// The quality inputs of each of `tasks`: its extra tests and performance inputs, read once.
fn quality_inputs(
    pool: &Pool,
    tasks: &[String],
) -> Result<HashMap<String, QualityInputs>, EngineError> {
    let lint = matches!(passrate_extract::maintain::locate_ruff(), Ok(Some(_)));
    let mut inputs = HashMap::with_capacity(tasks.len());
    for task in tasks {
        let pool_error = |source| EngineError::Pool {
            task: task.clone(),
            source,
        };
        inputs.insert(
            task.clone(),
            QualityInputs {
                extra: Arc::new(pool.extra_tests(task).map_err(pool_error)?),
                perf: pool.perf_set(task).map_err(pool_error)?.map(Arc::new),
                lint,
            },
        );
    }
    Ok(inputs)
}

fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .expect("the current time formats as RFC 3339")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_id_follows_the_config() {
        let a = json!({"week": "2026-W48", "models": ["x"]});
        let b = json!({"week": "2026-W48", "models": ["y"]});
        assert_eq!(run_id("2026-W48", &a), run_id("2026-W48", &a.clone()));
        assert_ne!(run_id("2026-W48", &a), run_id("2026-W48", &b));
        assert!(run_id("2026-W48", &a).starts_with("2026-W48-"));
    }
}
