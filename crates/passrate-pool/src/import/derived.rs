//! Tasks derived from built base tasks (their tests are reused, never re-recorded):
//!
//! * `humanevalfix/N` — bug fixing in every language HumanEvalPack has a bug for: given code
//!   and faulty variant = the buggy function, reference = the canonical one, public tests
//!   only (the Python canonical is HumanEval's, which EvalPlus's hidden inputs were not
//!   written for).
//! * `translate/<base>/<from>-<to>` — every ordered pair of the base task's languages
//!   (`humaneval/N` and `mbpp/N`); the only variant is the target, with the source-language
//!   reference as `given_code`.
//! * `doc/<base>` — documentation: given the undocumented function, the reference is the
//!   documented one (HumanEvalPack `declaration` vs `prompt` + canonical body).
//! * `unittest/<base>` — unit-test writing: given the documented function, the faulty
//!   variant is HumanEvalPack's buggy body under the same documented declaration (so the two
//!   differ only in behaviour); the reference answer is the dataset's check program converted
//!   to a test suite ([`super::suites`]).
//! * `refactor/<base>/<language>` — where a dataset has two implementations of the same
//!   function (HumanEval vs EvalPlus, HumanEval-X vs HumanEvalPack, MBPP vs MBPP+), the more
//!   complex one is given and the simpler one is the reference; the targets are the
//!   reference's own metrics ([`crate::structure`]), and the given code must miss one.
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
        // The Python base reference is EvalPlus's body; keep it, documented and not.
        let (documented, undocumented) = if *language == Language::Python {
            let body = variant
                .reference_solution
                .strip_prefix(&variant.prompt)
                .unwrap_or(&pack.canonical_solution)
                .to_owned();
            (
                variant.reference_solution.clone(),
                format!("{}{}", pack.declaration, body),
            )
        } else {
            (pack.documented(), pack.undocumented())
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
        let targets = StructuralTargets {
            max_nesting_depth: Some(target.max_nesting_depth),
            max_cyclomatic_complexity: Some(target.cyclomatic_complexity),
            ..StructuralTargets::default()
        };
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
            // Public tests only: the original implementations predate the hidden inputs.
            true,
        ) {
            out.push(task);
        }
    }
    out
}
