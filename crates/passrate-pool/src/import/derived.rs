//! Tasks derived from built base tasks (their tests are reused, never re-recorded):
//!
//! * `humanevalfix/N` — bug fixing in every language HumanEvalPack has a bug for: given code
//!   and faulty variant = the buggy function, reference = the canonical one, public tests
//!   only (the Python canonical is HumanEval's, which EvalPlus's hidden inputs were not
//!   written for).
//! * `translate/<base>/<from>-<to>` — every ordered pair of the base task's languages
//!   (`humaneval/N` and `mbpp/N`); the only variant is the target, with the source-language
//!   reference as `given_code`.
//! * `doc/<base>` — documentation: given the undocumented function (HumanEvalPack
//!   `declaration` + canonical body), the reference is that code with a generated doc that
//!   meets the documentation grader's rules in the language's stated form: the dataset's
//!   description, every parameter and the return value by name, and examples rendered
//!   from the base task's tests ([`documented_reference`]).
//! * `unittest/<base>` — unit-test writing: given the documented function, the faulty
//!   variant is HumanEvalPack's buggy body under the same documented declaration (so the two
//!   differ only in behaviour); the reference answer is the dataset's check program converted
//!   to a test suite ([`super::suites`]).
//! * `refactor/<base>/<language>` — where a dataset has two implementations of the same
//!   function (HumanEval vs EvalPlus, HumanEval-X vs HumanEvalPack, MBPP vs MBPP+), the more
//!   complex one is given and the simpler one is the reference; the targets are the
//!   reference's own metrics ([`crate::structure`], the grader's measure), and the given
//!   code must miss one ([`refactor_targets`]).
//!
//! Derived tasks keep the base task's factors and tier: they measure the same problem.

use std::collections::BTreeMap;

use passrate_schema::{
    Category, CategoryData, Language, Source, StructuralTargets, Task, TestCase, Variant,
    Visibility,
};

use super::humaneval::HumanEvalProblem;
use crate::structure::metrics;

fn tests_for(base: &Task, languages: &[Language], public_only: bool) -> Vec<TestCase> {
    let single = languages.len() == 1;
    base.tests
        .iter()
        .filter(|t| !public_only || t.visibility == Visibility::Public)
        .filter_map(|t| {
            let mut t = t.clone();
            if !t.languages.is_empty() {
                t.languages.retain(|l| languages.contains(l));
                if t.languages.is_empty() {
                    return None;
                }
            }
            if single {
                t.languages.clear();
            }
            Some(t)
        })
        .collect()
}

fn derived(
    base: &Task,
    id: String,
    category: Category,
    source: Source,
    variants: BTreeMap<Language, Variant>,
    category_data: CategoryData,
    public_only: bool,
) -> Option<Task> {
    if variants.is_empty() {
        return None;
    }
    let languages: Vec<Language> = variants.keys().copied().collect();
    let tests = tests_for(base, &languages, public_only);
    if tests.is_empty() {
        return None;
    }
    Some(Task {
        id,
        category,
        variants,
        tests,
        category_data,
        source,
        calibration: Default::default(),
        ..base.clone()
    })
}

fn pack_source(problem: &HumanEvalProblem, language: Language) -> Source {
    let upstream = problem
        .pack
        .get(&language)
        .map(|p| p.task_id.clone())
        .unwrap_or_else(|| format!("HumanEval/{}", problem.number));
    super::source("humanevalpack", &upstream, "MIT")
}

/// `humanevalfix/N`.
pub fn bug_fix(problem: &HumanEvalProblem, base: &Task) -> Option<Task> {
    let mut variants = BTreeMap::new();
    let mut symptom = None;
    for (language, variant) in &base.variants {
        let Some(pack) = problem.pack.get(language) else {
            continue;
        };
        let buggy = pack.buggy();
        symptom = Some(pack.failure_symptoms.clone());
        variants.insert(
            *language,
            Variant {
                prompt: pack.docstring.clone(),
                reference_solution: pack.undocumented(),
                given_code: Some(buggy.clone()),
                faulty_variants: vec![buggy],
                ..variant.clone()
            },
        );
    }
    derived(
        base,
        format!("humanevalfix/{}", problem.number),
        Category::BugFixing,
        pack_source(problem, Language::Python),
        variants,
        CategoryData {
            symptom,
            ..CategoryData::default()
        },
        true,
    )
}

