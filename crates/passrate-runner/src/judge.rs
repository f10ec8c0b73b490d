//! Verdicts: trusted host code turning an execution's outcome and transcript into per-test and
//! per-task verdicts. A pass needs every result to arrive, in order, well-formed and equal to
//! the expected value, and the execution to end cleanly after the harness said `done`.

use passrate_sandbox::{ExecOutcome, ExecStatus};
use passrate_schema::{
    Comparator, ErrorInfo, Expected, Language, Reason, TestCase, TestForm, TestResult, Value,
    Verdict,
};

use crate::compare;
use crate::protocol::{Load, Outcome, TestFrame, Transcript};

/// One test as judged: its index in the task and how to compare its results.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Planned<'a> {
    pub index: usize,
    pub test: &'a TestCase,
    pub comparator: &'a Comparator,
    /// A call's expected value as the reference returned it, when conforming it to the
    /// declared type changed it (`crate::declared`): matching the reference passes too.
    pub as_recorded: Option<&'a Value>,
}

/// Why the execution stopped producing results, when it did.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Stop {
    pub reason: Reason,
    pub error: Option<ErrorInfo>,
    pub detail: String,
}

const DETAIL_CHARS: usize = 2000;

pub(crate) fn tail(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    let count = text.chars().count();
    if count <= max {
        text.to_owned()
    } else {
        let skip = count - max;
        format!("…{}", text.chars().skip(skip).collect::<String>())
    }
}

/// Exceptions that mean the runtime ran out of memory, not that the code is wrong.
fn is_memory_error(kind: &str) -> bool {
    matches!(
        kind,
        "MemoryError" | "OutOfMemoryError" | "RangeError: heap"
    )
}

fn reason_for_error(e: &ErrorInfo) -> Reason {
    if is_memory_error(&e.kind) {
        Reason::MemoryLimit
    } else {
        Reason::RuntimeError
    }
}

/// Maps how the process ended to the reason the first test without a result failed.
pub(crate) fn stop_reason(outcome: &ExecOutcome, transcript: &Transcript) -> Stop {
    if let Some(v) = &transcript.violation {
        return Stop {
            reason: Reason::RuntimeError,
            error: Some(ErrorInfo {
                kind: "ProtocolViolation".to_owned(),
                message: v.clone(),
            }),
            detail: format!("the result channel was tampered with: {v}"),
        };
    }
    if let Some(e) = &transcript.harness_error {
        return Stop {
            reason: reason_for_error(e),
            error: Some(e.clone()),
            detail: format!(
                "the harness was broken by the candidate: {}: {}",
                e.kind, e.message
            ),
        };
    }
    let stderr = tail(&outcome.stderr, DETAIL_CHARS);
    match outcome.status {
        ExecStatus::Timeout => Stop {
            reason: Reason::Timeout,
            error: None,
            detail: format!(
                "time limit reached after {} ms of CPU time",
                outcome.cpu_us / 1000
            ),
        },
        ExecStatus::MemoryLimit => Stop {
            reason: Reason::MemoryLimit,
            error: None,
            detail: "memory limit reached".to_owned(),
        },
        ExecStatus::OutputLimit => Stop {
            reason: Reason::OutputLimit,
            error: None,
            detail: "output limit reached".to_owned(),
        },
        ExecStatus::RuntimeError => {
            let how = match (outcome.exit_code, outcome.signal) {
                (_, Some(sig)) => format!("killed by signal {sig}"),
                (Some(code), None) => format!("exited with status {code}"),
                (None, None) => "ended".to_owned(),
            };
            let oom = stderr.contains("heap out of memory")
                || stderr.contains("OutOfMemoryError")
                || stderr.contains("MemoryError");
            Stop {
                reason: if oom {
                    Reason::MemoryLimit
                } else {
                    Reason::RuntimeError
                },
                error: Some(ErrorInfo {
                    kind: "ProcessExit".to_owned(),
                    message: how.clone(),
                }),
                detail: if stderr.is_empty() {
                    how
                } else {
                    format!("{how}: {stderr}")
                },
            }
        }
        ExecStatus::Ok => {
            let how = if transcript.truncated {
                "the process exited in the middle of a result".to_owned()
            } else {
                "the process exited (status 0) before reporting every result".to_owned()
            };
            Stop {
                reason: Reason::RuntimeError,
                error: Some(ErrorInfo {
                    kind: "EarlyExit".to_owned(),
                    message: how.clone(),
                }),
                detail: how,
            }
        }
    }
}

