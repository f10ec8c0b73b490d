//! What intake needs from the runner, as a trait: record the calls a check makes, run calls
//! on a reference, and evaluate an answer exactly as a model's answer is evaluated.
//! `passrate_runner::Runner` implements it; tests use small scripted executors.

use passrate_schema::{ErrorInfo, Language, Task, Value, Verdict};

/// One call a dataset's check code made on the reference, and what the reference did.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedCall {
    pub args: Vec<Value>,
    pub outcome: Result<Value, ErrorInfo>,
}

/// An infrastructure failure while executing (never a property of the task).
#[derive(Debug, thiserror::Error)]
#[error("failed to execute: {0}")]
pub struct ExecError(#[source] pub Box<dyn std::error::Error + Send + Sync>);

impl ExecError {
    pub fn msg(message: impl Into<String>) -> ExecError {
        ExecError(message.into().into())
    }
}

pub trait Executor: Sync {
    /// Runs `check_code` against `code` and returns every call it made to `entry_point`.
    fn record_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        check_code: &str,
    ) -> Result<Vec<RecordedCall>, ExecError>;

    /// Calls `entry_point` of `code` with each argument list.
    fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, ExecError>;

    /// Judges `candidate` for `task` in `language`, the path every model answer takes.
    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
    ) -> Result<Verdict, ExecError>;
}

/// The real thing: references run in the sandbox through the same runner that judges models.
impl Executor for passrate_runner::Runner {
    fn record_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        check_code: &str,
    ) -> Result<Vec<RecordedCall>, ExecError> {
        passrate_runner::Runner::record_calls(self, language, code, entry_point, check_code)
            .map(|calls| {
                calls
                    .into_iter()
                    .map(|c| RecordedCall {
                        args: c.args,
                        outcome: c.outcome,
                    })
                    .collect()
            })
            .map_err(|e| ExecError(Box::new(e)))
    }

    fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, ExecError> {
        passrate_runner::Runner::run_calls(self, language, code, entry_point, class_name, calls)
            .map_err(|e| ExecError(Box::new(e)))
    }

    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
    ) -> Result<Verdict, ExecError> {
        passrate_runner::Runner::evaluate(self, task, language, candidate)
            .map_err(|e| ExecError(Box::new(e)))
    }
}
