//! Suite mode through the real sandbox: answers' unit tests run against an implementation,
//! one result per test, in every language; suites that exit early, forge results or print
//! "PASS" do not pass; the implementation's source is out of the tests' reach.

mod common;

use common::runner;
use passrate_runner::{SuiteOutcome, SuiteTarget};
use passrate_schema::{Language, LimitOverrides, Reason};

const PY_IMPL: &str = "def add(a, b):\n    return a + b\n";
const JS_IMPL: &str = "const add = (a, b) => {\n  return a + b;\n}\n";
const JAVA_IMPL: &str = "import java.util.*;\n\nclass Solution {\n    public int add(int a, int b) {\n        return a + b;\n    }\n}\n";

fn run(language: Language, implementation: &str, tests: &str) -> SuiteOutcome {
    let limits = LimitOverrides::default();
    let entry = "add";
    let class = (language == Language::Java).then_some("Solution");
    let target = SuiteTarget::new(entry, class, &limits);
    runner()
        .run_suite(language, implementation, tests, &target)
        .expect("the sandbox works")
}

fn names(o: &SuiteOutcome) -> Vec<(&str, Reason)> {
    o.cases
        .iter()
        .map(|c| (c.name.as_str(), c.reason))
        .collect()
}

#[test]
fn python_tests_run_in_definition_order_with_their_results() {
    let tests = "from solution import add\n\ndef test_b():\n    assert add(1, 2) == 3\n\ndef test_a():\n    assert add(2, 2) == 5\n\ndef helper():\n    assert False\n\ndef test_c():\n    raise ValueError('boom')\n";
    let o = run(Language::Python, PY_IMPL, tests);
    assert_eq!(
        names(&o),
        vec![
            ("test_b", Reason::Pass),
            ("test_a", Reason::WrongAnswer),
            ("test_c", Reason::RuntimeError)
        ],
        "{o:?}"
    );
    let e = o.cases[1].error.as_ref().unwrap();
    assert!(e.message.contains("assert add(2, 2) == 5"), "{e:?}");
    assert!(o.stop.is_none());
}

#[test]
fn python_unittest_classes_and_direct_names_work() {
    let tests = "import unittest\n\nclass T(unittest.TestCase):\n    def test_two(self):\n        self.assertEqual(add(1, 1), 2)\n    def test_one(self):\n        self.assertEqual(add(1, 1), 3)\n\nif __name__ == '__main__':\n    unittest.main()\n";
    let o = run(Language::Python, PY_IMPL, tests);
    assert_eq!(
        names(&o),
        vec![
            ("T.test_one", Reason::WrongAnswer),
            ("T.test_two", Reason::Pass)
        ],
        "{o:?}"
    );
}

#[test]
fn python_pytest_style_suites_work_without_pytest() {
    let tests = "import pytest\nfrom solution import add\n\n@pytest.mark.parametrize('a, b, expected', [(1, 2, 3), (2, 2, 5)])\ndef test_add(a, b, expected):\n    assert add(a, b) == expected\n\ndef test_raises():\n    with pytest.raises(TypeError):\n        add(1, 'x')\n\ndef test_approx():\n    assert add(0.1, 0.2) == pytest.approx(0.3)\n\nclass TestAdd:\n    def test_zero(self):\n        assert add(0, 0) == 0\n";
    let o = run(Language::Python, PY_IMPL, tests);
    assert_eq!(
        names(&o),
        vec![
            ("test_add[0]", Reason::Pass),
            ("test_add[1]", Reason::WrongAnswer),
            ("test_raises", Reason::Pass),
            ("test_approx", Reason::Pass),
            ("TestAdd.test_zero", Reason::Pass)
        ],
        "{o:?}"
    );
}

#[test]
fn javascript_tests_reach_helpers_of_the_implementation() {
    let implementation = "const double = (x) => x * 2;\nconst add = (a, b) => double(a) / 2 + b;\n";
    let tests = "const test = require('node:test');\nconst assert = require('node:assert');\ntest('helper', () => { assert.strictEqual(double(add(1, 1)), 4); });\n";
    let o = run(Language::Javascript, implementation, tests);
    assert_eq!(names(&o), vec![("helper", Reason::Pass)], "{o:?}");
}

