//! Append-only score records: a model's score for a week, and every later correction as a
//! new record with the next `record_version`. Nothing here updates or deletes a row.

use std::time::Duration;

use passrate_schema::{RECORD_FORMAT_VERSION, ScoreRecord, TaskOutcome};
use serde::{Deserialize, Serialize};

use crate::error::is_unique_violation;
use crate::{
    Inserted, Result, Store, StoreError, from_i64, from_json, now_rfc3339, to_i64, to_json,
    with_pool,
};

/// How often an append retries when concurrent writers take the version it computed; each
/// round lets at least one writer through, so this bounds the number of concurrent writers
/// of one (model, week) that are guaranteed to succeed.
const APPEND_ATTEMPTS: u32 = 200;

/// A score record as stored, with the time it was appended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredRecord {
    pub record: ScoreRecord,
    /// RFC 3339; when this version was appended (`record.evaluated_at` is when the
    /// evaluation ran).
    pub recorded_at: String,
}

#[derive(sqlx::FromRow)]
struct RecordRow {
    model: String,
    week: String,
    record_version: i64,
    format_version: i64,
    record_json: String,
    recorded_at: String,
}

/// The record query with a `WHERE` clause appended (a literal, so the SQL stays static text).
macro_rules! select_record {
    ($where:literal) => {
        concat!(
            "SELECT model, week, record_version, format_version, record_json, recorded_at \
             FROM score_records ",
            $where
        )
    };
}

impl Store {
    /// Appends `record` as the next version for its (model, week): version 1 for the first,
    /// then 2, 3, … for corrections. The `record_version` of the argument is ignored; the
    /// stored record (with its assigned version) is returned. Concurrent appends for the same
    /// (model, week) each get their own version.
    pub async fn append_score_record(&self, record: &ScoreRecord) -> Result<StoredRecord> {
        Ok(self.append(record, None).await?.value)
    }

    /// Appends the score of `record.run_id` for `record.model` unless the latest record that
    /// run holds for that model has the same result (overall estimate and outcome counts), in
    /// which case that record is returned with `inserted == false`: a resumed run that
    /// changed nothing never appends. A different result (units that had faulted, re-run and
    /// now judged) is appended as a correction, the next version, so the board shows it.
    pub async fn append_score_record_for_run(
        &self,
        record: &ScoreRecord,
    ) -> Result<Inserted<StoredRecord>> {
        let latest = self
            .latest_record_of_run(&record.run_id, &record.model)
            .await?;
        if let Some(latest) = latest.as_ref()
            && latest.record.overall == record.overall
            && latest.record.reasons == record.reasons
        {
            return Ok(Inserted {
                value: latest.clone(),
                inserted: false,
            });
        }
        // The first record of a run keeps the key it always had; a correction is keyed by
        // its result, so concurrent writers of the same correction append it once.
        let key = match latest {
            None => to_json(&[&record.run_id, &record.model], "idempotency key")?,
            Some(_) => {
                let result = to_json(&(&record.overall, &record.reasons), "the record's result")?;
                let digest = blake3::hash(result.as_bytes()).to_hex().to_string();
                to_json(&[&record.run_id, &record.model, &digest], "idempotency key")?
            }
        };
        self.append(record, Some(key)).await
    }

    /// The latest version among the records `run_id` appended for `model`.
    async fn latest_record_of_run(
        &self,
        run_id: &str,
        model: &str,
    ) -> Result<Option<StoredRecord>> {
        let sql = select_record!("WHERE run_id = $1 AND model = $2");
        let rows: Vec<RecordRow> = with_pool!(self, pool =>
            sqlx::query_as(sql).bind(run_id).bind(model).fetch_all(pool).await)
        .map_err(StoreError::query(format!(
            "read the records of run {run_id} for model {model}"
        )))?;
        let mut latest: Option<StoredRecord> = None;
        for row in rows {
            let stored = record_from_row(row)?;
            if latest
                .as_ref()
                .is_none_or(|l| stored.record.record_version > l.record.record_version)
            {
                latest = Some(stored);
            }
        }
        Ok(latest)
    }

