//! passrate-runner: judges candidate code against a task's tests, in Python, JavaScript and
//! Java, with the verdict decided on the host.
//!
//! One execution per (candidate, task, language): a small harness per language runs inside
//! the sandbox, reads test inputs from fd 3, calls the candidate, and writes typed results to
//! fd 4 in nonce-stamped frames ([`protocol`]). Expected values never enter the sandbox; the
//! host compares ([`compare`]) and decides the verdict. See AGENTS.md for the invariants.

pub mod compare;
pub mod declared;
pub mod digest;
mod harness;
pub mod humaneval;
mod judge;
pub mod protocol;
pub mod suite;

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::{Mutex, OnceLock};

use passrate_sandbox::{
    ExecOutcome, ExecRequest, FrameBudgets, InputFile, Limits, Sandbox, SandboxError,
};
use passrate_schema::{ErrorInfo, Language, Reason, Task, TestCase, TestForm, Value, Verdict};

pub use harness::{JAVA_HARNESS, NODE_HARNESS, PYTHON_HARNESS};
pub use protocol::{Outcome, Transcript};
pub use suite::{CaseResult, SuiteOutcome, SuiteStop, SuiteTarget};

use crate::judge::{Execution, Planned};

/// Added to twice a test's budget for the jail's per-test kill (see `Core::frame_budgets`).
pub const FRAME_BUDGET_SLACK_US: u64 = 250_000;
/// Frames the call harnesses write before their first test's result: `hello`, `loaded`.
const CALL_FRAMES_BEFORE_TESTS: u32 = 2;
use crate::protocol::{Mode, Request, RequestTest};

/// CPU allowances of one language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LanguageLimits {
    /// CPU for everything but the tests: interpreter start, loading, compiling (Java's javac
    /// runs in the same execution and is counted by the same cgroup).
    pub startup_cpu_ms: u64,
    /// The least CPU the tests of an uncalibrated task get in all (each test counts the
    /// budget floor; calibrated tasks get the sum of their budgets, however many tests they
    /// have; a task's `limits.cpu_ms` overrides both).
    pub tests_cpu_ms: u64,
}

/// How the runner sizes executions.
#[derive(Clone, Debug, PartialEq)]
pub struct RunnerOptions {
    pub python: LanguageLimits,
    pub javascript: LanguageLimits,
    pub java: LanguageLimits,
    /// Per-test CPU budget: `max(budget_floor_ms, budget_factor × reference CPU)`.
    pub budget_factor: f64,
    pub budget_floor_ms: u64,
    /// CPU of the compile step (Java's javac; a cold compile takes 1.5–3 s of CPU).
    pub compile_cpu_ms: u64,
    /// The tests' CPU cap for intake runs of reference code (`record_calls`, `run_calls`).
    pub intake_cpu_ms: u64,
    /// Sandbox memory (cgroup) and runtime heap, unless the task overrides them.
    pub memory_bytes: u64,
    pub heap_bytes: u64,
    pub pids: u32,
    pub workdir_bytes: u64,
    /// Cap of each output stream, the result channel included.
    pub output_bytes: u64,
    /// Install the Java harness's class-data archive in the sandbox before the first Java
    /// execution (`Sandbox::install_java_archive`): each run JVM then maps the harness and
    /// the JDK classes it loads instead of loading them. Off (or when building it fails):
    /// the same runs without it, slower.
    pub java_class_archive: bool,
}

impl Default for RunnerOptions {
    fn default() -> Self {
        let defaults = Limits::default();
        RunnerOptions {
            python: LanguageLimits {
                startup_cpu_ms: 1_000,
                tests_cpu_ms: defaults.cpu_ms,
            },
            javascript: LanguageLimits {
                startup_cpu_ms: 1_000,
                tests_cpu_ms: defaults.cpu_ms,
            },
            java: LanguageLimits {
                startup_cpu_ms: 1_500,
                tests_cpu_ms: defaults.cpu_ms,
            },
            compile_cpu_ms: defaults.setup_cpu_ms,
            budget_factor: 4.0,
            budget_floor_ms: 100,
            intake_cpu_ms: 20_000,
            memory_bytes: defaults.memory_bytes,
            heap_bytes: defaults.heap_bytes,
            pids: defaults.pids,
            workdir_bytes: defaults.workdir_bytes,
            output_bytes: defaults.output_bytes,
            java_class_archive: true,
        }
    }
}