#[test]
fn javascript_node_test_suites_run_in_registration_order() {
    let tests = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('./solution.js');\n\ntest('adds', () => { assert.strictEqual(add(1, 2), 3); });\ndescribe_ = require('node:test').describe;\ndescribe_('group', () => {\n  it_ = require('node:test').it;\n  it_('wrong', () => { assert.strictEqual(add(2, 2), 5); });\n});\ntest('async', async () => { await Promise.resolve(); assert.ok(add(0, 0) === 0); });\n";
    let o = run(Language::Javascript, JS_IMPL, tests);
    assert_eq!(
        names(&o),
        vec![
            ("adds", Reason::Pass),
            ("group > wrong", Reason::WrongAnswer),
            ("async", Reason::Pass)
        ],
        "{o:?}"
    );
}

#[test]
fn javascript_esm_imports_and_global_names_work() {
    let tests = "import { test, it } from 'node:test';\nimport assert from 'node:assert/strict';\n\ntest('direct', () => { assert.equal(add(1, 1), 2); });\nit('fails', () => { assert.equal(add(1, 1), 3); });\n";
    let o = run(Language::Javascript, JS_IMPL, tests);
    assert_eq!(
        names(&o),
        vec![("direct", Reason::Pass), ("fails", Reason::WrongAnswer)],
        "{o:?}"
    );
}

#[test]
fn java_static_and_junit_style_tests_run_sorted_by_name() {
    let tests = "public class SolutionTest {\n    static void testB() { assert new Solution().add(1, 2) == 3; }\n    static void testA() { assert new Solution().add(1, 2) == 4 : \"sum\"; }\n    static void helper() { throw new RuntimeException(); }\n}\n";
    let o = run(Language::Java, JAVA_IMPL, tests);
    assert_eq!(
        names(&o),
        vec![
            ("SolutionTest.testA", Reason::WrongAnswer),
            ("SolutionTest.testB", Reason::Pass)
        ],
        "{o:?}"
    );
    let junit = "import org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.*;\n\nclass AddTest {\n    @Test\n    void adds() { assertEquals(3, new Solution().add(1, 2)); }\n    @Test\n    void wrong() { assertEquals(5, new Solution().add(2, 2), \"2+2\"); }\n    @Test\n    void throwsNothing() { assertThrows(ArithmeticException.class, () -> new Solution().add(1, 1)); }\n}\n";
    let o = run(Language::Java, JAVA_IMPL, junit);
    assert_eq!(
        names(&o),
        vec![
            ("AddTest.adds", Reason::Pass),
            ("AddTest.throwsNothing", Reason::WrongAnswer),
            ("AddTest.wrong", Reason::WrongAnswer)
        ],
        "{o:?}"
    );
    let junit4 = "import org.junit.Test;\nimport static org.junit.Assert.*;\n\npublic class AddTest4 {\n    @Test\n    public void adds() { assertEquals(\"sum\", 3, new Solution().add(1, 2)); assertTrue(true); }\n}\n";
    let o = run(Language::Java, JAVA_IMPL, junit4);
    assert_eq!(names(&o), vec![("AddTest4.adds", Reason::Pass)], "{o:?}");
    // JUnit 4's message-first forms and its own ThrowingRunnable, failing and passing.
    let junit4_more = "import org.junit.Test;\nimport static org.junit.Assert.*;\n\npublic class More4 {\n    @Test\n    public void wrong() { assertEquals(\"2+2\", 5, new Solution().add(2, 2)); }\n    @Test\n    public void delta() { assertEquals(\"near\", 3.0, (double) new Solution().add(1, 2), 1e-9); }\n    @Test\n    public void throwsNothing() { assertThrows(ArithmeticException.class, () -> new Solution().add(1, 1)); }\n    @Test\n    public void throwsIt() { assertThrows(ArithmeticException.class, () -> { int z = 0; int x = 1 / z; }); }\n}\n";
    let o = run(Language::Java, JAVA_IMPL, junit4_more);
    assert_eq!(
        names(&o),
        vec![
            ("More4.delta", Reason::Pass),
            ("More4.throwsIt", Reason::Pass),
            ("More4.throwsNothing", Reason::WrongAnswer),
            ("More4.wrong", Reason::WrongAnswer)
        ],
        "{o:?}"
    );
}

