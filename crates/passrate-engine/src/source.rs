//! Where a run's answers come from: a configured model (replay, command, OpenAI-compatible),
//! or one of the two reference models built from the pool itself, which make every graded
//! category answerable offline (ARCHITECTURE.md section 1):
//! - `reference` answers each task with its reference solution, so it should pass every
//!   task; anything less points at the pool, the extractor or the runner, not a model.
//! - `known-buggy` answers with the task's first faulty variant (bug fixing's bug) and gives
//!   no answer elsewhere, so it should pass nothing. For unit-test writing, where an answer is
//!   a test suite, it answers a well-formed suite that asserts nothing (it passes on the
//!   faulty variants too, so the grader must fail it for missing them).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use passrate_models::{
    AdapterKind, AnswerCache, AttemptFailure, CacheMode, Model, ModelError, Origin, Outcome,
    Preflight,
};
use passrate_schema::{Language, RunEvent, Task};
use serde_json::json;

use crate::cycle::EventSink;

/// Leaderboard id of the reference-solution model.
pub const REFERENCE_MODEL: &str = "reference";
/// Leaderboard id of the known-buggy model.
pub const KNOWN_BUGGY_MODEL: &str = "known-buggy";

enum Kind {
    Model(Box<Model>),
    Reference,
    KnownBuggy,
}

/// Where a model's failed API attempts are reported: set by the cycle once it knows its run
/// id, read by the model's attempt observer.
type Relay = Arc<Mutex<Option<(EventSink, String)>>>;

/// One model of a run.
pub struct AnswerSource {
    id: String,
    kind: Kind,
    relay: Relay,
}

impl std::fmt::Debug for AnswerSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnswerSource")
            .field("id", &self.id)
            .finish()
    }
}

/// What a source gave for one unit.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceAnswer {
    /// The raw answer; `None` when the source has none for this unit.
    pub text: Option<String>,
    /// Why there is no answer (for the verdict's detail).
    pub no_answer_detail: Option<String>,
    /// Tokens, cost, attempts and latency as the adapter reported them.
    pub usage: Option<serde_json::Value>,
    pub generation_ms: u64,
    /// Found in the answer cache: nothing was sent.
    pub cached: bool,
}

impl AnswerSource {
    /// A configured model. Its failed API attempts become [`RunEvent::ApiRetry`] events of
    /// the run it answers for.
    pub fn model(mut model: Model) -> AnswerSource {
        let relay: Relay = Arc::new(Mutex::new(None));
        let to_events = relay.clone();
        model.set_observer(Arc::new(move |failure: &AttemptFailure| {
            let target = to_events.lock().unwrap_or_else(|e| e.into_inner()).clone();
            if let Some((sink, run_id)) = target {
                sink(&RunEvent::ApiRetry {
                    run_id,
                    model: failure.model.clone(),
                    task: failure.task.clone(),
                    language: failure.language,
                    sample_index: failure.sample_index,
                    attempt: failure.attempt,
                    error: failure.error.clone(),
                    will_retry: failure.will_retry,
                });
            }
        }));
        AnswerSource {
            id: model.id().to_string(),
            kind: Kind::Model(Box::new(model)),
            relay,
        }
    }

    pub fn reference() -> AnswerSource {
        AnswerSource {
            id: REFERENCE_MODEL.to_string(),
            kind: Kind::Reference,
            relay: Relay::default(),
        }
    }

    pub fn known_buggy() -> AnswerSource {
        AnswerSource {
            id: KNOWN_BUGGY_MODEL.to_string(),
            kind: Kind::KnownBuggy,
            relay: Relay::default(),
        }
    }

    /// The pool's controls (`reference`, `known-buggy`) are shown apart and never ranked.
    pub fn is_control(&self) -> bool {
        matches!(self.kind, Kind::Reference | Kind::KnownBuggy)
    }

    /// Sends this model's API retry events to `sink` as events of run `run_id`.
    pub fn report_to(&self, sink: EventSink, run_id: &str) {
        *self.relay.lock().unwrap_or_else(|e| e.into_inner()) = Some((sink, run_id.to_string()));
    }