impl RunnerOptions {
    pub fn language(&self, language: Language) -> &LanguageLimits {
        match language {
            Language::Python => &self.python,
            Language::Javascript => &self.javascript,
            Language::Java => &self.java,
        }
    }
}

/// The trusted inputs of the sandbox's Java class-data archive, all compiled into this crate:
/// the call-test harness, the suite harness and the JUnit stand-ins (packaged at their
/// package paths), and the classes their runs load (both lists, merged without duplicates).
fn java_archive_spec() -> passrate_sandbox::JavaArchiveSpec {
    let mut sources = vec![
        ("PassrateHarness.java".to_owned(), JAVA_HARNESS.to_owned()),
        (
            "PassrateSuite.java".to_owned(),
            suite::JAVA_SUITE.to_owned(),
        ),
    ];
    sources.extend(
        suite::JUNIT_STANDIN
            .iter()
            .map(|(path, text)| ((*path).to_owned(), (*text).to_owned())),
    );
    let mut seen = std::collections::HashSet::new();
    let mut class_list = String::new();
    for line in harness::JAVA_HARNESS_CLASS_LIST
        .lines()
        .chain(suite::JAVA_SUITE_CLASS_LIST.lines())
    {
        let line = line.trim_end();
        let comment = line.is_empty() || line.starts_with('#');
        if comment || seen.insert(line) {
            class_list.push_str(line);
            class_list.push('\n');
        }
    }
    passrate_sandbox::JavaArchiveSpec {
        sources,
        class_list,
    }
}

/// Failures that are not a verdict on the candidate: infrastructure faults (retry them) and
/// unusable inputs from the caller.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    #[error("failed to run in the sandbox")]
    Sandbox(#[from] SandboxError),
    /// No candidate code runs before the harness's first frame, so this is never the
    /// candidate's doing.
    #[error("{0}")]
    HarnessDidNotStart(String),
    #[error("failed to read random bytes for the channel nonce")]
    Random(#[source] std::io::Error),
    #[error("task {task} has no {language} variant")]
    NoVariant { task: String, language: Language },
    #[error("invalid task: {0}")]
    InvalidTask(String),
    #[error("recording calls is not supported for {0} (record in Python and use run_calls)")]
    Unsupported(Language),
    /// Reference code (intake) did not run to completion.
    #[error("the reference did not run to completion ({reason}): {detail}")]
    Reference { reason: Reason, detail: String },
    /// The check code failed against the reference it was recording.
    #[error("the check code failed on the reference: {}: {}", .0.kind, .0.message)]
    CheckFailed(ErrorInfo),
}

impl RunnerError {
    /// Faults of the machinery, to be retried and never counted against a model.
    pub fn is_infrastructure(&self) -> bool {
        matches!(
            self,
            RunnerError::Sandbox(_) | RunnerError::HarnessDidNotStart(_) | RunnerError::Random(_)
        )
    }
}

/// The calls an intake execution completed, in order, and why it ended before the rest (a
/// call past its CPU budget, a crash, the output limit), if it did: a mutant of a reference
/// that loops on one input still tells which earlier inputs it got wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct PartialCalls {
    pub outcomes: Vec<Result<Value, ErrorInfo>>,
    pub stopped: Option<CallsStopped>,
}

/// Why an execution of calls ended early: the verdict reason it would get, and the detail.
#[derive(Clone, Debug, PartialEq)]
pub struct CallsStopped {
    pub reason: Reason,
    pub detail: String,
}

/// One call the check code made on the reference's entry point, with its outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedCall {
    /// The arguments as they were before the call (encoded before the reference could
    /// mutate them).
    pub args: Vec<Value>,
    pub outcome: Result<Value, ErrorInfo>,
}

/// Judges candidates through the sandbox. `Send + Sync`: share one across worker threads.
pub struct Runner {
    sandbox: Sandbox,
    options: RunnerOptions,
    runtimes: Mutex<BTreeMap<Language, String>>,
    /// The Java harness's class files, compiled once in the sandbox (`None`: that failed, so
    /// every execution compiles the harness beside the candidate as before).
    java_harness: OnceLock<Option<Vec<InputFile>>>,
    /// The Python harness as bytecode, compiled once in the sandbox (`None`: that failed, so
    /// every execution compiles the harness's source as before).
    python_harness: OnceLock<Option<Vec<u8>>>,
    /// Whether the sandbox has the Java harness's class-data archive (tried once).
    java_archive: OnceLock<bool>,
    /// Set once the harness's bytecode is registered with the sandbox as trusted.
    python_harness_trusted: std::sync::Once,
    /// Executions and their CPU per program kind, for summaries of long jobs.
    exec_stats: Mutex<BTreeMap<&'static str, ExecCount>>,
}

