//! The models' answer cache kept in the store, so a re-run or a resumed run never asks (or
//! pays) twice for an answer it already has.

use passrate_models::{Answer, AnswerCache, BoxFuture, CacheError, CacheKey};
use passrate_store::Store;

/// [`AnswerCache`] over the store's generic response cache (key → JSON of the [`Answer`]).
#[derive(Clone, Debug)]
pub struct StoreCache {
    store: Store,
}

impl StoreCache {
    pub fn new(store: Store) -> StoreCache {
        StoreCache { store }
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
            let Some(json) = self
                .store
                .cache_get(key.as_str())
                .await
                .map_err(|e| failed("read", e))?
            else {
                return Ok(None);
            };
            serde_json::from_value(json)
                .map(Some)
                .map_err(|e| failed("read", e))
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
                .cache_replace(key.as_str(), &json)
                .await
                .map_err(|e| failed("write", e))
        })
    }
}
