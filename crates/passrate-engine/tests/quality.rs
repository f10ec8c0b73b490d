//! The quality checks through the real sandbox, in Python, JavaScript and Java, on
//! hand-written answers with known properties for HumanEval/36 (`fizz_buzz`: the digits 7 in
//! the numbers below `n` divisible by 11 or 13):
//!
//! * a correct answer that fails one extra input loses robustness; the clean one keeps it;
//! * a correct quadratic answer (membership in a list) is flagged slow on performance inputs
//!   (past its CPU budget, or in Java out of memory);
//!   the reference itself measures at about 1×;
//! * a deeply nested, copy-pasted answer falls outside the reference's band; its clean twin
//!   and the reference do not;
//! * load does not move efficiency: the same answer measured on an idle machine and beside
//!   two CPU-bound threads gives ratios within [`LOAD_TOLERANCE`] (CPU time, not wall time).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{jail, runner_with};
use passrate_engine::RetryPolicy;
use passrate_engine::quality::{QualityInputs, ReferenceCache, check};
use passrate_pool::{PerfSet, Pool};
use passrate_runner::Runner;
use passrate_schema::{
    Expected, Integer, Language, Reason, Task, TestCase, TestForm, UnitQuality, Value, Visibility,
};

const TASK: &str = "humaneval/36";

/// Ratios measured idle and under load may differ by at most this share of the idle one.
const LOAD_TOLERANCE: f64 = 0.25;

fn pool() -> Pool {
    Pool::bundled().expect("the bundled pool loads")
}

fn runner(group: &str) -> Runner {
    runner_with(jail(), group, 360_000_000)
}

fn int(i: i64) -> Value {
    Value::Int(Integer::from(i))
}

/// `fizz_buzz` on the host: how many digits 7 the numbers below `n` divisible by 11 or 13
/// hold (the expected value of a performance or extra input).
fn fizz_buzz(n: i64) -> i64 {
    (0..n)
        .filter(|i| i % 11 == 0 || i % 13 == 0)
        .map(|i| i.to_string().matches('7').count() as i64)
        .sum()
}

fn call(n: i64) -> TestCase {
    TestCase {
        visibility: Visibility::Hidden,
        form: TestForm::Call {
            args: vec![int(n)],
            expected: Expected::Returns(int(fizz_buzz(n))),
        },
        comparator: None,
        languages: Vec::new(),
    }
}

/// Three inputs around `n`.
fn perf_set(n: i64) -> PerfSet {
    PerfSet {
        tests: (0..3).map(|k| call(n + k * n / 20)).collect(),
        // The budget's yardstick only; the cycle measures the reference itself.
        reference_cpu_ms: Language::ALL.iter().map(|&l| (l, 50.0)).collect(),
    }
}

/// Above what the `capped` answers count up to.
const BEYOND_CAP: i64 = 650_000;

struct Answers {
    language: Language,
    clean: &'static str,
    /// Correct on the scored tests (none above 600,000) but counts no further.
    capped: &'static str,
    /// Correct, quadratic: membership in a list of the multiples.
    quadratic: &'static str,
    /// Correct, linear, twice the reference's work.
    twice: &'static str,
    /// Correct, the same logic nested deep and pasted twice.
    tangled: &'static str,
}

const PYTHON: Answers = Answers {
    language: Language::Python,
    clean: "def fizz_buzz(n: int):\n    count = 0\n    for number in range(n):\n        if number % 11 == 0 or number % 13 == 0:\n            count += str(number).count(\"7\")\n    return count\n",
    capped: "def fizz_buzz(n: int):\n    count = 0\n    for number in range(min(n, 600000)):\n        if number % 11 == 0 or number % 13 == 0:\n            count += str(number).count(\"7\")\n    return count\n",
    quadratic: "def fizz_buzz(n: int):\n    multiples = [i for i in range(n) if i % 11 == 0 or i % 13 == 0]\n    count = 0\n    for number in range(n):\n        if number in multiples:\n            count += str(number).count(\"7\")\n    return count\n",
    twice: "def fizz_buzz(n: int):\n    count = 0\n    for number in range(n):\n        if number % 11 == 0 or number % 13 == 0:\n            count += str(number).count(\"7\")\n    again = 0\n    for number in range(n):\n        if number % 11 == 0 or number % 13 == 0:\n            again += str(number).count(\"7\")\n    return min(count, again)\n",
    tangled: "def fizz_buzz(n: int):\n    count = 0\n    if n > 0:\n        for number in range(n):\n            if number % 11 == 0:\n                if True:\n                    for digit in str(number):\n                        if digit == \"7\":\n                            count = count + 1\n            else:\n                if number % 13 == 0:\n                    if True:\n                        for digit in str(number):\n                            if digit == \"7\":\n                                count = count + 1\n    return count\n",
};