/// Executions of one program kind (the last step's: `python`, `node`, `java`, `exec`) that
/// the sandbox ran to the end, and their CPU as the sandbox measured it (the jail's cgroup
/// from each step's start; pre-started runs from their hand-over; not the warm compiler).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExecCount {
    pub executions: u64,
    pub cpu_us: u64,
}

fn program_kind(request: &ExecRequest) -> &'static str {
    match request.steps.last() {
        Some(passrate_sandbox::Program::Python { .. }) => "python",
        Some(passrate_sandbox::Program::Node { .. }) => "node",
        Some(passrate_sandbox::Program::Java { .. }) => "java",
        Some(passrate_sandbox::Program::Javac { .. }) => "javac",
        _ => "exec",
    }
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner")
            .field("options", &self.options)
            .finish()
    }
}

fn nonce() -> Result<String, RunnerError> {
    let mut bytes = [0u8; 16];
    fs_err::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(RunnerError::Random)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn check_name(what: &str, name: &str) -> Result<(), RunnerError> {
    if harness::is_identifier(name) {
        Ok(())
    } else {
        Err(RunnerError::InvalidTask(format!(
            "{what} {name:?} is not an identifier"
        )))
    }
}

impl Runner {
    pub fn new(sandbox: Sandbox, options: RunnerOptions) -> Runner {
        Runner {
            sandbox,
            options,
            runtimes: Mutex::new(BTreeMap::new()),
            java_harness: OnceLock::new(),
            python_harness: OnceLock::new(),
            java_archive: OnceLock::new(),
            python_harness_trusted: std::sync::Once::new(),
            exec_stats: Mutex::new(BTreeMap::new()),
        }
    }

    /// Executions so far per program kind, with their CPU (see [`ExecCount`]).
    pub fn exec_stats(&self) -> BTreeMap<&'static str, ExecCount> {
        self.exec_stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Before the first Java execution: makes sure the sandbox has the harness's class-data
    /// archive (built from the harness source and its class list, both compiled into this
    /// crate). A failure is logged and runs go on without it (same verdicts, slower).
    fn prepare(&self, language: Language) {
        if language != Language::Java || !self.options.java_class_archive {
            return;
        }
        self.java_archive.get_or_init(|| {
            if self.sandbox.java_archive().is_some() {
                return true;
            }
            let spec = java_archive_spec();
            match self.sandbox.install_java_archive(&spec) {
                Ok(_) => true,
                // Another runner on the same sandbox installed it first.
                Err(_) if self.sandbox.java_archive().is_some() => true,
                Err(e) => {
                    tracing::warn!(error = %e, "no Java class-data archive; Java runs load their classes");
                    false
                }
            }
        });
    }

    /// Whether the sandbox's class-data archive holds the suite harness (then suite runs
    /// compile only the implementation and the tests, and map the archive).
    fn java_suite_archived(&self) -> bool {
        self.sandbox
            .java_archive()
            .is_some_and(|a| a.serves(suite::JAVA_SUITE_CLASS))
    }

    /// Whether Java runs map the harness's class-data archive (after the first Java
    /// execution; `false` before, when switched off, or when building it failed).
    pub fn java_archive_installed(&self) -> bool {
        self.java_archive.get().copied().unwrap_or(false)
    }

    pub fn options(&self) -> &RunnerOptions {
        &self.options
    }

    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    fn core(&self) -> Core<'_, impl Fn(&ExecRequest) -> Result<ExecOutcome, SandboxError> + '_> {
        // The harness is our own code: the sandbox's warm slots may keep it loaded (from the
        // next judgement on; it is built by the first one that needs it).
        if let Some(Some(pyc)) = self.python_harness.get() {
            self.python_harness_trusted
                .call_once(|| self.sandbox.trust_python_bytecode(pyc.clone()));
        }
        Core {
            options: &self.options,
            exec: move |r: &ExecRequest| {
                let outcome = self.sandbox.execute(r);
                if let Ok(o) = &outcome {
                    let mut stats = self.exec_stats.lock().unwrap_or_else(|e| e.into_inner());
                    let count = stats.entry(program_kind(r)).or_default();
                    count.executions += 1;
                    count.cpu_us += o.cpu_us;
                }
                outcome
            },
            runtimes: &self.runtimes,
            java_harness: &self.java_harness,
            python_harness: &self.python_harness,
        }
    }

    /// The runtime version the language's harness last reported (e.g. `python 3.11.2`), for
    /// records.
    pub fn runtime_version(&self, language: Language) -> Option<String> {
        self.runtimes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&language)
            .cloned()
    }

    /// The execution's CPU limit: startup allowance plus the tests' allowance, which grows
    /// with the number of tests run (see `Core::tests_cpu_ms`).
    pub fn cpu_limit_ms(&self, task: &Task, language: Language) -> u64 {
        self.core().cpu_limit_ms(task, language)
    }

    /// Runs the task's tests for `language` on `candidate` (a complete answer; the variant's
    /// preamble, if any, is put before it) in one execution and decides the verdict.
    pub fn evaluate(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
    ) -> Result<Verdict, RunnerError> {
        self.prepare(language);
        self.core().evaluate(task, language, candidate)
    }

    /// Intake: runs `code` (a reference solution), then `check_code` (assertion-style tests)
    /// with the entry point wrapped, recording each top-level call's arguments (encoded before
    /// the call) and outcome. If the check code only defines `check(candidate)` (HumanEval),
    /// it is called with the wrapped entry point. Python and JavaScript (CommonJS) only.
    pub fn record_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        check_code: &str,
    ) -> Result<Vec<RecordedCall>, RunnerError> {
        self.core()
            .record_calls(language, code, entry_point, check_code)
    }

    /// Intake: runs `code` (a reference) on each argument list, in one execution, and returns
    /// each call's outcome (to compute expected values). `class_name`: the class holding the
    /// entry point (Java: defaults to `Solution`; static or instance method).
    pub fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, RunnerError> {
        self.prepare(language);
        self.core()
            .run_calls(language, code, entry_point, class_name, calls)
    }

    /// [`Runner::run_calls`] with each call stopped past `per_call_cpu_ms` of CPU (not the
    /// intake allowance): intake screens generated inputs this way, where a call stuck in a
    /// loop should cost little.
    pub fn run_calls_within(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
        per_call_cpu_ms: u64,
    ) -> Result<Vec<Result<Value, ErrorInfo>>, RunnerError> {
        self.prepare(language);
        self.core().run_calls_within(
            language,
            code,
            entry_point,
            class_name,
            calls,
            per_call_cpu_ms,
        )
    }

    /// [`Runner::run_calls_within`] that keeps what completed when the execution ends early
    /// (test-suite strength: which inputs a mutant of the reference gets wrong). Compile and
    /// load failures are still errors.
    pub fn run_calls_until(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
        per_call_cpu_ms: u64,
    ) -> Result<PartialCalls, RunnerError> {
        self.prepare(language);
        self.core().run_calls_until(
            language,
            code,
            entry_point,
            class_name,
            calls,
            per_call_cpu_ms,
        )
    }

    /// Unit-test writing: runs `tests` (an answer's test suite) against `implementation` (a
    /// complete program: the task's reference or one faulty variant, preamble included) in
    /// one execution, and reports each discovered test's result. See [`suite`].
    pub fn run_suite(
        &self,
        language: Language,
        implementation: &str,
        tests: &str,
        target: &SuiteTarget<'_>,
    ) -> Result<SuiteOutcome, RunnerError> {
        self.prepare(language);
        let archived = language == Language::Java && self.java_suite_archived();
        self.core()
            .run_suite(language, implementation, tests, target, archived)
    }
}

