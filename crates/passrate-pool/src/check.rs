//! Structural checks every pool task must pass before it is loaded or written.

use passrate_sandbox::Limits;
use passrate_schema::{Category, TASK_FORMAT_VERSION, Task, TestForm};

use crate::error::TaskProblem;
use crate::tier::tier_for;

/// Checks one task: known format, tier consistent with the factors, references present,
/// tests present for every language, and the fields its category needs.
pub fn check_task(task: &Task) -> Result<(), TaskProblem> {
    let fail = |message: String| {
        Err(TaskProblem {
            task: task.id.clone(),
            message,
        })
    };
    if task.format_version != TASK_FORMAT_VERSION {
        return fail(format!(
            "format_version {} is not {TASK_FORMAT_VERSION}",
            task.format_version
        ));
    }
    if task.id.is_empty() || task.id.chars().any(char::is_whitespace) {
        return fail("the id must be non-empty and contain no whitespace".into());
    }
    let expected_tier = tier_for(&task.factors);
    if task.tier != expected_tier {
        return fail(format!(
            "tier {} does not follow from its factors (the rule gives {})",
            task.tier.number(),
            expected_tier.number()
        ));
    }
    if task.variants.is_empty() {
        return fail("no language variants".into());
    }
    // The runner turns these into CPU microseconds and memory bytes: out of the sandbox's
    // range they would wrap into a tiny limit instead of failing.
    let max_mib = Limits::MAX_BYTES >> 20;
    let ranges = [
        ("limits.cpu_ms", task.limits.cpu_ms, 1, Limits::MAX_CPU_MS),
        (
            "limits.memory_mib",
            task.limits.memory_mib,
            Limits::MIN_MEMORY_BYTES >> 20,
            max_mib,
        ),
        ("limits.heap_mib", task.limits.heap_mib, 1, max_mib),
    ];
    for (field, value, min, max) in ranges {
        if let Some(v) = value
            && !(min..=max).contains(&v)
        {
            return fail(format!(
                "`{field}` = {v} is out of range (allowed: {min}..={max})"
            ));
        }
    }
    if task.tests.is_empty() {
        return fail("no tests".into());
    }
    for (language, variant) in &task.variants {
        if variant.reference_solution.trim().is_empty() {
            return fail(format!("{language} variant has no reference solution"));
        }
        if variant.entry_point.trim().is_empty() {
            return fail(format!("{language} variant has no entry point"));
        }
        if task.tests_for(*language).next().is_none() {
            return fail(format!("no test applies to the {language} variant"));
        }
        let needs_given = matches!(
            task.category,
            Category::BugFixing
                | Category::CodeTranslation
                | Category::DocumentationGeneration
                | Category::Refactoring
                | Category::UnitTestWriting
        );
        if needs_given
            && variant
                .given_code
                .as_deref()
                .is_none_or(|c| c.trim().is_empty())
        {
            return fail(format!(
                "{} task: the {language} variant has no given_code",
                task.category
            ));
        }
        let needs_faulty = matches!(
            task.category,
            Category::BugFixing | Category::UnitTestWriting
        );
        if needs_faulty && variant.faulty_variants.is_empty() {
            return fail(format!(
                "{} task: the {language} variant has no faulty variants",
                task.category
            ));
        }
    }
    for (i, test) in task.tests.iter().enumerate() {
        for language in &test.languages {
            if !task.variants.contains_key(language) {
                return fail(format!("test {i} names {language}, which has no variant"));
            }
        }
        if let TestForm::Sequence { .. } = test.form {
            let classless = task
                .variants
                .iter()
                .filter(|(l, _)| test.applies_to(**l))
                .any(|(_, v)| v.class_name.is_none());
            if classless {
                return fail(format!("sequence test {i} on a variant without class_name"));
            }
        }
    }
    match task.category {
        Category::CodeTranslation => match task.category_data.translate_from {
            None => return fail("translation task without translate_from".into()),
            Some(from) if task.variants.contains_key(&from) => {
                return fail(format!(
                    "translation task offers its source language {from}"
                ));
            }
            Some(_) => {}
        },
        Category::Refactoring if task.category_data.refactor.is_none() => {
            return fail("refactoring task without structural targets".into());
        }
        _ => {}
    }
    Ok(())
}
