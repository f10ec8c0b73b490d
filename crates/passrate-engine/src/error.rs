//! The engine's errors: what stops a cycle. Faults of a single unit that are the
//! infrastructure's (sandbox, model API) are not errors here: they are retried and then
//! recorded as `sandbox_error` / `api_error` outcomes.

use passrate_schema::{Category, Language};

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("failed to draw the sample of week {week}")]
    Sample {
        week: String,
        #[source]
        source: passrate_pool::SampleError,
    },
    #[error(
        "task {task} is in category {category}, which has no grader yet (graded: {graded}); \
         leave it out of the sample shares"
    )]
    Ungraded {
        task: String,
        category: Category,
        graded: String,
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
        source: passrate_score::ScoreError,
    },
    #[error("model {model}: {stored} unit results stored, {expected} expected after the run")]
    Incomplete {
        model: String,
        stored: usize,
        expected: usize,
    },
    #[error("a worker thread failed: {0}")]
    Worker(String),
}