const JAVASCRIPT: Answers = Answers {
    language: Language::Javascript,
    clean: "const fizzBuzz = (n) => {\n  let count = 0;\n  for (let i = 0; i < n; i++) {\n    if (i % 11 === 0 || i % 13 === 0) {\n      count += String(i).split('7').length - 1;\n    }\n  }\n  return count;\n};\n",
    capped: "const fizzBuzz = (n) => {\n  let count = 0;\n  for (let i = 0; i < Math.min(n, 600000); i++) {\n    if (i % 11 === 0 || i % 13 === 0) {\n      count += String(i).split('7').length - 1;\n    }\n  }\n  return count;\n};\n",
    quadratic: "const fizzBuzz = (n) => {\n  const multiples = [];\n  for (let i = 0; i < n; i++) {\n    if (i % 11 === 0 || i % 13 === 0) multiples.push(i);\n  }\n  let count = 0;\n  for (let i = 0; i < n; i++) {\n    if (multiples.includes(i)) count += String(i).split('7').length - 1;\n  }\n  return count;\n};\n",
    twice: "const fizzBuzz = (n) => {\n  let count = 0;\n  for (let i = 0; i < n; i++) {\n    if (i % 11 === 0 || i % 13 === 0) {\n      count += String(i).split('7').length - 1;\n    }\n  }\n  let again = 0;\n  for (let i = 0; i < n; i++) {\n    if (i % 11 === 0 || i % 13 === 0) {\n      again += String(i).split('7').length - 1;\n    }\n  }\n  return Math.min(count, again);\n};\n",
    tangled: "const fizzBuzz = (n) => {\n  let count = 0;\n  if (n > 0) {\n    for (let i = 0; i < n; i++) {\n      if (i % 11 === 0) {\n        if (true) {\n          for (const digit of String(i)) {\n            if (digit === '7') {\n              count = count + 1;\n            }\n          }\n        }\n      } else {\n        if (i % 13 === 0) {\n          if (true) {\n            for (const digit of String(i)) {\n              if (digit === '7') {\n                count = count + 1;\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n  return count;\n};\n",
};

const JAVA: Answers = Answers {
    language: Language::Java,
    clean: "class Solution {\n    public int fizzBuzz(int n) {\n        int count = 0;\n        for (int i = 0; i < n; i++) {\n            if (i % 11 == 0 || i % 13 == 0) {\n                for (char c : String.valueOf(i).toCharArray()) {\n                    if (c == '7') {\n                        count++;\n                    }\n                }\n            }\n        }\n        return count;\n    }\n}\n",
    capped: "class Solution {\n    public int fizzBuzz(int n) {\n        int count = 0;\n        for (int i = 0; i < Math.min(n, 600000); i++) {\n            if (i % 11 == 0 || i % 13 == 0) {\n                for (char c : String.valueOf(i).toCharArray()) {\n                    if (c == '7') {\n                        count++;\n                    }\n                }\n            }\n        }\n        return count;\n    }\n}\n",
    quadratic: "import java.util.*;\n\nclass Solution {\n    public int fizzBuzz(int n) {\n        List<Integer> multiples = new ArrayList<>();\n        for (int i = 0; i < n; i++) {\n            if (i % 11 == 0 || i % 13 == 0) {\n                multiples.add(i);\n            }\n        }\n        int count = 0;\n        for (int i = 0; i < n; i++) {\n            if (multiples.contains(i)) {\n                for (char c : String.valueOf(i).toCharArray()) {\n                    if (c == '7') {\n                        count++;\n                    }\n                }\n            }\n        }\n        return count;\n    }\n}\n",
    twice: "class Solution {\n    public int fizzBuzz(int n) {\n        int count = 0;\n        for (int i = 0; i < n; i++) {\n            if (i % 11 == 0 || i % 13 == 0) {\n                for (char c : String.valueOf(i).toCharArray()) {\n                    if (c == '7') {\n                        count++;\n                    }\n                }\n            }\n        }\n        int again = 0;\n        for (int i = 0; i < n; i++) {\n            if (i % 11 == 0 || i % 13 == 0) {\n                for (char c : String.valueOf(i).toCharArray()) {\n                    if (c == '7') {\n                        again++;\n                    }\n                }\n            }\n        }\n        return Math.min(count, again);\n    }\n}\n",
    tangled: "class Solution {\n    public int fizzBuzz(int n) {\n        int count = 0;\n        if (n > 0) {\n            for (int i = 0; i < n; i++) {\n                if (i % 11 == 0) {\n                    if (true) {\n                        for (char c : String.valueOf(i).toCharArray()) {\n                            if (c == '7') {\n                                count = count + 1;\n                            }\n                        }\n                    }\n                } else {\n                    if (i % 13 == 0) {\n                        if (true) {\n                            for (char c : String.valueOf(i).toCharArray()) {\n                                if (c == '7') {\n                                    count = count + 1;\n                                }\n                            }\n                        }\n                    }\n                }\n            }\n        }\n        return count;\n    }\n}\n",
};