/// `doc/humaneval/N`.
pub fn documentation(problem: &HumanEvalProblem, base: &Task) -> Option<Task> {
    let mut variants = BTreeMap::new();
    for (language, variant) in &base.variants {
        let Some(pack) = problem.pack.get(language) else {
            continue;
        };
        // The Python base reference is EvalPlus's body; keep it.
        let undocumented = if *language == Language::Python {
            let body = variant
                .reference_solution
                .strip_prefix(&variant.prompt)
                .unwrap_or(&pack.canonical_solution)
                .to_owned();
            format!("{}{}", pack.declaration, body)
        } else {
            pack.undocumented()
        };
        let Some(documented) = documented_reference(
            base,
            *language,
            &variant.entry_point,
            &pack.docstring,
            &undocumented,
        ) else {
            continue;
        };
        variants.insert(
            *language,
            Variant {
                prompt: undocumented.clone(),
                reference_solution: documented,
                given_code: Some(undocumented),
                ..variant.clone()
            },
        );
    }
    derived(
        base,
        format!("doc/{}", base.id),
        Category::DocumentationGeneration,
        pack_source(problem, Language::Python),
        variants,
        CategoryData::default(),
        false,
    )
}

/// Most examples a generated doc shows.
const DOC_EXAMPLES: usize = 3;
/// Longest example line a generated doc shows.
const DOC_EXAMPLE_CHARS: usize = 160;

/// The dataset's description without its examples (they are in no machine-readable form
/// and some are wrong; the generated doc states its own, from the tests).
fn description(docstring: &str) -> String {
    let mut out = Vec::new();
    for line in docstring.lines() {
        let t = line.trim().to_ascii_lowercase();
        if t.starts_with(">>>") || t.starts_with("example") || t.starts_with("for example") {
            break;
        }
        out.push(line.trim_end());
    }
    let text = out.join("\n").trim().to_owned();
    // Nothing in it may end the comment early.
    text.replace("*/", "* /").replace("\"\"\"", "'''")
}

