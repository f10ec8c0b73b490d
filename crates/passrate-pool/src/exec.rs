//! What intake needs from the runner, as a trait: record the calls a check makes, run calls
//! on a reference, and evaluate an answer exactly as a model's answer is evaluated.
//! `passrate_runner::Runner` implements it; tests use small scripted executors.

use passrate_grade::Execute;
pub use passrate_runner::{CallsStopped, PartialCalls};
use passrate_runner::{Runner, RunnerError, SuiteOutcome, SuiteTarget};
use passrate_schema::{Comparator, ErrorInfo, Language, Reason, Task, TestCase, Value, Verdict};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::cache::Cache;

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

    fn from_grade(e: passrate_grade::GradeError) -> ExecError {
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

    /// [`Executor::run_calls`] with each call stopped past `per_call_cpu_ms` of CPU (screening
    /// generated inputs, where one stuck in a loop should cost little). By default, the same
    /// as `run_calls`.
    fn run_calls_within(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
        per_call_cpu_ms: u64,
    ) -> Result<Vec<Result<Value, ErrorInfo>>, ExecError> {
        let _ = per_call_cpu_ms;
        self.run_calls(language, code, entry_point, class_name, calls)
    }

    /// [`Executor::run_calls_within`] that keeps the outcomes of the calls completed before
    /// the execution ended early (mutation testing, [`crate::strength`]). By default, built
    /// on `run_calls_within`: an execution that ends early reports no completed call.
    fn run_calls_until(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
        per_call_cpu_ms: u64,
    ) -> Result<PartialCalls, ExecError> {
        match self.run_calls_within(
            language,
            code,
            entry_point,
            class_name,
            calls,
            per_call_cpu_ms,
        ) {
            Ok(outcomes) => Ok(PartialCalls {
                outcomes,
                stopped: None,
            }),
            Err(e) if !e.infrastructure => Ok(PartialCalls {
                outcomes: Vec::new(),
                stopped: Some(CallsStopped {
                    reason: Reason::RuntimeError,
                    detail: e.to_string(),
                }),
            }),
            Err(e) => Err(e),
        }
    }

    /// Judges `candidate` for `task` in `language`, the path every model answer takes.
    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
    ) -> Result<Verdict, ExecError>;

    /// Whether a suite that asserts nothing ([`passrate_grade::unittest::trivial_suite`])
    /// fails unit-test writing `task` in `language`, as it must. By default the grader's
    /// whole verdict on it; see [`passrate_grade::unittest::trivial_suite_survives`] for the
    /// runner's shorter path.
    fn trivial_suite_fails(&self, task: &Task, language: Language) -> Result<bool, ExecError> {
        let suite = passrate_grade::unittest::trivial_suite(language);
        self.evaluate(task, language, suite).map(|v| !v.passed())
    }

    /// [`Executor::evaluate`] as run `run` of an intake evaluation. An executor may take an
    /// execution inside it from `cache` when an identical one (same code, tests, limits and
    /// run index) was already made, e.g. a refactoring task's call tests on the reference of
    /// its base task; distinct run indices stay distinct executions.
    fn evaluate_run(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
        cache: &Cache,
        run: usize,
    ) -> Result<Verdict, ExecError> {
        let _ = (cache, run);
        self.evaluate(task, language, candidate)
    }
}

/// The runner, with the executions graders ask for reused through the intake cache (keyed
/// by everything the execution depends on, and the run index).
struct Reuse<'a> {
    runner: &'a Runner,
    cache: &'a Cache,
    run: usize,
}

/// Everything [`Runner::evaluate`] depends on besides the runner's fingerprint.
#[derive(Serialize)]
struct CallTestsInput<'a> {
    language: Language,
    code: &'a str,
    entry_point: &'a str,
    class_name: Option<&'a str>,
    preamble: Option<&'a str>,
    /// The tests the language runs, by index in the task (verdicts name tests by index),
    /// `languages` cleared (it only selects tests).
    tests: Vec<(usize, TestCase, &'a Comparator)>,
    limits: &'a passrate_schema::LimitOverrides,
    calibration: Option<&'a Vec<u64>>,
    run: usize,
}

#[derive(Serialize)]
struct RunCallsInput<'a> {
    language: Language,
    code: &'a str,
    entry_point: &'a str,
    class_name: Option<&'a str>,
    calls: &'a [Vec<Value>],
    run: usize,
}

