//! One unit from answer to verdict: extraction and format compliance, then execution through
//! the runner, with sandbox faults retried. A fault that persists is classified by a control
//! run: the task's reference in the same language through the same runner. If the reference
//! runs cleanly, the answer caused the fault and it is the answer's `runtime_error`; only if
//! the reference faults too is it `sandbox_error` (infrastructure, never the model's
//! failure). Blocking: call it off the async runtime.

use std::time::{Duration, Instant};

use passrate_extract::{ExtractRequest, extract};
use passrate_grade::{Execute, GradeError};
use passrate_runner::RunnerError;
use passrate_schema::{Language, Reason, Task, Variant, Verdict};

use crate::error::EngineError;

pub use passrate_grade::{GRADED_CATEGORIES, is_graded, unexecuted_verdict};

/// The outcome of judging one answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub extracted_code: Option<String>,
    pub verdict: Verdict,
    pub extract_time: Duration,
    pub execution_time: Duration,
    /// Set when the answer's executions faulted and the control ran: what it found.
    pub control: Option<ControlRun>,
}

/// How persistent sandbox faults are handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts after the first.
    pub retries: u32,
    /// Wait before retry n: `delay × n`.
    pub delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 3,
            delay: Duration::from_millis(200),
        }
    }
}

/// The task's variant in `language`.
pub(crate) fn variant_of(task: &Task, language: Language) -> Result<&Variant, EngineError> {
    task.variants
        .get(&language)
        .ok_or_else(|| EngineError::NoVariant {
            task: task.id.clone(),
            language,
        })
}

/// The reference as the `reference` control model answers: its extracted code (the solution
/// as written when extraction refuses it).
pub(crate) fn reference_code(task: &Task, language: Language, variant: &Variant) -> String {
    let extraction = extract(
        &ExtractRequest::for_answer(language, task.category, variant),
        variant.reference_solution.as_bytes(),
    );
    if extraction.compliant {
        extraction.code
    } else {
        variant.reference_solution.clone()
    }
}

pub(crate) fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Extracts and judges `answer` (`None`: the model gave no answer). `on_retry(attempt,
/// error)` is told about each sandbox fault that is retried; a fault that persists is
/// classified by [`execute`]'s control run.
pub fn judge(
    runner: &dyn Execute,
    task: &Task,
    language: Language,
    answer: Option<&str>,
    no_answer_detail: Option<&str>,
    policy: RetryPolicy,
    on_retry: &dyn Fn(u32, &str),
) -> Result<Judged, EngineError> {
    let variant = variant_of(task, language)?;
    let Some(answer) = answer else {
        return Ok(Judged {
            extracted_code: None,
            verdict: unexecuted_verdict(
                task,
                language,
                Reason::NoAnswer,
                no_answer_detail.map(str::to_string),
            ),
            extract_time: Duration::ZERO,
            execution_time: Duration::ZERO,
            control: None,
        });
    };
    let started = Instant::now();
    // The same request as `passrate check`: one answer, one verdict.
    let request = ExtractRequest::for_answer(language, task.category, variant);
    let extraction = extract(&request, answer.as_bytes());
    let extract_time = started.elapsed();
    let code = (!extraction.code.is_empty()).then(|| extraction.code.clone());
    if !extraction.compliant {
        return Ok(Judged {
            extracted_code: code,
            verdict: unexecuted_verdict(
                task,
                language,
                extraction.reason.unwrap_or(Reason::NoCode),
                extraction.detail,
            ),
            extract_time,
            execution_time: Duration::ZERO,
            control: None,
        });
    }
    let started = Instant::now();
    let execution = execute(
        runner,
        task,
        language,
        variant,
        &extraction.code,
        policy,
        on_retry,
    )
    .map_err(|source| EngineError::Grade {
        task: task.id.clone(),
        language,
        source,
    })?;
    let (verdict, control) = match execution {
        Execution::Judged { verdict, control } => (verdict, control),
        Execution::Fault { control, .. } => (
            unexecuted_verdict(task, language, Reason::SandboxError, Some(control.detail())),
            Some(control),
        ),
    };
    Ok(Judged {
        extracted_code: Some(extraction.code),
        verdict,
        extract_time,
        execution_time: started.elapsed(),
        control,
    })
}

/// What the control run said about a sandbox fault that persisted on a candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct ControlRun {
    /// Executions of the candidate that faulted (the first and every retry).
    pub attempts: u32,
    /// The candidate's last fault.
    pub fault: String,
    /// The reference in the same language and configuration: `Ok(reason)` when it ran
    /// cleanly (whatever its verdict), `Err(fault)` when the sandbox failed on it too.
    pub control: Result<Reason, String>,
}

impl ControlRun {
    /// The reference ran cleanly, so the sandbox failed because of what the candidate did.
    pub fn candidate_caused(&self) -> bool {
        self.control.is_ok()
    }

    /// The recorded verdict's detail: the candidate's fault and what the control did.
    pub fn detail(&self) -> String {
        let Self {
            attempts, fault, ..
        } = self;
        match &self.control {
            Ok(reason) => format!(
                "the sandbox failed on this answer while the reference ran cleanly ({reason}) \
                 in the same configuration, after {attempts} attempt(s): {fault}"
            ),
            Err(control) => format!(
                "after {attempt} attempt(s): {fault}; the reference failed too: {control}",
                attempt = attempts
            ),
        }
    }
}

