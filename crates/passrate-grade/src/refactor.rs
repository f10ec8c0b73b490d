//! The refactoring grader. An answer passes when it passes the task's call tests (behaviour
//! kept) and meets the task's structural targets, measured with
//! [`passrate_extract::measure`] (the definitions intake sets the targets in) on the
//! entry point and every helper function the answer defines:
//!
//! * `refactor.max_nesting_depth`, `refactor.max_cyclomatic_complexity`,
//!   `refactor.max_function_lines`: no function above the target;
//! * `refactor.duplicated_block`: no duplicated block, when the task asks for none;
//! * `refactor.missing_helper`: every helper the task names is defined;
//! * `refactor.signature_changed`: the entry point keeps the given code's parameter names,
//!   count and (Java) types.
//!
//! Rules are checked even when a call test fails, so the report is complete; the verdict's
//! reason is then the tests' reason.

use std::collections::BTreeMap;

use passrate_extract::{measure, structure};
use passrate_schema::{Language, RuleFailure, Task, Verdict};

use crate::{Execute, GradeError};

fn rule(failed: &mut Vec<RuleFailure>, rule: &str, detail: String) {
    failed.push(RuleFailure {
        rule: format!("refactor.{rule}"),
        detail,
    });
}

/// The structural rules alone (no execution): failed rules and measurements.
pub fn check_structure(
    task: &Task,
    language: Language,
    code: &str,
) -> Result<(Vec<RuleFailure>, BTreeMap<String, u64>), GradeError> {
    let task_error = |why: String| GradeError::Task {
        task: task.id.clone(),
        language,
        why,
    };
    let variant = task
        .variants
        .get(&language)
        .ok_or_else(|| task_error("no variant".to_owned()))?;
    let targets = task
        .category_data
        .refactor
        .as_ref()
        .ok_or_else(|| task_error("no structural targets".to_owned()))?;
    let given = variant
        .given_code
        .as_deref()
        .ok_or_else(|| task_error("no given code".to_owned()))?;
    let entry = variant.entry_point.as_str();
    let given_facts = structure::function_facts(language, given, entry)
        .ok_or_else(|| task_error(format!("the given code does not define `{entry}`")))?;

    let mut failed = Vec::new();
    let mut metrics = BTreeMap::new();
    let measured = match measure::measure(language, code) {
        Ok(m) => m,
        Err(e) => {
            // The extractor parsed it already; only a parse limit can get here.
            return Err(task_error(format!("the answer could not be measured: {e}")));
        }
    };
    metrics.insert("functions".to_owned(), measured.functions.len() as u64);
    metrics.insert(
        "max_nesting_depth".to_owned(),
        u64::from(measured.max_nesting_depth()),
    );
    metrics.insert(
        "max_cyclomatic_complexity".to_owned(),
        u64::from(measured.max_cyclomatic_complexity()),
    );
    metrics.insert(
        "max_function_lines".to_owned(),
        u64::from(measured.max_function_lines()),
    );
    metrics.insert(
        "duplicated_blocks".to_owned(),
        measured.duplicates.len() as u64,
    );
    type Pick = fn(&measure::FunctionMetrics) -> u32;
    type Say = fn(u32) -> String;
    let limits: [(&str, Option<u32>, Pick, Say); 3] = [
        (
            "max_nesting_depth",
            targets.max_nesting_depth,
            |f| f.nesting_depth,
            |n| format!("nests {n} deep"),
        ),
        (
            "max_cyclomatic_complexity",
            targets.max_cyclomatic_complexity,
            |f| f.cyclomatic_complexity,
            |n| format!("has cyclomatic complexity {n}"),
        ),
        (
            "max_function_lines",
            targets.max_function_lines,
            |f| f.lines,
            |n| format!("has {n} lines"),
        ),
    ];
    for (name, target, pick, what) in limits {
        let Some(target) = target else { continue };
        if let Some(worst) = measured
            .functions
            .iter()
            .filter(|f| pick(f) > target)
            .max_by_key(|f| pick(f))
        {
            rule(
                &mut failed,
                name,
                format!(
                    "`{}` {} (target: at most {target})",
                    worst.name,
                    what(pick(worst))
                ),
            );
        }
    }
    if targets.no_duplicated_blocks
        && let Some(d) = measured.duplicates.first()
    {
        rule(
            &mut failed,
            "duplicated_block",
            format!(
                "lines {} and {} start the same {} ({} tokens)",
                d.lines.0,
                d.lines.1,
                if d.statements == 1 {
                    "statement".to_owned()
                } else {
                    format!("{} statements", d.statements)
                },
                d.tokens
            ),
        );
    }
    for helper in &targets.required_helpers {
        if !measured
            .functions
            .iter()
            .any(|f| &f.name == helper && f.name != entry)
        {
            rule(
                &mut failed,
                "missing_helper",
                format!("helper function `{helper}` is not defined"),
            );
        }
    }
    match structure::function_facts(language, code, entry) {
        None => rule(
            &mut failed,
            "signature_changed",
            format!("`{entry}` is not defined"),
        ),
        Some(facts) => {
            let norm = |t: &Option<String>| {
                t.as_deref()
                    .map(|t| t.split_whitespace().collect::<String>())
            };
            if facts.params != given_facts.params {
                rule(
                    &mut failed,
                    "signature_changed",
                    format!(
                        "parameters ({}) differ from the given ({})",
                        facts.params.join(", "),
                        given_facts.params.join(", ")
                    ),
                );
            } else if language == Language::Java
                && facts.param_types.iter().map(norm).collect::<Vec<_>>()
                    != given_facts.param_types.iter().map(norm).collect::<Vec<_>>()
            {
                rule(
                    &mut failed,
                    "signature_changed",
                    "parameter types differ from the given code's".to_owned(),
                );
            }
        }
    }
    Ok((failed, metrics))
}

/// Grades a refactoring answer: the call tests, then the structural rules.
pub fn grade(
    runner: &dyn Execute,
    task: &Task,
    language: Language,
    code: &str,
) -> Result<Verdict, GradeError> {
    let (failed, mut metrics) = check_structure(task, language, code)?;
    let tests = runner.evaluate(task, language, code)?;
    metrics.insert("tests".to_owned(), tests.tests_total as u64);
    metrics.insert("tests_passed".to_owned(), tests.tests_passed as u64);
    Ok(crate::graded_verdict(
        task,
        language,
        "refactoring",
        failed,
        metrics,
        Some(tests),
    ))
}
