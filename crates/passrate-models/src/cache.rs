//! The response cache: a key per unit and prompt, and the storage trait the store implements.
//!
//! The store persists answers in a generic table (key string → JSON of [`Answer`]); this
//! crate only defines the key and the trait, plus an in-memory cache for tests and
//! single-process use.

use std::collections::HashMap;
use std::sync::Mutex;

use passrate_schema::Language;
use serde::Serialize;

use crate::adapter::BoxFuture;
use crate::answer::Answer;
use crate::config::GenerationParams;

/// blake3 (hex) over everything that determines an answer: model identifier, task id and
/// version, language, prompt hash, generation parameters, sample index, and the adapter's
/// fingerprint (the provider's model name, or the command line).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheKey(String);

/// The inputs of a [`CacheKey`], serialised to JSON (fixed field order) before hashing.
#[derive(Serialize)]
struct KeyMaterial<'a> {
    v: u32,
    model: &'a str,
    task: &'a str,
    task_version: u32,
    language: Language,
    prompt_hash: &'a str,
    generation: &'a GenerationParams,
    sample_index: u32,
    fingerprint: &'a str,
}

impl CacheKey {
    #[allow(clippy::too_many_arguments)]
    pub fn compute(
        model: &str,
        task: &str,
        task_version: u32,
        language: Language,
        prompt_hash: &str,
        generation: &GenerationParams,
        sample_index: u32,
        fingerprint: &str,
    ) -> CacheKey {
        let material = KeyMaterial {
            v: 1,
            model,
            task,
            task_version,
            language,
            prompt_hash,
            generation,
            sample_index,
            fingerprint,
        };
        let bytes = serde_json::to_vec(&material).expect("key material serialises");
        CacheKey(blake3::hash(&bytes).to_hex().to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Wraps a key read back from storage.
    pub fn from_hex(hex: impl Into<String>) -> CacheKey {
        CacheKey(hex.into())
    }
}

impl std::fmt::Display for CacheKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A cache backend failed (the store's error, boxed).
#[derive(Debug, thiserror::Error)]
#[error("failed to {action} the answer cache")]
pub struct CacheError {
    /// `read` or `write`.
    pub action: &'static str,
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

/// Where answers are kept between runs.
pub trait AnswerCache: Send + Sync {
    fn get<'a>(&'a self, key: &'a CacheKey) -> BoxFuture<'a, Result<Option<Answer>, CacheError>>;
    /// Stores `answer` under `key`, replacing any previous one (`refresh`).
    fn put<'a>(
        &'a self,
        key: &'a CacheKey,
        answer: &'a Answer,
    ) -> BoxFuture<'a, Result<(), CacheError>>;
}

/// An in-memory cache.
#[derive(Debug, Default)]
pub struct MemoryCache {
    answers: Mutex<HashMap<CacheKey, Answer>>,
}

impl MemoryCache {
    pub fn new() -> MemoryCache {
        MemoryCache::default()
    }

    pub fn len(&self) -> usize {
        self.answers.lock().expect("cache lock").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl AnswerCache for MemoryCache {
    fn get<'a>(&'a self, key: &'a CacheKey) -> BoxFuture<'a, Result<Option<Answer>, CacheError>> {
        let found = self.answers.lock().expect("cache lock").get(key).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn put<'a>(
        &'a self,
        key: &'a CacheKey,
        answer: &'a Answer,
    ) -> BoxFuture<'a, Result<(), CacheError>> {
        self.answers
            .lock()
            .expect("cache lock")
            .insert(key.clone(), answer.clone());
        Box::pin(async { Ok(()) })
    }
}

/// A cache that keeps nothing (every request is sent).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoCache;

impl AnswerCache for NoCache {
    fn get<'a>(&'a self, _key: &'a CacheKey) -> BoxFuture<'a, Result<Option<Answer>, CacheError>> {
        Box::pin(async { Ok(None) })
    }

    fn put<'a>(
        &'a self,
        _key: &'a CacheKey,
        _answer: &'a Answer,
    ) -> BoxFuture<'a, Result<(), CacheError>> {
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(model: &str, version: u32, params: &GenerationParams, sample: u32) -> CacheKey {
        CacheKey::compute(
            model,
            "humaneval/1",
            version,
            Language::Python,
            "abc",
            params,
            sample,
            "gpt-x",
        )
    }

    #[test]
    fn every_input_changes_the_key() {
        let params = GenerationParams::default();
        let base = key("m", 1, &params, 0);
        assert_eq!(base, key("m", 1, &params, 0));
        assert_eq!(base.as_str().len(), 64);
        assert_ne!(base, key("n", 1, &params, 0));
        assert_ne!(base, key("m", 2, &params, 0));
        assert_ne!(base, key("m", 1, &params, 1));
        let hotter = GenerationParams {
            temperature: 0.8,
            ..GenerationParams::default()
        };
        assert_ne!(base, key("m", 1, &hotter, 0));
        let other_prompt = CacheKey::compute(
            "m",
            "humaneval/1",
            1,
            Language::Python,
            "abd",
            &params,
            0,
            "gpt-x",
        );
        assert_ne!(base, other_prompt);
        let other_language = CacheKey::compute(
            "m",
            "humaneval/1",
            1,
            Language::Java,
            "abc",
            &params,
            0,
            "gpt-x",
        );
        assert_ne!(base, other_language);
    }
}
