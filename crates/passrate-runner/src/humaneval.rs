//! HumanEval-family tasks built the intake way, through the runner: the calls the dataset's
//! check code makes on the canonical solution are recorded (Python, JavaScript), or a
//! language without recording (Java) gets the Python inputs and its expected values from its
//! own reference (`run_calls`). Used by the HumanEvalPack tests and `passrate bench runner`.

use std::collections::BTreeMap;
use std::path::Path;

use passrate_schema::{
    Calibration, Category, CategoryData, Comparator, ErrorInfo, Expected, IntakeFactors, Language,
    LimitOverrides, Signature, Source, TASK_FORMAT_VERSION, Task, TestCase, TestForm, Tier, Value,
    Variant, Visibility,
};
use serde::Deserialize;

use crate::{RecordedCall, Runner, RunnerError};

/// One record of HumanEvalPack (`<dir>/<lang>/humanevalpack.jsonl`), the fields used here.
#[derive(Clone, Debug, Deserialize)]
pub struct PackItem {
    pub task_id: String,
    pub prompt: String,
    pub declaration: String,
    pub canonical_solution: String,
    pub buggy_solution: String,
    pub entry_point: String,
    pub test: String,
}

impl PackItem {
    /// The canonical solution as a complete file: prompt + body.
    pub fn canonical(&self) -> String {
        format!("{}{}", self.prompt, self.canonical_solution)
    }

    /// The canonical body after the declaration (Java: the prompt's doc comment sits inside
    /// the class, so the declaration is the clean prefix).
    pub fn canonical_from_declaration(&self) -> String {
        format!("{}{}", self.declaration, self.canonical_solution)
    }

    pub fn buggy_from_declaration(&self) -> String {
        format!("{}{}", self.declaration, self.buggy_solution)
    }
}

/// Failures to read a dataset file.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("failed to read {path}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {source}")]
    Json {
        path: String,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
}

/// Reads one language of HumanEvalPack; `lang_dir` is the dataset's directory name
/// (`python`, `js`, `java`).
pub fn load_pack(data_dir: &Path, lang_dir: &str) -> Result<Vec<PackItem>, DatasetError> {
    let path = data_dir.join(lang_dir).join("humanevalpack.jsonl");
    let text = fs_err::read_to_string(&path).map_err(|source| DatasetError::Io {
        path: path.display().to_string(),
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|source| DatasetError::Json {
                path: path.display().to_string(),
                line: i + 1,
                source,
            })
        })
        .collect()
}

/// The entry point as the code spells it: a few records name it in another case
/// (`minSubarraySum` for `minSubArraySum`) or name another function altogether.
pub fn entry_as_declared(code: &str, entry: &str) -> String {
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .collect();
    if words.contains(&entry) {
        return entry.to_owned();
    }
    let squash = |w: &str| w.replace('_', "").to_ascii_lowercase();
    if let Some(w) = words.iter().find(|w| squash(w) == squash(entry)) {
        return (*w).to_owned();
    }
    // Java/99 declares `countUpper` for `closest_integer`: take the method declared last.
    let head = &code[..code.rfind('(').unwrap_or(0)];
    let name: String = head
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    name.chars().rev().collect()
}

/// Hidden call tests from recorded calls: the reference's outcome is the expectation.
pub fn tests_from(calls: &[RecordedCall]) -> Vec<TestCase> {
    calls
        .iter()
        .map(|c| TestCase {
            visibility: Visibility::Hidden,
            form: TestForm::Call {
                args: c.args.clone(),
                expected: expected_of(&c.outcome),
            },
            comparator: None,
            languages: Vec::new(),
        })
        .collect()
}

fn expected_of(outcome: &Result<Value, ErrorInfo>) -> Expected {
    match outcome {
        Ok(v) => Expected::Returns(v.clone()),
        Err(e) => Expected::Raises(e.kind.clone()),
    }
}

