//! Shared helpers for the graders' tests: one real sandbox per test process, small tasks.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use passrate_runner::{Runner, RunnerOptions};
use passrate_sandbox::{Launcher, Sandbox, SandboxConfig};
use passrate_schema::{
    Calibration, Category, CategoryData, Comparator, Expected, IntakeFactors, Language,
    LimitOverrides, Param, Signature, Source, TASK_FORMAT_VERSION, Task, TestCase, TestForm, Tier,
    Value, Variant, Visibility,
};

/// The jail launcher beside the test binary's target directory, built on demand.
fn launcher() -> PathBuf {
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
        let id = std::process::id() % 50_000;
        let config = SandboxConfig {
            launcher: Launcher::Program(launcher(), Vec::new()),
            slots: 2,
            uid_base: 300_000_000 + id * 4_000,
            // One group for this crate's test processes: leaves are named by their jail's pid and a
            // sandbox only removes leaves whose jail is dead, so processes share it safely, and a
            // per-process group would stay behind (this sandbox is never dropped).
            cgroup_group: "passrate-grade-test".to_owned(),
            ..SandboxConfig::default()
        };
        let sandbox = Sandbox::new(config).expect("this machine must be able to sandbox");
        // `PASSRATE_TEST_NO_JAVA_ARCHIVE=1`: the same tests without the Java class-data
        // archive (Java suites then compile their harness and stand-ins), whose verdicts
        // must not differ.
        let options = RunnerOptions {
            java_class_archive: std::env::var_os("PASSRATE_TEST_NO_JAVA_ARCHIVE").is_none(),
            ..RunnerOptions::default()
        };
        Runner::new(sandbox, options)
    })
}

pub fn ints(xs: &[i64]) -> Value {
    Value::List(xs.iter().map(|&n| Value::int(n)).collect())
}

pub fn call(args: Vec<Value>, expected: Value) -> TestCase {
    TestCase {
        visibility: Visibility::Public,
        form: TestForm::Call {
            args,
            expected: Expected::Returns(expected),
        },
        comparator: None,
        languages: Vec::new(),
    }
}

/// A one-language task of `category`; `code` is the given code and the reference.
pub fn task(
    category: Category,
    language: Language,
    entry: &str,
    params: &[(&str, Option<&str>)],
    [given, reference]: [&str; 2],
    tests: Vec<TestCase>,
    category_data: CategoryData,
) -> Task {
    let variant = Variant {
        prompt: given.to_owned(),
        entry_point: entry.to_owned(),
        class_name: (language == Language::Java).then(|| "Solution".to_owned()),
        signature: Signature {
            params: params
                .iter()
                .map(|(name, ty)| Param {
                    name: (*name).to_owned(),
                    ty: ty.map(str::to_owned),
                })
                .collect(),
            returns: None,
        },
        reference_solution: reference.to_owned(),
        given_code: Some(given.to_owned()),
        faulty_variants: Vec::new(),
        preamble: None,
    };
    Task {
        format_version: TASK_FORMAT_VERSION,
        id: format!("test/{}/{language}", category.as_str()),
        version: 1,
        category,
        tier: Tier::One,
        factors: IntakeFactors {
            conditions: 1,
            solution_space: 1,
            edge_cases: 0,
        },
        source: Source {
            dataset: "test".to_owned(),
            upstream_id: entry.to_owned(),
            license: "MIT".to_owned(),
        },
        variants: BTreeMap::from([(language, variant)]),
        tests,
        comparator: Comparator::default(),
        category_data,
        limits: LimitOverrides::default(),
        calibration: Calibration::default(),
    }
}

/// Failed rule names of a verdict, in order.
pub fn rules(v: &passrate_schema::Verdict) -> Vec<String> {
    v.grader
        .as_ref()
        .map(|g| g.failed_rules.iter().map(|r| r.rule.clone()).collect())
        .unwrap_or_default()
}
