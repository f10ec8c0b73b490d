//! Reference answers of `unittest/…` tasks: HumanEvalPack's check programs converted into
//! test suites of the form the unit-test grader runs (one test per task, holding every
//! assertion of the dataset's check), per language:
//!
//! * Python: `check(candidate)` plus `def test_check(): check(<entry>)`;
//! * JavaScript: the `const testX = () => { console.assert(…) }` function, with
//!   `console.assert` (which only prints) replaced by `node:assert`'s `assert.ok`, registered
//!   with `node:test`;
//! * Java: class `Main`'s `main` becomes `SolutionTest.testMain()`, with the declaration's
//!   imports (the dataset compiles both in one file).

use passrate_schema::Language;

use super::humaneval::PackEntry;

/// The reference suite for `pack`, or `None` when its check program has an unknown shape.
pub fn reference_suite(language: Language, pack: &PackEntry) -> Option<String> {
    let test = pack.test.trim_end();
    let (body, last) = test.rsplit_once('\n').unwrap_or(("", test));
    let last = last.trim().trim_end_matches(';');
    match language {
        Language::Python => {
            let arg = last.strip_prefix("check(")?.strip_suffix(')')?;
            is_identifier(arg).then(|| {
                format!(
                    "from solution import {arg}\n\n{}\n\n\ndef test_check():\n    check({arg})\n",
                    body.trim()
                )
            })
        }
        Language::Javascript => {
            let name = last.strip_suffix("()")?;
            if !is_identifier(name) || !body.contains(&format!("const {name} =")) {
                return None;
            }
            Some(format!(
                "const test = require('node:test');\nconst assert = require('node:assert');\n\n{}\n\ntest('{name}', {name});\n",
                body.trim().replace("console.assert(", "assert.ok(")
            ))
        }
        Language::Java => {
            let main_at = test.find("public class Main")?;
            let rest = &test[main_at..];
            let sig_at = rest.find("public static void main(String[] args)")?;
            let imports: String = pack
                .declaration
                .lines()
                .filter(|l| l.trim_start().starts_with("import "))
                .map(|l| format!("{}\n", l.trim()))
                .collect();
            let converted = format!(
                "{}public class SolutionTest{}static void testMain(){}",
                &test[..main_at],
                &rest["public class Main".len()..sig_at],
                &rest[sig_at + "public static void main(String[] args)".len()..]
            );
            Some(format!("{imports}\n{}\n", converted.trim()))
        }
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(test: &str, declaration: &str) -> PackEntry {
        PackEntry {
            task_id: "X/0".into(),
            prompt: String::new(),
            declaration: declaration.into(),
            canonical_solution: String::new(),
            buggy_solution: String::new(),
            bug_type: String::new(),
            failure_symptoms: String::new(),
            test: test.into(),
            entry_point: "f".into(),
            signature: String::new(),
            docstring: String::new(),
        }
    }

    #[test]
    fn python_checks_become_a_test_function() {
        let p = pack("\n\ndef check(f):\n    assert f(1) == 2\n\ncheck(f)\n", "");
        assert_eq!(
            reference_suite(Language::Python, &p).unwrap(),
            "from solution import f\n\ndef check(f):\n    assert f(1) == 2\n\n\ndef test_check():\n    check(f)\n"
        );
    }

    #[test]
    fn javascript_console_asserts_become_node_assertions() {
        let p = pack(
            "const testF = () => {\n  console.assert(f(1) === 2)\n}\n\ntestF()\n",
            "",
        );
        let s = reference_suite(Language::Javascript, &p).unwrap();
        assert!(s.contains("assert.ok(f(1) === 2)"), "{s}");
        assert!(s.ends_with("test('testF', testF);\n"), "{s}");
        assert!(!s.contains("console.assert"));
    }

    #[test]
    fn java_main_becomes_a_static_test_method_with_the_imports() {
        let p = pack(
            "public class Main {\n    public static void main(String[] args) {\n        if (new Solution().f(1) != 2) throw new AssertionError();\n    }\n}\n",
            "import java.util.*;\nimport java.lang.*;\n\nclass Solution {\n",
        );
        let s = reference_suite(Language::Java, &p).unwrap();
        assert!(
            s.starts_with("import java.util.*;\nimport java.lang.*;\n"),
            "{s}"
        );
        assert!(s.contains("public class SolutionTest {"), "{s}");
        assert!(s.contains("static void testMain() {"), "{s}");
        assert!(!s.contains("main("));
    }

    #[test]
    fn unknown_shapes_are_refused() {
        assert!(reference_suite(Language::Python, &pack("def check(f): pass\n", "")).is_none());
        assert!(reference_suite(Language::Javascript, &pack("f()\n", "")).is_none());
        assert!(reference_suite(Language::Java, &pack("class T {}\n", "")).is_none());
    }
}