    /// One request per API model before a run (authentication, model name), so a wrong key
    /// or an unknown model stops the run before any unit is recorded; `None` for sources with
    /// nothing to check.
    pub async fn preflight(&self) -> Option<Result<Preflight, ModelError>> {
        match &self.kind {
            // A replay's file was read when the model was built: nothing is left to check.
            Kind::Model(model) if model.config().adapter.kind() == AdapterKind::Replay => None,
            Kind::Model(model) => Some(model.preflight().await),
            Kind::Reference | Kind::KnownBuggy => None,
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// Samples per task (sample indices `0..samples`).
    pub fn samples(&self) -> u32 {
        match &self.kind {
            Kind::Model(m) => m.config().generation.samples.max(1),
            Kind::Reference | Kind::KnownBuggy => 1,
        }
    }

    /// Everything about the source that changes its answers, for the run's config (and so
    /// its id): a changed replay file, command line, endpoint, prompt template or generation
    /// parameter makes a new run instead of resuming an old one with stale answers.
    pub fn identity(&self) -> serde_json::Value {
        match &self.kind {
            Kind::Model(m) => {
                let config = m.config();
                // Templates have no serialised form; their Debug text is stable within a
                // build, which is all resuming needs.
                let prompts = blake3::hash(format!("{:?}", config.prompts).as_bytes());
                json!({
                    "id": self.id,
                    "adapter": config.adapter.kind().as_str(),
                    "fingerprint": m.fingerprint(),
                    "generation": config.generation,
                    "prompts": prompts.to_hex().to_string(),
                })
            }
            Kind::Reference => json!({ "id": self.id, "adapter": "pool-reference" }),
            Kind::KnownBuggy => json!({ "id": self.id, "adapter": "pool-known-buggy" }),
        }
    }

    /// The answer for one unit. `Err` carries an infrastructure failure (`api_error`) or a
    /// prompt that cannot be built (a pool bug: the run stops).
    pub async fn answer(
        &self,
        task: &Task,
        language: Language,
        sample_index: u32,
        cache: &dyn AnswerCache,
        mode: CacheMode,
    ) -> Result<SourceAnswer, ModelError> {
        let started = Instant::now();
        let from_pool = |text: Option<&String>, missing: &str| SourceAnswer {
            text: text.cloned(),
            no_answer_detail: text.is_none().then(|| missing.to_string()),
            usage: None,
            generation_ms: 0,
            cached: false,
        };
        let variant = task.variants.get(&language);
        match &self.kind {
            Kind::Reference => Ok(from_pool(
                variant.map(|v| &v.reference_solution),
                "the task has no variant in this language",
            )),
            Kind::KnownBuggy if task.category == passrate_schema::Category::UnitTestWriting => {
                let suite =
                    variant.map(|_| passrate_grade::unittest::trivial_suite(language).to_owned());
                Ok(from_pool(
                    suite.as_ref(),
                    "the task has no variant in this language",
                ))
            }
            Kind::KnownBuggy => Ok(from_pool(
                variant.and_then(|v| v.faulty_variants.first()),
                "the task has no known faulty variant",
            )),
            Kind::Model(model) => {
                let fetched = model
                    .answer(task, language, sample_index, cache, mode)
                    .await?;
                let answer = fetched.answer;
                let (text, detail) = match answer.outcome {
                    Outcome::Answered { text } => (Some(text), None),
                    Outcome::NoAnswer { detail } => (None, Some(detail)),
                };
                Ok(SourceAnswer {
                    text,
                    no_answer_detail: detail,
                    usage: Some(json!({
                        "usage": answer.usage,
                        "cost_usd": answer.cost_usd,
                        "attempts": answer.attempts,
                        "latency_ms": answer.latency_ms,
                        "finish_reason": answer.finish_reason,
                    })),
                    generation_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    cached: fetched.origin == Origin::Cached,
                })
            }
        }
    }
}