    async fn append(
        &self,
        record: &ScoreRecord,
        idempotency_key: Option<String>,
    ) -> Result<Inserted<StoredRecord>> {
        self.try_append(record, idempotency_key)
            .await
            .map_err(|source| StoreError::AppendRecord {
                model: record.model.clone(),
                week: record.week.clone(),
                source: Box::new(source),
            })
    }

    async fn try_append(
        &self,
        record: &ScoreRecord,
        idempotency_key: Option<String>,
    ) -> Result<Inserted<StoredRecord>> {
        validate(record)?;
        let sql = "INSERT INTO score_records (model, week, record_version, format_version, \
                   evaluated_at, run_id, seed, pool_version, passes, total, score, ci_low, \
                   ci_high, compliance_rate, coverage, by_category_json, by_tier_json, \
                   provenance_json, passrate_version, idempotency_key, record_json, recorded_at) \
                   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, \
                   $16, $17, $18, $19, $20, $21, $22)";
        let by_category = to_json(&record.by_category, "subscores by category")?;
        let by_tier = to_json(&record.by_tier, "subscores by tier")?;
        let provenance = to_json(&record.provenance, "provenance")?;
        // The version is computed from what is stored, then claimed by the insert; the
        // UNIQUE (model, week, record_version) key arbitrates between concurrent writers on
        // both backends, and the loser recomputes. A single statement needs no explicit
        // transaction (SQLite's deferred read-then-write transactions fail on contention).
        for attempt in 0..APPEND_ATTEMPTS {
            if let Some(key) = &idempotency_key
                && let Some(existing) = self.record_by_idempotency_key(key).await?
            {
                return Ok(Inserted {
                    value: existing,
                    inserted: false,
                });
            }
            let next = self.max_record_version(&record.model, &record.week).await? + 1;
            let mut stored = record.clone();
            stored.record_version = from_i64(next, "next record_version")?;
            let json = to_json(&stored, "score record")?;
            let recorded_at = now_rfc3339();
            let result = with_pool!(self, pool => sqlx::query(sql)
                .bind(&stored.model)
                .bind(&stored.week)
                .bind(next)
                .bind(i64::from(stored.format_version))
                .bind(&stored.evaluated_at)
                .bind(&stored.run_id)
                .bind(&stored.seed)
                .bind(&stored.pool_version)
                .bind(i64::from(stored.overall.passes))
                .bind(i64::from(stored.overall.total))
                .bind(stored.overall.score)
                .bind(stored.overall.ci_low)
                .bind(stored.overall.ci_high)
                .bind(stored.compliance_rate)
                .bind(stored.coverage)
                .bind(&by_category)
                .bind(&by_tier)
                .bind(&provenance)
                .bind(&stored.provenance.passrate_version)
                .bind(idempotency_key.as_deref())
                .bind(&json)
                .bind(&recorded_at)
                .execute(pool)
                .await
                .map(|_| ()));
            match result {
                Ok(_) => {
                    return Ok(Inserted {
                        value: StoredRecord {
                            record: stored,
                            recorded_at,
                        },
                        inserted: true,
                    });
                }
                Err(e) if is_unique_violation(&e) => {
                    // Someone took this version (or this run's key): back off a little,
                    // spread out so the same writers do not collide again.
                    let micros = 200 * u64::from(attempt % 10 + 1);
                    tokio::time::sleep(Duration::from_micros(micros)).await;
                }
                Err(source) => {
                    return Err(StoreError::Query {
                        action: "insert the row".to_string(),
                        source,
                    });
                }
            }
        }
        Err(StoreError::VersionContention {
            attempts: APPEND_ATTEMPTS,
        })
    }

    async fn max_record_version(&self, model: &str, week: &str) -> Result<i64> {
        let sql = "SELECT COALESCE(MAX(record_version), 0) FROM score_records \
                   WHERE model = $1 AND week = $2";
        with_pool!(self, pool => sqlx::query_scalar(sql)
            .bind(model)
            .bind(week)
            .fetch_one(pool)
            .await)
        .map_err(StoreError::query(format!(
            "read the latest record_version for model {model} week {week}"
        )))
    }

