//! HumanEval (openai), HumanEval+ (EvalPlus) and HumanEvalPack (bigcode) → `humaneval/N`
//! with Python, JavaScript and Java variants, plus what the derived tasks need (buggy
//! solutions, undocumented code, the original HumanEval canonical solution).
//!
//! * Python: the HumanEval+ prompt with EvalPlus's fixed canonical solution as reference
//!   (the original canonicals fail some HumanEval+ inputs).
//! * Public tests: the calls HumanEval's `check` makes, recorded on the reference; for the
//!   checks that draw random inputs (HumanEval/32, /53) EvalPlus's `base_input` instead.
//! * Hidden tests: every HumanEval+ extra input, exact ([`super::evalplus`]: integers of any
//!   size, tuples from the OriginFmt `inputs = […]`); the build scores at most [`MAX_HIDDEN`]
//!   of them and keeps the rest as the task's extra tests.
//! * JavaScript/Java: HumanEvalPack prompts and canonical solutions (Java: class `Solution`).

use std::collections::BTreeMap;
use std::path::Path;

use passrate_extract::declared_signature;
use passrate_schema::{Category, CategoryData, Language, Value, Variant};
use serde::Deserialize;

use super::evalplus::{self, Inputs};
use super::{ImportError, RawTask, TestPlan, read_jsonl, source};
use crate::pylit;

/// Cap on the scored hidden tests per task (HumanEval+ has up to ~1,000 extra inputs per
/// task); the others are stored as extra tests.
pub const MAX_HIDDEN: usize = 200;

/// Problems left out at parse time, and why: their correct answers are not unique, so a
/// `call` test with one expected value would fail correct answers.
pub const LEFT_OUT: &[(u32, &str)] = &[(
    32,
    "find_zero has many correct answers (any root of the polynomial); the upstream check is \
     a property (|poly(xs, x)| < 1e-4) that a call test with the reference's root cannot \
     express",
)];

/// The name of the function or method a HumanEvalPack declaration ends with. Three Java
/// and one JavaScript declarations name a function other than the record's `entry_point`
/// (Java/99 declares `countUpper` for `closest_integer`, Java/101 `wordStrings`, Java/114
/// and JavaScript/114 `minSubArraySum`); the dataset's own tests call the declared name, so
/// the declaration is authoritative.
pub fn declared_name(language: Language, declaration: &str) -> Option<String> {
    let ident = |s: &str| -> Option<String> {
        let name: String = s
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        (!name.is_empty()).then_some(name)
    };
    declaration.lines().rev().find_map(|line| {
        let t = line.trim();
        match language {
            Language::Javascript => t
                .strip_prefix("const ")
                .or_else(|| t.strip_prefix("function "))
                .and_then(ident),
            Language::Java => {
                if !t.starts_with("public ") || t.starts_with("public class") {
                    return None;
                }
                let before = &t[..t.find('(')?];
                ident(before.split_whitespace().last()?)
            }
            Language::Python => t.strip_prefix("def ").and_then(ident),
        }
    })
}

#[derive(Debug, Deserialize)]
struct HumanEvalRecord {
    task_id: String,
    prompt: String,
    canonical_solution: String,
    test: String,
}

#[derive(Debug, Deserialize)]
struct PlusRecord {
    task_id: String,
    prompt: String,
    entry_point: String,
    canonical_solution: String,
    #[serde(default)]
    atol: f64,
    #[serde(default)]
    contract: Option<String>,
}

#[derive(Debug, Deserialize)]
struct OriginFmtRecord {
    task_id: String,
    test: String,
}

/// One language of HumanEvalPack.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct PackEntry {
    pub task_id: String,
    pub prompt: String,
    pub declaration: String,
    pub canonical_solution: String,
    pub buggy_solution: String,
    pub bug_type: String,
    pub failure_symptoms: String,
    pub test: String,
    pub entry_point: String,
    pub signature: String,
    pub docstring: String,
}

impl PackEntry {
    /// The complete reference with its doc comment (prompt + canonical body).
    pub fn documented(&self) -> String {
        format!("{}{}", self.prompt, self.canonical_solution)
    }

    /// The reference without its doc comment (declaration + canonical body).
    pub fn undocumented(&self) -> String {
        format!("{}{}", self.declaration, self.canonical_solution)
    }

    /// The buggy variant, complete.
    pub fn buggy(&self) -> String {
        format!("{}{}", self.declaration, self.buggy_solution)
    }
}

/// Everything known about HumanEval problem N.
#[derive(Clone, Debug, PartialEq)]
pub struct HumanEvalProblem {
    pub number: u32,
    pub raw: RawTask,
    pub pack: BTreeMap<Language, PackEntry>,
    /// The original HumanEval canonical solution, complete (prompt + body).
    pub original_python: String,
    /// The EvalPlus canonical solution, complete.
    pub plus_python: String,
}

