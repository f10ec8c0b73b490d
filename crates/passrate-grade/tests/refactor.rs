//! The refactoring grader through the real sandbox, per language: the reference passes; each
//! structural rule has an answer that fails it by name; changed behaviour fails with the call
//! tests' reason; a "refactoring" that hard-codes the visible tests' outputs fails the hidden
//! tests; a changed signature fails by name.

mod common;

use common::{call, rules, runner, task};
use passrate_schema::{
    Category, CategoryData, Language, Reason, StructuralTargets, Task, Value, Visibility,
};

const PY_GIVEN: &str = "def letter(score):\n    if score >= 90:\n        return 'A'\n    else:\n        if score >= 80:\n            return 'B'\n        else:\n            if score >= 70:\n                return 'C'\n            else:\n                return 'F'\n";
const PY_REF: &str = "def letter(score):\n    if score >= 90:\n        return 'A'\n    elif score >= 80:\n        return 'B'\n    elif score >= 70:\n        return 'C'\n    return 'F'\n";
const JS_GIVEN: &str = "function letter(score) {\n  if (score >= 90) {\n    return \"A\";\n  } else {\n    if (score >= 80) {\n      return \"B\";\n    } else {\n      if (score >= 70) {\n        return \"C\";\n      } else {\n        return \"F\";\n      }\n    }\n  }\n}\n";
const JS_REF: &str = "function letter(score) {\n  if (score >= 90) return \"A\";\n  if (score >= 80) return \"B\";\n  if (score >= 70) return \"C\";\n  return \"F\";\n}\n";
const JAVA_GIVEN: &str = "class Solution {\n    public String letter(int score) {\n        if (score >= 90) {\n            return \"A\";\n        } else {\n            if (score >= 80) {\n                return \"B\";\n            } else {\n                if (score >= 70) {\n                    return \"C\";\n                } else {\n                    return \"F\";\n                }\n            }\n        }\n    }\n}\n";
const JAVA_REF: &str = "class Solution {\n    public String letter(int score) {\n        if (score >= 90) return \"A\";\n        if (score >= 80) return \"B\";\n        if (score >= 70) return \"C\";\n        return \"F\";\n    }\n}\n";

fn letter_task(language: Language, targets: StructuralTargets) -> Task {
    let (given, reference, ty) = match language {
        Language::Python => (PY_GIVEN, PY_REF, None),
        Language::Javascript => (JS_GIVEN, JS_REF, None),
        Language::Java => (JAVA_GIVEN, JAVA_REF, Some("int")),
    };
    let mut tests: Vec<_> = [(95, "A"), (85, "B"), (75, "C"), (10, "F")]
        .into_iter()
        .map(|(s, l)| call(vec![Value::int(s)], Value::str(l)))
        .collect();
    // Hidden boundaries: what a copy of the visible outputs does not know.
    for (s, l) in [
        (90, "A"),
        (89, "B"),
        (80, "B"),
        (70, "C"),
        (69, "F"),
        (100, "A"),
    ] {
        let mut t = call(vec![Value::int(s)], Value::str(l));
        t.visibility = Visibility::Hidden;
        tests.push(t);
    }
    task(
        Category::Refactoring,
        language,
        "letter",
        &[("score", ty)],
        [given, reference],
        tests,
        CategoryData {
            refactor: Some(targets),
            ..CategoryData::default()
        },
    )
}

fn targets(lines: u32) -> StructuralTargets {
    StructuralTargets {
        max_nesting_depth: Some(1),
        max_cyclomatic_complexity: Some(4),
        max_function_lines: Some(lines),
        no_duplicated_blocks: true,
        required_helpers: Vec::new(),
    }
}