const ALL: [&Answers; 3] = [&PYTHON, &JAVASCRIPT, &JAVA];

/// Input sizes per language, so that the reference needs tens of milliseconds of CPU.
fn perf_size(language: Language) -> i64 {
    match language {
        Language::Python => 200_000,
        Language::Javascript => 2_000_000,
        // Enough work that the JIT compiler's share of the CPU stays small.
        Language::Java => 10_000_000,
    }
}

fn inputs(task: &Task, language: Language, extra: Vec<TestCase>) -> QualityInputs {
    let _ = task;
    QualityInputs {
        extra: Arc::new(extra),
        perf: Some(Arc::new(perf_set(perf_size(language)))),
        lint: false,
    }
}

fn quality(
    runner: &Runner,
    task: &Task,
    language: Language,
    code: &str,
    inputs: &QualityInputs,
    references: &ReferenceCache,
) -> UnitQuality {
    check(
        runner,
        task,
        language,
        code,
        inputs,
        references,
        RetryPolicy::default(),
        &|_, _| {},
    )
    .unwrap_or_else(|e| panic!("quality check of {language} failed: {e:?}"))
    .0
}

/// The task's own extra tests plus one beyond what the `capped` answers count to.
fn extras(pool: &Pool) -> Vec<TestCase> {
    let mut extra = pool.extra_tests(TASK).expect("extra tests read");
    assert!(
        extra.len() > 100,
        "HumanEval+ inputs of {TASK}: {}",
        extra.len()
    );
    extra.push(call(BEYOND_CAP));
    extra
}

/// Extra tests whose input is past the `capped` answers' cap.
fn beyond_cap(extra: &[TestCase]) -> usize {
    extra
        .iter()
        .filter(|t| match &t.form {
            TestForm::Call { args, .. } => {
                matches!(&args[0], Value::Int(n) if n.to_i64().is_some_and(|n| n > 600_000))
            }
            _ => false,
        })
        .count()
}

#[test]
fn robustness_efficiency_and_maintainability_tell_answers_apart_in_every_language() {
    let pool = pool();
    let task = pool.get(TASK).expect("task in the pool").clone();
    let extra = extras(&pool);
    let runner = runner("passrate-test-quality");
    for answers in ALL {
        let language = answers.language;
        let inputs = inputs(&task, language, extra.clone());
        let references = ReferenceCache::default();
        // The scored suite passes them, which is when quality is checked.
        for code in [
            answers.clean,
            answers.capped,
            answers.twice,
            answers.tangled,
        ] {
            let verdict = runner.evaluate(&task, language, code).expect("evaluated");
            assert_eq!(
                verdict.reason,
                Reason::Pass,
                "{language}: {code}\n{verdict:?}"
            );
        }
        // The quadratic answer is correct (it passes the task's tests up to n = 10,000) but too
        // slow for the scored suite's n = 555,557 at 4x the reference's CPU: checked directly
        // here, as it would be on a task whose scored inputs are all small.
        let mut small = task.clone();
        small.tests.retain(|t| {
            matches!(&t.form, TestForm::Call { args, .. }
                if matches!(&args[0], Value::Int(n) if n.to_i64().is_some_and(|n| n <= 10_000)))
        });
        small.calibration.reference_test_cpu_us.clear();
        assert!(small.tests.len() >= 10, "{} small tests", small.tests.len());
        let verdict = runner
            .evaluate(&small, language, answers.quadratic)
            .expect("evaluated");
        assert_eq!(verdict.reason, Reason::Pass, "{language}: {verdict:?}");

        let clean = quality(
            &runner,
            &task,
            language,
            answers.clean,
            &inputs,
            &references,
        );
        let robust = clean.robustness.as_ref().expect("robustness checked");
        assert!(
            robust.robust(),
            "{language}: clean answer not robust: {robust:?}"
        );
        assert_eq!(robust.extra_tests as usize, extra.len());
        let efficiency = clean.efficiency.as_ref().expect("efficiency measured");
        assert_eq!(
            efficiency.reason,
            Reason::Pass,
            "{language}: {efficiency:?}"
        );
        assert!(
            efficiency.ratio < 2.0,
            "{language}: a linear answer like the reference's measured {efficiency:?}"
        );
        let band = clean
            .maintainability
            .as_ref()
            .expect("maintainability measured");
        assert!(
            band.within_band(),
            "{language}: clean answer outside: {band:?}"
        );

        let capped = quality(
            &runner,
            &task,
            language,
            answers.capped,
            &inputs,
            &references,
        );
        let lost = capped.robustness.expect("robustness checked");
        assert!(!lost.robust(), "{language}: the input past the cap passed");
        assert_eq!(
            lost.passed as usize,
            extra.len() - beyond_cap(&extra),
            "{language}: {lost:?}"
        );
        assert_eq!(lost.reason, Reason::WrongAnswer);

        let quadratic = quality(
            &runner,
            &task,
            language,
            answers.quadratic,
            &inputs,
            &references,
        );
        // Slow: past 10x, out of its CPU budget, or (Java, whose list of multiples outgrows
        // the heap at this size) out of memory: every way of not getting through counts.
        let slow = quadratic.efficiency.expect("efficiency measured");
        assert!(
            slow.slow() && (slow.ratio > passrate_schema::SLOW_RATIO || !slow.measured()),
            "{language}: the quadratic answer was not flagged slow: {slow:?}"
        );

        let tangled = quality(
            &runner,
            &task,
            language,
            answers.tangled,
            &inputs,
            &references,
        );
        let outside = tangled.maintainability.expect("maintainability measured");
        assert!(
            !outside.within_band(),
            "{language}: tangled within band: {outside:?}"
        );
        for measure in [
            "max_nesting_depth",
            "cyclomatic_complexity",
            "duplicated_blocks",
        ] {
            assert!(
                outside.outside_band.iter().any(|m| m == measure),
                "{language}: {measure} not flagged: {outside:?}"
            );
        }
    }
}

