//! The bundled corpus of real model answers (GPT-4, CodeGen-16B, the five ClassEval models,
//! MBXP example completions) and hand-made edge cases, for tests and the benchmark.

use passrate_schema::{Category, Language, Signature};
use serde::Deserialize;

use crate::ExtractRequest;

/// One answer of the corpus with the task facts extraction needs.
#[derive(Clone, Debug, Deserialize)]
pub struct CorpusEntry {
    pub id: String,
    pub language: Language,
    pub category: Category,
    pub entry_point: String,
    #[serde(default)]
    pub class_name: Option<String>,
    #[serde(default)]
    pub signature: Option<Signature>,
    #[serde(default)]
    pub prompt: Option<String>,
    pub answer: String,
}

impl CorpusEntry {
    pub fn request(&self) -> ExtractRequest {
        ExtractRequest {
            language: self.language,
            entry_point: self.entry_point.clone(),
            class_name: self.class_name.clone(),
            signature: self.signature.clone(),
            category: self.category,
            prompt: self.prompt.clone(),
        }
    }
}

/// Failure to read a corpus file.
#[derive(Debug, thiserror::Error)]
#[error("failed to parse line {line} of corpus file {file}")]
pub struct CorpusError {
    pub file: &'static str,
    pub line: usize,
    #[source]
    pub source: serde_json::Error,
}

/// The corpus files, embedded so `passrate bench extract` works from any directory.
pub const FILES: [(&str, &str); 5] = [
    (
        "reflexion-gpt4",
        include_str!("../tests/corpus/reflexion-gpt4/answers.jsonl"),
    ),
    (
        "codet-codegen16b",
        include_str!("../tests/corpus/codet-codegen16b/answers.jsonl"),
    ),
    (
        "classeval",
        include_str!("../tests/corpus/classeval/answers.jsonl"),
    ),
    (
        "mxeval",
        include_str!("../tests/corpus/mxeval/answers.jsonl"),
    ),
    (
        "handmade",
        include_str!("../tests/corpus/handmade/answers.jsonl"),
    ),
];

/// Every entry of the bundled corpus, in file order.
pub fn builtin() -> Result<Vec<CorpusEntry>, CorpusError> {
    let mut out = Vec::new();
    for (file, content) in FILES {
        for (i, line) in content.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let entry = serde_json::from_str(line).map_err(|source| CorpusError {
                file,
                line: i + 1,
                source,
            })?;
            out.push(entry);
        }
    }
    Ok(out)
}

/// The real-answer part of the corpus (without the hand-made edge cases).
pub fn real_answers() -> Result<Vec<CorpusEntry>, CorpusError> {
    Ok(builtin()?
        .into_iter()
        .filter(|e| !e.id.starts_with("handmade/"))
        .collect())
}