fn compile_stop(outcome: &ExecOutcome) -> Stop {
    let mut text = tail(&outcome.stderr, DETAIL_CHARS);
    if text.is_empty() {
        text = tail(&outcome.stdout, DETAIL_CHARS);
    }
    let reason = match outcome.status {
        ExecStatus::Timeout => Reason::Timeout,
        ExecStatus::MemoryLimit => Reason::MemoryLimit,
        _ => Reason::CompileError,
    };
    Stop {
        reason,
        error: None,
        detail: if text.is_empty() {
            format!("compilation ended: {}", outcome.status.as_str())
        } else {
            text
        },
    }
}

fn load_stop(e: &ErrorInfo, language: Language) -> Stop {
    let compile = match language {
        Language::Python => matches!(
            e.kind.as_str(),
            "SyntaxError" | "IndentationError" | "TabError"
        ),
        Language::Javascript => e.kind == "SyntaxError",
        Language::Java => false,
    };
    let reason = if e.kind == "MissingEntryPoint" {
        Reason::MissingEntryPoint
    } else if compile {
        Reason::CompileError
    } else {
        reason_for_error(e)
    };
    Stop {
        reason,
        error: Some(e.clone()),
        detail: format!("loading the code failed: {}: {}", e.kind, e.message),
    }
}

fn not_run(p: &Planned<'_>, stop: &Stop, first: bool) -> TestResult {
    TestResult {
        index: p.index,
        visibility: p.test.visibility,
        reason: stop.reason,
        actual: None,
        error: if first { stop.error.clone() } else { None },
        cpu_us: None,
        detail: Some(if first {
            stop.detail.clone()
        } else {
            "not run: the execution had already stopped".to_owned()
        }),
    }
}

fn judge_value(
    expected: &Expected,
    as_recorded: Option<&Value>,
    got: &Result<Value, ErrorInfo>,
    cmp: &Comparator,
    reveal: bool,
) -> (Reason, Option<Value>, Option<ErrorInfo>, Option<String>) {
    match (expected, got) {
        (Expected::Returns(e), Ok(a)) => {
            if compare::matches(e, a, cmp)
                || as_recorded.is_some_and(|r| compare::matches(r, a, cmp))
            {
                (Reason::Pass, Some(a.clone()), None, None)
            } else {
                (
                    Reason::WrongAnswer,
                    Some(a.clone()),
                    None,
                    Some(compare::explain(e, a, cmp, reveal)),
                )
            }
        }
        (Expected::Returns(_), Err(err)) => (
            reason_for_error(err),
            None,
            Some(err.clone()),
            Some(format!("raised {}: {}", err.kind, err.message)),
        ),
        (Expected::Raises(kind), Err(err)) => {
            if &err.kind == kind {
                (Reason::Pass, None, Some(err.clone()), None)
            } else {
                let reason = if is_memory_error(&err.kind) {
                    Reason::MemoryLimit
                } else {
                    Reason::WrongAnswer
                };
                (
                    reason,
                    None,
                    Some(err.clone()),
                    Some(format!("expected {kind} to be raised, got {}", err.kind)),
                )
            }
        }
        (Expected::ReturnsDigest(d), Ok(a)) => {
            if crate::digest::matches(d, a) {
                (Reason::Pass, Some(a.clone()), None, None)
            } else {
                let detail = crate::digest::explain(d, a);
                (Reason::WrongAnswer, Some(a.clone()), None, Some(detail))
            }
        }
        (Expected::ReturnsDigest(_), Err(err)) => (
            reason_for_error(err),
            None,
            Some(err.clone()),
            Some(format!("raised {}: {}", err.kind, err.message)),
        ),
        (Expected::Raises(kind), Ok(a)) => (
            Reason::WrongAnswer,
            Some(a.clone()),
            None,
            Some(format!(
                "expected {kind} to be raised, but a value was returned"
            )),
        ),
    }
}

