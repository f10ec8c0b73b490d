//! MBPP (google-research), MBPP+ (EvalPlus) and MBXP (amazon-science) → `mbpp/N`
//! (algorithm implementation) with a Python variant and, where MBXP has a canonical solution,
//! JavaScript and Java variants (kept only if they agree with Python on every test; see
//! `build`).
//!
//! * Python reference: MBPP+'s canonical solution where the task is in MBPP+, else MBPP's.
//! * Public tests: for MBPP+ tasks, EvalPlus's `base_input` (MBPP's inputs adapted to the
//!   signatures and fixes EvalPlus made); for the others, the calls MBPP's asserts
//!   (`test_list` + `challenge_test_list`, after `test_setup_code`) make, recorded on the
//!   reference.
//! * Hidden tests: every MBPP+ extra input, exact ([`super::evalplus`]), scored up to the
//!   cap HumanEval+ has; MBPP+ checks that compare `set(out)` make the comparator set-based.

use std::collections::BTreeMap;
use std::path::Path;

use passrate_extract::declared_signature;
use passrate_schema::{Category, CategoryData, Language, Variant};
use serde::Deserialize;

use super::evalplus::{self, Inputs};
use super::humaneval::{OrDefaultSig, origin_inputs};
use super::{ImportError, RawTask, TestPlan, read_jsonl, source};

#[derive(Debug, Deserialize)]
struct MbppRecord {
    task_id: u32,
    text: String,
    code: String,
    #[serde(default)]
    test_setup_code: String,
    test_list: Vec<String>,
    #[serde(default)]
    challenge_test_list: Vec<String>,
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
    /// A bare number in this file (`2`), unlike MbppPlus.jsonl's `Mbpp/2`.
    task_id: u32,
    test: String,
}

#[derive(Debug, Deserialize)]
struct MbxpRecord {
    task_id: String,
    prompt: String,
    entry_point: String,
    #[serde(default)]
    canonical_solution: Option<String>,
}

/// The name of the function MBPP's first assert calls, among those the code defines.
pub fn entry_point(code: &str, first_test: &str) -> Option<String> {
    code.lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix("def ")?;
            Some(rest[..rest.find('(')?].trim().to_owned())
        })
        .find(|name| first_test.contains(&format!("{name}(")))
}

