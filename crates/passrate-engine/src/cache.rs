//! The models' answer cache kept in the store, scoped to one run: a resumed run never asks
//! (or pays) twice for an answer it already has, and a new run — next week's, or this week's
//! with other settings — asks every API and command model afresh (ARCHITECTURE.md principle 10:
//! the point of a weekly re-run is to see a provider's silent update). A run may name
//! another run whose answers it reuses (`--reuse-answers-from`); that choice is part of the
//! run's configuration, so it is recorded and changes the run id.

use passrate_models::{Answer, AnswerCache, BoxFuture, CacheError, CacheKey};
use passrate_store::Store;

/// [`AnswerCache`] over the store's generic response cache (key → JSON of the [`Answer`]),
/// with every key prefixed by the run it belongs to.
#[derive(Clone, Debug)]
pub struct StoreCache {
    store: Store,
    run_id: String,
    reuse_from: Option<String>,
}

impl StoreCache {
    /// The cache of run `run_id`, reading (never writing) the answers of `reuse_from` too.
    pub fn new(store: Store, run_id: impl Into<String>, reuse_from: Option<String>) -> StoreCache {
        StoreCache {
            store,
            run_id: run_id.into(),
            reuse_from,
        }
    }

    fn scoped(run_id: &str, key: &CacheKey) -> String {
        format!("run/{run_id}/{}", key.as_str())
    }

    async fn read(&self, run_id: &str, key: &CacheKey) -> Result<Option<Answer>, CacheError> {
        let Some(json) = self
            .store
            .cache_get(&Self::scoped(run_id, key))
            .await
            .map_err(|e| failed("read", e))?
        else {
            return Ok(None);
        };
        serde_json::from_value(json)
            .map(Some)
            .map_err(|e| failed("read", e))
    }
}

fn failed(action: &'static str, e: impl std::error::Error + Send + Sync + 'static) -> CacheError {
    CacheError {
        action,
        source: Box::new(e),
    }
}

impl AnswerCache for StoreCache {
    fn get<'a>(&'a self, key: &'a CacheKey) -> BoxFuture<'a, Result<Option<Answer>, CacheError>> {
        Box::pin(async move {
            if let Some(answer) = self.read(&self.run_id, key).await? {
                return Ok(Some(answer));
            }
            match &self.reuse_from {
                Some(other) => self.read(other, key).await,
                None => Ok(None),
            }
        })
    }

    /// The trait's contract is "replace" (a `--refresh` run overwrites the stale answer).
    fn put<'a>(
        &'a self,
        key: &'a CacheKey,
        answer: &'a Answer,
    ) -> BoxFuture<'a, Result<(), CacheError>> {
        Box::pin(async move {
            let json = serde_json::to_value(answer).map_err(|e| failed("write", e))?;
            self.store
                .cache_replace(&Self::scoped(&self.run_id, key), &json)
                .await
                .map_err(|e| failed("write", e))
        })
    }
}
