//! QuixBugs → `quixbugs/NAME` bug-fixing tasks in Python and Java: the buggy program is the
//! given code and the faulty variant, the corrected one the reference. Tests come from the
//! programs' JSON test cases (inputs only; expected values from the reference). Programs
//! tested through graph drivers (Node objects) or written as generators have no value-based
//! tests and are left out.

use std::collections::BTreeMap;
use std::path::Path;

use passrate_extract::declared_signature;
use passrate_schema::{Category, CategoryData, Language, Value, Variant};
use serde::Deserialize;

use super::humaneval::OrDefaultSig;
use super::{ImportError, RawTask, TestPlan, json_to_value, read_jsonl, source};

#[derive(Debug, Deserialize)]
struct Record {
    name: String,
    python_buggy: String,
    python_correct: String,
    #[serde(default)]
    json_testcases: Vec<serde_json::Value>,
    java_buggy: String,
    java_correct: String,
}

/// Removes the `package` line and imports of QuixBugs' own packages, so the class stands
/// alone.
pub fn standalone_java(code: &str) -> String {
    code.lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with("package ")
                && !t.starts_with("import java_programs")
                && !t.starts_with("import correct_java_programs")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn java_class(code: &str) -> Option<String> {
    let after = code.split("public class ").nth(1)?;
    Some(
        after
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .next()?
            .to_owned(),
    )
}

fn java_method(code: &str, name: &str) -> Option<String> {
    // QuixBugs' Java methods keep the Python name, sometimes in camelCase.
    let camel: String = {
        let mut out = String::new();
        let mut upper = false;
        for c in name.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.extend(c.to_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    };
    [name.to_owned(), camel]
        .into_iter()
        .find(|n| code.contains(&format!(" {n}(")))
}

pub fn load(data: &Path) -> Result<Vec<RawTask>, ImportError> {
    let records: Vec<Record> = read_jsonl(&data.join("quixbugs/quixbugs.jsonl"))?;
    Ok(records.iter().filter_map(raw_task).collect())
}

fn raw_task(r: &Record) -> Option<RawTask> {
    if r.json_testcases.is_empty() || r.python_correct.contains("yield") {
        return None;
    }
    let inputs: Vec<Vec<Value>> = r
        .json_testcases
        .iter()
        .filter_map(|case| {
            let args = case.as_array()?.first()?;
            Some(match json_to_value(args) {
                Value::List(a) => a,
                other => vec![other],
            })
        })
        .collect();
    let python_correct = r.python_correct.trim_start_matches('\n').to_owned();
    let python_buggy = r.python_buggy.trim_start_matches('\n').to_owned();
    let mut variants = BTreeMap::new();
    variants.insert(
        Language::Python,
        Variant {
            prompt: python_buggy.clone(),
            entry_point: r.name.clone(),
            class_name: None,
            signature: declared_signature(Language::Python, &python_correct, &r.name)
                .unwrap_or_default_sig(),
            reference_solution: python_correct,
            given_code: Some(python_buggy.clone()),
            faulty_variants: vec![python_buggy],
            preamble: None,
        },
    );
    let java_correct = standalone_java(&r.java_correct);
    let java_buggy = standalone_java(&r.java_buggy);
    if let (Some(class), Some(method)) = (
        java_class(&java_correct),
        java_method(&java_correct, &r.name),
    ) {
        variants.insert(
            Language::Java,
            Variant {
                prompt: java_buggy.clone(),
                signature: declared_signature(Language::Java, &java_correct, &method)
                    .unwrap_or_default_sig(),
                entry_point: method,
                class_name: Some(class),
                reference_solution: java_correct,
                given_code: Some(java_buggy.clone()),
                faulty_variants: vec![java_buggy],
                preamble: None,
            },
        );
    }
    Some(RawTask {
        id: format!("quixbugs/{}", r.name),
        category: Category::BugFixing,
        source: source("quixbugs", &r.name, "MIT"),
        variants,
        category_data: CategoryData::default(),
        plan: TestPlan::Inputs {
            public: inputs,
            hidden: Vec::new(),
        },
        primary: Language::Python,
        atol: None,
        as_set: false,
        factor_prompt: String::new(),
        contract: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcd_from_real_record() {
        let r = Record {
            name: "gcd".into(),
            python_buggy: "\ndef gcd(a, b):\n    if b == 0:\n        return a\n    else:\n        return gcd(a % b, b)\n".into(),
            python_correct: "\ndef gcd(a, b):\n    if b == 0:\n        return a\n    else:\n        return gcd(b, a % b)\n".into(),
            json_testcases: vec![serde_json::json!([[17, 0], 17]), serde_json::json!([[13, 13], 13])],
            java_buggy: "package java_programs;\nimport java.util.*;\npublic class GCD {\n    public static int gcd(int a, int b) {\n        return b == 0 ? a : gcd(a % b, b);\n    }\n}\n".into(),
            java_correct: "package correct_java_programs;\nimport java.util.*;\npublic class GCD {\n    public static int gcd(int a, int b) {\n        if (b == 0) {\n            return a;\n        } else {\n            return gcd(b, a%b);\n        }\n    }\n}\n".into(),
        };
        let t = raw_task(&r).unwrap();
        assert_eq!(t.id, "quixbugs/gcd");
        let java = &t.variants[&Language::Java];
        assert_eq!(java.class_name.as_deref(), Some("GCD"));
        assert!(!java.reference_solution.contains("package"));
        assert_eq!(java.signature.params.len(), 2);
        assert_eq!(
            t.plan,
            TestPlan::Inputs {
                public: vec![
                    vec![Value::int(17), Value::int(0)],
                    vec![Value::int(13), Value::int(13)]
                ],
                hidden: vec![]
            }
        );
    }

    #[test]
    fn generators_are_left_out() {
        let r = Record {
            name: "flatten".into(),
            python_buggy: "def flatten(arr):\n    yield arr\n".into(),
            python_correct: "def flatten(arr):\n    for x in arr:\n        yield x\n".into(),
            json_testcases: vec![serde_json::json!([[[1]], [1]])],
            java_buggy: String::new(),
            java_correct: String::new(),
        };
        assert!(raw_task(&r).is_none());
    }
}
