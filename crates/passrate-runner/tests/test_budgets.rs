//! Per-test CPU budgets are enforced per test: an answer stuck in one test is stopped at
//! that test's budget (with the jail's slack), not after using up every later test's
//! budget under the execution's overall limit; and the overall limit grows with the tests
//! run, so an answer within budget on every input passes however many inputs there are.

mod common;

use std::path::Path;
use std::process::Command;

use common::{assert_passes, call, int, runner, runner_with, task, variant};
use passrate_runner::{RunnerError, RunnerOptions};
use passrate_schema::{Language, Reason, Task};

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

/// Spends `ms` of its own CPU per call (2 s on input 1000): CPU-clock driven, so each test
/// costs the same on any machine.
const PY_SPEND: &str = "import time\n\ndef f(x):\n    end = time.thread_time() + (2.0 if x == 1000 else 0.2)\n    while time.thread_time() < end:\n        pass\n    return x\n";
const JS_SPEND: &str = "function f(x) {\n  const us = x === 1000 ? 2e6 : 2e5;\n  const start = process.cpuUsage();\n  for (;;) {\n    const u = process.cpuUsage(start);\n    if (u.user + u.system >= us) break;\n  }\n  return x;\n}\n";
const JAVA_SPEND: &str = "class Solution {\n    public long f(long x) {\n        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();\n        long end = bean.getCurrentThreadCpuTime() + (x == 1000 ? 2_000_000_000L : 200_000_000L);\n        while (bean.getCurrentThreadCpuTime() < end) { }\n        return x;\n    }\n}\n";

/// A task of `inputs` for `f`, each calibrated at a 100 ms reference: a 400 ms budget per
/// test, which the jail enforces at 2 × 400 + 250 ms.
fn spend_task(language: Language, code: &str, class: Option<&str>, inputs: &[i64]) -> Task {
    let mut t = task(
        "budgets/spend",
        vec![(language, variant("f", class, code))],
        inputs.iter().map(|&i| call(vec![int(i)], int(i))).collect(),
    );
    t.calibration
        .reference_test_cpu_us
        .insert(language, vec![100_000; inputs.len()]);
    t
}

const SPENDERS: [(Language, &str, Option<&str>); 3] = [
    (Language::Python, PY_SPEND, None),
    (Language::Javascript, JS_SPEND, None),
    (Language::Java, JAVA_SPEND, Some("Solution")),
];

#[test]
fn doubling_the_tests_does_not_change_the_verdict_of_an_answer_within_budget_on_each() {
    // 200 ms of CPU per test against a 400 ms budget. Twenty tests need 4 s, more than the
    // start-up allowance plus the fixed 2 s the tests' allowance used to be capped at.
    let ten: Vec<i64> = (0..10).collect();
    let twenty: Vec<i64> = (0..20).collect();
    for (language, code, class) in SPENDERS {
        let once = spend_task(language, code, class, &ten);
        let twice = spend_task(language, code, class, &twenty);
        let startup_ms = runner().options().language(language).startup_cpu_ms;
        assert_eq!(
            runner().cpu_limit_ms(&twice, language) - startup_ms,
            2 * (runner().cpu_limit_ms(&once, language) - startup_ms),
            "{language}: the tests' allowance is the sum of their budgets"
        );
        let a = assert_passes(&once, language, code);
        let b = assert_passes(&twice, language, code);
        assert_eq!((a.tests_passed, a.tests_total), (10, 10), "{language}");
        assert_eq!((b.tests_passed, b.tests_total), (20, 20), "{language}");
        let old_limit_ms = startup_ms + RunnerOptions::default().language(language).tests_cpu_ms;
        assert!(
            b.cpu_ms > old_limit_ms,
            "{language}: the doubled run used {} ms of CPU, no more than a fixed {old_limit_ms} ms limit",
            b.cpu_ms
        );
    }
}

#[test]
fn one_input_over_its_budget_fails_however_many_inputs_are_within_theirs() {
    // Input 1000 needs 2 s against its 400 ms budget; the jail stops it at 1,050 ms after
    // the previous result, while the overall limit (startup + 20 × 400 ms) would let it
    // finish.
    let mut inputs: Vec<i64> = (0..19).collect();
    inputs.insert(3, 1000);
    for (language, code, class) in SPENDERS {
        let t = spend_task(language, code, class, &inputs);
        let verdict = runner()
            .evaluate(&t, language, code)
            .expect("no infrastructure failure");
        assert_eq!(verdict.reason, Reason::Timeout, "{language}: {verdict:?}");
        let reasons: Vec<Reason> = verdict.tests.iter().map(|t| t.reason).collect();
        assert_eq!(&reasons[..3], &[Reason::Pass; 3], "{language}");
        assert_eq!(reasons[3], Reason::Timeout, "{language}");
        let startup_ms = runner().options().language(language).startup_cpu_ms;
        assert!(
            verdict.cpu_ms < startup_ms + 3 * 200 + 2_000,
            "{language}: {} ms of CPU, the slow input ran to its end",
            verdict.cpu_ms
        );
    }
}