fn number_of(task_id: &str) -> Option<u32> {
    task_id.rsplit('/').next()?.parse().ok()
}

/// Reads the argument lists of an EvalPlus OriginFmt check (`inputs = [[…], …]`).
pub fn origin_inputs(test: &str) -> Option<Vec<Vec<Value>>> {
    let at = test.find("inputs = ")? + "inputs = ".len();
    let (value, _) = pylit::parse_prefix(test, at).ok()?;
    let Value::List(items) = value else {
        return None;
    };
    items
        .into_iter()
        .map(|item| match item {
            Value::List(args) | Value::Tuple(args) => Some(args),
            _ => None,
        })
        .collect()
}

fn pack_language_dir(language: Language) -> &'static str {
    match language {
        Language::Python => "python",
        Language::Javascript => "js",
        Language::Java => "java",
    }
}

/// Reads all of HumanEval, HumanEval+ and HumanEvalPack (py/js/java) from `data`.
pub fn load(data: &Path) -> Result<Vec<HumanEvalProblem>, ImportError> {
    let originals: Vec<HumanEvalRecord> = read_jsonl(&data.join("humaneval/HumanEval.jsonl.gz"))?;
    let plus_path = data.join("humanevalplus/HumanEvalPlus.jsonl.gz");
    let plus: Vec<PlusRecord> = read_jsonl(&plus_path)?;
    let inputs = evalplus::read_inputs(&plus_path)?;
    let origin: Vec<OriginFmtRecord> =
        read_jsonl(&data.join("humanevalplus/HumanEvalPlus-OriginFmt.jsonl.gz"))?;
    let origin: BTreeMap<String, String> =
        origin.into_iter().map(|r| (r.task_id, r.test)).collect();
    let originals: BTreeMap<String, HumanEvalRecord> = originals
        .into_iter()
        .map(|r| (r.task_id.clone(), r))
        .collect();
    let mut packs: BTreeMap<Language, BTreeMap<u32, PackEntry>> = BTreeMap::new();
    for language in Language::ALL {
        let path = data.join(format!(
            "humanevalpack/{}/humanevalpack.jsonl",
            pack_language_dir(language)
        ));
        let entries: Vec<PackEntry> = read_jsonl(&path)?;
        let map = entries
            .into_iter()
            .filter_map(|e| Some((number_of(&e.task_id)?, e)))
            .collect();
        packs.insert(language, map);
    }
    let mut problems = Vec::new();
    for record in plus {
        let number = number_of(&record.task_id).ok_or_else(|| ImportError::Data {
            file: data.join("humanevalplus/HumanEvalPlus.jsonl.gz"),
            message: format!("bad task id {}", record.task_id),
        })?;
        let Some(original) = originals.get(&record.task_id) else {
            continue;
        };
        let pack: BTreeMap<Language, PackEntry> = packs
            .iter()
            .filter_map(|(l, m)| Some((*l, m.get(&number)?.clone())))
            .collect();
        problems.push(problem(
            number,
            &record,
            original,
            origin.get(&record.task_id),
            inputs.get(&record.task_id).cloned().unwrap_or_default(),
            pack,
        ));
    }
    problems.sort_by_key(|p| p.number);
    Ok(problems)
}

fn problem(
    number: u32,
    plus: &PlusRecord,
    original: &HumanEvalRecord,
    origin_test: Option<&String>,
    inputs: Inputs,
    pack: BTreeMap<Language, PackEntry>,
) -> HumanEvalProblem {
    let plus_python = format!("{}{}", plus.prompt, plus.canonical_solution);
    let mut variants = BTreeMap::new();
    variants.insert(
        Language::Python,
        Variant {
            prompt: plus.prompt.clone(),
            entry_point: plus.entry_point.clone(),
            class_name: None,
            signature: declared_signature(Language::Python, &plus_python, &plus.entry_point)
                .unwrap_or_default_sig(),
            reference_solution: plus_python.clone(),
            given_code: None,
            faulty_variants: Vec::new(),
            preamble: None,
        },
    );
    for (language, entry) in &pack {
        if *language == Language::Python {
            continue;
        }
        let entry_point = declared_name(*language, &entry.declaration)
            .unwrap_or_else(|| entry.entry_point.clone());
        let reference_solution = entry.documented();
        let sig = declared_signature(*language, &reference_solution, &entry_point);
        variants.insert(
            *language,
            Variant {
                prompt: entry.prompt.clone(),
                entry_point,
                class_name: (*language == Language::Java).then(|| "Solution".to_owned()),
                signature: sig.unwrap_or_default_sig(),
                reference_solution,
                given_code: None,
                faulty_variants: Vec::new(),
                preamble: None,
            },
        );
    }
    let typed = evalplus::typed_inputs(&inputs, origin_test.and_then(|t| origin_inputs(t)));
    let hidden = typed.extra;
    let typed_base = typed.base;
    let plan = if original.test.contains("random") {
        TestPlan::Inputs {
            public: typed_base,
            hidden,
        }
    } else {
        TestPlan::Record {
            language: Language::Python,
            check_code: original.test.clone(),
            hidden_inputs: hidden,
        }
    };
    let raw = RawTask {
        id: format!("humaneval/{number}"),
        category: Category::FunctionCompletion,
        source: source("humaneval", &plus.task_id, "MIT"),
        variants,
        category_data: CategoryData::default(),
        plan,
        primary: Language::Python,
        atol: Some(plus.atol),
        as_set: false,
        factor_prompt: plus.prompt.clone(),
        contract: plus.contract.clone(),
    };
    HumanEvalProblem {
        number,
        raw,
        pack,
        original_python: format!("{}{}", original.prompt, original.canonical_solution),
        plus_python,
    }
}

