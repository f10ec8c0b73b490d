//! A configured model: its adapter behind the cache, the concurrency limit, the rate limit,
//! the per-attempt timeout and the retry loop.

use std::sync::Arc;
use std::time::Duration;

use passrate_schema::{Language, Task};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::adapter::{
    self, Adapter, AdapterRequest, Completion, PreflightFailure, REQUEST_FORMAT_VERSION,
};
use crate::answer::{ANSWER_FORMAT_VERSION, Answer, Origin};
use crate::breaker::{CircuitBreaker, CircuitStats};
use crate::cache::{AnswerCache, CacheKey};
use crate::config::{AdapterKind, ModelConfig, ModelsConfig};
use crate::error::{AttemptError, ConfigError, ModelError};
use crate::limit::RateLimiter;
use crate::retry::RetryPolicy;

/// Extra time an adapter gets past the timeout to notice it and clean up, before the
/// attempt is abandoned from outside.
const CLEANUP_GRACE: Duration = Duration::from_secs(2);

/// Whether to use cached answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheMode {
    /// Return a cached answer when there is one (re-runs and resumed runs).
    Use,
    /// Ask again and replace the cached answer (`--refresh`).
    Refresh,
}

/// An answer and whether it was asked now or found in the cache.
#[derive(Clone, Debug, PartialEq)]
pub struct Fetched {
    pub answer: Answer,
    pub origin: Origin,
}

/// What a successful pre-flight check did, for one line of output per model.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Preflight {
    pub model: String,
    /// What was checked, e.g. "chat completion of 1 token from `gpt-4o` at https://…".
    pub checked: String,
    /// How long the (last) check took.
    pub latency_ms: u64,
}

/// One failed attempt at an answer, as told to an [`AttemptObserver`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AttemptFailure {
    pub model: String,
    pub task: String,
    pub language: Language,
    pub sample_index: u32,
    /// 1-based; for a fast failure, the number the attempt would have had.
    pub attempt: u32,
    /// The failure's message ([`AttemptError`]'s display).
    pub error: String,
    /// Whether another attempt follows (after `delay_ms`).
    pub will_retry: bool,
    pub delay_ms: u64,
    /// Whether a request was sent: `false` when the circuit breaker refused the attempt.
    pub sent: bool,
}

/// Told of every failed attempt (retried or final, and circuit-breaker refusals), so the
/// engine can emit an event per retry. Called synchronously from the attempt loop: it must
/// be quick and must not block.
pub type AttemptObserver = Arc<dyn Fn(&AttemptFailure) + Send + Sync>;

pub struct Model {
    config: ModelConfig,
    adapter: Box<dyn Adapter>,
    slots: Arc<Semaphore>,
    rate: Option<RateLimiter>,
    retry: RetryPolicy,
    breaker: CircuitBreaker,
    observer: Option<AttemptObserver>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("id", &self.config.id)
            .field("adapter", &self.config.adapter.kind())
            .finish()
    }
}

