//! What the handlers read, shared by the API and the pages so that both show the same
//! numbers: the board is the engine's, computed once per (week, set of record versions).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use passrate_engine::run_score_config;
use passrate_pool::Pool;
use passrate_schema::{Reason, TaskOutcome, Visibility};
use passrate_score::{Contender, ModelOutcomes, ScoreConfig, Scorer};
use passrate_store::Store;

use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::views::{
    self, Board, Comparison, DifferingTask, History, Outcome, Outcomes, PoolStats, PublicVariant,
    PublicVerdict, RunModel, RunView, TaskView,
};

/// Largest page of a model's history.
pub const MAX_PER_PAGE: u32 = 500;
pub const DEFAULT_PER_PAGE: u32 = 100;

/// The records a cached board was computed from: (model, record version) of each. A new
/// version appended for the week changes it, so a cached board is never stale.
type Fingerprint = Vec<(String, u32)>;

/// Everything a request needs.
pub struct AppState {
    pub store: Store,
    pub pool: Arc<Pool>,
    pub metrics: Arc<Metrics>,
    /// `None`: write endpoints answer 403.
    pub writes: Option<crate::write::WriteConfig>,
    score: ScoreConfig,
    boards: Mutex<HashMap<String, Arc<CachedBoard>>>,
    weeks: Mutex<Option<(Instant, Vec<String>)>>,
}

/// How long a board and the list of weeks are served without asking the store whether they
/// changed: a new record version shows within this delay, and a busy server asks the store
/// once per interval instead of once per request.
pub const REVALIDATE_AFTER: Duration = Duration::from_secs(1);

/// A board with its encoded JSON and ETag, and its page once rendered.
pub struct CachedBoard {
    pub board: Board,
    pub json: axum::body::Bytes,
    pub etag: String,
    fingerprint: Fingerprint,
    checked: Mutex<Instant>,
    /// The rendered page and the week list it was rendered with (its week picker).
    pub page: Mutex<Option<(Vec<String>, axum::body::Bytes)>>,
}

