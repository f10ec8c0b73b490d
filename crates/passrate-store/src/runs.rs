//! Runs and their units of work: a run is created once, each `(run, model, task,
//! sample_index)` result is inserted at most once, and a resumed run asks which units are done.

use passrate_schema::{
    Category, Language, Manifest, Reason, TaskOutcome, Tier, UnitQuality, Verdict,
};
use serde::{Deserialize, Serialize};

use crate::error::is_foreign_key_violation;
use crate::{
    Inserted, Result, Store, StoreError, from_i64, from_json, now_rfc3339, to_i64, to_json,
    with_pool,
};

/// A weekly run: the manifest every model is evaluated on and the configuration it ran with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub run_id: String,
    pub manifest: Manifest,
    /// The run's settings (models, limits, …) as the engine chose to record them.
    pub config: serde_json::Value,
    /// RFC 3339; set by the store when the run is first created.
    pub started_at: String,
    /// RFC 3339; `None` until [`Store::finish_run`].
    pub finished_at: Option<String>,
}

impl Run {
    pub fn week(&self) -> &str {
        &self.manifest.week
    }
}

/// The stored result of one unit of work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitResult {
    pub run_id: String,
    pub model: String,
    pub task: String,
    pub task_version: u32,
    pub sample_index: u32,
    pub language: Language,
    pub category: Category,
    pub tier: Tier,
    /// The model's raw answer (`None` when it gave none).
    pub raw_answer: Option<String>,
    /// The code extracted from the answer (`None` when extraction found none).
    pub extracted_code: Option<String>,
    /// The verdict; its `reason` is the unit's reason.
    pub verdict: Verdict,
    pub generation_ms: u64,
    pub execution_ms: u64,
    /// Token usage, cost and the like, as the model adapter reported them.
    pub usage: Option<serde_json::Value>,
    /// RFC 3339; when the unit finished.
    pub completed_at: String,
    /// The quality checks of a passed answer (`None` for other units, and where nothing
    /// applied).
    pub quality: Option<UnitQuality>,
}

impl UnitResult {
    pub fn reason(&self) -> Reason {
        self.verdict.reason
    }

    /// The unit as the scorer consumes it.
    pub fn outcome(&self) -> TaskOutcome {
        TaskOutcome {
            task: self.task.clone(),
            category: self.category,
            tier: self.tier,
            language: self.language,
            sample_index: self.sample_index,
            reason: self.verdict.reason,
            family: String::new(),
        }
    }
}

/// Which table a unit row goes to.
#[derive(Clone, Copy)]
enum UnitTable {
    Results,
    Faults,
}

/// A unit of work already stored for a run (what a resumed run skips).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CompletedUnit {
    pub model: String,
    pub task: String,
    pub sample_index: u32,
    pub reason: Reason,
}

#[derive(sqlx::FromRow)]
struct RunRow {
    run_id: String,
    manifest_json: String,
    config_json: String,
    started_at: String,
    finished_at: Option<String>,
}

#[derive(sqlx::FromRow)]
struct UnitRow {
    run_id: String,
    model: String,
    task: String,
    sample_index: i64,
    task_version: i64,
    language: String,
    category: String,
    tier: i64,
    raw_answer: Option<String>,
    extracted_code: Option<String>,
    verdict_json: String,
    generation_ms: i64,
    execution_ms: i64,
    usage_json: Option<String>,
    completed_at: String,
    quality_json: Option<String>,
}

#[derive(sqlx::FromRow)]
struct OutcomeRow {
    task: String,
    sample_index: i64,
    language: String,
    category: String,
    tier: i64,
    reason: String,
}

/// The run query with a `WHERE` clause appended (a literal, so the SQL stays static text).
macro_rules! select_run {
    ($where:literal) => {
        concat!(
            "SELECT r.run_id, r.manifest_json, r.config_json, r.started_at, f.finished_at \
             FROM runs r LEFT JOIN run_finishes f ON f.run_id = r.run_id ",
            $where
        )
    };
}

