//! Suite mode: runs an answer's unit tests against one implementation (a task's reference or
//! one of its faulty variants) and reports each test's pass or failure, for the unit-test
//! writing grader.
//!
//! One execution per implementation. The harness (`harness/suite.{py,js}`,
//! `harness/PassrateSuite.java`) loads the implementation under the same file, module and
//! class name whatever it is, removes its source from the work dir, loads the tests, discovers
//! their test functions deterministically, runs each under a CPU budget and writes frames on
//! fd 4: `hello` → `loaded` | `load_error` → `suite` (the test names) | `suite_error` → one
//! `case` frame per test, in order → `done`. Nothing the tests print counts; a test without
//! its frame failed, and a transcript that is not clean (early exit, violation, limit) fails
//! every test it did not report.

use passrate_sandbox::{ExecOutcome, ExecRequest, ExecStatus, FrameBudgets, Program};
use passrate_schema::{ErrorInfo, Language, LimitOverrides, Reason};
use serde_json::{Value as Json, json};

use crate::harness::{self, file};
use crate::judge;
use crate::protocol::{self, Load, Transcript};
use crate::{Core, RunnerError, check_name, nonce};

/// The Python suite harness.
pub const PYTHON_SUITE: &str = include_str!("../harness/suite.py");
/// The Node.js suite harness (CommonJS; `node:test` is replaced by its registry).
pub const NODE_SUITE: &str = include_str!("../harness/suite.js");
/// The Java suite harness: in the class-data archive's JAR (built on the host), or compiled
/// with the implementation and the tests when there is no archive.
pub const JAVA_SUITE: &str = include_str!("../harness/PassrateSuite.java");
/// The JDK, harness and stand-in classes a suite run loads, for the class-data archive (see
/// the file's header).
pub(crate) const JAVA_SUITE_CLASS_LIST: &str = include_str!("../harness/PassrateSuite.classlist");
/// The suite harness's main class (a top-level class of the archive's JAR when archived).
pub(crate) const JAVA_SUITE_CLASS: &str = "PassrateSuite";
/// The JUnit stand-ins (annotations and assertions): in the class-data archive's JAR, or
/// compiled with the tests when they mention `org.junit` and there is no archive.
pub const JUNIT_STANDIN: &[(&str, &str)] = &[
    (
        "org/junit/Test.java",
        include_str!("../harness/junit/org/junit/Test.java"),
    ),
    (
        "org/junit/Assert.java",
        include_str!("../harness/junit/org/junit/Assert.java"),
    ),
    (
        "org/junit/function/ThrowingRunnable.java",
        include_str!("../harness/junit/org/junit/function/ThrowingRunnable.java"),
    ),
    (
        "org/junit/jupiter/api/Test.java",
        include_str!("../harness/junit/org/junit/jupiter/api/Test.java"),
    ),
    (
        "org/junit/jupiter/api/Assertions.java",
        include_str!("../harness/junit/org/junit/jupiter/api/Assertions.java"),
    ),
    (
        "org/junit/jupiter/api/function/Executable.java",
        include_str!("../harness/junit/org/junit/jupiter/api/function/Executable.java"),
    ),
];

/// Every source of suite mode, for cache fingerprints.
pub fn suite_sources() -> impl Iterator<Item = &'static str> {
    [PYTHON_SUITE, NODE_SUITE, JAVA_SUITE]
        .into_iter()
        .chain(JUNIT_STANDIN.iter().map(|(_, s)| *s))
}

/// CPU budget of one test (the harness stops the suite at the first test that exceeds it).
pub const TEST_CPU_MS: u64 = 1_000;
/// CPU for all of a suite's tests together.
pub const SUITE_CPU_MS: u64 = 6_000;

/// What the tests run against.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteTarget<'a> {
    /// The function under test (what the tests call).
    pub entry_point: &'a str,
    /// Java: the class holding it (default `Solution`).
    pub class_name: Option<&'a str>,
    /// The task's memory overrides.
    pub limits: &'a LimitOverrides,
    pub test_cpu_ms: u64,
    pub suite_cpu_ms: u64,
}

impl<'a> SuiteTarget<'a> {
    pub fn new(
        entry_point: &'a str,
        class_name: Option<&'a str>,
        limits: &'a LimitOverrides,
    ) -> Self {
        SuiteTarget {
            entry_point,
            class_name,
            limits,
            test_cpu_ms: TEST_CPU_MS,
            suite_cpu_ms: SUITE_CPU_MS,
        }
    }
}

/// One discovered test and how it ended on this implementation.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    pub name: String,
    /// `pass`; `wrong_answer` (an assertion failed); `runtime_error` (another exception, or
    /// the suite stopped); `timeout`, `memory_limit`, `output_limit` (a limit stopped it).
    pub reason: Reason,
    pub error: Option<ErrorInfo>,
    /// CPU time the harness measured (informational).
    pub cpu_us: Option<u64>,
}