fn malformed(p: &Planned<'_>, frame: &TestFrame, what: &str) -> TestResult {
    TestResult {
        index: p.index,
        visibility: p.test.visibility,
        reason: Reason::RuntimeError,
        actual: None,
        error: Some(ErrorInfo {
            kind: "ProtocolViolation".to_owned(),
            message: what.to_owned(),
        }),
        cpu_us: Some(frame.cpu_us),
        detail: Some(format!("the result channel was tampered with: {what}")),
    }
}

fn judge_test(p: &Planned<'_>, frame: &TestFrame) -> TestResult {
    let reveal = p.test.visibility == passrate_schema::Visibility::Public;
    match (&p.test.form, &frame.outcome) {
        (TestForm::Call { expected, .. }, Outcome::Single(got)) => {
            let (reason, actual, error, detail) =
                judge_value(expected, p.as_recorded, got, p.comparator, reveal);
            TestResult {
                index: p.index,
                visibility: p.test.visibility,
                reason,
                actual,
                error,
                cpu_us: Some(frame.cpu_us),
                detail,
            }
        }
        (TestForm::Sequence { .. }, Outcome::Single(Err(err))) => TestResult {
            index: p.index,
            visibility: p.test.visibility,
            reason: reason_for_error(err),
            actual: None,
            error: Some(err.clone()),
            cpu_us: Some(frame.cpu_us),
            detail: Some(format!(
                "the constructor raised {}: {}",
                err.kind, err.message
            )),
        },
        (TestForm::Sequence { steps, .. }, Outcome::Steps(got)) => {
            if steps.len() != got.len() {
                return malformed(p, frame, "wrong number of step results");
            }
            for (k, (step, g)) in steps.iter().zip(got).enumerate() {
                let (reason, actual, error, detail) =
                    judge_value(&step.expected, None, g, p.comparator, reveal);
                if reason != Reason::Pass {
                    return TestResult {
                        index: p.index,
                        visibility: p.test.visibility,
                        reason,
                        actual,
                        error,
                        cpu_us: Some(frame.cpu_us),
                        detail: Some(format!(
                            "step {k} ({}): {}",
                            step.method,
                            detail.unwrap_or_default()
                        )),
                    };
                }
            }
            TestResult {
                index: p.index,
                visibility: p.test.visibility,
                reason: Reason::Pass,
                actual: None,
                error: None,
                cpu_us: Some(frame.cpu_us),
                detail: None,
            }
        }
        (TestForm::Call { .. }, Outcome::Steps(_)) => malformed(p, frame, "steps for a call test"),
        (TestForm::Sequence { .. }, Outcome::Single(Ok(_))) => {
            malformed(p, frame, "a single value for a sequence test")
        }
    }
}

/// Everything the judge needs about the execution besides the tests.
pub(crate) struct Execution<'a> {
    pub task: &'a str,
    pub language: Language,
    pub compile_steps: usize,
    pub outcome: &'a ExecOutcome,
    pub transcript: &'a Transcript,
}

/// The harness never said hello: the infrastructure failed, not the candidate (no candidate
/// code runs before the hello frame). Returns the explanation.
pub(crate) fn harness_missing(ex: &Execution<'_>) -> Option<String> {
    let compile_failed = ex.compile_steps > 0
        && ex.outcome.step < ex.compile_steps
        && ex.outcome.status != ExecStatus::Ok;
    if ex.transcript.runtime.is_some() || compile_failed {
        return None;
    }
    Some(format!(
        "the {} harness did not start ({}, exit {:?}, signal {:?}): {}",
        ex.language,
        ex.outcome.status.as_str(),
        ex.outcome.exit_code,
        ex.outcome.signal,
        tail(&ex.outcome.stderr, DETAIL_CHARS)
    ))
}