/// A function-completion task with one language variant and the given tests.
pub fn call_task(
    id: &str,
    language: Language,
    entry_point: &str,
    class_name: Option<&str>,
    reference: &str,
    tests: Vec<TestCase>,
    comparator: Comparator,
) -> Task {
    let variant = Variant {
        prompt: String::new(),
        entry_point: entry_point.to_owned(),
        class_name: class_name.map(str::to_owned),
        signature: Signature {
            params: Vec::new(),
            returns: None,
        },
        reference_solution: reference.to_owned(),
        given_code: None,
        faulty_variants: Vec::new(),
        preamble: None,
    };
    Task {
        format_version: TASK_FORMAT_VERSION,
        id: id.to_owned(),
        version: 1,
        category: Category::FunctionCompletion,
        tier: Tier::One,
        factors: IntakeFactors {
            conditions: 1,
            solution_space: 1,
            edge_cases: 0,
        },
        source: Source {
            dataset: "humaneval".to_owned(),
            upstream_id: id.to_owned(),
            license: "MIT".to_owned(),
        },
        variants: BTreeMap::from([(language, variant)]),
        tests,
        comparator,
        category_data: CategoryData::default(),
        limits: LimitOverrides::default(),
        calibration: Calibration::default(),
    }
}

/// A built task and the canonical solution it was built from.
#[derive(Clone, Debug)]
pub struct Built {
    pub task: Task,
    pub canonical: String,
}

/// Builds a Python or JavaScript task by recording the check code's calls on `item`'s
/// canonical solution.
pub fn record_task(
    runner: &Runner,
    language: Language,
    item: &PackItem,
) -> Result<Built, RunnerError> {
    let canonical = item.canonical();
    let entry = entry_as_declared(&item.prompt, &item.entry_point);
    let calls = runner.record_calls(language, &canonical, &entry, &item.test)?;
    if calls.is_empty() {
        return Err(RunnerError::InvalidTask(format!(
            "{}: the check code made no calls",
            item.task_id
        )));
    }
    let task = call_task(
        &item.task_id,
        language,
        &entry,
        None,
        &canonical,
        tests_from(&calls),
        Comparator::default(),
    );
    Ok(Built { task, canonical })
}

/// Builds a Java task: the Python item's recorded inputs, expected values from the Java
/// canonical solution. Inputs a Java signature cannot take (mixed-type lists) are dropped.
pub fn java_task(
    runner: &Runner,
    python: &PackItem,
    java: &PackItem,
) -> Result<Built, RunnerError> {
    let calls = runner.record_calls(
        Language::Python,
        &python.canonical(),
        &entry_as_declared(&python.prompt, &python.entry_point),
        &python.test,
    )?;
    let inputs: Vec<Vec<Value>> = calls.into_iter().map(|c| c.args).collect();
    let canonical = java.canonical_from_declaration();
    let entry = entry_as_declared(&java.declaration, &java.entry_point);
    let outcomes = runner.run_calls(
        Language::Java,
        &canonical,
        &entry,
        Some("Solution"),
        &inputs,
    )?;
    let recorded: Vec<RecordedCall> = inputs
        .into_iter()
        .zip(outcomes)
        .filter(|(_, o)| !matches!(o, Err(e) if e.kind == "ArgumentDecodeError"))
        .map(|(args, outcome)| RecordedCall { args, outcome })
        .collect();
    if recorded.is_empty() {
        return Err(RunnerError::InvalidTask(format!(
            "{}: no Python input decodes into the Java signature",
            java.task_id
        )));
    }
    let task = call_task(
        &java.task_id,
        Language::Java,
        &entry,
        Some("Solution"),
        &canonical,
        tests_from(&recorded),
        Comparator::default(),
    );
    Ok(Built { task, canonical })
}

/// Builds a Python task from given inputs, expected values from running `reference` on them
/// in the sandbox (the EvalPlus way).
pub fn inputs_task(
    runner: &Runner,
    id: &str,
    reference: &str,
    entry_point: &str,
    inputs: Vec<Vec<Value>>,
    comparator: Comparator,
) -> Result<Built, RunnerError> {
    let outcomes = runner.run_calls(Language::Python, reference, entry_point, None, &inputs)?;
    let tests = inputs
        .into_iter()
        .zip(outcomes)
        .map(|(args, outcome)| TestCase {
            visibility: Visibility::Hidden,
            form: TestForm::Call {
                args,
                expected: expected_of(&outcome),
            },
            comparator: None,
            languages: Vec::new(),
        })
        .collect();
    let task = call_task(
        id,
        Language::Python,
        entry_point,
        None,
        reference,
        tests,
        comparator,
    );
    Ok(Built {
        task,
        canonical: reference.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_points_as_the_code_declares_them() {
        assert_eq!(entry_as_declared("def f(x):", "f"), "f");
        assert_eq!(
            entry_as_declared("const minSubarraySum = (nums) => {", "minSubArraySum"),
            "minSubarraySum"
        );
        assert_eq!(
            entry_as_declared(
                "class Solution { public int countUpper(String s",
                "closest_integer"
            ),
            "countUpper"
        );
    }
}