/// `undocumented` with a doc comment that meets the documentation grader's rules: the
/// dataset's description, every parameter and the return value by name, and up to
/// [`DOC_EXAMPLES`] examples in the language's stated form, built from the base task's
/// tests (exact values and public tests first; expected values are the reference's, so
/// they are right). `None` if no test can be written as literals of the language.
pub fn documented_reference(
    base: &Task,
    language: Language,
    entry: &str,
    docstring: &str,
    undocumented: &str,
) -> Option<String> {
    use passrate_extract::literal::render;
    use passrate_schema::{Expected, TestForm, Value};
    fn has_float(v: &Value) -> bool {
        match v {
            Value::Float(_) => true,
            Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => xs.iter().any(has_float),
            Value::Map(kv) => kv.iter().any(|(k, v)| has_float(k) || has_float(v)),
            _ => false,
        }
    }
    let facts = passrate_extract::function_facts(language, undocumented, entry)?;
    let variant = base.variants.get(&language)?;
    let mut candidates: Vec<(bool, bool, String)> = Vec::new();
    for (_, test) in base.tests_for(language) {
        let TestForm::Call {
            args,
            expected: Expected::Returns(expected),
        } = &test.form
        else {
            continue;
        };
        let rendered: Option<Vec<String>> = args.iter().map(|a| render(language, a)).collect();
        let (Some(args_text), Some(result)) = (rendered, render(language, expected)) else {
            continue;
        };
        let call = format!("{entry}({})", args_text.join(", "));
        let line = match language {
            Language::Python => format!(">>> {call}\n{result}"),
            _ => format!("{call} => {result}"),
        };
        if line.len() > DOC_EXAMPLE_CHARS || line.contains("*/") || line.contains("\"\"\"") {
            continue;
        }
        // Exact values first: another language's reference may differ in the last digit.
        let floats = has_float(expected) || args.iter().any(has_float);
        candidates.push((floats, test.visibility != Visibility::Public, line));
    }
    candidates.sort_by_key(|(floats, hidden, _)| (*floats, *hidden));
    let examples: Vec<String> = candidates
        .into_iter()
        .map(|(_, _, line)| line)
        .take(DOC_EXAMPLES)
        .collect();
    if examples.is_empty() {
        return None;
    }
    let mut summary = description(docstring);
    if summary.is_empty() {
        summary = format!("Computes `{entry}`.");
    }
    let types: Vec<Option<String>> = facts
        .param_types
        .iter()
        .zip(&facts.params)
        .map(|(ty, name)| {
            ty.clone().or_else(|| {
                variant
                    .signature
                    .params
                    .iter()
                    .find(|p| &p.name == name)
                    .and_then(|p| p.ty.clone())
            })
        })
        .collect();
    let returns = variant.signature.returns.clone();
    let mut doc = format!("{summary}\n\n");
    match language {
        Language::Python => {
            if !facts.params.is_empty() {
                doc.push_str("Args:\n");
                for (i, (name, ty)) in facts.params.iter().zip(&types).enumerate() {
                    let ty = ty.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
                    doc.push_str(&format!(
                        "    {name}{ty}: argument {} of `{entry}`.\n",
                        i + 1
                    ));
                }
                doc.push('\n');
            }
            if facts.returns_value {
                let ty = returns
                    .as_deref()
                    .map(|t| format!("{t}: "))
                    .unwrap_or_default();
                doc.push_str(&format!("Returns:\n    {ty}the result of `{entry}`.\n\n"));
            }
            doc.push_str("Examples:\n");
            for e in &examples {
                for line in e.lines() {
                    doc.push_str(&format!("    {line}\n"));
                }
            }
        }
        Language::Javascript | Language::Java => {
            let code = |s: &str| {
                if language == Language::Java {
                    format!("{{@code {s}}}")
                } else {
                    format!("`{s}`")
                }
            };
            for (i, (name, ty)) in facts.params.iter().zip(&types).enumerate() {
                let ty = ty
                    .as_deref()
                    .map(|t| format!(" ({})", code(t)))
                    .unwrap_or_default();
                doc.push_str(&format!(
                    "@param {name} argument {} of {}{ty}\n",
                    i + 1,
                    code(entry)
                ));
            }
            if facts.returns_value {
                let tag = if language == Language::Java {
                    "@return"
                } else {
                    "@returns"
                };
                let ty = returns
                    .as_deref()
                    .map(|t| format!(" ({})", code(t)))
                    .unwrap_or_default();
                doc.push_str(&format!("{tag} the result of {}{ty}\n", code(entry)));
            }
            doc.push_str("@example\n");
            for e in &examples {
                doc.push_str(e);
                doc.push('\n');
            }
        }
    }
    passrate_extract::structure::insert_doc(language, undocumented, entry, doc.trim_end())
}

/// `unittest/humaneval/N`.
pub fn unit_tests(problem: &HumanEvalProblem, base: &Task) -> Option<Task> {
    let mut variants = BTreeMap::new();
    for (language, variant) in &base.variants {
        let Some(pack) = problem.pack.get(language) else {
            continue;
        };
        let Some(suite) = super::suites::reference_suite(*language, pack) else {
            continue;
        };
        variants.insert(
            *language,
            Variant {
                prompt: pack.docstring.clone(),
                reference_solution: suite,
                given_code: Some(pack.documented()),
                faulty_variants: vec![format!("{}{}", pack.prompt, pack.buggy_solution)],
                ..variant.clone()
            },
        );
    }
    derived(
        base,
        format!("unittest/{}", base.id),
        Category::UnitTestWriting,
        pack_source(problem, Language::Python),
        variants,
        CategoryData::default(),
        true,
    )
}

