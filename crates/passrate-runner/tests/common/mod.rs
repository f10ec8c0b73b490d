//! Shared helpers for the runner's integration tests: one real sandbox per test process and
//! small task builders.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use passrate_runner::{Runner, RunnerOptions};
use passrate_sandbox::{Launcher, Sandbox, SandboxConfig};
use passrate_schema::{
    Calibration, Category, CategoryData, Comparator, Expected, IntakeFactors, Language,
    LimitOverrides, Signature, Source, TASK_FORMAT_VERSION, Task, TestCase, TestForm, Tier, Value,
    Variant, Verdict, Visibility,
};

/// The jail launcher beside the test binary's target directory, built on demand.
pub fn launcher() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>")
        .to_path_buf();
    let jail = dir.join("passrate-jail");
    if !jail.is_file() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut cmd = std::process::Command::new(cargo);
        cmd.args(["build", "-p", "passrate-sandbox", "--bin", "passrate-jail"]);
        if dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        let status = cmd.status().expect("cargo build of passrate-jail");
        assert!(status.success(), "building passrate-jail failed");
    }
    jail
}

pub fn runner() -> &'static Runner {
    static RUNNER: OnceLock<Runner> = OnceLock::new();
    RUNNER.get_or_init(|| {
        // `PASSRATE_TEST_NO_JAVA_ARCHIVE=1`: the same tests without the Java class-data
        // archive (Java suites then compile their harness and stand-ins), whose verdicts
        // must not differ.
        runner_with(RunnerOptions {
            java_class_archive: std::env::var_os("PASSRATE_TEST_NO_JAVA_ARCHIVE").is_none(),
            ..RunnerOptions::default()
        })
    })
}

/// A runner with `options` on a sandbox of its own (the uids and cgroup group of every
/// runner of this crate's tests).
pub fn runner_with(options: RunnerOptions) -> Runner {
    let id = std::process::id() % 50_000;
    let config = SandboxConfig {
        launcher: Launcher::Program(launcher(), Vec::new()),
        slots: 2,
        uid_base: 300_000_000 + id * 4_000,
        // One group for this crate's test processes: leaves are named by their jail's pid and a
        // sandbox only removes leaves whose jail is dead, so processes share it safely, and a
        // per-process group would stay behind ([`runner`]'s sandbox is never dropped).
        cgroup_group: "passrate-runner-test".to_owned(),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::new(config).expect("this machine must be able to sandbox");
    Runner::new(sandbox, options)
}

/// Judges `code` on the shared runner and asserts it passed (showing the reason and detail
/// otherwise); returns the verdict for further checks.
pub fn assert_passes(t: &Task, language: Language, code: &str) -> Verdict {
    let verdict = runner()
        .evaluate(t, language, code)
        .expect("no infrastructure failure");
    assert!(
        verdict.passed(),
        "{}: {:?} {:?}",
        t.id,
        verdict.reason,
        verdict.detail
    );
    verdict
}

pub fn int(n: i64) -> Value {
    Value::int(n)
}

pub fn call(args: Vec<Value>, expected: Value) -> TestCase {
    TestCase {
        visibility: Visibility::Hidden,
        form: TestForm::Call {
            args,
            expected: Expected::Returns(expected),
        },
        comparator: None,
        languages: Vec::new(),
    }
}

pub fn variant(entry: &str, class_name: Option<&str>, reference: &str) -> Variant {
    Variant {
        prompt: String::new(),
        entry_point: entry.to_owned(),
        class_name: class_name.map(str::to_owned),
        signature: Signature {
            params: Vec::new(),
            returns: None,
        },
        reference_solution: reference.to_owned(),
        given_code: None,
        faulty_variants: Vec::new(),
        preamble: None,
    }
}

pub fn task(id: &str, variants: Vec<(Language, Variant)>, tests: Vec<TestCase>) -> Task {
    Task {
        format_version: TASK_FORMAT_VERSION,
        id: id.to_owned(),
        version: 1,
        category: Category::FunctionCompletion,
        tier: Tier::One,
        factors: IntakeFactors {
            conditions: 1,
            solution_space: 1,
            edge_cases: 0,
        },
        source: Source {
            dataset: "test".to_owned(),
            upstream_id: id.to_owned(),
            license: "MIT".to_owned(),
        },
        variants: variants.into_iter().collect::<BTreeMap<_, _>>(),
        tests,
        comparator: Comparator::default(),
        category_data: CategoryData::default(),
        limits: LimitOverrides::default(),
        calibration: Calibration::default(),
    }
}
