//! Every bundled replay answer extracted the way `run` and `check` do it (with the task's
//! prompt for completion categories), tallied per replay file and pinned: a change of the
//! extraction rules shows here as the answers whose compliance moved (issue 21, point 7:
//! WizardCoder's prose answers were `syntax_error` as the ClassEval skeleton + prose, and an
//! empty answer was the skeleton itself).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;
use passrate_extract::{ExtractRequest, extract};
use passrate_pool::Pool;
use passrate_schema::Language;

fn replay_files() -> anyhow::Result<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../replays");
    let mut files = Vec::new();
    for dir in fs_err::read_dir(&root)? {
        let dir = dir?.path();
        if !dir.is_dir() {
            continue;
        }
        for file in fs_err::read_dir(&dir)? {
            let file = file?.path();
            let name = file.to_string_lossy();
            if name.ends_with(".jsonl") || name.ends_with(".jsonl.gz") {
                files.push(file);
            }
        }
    }
    files.sort();
    Ok(files)
}

fn read_lines(path: &Path) -> anyhow::Result<Vec<serde_json::Value>> {
    let bytes = fs_err::read(path)?;
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut text)?;
        text
    } else {
        String::from_utf8(bytes)?
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).context("failed to parse a replay line"))
        .collect()
}

const EXPECTED: &str = "\
codegen-16b: answers 163, compliant/Unfenced 5, compliant/WholeAnswer 154, syntax_error 4
codellama-13b-instruct: answers 64, compliant/Fenced 3, compliant/PromptContinuation 2, compliant/WholeAnswer 47, missing_entry_point 1, syntax_error 11
deepseek-coder-6.7b-instruct: answers 64, compliant/Fenced 60, compliant/WholeAnswer 1, syntax_error 3
gpt-3.5-turbo: answers 64, compliant/Fenced 48, compliant/Unfenced 12, compliant/WholeAnswer 2, missing_entry_point 1, no_code 1
gpt-4-2023: answers 163, compliant/Unfenced 1, compliant/WholeAnswer 162
gpt-4-turbo: answers 64, compliant/Fenced 57, compliant/WholeAnswer 6, missing_entry_point 1
mbxp-example: answers 1699, compliant/Unfenced 1, compliant/WholeAnswer 1658, missing_entry_point 15, signature_mismatch 21, syntax_error 4
wizardcoder-15b-v1.0: answers 64, compliant/Fenced 37, missing_entry_point 1, no_code 15, script_without_function 7, syntax_error 4
";

#[test]
fn replay_answers_extract_as_pinned_and_prose_is_no_code() -> anyhow::Result<()> {
    let pool = Pool::bundled()?;
    let mut table: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for file in replay_files()? {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        let name = name.trim_end_matches(".gz").trim_end_matches(".jsonl");
        for line in read_lines(&file)? {
            let task_id = line["task"].as_str().unwrap_or_default();
            let language = line["language"]
                .as_str()
                .and_then(Language::parse)
                .unwrap_or(Language::Python);
            let Some(task) = pool.get(task_id) else {
                continue;
            };
            let Some(variant) = task.variants.get(&language) else {
                continue;
            };
            let request = ExtractRequest::for_answer(language, task.category, variant);
            let text = line["text"].as_str().unwrap_or_default();
            let e = extract(&request, text.as_bytes());
            let row = table.entry(name.to_owned()).or_default();
            *row.entry("answers".into()).or_default() += 1;
            let key = match e.reason {
                None => format!("compliant/{:?}", e.origin),
                Some(r) => r.as_str().to_owned(),
            };
            *row.entry(key).or_default() += 1;
        }
    }
    let mut actual = String::new();
    for (file, row) in &table {
        let cells: Vec<String> = row.iter().map(|(k, n)| format!("{k} {n}")).collect();
        actual.push_str(&format!("{file}: {}\n", cells.join(", ")));
    }
    print!("{actual}");
    assert_eq!(actual, EXPECTED);
    Ok(())
}
