//! The Java harness's class-data archive through the real runner: runs map it (and do not
//! when it is switched off), and verdicts do not depend on it. Suite runs take the suite
//! harness and the JUnit stand-ins from it, and the tests cannot shadow them.

mod common;

use common::{call, launcher, runner, task, variant};
use passrate_runner::{Runner, RunnerOptions, SuiteOutcome, SuiteTarget};
use passrate_sandbox::{Sandbox, SandboxConfig};
use passrate_schema::{Language, LimitOverrides, Reason, Value};

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
    // Suites compile their harness and stand-ins beside the tests, and run without sharing.
    let o = suite(&r, SUITE_PROBE);
    assert_eq!(
        o.cases[0].reason,
        Reason::WrongAnswer,
        "the probe must fail without the archive: {o:?}"
    );
}

const SUITE_IMPL: &str =
    "class Solution {\n    public int add(int a, int b) {\n        return a + b;\n    }\n}\n";

fn suite(r: &Runner, tests: &str) -> SuiteOutcome {
    let limits = LimitOverrides::default();
    let target = SuiteTarget::new("add", Some("Solution"), &limits);
    r.run_suite(Language::Java, SUITE_IMPL, tests, &target)
        .expect("the sandbox works")
}

/// Passes only where the suite harness and the JUnit stand-ins come from the archive's JAR,
/// were not compiled into the work dir, and the JVM maps the archive.
const SUITE_PROBE: &str = r#"
import java.nio.file.*;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class ArchiveProbe {
    static String origin(Class<?> c) {
        return c.getProtectionDomain().getCodeSource().getLocation().getPath();
    }

    @Test
    void harnessAndStandInsComeFromTheArchive() throws Exception {
        assertFalse(Files.exists(Paths.get("org")), "stand-ins compiled into the work dir");
        assertFalse(Files.exists(Paths.get("PassrateSuite.class")), "harness compiled");
        String jar = origin(Class.forName("PassrateSuite"));
        assertTrue(jar.startsWith("/run/passrate-java/") && jar.endsWith("/app.jar"), jar);
        assertEquals(jar, origin(org.junit.jupiter.api.Assertions.class));
        assertEquals(jar, origin(org.junit.Assert.class));
        boolean mapped = false;
        for (String line : Files.readAllLines(Paths.get("/proc/self/maps"))) {
            mapped |= line.contains("/run/passrate-java/") && line.endsWith(".jsa");
        }
        assertTrue(mapped, "the archive is not mapped");
    }
}
"#;

#[test]
fn suite_runs_take_the_harness_and_stand_ins_from_the_archive() {
    let r = runner();
    let o = suite(r, SUITE_PROBE);
    assert!(r.java_archive_installed());
    assert!(o.all_passed(), "{o:?}");
    assert_eq!(o.cases.len(), 1, "{o:?}");
}

#[test]
fn tests_cannot_shadow_an_archived_stand_in() {
    // The tests bring their own `Assertions` whose assertEquals accepts anything: compiled
    // (a source wins over the class path in javac), but the JAR comes first when the suite
    // runs, so the real one fails the test. Without an archive the two clash at compile time.
    let tests = r#"
package org.junit.jupiter.api;

public class Assertions {
    public static void assertEquals(Object expected, Object actual) {}
}

class ShadowTest {
    @Test
    void wrong() { Assertions.assertEquals(5, 4); }
}
"#;
    let o = suite(runner(), tests);
    assert!(!o.all_passed(), "{o:?}");
    if runner().java_archive_installed() {
        assert_eq!(o.suite_error, None, "{o:?}");
        assert_eq!(o.cases.len(), 1, "{o:?}");
        assert_ne!(o.cases[0].reason, Reason::Pass, "{o:?}");
    }
}

#[test]
fn tests_cannot_shadow_the_archived_suite_harness() {
    // A `PassrateSuite` of the tests' own would end the run before any frame; the archived
    // harness runs instead and reports the real test.
    let tests = r#"
class PassrateSuite {
    public static void main(String[] args) { System.exit(0); }
}

class RealTest {
    static void testWrong() { if (new Solution().add(2, 2) != 5) throw new AssertionError("2+2"); }
}
"#;
    let o = suite(runner(), tests);
    assert!(!o.all_passed(), "{o:?}");
    if runner().java_archive_installed() {
        let names: Vec<_> = o
            .cases
            .iter()
            .map(|c| (c.name.as_str(), c.reason))
            .collect();
        assert_eq!(
            names,
            vec![("RealTest.testWrong", Reason::WrongAnswer)],
            "{o:?}"
        );
    }
}