impl CaseResult {
    pub fn passed(&self) -> bool {
        self.reason == Reason::Pass
    }
}

/// Why an execution stopped reporting before the end.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteStop {
    pub reason: Reason,
    pub detail: String,
}

/// Everything one suite execution established, as trusted host code read it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SuiteOutcome {
    /// The implementation did not load (compile errors of Java tests are `suite_error`).
    pub load_error: Option<ErrorInfo>,
    /// The tests did not compile or load.
    pub suite_error: Option<ErrorInfo>,
    /// Whether the harness reported its discovery (the list of tests).
    pub discovered: bool,
    /// One entry per discovered test, in run order.
    pub cases: Vec<CaseResult>,
    /// Set when the execution did not end cleanly after reporting every test.
    pub stop: Option<SuiteStop>,
    pub cpu_us: u64,
    pub wall_us: u64,
    pub peak_memory_bytes: Option<u64>,
}

impl SuiteOutcome {
    /// Every discovered test passed and the execution ended cleanly (an empty suite too).
    pub fn all_passed(&self) -> bool {
        self.load_error.is_none()
            && self.suite_error.is_none()
            && self.discovered
            && self.stop.is_none()
            && self.cases.iter().all(CaseResult::passed)
    }

    pub fn first_failure(&self) -> Option<&CaseResult> {
        self.cases.iter().find(|c| !c.passed())
    }
}

/// The suite frames as far as they were well-formed.
#[derive(Debug, Default)]
struct SuiteTranscript {
    base: Transcript,
    suite_error: Option<ErrorInfo>,
    names: Option<Vec<String>>,
    cases: Vec<(Result<(), ErrorInfo>, u64)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Hello,
    Load,
    Suite,
    Cases,
    Finished,
}

/// Parses the channel output of a suite execution. Never panics: the tests share the process
/// with the harness, so every byte is untrusted.
fn parse(bytes: &[u8], nonce: &str, max_frame: usize) -> SuiteTranscript {
    let mut t = SuiteTranscript::default();
    let mut pos = 0usize;
    let mut seq = 0u64;
    let mut phase = Phase::Hello;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        let Some(nl) = rest
            .iter()
            .take(protocol::MAX_HEADER + 1)
            .position(|&b| b == b'\n')
        else {
            if rest.len() <= protocol::MAX_HEADER
                && b"PASSRATE ".starts_with(&rest[..rest.len().min(9)])
            {
                t.base.truncated = true;
            } else {
                t.base.violation = Some(format!("garbage on the result channel at byte {pos}"));
            }
            return t;
        };
        let Ok(header) = std::str::from_utf8(&rest[..nl]) else {
            t.base.violation = Some(format!("garbage on the result channel at byte {pos}"));
            return t;
        };
        let len = match protocol::parse_header(header, nonce, seq) {
            Ok(len) => len,
            Err(why) => {
                t.base.violation = Some(format!("{why} at byte {pos}"));
                return t;
            }
        };
        if len > max_frame {
            t.base.violation = Some(format!(
                "frame of {len} bytes exceeds the {max_frame}-byte limit"
            ));
            return t;
        }
        let body = nl + 1;
        if rest.len() < body + len + 1 {
            t.base.truncated = true;
            return t;
        }
        if rest[body + len] != b'\n' {
            t.base.violation = Some(format!("frame {seq} is not terminated"));
            return t;
        }
        if phase == Phase::Finished {
            t.base.violation = Some(format!("frame {seq} after the end of the transcript"));
            return t;
        }
        if let Err(why) = accept(&mut t, &mut phase, &rest[body..body + len]) {
            t.base.violation = Some(format!("frame {seq}: {why}"));
            return t;
        }
        pos += body + len + 1;
        seq += 1;
    }
    t
}

