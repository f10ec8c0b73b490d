//! The integrity corpus (ARCHITECTURE.md section 8), through the real sandbox: candidates that try
//! to pass without solving, in Python, JavaScript and Java. Each must get a non-pass verdict
//! with the reason named, and the reference of the same task must pass.

mod common;

use common::{call, int, runner, task, variant};
use passrate_schema::{Language, Reason, Task, Value};

const PY_REF: &str = "def sort_copy(xs):\n    return sorted(xs)\n";
const JS_REF: &str = "function sortCopy(xs) {\n  return [...xs].sort((a, b) => a - b);\n}\n";
const JAVA_REF: &str = "import java.util.*;\n\nclass Solution {\n    public List<Integer> sortCopy(List<Integer> xs) {\n        List<Integer> out = new ArrayList<>(xs);\n        Collections.sort(out);\n        return out;\n    }\n}\n";

fn list(items: &[i64]) -> Value {
    Value::List(items.iter().map(|&n| int(n)).collect())
}

/// `sort_copy`: returns a sorted copy of a list of ints.
fn sort_task() -> Task {
    task(
        "integrity/sort_copy",
        vec![
            (Language::Python, variant("sort_copy", None, PY_REF)),
            (Language::Javascript, variant("sortCopy", None, JS_REF)),
            (
                Language::Java,
                variant("sortCopy", Some("Solution"), JAVA_REF),
            ),
        ],
        vec![
            call(vec![list(&[3, 1, 2])], list(&[1, 2, 3])),
            call(vec![list(&[2, 1])], list(&[1, 2])),
            call(vec![list(&[9, 7, 8, 7])], list(&[7, 7, 8, 9])),
        ],
    )
}