/// `(name, code, reason, failed rules)` graded in parallel; all mismatches reported at once.
fn check(task: &Task, language: Language, cases: Vec<(&str, String, Reason, Vec<&str>)>) {
    let r = runner();
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|(_, code, _, _)| s.spawn(move || passrate_grade::grade(r, task, language, code)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    let mut failures = Vec::new();
    for ((name, code, reason, want), result) in cases.iter().zip(results) {
        let v = match result {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{language} {name}: grader error {e}"));
                continue;
            }
        };
        let got = rules(&v);
        let report = v.grader.as_ref().expect("a grader report");
        let detail_ok = *reason != Reason::GraderRule
            || v.detail
                .as_deref()
                .is_some_and(|d| d.starts_with(&format!("{}: ", want[0])));
        if got != *want || v.reason != *reason || report.grader != "refactoring" || !detail_ok {
            failures.push(format!(
                "{language} {name}: want {reason} {want:?}, got {} {got:?} ({:?}; {:?})\n{code}",
                v.reason, v.detail, report
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn python_refactoring_rules() {
    let l = Language::Python;
    let task = letter_task(l, targets(8));
    let hard_coded = "def letter(score):\n    return {95: 'A', 85: 'B', 75: 'C', 10: 'F'}[score]\n";
    let duplicated = "def _norm(score):\n    s = int(score)\n    t = s - 0\n    return t\n\n\ndef _again(score):\n    s = int(score)\n    t = s - 0\n    return t\n\n\ndef letter(score):\n    score = _again(_norm(score))\n    if score >= 90: return 'A'\n    elif score >= 80: return 'B'\n    elif score >= 70: return 'C'\n    return 'F'\n";
    check(
        &task,
        l,
        vec![
            ("reference", PY_REF.to_owned(), Reason::Pass, vec![]),
            (
                "the given code itself",
                PY_GIVEN.to_owned(),
                Reason::GraderRule,
                vec!["refactor.max_nesting_depth", "refactor.max_function_lines"],
            ),
            (
                "more boolean operators",
                PY_REF.replace("score >= 90", "score >= 90 and score <= 100 or score > 100"),
                Reason::GraderRule,
                vec!["refactor.max_cyclomatic_complexity"],
            ),
            (
                "longer",
                PY_REF.replace("    return 'F'\n", "    result = 'F'\n    return result\n"),
                Reason::GraderRule,
                vec!["refactor.max_function_lines"],
            ),
            (
                "duplicated helper bodies",
                duplicated.to_owned(),
                Reason::GraderRule,
                vec!["refactor.duplicated_block"],
            ),
            (
                "parameter renamed",
                PY_REF.replace("score", "points"),
                Reason::GraderRule,
                vec!["refactor.signature_changed"],
            ),
            (
                "behaviour changed",
                PY_REF.replace(">= 90", "> 90"),
                Reason::WrongAnswer,
                vec![],
            ),
            (
                "visible outputs hard-coded",
                hard_coded.to_owned(),
                Reason::RuntimeError,
                vec![],
            ),
        ],
    );
    let mut with_helper = letter_task(l, targets(8));
    if let Some(t) = with_helper.category_data.refactor.as_mut() {
        t.required_helpers = vec!["cutoff_letter".to_owned()];
    }
    check(
        &with_helper,
        l,
        vec![
            ("helper missing", PY_REF.to_owned(), Reason::GraderRule, vec!["refactor.missing_helper"]),
            (
                "helper defined",
                "def cutoff_letter(score, cutoff, name):\n    return name if score >= cutoff else None\n\n\ndef letter(score):\n    for cutoff, name in ((90, 'A'), (80, 'B'), (70, 'C')):\n        found = cutoff_letter(score, cutoff, name)\n        if found:\n            return found\n    return 'F'\n".to_owned(),
                Reason::GraderRule,
                // A loop holding an `if` nests two deep: the target still binds.
                vec!["refactor.max_nesting_depth"],
            ),
        ],
    );
}

#[test]
fn javascript_refactoring_rules() {
    let l = Language::Javascript;
    let task = letter_task(l, targets(6));
    check(
        &task,
        l,
        vec![
            ("reference", JS_REF.to_owned(), Reason::Pass, vec![]),
            (
                "arrow function reference",
                "const letter = (score) => {\n  if (score >= 90) return \"A\";\n  if (score >= 80) return \"B\";\n  return score >= 70 ? \"C\" : \"F\";\n};\n".to_owned(),
                Reason::Pass,
                vec![],
            ),
            (
                "the given code itself",
                JS_GIVEN.to_owned(),
                Reason::GraderRule,
                vec!["refactor.max_nesting_depth", "refactor.max_function_lines"],
            ),
            (
                "more boolean operators",
                JS_REF.replace("score >= 90", "score >= 90 && score <= 100 || score > 100"),
                Reason::GraderRule,
                vec!["refactor.max_cyclomatic_complexity"],
            ),
            (
                "parameter renamed",
                JS_REF.replace("score", "points"),
                Reason::GraderRule,
                vec!["refactor.signature_changed"],
            ),
            (
                "visible outputs hard-coded",
                "function letter(score) {\n  return {95: \"A\", 85: \"B\", 75: \"C\", 10: \"F\"}[score];\n}\n".to_owned(),
                Reason::WrongAnswer,
                vec![],
            ),
        ],
    );
}

#[test]
fn java_refactoring_rules() {
    let l = Language::Java;
    let task = letter_task(l, targets(6));
    check(
        &task,
        l,
        vec![
            ("reference", JAVA_REF.to_owned(), Reason::Pass, vec![]),
            (
                "the given code itself",
                JAVA_GIVEN.to_owned(),
                Reason::GraderRule,
                vec!["refactor.max_nesting_depth", "refactor.max_function_lines"],
            ),
            (
                "parameter type changed",
                JAVA_REF.replace("int score", "long score"),
                Reason::GraderRule,
                vec!["refactor.signature_changed"],
            ),
            (
                "duplicated branch",
                JAVA_REF.replace(
                    "        if (score >= 70) return \"C\";\n",
                    "        if (score >= 70 && score < 80 && score >= 0 && score <= 1000) { return \"C\"; }\n        if (score >= 70 && score < 80 && score >= 0 && score <= 1000) { return \"C\"; }\n",
                ),
                Reason::GraderRule,
                vec![
                    "refactor.max_cyclomatic_complexity",
                    "refactor.max_function_lines",
                    "refactor.duplicated_block",
                ],
            ),
            (
                "visible outputs hard-coded",
                "import java.util.*;\n\nclass Solution {\n    public String letter(int score) {\n        return Map.of(95, \"A\", 85, \"B\", 75, \"C\", 10, \"F\").get(score);\n    }\n}\n".to_owned(),
                Reason::WrongAnswer,
                vec![],
            ),
        ],
    );
}