impl Store {
    /// Creates the run, or returns the stored one when `run_id` exists with the same manifest
    /// and config (`inserted == false`: the caller is resuming). A different manifest or config
    /// under the same id is an error and changes nothing.
    pub async fn create_run(
        &self,
        run_id: &str,
        manifest: &Manifest,
        config: &serde_json::Value,
    ) -> Result<Inserted<Run>> {
        let action = || format!("create run {run_id} for week {}", manifest.week);
        if !crate::records::is_iso_week(&manifest.week) {
            return Err(StoreError::Invalid {
                what: format!("manifest ({})", action()),
                detail: format!("week {:?} is not an ISO week like 2026-W48", manifest.week),
            });
        }
        let manifest_json = to_json(manifest, &format!("manifest of run {run_id}"))?;
        let config_json = to_json(config, &format!("config of run {run_id}"))?;
        let started_at = now_rfc3339();
        let sql = "INSERT INTO runs (run_id, week, seed, pool_version, manifest_json, \
                   config_json, started_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                   ON CONFLICT (run_id) DO NOTHING";
        let done = with_pool!(self, pool => sqlx::query(sql)
            .bind(run_id)
            .bind(&manifest.week)
            .bind(&manifest.seed)
            .bind(&manifest.pool_version)
            .bind(&manifest_json)
            .bind(&config_json)
            .bind(&started_at)
            .execute(pool)
            .await
            .map(|r| r.rows_affected()))
        .map_err(StoreError::query(action()))?;
        let existing = self.run(run_id).await?.ok_or_else(|| StoreError::Corrupt {
            what: format!("run {run_id}"),
            detail: "missing right after it was inserted".to_string(),
        })?;
        if done == 1 {
            return Ok(Inserted {
                value: existing,
                inserted: true,
            });
        }
        if existing.manifest != *manifest {
            return Err(StoreError::RunConflict {
                run_id: run_id.to_string(),
                field: "manifest",
            });
        }
        if existing.config != *config {
            return Err(StoreError::RunConflict {
                run_id: run_id.to_string(),
                field: "config",
            });
        }
        Ok(Inserted {
            value: existing,
            inserted: false,
        })
    }

    /// The run with this id, if any.
    pub async fn run(&self, run_id: &str) -> Result<Option<Run>> {
        let sql = select_run!("WHERE r.run_id = $1");
        let row: Option<RunRow> = with_pool!(self, pool => sqlx::query_as(sql)
            .bind(run_id)
            .fetch_optional(pool)
            .await)
        .map_err(StoreError::query(format!("read run {run_id}")))?;
        row.map(run_from_row).transpose()
    }

    /// The runs of a week, oldest first (a resumed `passrate run` looks for its unfinished one).
    pub async fn runs_for_week(&self, week: &str) -> Result<Vec<Run>> {
        let sql = select_run!("WHERE r.week = $1");
        let rows: Vec<RunRow> = with_pool!(self, pool => sqlx::query_as(sql)
            .bind(week)
            .fetch_all(pool)
            .await)
        .map_err(StoreError::query(format!("list runs of week {week}")))?;
        let mut runs = rows
            .into_iter()
            .map(run_from_row)
            .collect::<Result<Vec<_>>>()?;
        runs.sort_by(|a, b| (&a.started_at, &a.run_id).cmp(&(&b.started_at, &b.run_id)));
        Ok(runs)
    }

    /// Marks the run finished (once; later calls keep the first time). Returns whether this
    /// call recorded it.
    pub async fn finish_run(&self, run_id: &str) -> Result<bool> {
        let action = format!("mark run {run_id} finished");
        let sql = "INSERT INTO run_finishes (run_id, finished_at) VALUES ($1, $2) \
                   ON CONFLICT (run_id) DO NOTHING";
        let result = with_pool!(self, pool => sqlx::query(sql)
            .bind(run_id)
            .bind(now_rfc3339())
            .execute(pool)
            .await
            .map(|r| r.rows_affected()));
        match result {
            Ok(n) => Ok(n == 1),
            Err(e) if is_foreign_key_violation(&e) => Err(StoreError::UnknownRun {
                action,
                run_id: run_id.to_string(),
            }),
            Err(source) => Err(StoreError::Query { action, source }),
        }
    }