/// `translate/<base>/<from>-<to>` for every ordered pair of the base task's languages.
pub fn translations(base: &Task) -> Vec<Task> {
    let mut out = Vec::new();
    for (from, source_variant) in &base.variants {
        for (to, target) in &base.variants {
            if from == to {
                continue;
            }
            let mut variants = BTreeMap::new();
            variants.insert(
                *to,
                Variant {
                    given_code: Some(source_variant.reference_solution.clone()),
                    ..target.clone()
                },
            );
            if let Some(task) = derived(
                base,
                format!("translate/{}/{}-{}", base.id, from, to),
                Category::CodeTranslation,
                base.source.clone(),
                variants,
                CategoryData {
                    translate_from: Some(*from),
                    ..CategoryData::default()
                },
                false,
            ) {
                out.push(task);
            }
        }
    }
    out
}

/// Targets the reference meets and the given code fails: nesting depth and cyclomatic
/// complexity at the reference's (no worse than the given code's, by the choice of the
/// reference), function length at the reference's where the given code is longer, and no
/// duplicated blocks where the reference has none and the given code has some.
pub fn refactor_targets(
    reference: &crate::structure::Metrics,
    given: &crate::structure::Metrics,
) -> StructuralTargets {
    StructuralTargets {
        max_nesting_depth: Some(reference.max_nesting_depth),
        max_cyclomatic_complexity: Some(reference.cyclomatic_complexity),
        max_function_lines: (reference.lines < given.lines).then_some(reference.lines),
        no_duplicated_blocks: reference.duplicated_blocks == 0 && given.duplicated_blocks > 0,
        required_helpers: Vec::new(),
    }
}