/// GPT-4's answer to HumanEval/96 (noahshinn/reflexion, MIT,
/// `humaneval_py_simple_gpt-4.jsonl`): correct, by trial division up to each number.
const HUMANEVAL_96_GPT4: &str = r#"def count_up_to(n):
    def is_prime(num):
        if num < 2:
            return False
        for i in range(2, num):
            if num % i == 0:
                return False
        return True

    primes = []
    for i in range(n):
        if is_prime(i):
            primes.append(i)
    return primes
"#;

/// The bundled pool's humaneval/96 (decompressed with `gzip`: this crate has no gzip reader).
fn pool_humaneval_96() -> Task {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pool/tasks/humaneval.jsonl.gz");
    let output = Command::new("gzip")
        .arg("-dc")
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("gzip -dc {}: {e}", path.display()));
    assert!(output.status.success(), "gzip -dc {}", path.display());
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    text.lines()
        .filter(|l| l.contains(r#""id":"humaneval/96""#))
        .map(|l| serde_json::from_str::<Task>(l).expect("a pool task"))
        .find(|t| t.id == "humaneval/96")
        .map(|mut t| {
            // With its unscored HumanEval+ inputs: the many-input case this is about.
            t.tests.extend(pool_extra_tests("humaneval/96"));
            t
        })
        .expect("humaneval/96 in the bundled pool")
}

/// A task's extra tests from `pool/extra/humaneval.jsonl.gz`.
fn pool_extra_tests(id: &str) -> Vec<passrate_schema::TestCase> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pool/extra/humaneval.jsonl.gz");
    let output = Command::new("gzip")
        .arg("-dc")
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("gzip -dc {}: {e}", path.display()));
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("an extra-tests line"))
        .find(|v| v["id"] == id)
        .map(|v| serde_json::from_value(v["tests"].clone()).expect("tests"))
        .unwrap_or_default()
}

#[test]
fn humaneval_96_trial_division_is_not_timed_out_by_its_number_of_inputs() {
    // 180 inputs; the largest (n ≈ 15,700) costs this answer ~0.6 s of CPU, ~12 s in all.
    // Under EvalPlus's per-input limit, max(1 s, 4 × the reference), every input is within
    // budget and the answer passes there; with the same floor here it must pass too, where a
    // fixed 2 s for all the tests stopped it after its first ~100 inputs.
    let t = pool_humaneval_96();
    assert!(
        t.tests_for(Language::Python).count() > 100,
        "humaneval/96 lost its inputs"
    );
    let r = runner_with(RunnerOptions {
        budget_floor_ms: 1_000,
        ..RunnerOptions::default()
    });
    let verdict = r
        .evaluate(&t, Language::Python, HUMANEVAL_96_GPT4)
        .expect("no infrastructure failure");
    assert!(
        verdict.passed(),
        "{:?} after {} of {} tests, {} ms of CPU: {:?}",
        verdict.reason,
        verdict.tests_passed,
        verdict.tests_total,
        verdict.cpu_ms,
        verdict.detail
    );
    let old_limit_ms = r.options().python.startup_cpu_ms + r.options().python.tests_cpu_ms;
    assert!(
        verdict.cpu_ms > old_limit_ms,
        "{} ms of CPU: the inputs no longer need more than {old_limit_ms} ms",
        verdict.cpu_ms
    );
}

#[test]
fn calls_completed_before_a_loop_are_kept_and_the_stop_is_named() {
    for (language, code, class) in [
        (Language::Python, PY, None),
        (Language::Javascript, JS, None),
        (Language::Java, JAVA, Some("Solution")),
    ] {
        let calls: Vec<Vec<_>> = [0, 2, 1, 3].into_iter().map(|i| vec![int(i)]).collect();
        let partial = runner()
            .run_calls_until(language, code, "f", class, &calls, 100)
            .expect("no infrastructure failure");
        let returned: Vec<_> = partial
            .outcomes
            .iter()
            .map(|o| o.clone().expect("returned"))
            .collect();
        assert_eq!(returned, vec![int(0), int(2)], "{language}");
        let stop = partial.stopped.expect("the third call stops the execution");
        assert_eq!(stop.reason, Reason::Timeout, "{language}: {}", stop.detail);
        // The whole-or-nothing form reports the same stop as an error.
        let err = runner()
            .run_calls_within(language, code, "f", class, &calls, 100)
            .expect_err("a call did not complete");
        assert!(
            matches!(&err, RunnerError::Reference { reason: Reason::Timeout, detail } if detail.starts_with("after 2 of 4 calls")),
            "{language}: {err}"
        );
    }
}