impl Model {
    /// Builds every model of a file. All API key variables are checked first, so a missing
    /// one fails the run before any model is built or any request sent.
    pub fn build_all(
        config: &ModelsConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Vec<Model>, ConfigError> {
        config.check_environment(env)?;
        config
            .models
            .iter()
            .map(|model| Model::from_config(model.clone(), env))
            .collect()
    }

    /// Builds the adapter the configuration names (reading a replay file, resolving the key).
    pub fn from_config(
        config: ModelConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Model, ConfigError> {
        let adapter = adapter::from_config(&config, env)?;
        Ok(Model::with_adapter(config, adapter))
    }

    /// A model with a given adapter (tests, or adapters defined elsewhere).
    pub fn with_adapter(config: ModelConfig, adapter: Box<dyn Adapter>) -> Model {
        let limits = &config.limits;
        Model {
            slots: Arc::new(Semaphore::new(limits.concurrency as usize)),
            rate: limits
                .requests_per_minute
                .map(|rpm| RateLimiter::new(rpm, limits.burst)),
            retry: RetryPolicy::from_limits(limits),
            breaker: CircuitBreaker::new(
                limits.circuit_breaker_failures,
                limits.circuit_breaker_cooldown,
            ),
            observer: None,
            adapter,
            config,
        }
    }

    /// Sets the observer told of every failed attempt (replacing any earlier one).
    pub fn set_observer(&mut self, observer: AttemptObserver) {
        self.observer = Some(observer);
    }

    /// [`Model::set_observer`] as a builder.
    pub fn with_observer(mut self, observer: AttemptObserver) -> Model {
        self.set_observer(observer);
        self
    }

    /// The circuit breaker's state and counters.
    pub fn circuit(&self) -> CircuitStats {
        self.breaker.stats()
    }

    /// Checks, before a run, that the model can answer at all: for an OpenAI-compatible
    /// model one real chat completion of 1 token (key and model name), for a command that
    /// its program exists and is executable (it is not run), for a replay nothing beyond
    /// loading. A 408, 429 or 5xx answer is tried once more; anything else fails at once,
    /// with the provider's own message. The model's timeout applies; the circuit breaker
    /// is neither consulted nor fed.
    pub async fn preflight(&self) -> Result<Preflight, ModelError> {
        let timeout = self.config.limits.timeout;
        let mut retried = false;
        loop {
            // Only an HTTP check sends a request that the provider counts.
            if self.config.adapter.kind() == AdapterKind::Openai
                && let Some(rate) = &self.rate
            {
                rate.acquire().await;
            }
            let started = Instant::now();
            let result = match tokio::time::timeout(
                timeout + CLEANUP_GRACE,
                self.adapter.preflight(timeout),
            )
            .await
            {
                Ok(result) => result,
                Err(_) => Err(PreflightFailure::fatal(format!(
                    "no answer within {:.1} s (timeout)",
                    timeout.as_secs_f64()
                ))),
            };
            let failure = match result {
                Ok(checked) => {
                    tracing::debug!(model = %self.config.id, %checked, "pre-flight passed");
                    return Ok(Preflight {
                        model: self.config.id.clone(),
                        checked,
                        latency_ms: millis(started.elapsed()),
                    });
                }
                Err(failure) => failure,
            };
            if failure.retryable && !retried {
                retried = true;
                let delay = self.retry.delay(1, failure.retry_after);
                tracing::warn!(model = %self.config.id, status = ?failure.status, message = %failure.message, delay_ms = millis(delay), "pre-flight: retrying once");
                tokio::time::sleep(delay).await;
                continue;
            }
            // A command's problem is in models.toml: say where.
            let message = match self.config.adapter.kind() {
                AdapterKind::Command => format!("{}: {}", self.config.defined_at, failure.message),
                AdapterKind::Openai | AdapterKind::Replay => failure.message,
            };
            tracing::warn!(model = %self.config.id, status = ?failure.status, %message, "pre-flight failed");
            return Err(ModelError::Preflight {
                model: self.config.id.clone(),
                status: failure.status,
                message,
            });
        }
    }

    pub fn id(&self) -> &str {
        &self.config.id
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The adapter's identity beyond the model id (provider model name, command line, or the
    /// replay file's content hash): what a run id must change with.
    pub fn fingerprint(&self) -> &str {
        self.adapter.fingerprint()
    }

    /// The request for one unit (renders the category's prompt template).
    pub fn request(
        &self,
        task: &Task,
        language: Language,
        sample_index: u32,
    ) -> Result<AdapterRequest, ModelError> {
        let prompt = self
            .config
            .prompts
            .render(task, language)
            .map_err(|source| ModelError::Prompt {
                model: self.config.id.clone(),
                task: task.id.clone(),
                source,
            })?;
        let entry_point = task
            .variants
            .get(&language)
            .map(|v| v.entry_point.clone())
            .unwrap_or_default();
        Ok(AdapterRequest {
            format_version: REQUEST_FORMAT_VERSION,
            model: self.config.id.clone(),
            task: task.id.clone(),
            task_version: task.version,
            category: task.category,
            language,
            entry_point,
            sample_index,
            prompt,
            generation: self.config.generation.clone(),
        })
    }

    pub fn cache_key(&self, request: &AdapterRequest) -> CacheKey {
        CacheKey::compute(
            &request.model,
            &request.task,
            request.task_version,
            request.language,
            &request.prompt.hash(),
            &request.generation,
            request.sample_index,
            self.adapter.fingerprint(),
        )
    }

    /// The answer for one unit: from `cache` when it has one (unless `mode` is `Refresh`),
    /// otherwise asked and stored. Replays bypass the cache.
    pub async fn answer(
        &self,
        task: &Task,
        language: Language,
        sample_index: u32,
        cache: &dyn AnswerCache,
        mode: CacheMode,
    ) -> Result<Fetched, ModelError> {
        let request = self.request(task, language, sample_index)?;
        let cacheable = self.adapter.cacheable();
        let key = self.cache_key(&request);
        let cache_error = |source| ModelError::Cache {
            model: self.config.id.clone(),
            source,
        };
        if cacheable
            && mode == CacheMode::Use
            && let Some(answer) = cache.get(&key).await.map_err(cache_error)?
        {
            tracing::debug!(model = %self.config.id, task = %task.id, %language, sample_index, "answer from cache");
            return Ok(Fetched {
                answer,
                origin: Origin::Cached,
            });
        }
        let answer = self.fetch(&request, &key).await?;
        if cacheable {
            cache.put(&key, &answer).await.map_err(cache_error)?;
        }
        Ok(Fetched {
            answer,
            origin: Origin::Fetched,
        })
    }

    /// Asks the adapter, within the model's limits, retrying what is retryable. An open
    /// circuit breaker fails the attempt at once without sending.
    pub async fn fetch(
        &self,
        request: &AdapterRequest,
        key: &CacheKey,
    ) -> Result<Answer, ModelError> {
        if !self.adapter.remote() {
            let started = Instant::now();
            let completion = match self
                .adapter
                .complete(request, self.config.limits.timeout)
                .await
            {
                Ok(completion) => completion,
                Err(error) => {
                    self.observe(request, 1, &error, None, true);
                    return Err(self.api_error(request, 1, error));
                }
            };
            return Ok(self.record(request, key, completion, started.elapsed(), 0));
        }
        let _permit = self
            .slots
            .acquire()
            .await
            .expect("the semaphore is never closed");
        let timeout = self.config.limits.timeout;
        // Requests actually sent (a circuit-breaker refusal sends none).
        let mut sent = 0;
        loop {
            let attempt = sent + 1;
            let admitted = match self.breaker.admit() {
                Ok(admitted) => admitted,
                Err(refused) => {
                    let error = AttemptError::CircuitOpen {
                        failures: refused.failures,
                        last_error: refused.last_error,
                    };
                    tracing::warn!(model = %self.config.id, task = %request.task, attempt, %error, "not sending");
                    self.observe(request, attempt, &error, None, false);
                    return Err(self.api_error(request, sent, error));
                }
            };
            if let Some(rate) = &self.rate {
                rate.acquire().await;
            }
            sent = attempt;
            tracing::debug!(model = %self.config.id, task = %request.task, sample = request.sample_index, attempt, "request");
            let started = Instant::now();
            let result = match tokio::time::timeout(
                timeout + CLEANUP_GRACE,
                self.adapter.complete(request, timeout),
            )
            .await
            {
                Ok(result) => result,
                Err(_) => Err(AttemptError::Timeout(timeout)),
            };
            let error = match result {
                Ok(completion) => {
                    admitted.succeeded();
                    return Ok(self.record(request, key, completion, started.elapsed(), attempt));
                }
                Err(error) => error,
            };
            if error.is_connection_failure() {
                admitted.connection_failed(error.to_string());
            } else {
                admitted.answered_with_error();
            }
            if !error.is_retryable() || attempt > self.retry.max_retries {
                tracing::warn!(model = %self.config.id, task = %request.task, attempt, %error, "giving up");
                self.observe(request, attempt, &error, None, true);
                return Err(self.api_error(request, attempt, error));
            }
            let delay = self.retry.delay(attempt, error.retry_after());
            tracing::warn!(model = %self.config.id, task = %request.task, attempt, %error, delay_ms = millis(delay), "retrying");
            self.observe(request, attempt, &error, Some(delay), true);
            tokio::time::sleep(delay).await;
        }
    }

    /// Tells the observer of a failed attempt; `retry_in` is `Some` when another follows.
    fn observe(
        &self,
        request: &AdapterRequest,
        attempt: u32,
        error: &AttemptError,
        retry_in: Option<Duration>,
        sent: bool,
    ) {
        let Some(observer) = &self.observer else {
            return;
        };
        observer(&AttemptFailure {
            model: self.config.id.clone(),
            task: request.task.clone(),
            language: request.language,
            sample_index: request.sample_index,
            attempt,
            error: error.to_string(),
            will_retry: retry_in.is_some(),
            delay_ms: retry_in.map_or(0, millis),
            sent,
        });
    }

    fn api_error(
        &self,
        request: &AdapterRequest,
        attempts: u32,
        source: AttemptError,
    ) -> ModelError {
        ModelError::Api {
            model: self.config.id.clone(),
            task: request.task.clone(),
            language: request.language,
            sample_index: request.sample_index,
            attempts,
            source,
        }
    }

    fn record(
        &self,
        request: &AdapterRequest,
        key: &CacheKey,
        completion: Completion,
        latency: Duration,
        attempts: u32,
    ) -> Answer {
        Answer {
            format_version: ANSWER_FORMAT_VERSION,
            model: request.model.clone(),
            task: request.task.clone(),
            task_version: request.task_version,
            language: request.language,
            sample_index: request.sample_index,
            prompt_hash: request.prompt.hash(),
            cache_key: key.as_str().to_string(),
            outcome: completion.outcome,
            finish_reason: completion.finish_reason,
            cost_usd: completion.usage.cost_usd(self.config.prices.as_ref()),
            usage: completion.usage,
            latency_ms: millis(latency),
            attempts,
            raw: completion.raw,
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