#[test]
fn suites_that_do_not_load_report_suite_errors() {
    let cases = [
        (Language::Python, PY_IMPL, "def test_x(:\n    pass\n"),
        (Language::Python, PY_IMPL, "import pytest_not_installed\n"),
        (Language::Javascript, JS_IMPL, "test('x', () => {\n"),
        (
            Language::Java,
            JAVA_IMPL,
            "class T { static void testX() { int x = \"s\"; } }\n",
        ),
    ];
    for (language, implementation, tests) in cases {
        let o = run(language, implementation, tests);
        assert!(o.suite_error.is_some(), "{language}: {o:?}");
        assert!(!o.all_passed());
    }
}

#[test]
fn early_exits_and_printed_passes_do_not_pass() {
    let cases = [
        (
            Language::Python,
            PY_IMPL,
            "import os, sys\n\ndef test_a():\n    assert add(1, 1) == 2\n\ndef test_b():\n    print('PASS')\n    os._exit(0)\n\ndef test_c():\n    assert add(1, 1) == 3\n",
        ),
        (
            Language::Python,
            PY_IMPL,
            "import sys\n\ndef test_a():\n    pass\n\ndef test_b():\n    sys.exit(0)\n\ndef test_c():\n    assert add(1, 1) == 3\n",
        ),
        (
            Language::Javascript,
            JS_IMPL,
            "const test = require('node:test');\ntest('a', () => {});\ntest('b', () => { console.log('ok 2 - PASS'); process.exit(0); });\ntest('c', () => { throw new Error('x'); });\n",
        ),
        (
            Language::Java,
            JAVA_IMPL,
            "class T {\n static void testA() {}\n static void testB() { System.out.println(\"PASS\"); System.exit(0); }\n static void testC() { throw new AssertionError(); }\n}\n",
        ),
    ];
    for (language, implementation, tests) in cases {
        let o = run(language, implementation, tests);
        assert!(!o.all_passed(), "{language}: {o:?}");
        assert!(o.cases[0].passed(), "{language}: {o:?}");
        assert!(
            o.cases.iter().skip(1).all(|c| !c.passed()),
            "{language}: every test after the exit fails: {o:?}"
        );
    }
}

#[test]
fn forged_frames_are_protocol_violations() {
    // The tests find the nonce in the harness's frames and write a result of their own.
    let tests = "import sys, os\n\ndef test_a():\n    f = sys._getframe()\n    while f is not None and 'nonce' not in f.f_locals:\n        f = f.f_back\n    n = f.f_locals['nonce']\n    body = b'{\"case\":0,\"ok\":null,\"cpu_us\":1}'\n    os.write(4, b'PASSRATE %s 3 %d\\n' % (n.encode(), len(body)) + body + b'\\n')\n    assert False\n";
    let o = run(Language::Python, PY_IMPL, tests);
    assert!(!o.all_passed(), "{o:?}");
    let stop = o.stop.as_ref().expect("the forgery stopped the transcript");
    assert!(stop.detail.contains("tampered"), "{o:?}");
}

