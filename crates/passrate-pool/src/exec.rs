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

/// A failure to execute: either of the machinery (`infrastructure`: retried, never cached,
/// never a property of the task) or of the code run (the reference did not complete, the
/// check failed on it).
#[derive(Debug, thiserror::Error)]
#[error("{}{source}", if *.infrastructure { "failed to execute: " } else { "" })]
pub struct ExecError {
    pub infrastructure: bool,
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl ExecError {
    /// A failure of the code that was run.
    pub fn msg(message: impl Into<String>) -> ExecError {
        ExecError {
            infrastructure: false,
            source: message.into().into(),
        }
    }

    /// A failure of the machinery.
    pub fn infrastructure(message: impl Into<String>) -> ExecError {
        ExecError {
            infrastructure: true,
            source: message.into().into(),
        }
    }

    fn from_runner(e: passrate_runner::RunnerError) -> ExecError {
        ExecError {
            infrastructure: e.is_infrastructure(),
            source: Box::new(e),
        }
    }
}

pub trait Executor: Sync {
    /// Identifies what the executor's results depend on besides its inputs (harness
    /// sources, limits), for the intake cache's keys.
    fn fingerprint(&self) -> String {
        String::new()
    }

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
    fn fingerprint(&self) -> String {
        let mut h = blake3::Hasher::new();
        for part in [
            passrate_runner::PYTHON_HARNESS,
            passrate_runner::NODE_HARNESS,
            passrate_runner::JAVA_HARNESS,
        ] {
            h.update(part.as_bytes());
            h.update(b"\0");
        }
        h.update(format!("{:?}", self.options()).as_bytes());
        format!(
            "passrate {} harnesses+options {}",
            env!("CARGO_PKG_VERSION"),
            h.finalize().to_hex()
        )
    }

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
            .map_err(ExecError::from_runner)
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
            .map_err(ExecError::from_runner)
    }

    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
    ) -> Result<Verdict, ExecError> {
        if !passrate_grade::is_graded(task.category) {
            // Until the category has its grader, intake checks its reference by call tests.
            return passrate_runner::Runner::evaluate(self, task, language, candidate)
                .map_err(ExecError::from_runner);
        }
        // The reference takes the model's path: extraction and format compliance first (a
        // stored signature that its own reference does not meet is a task defect), then the
        // category's grader.
        let variant = task
            .variants
            .get(&language)
            .ok_or_else(|| ExecError::msg(format!("no {language} variant")))?;
        let request =
            passrate_extract::ExtractRequest::for_variant(language, task.category, variant);
        let extraction = passrate_extract::extract(&request, candidate.as_bytes());
        if !extraction.compliant {
            return Ok(passrate_grade::unexecuted_verdict(
                task,
                language,
                extraction.reason.unwrap_or(passrate_schema::Reason::NoCode),
                extraction.detail,
            ));
        }
        passrate_grade::grade(self, task, language, &extraction.code).map_err(|e| ExecError {
            infrastructure: e.is_infrastructure(),
            source: Box::new(e),
        })
    }
}