/// How executing compliant code ended.
#[derive(Debug)]
pub enum Execution {
    /// A verdict on the candidate. `control` is set when the candidate's executions faulted
    /// and the reference then ran cleanly: the verdict is then the candidate's failure
    /// ([`attribute`]).
    Judged {
        verdict: Verdict,
        control: Option<ControlRun>,
    },
    /// The sandbox failed on the candidate and on the reference: an infrastructure fault,
    /// never the candidate's verdict. `error` is the candidate's last fault.
    Fault {
        error: GradeError,
        control: ControlRun,
    },
}

impl Execution {
    /// The verdict, or the infrastructure fault as an error (what `passrate check` reports).
    pub fn into_verdict(self) -> Result<Verdict, GradeError> {
        match self {
            Execution::Judged { verdict, .. } => Ok(verdict),
            Execution::Fault { error, .. } => Err(error),
        }
    }
}

/// The verdict recorded for a candidate whose executions all faulted, once the control ran:
/// with the reference clean it is the candidate's `runtime_error` (the sandbox runs the
/// reference, so what failed it was the answer: never infrastructure); with the reference
/// faulted too it is `None` (infrastructure).
pub fn attribute(task: &Task, language: Language, control: &ControlRun) -> Option<Verdict> {
    control
        .candidate_caused()
        .then(|| unexecuted_verdict(task, language, Reason::RuntimeError, Some(control.detail())))
}

/// Grades compliant `code`, retrying sandbox faults by `policy`; a fault that persists is
/// classified by a control run of the task's reference in the same language through the same
/// executor. Errors that are not infrastructure (a task that cannot be graded) are returned.
pub fn execute(
    exec: &dyn Execute,
    task: &Task,
    language: Language,
    variant: &Variant,
    code: &str,
    policy: RetryPolicy,
    on_retry: &dyn Fn(u32, &str),
) -> Result<Execution, GradeError> {
    let mut attempt = 0;
    let (fault, error) = loop {
        attempt += 1;
        let (fault, error) = match passrate_grade::grade(exec, task, language, code) {
            Ok(verdict) if !verdict.reason.is_infrastructure() => {
                return Ok(Execution::Judged {
                    verdict,
                    control: None,
                });
            }
            Ok(verdict) => (
                verdict
                    .detail
                    .unwrap_or_else(|| verdict.reason.as_str().to_string()),
                None,
            ),
            Err(e) if e.is_infrastructure() => (error_chain(&e), Some(e)),
            Err(e) => return Err(e),
        };
        if attempt > policy.retries {
            break (fault, error);
        }
        on_retry(attempt, &fault);
        std::thread::sleep(policy.delay * attempt);
    };
    let reference = reference_code(task, language, variant);
    let (control, control_verdict) = match passrate_grade::grade(exec, task, language, &reference) {
        Ok(v) if !v.reason.is_infrastructure() => (Ok(v.reason), Some(v)),
        Ok(v) => (
            Err(v.detail.unwrap_or_else(|| v.reason.as_str().to_string())),
            None,
        ),
        Err(e) if e.is_infrastructure() => (Err(error_chain(&e)), None),
        Err(e) => return Err(e),
    };
    let control = ControlRun {
        attempts: attempt,
        fault,
        control,
    };
    // The candidate is the reference (the `reference` control, or an answer identical to
    // it): the clean control run is a clean run of this very code, and its verdict stands.
    if reference == code
        && let Some(verdict) = control_verdict
    {
        return Ok(Execution::Judged {
            verdict,
            control: Some(control),
        });
    }
    match attribute(task, language, &control) {
        Some(verdict) => Ok(Execution::Judged {
            verdict,
            control: Some(control),
        }),
        None => Ok(Execution::Fault {
            error: error.unwrap_or_else(|| {
                GradeError::Runner(RunnerError::Sandbox(
                    passrate_sandbox::SandboxError::Internal(control.fault.clone()),
                ))
            }),
            control,
        }),
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(outcome: Result<Reason, String>) -> ControlRun {
        ControlRun {
            attempts: 4,
            fault: "the jail exited without a word".into(),
            control: outcome,
        }
    }

    /// The reference's verdict does not matter, only whether it ran: a reference that fails
    /// its tests still ran cleanly, so the sandbox was able to run this task.
    #[test]
    fn a_clean_control_puts_the_fault_on_the_answer_whatever_its_verdict() {
        for reason in [Reason::Pass, Reason::WrongAnswer, Reason::Timeout] {
            let c = control(Ok(reason));
            assert!(c.candidate_caused());
            assert!(
                c.detail().starts_with(
                    "the sandbox failed on this answer while the reference ran cleanly"
                ),
                "{}",
                c.detail()
            );
            assert!(c.detail().contains(reason.as_str()));
            assert!(c.detail().contains("the jail exited without a word"));
        }
    }

    #[test]
    fn a_faulted_control_is_infrastructure() {
        let c = control(Err("no cgroup".into()));
        assert!(!c.candidate_caused());
        assert_eq!(
            c.detail(),
            "after 4 attempt(s): the jail exited without a word; the reference failed too: \
             no cgroup"
        );
    }
}
