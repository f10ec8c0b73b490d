//! The unit-test writing grader through the real sandbox, in Python, JavaScript and Java: a
//! good suite passes; each rule (`tests.none_found`, `tests.error`, `tests.fails_on_reference`,
//! `tests.misses_faulty`) fails the suites it names; suites that try to pass without testing
//! (always-true asserts, swallowed failures, early exits, printed passes, detecting the
//! faulty variant by its source, file, module, stack or environment) fail.

use std::collections::BTreeMap;

use passrate_grade::grade;
use passrate_schema::{
    Calibration, Category, CategoryData, Comparator, IntakeFactors, Language, LimitOverrides,
    Reason, Signature, Source, TASK_FORMAT_VERSION, Task, Tier, Variant, Verdict,
};

mod common;

use common::runner;

const PY_GIVEN: &str = "def is_sorted(xs):\n    return all(a <= b for a, b in zip(xs, xs[1:]))\n";
const PY_FAULTY: &str = "def is_sorted(xs):\n    return all(a < b for a, b in zip(xs, xs[1:]))\n";
const PY_FAULTY_2: &str =
    "def is_sorted(xs):\n    return len(xs) < 3 or all(a <= b for a, b in zip(xs, xs[1:]))\n";
const JS_GIVEN: &str = "const isSorted = (xs) => {\n  for (let i = 1; i < xs.length; i++) if (xs[i - 1] > xs[i]) return false;\n  return true;\n}\n";
const JS_FAULTY: &str = "const isSorted = (xs) => {\n  for (let i = 1; i < xs.length; i++) if (xs[i - 1] >= xs[i]) return false;\n  return true;\n}\n";
const JAVA_GIVEN: &str = "import java.util.*;\n\nclass Solution {\n    public boolean isSorted(List<Integer> xs) {\n        for (int i = 1; i < xs.size(); i++) if (xs.get(i - 1) > xs.get(i)) return false;\n        return true;\n    }\n}\n";
const JAVA_FAULTY: &str = "import java.util.*;\n\nclass Solution {\n    public boolean isSorted(List<Integer> xs) {\n        for (int i = 1; i < xs.size(); i++) if (xs.get(i - 1) >= xs.get(i)) return false;\n        return true;\n    }\n}\n";

fn variant(entry: &str, class: Option<&str>, given: &str, faulty: &[&str]) -> Variant {
    Variant {
        prompt: given.to_owned(),
        entry_point: entry.to_owned(),
        class_name: class.map(str::to_owned),
        signature: Signature {
            params: Vec::new(),
            returns: None,
        },
        reference_solution: String::new(),
        given_code: Some(given.to_owned()),
        faulty_variants: faulty.iter().map(|s| (*s).to_owned()).collect(),
        preamble: None,
    }
}

fn task() -> Task {
    let variants = [
        (
            Language::Python,
            variant("is_sorted", None, PY_GIVEN, &[PY_FAULTY, PY_FAULTY_2]),
        ),
        (
            Language::Javascript,
            variant("isSorted", None, JS_GIVEN, &[JS_FAULTY]),
        ),
        (
            Language::Java,
            variant("isSorted", Some("Solution"), JAVA_GIVEN, &[JAVA_FAULTY]),
        ),
    ];
    Task {
        format_version: TASK_FORMAT_VERSION,
        id: "unittest/is_sorted".to_owned(),
        version: 1,
        category: Category::UnitTestWriting,
        tier: Tier::One,
        factors: IntakeFactors {
            conditions: 1,
            solution_space: 1,
            edge_cases: 0,
        },
        source: Source {
            dataset: "test".to_owned(),
            upstream_id: "is_sorted".to_owned(),
            license: "MIT".to_owned(),
        },
        variants: variants.into_iter().collect::<BTreeMap<_, _>>(),
        tests: Vec::new(),
        comparator: Comparator::default(),
        category_data: CategoryData::default(),
        limits: LimitOverrides::default(),
        calibration: Calibration::default(),
    }
}

fn judge(language: Language, tests: &str) -> Verdict {
    grade(runner(), &task(), language, tests).expect("graded")
}