#[test]
fn the_implementation_source_is_out_of_reach() {
    // Each test passes only if the implementation's source can be read: none may pass.
    let cases = [
        (
            Language::Python,
            PY_IMPL,
            "import inspect, os, solution\n\ndef test_file():\n    assert 'return' in open('solution.py').read()\n\ndef test_inspect():\n    assert 'return' in inspect.getsource(add)\n\ndef test_module_file():\n    assert os.path.exists(solution.__file__)\n\ndef test_listing():\n    assert any(n.startswith('solution') for n in os.listdir('.'))\n",
        ),
        (
            Language::Javascript,
            JS_IMPL,
            "const test = require('node:test');\nconst fs = require('fs');\nconst { add } = require('./solution');\ntest('file', () => { if (!fs.readFileSync('solution.js', 'utf8').includes('return')) throw new Error(); });\ntest('toString', () => { if (!add.toString().includes('a + b')) throw new Error('no source'); });\ntest('listing', () => { if (!fs.readdirSync('.').some((n) => n.startsWith('solution.') && !n.includes('test'))) throw new Error(); });\n",
        ),
        (
            Language::Java,
            JAVA_IMPL,
            "import java.nio.file.*;\nclass T {\n static void testSource() throws Exception { Files.readString(Path.of(\"Solution.java\")); }\n static void testClassFile() throws Exception { Files.readAllBytes(Path.of(\"Solution.class\")); }\n static void testResource() throws Exception { if (Solution.class.getResourceAsStream(\"Solution.class\") == null) throw new AssertionError(\"gone\"); }\n}\n",
        ),
    ];
    for (language, implementation, tests) in cases {
        let o = run(language, implementation, tests);
        assert!(!o.cases.is_empty(), "{language}: {o:?}");
        assert!(
            o.cases.iter().all(|c| !c.passed()),
            "{language}: a test read the source: {o:?}"
        );
    }
}

#[test]
fn a_test_over_its_budget_times_out_and_stops_the_suite() {
    let cases = [
        (
            Language::Python,
            PY_IMPL,
            "def test_a():\n    pass\n\ndef test_loop():\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n\ndef test_c():\n    pass\n",
        ),
        (
            Language::Javascript,
            JS_IMPL,
            "const test = require('node:test');\ntest('a', () => {});\ntest('loop', () => { for (;;) {} });\ntest('c', () => {});\n",
        ),
        (
            Language::Java,
            JAVA_IMPL,
            "class T {\n static void testA() {}\n static void testLoop() { while (true) {} }\n static void testZ() {}\n}\n",
        ),
    ];
    for (language, implementation, tests) in cases {
        let o = run(language, implementation, tests);
        assert_eq!(o.cases.len(), 3, "{language}: {o:?}");
        assert!(o.cases[0].passed(), "{language}: {o:?}");
        assert_eq!(o.cases[1].reason, Reason::Timeout, "{language}: {o:?}");
        assert!(!o.cases[2].passed(), "{language}: {o:?}");
        // Stopped at the test's 1 s CPU budget: Python and Java by the harness, JavaScript
        // by the jail (its harness's own budget is 3 s of wall time).
        assert!(
            o.cpu_us < 2_000_000,
            "{language}: {} ms of CPU for a 1 s test budget",
            o.cpu_us / 1000
        );
    }
    // JavaScript's budget (the jail's) starts with the first test, right after the harness's
    // `suite` frame.
    let o = run(
        Language::Javascript,
        JS_IMPL,
        "const test = require('node:test');\ntest('loop', () => { for (;;) {} });\ntest('b', () => {});\n",
    );
    assert_eq!(o.cases[0].reason, Reason::Timeout, "{o:?}");
    assert!(o.cpu_us < 2_000_000, "{} ms of CPU", o.cpu_us / 1000);
}

#[test]
fn implementation_load_errors_are_reported_as_such() {
    let o = run(
        Language::Python,
        "raise RuntimeError('x')\n",
        "def test_a():\n    pass\n",
    );
    assert_eq!(o.load_error.as_ref().unwrap().kind, "RuntimeError", "{o:?}");
    let o = run(
        Language::Python,
        "def other():\n    pass\n",
        "def test_a():\n    pass\n",
    );
    assert_eq!(o.load_error.as_ref().unwrap().kind, "MissingEntryPoint");
}

#[test]
fn empty_suites_are_discovered_as_empty() {
    for (language, implementation, tests) in [
        (Language::Python, PY_IMPL, "x = 1\n"),
        (Language::Javascript, JS_IMPL, "const x = 1;\n"),
        (
            Language::Java,
            JAVA_IMPL,
            "class T { static void helper() {} }\n",
        ),
    ] {
        let o = run(language, implementation, tests);
        assert!(o.discovered && o.cases.is_empty(), "{language}: {o:?}");
    }
}