    /// Stores a unit's result unless that unit is already stored; returns whether it was
    /// inserted. The first result for a unit wins, so a resumed or retried unit never counts
    /// twice.
    ///
    /// An infrastructure outcome (`sandbox_error`, `api_error`) is not a result: it goes to the
    /// unit's fault log (`unit_faults`, one row per failed invocation) and the unit stays to be
    /// done, so the same run resumed retries it. Until then the latest fault stands in for the
    /// unit in [`Store::task_outcomes`].
    pub async fn insert_unit_result(&self, unit: &UnitResult) -> Result<bool> {
        if unit.verdict.reason.is_infrastructure() {
            return self.insert_unit_fault(unit).await;
        }
        self.insert_unit_row(unit, UnitTable::Results).await
    }

    /// Logs an infrastructure fault of a unit that has no result; returns whether it was
    /// logged (a unit already decided keeps its result and logs nothing).
    async fn insert_unit_fault(&self, unit: &UnitResult) -> Result<bool> {
        let sql = "SELECT COUNT(*) FROM unit_results WHERE run_id = $1 AND model = $2 \
                   AND task = $3 AND sample_index = $4";
        let decided: i64 = with_pool!(self, pool => sqlx::query_scalar(sql)
            .bind(&unit.run_id)
            .bind(&unit.model)
            .bind(&unit.task)
            .bind(i64::from(unit.sample_index))
            .fetch_one(pool)
            .await)
        .map_err(StoreError::query(format!(
            "check result of run {} model {} task {}",
            unit.run_id, unit.model, unit.task
        )))?;
        if decided > 0 {
            return Ok(false);
        }
        self.insert_unit_row(unit, UnitTable::Faults).await
    }

    async fn insert_unit_row(&self, unit: &UnitResult, table: UnitTable) -> Result<bool> {
        let action = format!(
            "insert result of run {} model {} task {} sample {}",
            unit.run_id, unit.model, unit.task, unit.sample_index
        );
        if unit.verdict.task != unit.task || unit.verdict.language != unit.language {
            return Err(StoreError::Invalid {
                what: format!("unit result ({action})"),
                detail: format!(
                    "its verdict is for task {} in {}",
                    unit.verdict.task, unit.verdict.language
                ),
            });
        }
        let verdict_json = to_json(&unit.verdict, &format!("verdict ({action})"))?;
        let usage_json = unit
            .usage
            .as_ref()
            .map(|u| to_json(u, &format!("usage ({action})")))
            .transpose()?;
        let quality_json = unit
            .quality
            .as_ref()
            .map(|q| to_json(q, &format!("quality ({action})")))
            .transpose()?;
        let sql = match table {
            UnitTable::Results => {
                "INSERT INTO unit_results (run_id, model, task, sample_index, task_version, \
                 language, category, tier, raw_answer, extracted_code, verdict_json, reason, \
                 generation_ms, execution_ms, usage_json, completed_at, quality_json) VALUES \
                 ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) \
                 ON CONFLICT (run_id, model, task, sample_index) DO NOTHING"
            }
            // The attempt number is the unit's next one; a unit is done by one worker at a
            // time, and a concurrent duplicate would conflict on the key and log nothing.
            UnitTable::Faults => {
                "INSERT INTO unit_faults (run_id, model, task, sample_index, task_version, \
                 language, category, tier, raw_answer, extracted_code, verdict_json, reason, \
                 generation_ms, execution_ms, usage_json, completed_at, quality_json, attempt) \
                 SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, \
                 $17, COALESCE(MAX(attempt), 0) + 1 FROM unit_faults WHERE run_id = $1 \
                 AND model = $2 AND task = $3 AND sample_index = $4 ON CONFLICT DO NOTHING"
            }
        };
        let sample_index = i64::from(unit.sample_index);
        let task_version = i64::from(unit.task_version);
        let tier = i64::from(unit.tier.number());
        let generation_ms = to_i64(unit.generation_ms, "generation_ms")?;
        let execution_ms = to_i64(unit.execution_ms, "execution_ms")?;
        let result = with_pool!(self, pool => sqlx::query(sql)
            .bind(&unit.run_id)
            .bind(&unit.model)
            .bind(&unit.task)
            .bind(sample_index)
            .bind(task_version)
            .bind(unit.language.as_str())
            .bind(unit.category.as_str())
            .bind(tier)
            .bind(unit.raw_answer.as_deref())
            .bind(unit.extracted_code.as_deref())
            .bind(&verdict_json)
            .bind(unit.verdict.reason.as_str())
            .bind(generation_ms)
            .bind(execution_ms)
            .bind(usage_json.as_deref())
            .bind(&unit.completed_at)
            .bind(quality_json.as_deref())
            .execute(pool)
            .await
            .map(|r| r.rows_affected()));
        match result {
            Ok(n) => Ok(n == 1),
            Err(e) if is_foreign_key_violation(&e) => Err(StoreError::UnknownRun {
                action,
                run_id: unit.run_id.clone(),
            }),
            Err(source) => Err(StoreError::Query { action, source }),
        }
    }

