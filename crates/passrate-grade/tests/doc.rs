//! The documentation grader through the real sandbox, per language: a correct answer passes,
//! each rule has an answer that fails it by name, and answers that try to pass without
//! documenting (examples that call something else, claimed results that are wrong, code
//! changed to make a wrong example true, the old `>>>` form in JSDoc) fail.

mod common;

use common::{call, ints, rules, runner, task};
use passrate_extract::structure::insert_doc;
use passrate_schema::{Category, CategoryData, Language, Reason, Task};

const PY_GIVEN: &str = "from typing import List\n\n\ndef clip(xs: List[int], limit: int) -> List[int]:\n    out = []\n    for x in xs:\n        out.append(x if x < limit else limit)\n    return out\n";
const JS_GIVEN: &str =
    "const clip = (xs, limit) => {\n  return xs.map((x) => (x < limit ? x : limit));\n};\n";
const JAVA_GIVEN: &str = "import java.util.*;\n\nclass Solution {\n    public List<Integer> clip(List<Integer> xs, int limit) {\n        List<Integer> out = new ArrayList<>();\n        for (int x : xs) {\n            out.add(x < limit ? x : limit);\n        }\n        return out;\n    }\n}\n";

const PY_DOC: &str = "Caps every number at a limit.\n\nArgs:\n    xs: the numbers.\n    limit: the largest value kept.\n\nReturns:\n    The numbers, each at most ``limit``.\n\n>>> clip([1, 5, 3], 3)\n[1, 3, 3]\n>>> clip([], 0)\n[]";
const JS_DOC: &str = "Caps every number at a limit.\n\n@param {number[]} xs the numbers\n@param {number} limit the largest value kept\n@returns {number[]} the numbers, each at most `limit`\n@example\nclip([1, 5, 3], 3) => [1, 3, 3]\nclip([], 0) => []";
const JAVA_DOC: &str = "Caps every number at a limit.\n\n@param xs the numbers\n@param limit the largest value kept\n@return the numbers, each at most {@code limit}\n@example\nclip(Arrays.asList(1, 5, 3), 3) => Arrays.asList(1, 3, 3)\nnew Solution().clip(List.of(), 0) => List.of()";

fn given(language: Language) -> &'static str {
    match language {
        Language::Python => PY_GIVEN,
        Language::Javascript => JS_GIVEN,
        Language::Java => JAVA_GIVEN,
    }
}

fn good_doc(language: Language) -> &'static str {
    match language {
        Language::Python => PY_DOC,
        Language::Javascript => JS_DOC,
        Language::Java => JAVA_DOC,
    }
}

/// `code` with `doc` as the doc comment of `clip`.
fn documented(language: Language, code: &str, doc: &str) -> String {
    insert_doc(language, code, "clip", doc).expect("doc inserted")
}

fn clip_task(language: Language) -> Task {
    let params: &[(&str, Option<&str>)] = match language {
        Language::Java => &[("xs", Some("List<Integer>")), ("limit", Some("int"))],
        _ => &[("xs", None), ("limit", None)],
    };
    let reference = documented(language, given(language), good_doc(language));
    task(
        Category::DocumentationGeneration,
        language,
        "clip",
        params,
        [given(language), &reference],
        vec![call(
            vec![ints(&[4, 9]), passrate_schema::Value::int(5)],
            ints(&[4, 5]),
        )],
        CategoryData::default(),
    )
}