/// Rewrites MBPP's top-level asserts as a `check(candidate)` function that binds the entry
/// point's name to the candidate, so only the test's own calls are recorded (not the
/// reference's recursive calls).
///
/// `aliases`: other names the asserts call the function by. MBPP+ renamed a few functions
/// (Mbpp/167 `next_power_of_2` is `next_Power_Of_2` in MBPP's asserts); the original name
/// is bound to the candidate too.
pub fn check_code(setup: &str, tests: &[String], entry: &str, aliases: &[String]) -> String {
    let mut out = String::from("def check(candidate):\n");
    out.push_str(&format!("    {entry} = candidate\n"));
    for alias in aliases.iter().filter(|a| *a != entry) {
        out.push_str(&format!("    {alias} = candidate\n"));
    }
    for line in setup.lines().chain(tests.iter().flat_map(|t| t.lines())) {
        if line.trim().is_empty() {
            continue;
        }
        out.push_str("    ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn mbxp_number(task_id: &str) -> Option<u32> {
    task_id.rsplit('/').next()?.parse().ok()
}

fn java_class(prompt: &str) -> Option<String> {
    let line = prompt
        .lines()
        .find(|l| l.starts_with("class ") || l.starts_with("public class "))?;
    let after = line.split("class ").nth(1)?;
    Some(
        after
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .next()?
            .to_owned(),
    )
}

pub fn load(data: &Path) -> Result<Vec<RawTask>, ImportError> {
    let mbpp: Vec<MbppRecord> = read_jsonl(&data.join("mbpp/mbpp.jsonl"))?;
    let plus_path = data.join("mbppplus/MbppPlus.jsonl.gz");
    let plus: Vec<PlusRecord> = read_jsonl(&plus_path)?;
    let inputs: BTreeMap<u32, Inputs> = evalplus::read_inputs(&plus_path)?
        .into_iter()
        .filter_map(|(id, i)| Some((mbxp_number(&id)?, i)))
        .collect();
    let origin: Vec<OriginFmtRecord> =
        read_jsonl(&data.join("mbppplus/MbppPlus-OriginFmt.jsonl.gz"))?;
    let origin: BTreeMap<u32, String> = origin.into_iter().map(|r| (r.task_id, r.test)).collect();
    let plus: BTreeMap<u32, PlusRecord> = plus
        .into_iter()
        .filter_map(|r| Some((mbxp_number(&r.task_id)?, r)))
        .collect();
    let mut mbxp: BTreeMap<(Language, u32), MbxpRecord> = BTreeMap::new();
    for (language, file) in [
        (Language::Javascript, "mxeval/mbxp/mbjsp_release_v1.2.jsonl"),
        (Language::Java, "mxeval/mbxp/mbjp_release_v1.2.jsonl"),
    ] {
        let records: Vec<MbxpRecord> = read_jsonl(&data.join(file))?;
        for r in records {
            if let Some(n) = mbxp_number(&r.task_id) {
                mbxp.insert((language, n), r);
            }
        }
    }
    let mut tasks = Vec::new();
    for record in &mbpp {
        let plus_record = plus.get(&record.task_id);
        let origin_test = plus_record.and(origin.get(&record.task_id));
        let plus_inputs = plus_record.and(inputs.get(&record.task_id));
        if let Some(task) = raw_task(record, plus_record, plus_inputs, origin_test, &mbxp) {
            tasks.push(task);
        }
    }
    Ok(tasks)
}

fn raw_task(
    record: &MbppRecord,
    plus: Option<&PlusRecord>,
    plus_inputs: Option<&Inputs>,
    origin_test: Option<&String>,
    mbxp: &BTreeMap<(Language, u32), MbxpRecord>,
) -> Option<RawTask> {
    let n = record.task_id;
    let first_test = record.test_list.first()?;
    let (entry, prompt, reference) = match plus {
        Some(p) => (
            p.entry_point.clone(),
            p.prompt.clone(),
            p.canonical_solution.trim_start_matches('\n').to_owned(),
        ),
        None => (
            entry_point(&record.code, first_test)?,
            format!(
                "\"\"\"\n{}\n{}\n\"\"\"\n",
                record.text.trim(),
                first_test.trim()
            ),
            record.code.replace("\r\n", "\n"),
        ),
    };
    let mut variants = BTreeMap::new();
    variants.insert(
        Language::Python,
        Variant {
            prompt,
            entry_point: entry.clone(),
            class_name: None,
            signature: declared_signature(Language::Python, &reference, &entry)
                .unwrap_or_default_sig(),
            reference_solution: reference.clone(),
            given_code: None,
            faulty_variants: Vec::new(),
            preamble: None,
        },
    );
    for language in [Language::Javascript, Language::Java] {
        let Some(x) = mbxp.get(&(language, n)) else {
            continue;
        };
        let Some(canonical) = x
            .canonical_solution
            .as_ref()
            .filter(|c| !c.trim().is_empty())
        else {
            continue;
        };
        let class_name = if language == Language::Java {
            match java_class(&x.prompt) {
                Some(c) => Some(c),
                None => continue,
            }
        } else {
            None
        };
        let reference_solution = format!("{}{}", x.prompt, canonical);
        // From the declaration in the reference: MBXP's Java prompts quote example calls in
        // the Javadoc above it.
        let sig = declared_signature(language, &reference_solution, &x.entry_point);
        variants.insert(
            language,
            Variant {
                prompt: x.prompt.clone(),
                entry_point: x.entry_point.clone(),
                class_name,
                signature: sig.unwrap_or_default_sig(),
                reference_solution,
                given_code: None,
                faulty_variants: Vec::new(),
                preamble: None,
            },
        );
    }
    let tests: Vec<String> = record
        .test_list
        .iter()
        .chain(&record.challenge_test_list)
        .cloned()
        .collect();
    let as_set = origin_test.is_some_and(|t| t.contains("out = set(out)"));
    // MBPP+ tasks take their public tests from EvalPlus's `base_input` (MBPP's test inputs,
    // adapted by EvalPlus where it changed a signature, e.g. Mbpp/57 dropped the length
    // argument, or fixed a wrong expected value), and their hidden tests from the extra
    // inputs. Other tasks record MBPP's asserts.
    let typed = plus_inputs
        .map(|json| evalplus::typed_inputs(json, origin_test.and_then(|t| origin_inputs(t))));
    let plan = match typed {
        Some(typed) if !typed.base.is_empty() => TestPlan::Inputs {
            public: typed.base,
            hidden: typed.extra,
        },
        _ => TestPlan::Record {
            language: Language::Python,
            check_code: check_code(
                &record.test_setup_code,
                &tests,
                &entry,
                &entry_point(&record.code, first_test)
                    .into_iter()
                    .collect::<Vec<_>>(),
            ),
            hidden_inputs: Vec::new(),
        },
    };
    Some(RawTask {
        id: format!("mbpp/{n}"),
        category: Category::AlgorithmImplementation,
        source: source("mbpp", &format!("mbpp/{n}"), "CC-BY-4.0"),
        variants,
        category_data: CategoryData::default(),
        plan,
        primary: Language::Python,
        atol: plus.map(|p| p.atol),
        as_set,
        factor_prompt: record.text.clone(),
        contract: plus.and_then(|p| p.contract.clone()),
    })
}

/// For MBPP+ tasks, MBPP's original implementation (a second implementation of the same
/// function, used for refactoring tasks), keyed by task id.
pub fn original_implementations(data: &Path) -> Result<BTreeMap<String, String>, ImportError> {
    let mbpp: Vec<MbppRecord> = read_jsonl(&data.join("mbpp/mbpp.jsonl"))?;
    let plus: Vec<PlusRecord> = read_jsonl(&data.join("mbppplus/MbppPlus.jsonl.gz"))?;
    let in_plus: std::collections::BTreeSet<u32> = plus
        .iter()
        .filter_map(|p| mbxp_number(&p.task_id))
        .collect();
    Ok(mbpp
        .into_iter()
        .filter(|r| in_plus.contains(&r.task_id))
        .map(|r| (format!("mbpp/{}", r.task_id), r.code.replace("\r\n", "\n")))
        .collect())
}

#[derive(Debug, Deserialize)]
struct MbxpSample {
    task_id: String,
    completion: String,
}

/// MBXP's example completions (`mxeval/mbxp/examples`) for JavaScript and Java, completed
/// with their problem's prompt: second implementations of the same functions, used for
/// refactoring tasks in those languages, keyed by task id. Intake keeps a pair only where
/// both implementations pass the tests (the samples are model answers, some wrong).
pub fn mbxp_sample_implementations(
    data: &Path,
) -> Result<BTreeMap<String, BTreeMap<Language, String>>, ImportError> {
    let mut out: BTreeMap<String, BTreeMap<Language, String>> = BTreeMap::new();
    for (language, release, samples) in [
        (
            Language::Javascript,
            "mxeval/mbxp/mbjsp_release_v1.2.jsonl",
            "mxeval/mbxp/examples/mbjsp_samples.jsonl",
        ),
        (
            Language::Java,
            "mxeval/mbxp/mbjp_release_v1.2.jsonl",
            "mxeval/mbxp/examples/mbjp_samples.jsonl",
        ),
    ] {
        let prompts: BTreeMap<u32, String> = read_jsonl::<MbxpRecord>(&data.join(release))?
            .into_iter()
            .filter_map(|r| Some((mbxp_number(&r.task_id)?, r.prompt)))
            .collect();
        for sample in read_jsonl::<MbxpSample>(&data.join(samples))? {
            let Some(n) = mbxp_number(&sample.task_id) else {
                continue;
            };
            if let Some(prompt) = prompts.get(&n)
                && !sample.completion.trim().is_empty()
            {
                out.entry(format!("mbpp/{n}"))
                    .or_default()
                    .insert(language, format!("{prompt}{}", sample.completion));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mbpp_2() -> MbppRecord {
        // MBPP task 2, as in mbpp.jsonl.
        MbppRecord {
            task_id: 2,
            text: "Write a function to find the similar elements from the given two tuple lists.".into(),
            code: "def similar_elements(test_tup1, test_tup2):\r\n  res = tuple(set(test_tup1) & set(test_tup2))\r\n  return (res) ".into(),
            test_setup_code: String::new(),
            test_list: vec![
                "assert similar_elements((3, 4, 5, 6),(5, 7, 4, 10)) == (4, 5)".into(),
                "assert similar_elements((1, 2, 3, 4),(5, 4, 3, 7)) == (3, 4)".into(),
            ],
            challenge_test_list: vec![],
        }
    }

    #[test]
    fn entry_point_from_first_assert() {
        let r = mbpp_2();
        assert_eq!(
            entry_point(&r.code, &r.test_list[0]).as_deref(),
            Some("similar_elements")
        );
    }

    #[test]
    fn check_binds_the_candidate() {
        let r = mbpp_2();
        let code = check_code("", &r.test_list, "similar_elements", &[]);
        assert!(code.starts_with("def check(candidate):\n    similar_elements = candidate\n"));
        assert!(
            code.contains("    assert similar_elements((1, 2, 3, 4),(5, 4, 3, 7)) == (3, 4)\n")
        );
    }

    #[test]
    fn renamed_functions_keep_their_original_name_in_the_check() {
        let tests = vec!["assert next_Power_Of_2(0) == 1".to_owned()];
        let code = check_code(
            "",
            &tests,
            "next_power_of_2",
            &["next_Power_Of_2".to_owned()],
        );
        assert!(
            code.contains("    next_power_of_2 = candidate\n    next_Power_Of_2 = candidate\n")
        );
    }

    #[test]
    fn mbxp_variants_join_the_python_task() {
        let mut mbxp = BTreeMap::new();
        mbxp.insert(
            (Language::Java, 2),
            MbxpRecord {
                task_id: "MBJP/2".into(),
                prompt: "import java.util.*;\n\n\nclass SimilarElements {\n    public static List<Integer> similarElements(List<Integer> testTup1, List<Integer> testTup2) {\n".into(),
                entry_point: "similarElements".into(),
                canonical_solution: Some("        return testTup1;\n    }\n}".into()),
            },
        );
        mbxp.insert(
            (Language::Javascript, 2),
            MbxpRecord {
                task_id: "MBJSP/2".into(),
                prompt: "function similarElements(testtup1, testtup2) {\n".into(),
                entry_point: "similarElements".into(),
                canonical_solution: None,
            },
        );
        let task = raw_task(&mbpp_2(), None, None, None, &mbxp).unwrap();
        assert_eq!(task.id, "mbpp/2");
        assert_eq!(task.variants.len(), 2, "JS has no canonical solution");
        let java = &task.variants[&Language::Java];
        assert_eq!(java.class_name.as_deref(), Some("SimilarElements"));
        assert_eq!(java.signature.params[1].name, "testTup2");
        assert!(
            !task.variants[&Language::Python]
                .reference_solution
                .contains('\r')
        );
    }
}