    /// The units of a run already stored, sorted (model, task, sample_index).
    pub async fn completed_units(&self, run_id: &str) -> Result<Vec<CompletedUnit>> {
        let sql = "SELECT model, task, sample_index, reason FROM unit_results WHERE run_id = $1";
        let rows: Vec<(String, String, i64, String)> = with_pool!(self, pool =>
            sqlx::query_as(sql).bind(run_id).fetch_all(pool).await)
        .map_err(StoreError::query(format!(
            "list completed units of run {run_id}"
        )))?;
        let mut units = rows
            .into_iter()
            .map(|(model, task, sample_index, reason)| {
                Ok(CompletedUnit {
                    sample_index: from_i64(sample_index, "sample_index")?,
                    reason: parse_text(&reason, "reason")?,
                    model,
                    task,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        units.sort();
        Ok(units)
    }

    /// Every stored result of a model in a run, sorted (task, sample_index).
    pub async fn unit_results(&self, run_id: &str, model: &str) -> Result<Vec<UnitResult>> {
        let sql = "SELECT run_id, model, task, sample_index, task_version, language, category, \
                   tier, raw_answer, extracted_code, verdict_json, generation_ms, execution_ms, \
                   usage_json, completed_at, quality_json FROM unit_results WHERE run_id = $1 AND model = $2";
        let rows: Vec<UnitRow> = with_pool!(self, pool =>
            sqlx::query_as(sql).bind(run_id).bind(model).fetch_all(pool).await)
        .map_err(StoreError::query(format!(
            "read results of run {run_id} model {model}"
        )))?;
        let mut units = rows
            .into_iter()
            .map(unit_from_row)
            .collect::<Result<Vec<_>>>()?;
        units.sort_by(|a, b| (&a.task, a.sample_index).cmp(&(&b.task, b.sample_index)));
        Ok(units)
    }

    /// The infrastructure faults logged for a model's units in a run, oldest first per unit,
    /// sorted (task, sample_index); each row's `verdict` carries the fault's reason and detail.
    pub async fn unit_faults(&self, run_id: &str, model: &str) -> Result<Vec<UnitResult>> {
        let sql = "SELECT run_id, model, task, sample_index, task_version, language, category, \
                   tier, raw_answer, extracted_code, verdict_json, generation_ms, execution_ms, \
                   usage_json, completed_at, quality_json FROM unit_faults WHERE run_id = $1 AND model = $2 \
                   ORDER BY task, sample_index, attempt";
        let rows: Vec<UnitRow> = with_pool!(self, pool =>
            sqlx::query_as(sql).bind(run_id).bind(model).fetch_all(pool).await)
        .map_err(StoreError::query(format!(
            "read faults of run {run_id} model {model}"
        )))?;
        rows.into_iter().map(unit_from_row).collect()
    }

    /// The per-task outcomes of a model in a run, sorted (task, sample_index): what the scorer,
    /// the paired bootstrap and the drift test consume.
    pub async fn task_outcomes(&self, run_id: &str, model: &str) -> Result<Vec<TaskOutcome>> {
        // Each unit's result, or, for a unit without one, its latest fault.
        let sql = "SELECT task, sample_index, language, category, tier, reason FROM unit_results \
                   WHERE run_id = $1 AND model = $2 \
                   UNION ALL \
                   SELECT f.task, f.sample_index, f.language, f.category, f.tier, f.reason \
                   FROM unit_faults f WHERE f.run_id = $1 AND f.model = $2 \
                   AND f.attempt = (SELECT MAX(g.attempt) FROM unit_faults g \
                     WHERE g.run_id = f.run_id AND g.model = f.model AND g.task = f.task \
                     AND g.sample_index = f.sample_index) \
                   AND NOT EXISTS (SELECT 1 FROM unit_results r WHERE r.run_id = f.run_id \
                     AND r.model = f.model AND r.task = f.task \
                     AND r.sample_index = f.sample_index)";
        let rows: Vec<OutcomeRow> = with_pool!(self, pool =>
            sqlx::query_as(sql).bind(run_id).bind(model).fetch_all(pool).await)
        .map_err(StoreError::query(format!(
            "read outcomes of run {run_id} model {model}"
        )))?;
        let mut outcomes = rows
            .into_iter()
            .map(|row| {
                Ok(TaskOutcome {
                    sample_index: from_i64(row.sample_index, "sample_index")?,
                    language: parse_text(&row.language, "language")?,
                    category: parse_text(&row.category, "category")?,
                    tier: parse_tier(row.tier)?,
                    reason: parse_text(&row.reason, "reason")?,
                    task: row.task,
                    family: String::new(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        // Families come from the run's manifest (the unit rows predate them).
        if let Some(run) = self.run(run_id).await? {
            let families: std::collections::HashMap<&str, &str> = run
                .manifest
                .items
                .iter()
                .map(|item| (item.task.as_str(), item.family.as_str()))
                .collect();
            for outcome in &mut outcomes {
                if let Some(family) = families.get(outcome.task.as_str()) {
                    outcome.family = (*family).to_string();
                }
            }
        }
        outcomes.sort_by(|a, b| (&a.task, a.sample_index).cmp(&(&b.task, b.sample_index)));
        Ok(outcomes)
    }
}

fn run_from_row(row: RunRow) -> Result<Run> {
    let what = |part: &str| format!("{part} of run {}", row.run_id);
    Ok(Run {
        manifest: from_json(&row.manifest_json, &what("manifest"))?,
        config: from_json(&row.config_json, &what("config"))?,
        started_at: row.started_at,
        finished_at: row.finished_at,
        run_id: row.run_id,
    })
}

fn unit_from_row(row: UnitRow) -> Result<UnitResult> {
    let what = |part: &str| {
        format!(
            "{part} of run {} model {} task {} sample {}",
            row.run_id, row.model, row.task, row.sample_index
        )
    };
    Ok(UnitResult {
        task_version: from_i64(row.task_version, &what("task_version"))?,
        sample_index: from_i64(row.sample_index, &what("sample_index"))?,
        language: parse_text(&row.language, &what("language"))?,
        category: parse_text(&row.category, &what("category"))?,
        tier: parse_tier(row.tier)?,
        verdict: from_json(&row.verdict_json, &what("verdict"))?,
        generation_ms: from_i64(row.generation_ms, &what("generation_ms"))?,
        execution_ms: from_i64(row.execution_ms, &what("execution_ms"))?,
        usage: row
            .usage_json
            .as_deref()
            .map(|u| from_json(u, &what("usage")))
            .transpose()?,
        quality: row
            .quality_json
            .as_deref()
            .map(|q| from_json(q, &what("quality")))
            .transpose()?,
        run_id: row.run_id,
        model: row.model,
        task: row.task,
        raw_answer: row.raw_answer,
        extracted_code: row.extracted_code,
        completed_at: row.completed_at,
    })
}

/// Parses a stored snake_case code (reason, language, category) through its serde name.
fn parse_text<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T> {
    serde_json::from_value(serde_json::Value::String(text.to_string())).map_err(|source| {
        StoreError::Decode {
            what: format!("{what} {text:?}"),
            source,
        }
    })
}

fn parse_tier(number: i64) -> Result<Tier> {
    serde_json::from_value(serde_json::Value::from(number)).map_err(|source| StoreError::Decode {
        what: format!("tier {number}"),
        source,
    })
}