fn rules(v: &Verdict) -> Vec<&str> {
    v.grader
        .as_ref()
        .map(|g| g.failed_rules.iter().map(|r| r.rule.as_str()).collect())
        .unwrap_or_default()
}

/// Grades every case in parallel and reports all mismatches at once: (name, language,
/// tests, the first rule expected, or `None` for a pass).
fn check(cases: &[(&str, Language, &str, Option<&str>)]) {
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|(name, language, tests, expected)| {
                s.spawn(move || {
                    let v = judge(*language, tests);
                    let got = rules(&v).first().map(|r| r.to_string());
                    let ok = match expected {
                        None => v.passed(),
                        Some(rule) => !v.passed() && got.as_deref() == Some(*rule),
                    };
                    (!ok).then(|| {
                        format!(
                            "{name} ({language}): expected {expected:?}, got {:?} {:?}: {v:?}",
                            v.reason, got
                        )
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

const PY_GOOD: &str = "from solution import is_sorted\n\ndef test_sorted():\n    assert is_sorted([1, 2, 3])\n\ndef test_equal_neighbours():\n    assert is_sorted([1, 1, 2])\n\ndef test_unsorted():\n    assert not is_sorted([2, 1])\n";
const JS_GOOD: &str = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { isSorted } = require('./solution.js');\n\ntest('sorted', () => { assert.strictEqual(isSorted([1, 2, 3]), true); });\ntest('equal neighbours', () => { assert.strictEqual(isSorted([1, 1, 2]), true); });\ntest('unsorted', () => { assert.strictEqual(isSorted([3, 1]), false); });\n";
const JAVA_GOOD: &str = "import java.util.*;\n\npublic class SolutionTest {\n    static void testSorted() { assert new Solution().isSorted(List.of(1, 2, 3)); }\n    static void testEqualNeighbours() { assert new Solution().isSorted(List.of(1, 1, 2)); }\n    static void testUnsorted() { assert !new Solution().isSorted(List.of(3, 1)); }\n}\n";

#[test]
fn good_suites_pass_and_report_what_they_caught() {
    for (language, tests) in [
        (Language::Python, PY_GOOD),
        (Language::Javascript, JS_GOOD),
        (Language::Java, JAVA_GOOD),
    ] {
        let v = judge(language, tests);
        assert!(v.passed(), "{language}: {v:?}");
        let g = v.grader.as_ref().unwrap();
        assert_eq!(g.grader, "unit_tests");
        assert_eq!(g.faulty_caught, g.faulty_total, "{language}");
        assert_eq!(g.metrics["tests"], 3);
        assert_eq!(v.tests_passed, 3);
    }
}

#[test]
fn each_rule_names_what_broke_it() {
    check(&[
        (
            "no tests",
            Language::Python,
            "def helper():\n    assert is_sorted([1])\n",
            Some("tests.none_found"),
        ),
        (
            "no tests",
            Language::Javascript,
            "const x = 1;\n",
            Some("tests.none_found"),
        ),
        (
            "no tests",
            Language::Java,
            "class T { static void helper() {} }\n",
            Some("tests.none_found"),
        ),
        (
            "does not load",
            Language::Python,
            "import hypothesis_not_here\n\ndef test_a():\n    pass\n",
            Some("tests.error"),
        ),
        (
            "does not load",
            Language::Javascript,
            "const t = require('not-a-module');\ntest('a', () => {});\n",
            Some("tests.error"),
        ),
        (
            "does not compile",
            Language::Java,
            "class T { static void testA() { new Solution().isSorted(1); } }\n",
            Some("tests.error"),
        ),
        (
            "wrong expectation",
            Language::Python,
            "def test_a():\n    assert is_sorted([2, 1])\n",
            Some("tests.fails_on_reference"),
        ),
        (
            "wrong expectation",
            Language::Javascript,
            "const test = require('node:test');\nconst assert = require('node:assert');\ntest('a', () => { assert.ok(isSorted([2, 1])); });\n",
            Some("tests.fails_on_reference"),
        ),
        (
            "wrong expectation",
            Language::Java,
            "class T { static void testA() { assert new Solution().isSorted(List.of(2, 1)); } }\nimport java.util.*;\n",
            Some("tests.error"),
        ),
        (
            "wrong expectation",
            Language::Java,
            "import java.util.*;\nclass T { static void testA() { assert new Solution().isSorted(List.of(2, 1)); } }\n",
            Some("tests.fails_on_reference"),
        ),
        // Misses the first faulty variant (equal neighbours) only.
        (
            "weak",
            Language::Python,
            "def test_a():\n    assert is_sorted([1, 2, 3])\n    assert not is_sorted([3, 2, 1])\n",
            Some("tests.misses_faulty"),
        ),
        (
            "weak",
            Language::Javascript,
            "const test = require('node:test');\nconst assert = require('node:assert');\ntest('a', () => { assert.ok(isSorted([1, 2])); });\n",
            Some("tests.misses_faulty"),
        ),
        (
            "weak",
            Language::Java,
            "import java.util.*;\nclass T { static void testA() { assert new Solution().isSorted(List.of(1, 2)); } }\n",
            Some("tests.misses_faulty"),
        ),
    ]);
}

#[test]
fn the_failing_test_and_the_surviving_variant_are_named() {
    let v = judge(
        Language::Python,
        "def test_ok():\n    assert is_sorted([])\n\ndef test_bad():\n    assert is_sorted([2, 1]), 'not sorted'\n",
    );
    assert_eq!(v.reason, Reason::GraderRule);
    let detail = v.detail.unwrap();
    assert!(detail.starts_with("tests.fails_on_reference: test `test_bad` fails on the reference: AssertionError: not sorted"), "{detail}");
    // Catches variant 1 (short lists) but not variant 0 (equal neighbours).
    let v = judge(
        Language::Python,
        "def test_a():\n    assert not is_sorted([2, 1])\n",
    );
    let g = v.grader.unwrap();
    assert_eq!((g.faulty_caught, g.faulty_total), (Some(1), Some(2)));
    assert!(
        g.failed_rules[0]
            .detail
            .starts_with("faulty variant 0 survived"),
        "{g:?}"
    );
}

#[test]
fn a_reference_run_over_its_limits_reports_the_limit() {
    let v = judge(
        Language::Python,
        "def test_slow():\n    while True:\n        pass\n",
    );
    assert_eq!(v.reason, Reason::Timeout, "{v:?}");
    assert_eq!(rules(&v)[0], "tests.fails_on_reference");
}

#[test]
fn suites_that_test_nothing_catch_nothing() {
    check(&[
        (
            "assert True",
            Language::Python,
            "def test_a():\n    assert True\n",
            Some("tests.misses_faulty"),
        ),
        (
            "swallowed",
            Language::Python,
            "def test_a():\n    try:\n        assert is_sorted([1, 1])\n    except AssertionError:\n        pass\n",
            Some("tests.misses_faulty"),
        ),
        (
            "swallowed everything",
            Language::Python,
            "def test_a():\n    try:\n        assert is_sorted([1, 1])\n    except BaseException:\n        pass\n",
            Some("tests.misses_faulty"),
        ),
        (
            "assert true",
            Language::Javascript,
            "const test = require('node:test');\nconst assert = require('node:assert');\ntest('a', () => { assert.ok(true); });\n",
            Some("tests.misses_faulty"),
        ),
        (
            "console.assert does not throw",
            Language::Javascript,
            "const test = require('node:test');\ntest('a', () => { console.assert(isSorted([1, 1])); });\n",
            Some("tests.misses_faulty"),
        ),
        (
            "swallowed",
            Language::Javascript,
            "const test = require('node:test');\nconst assert = require('node:assert');\ntest('a', () => { try { assert.ok(isSorted([1, 1])); } catch (e) {} });\n",
            Some("tests.misses_faulty"),
        ),
        (
            "assert true",
            Language::Java,
            "class T { static void testA() { assert true; } }\n",
            Some("tests.misses_faulty"),
        ),
        (
            "swallowed",
            Language::Java,
            "import java.util.*;\nclass T { static void testA() { try { assert new Solution().isSorted(List.of(1, 1)); } catch (AssertionError e) {} } }\n",
            Some("tests.misses_faulty"),
        ),
    ]);
}

#[test]
fn early_exits_and_printed_passes_do_not_pass() {
    check(&[
        (
            "exit at load",
            Language::Python,
            "import os\nprint('PASS')\nos._exit(0)\n\ndef test_a():\n    assert not is_sorted([1, 0])\n",
            Some("tests.fails_on_reference"),
        ),
        (
            "exit(0) in a test",
            Language::Python,
            "import sys\n\ndef test_a():\n    assert is_sorted([1, 1])\n\ndef test_b():\n    sys.exit(0)\n\ndef test_c():\n    assert is_sorted([2, 1])\n",
            Some("tests.fails_on_reference"),
        ),
        (
            "os._exit in a test",
            Language::Python,
            "import os\n\ndef test_a():\n    assert is_sorted([1, 1])\n    print('1 passed')\n    os._exit(0)\n\ndef test_b():\n    assert is_sorted([2, 1])\n",
            Some("tests.fails_on_reference"),
        ),
        (
            "process.exit",
            Language::Javascript,
            "const test = require('node:test');\nconst assert = require('node:assert');\ntest('a', () => { assert.ok(isSorted([1, 1])); console.log('# pass 2'); process.exit(0); });\ntest('b', () => { assert.ok(isSorted([2, 1])); });\n",
            Some("tests.fails_on_reference"),
        ),
        (
            "System.exit",
            Language::Java,
            "import java.util.*;\nclass T {\n static void testA() { assert new Solution().isSorted(List.of(1, 1)); System.out.println(\"OK (2 tests)\"); System.exit(0); }\n static void testB() { assert new Solution().isSorted(List.of(2, 1)); }\n}\n",
            Some("tests.fails_on_reference"),
        ),
        (
            "Runtime.halt",
            Language::Java,
            "import java.util.*;\nclass T {\n static { Runtime.getRuntime().halt(0); }\n static void testA() { assert new Solution().isSorted(List.of(1, 1)); }\n}\n",
            Some("tests.fails_on_reference"),
        ),
    ]);
}

/// Each suite fails only if the implementation it runs on is not the one shown to the model,
/// detected by something other than behaviour. Where that information is out of reach, the
/// suite catches nothing (`misses_faulty`) or fails on the reference too.
#[test]
fn the_faulty_variant_cannot_be_told_apart_except_by_behaviour() {
    let py_src = PY_GIVEN.replace('\n', "\\n");
    let source = format!(
        "import os\n\ndef test_source():\n    src = open('solution.py').read() if os.path.exists('solution.py') else {py_src:?}\n    assert src == {py_src:?}\n"
    );
    let inspect = format!(
        "import inspect\n\ndef test_inspect():\n    try:\n        src = inspect.getsource(is_sorted)\n    except OSError:\n        src = {py_src:?}\n    assert src == {py_src:?}\n"
    );
    let js_src = JS_GIVEN.replace('\n', "\\n");
    let js_to_string = format!(
        "const test = require('node:test');\ntest('source', () => {{\n  const fs = require('fs');\n  let src = {js_src:?};\n  try {{ src = fs.readFileSync('solution.js', 'utf8'); }} catch (e) {{}}\n  if (src !== {js_src:?}) throw new Error('faulty');\n  if (isSorted.toString().includes('>=')) throw new Error('faulty');\n}});\n"
    );
    check(&[
        (
            "reads solution.py",
            Language::Python,
            &source,
            Some("tests.misses_faulty"),
        ),
        (
            "inspect.getsource",
            Language::Python,
            &inspect,
            Some("tests.misses_faulty"),
        ),
        (
            "module and file names",
            Language::Python,
            "import solution\n\ndef test_names():\n    assert solution.__name__ == 'solution'\n    assert is_sorted.__module__ == 'solution'\n    assert solution.__file__.endswith('/solution.py')\n",
            Some("tests.misses_faulty"),
        ),
        (
            "stack and harness locals",
            Language::Python,
            "import sys\n\ndef test_stack():\n    seen = []\n    f = sys._getframe()\n    while f is not None:\n        seen.append(repr(sorted(f.f_locals)))\n        f = f.f_back\n    assert not any('faulty' in s or 'reference' in s or '<' in s for s in seen)\n",
            Some("tests.misses_faulty"),
        ),
        (
            "environment and arguments",
            Language::Python,
            "import os, sys\n\ndef test_env():\n    assert not any('faulty' in k.lower() or 'faulty' in v.lower() for k, v in os.environ.items())\n    assert not any('faulty' in a for a in sys.argv)\n",
            Some("tests.misses_faulty"),
        ),
        (
            "files in the work dir",
            Language::Python,
            "import os\n\ndef test_listing():\n    assert sorted(os.listdir('.')) == sorted(os.listdir('.'))\n    assert 'solution.py' not in os.listdir('.')\n",
            Some("tests.misses_faulty"),
        ),
        (
            "reads solution.js and toString",
            Language::Javascript,
            &js_to_string,
            Some("tests.misses_faulty"),
        ),
        (
            "reads Solution.java and the class file",
            Language::Java,
            "import java.nio.file.*;\nclass T {\n static void testSource() throws Exception {\n  if (Files.exists(Path.of(\"Solution.java\")) && Files.readString(Path.of(\"Solution.java\")).contains(\">=\")) throw new AssertionError(\"faulty\");\n  if (Files.exists(Path.of(\"Solution.class\")) && new String(Files.readAllBytes(Path.of(\"Solution.class\"))).contains(\"if_icmplt\")) throw new AssertionError(\"faulty\");\n }\n}\n",
            Some("tests.misses_faulty"),
        ),
    ]);
}

/// Forwards to the sandbox's runner and records which implementations suites ran against.
struct Recording(std::sync::Mutex<Vec<String>>);

impl passrate_grade::Execute for Recording {
    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        code: &str,
    ) -> Result<Verdict, passrate_runner::RunnerError> {
        passrate_grade::Execute::evaluate(runner(), task, language, code)
    }

    fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry_point: &str,
        class_name: Option<&str>,
        calls: &[Vec<passrate_schema::Value>],
    ) -> Result<
        Vec<Result<passrate_schema::Value, passrate_schema::ErrorInfo>>,
        passrate_runner::RunnerError,
    > {
        passrate_grade::Execute::run_calls(runner(), language, code, entry_point, class_name, calls)
    }

    fn run_suite(
        &self,
        language: Language,
        implementation: &str,
        tests: &str,
        target: &passrate_runner::SuiteTarget<'_>,
    ) -> Result<passrate_runner::SuiteOutcome, passrate_runner::RunnerError> {
        self.0.lock().unwrap().push(implementation.to_owned());
        passrate_grade::Execute::run_suite(runner(), language, implementation, tests, target)
    }
}

/// Intake's short check agrees with the whole grader on the assert-nothing suite, runs only
/// faulty variants, and stops at the first that survives.
#[test]
fn the_assert_nothing_check_runs_faulty_variants_up_to_the_first_survivor() {
    use passrate_grade::unittest::{trivial_suite, trivial_suite_survives};
    // Python's first faulty variant does not even define the entry point's module cleanly:
    // it is caught by any suite, so the check must go on to the second.
    let mut t = task();
    let py = t.variants.get_mut(&Language::Python).unwrap();
    py.faulty_variants = vec![
        "def is_sorted(xs) return 1\n".to_owned(),
        PY_FAULTY.to_owned(),
    ];
    for language in [Language::Python, Language::Javascript, Language::Java] {
        let recording = Recording(Default::default());
        let survives = trivial_suite_survives(&recording, &t, language).expect("ran");
        let whole = grade(runner(), &t, language, trivial_suite(language)).expect("graded");
        assert!(survives, "{language}");
        assert_eq!(survives, !whole.passed(), "{language}: {whole:?}");
        let ran = recording.0.into_inner().unwrap();
        let faulty = &t.variants[&language].faulty_variants;
        assert_eq!(
            ran,
            faulty[..],
            "{language}: exactly the faulty variants up to a survivor"
        );
    }
    // Both of the original task's Python variants load: the first survives, the second is
    // not run.
    let recording = Recording(Default::default());
    assert!(trivial_suite_survives(&recording, &task(), Language::Python).expect("ran"));
    assert_eq!(recording.0.into_inner().unwrap(), [PY_FAULTY]);
    // When no faulty variant survives even a suite that asserts nothing, any answer would
    // catch them all: the check says so, as the whole grader's pass does.
    let py = t.variants.get_mut(&Language::Python).unwrap();
    py.faulty_variants = vec!["def is_sorted(xs) return 1\n".to_owned()];
    let survives = trivial_suite_survives(runner(), &t, Language::Python).expect("ran");
    let whole = grade(
        runner(),
        &t,
        Language::Python,
        trivial_suite(Language::Python),
    )
    .expect("graded");
    assert!(!survives);
    assert!(whole.passed(), "{whole:?}");
}

/// Suites that "kill every mutant" by testing the implementation's text instead of its
/// behaviour: its code object compiled from the shown source, its source through the stack
/// (JavaScript), the line numbers in its stack trace (Java). The equivalent rewrites of the
/// reference (reformatted, renamed locals, reworded comments, reordered definitions) behave
/// the same and have another text: the suites fail on them.
#[test]
fn suites_that_match_the_source_fail_on_equivalent_rewrites() {
    let py_code_object = format!(
        "from solution import is_sorted\n\ndef test_code():\n    ns = {{}}\n    exec(compile({PY_GIVEN:?}, 'solution.py', 'exec'), ns)\n    assert is_sorted.__code__ == ns['is_sorted'].__code__\n"
    );
    let js_function = JS_GIVEN["const isSorted = ".len()..].trim_end();
    let js_function = &js_function[..js_function.len()];
    let js_source = format!(
        "const test = require('node:test');\nconst assert = require('node:assert');\nfunction source() {{\n  let fn;\n  const prep = Error.prepareStackTrace;\n  Error.prepareStackTrace = (e, sites) => sites;\n  const probe = {{ valueOf() {{ fn = new Error().stack[1].getFunction(); return 0; }} }};\n  try {{ isSorted([probe, 1]); }} finally {{ Error.prepareStackTrace = prep; }}\n  return fn === undefined ? '' : Function.prototype.toString.call(fn);\n}}\ntest('source', () => {{ assert.strictEqual(source(), {js_function:?}); }});\n"
    );
    // The line of `xs.size()` in the shown code, and a real test beside it.
    let java_lines = "import java.util.*;\nclass T {\n static void testLine() {\n  try { new Solution().isSorted(null); throw new AssertionError(\"no exception\"); }\n  catch (NullPointerException e) { assert e.getStackTrace()[0].getLineNumber() == 5 : e.getStackTrace()[0]; }\n }\n static void testEqual() { assert new Solution().isSorted(List.of(1, 1)); }\n}\n";
    check(&[
        (
            "code object equals the shown source's",
            Language::Python,
            &py_code_object,
            Some("tests.fails_on_equivalent_rewrite"),
        ),
        (
            "Function.prototype.toString through the stack",
            Language::Javascript,
            &js_source,
            Some("tests.fails_on_equivalent_rewrite"),
        ),
        (
            "line numbers of the stack trace",
            Language::Java,
            java_lines,
            Some("tests.fails_on_equivalent_rewrite"),
        ),
    ]);
    // The source itself is out of reach: a suite comparing it fails on the reference.
    let inspect = format!(
        "import inspect\n\ndef test_inspect():\n    assert inspect.getsource(is_sorted) == {PY_GIVEN:?}\n"
    );
    let v = judge(Language::Python, &inspect);
    assert_eq!(
        rules(&v).first(),
        Some(&"tests.fails_on_reference"),
        "{v:?}"
    );
}

/// The rule names the rewrite a suite failed on and the test that failed.
#[test]
fn the_failing_rewrite_is_named() {
    let tests = "from solution import is_sorted\n\ndef test_behaviour():\n    assert is_sorted([1, 1]) and not is_sorted([2, 1])\n\ndef test_first_line():\n    assert is_sorted.__code__.co_firstlineno == 1\n";
    let v = judge(Language::Python, tests);
    assert_eq!(v.reason, Reason::GraderRule, "{v:?}");
    let detail = v.detail.unwrap();
    assert!(
        detail.starts_with("tests.fails_on_equivalent_rewrite: test `test_first_line` fails on the equivalent rewrite `reformatted`"),
        "{detail}"
    );
    let g = v.grader.unwrap();
    assert_eq!(g.faulty_caught, g.faulty_total);
    assert!(g.metrics["rewrites"] >= 3, "{g:?}");
    // The definition moves only in the reformatted rewrite (a comment is added inside it).
    assert_eq!(
        g.metrics["rewrites"] - g.metrics["rewrites_passed"],
        1,
        "{g:?}"
    );
}

/// Suites whose code writes the harness's report itself: on the reference (told apart by
/// behaviour) a test reports every test passed and the suite done, then ends the process;
/// `test_b`, which fails everywhere, is never run there. The grader must not believe the
/// report: `test_b` fails on the reference.
#[test]
#[ignore = "open (issue #23): the suite harnesses share their process, nonce and channel with the tests, so all three forgeries pass today"]
fn a_report_forged_by_the_tests_is_not_believed() {
    let py = "import os, sys\nfrom solution import is_sorted\n\ndef test_a():\n    if is_sorted([1, 1]) and not is_sorted([2, 1]):\n        f = sys._getframe()\n        while f is not None and 'send' not in f.f_locals:\n            f = f.f_back\n        send = f.f_locals['send']\n        send('{\"case\":0,\"ok\":null,\"cpu_us\":1}')\n        send('{\"case\":1,\"ok\":null,\"cpu_us\":1}')\n        send('{\"done\":null}')\n        os._exit(0)\n\ndef test_b():\n    assert False\n";
    let js = "const test = require('node:test');\nconst fs = require('fs');\nfunction harness() {\n  const s = new (require('inspector').Session)();\n  s.connect();\n  const found = {};\n  const props = (id, f) => s.post('Runtime.getProperties', { objectId: id }, (e, r) => f(r));\n  s.post('Runtime.evaluate', { expression: 'globalThis.__passrate_run_test' }, (e, r) => {\n    props(r.result.objectId, (p) => {\n      const scopes = p.internalProperties.find((x) => x.name === '[[Scopes]]');\n      props(scopes.value.objectId, (list) => {\n        for (const sc of list.result) props(sc.value.objectId, (vars) => {\n          for (const v of vars.result) if (v.name === 'nonce' || v.name === 'seq') found[v.name] = v.value.value;\n        });\n      });\n    });\n  });\n  return found;\n}\nfunction frame(h, payload) {\n  fs.writeSync(4, 'PASSRATE ' + h.nonce + ' ' + h.seq + ' ' + Buffer.byteLength(payload) + '\\n' + payload + '\\n');\n  h.seq += 1;\n}\ntest('a', () => {\n  if (isSorted([1, 1]) && !isSorted([2, 1])) {\n    const h = harness();\n    frame(h, '{\"case\":0,\"ok\":null,\"cpu_us\":1}');\n    frame(h, '{\"case\":1,\"ok\":null,\"cpu_us\":1}');\n    frame(h, '{\"done\":null}');\n    process.reallyExit(0);\n  }\n});\ntest('b', () => { throw new Error('always'); });\n";
    let java = "import java.util.*;\nimport java.lang.reflect.*;\nclass T {\n static void testA() throws Exception {\n  if (new Solution().isSorted(List.of(1, 1)) && !new Solution().isSorted(List.of(2, 1))) {\n   Method send = Class.forName(\"PassrateSuite\").getDeclaredMethod(\"send\", String.class);\n   send.setAccessible(true);\n   send.invoke(null, \"{\\\"case\\\":0,\\\"ok\\\":null,\\\"cpu_us\\\":1}\");\n   send.invoke(null, \"{\\\"case\\\":1,\\\"ok\\\":null,\\\"cpu_us\\\":1}\");\n   send.invoke(null, \"{\\\"done\\\":null}\");\n   Runtime.getRuntime().halt(0);\n  }\n }\n static void testB() { assert false; }\n}\n";
    check(&[
        (
            "harness's send from the stack",
            Language::Python,
            py,
            Some("tests.fails_on_reference"),
        ),
        (
            "nonce through the inspector",
            Language::Javascript,
            js,
            Some("tests.fails_on_reference"),
        ),
        (
            "harness's send by reflection",
            Language::Java,
            java,
            Some("tests.fails_on_reference"),
        ),
    ]);
}