fn accept(t: &mut SuiteTranscript, phase: &mut Phase, payload: &[u8]) -> Result<(), String> {
    let (kind, value, rest) = protocol::single_key(payload)?;
    match (*phase, kind.as_str()) {
        (Phase::Hello, "hello") => {
            protocol::no_extra(&rest, &[])?;
            let runtime = value
                .get("runtime")
                .and_then(Json::as_str)
                .ok_or("hello without a runtime")?;
            t.base.runtime = Some(runtime.to_owned());
            *phase = Phase::Load;
        }
        (Phase::Load, "loaded") => {
            protocol::no_extra(&rest, &[])?;
            t.base.load = Load::Loaded;
            *phase = Phase::Suite;
        }
        (Phase::Load, "load_error") => {
            protocol::no_extra(&rest, &[])?;
            t.base.load = Load::Failed(protocol::error_info(&value)?);
            *phase = Phase::Finished;
        }
        (Phase::Suite, "suite") => {
            protocol::no_extra(&rest, &[])?;
            let Json::Array(items) = value else {
                return Err("suite is a list of names".to_owned());
            };
            let names = items
                .iter()
                .map(|n| {
                    n.as_str()
                        .map(str::to_owned)
                        .ok_or("a test name is a string")
                })
                .collect::<Result<Vec<_>, _>>()?;
            t.names = Some(names);
            *phase = Phase::Cases;
        }
        (Phase::Suite, "suite_error") => {
            protocol::no_extra(&rest, &[])?;
            t.suite_error = Some(protocol::error_info(&value)?);
            *phase = Phase::Finished;
        }
        (Phase::Cases, "case") => {
            let index = value.as_u64().ok_or("a case index is a number")?;
            let total = t.names.as_ref().map_or(0, Vec::len);
            if index != t.cases.len() as u64 || t.cases.len() >= total {
                return Err(format!(
                    "result for test {index} out of turn (expected {})",
                    t.cases.len()
                ));
            }
            let cpu_us = rest
                .get("cpu_us")
                .and_then(Json::as_u64)
                .ok_or("a case frame without cpu_us")?;
            let result = match (rest.get("ok"), rest.get("error")) {
                (Some(Json::Null), None) => {
                    protocol::no_extra(&rest, &["ok", "cpu_us"])?;
                    Ok(())
                }
                (None, Some(e)) => {
                    protocol::no_extra(&rest, &["error", "cpu_us"])?;
                    Err(protocol::error_info(e)?)
                }
                _ => return Err("a case has exactly one of ok (null), error".to_owned()),
            };
            t.cases.push((result, cpu_us));
        }
        (Phase::Cases, "done") => {
            protocol::no_extra(&rest, &[])?;
            if !value.is_null() {
                return Err("done carries no value".to_owned());
            }
            let total = t.names.as_ref().map_or(0, Vec::len);
            if t.cases.len() != total {
                return Err(format!(
                    "done after {} of {total} test results",
                    t.cases.len()
                ));
            }
            t.base.done = true;
            *phase = Phase::Finished;
        }
        (_, "harness_error") => {
            protocol::no_extra(&rest, &[])?;
            t.base.harness_error = Some(protocol::error_info(&value)?);
            *phase = Phase::Finished;
        }
        (_, other) => return Err(format!("unexpected {other:?} frame")),
    }
    Ok(())
}

fn case_reason(e: &ErrorInfo) -> Reason {
    match e.kind.as_str() {
        "TestTimeout" => Reason::Timeout,
        "MemoryError" | "OutOfMemoryError" => Reason::MemoryLimit,
        "AssertionError" | "AssertionFailedError" | "unittest.case.AssertionError" => {
            Reason::WrongAnswer
        }
        k if k.ends_with("AssertionError") => Reason::WrongAnswer,
        _ => Reason::RuntimeError,
    }
}

/// Turns an execution into its outcome: what the frames say, and for every test without a
/// frame, why the execution stopped.
fn decide(
    outcome: &ExecOutcome,
    compile_steps: usize,
    t: SuiteTranscript,
) -> Result<SuiteOutcome, RunnerError> {
    let mut out = SuiteOutcome {
        cpu_us: outcome.cpu_us,
        wall_us: outcome.wall_us,
        peak_memory_bytes: outcome.peak_memory_bytes,
        ..SuiteOutcome::default()
    };
    let compile_failed =
        compile_steps > 0 && outcome.step < compile_steps && outcome.status != ExecStatus::Ok;
    if compile_failed {
        // The implementations are compiled at intake, so the tests are what did not compile,
        // unless a limit stopped javac.
        let mut text = judge::tail(&outcome.stderr, 2000);
        if text.is_empty() {
            text = judge::tail(&outcome.stdout, 2000);
        }
        match outcome.status {
            ExecStatus::Timeout | ExecStatus::MemoryLimit => {
                out.stop = Some(SuiteStop {
                    reason: if outcome.status == ExecStatus::Timeout {
                        Reason::Timeout
                    } else {
                        Reason::MemoryLimit
                    },
                    detail: format!("compiling the tests stopped: {}", outcome.status.as_str()),
                });
            }
            _ => {
                out.suite_error = Some(ErrorInfo {
                    kind: "CompileError".to_owned(),
                    message: text,
                });
            }
        }
        return Ok(out);
    }
    if t.base.runtime.is_none() {
        return Err(RunnerError::HarnessDidNotStart(format!(
            "the suite harness did not start ({}, exit {:?}, signal {:?}): {}",
            outcome.status.as_str(),
            outcome.exit_code,
            outcome.signal,
            judge::tail(&outcome.stderr, 2000)
        )));
    }
    let clean = t.base.done
        && t.base.violation.is_none()
        && t.base.harness_error.is_none()
        && outcome.status == ExecStatus::Ok;
    let stop = (!clean).then(|| judge::stop_reason(outcome, &t.base));
    if let Load::Failed(e) = &t.base.load {
        out.load_error = Some(e.clone());
        return Ok(out);
    }
    if let Some(e) = t.suite_error {
        out.suite_error = Some(e);
        return Ok(out);
    }
    out.discovered = t.names.is_some();
    let names = t.names.unwrap_or_default();
    for (i, name) in names.into_iter().enumerate() {
        let case = match t.cases.get(i) {
            Some((Ok(()), us)) => CaseResult {
                name,
                reason: Reason::Pass,
                error: None,
                cpu_us: Some(*us),
            },
            Some((Err(e), us)) => CaseResult {
                name,
                reason: case_reason(e),
                error: Some(e.clone()),
                cpu_us: Some(*us),
            },
            None => {
                let s = stop
                    .as_ref()
                    .expect("a missing result means an unclean end");
                CaseResult {
                    name,
                    reason: s.reason,
                    error: Some(s.error.clone().unwrap_or_else(|| ErrorInfo {
                        kind: "NotRun".to_owned(),
                        message: s.detail.clone(),
                    })),
                    cpu_us: None,
                }
            }
        };
        out.cases.push(case);
    }
    out.stop = stop.map(|s| SuiteStop {
        reason: s.reason,
        detail: s.detail,
    });
    Ok(out)
}

