//! Model adapters for passrate: how the weekly run asks a model for an answer.
//!
//! A `models.toml` ([`config`]) lists the models. Each becomes a [`Model`]: an [`Adapter`]
//! (OpenAI-compatible HTTP, an external command, or a replay file) wrapped in the
//! per-model politeness and reliability rules: a concurrency limit, a requests-per-minute
//! token bucket, a per-request timeout and retries with exponential backoff and jitter. An
//! [`AnswerCache`] keyed by [`CacheKey`] makes re-runs free. Failures that are the
//! infrastructure's (network, provider, command crash) end as [`ModelError::Api`], which the
//! pipeline records as `api_error`, never as the model's failure; a replay with no answer is
//! an explicit [`Outcome::NoAnswer`].

pub mod adapter;
pub mod answer;
pub mod breaker;
pub mod cache;
pub mod config;
pub mod error;
pub mod limit;
pub mod model;
pub mod prompt;
pub mod retry;

pub use adapter::{Adapter, AdapterRequest, BoxFuture, Completion, PreflightFailure};
pub use answer::{ANSWER_FORMAT_VERSION, Answer, Origin, Outcome, RunTotals, Usage};
pub use breaker::{CircuitState, CircuitStats};
pub use cache::{AnswerCache, CacheError, CacheKey, MemoryCache, NoCache};
pub use config::process_env;
pub use config::{
    AdapterConfig, AdapterKind, GenerationParams, Limits, ModelConfig, ModelsConfig, Prices,
};
pub use error::{AttemptError, ConfigError, Location, ModelError};
pub use model::{AttemptFailure, AttemptObserver, CacheMode, Fetched, Model, Preflight};
pub use prompt::{Prompt, PromptError, PromptTemplates, Template};