/// Grades every case (in parallel) and reports all mismatches at once: `want` is the list
/// of failed rules, in order (empty: the answer passes).
fn check(language: Language, cases: Vec<(&str, String, Vec<&str>)>) {
    let task = clip_task(language);
    let r = runner();
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|(_, code, _)| {
                let task = &task;
                s.spawn(move || passrate_grade::grade(r, task, language, code))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    let mut failures = Vec::new();
    for ((name, code, want), result) in cases.iter().zip(results) {
        let v = match result {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{language} {name}: grader error {e}"));
                continue;
            }
        };
        let got = rules(&v);
        let report = v.grader.as_ref().expect("a grader report");
        let consistent = report.grader == "documentation"
            && if want.is_empty() {
                v.reason == Reason::Pass && v.detail.is_none()
            } else {
                v.reason == Reason::GraderRule
                    && v.detail
                        .as_deref()
                        .is_some_and(|d| d.starts_with(&format!("{}: ", want[0])))
            };
        if got != *want || !consistent {
            failures.push(format!(
                "{language} {name}: want {want:?}, got {got:?} ({} {:?}; {:?})\n{code}",
                v.reason, v.detail, report.failed_rules
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn python_documentation_rules() {
    let l = Language::Python;
    let doc = |d: &str| documented(l, PY_GIVEN, d);
    let without = |line: &str| PY_DOC.replace(line, "");
    check(
        l,
        vec![
            ("google style", doc(PY_DOC), vec![]),
            (
                "sphinx style",
                doc(
                    "Caps.\n\n:param xs: the numbers\n:param int limit: the cap\n:returns: capped\n\n>>> clip([7], 2)\n[2]",
                ),
                vec![],
            ),
            (
                "numpy style",
                doc(
                    "Caps.\n\nParameters\n----------\nxs : list of int\nlimit : int\n\nReturns\n-------\nlist of int\n\n>>> clip([7, 1], 2)\n[2, 1]",
                ),
                vec![],
            ),
            ("missing", PY_GIVEN.to_owned(), vec!["doc.missing"]),
            (
                "code changed",
                documented(l, &PY_GIVEN.replace("x < limit", "x <= limit"), PY_DOC),
                vec!["doc.code_changed"],
            ),
            (
                "param undocumented",
                doc(&without("    limit: the largest value kept.\n")),
                vec!["doc.param_undocumented"],
            ),
            (
                "return undocumented",
                doc(&without(
                    "Returns:\n    The numbers, each at most ``limit``.\n",
                )),
                vec!["doc.return_undocumented"],
            ),
            (
                "no example",
                doc(PY_DOC.split(">>>").next().unwrap().trim_end()),
                vec!["doc.no_example"],
            ),
            (
                "example not a literal call",
                doc(&PY_DOC.replace("clip([], 0)\n[]", "clip(list(range(3)), 1)\n[0, 1, 1]")),
                vec!["doc.example_unparsable"],
            ),
            (
                "example calls something else",
                doc(&PY_DOC.replace("clip([], 0)\n[]", "sorted([3, 1])\n[1, 3]")),
                vec!["doc.example_not_entry_point"],
            ),
            (
                "example escapes into os",
                doc(&PY_DOC.replace("clip([], 0)\n[]", "__import__('os').system('id')\n0")),
                vec!["doc.example_not_entry_point"],
            ),
            (
                "example splats its arguments",
                doc(&PY_DOC.replace("clip([], 0)\n[]", "clip(*[[1], 0])\n[0]")),
                vec!["doc.example_unparsable"],
            ),
            (
                "claimed result wrong",
                doc(&PY_DOC.replace("[1, 3, 3]", "[1, 5, 3]")),
                vec!["doc.example_wrong"],
            ),
            (
                "claimed None (no output line) but it returns a list",
                doc(&PY_DOC.replace("\n[]", "\n")),
                vec!["doc.example_wrong"],
            ),
            (
                "code changed to make a wrong example true",
                documented(
                    l,
                    "from typing import List\n\n\ndef clip(xs: List[int], limit: int) -> List[int]:\n    return xs\n",
                    &PY_DOC.replace("[1, 3, 3]", "[1, 5, 3]"),
                ),
                vec!["doc.code_changed", "doc.example_wrong"],
            ),
            (
                "every failure listed",
                doc("Caps.\n\n>>> clip([1], 0)\n[1]"),
                vec![
                    "doc.param_undocumented",
                    "doc.param_undocumented",
                    "doc.return_undocumented",
                    "doc.example_wrong",
                ],
            ),
        ],
    );
}

#[test]
fn javascript_documentation_rules() {
    let l = Language::Javascript;
    let doc = |d: &str| documented(l, JS_GIVEN, d);
    check(
        l,
        vec![
            ("jsdoc", doc(JS_DOC), vec![]),
            (
                "untyped params, @return, // => form",
                doc(
                    "Caps.\n@param xs numbers\n@param [limit] cap\n@return capped\n@example\nclip([7, 1], 2); // => [2, 1]",
                ),
                vec![],
            ),
            ("missing", JS_GIVEN.to_owned(), vec!["doc.missing"]),
            (
                "code changed",
                documented(l, &JS_GIVEN.replace("x < limit", "x <= limit"), JS_DOC),
                vec!["doc.code_changed"],
            ),
            (
                "param undocumented",
                doc(&JS_DOC.replace("@param {number} limit the largest value kept\n", "")),
                vec!["doc.param_undocumented"],
            ),
            (
                "return undocumented",
                doc(&JS_DOC.replace(
                    "@returns {number[]} the numbers, each at most `limit`\n",
                    "",
                )),
                vec!["doc.return_undocumented"],
            ),
            (
                "doctest form is not the stated form",
                doc(
                    "Caps.\n@param xs numbers\n@param limit cap\n@returns capped\n>>> clip([7], 2)\n[2]",
                ),
                vec!["doc.no_example"],
            ),
            (
                "example line without a result",
                doc(&JS_DOC.replace("clip([], 0) => []", "clip([], 0)")),
                vec!["doc.example_unparsable"],
            ),
            (
                "example with a variable",
                doc(&JS_DOC.replace("clip([], 0) => []", "clip(xs, 0) => []")),
                vec!["doc.example_unparsable"],
            ),
            (
                "example calls something else",
                doc(&JS_DOC.replace("clip([], 0) => []", "Math.max(1, 2) => 2")),
                vec!["doc.example_not_entry_point"],
            ),
            (
                "claimed result wrong",
                doc(&JS_DOC.replace("=> [1, 3, 3]", "=> [1, 5, 3]")),
                vec!["doc.example_wrong"],
            ),
        ],
    );
}

#[test]
fn java_documentation_rules() {
    let l = Language::Java;
    let doc = |d: &str| documented(l, JAVA_GIVEN, d);
    check(
        l,
        vec![
            ("javadoc", doc(JAVA_DOC), vec![]),
            ("missing", JAVA_GIVEN.to_owned(), vec!["doc.missing"]),
            (
                "code changed",
                documented(l, &JAVA_GIVEN.replace("x < limit", "x <= limit"), JAVA_DOC),
                vec!["doc.code_changed"],
            ),
            (
                "param undocumented",
                doc(&JAVA_DOC.replace("@param limit the largest value kept\n", "")),
                vec!["doc.param_undocumented"],
            ),
            (
                "return undocumented",
                doc(&JAVA_DOC.replace("@return the numbers, each at most {@code limit}\n", "")),
                vec!["doc.return_undocumented"],
            ),
            (
                "no example",
                doc(JAVA_DOC.split("@example").next().unwrap().trim_end()),
                vec!["doc.no_example"],
            ),
            (
                "example with a variable",
                doc(&JAVA_DOC.replace("clip(List.of(), 0)", "clip(xs, 0)")),
                vec!["doc.example_unparsable"],
            ),
            (
                "example calls something else",
                doc(&JAVA_DOC.replace(
                    "new Solution().clip(List.of(), 0) => List.of()",
                    "Collections.max(Arrays.asList(1, 2)) => 2",
                )),
                vec!["doc.example_not_entry_point"],
            ),
            (
                "example exits the JVM",
                doc(&JAVA_DOC.replace(
                    "new Solution().clip(List.of(), 0) => List.of()",
                    "System.exit(0) => 0",
                )),
                vec!["doc.example_not_entry_point"],
            ),
            (
                "claimed result wrong",
                doc(&JAVA_DOC.replace("=> Arrays.asList(1, 3, 3)", "=> Arrays.asList(1, 5, 3)")),
                vec!["doc.example_wrong"],
            ),
        ],
    );
}

/// Intake's known-bad answer: the reference with one claimed result altered fails by name.
#[test]
fn altered_reference_example_fails_in_every_language() {
    for language in Language::ALL {
        let task = clip_task(language);
        let reference = &task.variants[&language].reference_solution;
        let ok = passrate_grade::grade(runner(), &task, language, reference).unwrap();
        assert_eq!(ok.reason, Reason::Pass, "{language}: {ok:?}");
        let bad = passrate_grade::doc::with_wrong_example(language, reference, "clip").unwrap();
        let v = passrate_grade::grade(runner(), &task, language, &bad).unwrap();
        assert_eq!(rules(&v), ["doc.example_wrong"], "{language}:\n{bad}");
    }
}