/// The top-level type names a Java source declares (with its package), which the harness
/// treats as the tests' classes.
pub(crate) fn java_top_level_types(source: &str) -> Vec<String> {
    let stripped = harness::strip_java_comments(source);
    let (_, package) = harness::java_file_name(source);
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut prev_keyword = false;
    let mut word = String::new();
    let flush = |word: &mut String, depth: i32, prev_keyword: &mut bool, out: &mut Vec<String>| {
        if word.is_empty() {
            return;
        }
        if depth == 0 {
            if *prev_keyword {
                let name = match &package {
                    Some(p) => format!("{p}.{word}"),
                    None => word.clone(),
                };
                if !out.contains(&name) {
                    out.push(name);
                }
                *prev_keyword = false;
            } else {
                *prev_keyword = matches!(word.as_str(), "class" | "interface" | "enum" | "record");
            }
        }
        word.clear();
    };
    for c in stripped.chars() {
        if c.is_alphanumeric() || c == '_' || c == '$' {
            word.push(c);
            continue;
        }
        flush(&mut word, depth, &mut prev_keyword, &mut out);
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            // `@interface` declares an annotation type: its name is a type too.
            '@' => {}
            _ => {}
        }
    }
    flush(&mut word, depth, &mut prev_keyword, &mut out);
    out
}

/// The tests' file name: after a public top-level type if there is one (javac requires it).
fn java_tests_file(tests: &str) -> String {
    let (name, _) = harness::java_file_name(tests);
    if name == "Solution.java" && !tests.contains("public class Solution") {
        "Tests.java".to_owned()
    } else {
        name
    }
}

const PY_SUITE_FILE: &str = "passrate_suite.py";
const JS_SUITE_FILE: &str = "passrate_suite.cjs";

struct SuiteLayout {
    files: Vec<passrate_sandbox::InputFile>,
    steps: Vec<Program>,
    file: String,
    tests_file: String,
    compile_steps: usize,
    class: Option<String>,
    test_classes: Vec<String>,
}

/// `archived`: the sandbox's class-data archive holds the suite harness and the JUnit
/// stand-ins (host-built, first on the class path of javac and of the run), so only the
/// implementation and the tests are compiled.
fn layout(
    language: Language,
    implementation: &str,
    tests: &str,
    class: Option<&str>,
    archived: bool,
) -> SuiteLayout {
    match language {
        Language::Python => SuiteLayout {
            files: vec![
                file(PY_SUITE_FILE, PYTHON_SUITE),
                file("solution.py", implementation),
                file("test_solution.py", tests),
            ],
            steps: vec![Program::Python {
                script: PY_SUITE_FILE.to_owned(),
                args: Vec::new(),
            }],
            file: "solution.py".to_owned(),
            tests_file: "test_solution.py".to_owned(),
            compile_steps: 0,
            class: None,
            test_classes: Vec::new(),
        },
        Language::Javascript => SuiteLayout {
            files: vec![
                file(JS_SUITE_FILE, NODE_SUITE),
                file("solution.js", implementation),
                file("solution.test.js", tests),
            ],
            steps: vec![Program::Node {
                script: JS_SUITE_FILE.to_owned(),
                args: Vec::new(),
            }],
            file: "solution.js".to_owned(),
            tests_file: "solution.test.js".to_owned(),
            compile_steps: 0,
            class: None,
            test_classes: Vec::new(),
        },
        Language::Java => {
            let (impl_file, package) = harness::java_file_name(implementation);
            let tests_file = java_tests_file(tests);
            let class = class.unwrap_or("Solution");
            let qualified = match package {
                Some(p) => format!("{p}.{class}"),
                None => class.to_owned(),
            };
            let mut files = vec![file(&impl_file, implementation), file(&tests_file, tests)];
            let mut sources = vec![impl_file.clone(), tests_file.clone()];
            // The stand-in is needed only when the tests use JUnit's names.
            let junit = tests.contains("org.junit");
            if !archived {
                files.push(file("PassrateSuite.java", JAVA_SUITE));
                sources.push("PassrateSuite.java".to_owned());
                if junit {
                    for (path, src) in JUNIT_STANDIN {
                        files.push(file(path, src));
                        sources.push((*path).to_owned());
                    }
                }
            }
            SuiteLayout {
                files,
                steps: vec![
                    Program::Javac {
                        sources,
                        archive: archived && junit,
                    },
                    Program::Java {
                        main_class: JAVA_SUITE_CLASS.to_owned(),
                        args: Vec::new(),
                    },
                ],
                file: impl_file,
                tests_file,
                compile_steps: 1,
                class: Some(qualified),
                test_classes: java_top_level_types(tests),
            }
        }
    }
}

