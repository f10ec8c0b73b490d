//! The `replay` adapter: answers recorded earlier, from a JSONL file (gzip if it ends `.gz`).
//!
//! One JSON object per line:
//!
//! ```json
//! {"task": "humaneval/0", "language": "python", "sample_index": 0, "text": "def f(): ...",
//!  "upstream": {"id": "HumanEval/0"}}
//! ```
//!
//! `language` is optional (the answer then serves any language without its own line);
//! `sample_index` defaults to 0: a replay with one answer per task answers sample 0 only, so
//! asking for more samples gives `no_answer` rather than repeating an answer and inflating
//! pass@k. `usage`/`finish_reason` are optional; `upstream` is free provenance metadata.
//! A unit without a line is [`Outcome::NoAnswer`], not an error.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use passrate_schema::Language;
use serde::{Deserialize, Serialize};

use super::{Adapter, AdapterRequest, BoxFuture, Completion, PreflightFailure};
use crate::answer::{Outcome, Usage};
use crate::error::{AttemptError, ConfigError, Location};

/// One line of a replay file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayLine {
    pub task: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_index: Option<u32>,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Where the answer came from (dataset ids, file), kept in the answer's `raw`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<serde_json::Value>,
}

type Key = (String, Option<Language>, u32);

#[derive(Debug)]
pub struct ReplayAdapter {
    file: PathBuf,
    fingerprint: String,
    answers: HashMap<Key, ReplayLine>,
}

impl ReplayAdapter {
    /// Reads the whole file; a bad or duplicate line, invalid UTF-8 and a truncated or
    /// corrupt `.gz` are errors naming the file and the line.
    pub fn load(path: &Path) -> Result<ReplayAdapter, ConfigError> {
        let bytes = fs_err::read(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let bytes = if path.extension().is_some_and(|e| e == "gz") {
            let mut text = Vec::new();
            if let Err(e) = flate2::read::GzDecoder::new(&bytes[..]).read_to_end(&mut text) {
                // What was decompressed before the error is in `text`: its lines are whole.
                let line = text.iter().filter(|&&b| b == b'\n').count() + 1;
                return Err(ConfigError::ReplayDecode {
                    location: Location {
                        file: path.display().to_string(),
                        line: Some(line),
                        column: None,
                    },
                    message: format!(
                        "{e} after {} decompressed bytes (the data stops in line {line}: the file is truncated or corrupt)",
                        text.len()
                    ),
                });
            }
            text
        } else {
            bytes
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = e.utf8_error().valid_up_to();
            let before = &e.as_bytes()[..valid];
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            // `before` is valid UTF-8 up to `valid`, so this never falls back.
            let column = std::str::from_utf8(&before[line_start..])
                .map_or(valid - line_start, |s| s.chars().count())
                + 1;
            ConfigError::ReplayDecode {
                location: Location {
                    file: path.display().to_string(),
                    line: Some(before.iter().filter(|&&b| b == b'\n').count() + 1),
                    column: Some(column),
                },
                message: format!("invalid UTF-8 at byte {valid} of the text"),
            }
        })?;
        ReplayAdapter::parse(&text, path)
    }

    /// Parses JSONL `text`; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<ReplayAdapter, ConfigError> {
        let file = path.display().to_string();
        let mut answers = HashMap::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let location = || Location {
                file: file.clone(),
                line: Some(index + 1),
                column: None,
            };
            let entry: ReplayLine =
                serde_json::from_str(line).map_err(|e| ConfigError::Replay {
                    location: location(),
                    message: e.to_string(),
                })?;
            let key = (
                entry.task.clone(),
                entry.language,
                entry.sample_index.unwrap_or(0),
            );
            if answers.insert(key, entry).is_some() {
                return Err(ConfigError::Replay {
                    location: location(),
                    message: "a second answer for the same task, language and sample".into(),
                });
            }
        }
        Ok(ReplayAdapter {
            file: path.to_path_buf(),
            fingerprint: blake3::hash(text.as_bytes()).to_hex().to_string(),
            answers,
        })
    }

    pub fn len(&self) -> usize {
        self.answers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// The line answering a unit, if any.
    pub fn lookup(&self, task: &str, language: Language, sample_index: u32) -> Option<&ReplayLine> {
        self.answers
            .get(&(task.to_string(), Some(language), sample_index))
            .or_else(|| self.answers.get(&(task.to_string(), None, sample_index)))
    }

    fn answer(&self, request: &AdapterRequest) -> Completion {
        match self.lookup(&request.task, request.language, request.sample_index) {
            Some(line) => Completion {
                outcome: Outcome::Answered {
                    text: line.text.clone(),
                },
                usage: line.usage.unwrap_or_default(),
                finish_reason: line.finish_reason.clone(),
                raw: serde_json::to_value(line).ok(),
            },
            None => Completion {
                outcome: Outcome::NoAnswer {
                    detail: format!(
                        "{} has no answer for {} in {} (sample {})",
                        self.file.display(),
                        request.task,
                        request.language,
                        request.sample_index
                    ),
                },
                usage: Usage::default(),
                finish_reason: None,
                raw: None,
            },
        }
    }
}

impl Adapter for ReplayAdapter {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn cacheable(&self) -> bool {
        false
    }

    fn remote(&self) -> bool {
        false
    }

    fn preflight<'a>(
        &'a self,
        _timeout: Duration,
    ) -> BoxFuture<'a, Result<String, PreflightFailure>> {
        // Loading already read and validated every line; nothing else can fail later.
        let checked = format!(
            "replay file {} loaded ({} answers)",
            self.file.display(),
            self.answers.len()
        );
        Box::pin(async move { Ok(checked) })
    }

    fn complete<'a>(
        &'a self,
        request: &'a AdapterRequest,
        _timeout: Duration,
    ) -> BoxFuture<'a, Result<Completion, AttemptError>> {
        let completion = self.answer(request);
        Box::pin(async move { Ok(completion) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_prefers_the_language_and_defaults_to_sample_zero() {
        let replay = ReplayAdapter::parse(
            concat!(
                r#"{"task": "t/1", "text": "any"}"#,
                "\n\n",
                r#"{"task": "t/1", "language": "java", "text": "java"}"#,
                "\n",
                r#"{"task": "t/1", "language": "java", "sample_index": 1, "text": "java 1"}"#,
                "\n",
            ),
            Path::new("r.jsonl"),
        )
        .unwrap();
        assert_eq!(replay.len(), 3);
        assert_eq!(
            replay.lookup("t/1", Language::Java, 0).unwrap().text,
            "java"
        );
        assert_eq!(
            replay.lookup("t/1", Language::Python, 0).unwrap().text,
            "any"
        );
        assert_eq!(
            replay.lookup("t/1", Language::Java, 1).unwrap().text,
            "java 1"
        );
        assert!(replay.lookup("t/1", Language::Python, 1).is_none());
        assert!(replay.lookup("t/2", Language::Python, 0).is_none());
    }

    #[test]
    fn bad_and_duplicate_lines_name_their_line() {
        let err = ReplayAdapter::parse(
            "{\"task\": \"a\", \"text\": \"x\"}\n{\"task\": \"a\", \"txt\": \"x\"}\n",
            Path::new("r.jsonl"),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("r.jsonl:2: invalid replay line"),
            "{err}"
        );
        assert!(err.to_string().contains("txt"), "{err}");
        let err = ReplayAdapter::parse(
            "{\"task\": \"a\", \"text\": \"x\"}\n{\"task\": \"a\", \"sample_index\": 0, \"text\": \"y\"}\n",
            Path::new("r.jsonl"),
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("r.jsonl:2:"), "{err}");
    }
}