/// The reference scores at the reference by construction: robust, about 1× its own CPU,
/// within its own band.
#[test]
fn the_reference_is_robust_at_one_times_and_within_its_band_in_every_language() {
    let pool = pool();
    let task = pool.get(TASK).expect("task in the pool").clone();
    let extra = pool.extra_tests(TASK).expect("extra tests read");
    let runner = runner("passrate-test-quality-ref");
    for language in Language::ALL {
        let reference = &task.variants[&language].reference_solution;
        let inputs = inputs(&task, language, extra.clone());
        let q = quality(
            &runner,
            &task,
            language,
            reference,
            &inputs,
            &ReferenceCache::default(),
        );
        assert!(q.robustness.expect("checked").robust(), "{language}");
        let e = q.efficiency.expect("measured");
        assert!(
            (0.67..1.5).contains(&e.ratio),
            "{language}: the reference against itself measured {e:?}"
        );
        let m = q.maintainability.expect("measured");
        assert!(
            m.within_band() && m.candidate == m.reference,
            "{language}: {m:?}"
        );
    }
}

#[test]
fn load_does_not_move_efficiency() {
    let pool = pool();
    let task = pool.get(TASK).expect("task in the pool").clone();
    let runner = runner("passrate-test-quality-load");
    for answers in ALL {
        let language = answers.language;
        let inputs = inputs(&task, language, Vec::new());
        // The reference is measured once, idle, as a cycle measures it once per run.
        let references = ReferenceCache::default();
        let once = quality(
            &runner,
            &task,
            language,
            answers.clean,
            &inputs,
            &references,
        )
        .efficiency
        .expect("measured idle");
        let idle = quality(
            &runner,
            &task,
            language,
            answers.twice,
            &inputs,
            &references,
        )
        .efficiency
        .expect("measured idle");
        // Twice the work measures about twice the ratio; in Java only more than once: its JIT
        // compiler's threads count in the cgroup too, and how much they compile varies.
        let doubled = idle.ratio / once.ratio;
        let expected = match language {
            Language::Java => 1.2..f64::MAX,
            _ => 1.4..3.0,
        };
        assert!(
            expected.contains(&doubled),
            "{language}: twice the work measured {doubled:.2}x: {once:?} then {idle:?}"
        );
        let stop = Arc::new(AtomicBool::new(false));
        let burners: Vec<_> = (0..2)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                        std::hint::black_box(x);
                    }
                })
            })
            .collect();
        let loaded = quality(
            &runner,
            &task,
            language,
            answers.twice,
            &inputs,
            &references,
        )
        .efficiency
        .expect("measured under load");
        stop.store(true, Ordering::Relaxed);
        for b in burners {
            b.join().expect("burner thread");
        }
        let shift = (loaded.ratio - idle.ratio).abs() / idle.ratio;
        eprintln!(
            "{language}: ratio {:.3} idle, {:.3} beside two busy threads ({:.1}% apart)",
            idle.ratio,
            loaded.ratio,
            shift * 100.0
        );
        assert!(
            shift <= LOAD_TOLERANCE,
            "{language}: idle {idle:?} vs loaded {loaded:?}: {:.0}% apart",
            shift * 100.0
        );
    }
}
