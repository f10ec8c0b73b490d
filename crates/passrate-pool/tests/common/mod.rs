//! Small fixture tasks for the storage, sampler and rotation tests.

#![allow(dead_code)]

use std::collections::BTreeMap;

use passrate_pool::tier_for;
use passrate_schema::{
    Category, CategoryData, Expected, IntakeFactors, Language, Signature, Source,
    StructuralTargets, TASK_FORMAT_VERSION, Task, TestCase, TestForm, Value, Variant, Visibility,
};

/// Factors that give each tier under the documented rule.
pub fn factors(tier: u8) -> IntakeFactors {
    match tier {
        1 => IntakeFactors {
            conditions: 1,
            solution_space: 1,
            edge_cases: 0,
        },
        2 => IntakeFactors {
            conditions: 5,
            solution_space: 1,
            edge_cases: 0,
        },
        _ => IntakeFactors {
            conditions: 9,
            solution_space: 2,
            edge_cases: 2,
        },
    }
}

/// A small valid task of any category, offered in `languages`.
pub fn task(id: &str, category: Category, tier: u8, languages: &[Language]) -> Task {
    let f = factors(tier);
    let needs_given =
        category != Category::FunctionCompletion && category != Category::AlgorithmImplementation;
    let needs_faulty = matches!(category, Category::BugFixing | Category::UnitTestWriting);
    let variants = languages
        .iter()
        .map(|l| {
            (
                *l,
                Variant {
                    prompt: "def add(a, b):\n    \"\"\"Add a and b.\"\"\"\n".into(),
                    entry_point: "add".into(),
                    class_name: None,
                    signature: Signature {
                        params: vec![],
                        returns: None,
                    },
                    reference_solution: "def add(a, b):\n    return a + b\n".into(),
                    given_code: needs_given.then(|| "def add(a, b):\n    return a - b\n".into()),
                    faulty_variants: if needs_faulty {
                        vec!["def add(a, b):\n    return a - b\n".into()]
                    } else {
                        vec![]
                    },
                    preamble: None,
                },
            )
        })
        .collect::<BTreeMap<_, _>>();
    let category_data = match category {
        Category::CodeTranslation => CategoryData {
            translate_from: Some(
                Language::ALL
                    .into_iter()
                    .find(|l| !languages.contains(l))
                    .unwrap_or(Language::Java),
            ),
            ..Default::default()
        },
        Category::Refactoring => CategoryData {
            refactor: Some(StructuralTargets {
                max_nesting_depth: Some(1),
                ..Default::default()
            }),
            ..Default::default()
        },
        _ => CategoryData::default(),
    };
    Task {
        format_version: TASK_FORMAT_VERSION,
        id: id.into(),
        version: 1,
        category,
        tier: tier_for(&f),
        factors: f,
        source: Source {
            dataset: "fixture".into(),
            upstream_id: id.into(),
            license: "MIT".into(),
        },
        variants,
        tests: vec![TestCase {
            visibility: Visibility::Public,
            form: TestForm::Call {
                args: vec![Value::int(1), Value::int(2)],
                expected: Expected::Returns(Value::int(3)),
            },
            comparator: None,
            languages: vec![],
        }],
        comparator: Default::default(),
        category_data,
        limits: Default::default(),
        calibration: Default::default(),
    }
}

/// `per_cell` tasks in every category × tier cell, in Python and JavaScript (translation:
/// JavaScript only).
pub fn grid(per_cell: usize) -> Vec<Task> {
    let mut tasks = Vec::new();
    for category in Category::ALL {
        for tier in 1..=3u8 {
            for i in 0..per_cell {
                let languages: &[Language] = if category == Category::CodeTranslation {
                    &[Language::Javascript]
                } else {
                    &[Language::Python, Language::Javascript]
                };
                tasks.push(task(
                    &format!("{}/t{tier}/{i}", category.as_str()),
                    category,
                    tier,
                    languages,
                ));
            }
        }
    }
    tasks
}

/// Every file under `dir` with its length, modification time and content hash: equal
/// snapshots before and after mean nothing was written.
pub fn snapshot(
    dir: &std::path::Path,
) -> BTreeMap<std::path::PathBuf, (u64, std::time::SystemTime, blake3::Hash)> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs_err::read_dir(&d).expect("readable directory") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let meta = fs_err::metadata(&path).expect("metadata");
                let hash = blake3::hash(&fs_err::read(&path).expect("readable file"));
                files.insert(path, (meta.len(), meta.modified().expect("mtime"), hash));
            }
        }
    }
    files
}