    async fn record_by_idempotency_key(&self, key: &str) -> Result<Option<StoredRecord>> {
        let sql = select_record!("WHERE idempotency_key = $1");
        let row: Option<RecordRow> = with_pool!(self, pool =>
            sqlx::query_as(sql).bind(key).fetch_optional(pool).await)
        .map_err(StoreError::query(format!("read the score record of {key}")))?;
        row.map(record_from_row).transpose()
    }

    /// One record: the given version, or the latest when `version` is `None`.
    pub async fn score_record(
        &self,
        model: &str,
        week: &str,
        version: Option<u32>,
    ) -> Result<Option<StoredRecord>> {
        let version = match version {
            Some(v) => i64::from(v),
            None => self.max_record_version(model, week).await?,
        };
        let sql = select_record!("WHERE model = $1 AND week = $2 AND record_version = $3");
        let row: Option<RecordRow> = with_pool!(self, pool => sqlx::query_as(sql)
            .bind(model)
            .bind(week)
            .bind(version)
            .fetch_optional(pool)
            .await)
        .map_err(StoreError::query(format!(
            "read score record for model {model} week {week} version {version}"
        )))?;
        row.map(record_from_row).transpose()
    }

    /// The leaderboard of a week: the latest version of each model's record, best score
    /// first (ties by model id).
    pub async fn leaderboard(&self, week: &str) -> Result<Vec<StoredRecord>> {
        let sql = select_record!(
            "AS r WHERE week = $1 AND record_version = (SELECT MAX(l.record_version) \
             FROM score_records l WHERE l.model = r.model AND l.week = r.week)"
        );
        let rows: Vec<RecordRow> = with_pool!(self, pool =>
            sqlx::query_as(sql).bind(week).fetch_all(pool).await)
        .map_err(StoreError::query(format!(
            "read the leaderboard of week {week}"
        )))?;
        let mut records = rows
            .into_iter()
            .map(record_from_row)
            .collect::<Result<Vec<_>>>()?;
        records.sort_by(|a, b| {
            b.record
                .overall
                .score
                .total_cmp(&a.record.overall.score)
                .then_with(|| a.record.model.cmp(&b.record.model))
        });
        Ok(records)
    }

    /// Every record of a model, every version: oldest week first, versions in order.
    pub async fn model_history(&self, model: &str) -> Result<Vec<StoredRecord>> {
        let sql = select_record!("WHERE model = $1");
        let rows: Vec<RecordRow> = with_pool!(self, pool =>
            sqlx::query_as(sql).bind(model).fetch_all(pool).await)
        .map_err(StoreError::query(format!(
            "read the history of model {model}"
        )))?;
        let mut records = rows
            .into_iter()
            .map(record_from_row)
            .collect::<Result<Vec<_>>>()?;
        records.sort_by(|a, b| {
            (&a.record.week, a.record.record_version)
                .cmp(&(&b.record.week, b.record.record_version))
        });
        Ok(records)
    }

    /// The weeks that have at least one record, oldest first.
    pub async fn weeks(&self) -> Result<Vec<String>> {
        let sql = "SELECT DISTINCT week FROM score_records";
        let mut weeks: Vec<String> = with_pool!(self, pool =>
            sqlx::query_scalar(sql).fetch_all(pool).await)
        .map_err(StoreError::query("list the weeks with records"))?;
        // Sorted here rather than in SQL: PostgreSQL's collation depends on the cluster.
        weeks.sort();
        Ok(weeks)
    }

    /// The model ids that have a record in `week`, sorted.
    pub async fn models_in_week(&self, week: &str) -> Result<Vec<String>> {
        let sql = "SELECT DISTINCT model FROM score_records WHERE week = $1";
        let mut models: Vec<String> = with_pool!(self, pool =>
            sqlx::query_scalar(sql).bind(week).fetch_all(pool).await)
        .map_err(StoreError::query(format!("list the models of week {week}")))?;
        models.sort();
        Ok(models)
    }

    /// The latest record of `model` for the most recent week before `week`, if any.
    pub async fn previous_record(&self, model: &str, week: &str) -> Result<Option<StoredRecord>> {
        let history = self.model_history(model).await?;
        Ok(history
            .into_iter()
            .rev()
            .find(|r| r.record.week.as_str() < week))
    }

