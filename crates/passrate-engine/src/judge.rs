//! One unit from answer to verdict: extraction and format compliance, then execution through
//! the runner, with infrastructure faults retried and, when they persist, recorded as
//! `sandbox_error` (never as the model's failure). Blocking: call it off the async runtime.

use std::time::{Duration, Instant};

use passrate_extract::{ExtractRequest, extract};
use passrate_runner::Runner;
use passrate_schema::{Language, Reason, Task, Verdict};

use crate::error::EngineError;

pub use passrate_grade::{GRADED_CATEGORIES, is_graded, unexecuted_verdict};

/// The outcome of judging one answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub extracted_code: Option<String>,
    pub verdict: Verdict,
    pub extract_time: Duration,
    pub execution_time: Duration,
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

pub(crate) fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Extracts and judges `answer` (`None`: the model gave no answer). `on_retry(attempt,
/// error)` is told about each sandbox fault that is retried.
pub fn judge(
    runner: &Runner,
    task: &Task,
    language: Language,
    answer: Option<&str>,
    no_answer_detail: Option<&str>,
    policy: RetryPolicy,
    on_retry: &dyn Fn(u32, &str),
) -> Result<Judged, EngineError> {
    let variant = task
        .variants
        .get(&language)
        .ok_or_else(|| EngineError::NoVariant {
            task: task.id.clone(),
            language,
        })?;
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
        });
    }
    let started = Instant::now();
    let mut attempt = 0;
    let verdict = loop {
        attempt += 1;
        let fault = match passrate_grade::grade(runner, task, language, &extraction.code) {
            Ok(verdict) if !verdict.reason.is_infrastructure() => break verdict,
            Ok(verdict) => verdict
                .detail
                .unwrap_or_else(|| verdict.reason.as_str().to_string()),
            Err(e) if e.is_infrastructure() => error_chain(&e),
            Err(source) => {
                return Err(EngineError::Grade {
                    task: task.id.clone(),
                    language,
                    source,
                });
            }
        };
        if attempt > policy.retries {
            break unexecuted_verdict(
                task,
                language,
                Reason::SandboxError,
                Some(format!("after {attempt} attempt(s): {fault}")),
            );
        }
        on_retry(attempt, &fault);
        std::thread::sleep(policy.delay * attempt);
    };
    Ok(Judged {
        extracted_code: Some(extraction.code),
        verdict,
        extract_time,
        execution_time: started.elapsed(),
    })
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