pub fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl AppState {
    pub fn new(store: Store, pool: Pool) -> AppState {
        AppState {
            store,
            pool: Arc::new(pool),
            metrics: Arc::new(Metrics::default()),
            writes: None,
            score: run_score_config(),
            boards: Mutex::new(HashMap::new()),
            weeks: Mutex::new(None),
        }
    }

    /// Turns the write endpoints on: they take `token` as a bearer token, and registered
    /// models go to `models_file`.
    pub fn with_writes(mut self, token: &str, models_file: Option<std::path::PathBuf>) -> AppState {
        self.writes = Some(crate::write::WriteConfig::new(token, models_file));
        self
    }

    /// The weeks with records, oldest first (at most [`REVALIDATE_AFTER`] old).
    pub async fn weeks(&self) -> Result<Vec<String>, ApiError> {
        if let Some((at, weeks)) = &*lock(&self.weeks)
            && at.elapsed() < REVALIDATE_AFTER
        {
            return Ok(weeks.clone());
        }
        let weeks = self.store.weeks().await?;
        *lock(&self.weeks) = Some((Instant::now(), weeks.clone()));
        Ok(weeks)
    }

    /// `week` if it has records, else the latest week with records; 404 naming `week`.
    pub async fn week_or_latest(&self, week: Option<String>) -> Result<String, ApiError> {
        let weeks = self.weeks().await?;
        match week {
            Some(w) if weeks.contains(&w) => Ok(w),
            Some(w) => Err(ApiError::NotFound {
                what: "week",
                parameter: "week",
                id: w,
            }),
            None => weeks.last().cloned().ok_or(ApiError::NotFound {
                what: "week",
                parameter: "week",
                id: "(latest: the store has no records yet)".to_string(),
            }),
        }
    }

    /// The engine's board of `week` with its JSON, reused while the week's records are
    /// unchanged (checked at most every [`REVALIDATE_AFTER`]).
    pub async fn board(&self, week: &str) -> Result<Arc<CachedBoard>, ApiError> {
        let known = lock(&self.boards).get(week).cloned();
        if let Some(cached) = &known
            && lock(&cached.checked).elapsed() < REVALIDATE_AFTER
        {
            return Ok(cached.clone());
        }
        let fingerprint: Fingerprint = self
            .store
            .leaderboard(week)
            .await?
            .into_iter()
            .map(|s| (s.record.model, s.record.record_version))
            .collect();
        if let Some(cached) = known
            && cached.fingerprint == fingerprint
        {
            *lock(&cached.checked) = Instant::now();
            return Ok(cached);
        }
        let board = passrate_engine::leaderboard(&self.store, week, &self.score).await?;
        let json = serde_json::to_vec(&board).map_err(|e| ApiError::Internal {
            action: "encode the board".to_string(),
            detail: e.to_string(),
        })?;
        let cached = Arc::new(CachedBoard {
            etag: crate::api::etag_of(&json),
            json: json.into(),
            board,
            fingerprint,
            checked: Mutex::new(Instant::now()),
            page: Mutex::new(None),
        });
        lock(&self.boards).insert(week.to_string(), cached.clone());
        Ok(cached)
    }

    /// Every record of `model`, oldest first; 404 when it has none.
    pub async fn history(
        &self,
        model: &str,
        page: u32,
        per_page: u32,
    ) -> Result<History, ApiError> {
        let all = self.store.model_history(model).await?;
        if all.is_empty() {
            return Err(ApiError::NotFound {
                what: "model",
                parameter: "model",
                id: model.to_string(),
            });
        }
        let total = all.len() as u32;
        let pages = total.div_ceil(per_page).max(1);
        if page > pages {
            return Err(ApiError::bad(
                "page",
                format!("page {page} is past the last page, {pages}"),
            ));
        }
        let start = ((page - 1) * per_page) as usize;
        let records = all
            .into_iter()
            .skip(start)
            .take(per_page as usize)
            .map(|s| views::StoredRecord {
                record: s.record,
                recorded_at: s.recorded_at,
            })
            .collect();
        Ok(History {
            model: model.to_string(),
            page,
            per_page,
            total,
            pages,
            records,
        })
    }

    pub async fn run(&self, run_id: &str) -> Result<RunView, ApiError> {
        let run = self.store.run(run_id).await?.ok_or(ApiError::NotFound {
            what: "run",
            parameter: "run_id",
            id: run_id.to_string(),
        })?;
        let models = self
            .store
            .leaderboard(run.week())
            .await?
            .into_iter()
            .filter(|s| s.record.run_id == run_id)
            .map(|s| RunModel {
                model: s.record.model,
                record_version: s.record.record_version,
                overall: s.record.overall,
                coverage: s.record.coverage,
                provenance: s.record.provenance,
            })
            .collect();
        Ok(RunView {
            run_id: run.run_id.clone(),
            week: run.week().to_string(),
            manifest: run.manifest,
            settings: run.config,
            started_at: run.started_at,
            finished_at: run.finished_at,
            models,
        })
    }

    pub async fn outcomes(&self, run_id: &str, model: &str) -> Result<Outcomes, ApiError> {
        if self.store.run(run_id).await?.is_none() {
            return Err(ApiError::NotFound {
                what: "run",
                parameter: "run_id",
                id: run_id.to_string(),
            });
        }
        let units = self.store.unit_results(run_id, model).await?;
        if units.is_empty() {
            return Err(ApiError::NotFound {
                what: "model in run",
                parameter: "model",
                id: model.to_string(),
            });
        }
        let outcomes = units
            .into_iter()
            .map(|u| Outcome {
                reason: u.verdict.reason,
                verdict: PublicVerdict::from_verdict(&u.verdict),
                task: u.task,
                task_version: u.task_version,
                sample_index: u.sample_index,
                language: u.language,
                category: u.category,
                tier: u.tier,
                answer: u.raw_answer,
                extracted_code: u.extracted_code,
                generation_ms: u.generation_ms,
                execution_ms: u.execution_ms,
                usage: u.usage,
                quality: u.quality,
            })
            .collect();
        Ok(Outcomes {
            run_id: run_id.to_string(),
            model: model.to_string(),
            outcomes,
        })
    }

    /// `a` against `b` on `week`'s sample, as the board compares ranked neighbours: the
    /// latest records, each model's outcomes on its run's sample, seeded by the week.
    pub async fn compare(&self, week: &str, a: &str, b: &str) -> Result<Comparison, ApiError> {
        if a == b {
            return Err(ApiError::bad("b", "must name a model other than `a`"));
        }
        let stored = self.store.leaderboard(week).await?;
        let find = |model: &str, parameter: &'static str| {
            stored
                .iter()
                .find(|s| s.record.model == model)
                .ok_or(ApiError::NotFound {
                    what: "model in week",
                    parameter,
                    id: model.to_string(),
                })
        };
        let (ra, rb) = (find(a, "a")?, find(b, "b")?);
        let oa = self.sample_outcomes(&ra.record.run_id, a).await?;
        let ob = self.sample_outcomes(&rb.record.run_id, b).await?;
        let group = |model: &str, outcomes: &[TaskOutcome]| {
            ModelOutcomes::from_outcomes(model, outcomes, self.score.infrastructure).map_err(|e| {
                ApiError::Internal {
                    action: format!("group the outcomes of {model}"),
                    detail: e.to_string(),
                }
            })
        };
        let (ga, gb) = (group(a, &oa)?, group(b, &ob)?);
        let mut scorer = Scorer::new(self.score.clone()).map_err(|e| ApiError::Internal {
            action: "configure the scorer".to_string(),
            detail: e.to_string(),
        })?;
        let seed = stored
            .first()
            .map(|s| s.record.seed.clone())
            .unwrap_or_default();
        let comparison = scorer.compare(
            &seed,
            Contender {
                outcomes: &ga,
                overall: ra.record.overall,
            },
            Contender {
                outcomes: &gb,
                overall: rb.record.overall,
            },
        );
        let key = |o: &TaskOutcome| (o.task.clone(), o.language, o.sample_index);
        let of_b: BTreeMap<_, Reason> = ob.iter().map(|o| (key(o), o.reason)).collect();
        let mut differing: Vec<DifferingTask> = oa
            .iter()
            .filter_map(|o| {
                let rb = *of_b.get(&key(o))?;
                ((o.reason == Reason::Pass) != (rb == Reason::Pass)).then(|| DifferingTask {
                    task: o.task.clone(),
                    language: o.language,
                    sample_index: o.sample_index,
                    a: o.reason,
                    b: rb,
                })
            })
            .collect();
        differing.sort_by(|x, y| (&x.task, x.sample_index).cmp(&(&y.task, y.sample_index)));
        Ok(Comparison {
            week: week.to_string(),
            a: ra.record.overall,
            b: rb.record.overall,
            comparison,
            differing,
        })
    }

    /// A model's outcomes on its run's sample (drift-panel units left out), as the board
    /// scores them.
    async fn sample_outcomes(
        &self,
        run_id: &str,
        model: &str,
    ) -> Result<Vec<TaskOutcome>, ApiError> {
        let sample: HashSet<String> = match self.store.run(run_id).await? {
            Some(run) => run.manifest.items.into_iter().map(|i| i.task).collect(),
            None => HashSet::new(),
        };
        Ok(self
            .store
            .task_outcomes(run_id, model)
            .await?
            .into_iter()
            .filter(|o| sample.is_empty() || sample.contains(&o.task))
            .collect())
    }

    pub fn pool_stats(&self, week: &str) -> Result<PoolStats, ApiError> {
        passrate_pool::stats(&self.pool, week, &passrate_pool::SampleConfig::default())
            .map_err(|e| ApiError::bad("week", e.to_string()))
    }

    pub fn task(&self, id: &str) -> Result<TaskView, ApiError> {
        let task = self.pool.get(id).ok_or(ApiError::NotFound {
            what: "task",
            parameter: "task_id",
            id: id.to_string(),
        })?;
        Ok(TaskView {
            id: task.id.clone(),
            version: task.version,
            category: task.category,
            tier: task.tier,
            family: task.family(),
            source: task.source.clone(),
            variants: task
                .variants
                .iter()
                .map(|(language, v)| {
                    (
                        *language,
                        PublicVariant {
                            prompt: v.prompt.clone(),
                            entry_point: v.entry_point.clone(),
                            class_name: v.class_name.clone(),
                            signature: v.signature.clone(),
                            given_code: v.given_code.clone(),
                        },
                    )
                })
                .collect(),
            public_tests: task
                .tests
                .iter()
                .filter(|t| t.visibility == Visibility::Public)
                .cloned()
                .collect(),
            hidden_tests: task
                .tests
                .iter()
                .filter(|t| t.visibility == Visibility::Hidden)
                .count(),
        })
    }
}