impl Reuse<'_> {
    /// `f`'s result through the cache. Failures are not stored; a caller that waited on
    /// someone else's failed execution executes itself, so errors keep their type.
    fn reuse<T: Serialize + DeserializeOwned>(
        &self,
        kind: &str,
        input: &impl Serialize,
        f: impl Fn() -> Result<T, RunnerError>,
    ) -> Result<T, RunnerError> {
        let key = self.cache.key(kind, input);
        let mut failure = None;
        let stored = self.cache.get_or_compute(kind, &key, || {
            f().map_err(|e| {
                let message = e.to_string();
                failure = Some(e);
                message
            })
        });
        match (stored, failure) {
            (Ok(v), _) => Ok(v),
            (Err(_), Some(e)) => Err(e),
            (Err(_), None) => f(),
        }
    }
}

impl Execute for Reuse<'_> {
    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        code: &str,
    ) -> Result<Verdict, RunnerError> {
        let run = || Runner::evaluate(self.runner, task, language, code);
        let Some(variant) = task.variants.get(&language) else {
            return run();
        };
        let input = CallTestsInput {
            language,
            code,
            entry_point: &variant.entry_point,
            class_name: variant.class_name.as_deref(),
            preamble: variant.preamble.as_deref(),
            tests: task
                .tests_for(language)
                .map(|(i, t)| {
                    let mut t2 = t.clone();
                    t2.languages.clear();
                    (i, t2, task.comparator_for(t))
                })
                .collect(),
            limits: &task.limits,
            calibration: task.calibration.reference_test_cpu_us.get(&language),
            run: self.run,
        };
        let mut verdict: Verdict = self.reuse("call-tests", &input, run)?;
        // The stored verdict may be another task's with the same code and tests.
        verdict.task = task.id.clone();
        Ok(verdict)
    }

    fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, RunnerError> {
        let input = RunCallsInput {
            language,
            code,
            entry_point,
            class_name,
            calls,
            run: self.run,
        };
        self.reuse("run-calls", &input, || {
            Runner::run_calls(self.runner, language, code, entry_point, class_name, calls)
        })
    }

    fn run_suite(
        &self,
        language: Language,
        implementation: &str,
        tests: &str,
        target: &SuiteTarget<'_>,
    ) -> Result<SuiteOutcome, RunnerError> {
        Runner::run_suite(self.runner, language, implementation, tests, target)
    }
}

/// Intake's evaluation: extraction and format compliance first, as for a model's answer (a
/// stored signature that its own reference does not meet is a task defect), then the
/// category's grader over `exec`.
fn grade_reference(
    exec: &dyn Execute,
    task: &Task,
    language: Language,
    candidate: &str,
) -> Result<Verdict, ExecError> {
    let variant = task
        .variants
        .get(&language)
        .ok_or_else(|| ExecError::msg(format!("no {language} variant")))?;
    let request = passrate_extract::ExtractRequest::for_variant(language, task.category, variant);
    let extraction = passrate_extract::extract(&request, candidate.as_bytes());
    if !extraction.compliant {
        return Ok(passrate_grade::unexecuted_verdict(
            task,
            language,
            extraction.reason.unwrap_or(passrate_schema::Reason::NoCode),
            extraction.detail,
        ));
    }
    passrate_grade::grade(exec, task, language, &extraction.code).map_err(ExecError::from_grade)
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

    fn run_calls_within(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
        per_call_cpu_ms: u64,
    ) -> Result<Vec<Result<Value, ErrorInfo>>, ExecError> {
        passrate_runner::Runner::run_calls_within(
            self,
            language,
            code,
            entry_point,
            class_name,
            calls,
            per_call_cpu_ms,
        )
        .map_err(ExecError::from_runner)
    }

    fn run_calls_until(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
        per_call_cpu_ms: u64,
    ) -> Result<PartialCalls, ExecError> {
        passrate_runner::Runner::run_calls_until(
            self,
            language,
            code,
            entry_point,
            class_name,
            calls,
            per_call_cpu_ms,
        )
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
        grade_reference(self, task, language, candidate)
    }

    /// The faulty variants only, up to the first that survives: intake asks after the
    /// task's reference suite passed on the implementation under test.
    fn trivial_suite_fails(&self, task: &Task, language: Language) -> Result<bool, ExecError> {
        passrate_grade::unittest::trivial_suite_survives(self, task, language)
            .map_err(ExecError::from_grade)
    }

    fn evaluate_run(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
        cache: &Cache,
        run: usize,
    ) -> Result<Verdict, ExecError> {
        if !passrate_grade::is_graded(task.category) {
            return Executor::evaluate(self, task, language, candidate);
        }
        let reuse = Reuse {
            runner: self,
            cache,
            run,
        };
        grade_reference(&reuse, task, language, candidate)
    }
}