/// Decides the verdict. Call [`harness_missing`] first: it turns the infrastructure case into
/// an error instead.
pub(crate) fn judge(ex: &Execution<'_>, planned: &[Planned<'_>]) -> Verdict {
    let outcome = ex.outcome;
    let t = ex.transcript;
    let mut tests = Vec::with_capacity(planned.len());
    let mut task_detail = None;

    let early_stop = if ex.compile_steps > 0
        && outcome.step < ex.compile_steps
        && outcome.status != ExecStatus::Ok
    {
        Some(compile_stop(outcome))
    } else {
        match &t.load {
            Load::Failed(e) => Some(load_stop(e, ex.language)),
            Load::NotReported => Some(stop_reason(outcome, t)),
            Load::Loaded => None,
        }
    };

    if let Some(stop) = &early_stop {
        for (k, p) in planned.iter().enumerate() {
            tests.push(not_run(p, stop, k == 0));
        }
        task_detail = Some(stop.detail.clone());
    } else {
        let mut stopped: Option<Stop> = None;
        for (k, p) in planned.iter().enumerate() {
            if let Some(stop) = &stopped {
                tests.push(not_run(p, stop, false));
            } else if let Some(frame) = t.tests.get(k) {
                tests.push(judge_test(p, frame));
            } else {
                let stop = stop_reason(outcome, t);
                tests.push(not_run(p, &stop, true));
                stopped = Some(stop);
            }
        }
        if stopped.is_none() {
            let clean = t.done
                && t.violation.is_none()
                && t.harness_error.is_none()
                && outcome.status == ExecStatus::Ok;
            if t.tests.len() > planned.len() {
                return finish(
                    ex,
                    tests,
                    Some(Reason::RuntimeError),
                    Some("more results than tests on the result channel".to_owned()),
                );
            }
            if !clean {
                // Every test's own result stands; the failure belongs to the task.
                let mut stop = stop_reason(outcome, t);
                if t.violation.is_none() && t.harness_error.is_none() && !t.done {
                    stop.detail = format!(
                        "every result arrived, but the harness did not finish: {}",
                        stop.detail
                    );
                }
                return finish(ex, tests, Some(stop.reason), Some(stop.detail));
            }
        }
    }
    finish(ex, tests, None, task_detail)
}

