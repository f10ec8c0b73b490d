//! The model adapters' response cache: answers keyed by a hash the models crate computes
//! (model, task and version, prompt, generation parameters, sample index). The store only
//! sees the key string and the answer JSON, so it does not depend on the models crate.

use crate::{Result, Store, StoreError, from_json, now_rfc3339, to_json, with_pool};

impl Store {
    /// The cached answer for `key`, if any.
    pub async fn cache_get(&self, key: &str) -> Result<Option<serde_json::Value>> {
        let sql = "SELECT value_json FROM response_cache WHERE cache_key = $1";
        let text: Option<String> = with_pool!(self, pool =>
            sqlx::query_scalar(sql).bind(key).fetch_optional(pool).await)
        .map_err(StoreError::query(format!("read cached response {key}")))?;
        text.map(|t| from_json(&t, &format!("cached response {key}")))
            .transpose()
    }

    /// Caches `value` under `key` unless an answer is already cached there (the first answer
    /// wins, so concurrent or repeated puts are harmless). Returns whether it was stored.
    pub async fn cache_put(&self, key: &str, value: &serde_json::Value) -> Result<bool> {
        let json = to_json(value, &format!("cached response {key}"))?;
        let sql = "INSERT INTO response_cache (cache_key, value_json, stored_at) \
                   VALUES ($1, $2, $3) ON CONFLICT (cache_key) DO NOTHING";
        let inserted = with_pool!(self, pool => sqlx::query(sql)
            .bind(key)
            .bind(&json)
            .bind(now_rfc3339())
            .execute(pool)
            .await
            .map(|r| r.rows_affected()))
        .map_err(StoreError::query(format!("cache response {key}")))?;
        Ok(inserted == 1)
    }

    /// Caches `value` under `key`, replacing any cached answer (`--refresh`).
    pub async fn cache_replace(&self, key: &str, value: &serde_json::Value) -> Result<()> {
        let json = to_json(value, &format!("cached response {key}"))?;
        let sql = "INSERT INTO response_cache (cache_key, value_json, stored_at) \
                   VALUES ($1, $2, $3) ON CONFLICT (cache_key) DO UPDATE \
                   SET value_json = excluded.value_json, stored_at = excluded.stored_at";
        with_pool!(self, pool => sqlx::query(sql)
            .bind(key)
            .bind(&json)
            .bind(now_rfc3339())
            .execute(pool)
            .await
            .map(|_| ()))
        .map_err(StoreError::query(format!("replace cached response {key}")))?;
        Ok(())
    }
}