/// `refactor/<base>/<language>` for each language where `alternatives` holds a second
/// implementation that is measurably more complex than the other.
pub fn refactors(base: &Task, alternatives: &BTreeMap<Language, String>) -> Vec<Task> {
    let mut out = Vec::new();
    for (language, alternative) in alternatives {
        let Some(variant) = base.variants.get(language) else {
            continue;
        };
        let a = metrics(*language, &variant.reference_solution);
        let b = metrics(*language, alternative);
        let simpler = |x: &crate::structure::Metrics, y: &crate::structure::Metrics| {
            x.max_nesting_depth <= y.max_nesting_depth
                && x.cyclomatic_complexity <= y.cyclomatic_complexity
                && (x.max_nesting_depth < y.max_nesting_depth
                    || x.cyclomatic_complexity < y.cyclomatic_complexity)
        };
        let (reference, given, target) = if simpler(&a, &b) {
            (variant.reference_solution.clone(), alternative.clone(), a)
        } else if simpler(&b, &a) {
            (alternative.clone(), variant.reference_solution.clone(), b)
        } else {
            continue;
        };
        let targets = refactor_targets(&target, &metrics(*language, &given));
        let mut variants = BTreeMap::new();
        variants.insert(
            *language,
            Variant {
                prompt: given.clone(),
                reference_solution: reference,
                given_code: Some(given),
                ..variant.clone()
            },
        );
        if let Some(task) = derived(
            base,
            format!("refactor/{}/{}", base.id, language),
            Category::Refactoring,
            base.source.clone(),
            variants,
            CategoryData {
                refactor: Some(targets),
                ..CategoryData::default()
            },
            // Hidden tests too, so that copying the visible outputs does not pass; intake
            // drops those the given code fails (it predates the hidden inputs) and keeps
            // the given code's behaviour as the behaviour to keep.
            false,
        ) {
            out.push(task);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use passrate_schema::{
        Comparator, Expected, IntakeFactors, Param, Signature, TestForm, Tier, Value,
    };

    fn base() -> Task {
        let variant = |entry: &str, class: Option<&str>, ty: [Option<&str>; 2]| Variant {
            prompt: String::new(),
            entry_point: entry.to_owned(),
            class_name: class.map(str::to_owned),
            signature: Signature {
                params: ["numbers", "threshold"]
                    .iter()
                    .zip(ty)
                    .map(|(n, t)| Param {
                        name: (*n).to_owned(),
                        ty: t.map(str::to_owned),
                    })
                    .collect(),
                returns: Some("bool".to_owned()),
            },
            reference_solution: String::new(),
            given_code: None,
            faulty_variants: Vec::new(),
            preamble: None,
        };
        let test = |visibility, numbers: Vec<Value>, t: Value, r: bool| TestCase {
            visibility,
            form: TestForm::Call {
                args: vec![Value::List(numbers), t],
                expected: Expected::Returns(Value::Bool(r)),
            },
            comparator: None,
            languages: Vec::new(),
        };
        Task {
            format_version: passrate_schema::TASK_FORMAT_VERSION,
            id: "humaneval/0".to_owned(),
            version: 1,
            category: Category::FunctionCompletion,
            tier: Tier::One,
            factors: IntakeFactors {
                conditions: 1,
                solution_space: 1,
                edge_cases: 0,
            },
            source: super::super::source("humaneval", "HumanEval/0", "MIT"),
            variants: BTreeMap::from([
                (
                    Language::Python,
                    variant("has_close_elements", None, [None, None]),
                ),
                (
                    Language::Javascript,
                    variant("hasCloseElements", None, [None, None]),
                ),
                (
                    Language::Java,
                    variant(
                        "hasCloseElements",
                        Some("Solution"),
                        [Some("List<Double>"), Some("double")],
                    ),
                ),
            ]),
            tests: vec![
                test(
                    Visibility::Hidden,
                    vec![Value::int(1), Value::int(9)],
                    Value::int(3),
                    false,
                ),
                test(
                    Visibility::Public,
                    vec![Value::Float(1.0), Value::Float(2.8)],
                    Value::Float(0.3),
                    false,
                ),
                test(
                    Visibility::Public,
                    vec![Value::Opaque("x".to_owned())],
                    Value::Float(0.3),
                    true,
                ),
            ],
            comparator: Comparator::default(),
            category_data: CategoryData::default(),
            limits: Default::default(),
            calibration: Default::default(),
        }
    }

    /// The generated reference meets every documentation rule that needs no execution, in
    /// the grader's own reading, and its code is the given code's.
    #[test]
    fn generated_docs_meet_the_documentation_rules() {
        let docstring = "Check if any two numbers are closer than threshold.\n>>> has_close_elements([1.0, 2.0], 0.5)\nFalse";
        let cases = [
            (
                Language::Python,
                "has_close_elements",
                "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    return any(abs(a - b) < threshold for a in numbers for b in numbers if a is not b)\n",
            ),
            (
                Language::Javascript,
                "hasCloseElements",
                "\nconst hasCloseElements = (numbers, threshold) => {\n  return false;\n}\n",
            ),
            (
                Language::Java,
                "hasCloseElements",
                "import java.util.*;\n\nclass Solution {\n    public boolean hasCloseElements(List<Double> numbers, double threshold) {\n        return false;\n    }\n}\n",
            ),
        ];
        for (language, entry, given) in cases {
            let documented = documented_reference(&base(), language, entry, docstring, given)
                .unwrap_or_else(|| panic!("{language}: no doc"));
            let doc = passrate_extract::doc_comment(language, &documented, entry).unwrap();
            assert!(doc.starts_with("Check if any two numbers"), "{doc}");
            assert!(
                !doc.contains("0.5)"),
                "the dataset's examples are left out:\n{doc}"
            );
            for p in ["numbers", "threshold"] {
                assert!(
                    passrate_grade::doc::documents_param(language, &doc, p),
                    "{language} {p}:\n{doc}"
                );
            }
            assert!(
                passrate_grade::doc::documents_return(language, &doc),
                "{language}:\n{doc}"
            );
            let (examples, bad) = passrate_grade::doc::examples(language, &doc);
            assert!(bad.is_empty(), "{language}: {bad:?}");
            // Exact values first, the opaque argument never.
            assert_eq!(examples.len(), 2, "{language}:\n{doc}");
            let call = passrate_extract::literal::parse_call(language, &examples[0].call).unwrap();
            assert_eq!(call.callee, entry);
            assert_eq!(call.args[1], Value::int(3));
            assert_eq!(
                passrate_extract::literal::parse_value(language, &examples[0].result).unwrap(),
                Value::Bool(false)
            );
            assert_eq!(
                passrate_extract::program_fingerprint(language, given),
                passrate_extract::program_fingerprint(language, &documented),
                "{language}"
            );
        }
    }
}
