//! Real model answers and hand-made edge cases against their expected extraction results.
//!
//! `tests/corpus/expected.jsonl` holds, per answer, the reason (or `compliant`) and the
//! blake3 of the extracted code. Regenerate it after a reviewed change with
//! `UPDATE_EXPECTED=1 cargo test -p passrate-extract --test corpus` (and bump
//! `EXTRACTOR_VERSION` when results change).

use std::collections::BTreeMap;

use passrate_extract::corpus::{self, CorpusEntry};
use passrate_extract::{Extraction, extract};

fn verdict(e: &Extraction) -> String {
    match e.reason {
        None => "compliant".to_owned(),
        Some(r) => r.as_str().to_owned(),
    }
}

fn run(entry: &CorpusEntry) -> Extraction {
    extract(&entry.request(), entry.answer.as_bytes())
}

#[test]
fn snapshot_of_every_answer_matches() -> anyhow::Result<()> {
    let entries = corpus::builtin()?;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/expected.jsonl");
    let mut actual = String::new();
    for entry in &entries {
        let e = run(entry);
        let line = serde_json::json!({
            "id": entry.id,
            "result": verdict(&e),
            "code_blake3": blake3::hash(e.code.as_bytes()).to_hex().to_string()[..16].to_owned(),
        });
        actual.push_str(&line.to_string());
        actual.push('\n');
    }
    if std::env::var_os("UPDATE_EXPECTED").is_some() {
        fs_err::write(path, &actual)?;
        return Ok(());
    }
    let expected = fs_err::read_to_string(path)?;
    let mut diffs = Vec::new();
    for (a, e) in actual.lines().zip(expected.lines()) {
        if a != e {
            diffs.push(format!("expected {e}\n     got {a}"));
        }
    }
    assert_eq!(
        actual.lines().count(),
        expected.lines().count(),
        "corpus size changed"
    );
    assert!(
        diffs.is_empty(),
        "{} answers differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
    Ok(())
}

#[test]
fn handmade_cases_have_their_expected_reason_and_code() -> anyhow::Result<()> {
    let raw = corpus::FILES
        .iter()
        .find(|(name, _)| *name == "handmade")
        .map(|(_, c)| *c)
        .unwrap_or_default();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in raw.lines() {
        let value: serde_json::Value = serde_json::from_str(line)?;
        let entry: CorpusEntry = serde_json::from_value(value.clone())?;
        let e = run(&entry);
        count += 1;
        let expect = value["expect"].as_str().unwrap_or("?");
        if verdict(&e) != expect {
            failures.push(format!(
                "{}: expected {expect}, got {} ({:?})\n--- code\n{}",
                entry.id,
                verdict(&e),
                e.detail,
                e.code
            ));
            continue;
        }
        for needle in value["code_contains"].as_array().into_iter().flatten() {
            let needle = needle.as_str().unwrap_or_default();
            if !e.code.contains(needle) {
                failures.push(format!("{}: code lacks {needle:?}:\n{}", entry.id, e.code));
            }
        }
        for needle in value["code_lacks"].as_array().into_iter().flatten() {
            let needle = needle.as_str().unwrap_or_default();
            if e.code.contains(needle) {
                failures.push(format!("{}: code keeps {needle:?}:\n{}", entry.id, e.code));
            }
        }
    }
    assert!(count >= 60);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    Ok(())
}

fn tally(prefix: &str) -> anyhow::Result<BTreeMap<String, usize>> {
    let mut out = BTreeMap::new();
    for entry in corpus::builtin()?
        .iter()
        .filter(|e| e.id.starts_with(prefix))
    {
        *out.entry(verdict(&run(entry))).or_insert(0) += 1;
    }
    Ok(out)
}

#[test]
fn gpt4_humaneval_answers_are_all_compliant() -> anyhow::Result<()> {
    let t = tally("gpt4/")?;
    assert_eq!(t.keys().collect::<Vec<_>>(), vec!["compliant"], "{t:?}");
    Ok(())
}

#[test]
fn mbxp_completions_continue_their_prompt() -> anyhow::Result<()> {
    let t = tally("mbxp/")?;
    let compliant = t.get("compliant").copied().unwrap_or(0);
    let total: usize = t.values().sum();
    // The upstream samples pass 79-85 % of tests; format compliance must be higher.
    assert!(compliant * 100 >= total * 90, "{t:?}");
    Ok(())
}

#[test]
fn codegen_completions_are_mostly_compliant() -> anyhow::Result<()> {
    let t = tally("codegen16b/")?;
    let compliant = t.get("compliant").copied().unwrap_or(0);
    let total: usize = t.values().sum();
    // 16 of the 110 samples (T = 0.8) add no code to the prompt: a row of `#`, an empty
    // line, a repeated docstring. They are `no_code`, not the prompt's empty function.
    assert!(compliant * 100 >= total * 84, "{t:?}");
    assert!(
        compliant + t.get("no_code").copied().unwrap_or(0) + 1 >= total,
        "{t:?}"
    );
    Ok(())
}

#[test]
fn wizardcoder_prose_answers_are_not_compliant() -> anyhow::Result<()> {
    let entries = corpus::builtin()?;
    let mut prose = 0;
    for entry in entries
        .iter()
        .filter(|e| e.id.starts_with("classeval/WizardCoder"))
    {
        let response = entry
            .answer
            .split("### Response:")
            .last()
            .unwrap_or_default();
        let e = run(entry);
        if !response.contains("```") && !response.contains("\nclass ") {
            prose += 1;
            assert!(!e.compliant, "{} is prose but compliant", entry.id);
            assert_eq!(verdict(&e), "no_code", "{}", entry.id);
        }
    }
    assert!(prose >= 2, "the sample should hold prose-only answers");
    Ok(())
}

#[test]
fn gpt4_turbo_classeval_answers_are_compliant_classes() -> anyhow::Result<()> {
    let entries = corpus::builtin()?;
    for entry in entries
        .iter()
        .filter(|e| e.id.starts_with("classeval/GPT-4-Turbo"))
    {
        let e = run(entry);
        assert!(e.compliant, "{}: {:?}", entry.id, e.detail);
        let class = entry.class_name.as_deref().unwrap_or_default();
        assert!(e.code.contains(&format!("class {class}")), "{}", entry.id);
        assert!(!e.code.contains("```"), "{}", entry.id);
    }
    Ok(())
}

#[test]
fn echoing_models_lose_the_echoed_skeleton() -> anyhow::Result<()> {
    let entries = corpus::builtin()?;
    for entry in entries
        .iter()
        .filter(|e| e.id.starts_with("classeval/CodeLlama"))
    {
        let e = run(entry);
        assert!(!e.code.contains("### Instruction"), "{}", entry.id);
        assert!(!e.code.contains("Below is an instruction"), "{}", entry.id);
    }
    Ok(())
}
