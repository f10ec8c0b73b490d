//! The warm Java compiler's life cycle: when a compiler JVM is kept and when it is replaced.

mod common;

use passrate_sandbox::ExecStatus;

fn hello(j: &common::Jail, n: usize) {
    let out = j.java(
        "Hello",
        &format!("public class Hello {{ public static void main(String[] a) {{ System.out.println({n}); }} }}"),
    );
    assert_eq!(out.status, ExecStatus::Ok, "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), n.to_string());
}

/// The live compilers' leaves once `done` holds for them (a retired server's jail removes its
/// leaf as it exits, which may trail the execution's return on a loaded machine).
fn leaves_when(j: &common::Jail, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let leaves = j.compiler_leaves();
        if done(&leaves) || std::time::Instant::now() > deadline {
            return leaves;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn one_warm_compiler_serves_one_compilation_after_another() {
    let j = common::jail();
    let mut seen = Vec::new();
    for n in 0..4 {
        hello(&j, n);
        seen.push(j.compiler_leaves());
    }
    assert_eq!(seen[0].len(), 1, "{seen:?}");
    assert!(seen.iter().all(|s| *s == seen[0]), "{seen:?}");
}

#[test]
fn a_compiler_past_its_memory_bound_is_replaced() {
    // Any real JVM is past a 1-byte bound: each compilation then gets a fresh server, and the
    // retired one (its leaf with it) is gone once the execution returns.
    let j = common::jail_with_config(|c| c.javac_recycle_memory_bytes = 1);
    for n in 0..3 {
        hello(&j, n);
        let leaves = leaves_when(&j, |l| l.is_empty());
        assert!(leaves.is_empty(), "after compilation {n}: {leaves:?}");
    }
}

#[test]
fn a_compiler_past_its_count_is_replaced() {
    let j = common::jail_with_config(|c| c.javac_recycle_after = 2);
    hello(&j, 0);
    let first = j.compiler_leaves();
    assert_eq!(first.len(), 1, "{first:?}");
    hello(&j, 1);
    let leaves = leaves_when(&j, |l| l.is_empty());
    assert!(leaves.is_empty(), "{leaves:?}");
    hello(&j, 2);
    let third = j.compiler_leaves();
    assert_eq!(third.len(), 1, "{third:?}");
    assert_ne!(first, third);
}

#[test]
fn byte_identical_sources_reuse_a_compilation_and_its_errors() {
    let j = common::jail();
    let broken = "public class Broken { int f() { return; } }";
    let first = j.java("Broken", broken);
    let second = j.java("Broken", broken);
    for out in [&first, &second] {
        assert_eq!(out.status, ExecStatus::RuntimeError, "{out:?}");
        assert_eq!(out.step, 0, "the javac step must be the one that failed");
    }
    assert_eq!(first.stderr, second.stderr);
    // The stored compilation's own measurements: a second javac run would not repeat them
    // to the microsecond.
    assert_eq!(
        (first.cpu_us, first.wall_us),
        (second.cpu_us, second.wall_us)
    );
    // One byte more is another compilation, which still runs.
    let other = j.java("Broken", &format!("{broken} "));
    assert_eq!(other.status, ExecStatus::RuntimeError);
    assert_ne!(other.wall_us, first.wall_us);
    hello(&j, 7);
    hello(&j, 7);
}

/// Sources for `reused_javac_state_compiles_exactly_as_a_fresh_javac`: good ones, errors,
/// warnings, generics, lambdas, inner and local classes, string concatenation, and pairs
/// where a later candidate names what an earlier one declared (a class, a package, a
/// `java.lang` name, a nested class) and must not see it.
const CORPUS: &[(&str, &[(&str, &str)])] = &[
    (
        "good",
        &[(
            "Solution.java",
            "import java.util.*;\npublic class Solution {\n    public static int add(int a, int b) { return a + b; }\n    public static String greet(String n, int k) { return \"Hello, \" + n + '!' + k + 1.5 + null; }\n}\n",
        )],
    ),
    (
        "generics_lambdas",
        &[(
            "Solution.java",
            "import java.util.*;\nimport java.util.function.*;\nimport java.util.stream.*;\npublic class Solution {\n    static <T extends Comparable<T>> T max(List<T> xs) { T m = xs.get(0); for (T x : xs) if (x.compareTo(m) > 0) m = x; return m; }\n    public static List<Integer> evens(List<Integer> xs) { return xs.stream().filter(x -> x % 2 == 0).map(x -> x * 2).collect(Collectors.toList()); }\n    public static Map<String, List<Integer>> group(List<String> s) { Map<String, List<Integer>> m = new TreeMap<>(); for (String x : s) m.computeIfAbsent(x.substring(0, 1), k -> new ArrayList<>()).add(x.length()); return m; }\n    Function<Integer, Supplier<String>> f = i -> () -> \"v\" + i;\n    Comparator<String> c = Comparator.comparing(String::length).thenComparing(Function.identity());\n}\n",
        )],
    ),
    (
        "inner_classes",
        &[(
            "Solution.java",
            "public class Solution {\n    class Inner { int v = 1; }\n    static class Nested { enum Color { RED, GREEN } }\n    interface Shape { double area(); }\n    record Point(int x, int y) {}\n    Object anon() { return new Object() { public String toString() { return \"anon\" + new Inner().v; } }; }\n    Shape sq(double s) { return () -> s * s; }\n    int local() { class Local { int k() { return 3; } } return new Local().k(); }\n    int sw(Nested.Color c) { switch (c) { case RED: return 1; default: return 2; } }\n}\nclass Helper { static int h() { return 42; } }\n",
        )],
    ),
    (
        "uses_previous_nested",
        &[(
            "Solution.java",
            "public class Solution {\n    static int f() { return new Inner().v + Nested.Color.RED.ordinal(); }\n    static Object g() { return new Point(1, 2); }\n}\n",
        )],
    ),
    (
        "syntax_error",
        &[(
            "Solution.java",
            "public class Solution {\n    public static int add(int a, int b) { return a + b\n}\n",
        )],
    ),
    (
        "type_errors",
        &[(
            "Solution.java",
            "import java.util.*;\npublic class Solution {\n    public static int add(int a, int b) { String s = a + b; return s; }\n    static void g() { List<int> x = null; undefined(); Foo f = new Foo(); }\n}\n",
        )],
    ),
    (
        "warnings",
        &[(
            "Solution.java",
            "import java.util.*;\npublic class Solution {\n    @Deprecated static void old() {}\n    public static List raw() { List l = new ArrayList(); l.add(1); old(); return l; }\n    public static int f() { Integer i = new Integer(3); return i; }\n}\n",
        )],
    ),
    (
        "defines_foo",
        &[(
            "Solution.java",
            "public class Solution { public static int f() { return Foo.X; } }\nclass Foo { static final int X = 7; }\n",
        )],
    ),
    (
        "uses_foo",
        &[(
            "Solution.java",
            "public class Solution { public static int f() { return Foo.X + 1; } }\n",
        )],
    ),
    (
        "shadows_java_lang",
        &[(
            "Solution.java",
            "public class Solution { public static String f() { return \"a\"; } }\nclass String { }\nclass Integer { }\nclass Object { }\n",
        )],
    ),
    (
        "uses_java_lang",
        &[(
            "Solution.java",
            "public class Solution { public static String f() { Integer i = 3; Object o = i; return \"a\" + o + String.valueOf(1); } }\n",
        )],
    ),
    (
        "declares_a_package",
        &[(
            "Solution.java",
            "package foo.bar;\npublic class Solution { public static int f() { return Q.x(); } }\nclass Q { static int x() { return 2; } }\n",
        )],
    ),
    (
        "imports_that_package",
        &[(
            "Solution.java",
            "import foo.bar.*;\nimport foo.*;\npublic class Solution { public static int f() { return 3; } }\n",
        )],
    ),
    (
        "names_a_class_of_that_package",
        &[(
            "Solution.java",
            "import foo.bar.Q;\npublic class Solution { public static int f() { return foo.bar.Solution.f() + new Q().hashCode(); } }\n",
        )],
    ),
    (
        "in_java_lang",
        &[(
            "Solution.java",
            "package java.lang;\npublic class Solution { public static int f() { return 1; } }\n",
        )],
    ),
    (
        "cyclic",
        &[(
            "Solution.java",
            "public class Solution extends Solution { }\nclass A extends B {} class B extends A {}\n",
        )],
    ),
    (
        "duplicate_classes",
        &[(
            "Solution.java",
            "public class Solution { }\nclass Solution { }\nclass X {} class X {}\n",
        )],
    ),
    (
        "two_files",
        &[
            (
                "A.java",
                "public class A { static int f() { return B.g(); } }\n",
            ),
            (
                "B.java",
                "public class B { static int g() { return 5; } }\n",
            ),
        ],
    ),
    (
        "uses_a_previous_file",
        &[(
            "Solution.java",
            "public class Solution { static int f() { return B.g() + A.f(); } }\n",
        )],
    ),
    (
        "newer_syntax",
        &[(
            "Solution.java",
            "public class Solution { sealed interface S permits A, B {} record A() implements S {} final class B implements S {}\n  static String t(Object o) { if (o instanceof String s && !s.isEmpty()) return s; var x = switch (o.hashCode() % 2) { case 0 -> \"z\"; default -> { yield \"o\"; } }; return x + \"\"\"\n  text block\n  \"\"\"; } }\n",
        )],
    ),
    (
        "wrong_file_name",
        &[("Solution.java", "public class Other { }\n")],
    ),
];

/// What a compilation gave a candidate, as seen through a real execution: the step that
/// ended it, its status, the diagnostics, and every class file's bytes (dumped by a second
/// step in the run's jail).
fn compiled(j: &common::Jail, sources: &[(&str, &str)]) -> String {
    use passrate_sandbox::{ExecRequest, InputFile, Program};
    let mut req = ExecRequest::single(Program::Javac {
        sources: sources.iter().map(|(f, _)| f.to_string()).collect(),
        archive: false,
    });
    req.steps.push(Program::Exec {
        path: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            "for f in $(find . -name '*.class' | sort); do echo \"$f\"; od -An -tx1 -v \"$f\"; done"
                .into(),
        ],
    });
    for (file, code) in sources {
        req.files.push(InputFile {
            path: file.to_string(),
            contents: code.as_bytes().to_vec(),
            executable: false,
        });
    }
    let out = j.run(&req);
    format!(
        "step {} status {:?} exit {:?}\n--- stderr\n{}\n--- stdout\n{}",
        out.step,
        out.status,
        out.exit_code,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    )
}

#[test]
fn reused_javac_state_compiles_exactly_as_a_fresh_javac() {
    // No cache: every request compiles. One sandbox gives each a fresh javac task, the other
    // reuses javac state where the server finds it sound.
    let fresh = common::jail_with_config(|c| {
        c.javac_cache_bytes = 0;
        c.javac_reuse_context = false;
    });
    let reused = common::jail_with_config(|c| c.javac_cache_bytes = 0);
    let expected: Vec<String> = CORPUS.iter().map(|(_, s)| compiled(&fresh, s)).collect();
    assert_eq!(fresh.sandbox.javac_reused_compilations(), 0);
    // Each case after different ones: in order, reversed, then every second one.
    let n = CORPUS.len();
    let order = (0..n)
        .chain((0..n).rev())
        .chain((0..n).step_by(2))
        .chain((1..n).step_by(2));
    for i in order {
        let (name, sources) = CORPUS[i];
        let got = compiled(&reused, sources);
        assert_eq!(
            got, expected[i],
            "{name}: reused javac state differs from fresh javac"
        );
    }
    // Sanity of the corpus: it has successes and errors, and the class bytes are compared.
    assert!(
        expected
            .iter()
            .any(|e| e.contains("status Ok") && e.contains(".class"))
    );
    assert!(expected.iter().any(|e| e.contains("error:")));
    // And reuse did happen (else the comparison above proves nothing). Errors and packages
    // drop a context, and errors found in a reused one are compiled fresh again, so on this
    // error-rich corpus a minority of the compilations run in a reused context.
    assert!(
        reused.sandbox.javac_reused_compilations() > 5,
        "only {} compilations reused javac state",
        reused.sandbox.javac_reused_compilations()
    );
}