#[test]
fn javascript_assert_loads_with_the_real_stderr_kept_for_the_tests() {
    // The harness loads node:assert with a stand-in stderr (see suite.js); the tests still
    // get the real stream, and failing assertions (whose message may read stderr) still fail.
    let tests = "const test = require('node:test');\nconst assert = require('node:assert');\nconst strict = require('node:assert/strict');\n\ntest('stderr', () => {\n  assert.strictEqual(typeof process.stderr.write, 'function');\n  process.stderr.write('noise\\n');\n  assert.notStrictEqual(process.stderr.isTTY, true);\n});\ntest('fails', () => { assert.strictEqual(add(1, 1), 3); });\ntest('strict', () => { strict.deepEqual([add(1, 1)], [2]); });\ntest('okFails', () => { assert.ok(add(1, 1) === 3); });\n";
    let o = run(Language::Javascript, JS_IMPL, tests);
    assert_eq!(
        names(&o),
        vec![
            ("stderr", Reason::Pass),
            ("fails", Reason::WrongAnswer),
            ("strict", Reason::Pass),
            ("okFails", Reason::WrongAnswer)
        ],
        "{o:?}"
    );
    assert!(o.stop.is_none(), "{o:?}");
}

#[test]
fn javascript_tests_cannot_replace_how_the_harness_runs_the_next_test() {
    // Each test is entered through a script the harness compiled and a global function the
    // tests can neither overwrite, redefine nor shadow, with the vm method captured before
    // the tests loaded: a later test still runs, fails and is stopped by its budget.
    let tests = "const test = require('node:test');\nconst assert = require('node:assert');\nconst vm = require('node:vm');\nconst skipIt = () => Promise.resolve();\n\ntest('tamper', () => {\n  try { globalThis.__passrate_run_test = skipIt; } catch (e) {}\n  try { Object.defineProperty(globalThis, '__passrate_run_test', { value: skipIt }); } catch (e) {}\n  try { vm.runInThisContext('let __passrate_run_test = () => Promise.resolve();'); } catch (e) {}\n  try { vm.Script.prototype.runInThisContext = skipIt; } catch (e) {}\n  try { Object.getPrototypeOf(vm.Script.prototype).runInContext = skipIt; } catch (e) {}\n});\ntest('fails', () => { assert.strictEqual(add(1, 1), 3); });\ntest('loop', () => { for (;;) {} });\n";
    let o = run(Language::Javascript, JS_IMPL, tests);
    assert_eq!(
        names(&o),
        vec![
            ("tamper", Reason::Pass),
            ("fails", Reason::WrongAnswer),
            ("loop", Reason::Timeout)
        ],
        "{o:?}"
    );
}

#[test]
fn the_java_suite_times_tests_without_java_management() {
    // Regression: ThreadMXBean's start-up (platform MBean providers, streams, lambda
    // bootstraps, libmanagement) cost each suite JVM ~15 ms of CPU. The suite harness reads
    // each test thread's clock from /proc (`PassrateSuite.Clock`); the budget still binds
    // (`a_test_over_its_budget_times_out_and_stops_the_suite`).
    let tests = "import java.nio.file.*;\n\
        public class ClockTest {\n\
          static void testManagement() throws Exception {\n\
            for (String line : Files.readAllLines(Paths.get(\"/proc/self/maps\"))) {\n\
              if (line.endsWith(\"/libmanagement.so\")) throw new AssertionError(\"libmanagement is mapped\");\n\
            }\n\
          }\n\
          static void testWork() {\n\
            long s = 0;\n\
            for (int r = 0; r < 40; r++) for (int i = 0; i < 1_000_000; i++) s += (i ^ r) % 7;\n\
            if (s == 42) throw new AssertionError();\n\
          }\n\
        }\n";
    let o = run(Language::Java, JAVA_IMPL, tests);
    assert_eq!(
        names(&o),
        vec![
            ("ClockTest.testManagement", Reason::Pass),
            ("ClockTest.testWork", Reason::Pass)
        ],
        "{o:?}"
    );
    // The clock follows the work: tens of millions of loop steps read more CPU than a
    // scan of a short file (a clock that cannot be read reports 0 for both).
    let cpu: Vec<u64> = o.cases.iter().map(|c| c.cpu_us.unwrap_or(0)).collect();
    assert!(cpu[1] > 0 && cpu[1] > cpu[0], "{cpu:?}");
}
