//! The adapter trait: one attempt at getting one answer, with no retries or limits (those
//! are [`crate::Model`]'s job), and the three implementations.

pub mod command;
pub mod openai;
pub mod replay;

use std::future::Future;
use std::pin::Pin;

use passrate_schema::{Category, Language};
use serde::{Deserialize, Serialize};

use crate::answer::{Outcome, Usage};
use crate::config::{AdapterConfig, GenerationParams, ModelConfig};
use crate::error::{AttemptError, ConfigError};
use crate::prompt::Prompt;

/// A boxed future, so adapters and caches can be trait objects.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Everything an adapter may need for one unit. This is also the JSON the `command`
/// adapter writes to the program's stdin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdapterRequest {
    /// Format of this request (for `command` programs).
    pub format_version: u32,
    /// The model identifier (leaderboard name).
    pub model: String,
    pub task: String,
    pub task_version: u32,
    pub category: Category,
    pub language: Language,
    pub entry_point: String,
    pub sample_index: u32,
    pub prompt: Prompt,
    pub generation: GenerationParams,
}

/// Version of [`AdapterRequest`] as written to a command's stdin.
pub const REQUEST_FORMAT_VERSION: u32 = 1;

/// A successful attempt.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub outcome: Outcome,
    pub usage: Usage,
    pub finish_reason: Option<String>,
    /// The provider's response, the command's JSON reply, or the replay line.
    pub raw: Option<serde_json::Value>,
}

/// Why an adapter's pre-flight check failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreflightFailure {
    /// The HTTP status, when the endpoint answered.
    pub status: Option<u16>,
    /// The provider's own explanation when it gave one, otherwise what went wrong.
    pub message: String,
    /// Worth one more try (429, 5xx): a busy provider is not a misconfiguration.
    pub retryable: bool,
    /// The wait the server asked for, if any.
    pub retry_after: Option<std::time::Duration>,
}

impl PreflightFailure {
    /// A failure that another try would not fix.
    pub fn fatal(message: String) -> PreflightFailure {
        PreflightFailure {
            status: None,
            message,
            retryable: false,
            retry_after: None,
        }
    }
}

/// A way of getting answers from a model.
pub trait Adapter: Send + Sync {
    /// Identity beyond the model identifier that, when changed, should invalidate cached
    /// answers (the provider's model name, the command line).
    fn fingerprint(&self) -> &str;

    /// Whether answers are worth caching: a replay is already local and deterministic.
    fn cacheable(&self) -> bool {
        true
    }

    /// Whether attempts are requests to rate-limit and retry (not for replays).
    fn remote(&self) -> bool {
        true
    }

    /// A cheap check, before a run, that attempts can succeed at all (the key, the model
    /// name, the program). Returns a short description of what was checked. One attempt:
    /// the caller decides on a retry.
    fn preflight<'a>(
        &'a self,
        _timeout: std::time::Duration,
    ) -> BoxFuture<'a, Result<String, PreflightFailure>> {
        Box::pin(async { Ok("nothing to check".to_string()) })
    }

    /// One attempt. The caller enforces the overall timeout too; adapters should still
    /// honour `timeout` themselves so they can clean up (kill a process, drop a connection).
    fn complete<'a>(
        &'a self,
        request: &'a AdapterRequest,
        timeout: std::time::Duration,
    ) -> BoxFuture<'a, Result<Completion, AttemptError>>;
}

/// Builds the adapter a model's configuration names. `env` supplies the API key variable.
pub fn from_config(
    config: &ModelConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Box<dyn Adapter>, ConfigError> {
    Ok(match &config.adapter {
        AdapterConfig::Openai {
            endpoint, model, ..
        } => {
            let key = config.api_key(env)?;
            Box::new(openai::OpenAiAdapter::new(
                &config.id, endpoint, model, key,
            )?)
        }
        AdapterConfig::Command { argv } => Box::new(command::CommandAdapter::new(argv.clone())),
        AdapterConfig::Replay { file } => {
            let replay =
                replay::ReplayAdapter::load(file).map_err(|source| ConfigError::ReplayFile {
                    location: config.adapter_at.clone(),
                    model: config.id.clone(),
                    file: file.clone(),
                    source: Box::new(source),
                })?;
            Box::new(replay)
        }
    })
}