pub(crate) trait OrDefaultSig {
    fn unwrap_or_default_sig(self) -> passrate_schema::Signature;
}

impl OrDefaultSig for Option<passrate_schema::Signature> {
    fn unwrap_or_default_sig(self) -> passrate_schema::Signature {
        self.unwrap_or(passrate_schema::Signature {
            params: Vec::new(),
            returns: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_names_win_over_mismatched_entry_points() {
        // Declarations of JavaScript/114 and Java/99 as in HumanEvalPack.
        assert_eq!(
            declared_name(
                Language::Javascript,
                "/* Given an array ...\n  */\nconst minSubArraySum = (nums) => {\n"
            )
            .as_deref(),
            Some("minSubArraySum")
        );
        assert_eq!(
            declared_name(
                Language::Java,
                "import java.util.*;\nimport java.lang.*;\n\nclass Solution {\n    public int countUpper(String value) {\n"
            )
            .as_deref(),
            Some("countUpper")
        );
        assert_eq!(
            declared_name(
                Language::Java,
                "class Solution {\n    public List<String> wordStrings(String s) {\n"
            )
            .as_deref(),
            Some("wordStrings")
        );
    }

    #[test]
    fn reads_origin_inputs_with_tuples() {
        // Excerpt of the EvalPlus OriginFmt check for Mbpp/2.
        let test = "import numpy as np\n\ninputs = [[(3, 4, 5, 6), (5, 7, 4, 10)], [(), (6,)]]\nresults = [(4, 5), ()]\n";
        let inputs = origin_inputs(test).unwrap();
        assert_eq!(inputs.len(), 2);
        assert_eq!(
            inputs[1],
            vec![Value::Tuple(vec![]), Value::Tuple(vec![Value::int(6)])]
        );
    }

    #[test]
    fn builds_problem_from_real_excerpt() {
        // HumanEval/53 (add): its check draws random inputs, so base_input is used instead.
        let plus = PlusRecord {
            task_id: "HumanEval/53".into(),
            prompt: "\n\ndef add(x: int, y: int):\n    \"\"\"Add two numbers x and y\n    >>> add(2, 3)\n    5\n    \"\"\"\n".into(),
            entry_point: "add".into(),
            canonical_solution: "\n    return x + y\n".into(),
            atol: 0.0,
            contract: None,
        };
        let original = HumanEvalRecord {
            task_id: "HumanEval/53".into(),
            prompt: plus.prompt.clone(),
            canonical_solution: "    return x + y\n".into(),
            test: "import random\n\ndef check(candidate):\n    assert candidate(0, 1) == 1\n"
                .into(),
        };
        let inputs = Inputs {
            base: vec![
                vec![Value::int(0), Value::int(1)],
                vec![Value::int(1), Value::int(0)],
            ],
            extra: vec![vec![Value::int(-5), Value::int(7)]],
        };
        let p = problem(53, &plus, &original, None, inputs, BTreeMap::new());
        assert_eq!(p.raw.id, "humaneval/53");
        let python = &p.raw.variants[&Language::Python];
        assert_eq!(python.signature.params.len(), 2);
        assert!(python.reference_solution.contains("return x + y"));
        match &p.raw.plan {
            TestPlan::Inputs { public, hidden } => {
                assert_eq!(public.len(), 2);
                assert_eq!(hidden, &vec![vec![Value::int(-5), Value::int(7)]]);
            }
            other => panic!("expected inputs, got {other:?}"),
        }
    }
}