/// The runner's logic over any executor. Only [`Runner`] (the sandbox) constructs one outside
/// tests: there is no unsandboxed path.
struct Core<'a, E> {
    options: &'a RunnerOptions,
    exec: E,
    runtimes: &'a Mutex<BTreeMap<Language, String>>,
    java_harness: &'a OnceLock<Option<Vec<InputFile>>>,
    python_harness: &'a OnceLock<Option<Vec<u8>>>,
}

impl<E: Fn(&ExecRequest) -> Result<ExecOutcome, SandboxError>> Core<'_, E> {
    fn note_runtime(&self, language: Language, t: &Transcript) {
        if let Some(r) = &t.runtime {
            self.runtimes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(language, r.clone());
        }
    }

    /// The Java harness compiled once, through the sandbox like everything else (its class
    /// files come back as a hex dump on stdout).
    fn java_harness(&self) -> Option<&[InputFile]> {
        self.java_harness
            .get_or_init(|| {
                let (files, steps) = harness::java_harness_build();
                let limits = self.limits(self.options.intake_cpu_ms, None);
                let request = ExecRequest {
                    steps,
                    files,
                    stdin: Vec::new(),
                    channel_input: Vec::new(),
                    limits,
                    prestart: None,
                    frame_budgets: None,
                };
                match (self.exec)(&request) {
                    Ok(out) if out.status == passrate_sandbox::ExecStatus::Ok && !out.truncated => {
                        harness::parse_class_dump(&out.stdout)
                    }
                    Ok(out) => {
                        tracing::warn!(status = ?out.status, "precompiling the Java harness failed; compiling it with each candidate");
                        None
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "precompiling the Java harness failed; compiling it with each candidate");
                        None
                    }
                }
            })
            .as_deref()
    }

    /// The Python harness compiled once to bytecode, through the sandbox like everything else.
    fn python_harness(&self) -> Option<&[u8]> {
        self.python_harness
            .get_or_init(|| {
                let (files, steps) = harness::python_harness_build();
                let request = ExecRequest {
                    steps,
                    files,
                    stdin: Vec::new(),
                    channel_input: Vec::new(),
                    limits: self.limits(self.options.intake_cpu_ms, None),
                    prestart: None,
                    frame_budgets: None,
                };
                let built = match (self.exec)(&request) {
                    Ok(out) if out.status == passrate_sandbox::ExecStatus::Ok && !out.truncated => {
                        harness::parse_pyc_hex(&out.stdout)
                    }
                    _ => None,
                };
                if built.is_none() {
                    tracing::warn!(
                        "precompiling the Python harness failed; compiling it in each execution"
                    );
                }
                built
            })
            .as_deref()
    }

    /// The execution layout; Java candidates that cannot name the harness are compiled alone
    /// beside its prebuilt classes.
    fn layout(
        &self,
        language: Language,
        source: &str,
        class: Option<&str>,
        check: Option<&str>,
    ) -> harness::Layout {
        if language == Language::Java
            && check.is_none()
            && harness::may_use_prebuilt(source)
            && let Some(classes) = self.java_harness()
        {
            return harness::java_layout(source, class, Some(classes));
        }
        if language == Language::Python {
            return harness::python_layout_with(
                language,
                source,
                class,
                check,
                self.python_harness(),
            );
        }
        harness::layout(language, source, class, check)
    }

    /// Per-test CPU budgets in µs, in the order the language runs its tests:
    /// `max(floor, factor × reference CPU)`. `None` without the reference's calibration.
    fn test_budgets_us(&self, task: &Task, language: Language) -> Option<Vec<u64>> {
        let planned: Vec<usize> = task.tests_for(language).map(|(i, _)| i).collect();
        let refs = task.calibration.reference_test_cpu_us.get(&language)?;
        // Calibration is aligned with the language's tests, or with all of the task's tests.
        let per_test: Vec<u64> = if refs.len() == planned.len() {
            refs.clone()
        } else if refs.len() == task.tests.len() {
            planned.iter().map(|&i| refs[i]).collect()
        } else {
            return None;
        };
        let floor_us = self.options.budget_floor_ms * 1000;
        Some(
            per_test
                .iter()
                .map(|&r| floor_us.max((r as f64 * self.options.budget_factor).ceil() as u64))
                .collect(),
        )
    }

    /// The execution's CPU limit: startup allowance plus [`Self::tests_cpu_ms`].
    fn cpu_limit_ms(&self, task: &Task, language: Language) -> u64 {
        let lim = self.options.language(language);
        lim.startup_cpu_ms + self.tests_cpu_ms(task, language).max(1)
    }

    /// The tests' CPU allowance in one execution. It is the sum of the per-test budgets, so
    /// it grows with the tests run: a fixed cap let an answer within budget on every input
    /// run out of time on a task with many inputs (humaneval/96's 180). Each test is held to
    /// its own budget by the jail (`frame_budgets`); this sum only bounds what per-test
    /// checks cannot see (forged frames, a channel that stops looking like frames). Without
    /// calibration each test counts the floor, and the whole at least the language's
    /// `tests_cpu_ms`; a task's `limits.cpu_ms` replaces the computed allowance.
    fn tests_cpu_ms(&self, task: &Task, language: Language) -> u64 {
        if let Some(ms) = task.limits.cpu_ms {
            return ms;
        }
        match self.test_budgets_us(task, language) {
            Some(budgets) => budgets
                .iter()
                .fold(0u64, |sum, &b| sum.saturating_add(b))
                .div_ceil(1000),
            None => {
                let tests = task.tests_for(language).count() as u64;
                let floor_ms = tests.saturating_mul(self.options.budget_floor_ms);
                floor_ms.max(self.options.language(language).tests_cpu_ms)
            }
        }
    }

    /// What the jail enforces per test: each test's budget, doubled, plus
    /// [`FRAME_BUDGET_SLACK_US`], counted between the harness's result frames (after its
    /// `hello` and `loaded` frames). The jail's figure is the cgroup's CPU between two
    /// frames, which also holds decoding the arguments, encoding the result and the
    /// runtime's own threads (GC, JIT) that the harness's per-test figure leaves out; the
    /// slack keeps an answer as fast as the reference well clear of it, while a test stuck
    /// in a loop stops there instead of using up every later test's budget too.
    fn frame_budgets(&self, task: &Task, language: Language) -> Option<FrameBudgets> {
        let budgets = self.test_budgets_us(task, language)?;
        Some(FrameBudgets {
            skip: CALL_FRAMES_BEFORE_TESTS,
            cpu_us: budgets
                .iter()
                .map(|&b| b.saturating_mul(2).saturating_add(FRAME_BUDGET_SLACK_US))
                .collect(),
            then_each_us: None,
        })
    }

    fn limits(&self, cpu_ms: u64, task: Option<&Task>) -> Limits {
        let o = &self.options;
        let memory_bytes = task
            .and_then(|t| t.limits.memory_mib)
            .map_or(o.memory_bytes, |m| m << 20);
        let heap_bytes = task
            .and_then(|t| t.limits.heap_mib)
            .map_or(o.heap_bytes, |m| m << 20);
        Limits {
            cpu_ms,
            // Wall time only stops sleepers; CPU time decides, so load barely matters.
            wall_ms: cpu_ms * 2 + 5_000,
            memory_bytes,
            heap_bytes,
            pids: o.pids,
            workdir_bytes: o.workdir_bytes,
            output_bytes: o.output_bytes,
            setup_cpu_ms: o.compile_cpu_ms,
        }
    }

    fn execute(
        &self,
        layout: harness::Layout,
        request: &Request<'_>,
        limits: Limits,
    ) -> Result<ExecOutcome, RunnerError> {
        self.execute_with(layout, request, limits, None)
    }

    fn execute_with(
        &self,
        layout: harness::Layout,
        request: &Request<'_>,
        limits: Limits,
        frame_budgets: Option<FrameBudgets>,
    ) -> Result<ExecOutcome, RunnerError> {
        let exec = ExecRequest {
            steps: layout.steps,
            files: layout.files,
            stdin: Vec::new(),
            channel_input: request.to_bytes(),
            limits,
            prestart: layout.prestart,
            frame_budgets,
        };
        Ok((self.exec)(&exec)?)
    }

    /// Runs the task's tests for `language` on `candidate` (a complete answer; the variant's
    /// preamble, if any, is put before it) and decides the verdict.
    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
    ) -> Result<Verdict, RunnerError> {
        let variant = task
            .variants
            .get(&language)
            .ok_or_else(|| RunnerError::NoVariant {
                task: task.id.clone(),
                language,
            })?;
        let source = match &variant.preamble {
            Some(p) => format!("{p}\n{candidate}"),
            None => candidate.to_owned(),
        };
        // Expected values conformed to the declared types, once, on the host.
        let prepared = declared::prepare(task, language);
        let planned: Vec<Planned<'_>> = prepared.iter().map(declared::Prepared::planned).collect();
        let request_tests = request_tests(planned.iter().map(|p| p.test))?;
        check_name("entry point", &variant.entry_point)?;
        if let Some(c) = &variant.class_name {
            check_name("class name", c)?;
        }
        let layout = self.layout(language, &source, variant.class_name.as_deref(), None);
        let nonce = nonce()?;
        let compile_steps = layout.compile_steps;
        let class = layout.class.clone();
        let request = Request {
            nonce: &nonce,
            mode: Mode::Tests,
            entry: &variant.entry_point,
            class: class.as_deref(),
            file: &layout.candidate_file.clone(),
            check_file: None,
            tests: &request_tests,
        };
        let limits = self.limits(self.cpu_limit_ms(task, language), Some(task));
        let max_frame = limits.output_bytes as usize;
        let frame_budgets = self.frame_budgets(task, language);
        let outcome = self.execute_with(layout, &request, limits, frame_budgets)?;
        let transcript =
            protocol::parse_transcript(&outcome.channel_output, &nonce, false, max_frame);
        self.note_runtime(language, &transcript);
        let ex = Execution {
            task: &task.id,
            language,
            compile_steps,
            outcome: &outcome,
            transcript: &transcript,
        };
        if let Some(why) = judge::harness_missing(&ex) {
            return Err(RunnerError::HarnessDidNotStart(why));
        }
        Ok(judge::judge(&ex, &planned))
    }

    /// Intake: runs `code` (a reference solution), then `check_code` (assertion-style tests)
    /// with the entry point wrapped, recording each top-level call's arguments (before the
    /// call) and outcome. If the check code only defines `check(candidate)` (HumanEval), it is
    /// called with the wrapped entry point. Python and JavaScript (CommonJS) only.
    fn record_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        check_code: &str,
    ) -> Result<Vec<RecordedCall>, RunnerError> {
        if language == Language::Java {
            return Err(RunnerError::Unsupported(language));
        }
        check_name("entry point", entry_point)?;
        let layout = self.layout(language, code, None, Some(check_code));
        let check_file = match language {
            Language::Python => "check.py",
            _ => "check.js",
        };
        let nonce = nonce()?;
        let file = layout.candidate_file.clone();
        let request = Request {
            nonce: &nonce,
            mode: Mode::Record,
            entry: entry_point,
            class: None,
            file: &file,
            check_file: Some(check_file),
            tests: &[],
        };
        let lim = self.options.language(language);
        let limits = self.limits(lim.startup_cpu_ms + self.options.intake_cpu_ms, None);
        let max_frame = limits.output_bytes as usize;
        let outcome = self.execute(layout, &request, limits)?;
        let t = protocol::parse_transcript(&outcome.channel_output, &nonce, true, max_frame);
        self.note_runtime(language, &t);
        self.intake_failure(language, 0, &outcome, &t)?;
        if let Some(e) = t.check_error {
            return Err(RunnerError::CheckFailed(e));
        }
        if !t.done || outcome.status != passrate_sandbox::ExecStatus::Ok {
            let stop = judge::stop_reason(&outcome, &t);
            return Err(RunnerError::Reference {
                reason: stop.reason,
                detail: stop.detail,
            });
        }
        Ok(t.calls
            .into_iter()
            .map(|c| RecordedCall {
                args: c.args,
                outcome: c.outcome,
            })
            .collect())
    }

    /// Intake: runs `code` (a reference) on each argument list, in one execution, and returns
    /// each call's outcome (to compute expected values). `class_name`: the class holding the
    /// entry point (Java: defaults to `Solution`; static or instance method).
    fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, RunnerError> {
        let per_call = self.options.intake_cpu_ms;
        self.run_calls_within(language, code, entry_point, class_name, calls, per_call)
    }

    fn run_calls_within(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
        per_call_cpu_ms: u64,
    ) -> Result<Vec<Result<Value, ErrorInfo>>, RunnerError> {
        let partial = self.run_calls_until(
            language,
            code,
            entry_point,
            class_name,
            calls,
            per_call_cpu_ms,
        )?;
        match partial.stopped {
            None => Ok(partial.outcomes),
            Some(stop) => Err(RunnerError::Reference {
                reason: stop.reason,
                detail: format!(
                    "after {} of {} calls: {}",
                    partial.outcomes.len(),
                    calls.len(),
                    stop.detail
                ),
            }),
        }
    }

    fn run_calls_until(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<Value>],
        per_call_cpu_ms: u64,
    ) -> Result<PartialCalls, RunnerError> {
        check_name("entry point", entry_point)?;
        if let Some(c) = class_name {
            check_name("class name", c)?;
        }
        let tests: Vec<RequestTest> = calls
            .iter()
            .map(|args| RequestTest::Call { args: args.clone() })
            .collect();
        let layout = self.layout(language, code, class_name, None);
        let compile_steps = layout.compile_steps;
        let nonce = nonce()?;
        let file = layout.candidate_file.clone();
        let class = layout.class.clone();
        let request = Request {
            nonce: &nonce,
            mode: Mode::Tests,
            entry: entry_point,
            class: class.as_deref(),
            file: &file,
            check_file: None,
            tests: &tests,
        };
        let lim = self.options.language(language);
        let limits = self.limits(lim.startup_cpu_ms + self.options.intake_cpu_ms, None);
        let max_frame = limits.output_bytes as usize;
        // No single call may use more than the calls' whole allowance: without a per-call
        // budget, a call stuck in a loop also used up the unspent start-up allowance
        // (1–1.5 s) before the reference was given up.
        let per_call = FrameBudgets {
            skip: CALL_FRAMES_BEFORE_TESTS,
            cpu_us: Vec::new(),
            then_each_us: Some(per_call_cpu_ms.saturating_mul(1000)),
        };
        let outcome = self.execute_with(layout, &request, limits, Some(per_call))?;
        let t = protocol::parse_transcript(&outcome.channel_output, &nonce, false, max_frame);
        self.note_runtime(language, &t);
        self.intake_failure(language, compile_steps, &outcome, &t)?;
        let stopped = (t.tests.len() != calls.len()
            || !t.done
            || outcome.status != passrate_sandbox::ExecStatus::Ok)
            .then(|| {
                let stop = judge::stop_reason(&outcome, &t);
                CallsStopped {
                    reason: stop.reason,
                    detail: stop.detail,
                }
            });
        let outcomes = t
            .tests
            .into_iter()
            .map(|f| match f.outcome {
                Outcome::Single(r) => Ok(r),
                Outcome::Steps(_) => Err(RunnerError::Reference {
                    reason: Reason::RuntimeError,
                    detail: "steps reported for a call".to_owned(),
                }),
            })
            .collect::<Result<_, _>>()?;
        Ok(PartialCalls { outcomes, stopped })
    }

    /// The failures common to intake runs: no harness, compile and load errors.
    fn intake_failure(
        &self,
        language: Language,
        compile_steps: usize,
        outcome: &ExecOutcome,
        t: &Transcript,
    ) -> Result<(), RunnerError> {
        let ex = Execution {
            task: "",
            language,
            compile_steps,
            outcome,
            transcript: t,
        };
        if let Some(why) = judge::harness_missing(&ex) {
            return Err(RunnerError::HarnessDidNotStart(why));
        }
        if compile_steps > 0
            && outcome.step < compile_steps
            && outcome.status != passrate_sandbox::ExecStatus::Ok
        {
            return Err(RunnerError::Reference {
                reason: Reason::CompileError,
                detail: judge::tail(&outcome.stderr, 2000),
            });
        }
        match &t.load {
            protocol::Load::Failed(e) => Err(RunnerError::Reference {
                reason: if e.kind == "MissingEntryPoint" {
                    Reason::MissingEntryPoint
                } else {
                    Reason::RuntimeError
                },
                detail: format!("loading failed: {}: {}", e.kind, e.message),
            }),
            _ => Ok(()),
        }
    }
}

/// The request form of tests: inputs only, never expected values.
fn request_tests<'a>(
    tests: impl Iterator<Item = &'a TestCase>,
) -> Result<Vec<RequestTest>, RunnerError> {
    tests
        .map(|t| match &t.form {
            TestForm::Call { args, .. } => Ok(RequestTest::Call { args: args.clone() }),
            TestForm::Sequence {
                constructor_args,
                steps,
            } => {
                for s in steps {
                    check_name("method", &s.method)?;
                }
                Ok(RequestTest::Sequence {
                    constructor_args: constructor_args.clone(),
                    steps: steps
                        .iter()
                        .map(|s| (s.method.clone(), s.args.clone()))
                        .collect(),
                })
            }
        })
        .collect()
}

#[cfg(test)]
mod direct;