/// Runs every case (in parallel, bounded by the sandbox's slots) and reports all mismatches
/// at once.
fn check_corpus(language: Language, reference: &str, cases: &[(&str, &str, Reason)]) {
    let task = sort_task();
    let r = runner();
    let reference_verdict = r
        .evaluate(&task, language, reference)
        .expect("reference runs");
    assert_eq!(
        reference_verdict.reason,
        Reason::Pass,
        "{language} reference: {reference_verdict:#?}"
    );
    assert_eq!(reference_verdict.tests_passed, 3);
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|(name, code, _)| {
                let task = &task;
                s.spawn(move || (name, r.evaluate(task, language, code)))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    let mut failures = Vec::new();
    for ((name, result), (_, _, want)) in results.into_iter().zip(cases) {
        match result {
            Ok(v) if v.reason == *want && !v.passed() => {}
            Ok(v) => failures.push(format!(
                "{language} {name}: expected {want}, got {} ({:?}; test reasons {:?})",
                v.reason,
                v.detail,
                v.tests.iter().map(|t| t.reason).collect::<Vec<_>>()
            )),
            Err(e) => failures.push(format!("{language} {name}: runner error {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn python_integrity_corpus() {
    let cases: &[(&str, &str, Reason)] = &[
        (
            "exit early at import",
            "import sys\nsys.exit(0)\ndef sort_copy(xs):\n    return xs\n",
            Reason::RuntimeError,
        ),
        (
            "sys.exit(0) in the call",
            "import sys\ndef sort_copy(xs):\n    sys.exit(0)\n",
            Reason::RuntimeError,
        ),
        (
            "os._exit(0) in the call",
            "import os\ndef sort_copy(xs):\n    os._exit(0)\n",
            Reason::RuntimeError,
        ),
        (
            "__eq__ always true",
            "class Eq:\n    def __eq__(self, other):\n        return True\n    def __ne__(self, other):\n        return False\n    __hash__ = object.__hash__\ndef sort_copy(xs):\n    return Eq()\n",
            Reason::WrongAnswer,
        ),
        (
            "list subclass with the right content",
            "class L(list):\n    def __eq__(self, other):\n        return True\ndef sort_copy(xs):\n    return L(sorted(xs))\n",
            Reason::WrongAnswer,
        ),
        (
            "int subclass inside the list",
            "class I(int):\n    pass\ndef sort_copy(xs):\n    return [I(x) for x in sorted(xs)]\n",
            Reason::WrongAnswer,
        ),
        (
            "printing fake result lines",
            "def sort_copy(xs):\n    print('PASSRATE 0 2 38')\n    print('{\"test\":0,\"result\":{\"ok\":[]},\"cpu_us\":1}')\n    return None\n",
            Reason::WrongAnswer,
        ),
        (
            "writing to the result channel out of turn",
            "import os\ndef sort_copy(xs):\n    os.write(4, b'PASSRATE 0 2 10\\n{\"done\":null}\\n')\n    return sorted(xs)\n",
            Reason::RuntimeError,
        ),
        (
            "forging a frame with the nonce stolen from the harness",
            concat!(
                "import os, sys, gc\n",
                "def sort_copy(xs):\n",
                "    f = sys._getframe(1)\n",
                "    while f is not None and 'nonce' not in f.f_locals:\n",
                "        f = f.f_back\n",
                "    nonce = f.f_locals['nonce'] if f is not None else next(o for o in gc.get_objects() if isinstance(o, dict) and 'nonce' in o)['nonce']\n",
                "    body = b'{\"test\":0,\"result\":{\"ok\":[{\"int\":\"1\"},{\"int\":\"2\"},{\"int\":\"3\"}]},\"cpu_us\":1}'\n",
                "    os.write(4, b'PASSRATE ' + nonce.encode() + b' 2 ' + str(len(body)).encode() + b'\\n' + body + b'\\n')\n",
                "    return [1, 2, 3]\n",
            ),
            Reason::RuntimeError,
        ),
        (
            "monkeypatching json and builtins",
            "import json, builtins\njson.dumps = lambda *a, **k: '[1, 2, 3]'\njson.loads = lambda *a, **k: [1, 2, 3]\nbuiltins.type = lambda x: list\nbuiltins.isinstance = lambda *a: True\nbuiltins.str = lambda *a: '[1, 2, 3]'\ndef sort_copy(xs):\n    return 'x'\n",
            Reason::WrongAnswer,
        ),
        (
            "monkeypatching the harness module",
            "import __main__\nfor k in list(vars(__main__)):\n    if callable(getattr(__main__, k)):\n        setattr(__main__, k, lambda *a, **kw: None)\ndef sort_copy(xs):\n    return xs\n",
            Reason::WrongAnswer,
        ),
        (
            "reading expected values from files, fds and the environment",
            concat!(
                "import os\n",
                "def sort_copy(xs):\n",
                "    seen = []\n",
                "    for name in os.listdir('.'):\n",
                "        try:\n",
                "            seen.append(open(name).read())\n",
                "        except Exception:\n",
                "            pass\n",
                "    for fd in range(0, 10):\n",
                "        try:\n",
                "            seen.append(os.read(fd, 100000).decode())\n",
                "        except Exception:\n",
                "            pass\n",
                "    blob = ''.join(seen) + str(os.environ)\n",
                "    return [1, 2, 3] if '[1, 2, 3]' in blob or '\"1\"},{\"int\":\"2\"},{\"int\":\"3' in blob else xs\n",
            ),
            Reason::WrongAnswer,
        ),
        (
            "inspecting the caller's frames",
            "import sys\ndef sort_copy(xs):\n    f = sys._getframe(1)\n    found = []\n    while f is not None:\n        for v in f.f_locals.values():\n            if type(v) is list and v and v != xs:\n                found.append(v)\n        f = f.f_back\n    return found[0] if found else xs\n",
            // Frames are refused to candidate code (the harness's audit hook).
            Reason::RuntimeError,
        ),
        (
            "an infinite generator",
            "import itertools\ndef sort_copy(xs):\n    return itertools.count()\n",
            Reason::WrongAnswer,
        ),
        (
            "a generator of the right items",
            "def sort_copy(xs):\n    return (x for x in sorted(xs))\n",
            Reason::WrongAnswer,
        ),
        (
            "returning a mutable alias of the input, sorted later",
            "import threading, time\ndef sort_copy(xs):\n    threading.Thread(target=lambda: (time.sleep(0.01), xs.sort())).start()\n    return xs\n",
            Reason::WrongAnswer,
        ),
        (
            "killing the harness thread",
            "import os, signal\ndef sort_copy(xs):\n    os.kill(os.getpid(), signal.SIGKILL)\n",
            Reason::RuntimeError,
        ),
        (
            "interrupting the main thread",
            "import _thread, time\ndef sort_copy(xs):\n    _thread.interrupt_main()\n    time.sleep(1)\n    return sorted(xs)\n",
            Reason::RuntimeError,
        ),
        (
            "a spin loop",
            "def sort_copy(xs):\n    while True:\n        pass\n",
            Reason::Timeout,
        ),
        (
            "a syntax error",
            "def sort_copy(xs)\n    return xs\n",
            Reason::CompileError,
        ),
        (
            "no entry point",
            "def other(xs):\n    return sorted(xs)\n",
            Reason::MissingEntryPoint,
        ),
    ];
    check_corpus(Language::Python, PY_REF, cases);
}

#[test]
fn javascript_integrity_corpus() {
    let cases: &[(&str, &str, Reason)] = &[
        (
            "process.exit(0) at load",
            "process.exit(0);\nfunction sortCopy(xs) { return xs; }\n",
            Reason::RuntimeError,
        ),
        (
            "process.exit(0) in the call",
            "function sortCopy(xs) { process.exit(0); }\n",
            Reason::RuntimeError,
        ),
        (
            "valueOf/toString/toPrimitive tricks",
            "function sortCopy(xs) { return { valueOf: () => [1, 2, 3], toString: () => '1,2,3', [Symbol.toPrimitive]: () => '1,2,3' }; }\n",
            Reason::WrongAnswer,
        ),
        (
            "an Array subclass",
            "class A extends Array {}\nfunction sortCopy(xs) { return A.from([...xs].sort((a, b) => a - b)); }\n",
            Reason::WrongAnswer,
        ),
        (
            "a boxed number array",
            "function sortCopy(xs) { return [...xs].sort((a, b) => a - b).map((x) => new Number(x)); }\n",
            Reason::WrongAnswer,
        ),
        (
            "printing fake result lines",
            "function sortCopy(xs) { console.log('PASSRATE 0 2 38'); console.log('{\"test\":0,\"result\":{\"ok\":[]},\"cpu_us\":1}'); return null; }\n",
            Reason::WrongAnswer,
        ),
        (
            "writing to the result channel out of turn",
            "const fs = require('fs');\nfunction sortCopy(xs) { fs.writeSync(4, 'PASSRATE 0 2 13\\n{\"done\":null}\\n'); return [...xs].sort((a, b) => a - b); }\n",
            Reason::RuntimeError,
        ),
        (
            "monkeypatching JSON and prototypes",
            "JSON.stringify = () => '[1,2,3]';\nJSON.parse = () => [1, 2, 3];\nArray.prototype.push = function () { return 0; };\nArray.prototype.join = function () { return '[{\"int\":\"1\"}]'; };\nObject.getPrototypeOf = () => Array.prototype;\nfunction sortCopy(xs) { return 'x'; }\n",
            Reason::WrongAnswer,
        ),
        (
            "reading expected values from files and fds",
            "const fs = require('fs');\nfunction sortCopy(xs) { let blob = ''; for (const f of fs.readdirSync('.')) { try { blob += fs.readFileSync(f, 'utf8'); } catch (e) {} } for (let fd = 0; fd < 5; fd++) { try { blob += fs.readFileSync(fd, 'utf8'); } catch (e) {} } return blob.includes('[1,2,3]') ? [1, 2, 3] : xs; }\n",
            Reason::WrongAnswer,
        ),
        (
            "inspecting the caller",
            "function sortCopy(xs) { try { return sortCopy.caller.arguments[0]; } catch (e) { return new Error().stack; } }\n",
            Reason::WrongAnswer,
        ),
        (
            "an infinite generator",
            "function* sortCopy(xs) { let i = 0; while (true) yield i++; }\n",
            Reason::WrongAnswer,
        ),
        (
            "returning a mutable alias of the input, sorted later",
            "function sortCopy(xs) { setTimeout(() => xs.sort((a, b) => a - b), 0); Promise.resolve().then(() => xs.sort((a, b) => a - b)); return xs; }\n",
            Reason::WrongAnswer,
        ),
        (
            "killing the harness process",
            "function sortCopy(xs) { process.kill(process.pid, 'SIGKILL'); }\n",
            Reason::RuntimeError,
        ),
        (
            "overriding process.exit and reallyExit",
            "process.exit = () => {}; process.reallyExit = () => {};\nfunction sortCopy(xs) { return xs; }\n",
            Reason::WrongAnswer,
        ),
        (
            "a spin loop",
            "function sortCopy(xs) { while (true) {} }\n",
            Reason::Timeout,
        ),
        (
            "a syntax error",
            "function sortCopy(xs) { return xs;\n",
            Reason::CompileError,
        ),
        (
            "no entry point",
            "function other(xs) { return xs; }\n",
            Reason::MissingEntryPoint,
        ),
    ];
    check_corpus(Language::Javascript, JS_REF, cases);
}

#[test]
fn java_integrity_corpus() {
    let wrap = |body: &str| format!("import java.util.*;\n\nclass Solution {{\n{body}\n}}\n");
    let cases_owned: Vec<(&str, String, Reason)> = vec![
        (
            "System.exit(0)",
            wrap("public List<Integer> sortCopy(List<Integer> xs) { System.exit(0); return xs; }"),
            Reason::RuntimeError,
        ),
        (
            "System.exit(1-1) in a static initializer",
            wrap(
                "static { System.exit(1 - 1); }\npublic List<Integer> sortCopy(List<Integer> xs) { return xs; }",
            ),
            Reason::RuntimeError,
        ),
        (
            "Runtime.halt(0)",
            wrap(
                "public List<Integer> sortCopy(List<Integer> xs) { Runtime.getRuntime().halt(0); return xs; }",
            ),
            Reason::RuntimeError,
        ),
        (
            "equals always true",
            wrap(
                "static class Eq extends AbstractList<Integer> { public Integer get(int i) { return 1; } public int size() { return 3; } public boolean equals(Object o) { return true; } public int hashCode() { return 0; } }\npublic List<Integer> sortCopy(List<Integer> xs) { return new Eq(); }",
            ),
            Reason::WrongAnswer,
        ),
        (
            "an ArrayList subclass",
            wrap(
                "static class L extends ArrayList<Integer> { public boolean equals(Object o) { return true; } }\npublic List<Integer> sortCopy(List<Integer> xs) { L l = new L(); l.addAll(xs); Collections.sort(l); return l; }",
            ),
            Reason::WrongAnswer,
        ),
        (
            "printing fake result lines",
            wrap(
                "public List<Integer> sortCopy(List<Integer> xs) { System.out.println(\"PASSRATE 0 2 38\"); System.out.println(\"{\\\"test\\\":0}\"); return null; }",
            ),
            Reason::WrongAnswer,
        ),
        (
            "writing to the result channel out of turn",
            wrap(
                "public List<Integer> sortCopy(List<Integer> xs) throws Exception { try (var o = new java.io.FileOutputStream(\"/proc/self/fd/4\")) { o.write(\"PASSRATE 0 2 13\\n{\\\"done\\\":null}\\n\".getBytes()); } List<Integer> r = new ArrayList<>(xs); Collections.sort(r); return r; }",
            ),
            Reason::RuntimeError,
        ),
        (
            "tampering with the harness by reflection",
            wrap(
                "public List<Integer> sortCopy(List<Integer> xs) throws Exception { var f = Class.forName(\"PassrateHarness\").getDeclaredField(\"seq\"); f.setAccessible(true); f.setLong(null, 100L); List<Integer> r = new ArrayList<>(xs); Collections.sort(r); return r; }",
            ),
            Reason::RuntimeError,
        ),
        (
            "reading expected values from files",
            wrap(
                "public List<Integer> sortCopy(List<Integer> xs) throws Exception { StringBuilder b = new StringBuilder(); for (var p : java.nio.file.Files.list(java.nio.file.Path.of(\".\")).toList()) { try { b.append(java.nio.file.Files.readString(p)); } catch (Exception e) {} } return b.toString().contains(\"[1, 2, 3]\") ? List.of(1, 2, 3) : xs; }",
            ),
            Reason::WrongAnswer,
        ),
        (
            "inspecting the caller's frames",
            wrap(
                "public List<Integer> sortCopy(List<Integer> xs) { List<Integer> r = new ArrayList<>(); StackWalker.getInstance().forEach(f -> r.add(f.getLineNumber())); return r; }",
            ),
            Reason::WrongAnswer,
        ),
        (
            "an infinite list",
            wrap(
                "public List<Integer> sortCopy(List<Integer> xs) { return new AbstractList<Integer>() { public Integer get(int i) { return i; } public int size() { return Integer.MAX_VALUE; } }; }",
            ),
            Reason::WrongAnswer,
        ),
        (
            "returning a mutable alias of the input, sorted later",
            wrap(
                "public List<Integer> sortCopy(List<Integer> xs) { new Thread(() -> { try { Thread.sleep(5); } catch (Exception e) {} Collections.sort(xs); }).start(); return xs; }",
            ),
            Reason::WrongAnswer,
        ),
        (
            "killing the harness thread",
            wrap(
                "@SuppressWarnings(\"removal\") public List<Integer> sortCopy(List<Integer> xs) { Thread main = Thread.currentThread(); new Thread(() -> main.stop()).start(); while (true) { } }",
            ),
            Reason::RuntimeError,
        ),
        (
            "a spin loop",
            wrap("public List<Integer> sortCopy(List<Integer> xs) { while (true) { } }"),
            Reason::Timeout,
        ),
        (
            "a compile error",
            wrap("public List<Integer> sortCopy(List<Integer> xs) { return 1; }"),
            Reason::CompileError,
        ),
        (
            "no entry point",
            wrap("public List<Integer> other(List<Integer> xs) { return xs; }"),
            Reason::MissingEntryPoint,
        ),
    ];
    let cases: Vec<(&str, &str, Reason)> = cases_owned
        .iter()
        .map(|(n, c, r)| (*n, c.as_str(), *r))
        .collect();
    check_corpus(Language::Java, JAVA_REF, &cases);
}

/// A correct `sortCopy` with `extra` members beside it.
fn java_with(extra: &str) -> String {
    format!(
        "import java.util.*;\n\nclass Solution {{\n    public List<Integer> sortCopy(List<Integer> xs) {{ List<Integer> r = new ArrayList<>(xs); Collections.sort(r); return r; }}\n{extra}}}\n"
    )
}

/// Judges every case in parallel and reports all mismatches at once: each case's reason,
/// and a fragment its detail must contain (empty: anything).
fn check_verdicts(language: Language, cases: &[(&str, String, Reason, &str)]) {
    let failures = verdict_failures(language, cases);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// [`check_verdicts`]'s mismatches, one line each.
fn verdict_failures(language: Language, cases: &[(&str, String, Reason, &str)]) -> Vec<String> {
    let task = sort_task();
    let r = runner();
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|(_, code, _, _)| {
                let task = &task;
                s.spawn(move || r.evaluate(task, language, code))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    let mut failures = Vec::new();
    for (result, (name, _, want, fragment)) in results.into_iter().zip(cases) {
        match result {
            Ok(v) if v.reason == *want && v.detail.as_deref().unwrap_or("").contains(fragment) => {}
            Ok(v) => failures.push(format!(
                "{language} {name}: expected {want} mentioning {fragment:?}, got {} ({:?})",
                v.reason, v.detail
            )),
            Err(e) => failures.push(format!("{language} {name}: runner error {e}")),
        }
    }
    failures
}

#[test]
fn java_class_files_the_work_dir_cannot_hold_are_compile_errors() {
    // Each once failed to be written into the run's work dir (a 16 MiB, 4,096-inode tmpfs)
    // after compiling: a sandbox failure, retried and then left out of the score.
    let long_name = java_with(&format!("    static class {} {{}}\n", "N".repeat(261)));
    let many: String = (0..5_000)
        .map(|i| format!("    static class C{i} {{}}\n"))
        .collect();
    // 400 distinct compile-time constants of ~60 KB each: a ~24 MB class file from a 77 KB
    // source.
    let mut huge = format!("    static final String S0 = \"{}\";\n", "x".repeat(60_000));
    for i in 0..400 {
        huge.push_str(&format!("    static final String T{i} = S0 + \"{i}\";\n"));
    }
    check_verdicts(
        Language::Java,
        &[
            (
                "a nested class with a 261-character name",
                long_name,
                Reason::CompileError,
                "class file name of 276 bytes, over the limit of 255",
            ),
            (
                "5,000 nested classes",
                java_with(&many),
                Reason::CompileError,
                "more than 1000 class files",
            ),
            (
                "one huge class file",
                java_with(&huge),
                Reason::CompileError,
                "over the limit of 8388608 bytes in all",
            ),
        ],
    );
}

#[test]
fn filling_the_work_dir_at_run_time_is_the_candidates_own_verdict() {
    // Bytes, a too-long name and every inode of /tmp: the candidate's own error (uncaught:
    // `runtime_error`), and a candidate that catches it and answers still passes.
    let py = |body: &str| format!("import os\n\ndef sort_copy(xs):\n{body}");
    check_verdicts(
        Language::Python,
        &[
            (
                "filling /tmp",
                py(
                    "    with open('/tmp/fill', 'wb') as f:\n        while True:\n            f.write(b'x' * (1 << 20))\n",
                ),
                Reason::RuntimeError,
                "",
            ),
            (
                "a 261-character file name",
                py("    open('/tmp/' + 'n' * 261, 'w').close()\n    return sorted(xs)\n"),
                Reason::RuntimeError,
                "",
            ),
            (
                "every inode of /tmp, then the answer",
                py(
                    "    try:\n        for i in range(100_000):\n            open('/tmp/f%d' % i, 'w').close()\n    except OSError:\n        pass\n    return sorted(xs)\n",
                ),
                Reason::Pass,
                "",
            ),
        ],
    );
    let js =
        |body: &str| format!("const fs = require('fs');\n\nfunction sortCopy(xs) {{\n{body}}}\n");
    check_verdicts(
        Language::Javascript,
        &[
            (
                "filling /tmp",
                js(
                    "  const b = Buffer.alloc(1 << 20, 120);\n  const fd = fs.openSync('/tmp/fill', 'w');\n  for (;;) fs.writeSync(fd, b);\n",
                ),
                Reason::RuntimeError,
                "",
            ),
            (
                "a 261-character file name",
                js(
                    "  fs.writeFileSync('/tmp/' + 'n'.repeat(261), 'x');\n  return [...xs].sort((a, b) => a - b);\n",
                ),
                Reason::RuntimeError,
                "",
            ),
            (
                "every inode of /tmp, then the answer",
                js(
                    "  try {\n    for (let i = 0; i < 100000; i++) fs.writeFileSync('/tmp/f' + i, '');\n  } catch (e) {}\n  return [...xs].sort((a, b) => a - b);\n",
                ),
                Reason::Pass,
                "",
            ),
        ],
    );
    let java = |body: &str| {
        format!(
            "import java.util.*;\n\nclass Solution {{\n    public List<Integer> sortCopy(List<Integer> xs) throws Exception {{\n{body}    }}\n}}\n"
        )
    };
    let sorted = "        List<Integer> r = new ArrayList<>(xs); Collections.sort(r); return r;\n";
    check_verdicts(
        Language::Java,
        &[
            (
                "filling /tmp",
                java(
                    "        try (var o = new java.io.FileOutputStream(\"/tmp/fill\")) { byte[] b = new byte[1 << 20]; while (true) o.write(b); }\n",
                ),
                Reason::RuntimeError,
                "",
            ),
            (
                "a 261-character file name",
                java(&format!(
                    "        new java.io.FileOutputStream(\"/tmp/\" + \"n\".repeat(261)).close();\n{sorted}"
                )),
                Reason::RuntimeError,
                "",
            ),
            (
                "every inode of /tmp, then the answer",
                java(&format!(
                    "        try {{ for (int i = 0; i < 100000; i++) new java.io.FileOutputStream(\"/tmp/f\" + i).close(); }} catch (Exception e) {{}}\n{sorted}"
                )),
                Reason::Pass,
                "",
            ),
        ],
    );
}

// The harness's own report (issue #23). Each answer below never produces a right result:
// it raises, or returns a wrong one, and tries to have the harness report something else.
// Reported faithfully, every case is the candidate's own runtime error or wrong answer.

/// What `sort_copy` would return, as the harness would encode it: the forgers compute it
/// from the inputs they were given.
const PY_FORGED_OK: &str =
    "'{\"ok\":[' + ','.join('{\"int\":\"%d\"}' % v for v in sorted(xs)) + ']}'";

#[test]
fn python_answer_rewriting_the_harness_outcome_closure_is_not_reported_as_passing() {
    let find_run = r#"import sys, gc
def harness_functions():
    found = []
    main = sys.modules.get('__main__')
    run = getattr(main, '__passrate_main__', None)
    if run is not None:
        found.append(run)
    try:
        f = sys._getframe(1)
        while f is not None:
            found.extend(o for o in gc.get_referrers(f.f_code) if type(o).__name__ == 'function')
            f = f.f_back
    except Exception:
        pass
    try:
        found.extend(o for o in gc.get_objects() if type(o).__name__ == 'function' and o.__name__ == 'run' and o.__closure__)
    except Exception:
        pass
    return found
LAST = []
"#;
    let rewrite_outcome = find_run.to_owned()
        + &r#"
def fake_outcome(fn, args):
    xs = args[0]
    return FORGED, 0
for run in harness_functions():
    cells = dict(zip(run.__code__.co_freevars, run.__closure__ or ()))
    if 'outcome' in cells:
        cells['outcome'].cell_contents = fake_outcome
def sort_copy(xs):
    raise ValueError('never sorts')
"#
        .replace("FORGED", PY_FORGED_OK);
    let rewrite_encoder = find_run.to_owned()
        + &r#"
def fake_encode(r):
    xs = LAST[-1]
    return (FORGED)[6:-1]
for run in harness_functions():
    cells = dict(zip(run.__code__.co_freevars, run.__closure__ or ()))
    if 'outcome' in cells:
        out = cells['outcome'].cell_contents
        dict(zip(out.__code__.co_freevars, out.__closure__))['encode'].cell_contents = fake_encode
def sort_copy(xs):
    LAST.append(xs)
    return None
"#
        .replace("FORGED", PY_FORGED_OK);
    let trace_locals = r#"import sys
def tracer(frame, event, arg):
    if event == 'line' and 'res' in frame.f_locals and 'test' in frame.f_locals:
        xs = frame.f_locals['test'].get('args')
        if xs and str(frame.f_locals['res']).startswith('{"error"'):
            xs = [int(v['int']) for v in xs[0]]
            frame.f_locals['res'] = FORGED
    return tracer
f = sys._getframe(1)
while f is not None and 'outcome' not in f.f_locals:
    f = f.f_back
f.f_trace = tracer
sys.settrace(lambda *a: None)
def sort_copy(xs):
    raise ValueError('never sorts')
"#
    .replace("FORGED", PY_FORGED_OK);
    let cases = vec![
        (
            "rewriting run's outcome cell",
            rewrite_outcome,
            Reason::RuntimeError,
            "",
        ),
        (
            "rewriting outcome's encode cell",
            rewrite_encoder,
            Reason::WrongAnswer,
            "",
        ),
        (
            "rewriting run's locals through a tracer",
            trace_locals,
            Reason::RuntimeError,
            "",
        ),
    ];
    check_verdicts(Language::Python, &cases);
}

#[test]
fn javascript_answer_overriding_array_iterator_cannot_forge_results() {
    // `const [res, us] = outcome(...)` once went through Array.prototype[Symbol.iterator].
    let iterator = concat!(
        "const realIter = Array.prototype[Symbol.iterator];\n",
        "let last = [];\n",
        "const forged = () => '{\"ok\":[' + last.slice().sort((a, b) => a - b).map((n) => '{\"int\":\"' + n + '\"}').join(',') + ']}';\n",
        "Array.prototype[Symbol.iterator] = function () {\n",
        "  if (this.length === 2 && typeof this[0] === 'string' && this[0].startsWith('{\"error\"')) {\n",
        "    return realIter.call([forged(), 0]);\n",
        "  }\n",
        "  return realIter.call(this);\n",
        "};\n",
        "function sortCopy(xs) { last = xs.slice(); throw new Error('never sorts'); }\n",
    );
    // Accessors on Array.prototype's indices catch what `push` stores into a fresh array.
    let index_accessors = concat!(
        "// One-shot: the encoder's join reads the forged text, then the accessors go.\n",
        "function sortCopy(xs) {\n",
        "  const text = '[' + xs.slice().sort((a, b) => a - b).map((n) => '{\"int\":\"' + n + '\"}').join(',') + ']';\n",
        "  Object.defineProperty(Array.prototype, 0, { configurable: true, set(v) {},\n",
        "    get() { delete Array.prototype[0]; return text; } });\n",
        "  return 'unsorted';\n",
        "}\n",
    );
    // Getters on Object.prototype answer for the request's absent keys (a call test's `steps`).
    let absent_keys = concat!(
        "Object.defineProperty(Object.prototype, 'steps', { configurable: true,\n",
        "  get() { return Array.isArray(this.args) ? [] : undefined; } });\n",
        "function sortCopy(xs) { throw new Error('never sorts'); }\n",
    );
    let cases = vec![
        (
            "Array.prototype[Symbol.iterator] rewriting outcome's pair",
            iterator.to_owned(),
            Reason::RuntimeError,
            "",
        ),
        (
            "index accessors on Array.prototype rewriting the encoder's pieces",
            index_accessors.to_owned(),
            Reason::WrongAnswer,
            "",
        ),
        (
            "a getter on Object.prototype for the request's absent keys",
            absent_keys.to_owned(),
            Reason::RuntimeError,
            "",
        ),
    ];
    check_verdicts(Language::Javascript, &cases);
}

#[test]
fn java_answer_using_reflection_on_the_harness_cannot_forge_results() {
    // Replaces whatever harness field holds an OutputStream with one that rewrites each
    // test frame's error into the sorted input, as if the call had returned it.
    let code = r#"import java.util.*;
import java.io.*;
import java.lang.reflect.*;
import java.nio.charset.StandardCharsets;

class Solution {
    static final List<List<Integer>> LAST = new ArrayList<>();

    static String forged() {
        List<Integer> r = new ArrayList<>(LAST.get(LAST.size() - 1));
        Collections.sort(r);
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < r.size(); i++) {
            if (i > 0) sb.append(',');
            sb.append("{\"int\":\"").append(r.get(i)).append("\"}");
        }
        return sb.append(']').toString();
    }

    static byte[] rewrite(byte[] frame) {
        String s = new String(frame, StandardCharsets.UTF_8);
        int nl = s.indexOf('\n');
        String body = s.substring(nl + 1, s.length() - 1);
        if (!body.startsWith("{\"test\":") || !body.contains("\"result\":{\"error\":")) return frame;
        int cut = body.indexOf(",\"result\":");
        String fake = body.substring(0, cut) + ",\"result\":{\"ok\":" + forged() + "},\"cpu_us\":0}";
        String[] head = s.substring(0, nl).split(" ");
        byte[] data = fake.getBytes(StandardCharsets.UTF_8);
        String out = head[0] + " " + head[1] + " " + head[2] + " " + data.length + "\n" + fake + "\n";
        return out.getBytes(StandardCharsets.UTF_8);
    }

    static {
        try {
            Class<?> h = Class.forName("PassrateHarness");
            List<Field> fields = new ArrayList<>(Arrays.asList(h.getDeclaredFields()));
            for (Class<?> inner : h.getDeclaredClasses()) fields.addAll(Arrays.asList(inner.getDeclaredFields()));
            for (Field f : fields) {
                if (!Modifier.isStatic(f.getModifiers()) || !OutputStream.class.isAssignableFrom(f.getType())) continue;
                f.setAccessible(true);
                OutputStream orig = (OutputStream) f.get(null);
                f.set(null, new OutputStream() {
                    @Override public void write(int b) throws IOException { orig.write(b); }
                    @Override public void write(byte[] b, int off, int len) throws IOException {
                        orig.write(rewrite(Arrays.copyOfRange(b, off, off + len)));
                    }
                    @Override public void flush() throws IOException { orig.flush(); }
                });
            }
        } catch (Throwable e) {
            // Nothing to rewrite: the answer's own failures are reported.
        }
    }

    public List<Integer> sortCopy(List<Integer> xs) {
        LAST.add(new ArrayList<>(xs));
        throw new IllegalStateException("never sorts");
    }
}
"#;
    check_verdicts(
        Language::Java,
        &[(
            "a harness output stream replaced through reflection",
            code.to_owned(),
            Reason::RuntimeError,
            "",
        )],
    );
}

#[test]
fn reopening_the_result_pipe_through_proc_self_fd_gives_nothing() {
    // Each answer sorts only when it could open the result channel's read end (or the
    // request channel for writing): with the read end it could drain the harness's frames
    // before the host reads them and write its own. All inputs are unsorted.
    let python = "import os\nGOT = []\nfor path, flags in (('/proc/self/fd/4', os.O_RDONLY), ('/proc/self/fd/4', os.O_RDWR), ('/proc/self/fd/3', os.O_WRONLY)):\n    try:\n        GOT.append(os.open(path, flags))\n    except OSError:\n        pass\ndef sort_copy(xs):\n    return sorted(xs) if GOT else xs\n";
    let javascript = "const fs = require('fs');\nconst got = [];\nfor (const [p, f] of [['/proc/self/fd/4', 'r'], ['/proc/self/fd/4', 'r+'], ['/proc/self/fd/3', 'w']]) {\n  try { got.push(fs.openSync(p, f)); } catch (e) {}\n}\nfunction sortCopy(xs) { return got.length > 0 ? [...xs].sort((a, b) => a - b) : xs; }\n";
    let java = java_reopen();
    let mut failures = verdict_failures(
        Language::Python,
        &[("python", python.to_owned(), Reason::WrongAnswer, "")],
    );
    failures.extend(verdict_failures(
        Language::Javascript,
        &[("javascript", javascript.to_owned(), Reason::WrongAnswer, "")],
    ));
    failures.extend(verdict_failures(
        Language::Java,
        &[("java", java, Reason::WrongAnswer, "")],
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn java_reopen() -> String {
    r#"import java.util.*;
import java.io.*;

class Solution {
    static boolean got = false;

    static {
        try (var in = new FileInputStream("/proc/self/fd/4")) { got = true; } catch (IOException e) { }
        try (var raf = new RandomAccessFile("/proc/self/fd/4", "rw")) { got = true; } catch (IOException e) { }
        try (var out = new FileOutputStream("/proc/self/fd/3")) { got = true; } catch (IOException e) { }
    }

    public List<Integer> sortCopy(List<Integer> xs) {
        if (!got) return xs;
        List<Integer> r = new ArrayList<>(xs);
        Collections.sort(r);
        return r;
    }
}
"#
    .to_owned()
}
