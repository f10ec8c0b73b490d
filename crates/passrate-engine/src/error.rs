//! The engine's errors: what stops a cycle. Faults of a single unit that are the
//! infrastructure's (sandbox, model API) are not errors here: they are retried and then
//! recorded as `sandbox_error` / `api_error` outcomes.

use passrate_schema::Language;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("failed to draw the sample of week {week}")]
    Sample {
        week: String,
        #[source]
        source: passrate_pool::SampleError,
    },
    #[error("the manifest names task {task}, which the pool does not have")]
    UnknownTask { task: String },
    #[error("task {task} has no {language} variant")]
    NoVariant { task: String, language: Language },
    #[error("two answer sources are both named `{0}`")]
    DuplicateModel(String),
    #[error("failed to use the store")]
    Store(#[from] passrate_store::StoreError),
    /// A prompt could not be built: a pool or template bug, never the model's fault.
    #[error("failed to ask for an answer")]
    Model(#[source] passrate_models::ModelError),
    /// The grader refused the task itself (not an infrastructure fault): a pool bug.
    #[error("failed to judge {task} ({language})")]
    Grade {
        task: String,
        language: Language,
        #[source]
        source: passrate_grade::GradeError,
    },
    #[error("failed to score model {model}")]
    Score {
        model: String,
        #[source]
        source: Box<passrate_score::ScoreError>,
    },
    #[error("model {model}: {stored} unit results stored, {expected} expected after the run")]
    Incomplete {
        model: String,
        stored: usize,
        expected: usize,
    },
    #[error("a worker thread failed: {0}")]
    Worker(String),
    /// A model's pre-flight request failed: nothing was recorded.
    #[error("the pre-flight check of a model failed; nothing was run")]
    Preflight(#[source] Box<passrate_models::ModelError>),
    #[error("no run {0} in the store to reuse answers from")]
    UnknownRun(String),
    /// The pool's files beside a task (extra tests, performance inputs) could not be read.
    #[error("failed to read the quality inputs of task {task} from the pool")]
    Pool {
        task: String,
        #[source]
        source: passrate_pool::PoolError,
    },
}

impl EngineError {
    /// `map_err` adapter: a scoring error of `model`.
    pub fn score(model: &str) -> impl FnOnce(passrate_score::ScoreError) -> EngineError + '_ {
        move |source| EngineError::Score {
            model: model.to_string(),
            source: Box::new(source),
        }
    }
}
