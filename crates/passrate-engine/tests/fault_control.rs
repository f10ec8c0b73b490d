//! The control run that classifies a persistent sandbox fault, through the real sandbox:
//! a sandbox whose jail launcher fails after its start-up probe faults on the answer and on
//! the reference alike (infrastructure: `sandbox_error`); a fault only the answer meets
//! (injected through the `Execute` seam around the real runner) is the answer's
//! `runtime_error`; an answer that runs cleanly needs no control.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use passrate_engine::judge::{ControlRun, Execution, execute, judge};
use passrate_engine::{EngineError, RetryPolicy};
use passrate_grade::Execute;
use passrate_pool::Pool;
use passrate_runner::{Runner, RunnerError, SuiteOutcome, SuiteTarget};
use passrate_sandbox::SandboxError;
use passrate_schema::{ErrorInfo, Language, Reason, Task, Value, Verdict};

use common::{jail, runner_with};

const TASK: &str = "humaneval/0";
/// The first uid of this test's sandboxes.
const FAULT_UIDS: u32 = 350_000_000;
/// Marks the answer the injecting executor faults on (a statement, which extraction keeps).
const POISON: &str = "poison_marker = 0";

fn pool() -> Pool {
    Pool::bundled().expect("the bundled pool loads")
}

/// A launcher that starts the real jail once (the sandbox's start-up probe) and then exits
/// 1 without a word on every launch: a sandbox that breaks after it started, whatever runs.
fn broken_after_probe(dir: &Path) -> PathBuf {
    let script = dir.join("jail-once.sh");
    let marker = dir.join("probed");
    fs_err::write(
        &script,
        format!(
            "#!/bin/sh\nif mkdir '{}' 2>/dev/null; then exec '{}' \"$@\"; fi\nexit 1\n",
            marker.display(),
            jail().display()
        ),
    )
    .expect("write the launcher");
    let mut perms = fs_err::metadata(&script).expect("stat").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs_err::set_permissions(&script, perms).expect("chmod");
    script
}

/// The real runner, except that code carrying [`POISON`] makes the sandbox fail, as an
/// answer that breaks the sandbox would.
struct FaultsOnPoison<'a>(&'a Runner);

fn poisoned(code: &str) -> Result<(), RunnerError> {
    if code.contains(POISON) {
        return Err(RunnerError::Sandbox(SandboxError::Internal(
            "the jail vanished while running the answer".into(),
        )));
    }
    Ok(())
}

impl Execute for FaultsOnPoison<'_> {
    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        code: &str,
    ) -> Result<Verdict, RunnerError> {
        poisoned(code)?;
        self.0.evaluate(task, language, code)
    }

    fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, RunnerError> {
        poisoned(code)?;
        self.0
            .run_calls(language, code, entry_point, class_name, calls)
    }

    fn run_suite(
        &self,
        language: Language,
        implementation: &str,
        tests: &str,
        target: &SuiteTarget<'_>,
    ) -> Result<SuiteOutcome, RunnerError> {
        poisoned(tests)?;
        self.0.run_suite(language, implementation, tests, target)
    }
}

fn quick() -> RetryPolicy {
    RetryPolicy {
        retries: 2,
        delay: Duration::from_millis(1),
    }
}

fn reference(task: &Task) -> String {
    task.variants[&Language::Python].reference_solution.clone()
}

/// Judges `answer` counting the retries it reports.
fn judge_answer(
    exec: &dyn Execute,
    task: &Task,
    answer: &str,
) -> Result<(passrate_engine::judge::Judged, u32), EngineError> {
    let retries = AtomicU32::new(0);
    let on_retry = |_: u32, _: &str| {
        retries.fetch_add(1, Ordering::Relaxed);
    };
    let judged = judge(
        exec,
        task,
        Language::Python,
        Some(answer),
        None,
        quick(),
        &on_retry,
    )?;
    Ok((judged, retries.into_inner()))
}

#[test]
fn a_sandbox_that_fails_on_the_reference_too_is_infrastructure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let runner = runner_with(
        broken_after_probe(dir.path()),
        "passrate-engine-test-broken",
        FAULT_UIDS,
    );
    let pool = pool();
    let task = pool.get(TASK).expect("task");
    let answer = format!("```python\n{}\n```\n", reference(task));
    // Another answer than the reference, so the control is a different program.
    let answer = answer.replace("return False", "return False if numbers else False");
    let (judged, retries) = judge_answer(&runner, task, &answer).expect("judged");
    assert_eq!(retries, 2, "every retry is reported");
    assert_eq!(judged.verdict.reason, Reason::SandboxError);
    let control = judged.control.expect("the control ran");
    assert!(!control.candidate_caused());
    assert_eq!(control.attempts, 3);
    assert!(control.control.is_err(), "{control:?}");
    let detail = judged.verdict.detail.expect("detail");
    assert!(
        detail.contains("after 3 attempt(s)") && detail.contains("the reference failed too"),
        "{detail}"
    );

    // `passrate check`'s path: the fault is an error (exit 5), never a verdict.
    let variant = &task.variants[&Language::Python];
    let execution = execute(
        &runner,
        task,
        Language::Python,
        variant,
        &reference(task),
        quick(),
        &|_, _| {},
    )
    .expect("only infrastructure failed");
    assert!(matches!(execution, Execution::Fault { .. }));
    let error = execution.into_verdict().expect_err("a fault");
    assert!(error.is_infrastructure(), "{error}");
}

#[test]
fn a_fault_only_the_answer_meets_is_the_answer_s_runtime_error() {
    let runner = runner_with(jail(), "passrate-engine-test-ok", FAULT_UIDS);
    let exec = FaultsOnPoison(&runner);
    let pool = pool();
    let task = pool.get(TASK).expect("task");

    let code = reference(task).replace(
        "    sorted_numbers = sorted(numbers)",
        &format!("    {POISON}\n    sorted_numbers = sorted(numbers)"),
    );
    assert!(code.contains(POISON));
    let answer = format!("```python\n{code}\n```\n");
    let (judged, retries) = judge_answer(&exec, task, &answer).expect("judged");
    assert_eq!(retries, 2);
    assert_eq!(
        judged.verdict.reason,
        Reason::RuntimeError,
        "{:?}",
        judged.verdict
    );
    let control = judged.control.expect("the control ran");
    assert_eq!(
        control,
        ControlRun {
            attempts: 3,
            fault: control.fault.clone(),
            control: Ok(Reason::Pass),
        }
    );
    assert!(control.candidate_caused());
    assert!(
        control.fault.contains("the jail vanished"),
        "{}",
        control.fault
    );
    let detail = judged.verdict.detail.expect("detail");
    assert!(
        detail.starts_with("the sandbox failed on this answer while the reference ran cleanly"),
        "{detail}"
    );

    // The same answer without what breaks the sandbox runs, and no control is needed.
    let answer = format!("```python\n{}\n```\n", reference(task));
    let (judged, retries) = judge_answer(&exec, task, &answer).expect("judged");
    assert_eq!(retries, 0);
    assert_eq!(judged.verdict.reason, Reason::Pass);
    assert_eq!(judged.control, None);
}