/// Frames a suite harness writes before its first test's result: `hello`, `loaded`, `suite`.
const SUITE_FRAMES_BEFORE_CASES: u32 = 3;

/// The jail's per-test CPU budgets of a suite run. The Python and Java suite harnesses stop
/// a test at `test_cpu_ms` of its thread's CPU themselves. Node cannot interrupt synchronous
/// code by CPU time, so its harness stops a test at three times that in wall time, which
/// load shortens or stretches; the jail stops it at `test_cpu_ms` of the process's CPU
/// (plus the call tests' slack), which load does not change. Intake's evaluations of the
/// two unit-test tasks with a looping faulty variant (humaneval/10, /156) took 2.5–2.75 s
/// of CPU each with the wall-time budget alone, 1.31 s with this one.
fn suite_frame_budgets(language: Language, test_cpu_ms: u64) -> Option<FrameBudgets> {
    (language == Language::Javascript).then(|| FrameBudgets {
        skip: SUITE_FRAMES_BEFORE_CASES,
        cpu_us: Vec::new(),
        then_each_us: Some(
            test_cpu_ms
                .saturating_mul(1000)
                .saturating_add(crate::FRAME_BUDGET_SLACK_US),
        ),
    })
}

impl<E: Fn(&ExecRequest) -> Result<ExecOutcome, SandboxError>> Core<'_, E> {
    pub(crate) fn run_suite(
        &self,
        language: Language,
        implementation: &str,
        tests: &str,
        target: &SuiteTarget<'_>,
        archived: bool,
    ) -> Result<SuiteOutcome, RunnerError> {
        check_name("entry point", target.entry_point)?;
        if let Some(c) = target.class_name {
            check_name("class name", c)?;
        }
        let l = layout(language, implementation, tests, target.class_name, archived);
        let nonce = nonce()?;
        let request = json!({
            "nonce": nonce,
            "mode": "suite",
            "entry": target.entry_point,
            "class": l.class,
            "file": l.file,
            "tests_file": l.tests_file,
            "test_classes": l.test_classes,
            "test_cpu_ms": target.test_cpu_ms,
        });
        let lim = self.options.language(language);
        let mut limits = self.limits(lim.startup_cpu_ms + target.suite_cpu_ms, None);
        if let Some(m) = target.limits.memory_mib {
            limits.memory_bytes = m << 20;
        }
        if let Some(h) = target.limits.heap_mib {
            limits.heap_bytes = h << 20;
        }
        let max_frame = limits.output_bytes as usize;
        let exec = ExecRequest {
            steps: l.steps,
            files: l.files,
            stdin: Vec::new(),
            channel_input: serde_json::to_vec(&request).expect("a JSON document serialises"),
            limits,
            // Suites load their implementation and tests from files; a pre-started jail
            // would need them before the hand-over.
            prestart: None,
            frame_budgets: suite_frame_budgets(language, target.test_cpu_ms),
        };
        let outcome = (self.exec)(&exec)?;
        let t = parse(&outcome.channel_output, &nonce, max_frame);
        if let Some(r) = &t.base.runtime {
            self.runtimes
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(language, r.clone());
        }
        decide(&outcome, l.compile_steps, t)
    }
}

