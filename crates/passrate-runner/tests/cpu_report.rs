//! Per-test CPU times reported by the harnesses are the base of per-test budgets (the pool's
//! calibration). Regression: the Python harness read `time.process_time`, which is only
//! tick-granular once RLIMIT_CPU is set (the kernel then samples the process's CPU timer,
//! updated at ticks), so tests shorter than a tick read 0 and budgets fell to the floor.

mod common;

use common::{call, int, runner, task, variant};
use passrate_schema::{Language, Reason};

const PY: &str =
    "def work(n):\n    s = 0\n    for i in range(n):\n        s += i * i % 7\n    return s\n";
const JS: &str = "function work(n) {\n  let s = 0;\n  for (let i = 0; i < n * 20; i++) s += (i * i) % 7;\n  return s > 0 ? n : n;\n}\n";
const JAVA: &str = "class Solution {\n    public long work(long n) {\n        long s = 0;\n        for (long i = 0; i < n * 20; i++) s += (i * i) % 7;\n        return s > 0 ? n : n;\n    }\n}\n";

fn expected_py(n: i64) -> i64 {
    (0..n).map(|i| i * i % 7).sum()
}

#[test]
fn every_harness_reports_nonzero_cpu_for_tests_shorter_than_a_tick() {
    // ~100–300 µs of work per test: well under a 1–4 ms tick, well over the clocks' µs.
    let n = 5_000;
    for (language, code, entry, class) in [
        (Language::Python, PY, "work", None),
        (Language::Javascript, JS, "work", None),
        (Language::Java, JAVA, "work", Some("Solution")),
    ] {
        let expected = if language == Language::Python {
            expected_py(n)
        } else {
            n
        };
        let t = task(
            "cpu/work",
            vec![(language, variant(entry, class, code))],
            (0..8).map(|_| call(vec![int(n)], int(expected))).collect(),
        );
        let verdict = runner()
            .evaluate(&t, language, code)
            .expect("no infrastructure failure");
        assert!(verdict.passed(), "{language}: {verdict:?}");
        let cpu: Vec<Option<u64>> = verdict.tests.iter().map(|r| r.cpu_us).collect();
        assert!(
            verdict
                .tests
                .iter()
                .all(|r| r.reason == Reason::Pass && r.cpu_us.is_some_and(|us| us > 0)),
            "{language}: per-test CPU {cpu:?}"
        );
    }
    // The runner's own count of what it ran, per program kind, for job summaries.
    let stats = runner().exec_stats();
    for kind in ["python", "node", "java"] {
        let c = stats.get(kind).copied().unwrap_or_default();
        assert!(c.executions >= 1 && c.cpu_us > 0, "{kind}: {stats:?}");
    }
}

/// Whether this JVM has loaded java.management's native library (ManagementFactory's static
/// initialiser loads it).
const JAVA_MANAGEMENT_PROBE: &str = r#"
import java.nio.file.*;
class Solution {
    public boolean management() throws Exception {
        for (String line : Files.readAllLines(Paths.get("/proc/self/maps"))) {
            if (line.endsWith("/libmanagement.so")) return true;
        }
        return false;
    }
}
"#;

#[test]
fn the_java_harness_times_tests_without_java_management() {
    // Regression: ThreadMXBean's start-up (platform MBean providers, streams, lambda
    // bootstraps, libmanagement) cost each run JVM ~15 ms of CPU, a quarter of a run. The
    // harness reads the same clock from /proc (`PassrateHarness.cpuNow`).
    let t = task(
        "cpu/no-management",
        vec![(
            Language::Java,
            variant("management", Some("Solution"), JAVA_MANAGEMENT_PROBE),
        )],
        vec![call(vec![], passrate_schema::Value::Bool(false))],
    );
    let verdict = runner()
        .evaluate(&t, Language::Java, JAVA_MANAGEMENT_PROBE)
        .expect("no infrastructure failure");
    assert_eq!(verdict.reason, Reason::Pass, "{verdict:#?}");
    assert!(verdict.tests[0].cpu_us.is_some_and(|us| us > 0));
}

#[test]
fn java_per_test_cpu_follows_the_work_done() {
    // The /proc clock against the work: a test doing ~10× the work of another reads more
    // than 4× its CPU (a clock only updated at ticks reads 0 or a tick for both).
    let short = 20_000;
    let long = 200_000;
    let t = task(
        "cpu/scale",
        vec![(Language::Java, variant("work", Some("Solution"), JAVA))],
        [short, long, short, long]
            .into_iter()
            .map(|n| call(vec![int(n)], int(n)))
            .collect(),
    );
    let verdict = runner()
        .evaluate(&t, Language::Java, JAVA)
        .expect("no infrastructure failure");
    assert!(verdict.passed(), "{verdict:?}");
    let cpu: Vec<u64> = verdict
        .tests
        .iter()
        .map(|r| r.cpu_us.unwrap_or(0))
        .collect();
    // The second pair, after the JIT has compiled `work`.
    assert!(cpu[2] > 0 && cpu[3] > 4 * cpu[2], "per-test CPU {cpu:?}");
}