fn finish(
    ex: &Execution<'_>,
    tests: Vec<TestResult>,
    forced: Option<Reason>,
    detail: Option<String>,
) -> Verdict {
    let passed = tests.iter().filter(|r| r.reason == Reason::Pass).count();
    let first_failure = tests
        .iter()
        .find(|r| r.reason != Reason::Pass)
        .map(|r| r.reason);
    let reason = first_failure.or(forced).unwrap_or(Reason::Pass);
    let detail = match (first_failure, detail) {
        (_, Some(d)) => Some(d),
        (Some(_), None) => tests
            .iter()
            .find(|r| r.reason != Reason::Pass)
            .and_then(|r| r.detail.as_ref().map(|d| format!("test {}: {d}", r.index))),
        (None, None) => None,
    };
    Verdict {
        task: ex.task.to_owned(),
        language: ex.language,
        reason,
        tests_passed: passed,
        tests_total: tests.len(),
        cpu_ms: ex.outcome.cpu_us / 1000,
        cpu_us: Some(ex.outcome.cpu_us),
        wall_ms: ex.outcome.wall_us / 1000,
        peak_memory_bytes: ex.outcome.peak_memory_bytes,
        tests,
        detail,
        grader: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{frame, parse_transcript};
    use passrate_schema::Visibility;
    use proptest::prelude::*;

    const NONCE: &str = "feedface";

    fn outcome(channel: Vec<u8>, status: ExecStatus) -> ExecOutcome {
        ExecOutcome {
            status,
            step: 0,
            exit_code: Some(0),
            signal: None,
            cpu_us: 1000,
            wall_us: 2000,
            peak_memory_bytes: None,
            stdout: Vec::new(),
            stderr: Vec::new(),
            channel_output: channel,
            truncated: false,
        }
    }

    fn tests() -> Vec<TestCase> {
        let call = |expected: Value| TestCase {
            visibility: Visibility::Hidden,
            form: TestForm::Call {
                args: vec![],
                expected: Expected::Returns(expected),
            },
            comparator: None,
            languages: vec![],
        };
        vec![
            call(Value::int(3)),
            call(Value::List(vec![Value::int(1), Value::int(2)])),
        ]
    }

    fn good_stream() -> Vec<u8> {
        [
            r#"{"hello":{"runtime":"python 3"}}"#,
            r#"{"loaded":null}"#,
            r#"{"test":0,"result":{"ok":{"int":"3"}},"cpu_us":4}"#,
            r#"{"test":1,"result":{"ok":[{"int":"1"},{"int":"2"}]},"cpu_us":4}"#,
            r#"{"done":null}"#,
        ]
        .iter()
        .enumerate()
        .flat_map(|(i, p)| frame(NONCE, i as u64, p))
        .collect()
    }

    fn verdict(channel: Vec<u8>, status: ExecStatus) -> Option<Verdict> {
        let cases = tests();
        let cmp = Comparator::default();
        let planned: Vec<Planned<'_>> = cases
            .iter()
            .enumerate()
            .map(|(index, test)| Planned {
                index,
                test,
                comparator: &cmp,
                as_recorded: None,
            })
            .collect();
        let out = outcome(channel, status);
        let transcript = parse_transcript(&out.channel_output, NONCE, false, 4096);
        let ex = Execution {
            task: "t",
            language: Language::Python,
            compile_steps: 0,
            outcome: &out,
            transcript: &transcript,
        };
        if harness_missing(&ex).is_some() {
            return None;
        }
        Some(judge(&ex, &planned))
    }

    #[test]
    fn the_good_stream_passes() {
        let v = verdict(good_stream(), ExecStatus::Ok).unwrap();
        assert_eq!(v.reason, Reason::Pass, "{v:#?}");
        assert_eq!(v.tests_passed, 2);
    }

    #[test]
    fn a_good_stream_from_a_killed_process_does_not_pass() {
        for status in [
            ExecStatus::Timeout,
            ExecStatus::RuntimeError,
            ExecStatus::OutputLimit,
            ExecStatus::MemoryLimit,
        ] {
            let v = verdict(good_stream(), status).unwrap();
            assert_ne!(v.reason, Reason::Pass, "{status:?}");
        }
    }

    #[test]
    fn the_first_missing_result_is_the_one_that_timed_out() {
        let good = good_stream();
        let cut = good.len()
            - frame(NONCE, 4, r#"{"done":null}"#).len()
            - frame(
                NONCE,
                3,
                r#"{"test":1,"result":{"ok":[{"int":"1"},{"int":"2"}]},"cpu_us":4}"#,
            )
            .len();
        let v = verdict(good[..cut].to_vec(), ExecStatus::Timeout).unwrap();
        assert_eq!(v.reason, Reason::Timeout);
        assert_eq!(v.tests[0].reason, Reason::Pass);
        assert_eq!(v.tests[1].reason, Reason::Timeout);
        assert_eq!(v.tests_passed, 1);
    }

    proptest! {
        #[test]
        fn garbage_never_passes_or_panics(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
            if let Some(v) = verdict(bytes, ExecStatus::Ok) {
                prop_assert_ne!(v.reason, Reason::Pass);
            }
        }

        #[test]
        fn truncated_streams_never_pass(cut in 0usize..10_000) {
            let good = good_stream();
            let cut = cut % good.len();
            if let Some(v) = verdict(good[..cut].to_vec(), ExecStatus::Ok) {
                prop_assert_ne!(v.reason, Reason::Pass);
            }
        }

        #[test]
        fn inserted_garbage_never_passes(at in 0usize..10_000, garbage in prop::collection::vec(any::<u8>(), 1..64)) {
            let mut bytes = good_stream();
            let at = at % (bytes.len() + 1);
            bytes.splice(at..at, garbage);
            if let Some(v) = verdict(bytes, ExecStatus::Ok) {
                prop_assert_ne!(v.reason, Reason::Pass);
            }
        }

        #[test]
        fn corrupted_streams_never_panic_and_pass_only_with_the_right_values(at in 0usize..10_000, byte in any::<u8>()) {
            let mut bytes = good_stream();
            let at = at % bytes.len();
            bytes[at] = byte;
            if let Some(v) = verdict(bytes, ExecStatus::Ok)
                && v.reason == Reason::Pass
            {
                prop_assert_eq!(v.tests[0].actual.clone(), Some(Value::int(3)));
            }
        }

        #[test]
        fn oversized_frames_never_pass(len in 4097usize..usize::MAX / 2) {
            let mut bytes = frame(NONCE, 0, r#"{"hello":{"runtime":"x"}}"#);
            bytes.extend(frame(NONCE, 1, r#"{"loaded":null}"#));
            bytes.extend(format!("PASSRATE {NONCE} 2 {len}\n").as_bytes());
            bytes.extend(vec![b'x'; 100]);
            let v = verdict(bytes, ExecStatus::Ok).unwrap();
            prop_assert_eq!(v.reason, Reason::RuntimeError);
        }
    }
}