use passrate_sandbox::SandboxError;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::frame;

    const N: &str = "00ff";

    fn stream(frames: &[&str]) -> Vec<u8> {
        frames
            .iter()
            .enumerate()
            .flat_map(|(i, f)| frame(N, i as u64, f))
            .collect()
    }

    fn ok_outcome(channel: Vec<u8>) -> ExecOutcome {
        ExecOutcome {
            status: ExecStatus::Ok,
            step: 0,
            exit_code: Some(0),
            signal: None,
            cpu_us: 1,
            wall_us: 1,
            peak_memory_bytes: None,
            stdout: Vec::new(),
            stderr: Vec::new(),
            channel_output: channel,
            truncated: false,
        }
    }

    fn run(frames: &[&str]) -> SuiteOutcome {
        let bytes = stream(frames);
        decide(&ok_outcome(bytes.clone()), 0, parse(&bytes, N, 1 << 20)).expect("started")
    }

    const HEAD: [&str; 3] = [
        r#"{"hello":{"runtime":"python 3"}}"#,
        r#"{"loaded":null}"#,
        r#"{"suite":["test_a","test_b"]}"#,
    ];

    #[test]
    fn a_complete_suite_passes() {
        let mut f = HEAD.to_vec();
        f.extend([
            r#"{"case":0,"ok":null,"cpu_us":3}"#,
            r#"{"case":1,"ok":null,"cpu_us":3}"#,
            r#"{"done":null}"#,
        ]);
        let o = run(&f);
        assert!(o.all_passed(), "{o:?}");
        assert_eq!(o.cases.len(), 2);
    }

    #[test]
    fn a_missing_result_is_a_failure_even_after_a_clean_exit() {
        let mut f = HEAD.to_vec();
        f.push(r#"{"case":0,"ok":null,"cpu_us":3}"#);
        let o = run(&f);
        assert!(!o.all_passed());
        let failed = o.first_failure().expect("test_b failed");
        assert_eq!(failed.name, "test_b");
        assert_eq!(failed.reason, Reason::RuntimeError);
        assert_eq!(failed.error.as_ref().unwrap().kind, "EarlyExit");
    }

    #[test]
    fn done_before_every_result_is_a_violation() {
        let mut f = HEAD.to_vec();
        f.extend([r#"{"case":0,"ok":null,"cpu_us":3}"#, r#"{"done":null}"#]);
        let o = run(&f);
        assert!(!o.all_passed());
        assert_eq!(
            o.first_failure().unwrap().error.as_ref().unwrap().kind,
            "ProtocolViolation"
        );
    }

    #[test]
    fn duplicate_and_extra_results_are_violations() {
        let mut f = HEAD.to_vec();
        f.extend([
            r#"{"case":0,"ok":null,"cpu_us":3}"#,
            r#"{"case":0,"ok":null,"cpu_us":3}"#,
        ]);
        assert!(!run(&f).all_passed());
        let mut f = HEAD.to_vec();
        f.extend([
            r#"{"case":0,"ok":null,"cpu_us":3}"#,
            r#"{"case":1,"ok":null,"cpu_us":3}"#,
            r#"{"case":2,"ok":null,"cpu_us":3}"#,
            r#"{"done":null}"#,
        ]);
        assert!(!run(&f).all_passed());
    }

    #[test]
    fn failures_carry_their_error() {
        let mut f = HEAD.to_vec();
        f.extend([
            r#"{"case":0,"error":{"kind":"AssertionError","message":"line 3: assert f(1) == 2"},"cpu_us":3}"#,
            r#"{"case":1,"error":{"kind":"TestTimeout","message":"budget"},"cpu_us":3}"#,
            r#"{"done":null}"#,
        ]);
        let o = run(&f);
        assert_eq!(o.cases[0].reason, Reason::WrongAnswer);
        assert_eq!(o.cases[1].reason, Reason::Timeout);
    }

    #[test]
    fn garbage_never_passes_and_never_panics() {
        let full = {
            let mut f = HEAD.to_vec();
            f.extend([
                r#"{"case":0,"ok":null,"cpu_us":3}"#,
                r#"{"case":1,"ok":null,"cpu_us":3}"#,
                r#"{"done":null}"#,
            ]);
            stream(&f)
        };
        for cut in 0..full.len() {
            let bytes = &full[..cut];
            if let Ok(o) = decide(&ok_outcome(bytes.to_vec()), 0, parse(bytes, N, 1 << 20)) {
                assert!(!o.all_passed(), "cut at {cut}");
            }
            let mut flipped = full.clone();
            flipped[cut] ^= 0x20;
            if let Ok(o) = decide(&ok_outcome(flipped.clone()), 0, parse(&flipped, N, 1 << 20)) {
                // A flipped byte inside a test name or a number can still parse.
                let _ = o;
            }
        }
    }

    #[test]
    fn java_top_level_types_are_found() {
        let src = "import org.junit.Test;\n// class Fake {}\npublic class SolutionTest {\n  class Inner {}\n  @Test public void t() { String s = \"class X\"; }\n}\nfinal class Helper {}\n";
        assert_eq!(java_top_level_types(src), vec!["SolutionTest", "Helper"]);
        assert_eq!(java_tests_file(src), "SolutionTest.java");
        assert_eq!(
            java_tests_file("class T { static void testA() {} }"),
            "Tests.java"
        );
    }

    #[test]
    fn archived_java_suites_compile_only_the_implementation_and_the_tests() {
        let junit = "import org.junit.Test;\npublic class AddTest { @Test public void t() {} }\n";
        let plain = "class T { static void testA() {} }\n";
        let imp = "class Solution { int add(int a, int b) { return a + b; } }\n";
        let paths = |l: &SuiteLayout| l.files.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
        let javac = |l: &SuiteLayout| match &l.steps[0] {
            Program::Javac { sources, archive } => (sources.clone(), *archive),
            other => panic!("{other:?}"),
        };
        let l = layout(Language::Java, imp, junit, None, true);
        assert_eq!(paths(&l), vec!["Solution.java", "AddTest.java"]);
        assert_eq!(
            javac(&l),
            (vec!["Solution.java".into(), "AddTest.java".into()], true)
        );
        let l = layout(Language::Java, imp, plain, None, true);
        assert_eq!(
            javac(&l),
            (vec!["Solution.java".into(), "Tests.java".into()], false)
        );
        // Without an archive: today's layout, everything compiled in the execution.
        let l = layout(Language::Java, imp, junit, None, false);
        let (sources, archive) = javac(&l);
        assert!(!archive);
        assert_eq!(sources.len(), 3 + JUNIT_STANDIN.len(), "{sources:?}");
        assert!(sources.contains(&"PassrateSuite.java".to_owned()));
        assert!(sources.contains(&"org/junit/jupiter/api/Assertions.java".to_owned()));
        let l = layout(Language::Java, imp, plain, None, false);
        assert_eq!(javac(&l).0.len(), 3);
        assert!(
            matches!(&l.steps[1], Program::Java { main_class, .. } if main_class == JAVA_SUITE_CLASS)
        );
    }

    /// The three suites the class list is made from (its header): plain static tests, JUnit 5
    /// and JUnit 4, passing and failing, with the implementation they test.
    const CLASS_LIST_IMPLEMENTATION: &str = "import java.util.*;\n\
        class Solution {\n\
          public int add(int a, int b) { return a + b; }\n\
          public List<Integer> twice(List<Integer> xs) { List<Integer> r = new ArrayList<>(); for (int x : xs) r.add(2 * x); return r; }\n\
        }\n";
    const CLASS_LIST_SUITES: &[(&str, &str, &str)] = &[
        (
            "PlainTest",
            "import java.util.*;\n\
             public class PlainTest {\n\
               static void testAdd() { assert new Solution().add(1, 2) == 3; }\n\
               static void testTwice() { Map<String, Integer> m = new HashMap<>(); m.put(\"a\", 1); \
             assert new Solution().twice(Arrays.asList(1, 2)).equals(List.of(2, 4)) && m.get(\"a\") == 1; }\n\
               static void testWrong() { assert new Solution().add(2, 2) == 5 : \"2+2\"; }\n\
               static void testThrows() { throw new IllegalStateException(\"boom\"); }\n\
             }\n",
            "PlainTest.testAdd",
        ),
        (
            "AddTest",
            "import org.junit.jupiter.api.Test;\n\
             import static org.junit.jupiter.api.Assertions.*;\n\
             class AddTest {\n\
               @Test void adds() { assertEquals(3, new Solution().add(1, 2)); assertTrue(true); assertFalse(false); }\n\
               @Test void wrong() { assertEquals(5, new Solution().add(2, 2), \"2+2\"); }\n\
               @Test void throwsNothing() { assertThrows(ArithmeticException.class, () -> new Solution().add(1, 1)); }\n\
               @Test void throwsIt() { assertThrows(ArithmeticException.class, () -> { int z = 0; int x = 1 / z; }); }\n\
             }\n",
            "AddTest.adds",
        ),
        (
            "AddTest4",
            "import org.junit.Test;\n\
             import static org.junit.Assert.*;\n\
             public class AddTest4 {\n\
               @Test public void adds() { assertEquals(\"sum\", 3, new Solution().add(1, 2)); assertTrue(true); }\n\
               @Test public void delta() { assertEquals(\"near\", 3.0, (double) new Solution().add(1, 2), 1e-9); }\n\
               @Test public void wrong() { assertEquals(\"2+2\", 5, new Solution().add(2, 2)); }\n\
               @Test public void throwsIt() { assertThrows(ArithmeticException.class, () -> { int z = 0; int x = 1 / z; }); }\n\
             }\n",
            "AddTest4.adds",
        ),
    ];

    /// The archive's class list covers what suite runs load (the file's header says how it is
    /// made): a class missing from it (a JDK class, or a harness or stand-in class) is parsed
    /// at every run. The list is JDK 17's; other JDKs skip the check. With
    /// `PASSRATE_WRITE_SUITE_CLASSLIST=FILE`, the merged runs' classes are written to FILE.
    #[test]
    fn the_java_class_list_covers_suite_runs() {
        use std::process::Command;
        if !crate::harness::tests::java_17_here() {
            return;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        // The archive's JAR, as the sandbox builds it: harness, suite harness, stand-ins.
        let src = d.join("src");
        let mut sources = vec![
            (
                "PassrateHarness.java".to_owned(),
                crate::harness::JAVA_HARNESS.to_owned(),
            ),
            ("PassrateSuite.java".to_owned(), JAVA_SUITE.to_owned()),
        ];
        sources.extend(
            JUNIT_STANDIN
                .iter()
                .map(|(p, t)| ((*p).to_owned(), (*t).to_owned())),
        );
        for (path, text) in &sources {
            let file = src.join(path);
            fs_err::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            fs_err::write(&file, text).expect("write");
        }
        let javac = Command::new("javac")
            .current_dir(&src)
            .args(passrate_sandbox::runtimes::javac_options())
            .args(["-d", "../classes"])
            .args(sources.iter().map(|(p, _)| p.as_str()))
            .output()
            .expect("javac runs");
        assert!(javac.status.success(), "{javac:?}");
        let jar = Command::new("jar")
            .current_dir(d)
            .args(["cf", "app.jar", "-C", "classes", "."])
            .output()
            .expect("jar runs");
        assert!(jar.status.success(), "{jar:?}");
        let listed: std::collections::HashSet<&str> = JAVA_SUITE_CLASS_LIST
            .lines()
            .chain(crate::harness::JAVA_HARNESS_CLASS_LIST.lines())
            .filter(|l| !l.starts_with('#') && !l.starts_with('@'))
            .collect();
        let mut loaded: Vec<String> = Vec::new();
        let mut missing = Vec::new();
        for (n, (class, tests, passing)) in CLASS_LIST_SUITES.iter().enumerate() {
            let run = d.join(format!("run{n}"));
            fs_err::create_dir_all(&run).expect("mkdir");
            fs_err::write(run.join("Solution.java"), CLASS_LIST_IMPLEMENTATION).expect("write");
            fs_err::write(run.join(format!("{class}.java")), tests).expect("write");
            let request = format!(
                r#"{{"nonce":"n","mode":"suite","entry":"add","class":"Solution","file":"Solution.java","tests_file":"{class}.java","test_classes":["{class}"],"test_cpu_ms":2000}}"#
            );
            fs_err::write(run.join("request.json"), request).expect("write");
            let javac = Command::new("javac")
                .current_dir(&run)
                .args(passrate_sandbox::runtimes::javac_options())
                .args(["-cp", "../app.jar", "-d", ".", "Solution.java"])
                .arg(format!("{class}.java"))
                .output()
                .expect("javac runs");
            assert!(javac.status.success(), "{javac:?}");
            let dump = run.join("run.lst");
            let out = crate::harness::tests::class_list_run(
                &run,
                "../app.jar:.",
                JAVA_SUITE_CLASS,
                &dump,
            )
            .output()
            .expect("java runs");
            assert!(out.status.success(), "{out:?}");
            let frames = fs_err::read_to_string(run.join("frames")).expect("frames");
            // Every test ran (one passing, one failing at least) and the suite ended.
            assert!(frames.contains(&format!("\"{passing}\"")), "{frames}");
            assert!(frames.contains(r#"{"case":0,"ok":null"#), "{frames}");
            assert!(
                frames.contains(r#""error":{"kind":"AssertionError""#),
                "{frames}"
            );
            assert!(frames.contains(r#"{"done":null}"#), "{frames}");
            for line in fs_err::read_to_string(&dump).expect("class list").lines() {
                let name = line.split(' ').next().unwrap_or_default();
                // `@lambda-proxy CALLER ...`: the class whose lambda it is.
                let owner = if name == "@lambda-proxy" {
                    line.split(' ').nth(1).unwrap_or_default()
                } else {
                    name
                };
                if line.starts_with('#')
                    || owner.starts_with("Solution")
                    || owner.starts_with(class)
                    || loaded.iter().any(|l| l == line)
                {
                    continue;
                }
                loaded.push(line.to_owned());
                if !line.starts_with('@') && !listed.contains(name) {
                    missing.push(name.to_owned());
                }
            }
        }
        if let Some(path) = std::env::var_os("PASSRATE_WRITE_SUITE_CLASSLIST") {
            fs_err::write(path, loaded.join("\n") + "\n").expect("write the class list");
        }
        assert!(
            missing.is_empty(),
            "suite runs load classes PassrateSuite.classlist lacks (regenerate it as its \
             header says): {missing:?}"
        );
    }
}