    /// For the drift test: the previous week's latest record of `model` and the per-task
    /// outcomes of the run that produced it.
    pub async fn previous_week_outcomes(
        &self,
        model: &str,
        week: &str,
    ) -> Result<Option<(StoredRecord, Vec<TaskOutcome>)>> {
        let Some(previous) = self.previous_record(model, week).await? else {
            return Ok(None);
        };
        let outcomes = self.task_outcomes(&previous.record.run_id, model).await?;
        Ok(Some((previous, outcomes)))
    }
}

/// Refuses what could not be read back exactly: append-only means a bad row stays forever.
fn validate(record: &ScoreRecord) -> Result<()> {
    let invalid = |detail: String| StoreError::Invalid {
        what: "score record".to_string(),
        detail,
    };
    if record.format_version != RECORD_FORMAT_VERSION {
        return Err(invalid(format!(
            "format_version is {}, this passrate writes {RECORD_FORMAT_VERSION}",
            record.format_version
        )));
    }
    if record.model.trim().is_empty() {
        return Err(invalid("the model id is empty".to_string()));
    }
    if !is_iso_week(&record.week) {
        return Err(invalid(format!(
            "week {:?} is not an ISO week like 2026-W48",
            record.week
        )));
    }
    if record.run_id.is_empty() {
        return Err(invalid("the run id is empty".to_string()));
    }
    to_i64(u64::from(record.overall.total), "total")?;
    // NaN and infinities serialise as null and would make the row unreadable.
    let json = to_json(record, "score record")?;
    match serde_json::from_str::<ScoreRecord>(&json) {
        Ok(back) if back == *record => Ok(()),
        _ => Err(invalid(
            "it does not survive a JSON round trip (a NaN or infinite number?)".to_string(),
        )),
    }
}

/// `YYYY-Www` with week 01–53: the format whose text order is chronological order.
pub(crate) fn is_iso_week(week: &str) -> bool {
    let bytes = week.as_bytes();
    bytes.len() == 8
        && bytes[..4].iter().all(u8::is_ascii_digit)
        && &bytes[4..6] == b"-W"
        && bytes[6..].iter().all(u8::is_ascii_digit)
        && matches!(week[6..].parse::<u8>(), Ok(1..=53))
}

fn record_from_row(row: RecordRow) -> Result<StoredRecord> {
    let what = format!(
        "score record for model {} week {} version {}",
        row.model, row.week, row.record_version
    );
    let format_version: u32 = from_i64(row.format_version, &what)?;
    if format_version > RECORD_FORMAT_VERSION {
        return Err(StoreError::NewerFormat {
            what,
            found: format_version,
            supported: RECORD_FORMAT_VERSION,
        });
    }
    // One arm per format this passrate reads; an older format is upgraded here when the
    // current one moves on.
    let record: ScoreRecord = match format_version {
        // Version 2 added optional fields (the score on answered tasks, families, drift,
        // rotation) and version 3 the quality scores; older records read them as absent.
        1..=3 => from_json(&row.record_json, &what)?,
        other => {
            return Err(StoreError::Corrupt {
                what,
                detail: format!("format_version {other} was never written by passrate"),
            });
        }
    };
    if record.model != row.model
        || record.week != row.week
        || i64::from(record.record_version) != row.record_version
        || record.format_version != format_version
    {
        return Err(StoreError::Corrupt {
            what,
            detail: "the stored JSON disagrees with its key columns".to_string(),
        });
    }
    Ok(StoredRecord {
        record,
        recorded_at: row.recorded_at,
    })
}

#[cfg(test)]
mod tests {
    use super::is_iso_week;

    #[test]
    fn iso_weeks_are_checked() {
        assert!(is_iso_week("2026-W48"));
        assert!(is_iso_week("2026-W01"));
        assert!(is_iso_week("2020-W53"));
        assert!(!is_iso_week("2026-W00"));
        assert!(!is_iso_week("2026-W54"));
        assert!(!is_iso_week("2026-W4"));
        assert!(!is_iso_week("2026W48"));
        assert!(!is_iso_week("26-W48xx"));
        assert!(!is_iso_week(""));
    }
}
