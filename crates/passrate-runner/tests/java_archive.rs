//! The Java harness's class-data archive through the real runner: runs map it (and do not
//! when it is switched off), and verdicts do not depend on it.

mod common;

use common::{call, launcher, runner, task, variant};
use passrate_runner::{Runner, RunnerOptions};
use passrate_sandbox::{Sandbox, SandboxConfig};
use passrate_schema::{Language, Reason, Value};

/// Returns whether this JVM maps a class-data archive of the sandbox's (`/run/passrate-java`).
const PROBE: &str = r#"
import java.nio.file.*;
class Solution {
    public boolean mapped() throws Exception {
        for (String line : Files.readAllLines(Paths.get("/proc/self/maps"))) {
            if (line.contains("/run/passrate-java/") && line.endsWith(".jsa")) return true;
        }
        return false;
    }
}
"#;

fn probe_task() -> passrate_schema::Task {
    task(
        "java-archive",
        vec![(Language::Java, variant("mapped", None, PROBE))],
        vec![call(vec![], Value::Bool(true))],
    )
}

#[test]
fn java_runs_map_the_harness_archive() {
    let r = runner();
    let verdict = r
        .evaluate(&probe_task(), Language::Java, PROBE)
        .expect("runs");
    assert!(r.java_archive_installed());
    assert_eq!(verdict.reason, Reason::Pass, "{verdict:#?}");
    // A candidate that names the harness is compiled with its source (the old layout); the
    // archived harness comes first on the class path and the verdict is the same.
    let naming = format!("// not PassrateHarness\n{PROBE}");
    let verdict = r
        .evaluate(&probe_task(), Language::Java, &naming)
        .expect("runs");
    assert_eq!(verdict.reason, Reason::Pass, "{verdict:#?}");
}

#[test]
fn switched_off_no_archive_is_built_or_mapped() {
    let id = std::process::id() % 50_000;
    let config = SandboxConfig {
        launcher: passrate_sandbox::Launcher::Program(launcher(), Vec::new()),
        slots: 1,
        uid_base: 700_000_000 + id * 4_000,
        cgroup_group: format!("passrate-runner-noarchive-{id}"),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::new(config).expect("this machine must be able to sandbox");
    let r = Runner::new(
        sandbox.clone(),
        RunnerOptions {
            java_class_archive: false,
            ..RunnerOptions::default()
        },
    );
    let verdict = r
        .evaluate(&probe_task(), Language::Java, PROBE)
        .expect("runs");
    assert!(!r.java_archive_installed());
    assert!(sandbox.java_archive().is_none());
    assert_eq!(verdict.reason, Reason::WrongAnswer, "{verdict:#?}");
}
