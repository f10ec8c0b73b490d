//! Per-test CPU budgets are enforced per test: an answer stuck in one test is stopped at
//! that test's budget (with the jail's slack), not after using up every later test's
//! budget under the execution's overall limit.

mod common;

use common::{assert_passes, call, int, runner, runner_with, task, variant};
use passrate_runner::{RunnerError, RunnerOptions};
use passrate_schema::{Language, Reason};

const PY: &str = "def f(x):\n    while x == 1:\n        pass\n    return x\n";
const JS: &str = "function f(x) {\n  while (x === 1) {}\n  return x;\n}\n";
// `for (;;)` with an exit javac cannot prove unreachable.
const JAVA: &str = "class Solution {\n    public long f(long x) {\n        long s = 0;\n        while (x == 1) { s++; if (s < 0) break; }\n        return x;\n    }\n}\n";

#[test]
fn a_test_stuck_in_a_loop_stops_at_its_own_budget() {
    for (language, code, class) in [
        (Language::Python, PY, None),
        (Language::Javascript, JS, None),
        (Language::Java, JAVA, Some("Solution")),
    ] {
        let mut t = task(
            "budgets/loop",
            vec![(language, variant("f", class, code))],
            (0..20).map(|i| call(vec![int(i)], int(i))).collect(),
        );
        // A 1 ms reference per test: every budget is the 100 ms floor, 2 s in all.
        t.calibration
            .reference_test_cpu_us
            .insert(language, vec![1_000; 20]);
        let limit_ms = runner().cpu_limit_ms(&t, language);
        let verdict = runner()
            .evaluate(&t, language, code)
            .expect("no infrastructure failure");
        assert_eq!(verdict.reason, Reason::Timeout, "{language}: {verdict:?}");
        assert_eq!(verdict.tests[0].reason, Reason::Pass, "{language}");
        assert_eq!(verdict.tests[1].reason, Reason::Timeout, "{language}");
        // Test 1's limit is 2 × 100 ms + 250 ms of CPU after test 0's result; the overall
        // limit would have let the loop run for the 19 tests' budgets.
        assert!(
            verdict.cpu_ms + 1_000 < limit_ms,
            "{language}: {} ms of CPU, overall limit {limit_ms} ms",
            verdict.cpu_ms
        );
    }
}

#[test]
fn tests_within_their_budgets_are_not_stopped() {
    // ~150 ms of work per test against 4 × a 100 ms reference: each test is well within
    // its budget (the jail stops at 2 × 400 + 250 ms), while all ten together use more
    // than one test's limit, so the limit must start again at each result.
    let code =
        "def f(x):\n    s = 0\n    for i in range(6_000_000):\n        s += i % 3\n    return x\n";
    let mut t = task(
        "budgets/steady",
        vec![(Language::Python, variant("f", None, code))],
        (0..10).map(|i| call(vec![int(i)], int(i))).collect(),
    );
    t.calibration
        .reference_test_cpu_us
        .insert(Language::Python, vec![100_000; 10]);
    let verdict = assert_passes(&t, Language::Python, code);
    assert!(
        verdict.cpu_ms > 1_050,
        "the tests did less work than meant: {verdict:?}"
    );
}

#[test]
fn an_intake_call_stuck_in_a_loop_stops_at_the_calls_allowance() {
    // 400 ms for all the calls, after 1 s (Python, JavaScript) or 1.5 s (Java) to start:
    // without a per-call budget the loop would go on until it had used up the start-up
    // allowance too.
    let r = runner_with(RunnerOptions {
        intake_cpu_ms: 400,
        ..RunnerOptions::default()
    });
    let calls = [vec![int(0)], vec![int(1)], vec![int(2)]];
    for (language, code, class) in [
        (Language::Python, PY, None),
        (Language::Javascript, JS, None),
        (Language::Java, JAVA, Some("Solution")),
    ] {
        let err = r
            .run_calls(language, code, "f", class, &calls)
            .expect_err("the loop cannot complete");
        let RunnerError::Reference { reason, detail } = err else {
            panic!("{language}: not a reference failure: {err:?}");
        };
        assert_eq!(reason, Reason::Timeout, "{language}: {detail}");
        let cpu_ms: u64 = detail
            .strip_prefix("after 1 of 3 calls: time limit reached after ")
            .and_then(|rest| rest.strip_suffix(" ms of CPU time"))
            .and_then(|ms| ms.parse().ok())
            .unwrap_or_else(|| panic!("{language}: unexpected detail {detail:?}"));
        // Start-up, the first call, then 400 ms of loop and the jail's sampling, against
        // the 1.4–1.9 s the overall limit allows.
        let limit_ms = r.options().language(language).startup_cpu_ms + 400;
        assert!(
            cpu_ms + 300 < limit_ms,
            "{language}: {cpu_ms} ms of CPU, overall limit {limit_ms} ms"
        );
    }
}
