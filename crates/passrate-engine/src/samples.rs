//! Sample files in the formats the field already uses, read for `passrate evaluate`:
//! - human-eval and EvalPlus JSON Lines: one object per line with `task_id` and either
//!   `completion` (a body continuing the prompt) or `solution` (a whole program);
//! - bigcode-evaluation-harness `generations.json`: a list, in task order, of lists of
//!   whole programs.
//!
//! `.gz` files are read through gzip. Every problem names the file and the line (and field).

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// How the answer relates to the task's prompt, as the upstream harnesses treat it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SampleBody {
    /// Continues the prompt: judged as prompt + completion.
    Completion(String),
    /// A whole answer, judged as it is.
    Solution(String),
}

/// One sample of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// 1-based line of the sample (bigcode: of the task's list, 1-based task position).
    pub line: usize,
    /// The task as the file names it (`HumanEval/0`, `humaneval/0`, `Mbpp/2`), or for bigcode
    /// files the task's position (`#0`), resolved by the caller.
    pub task: String,
    pub body: SampleBody,
}

/// The layout of a samples file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleFormat {
    /// human-eval / EvalPlus `samples.jsonl`.
    Jsonl,
    /// bigcode-evaluation-harness `generations.json`.
    Bigcode,
}

#[derive(Debug, thiserror::Error)]
pub enum SamplesError {
    #[error("failed to read {}", file.display())]
    Io {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}: {message}", file.display())]
    Line {
        file: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{}: {message}", file.display())]
    File { file: PathBuf, message: String },
}

/// Reads `path` (gzip when it ends in `.gz`); `format` `None` detects it from the content.
pub fn read_samples(
    path: &Path,
    format: Option<SampleFormat>,
) -> Result<Vec<Sample>, SamplesError> {
    let io = |source| SamplesError::Io {
        file: path.to_path_buf(),
        source,
    };
    let file = fs_err::File::open(path).map_err(io)?;
    let mut text = String::new();
    let mut reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    read_text(&mut reader, path, &mut text)?;
    let format = format.unwrap_or_else(|| detect(&text));
    match format {
        SampleFormat::Jsonl => jsonl(&text, path),
        SampleFormat::Bigcode => bigcode(&text, path),
    }
}

/// Reads everything, naming the line where the bytes stop being UTF-8 or the gzip stream
/// ends early.
fn read_text(reader: &mut dyn Read, path: &Path, text: &mut String) -> Result<(), SamplesError> {
    let mut buf = BufReader::new(reader);
    let mut line = 0usize;
    loop {
        let mut bytes = Vec::new();
        match buf.read_until(b'\n', &mut bytes) {
            Ok(0) => return Ok(()),
            Ok(_) => {
                line += 1;
                match std::str::from_utf8(&bytes) {
                    Ok(s) => text.push_str(s),
                    Err(e) => {
                        return Err(SamplesError::Line {
                            file: path.to_path_buf(),
                            line,
                            message: format!(
                                "not UTF-8 at byte {} of the line",
                                e.valid_up_to() + 1
                            ),
                        });
                    }
                }
            }
            Err(e) => {
                return Err(SamplesError::Line {
                    file: path.to_path_buf(),
                    line: line + 1,
                    message: format!("failed to read: {e}"),
                });
            }
        }
    }
}

fn detect(text: &str) -> SampleFormat {
    if text.trim_start().starts_with('[') {
        SampleFormat::Bigcode
    } else {
        SampleFormat::Jsonl
    }
}

fn jsonl(text: &str, path: &Path) -> Result<Vec<Sample>, SamplesError> {
    let mut samples = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let bad = |message: String| SamplesError::Line {
            file: path.to_path_buf(),
            line,
            message,
        };
        let value: serde_json::Value =
            serde_json::from_str(raw).map_err(|e| bad(format!("not JSON: {e}")))?;
        let object = value
            .as_object()
            .ok_or_else(|| bad("expected a JSON object".into()))?;
        let task = match object.get("task_id") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Number(n)) => n.to_string(),
            Some(_) => return Err(bad("`task_id` must be a string".into())),
            None => return Err(bad("missing field `task_id`".into())),
        };
        let text_field = |name: &str| -> Result<Option<String>, SamplesError> {
            match object.get(name) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(bad(format!("`{name}` must be a string"))),
            }
        };
        let body = match (text_field("solution")?, text_field("completion")?) {
            (Some(s), _) => SampleBody::Solution(s),
            (None, Some(c)) => SampleBody::Completion(c),
            (None, None) => {
                return Err(bad(
                    "missing field `completion` or `solution` (human-eval / EvalPlus samples)"
                        .into(),
                ));
            }
        };
        samples.push(Sample { line, task, body });
    }
    if samples.is_empty() {
        return Err(SamplesError::File {
            file: path.to_path_buf(),
            message: "no samples".into(),
        });
    }
    Ok(samples)
}

fn bigcode(text: &str, path: &Path) -> Result<Vec<Sample>, SamplesError> {
    let lists: Vec<Vec<String>> = serde_json::from_str(text).map_err(|e| SamplesError::Line {
        file: path.to_path_buf(),
        line: e.line(),
        message: format!("expected a list of lists of strings (bigcode generations): {e}"),
    })?;
    let samples: Vec<Sample> = lists
        .into_iter()
        .enumerate()
        .flat_map(|(position, generations)| {
            generations.into_iter().map(move |g| Sample {
                line: position + 1,
                task: format!("#{position}"),
                body: SampleBody::Solution(g),
            })
        })
        .collect();
    if samples.is_empty() {
        return Err(SamplesError::File {
            file: path.to_path_buf(),
            message: "no samples".into(),
        });
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, bytes: &[u8]) -> Result<Vec<Sample>, SamplesError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        fs_err::write(&path, bytes).unwrap();
        read_samples(&path, None)
    }

    #[test]
    fn human_eval_and_evalplus_lines() {
        let s = read(
            "s.jsonl",
            b"{\"task_id\": \"HumanEval/0\", \"completion\": \"    return 1\\n\"}\n\n{\"task_id\": \"HumanEval/1\", \"solution\": \"def f(): pass\"}\n",
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].body, SampleBody::Completion("    return 1\n".into()));
        assert_eq!((s[1].line, s[1].task.as_str()), (3, "HumanEval/1"));
        assert_eq!(s[1].body, SampleBody::Solution("def f(): pass".into()));
    }

    #[test]
    fn bad_lines_name_file_line_and_field() {
        let e = read("s.jsonl", b"{\"task_id\": \"HumanEval/0\", \"completion\": \"x\"}\n{\"task_id\": \"HumanEval/1\"}\n")
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("s.jsonl:2: missing field `completion` or `solution` (human-eval / EvalPlus samples)"), "{e}");
        let e = read("s.jsonl", b"{\"task_id\": 1, \"completion\": 2}\n")
            .unwrap_err()
            .to_string();
        assert!(e.ends_with(":1: `completion` must be a string"), "{e}");
        let e = read(
            "s.jsonl",
            b"{\"task_id\": \"a\", \"completion\": \"x\"}\n\xff\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.ends_with(":2: not UTF-8 at byte 1 of the line"), "{e}");
    }

    #[test]
    fn truncated_gzip_names_the_line_reached() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        for i in 0..2000 {
            writeln!(
                gz,
                "{{\"task_id\": \"HumanEval/{i}\", \"completion\": \"    return {i}\\n\"}}"
            )
            .unwrap();
        }
        let bytes = gz.finish().unwrap();
        let e = read("s.jsonl.gz", &bytes[..bytes.len() / 2])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("s.jsonl.gz:") && e.contains("failed to read"),
            "{e}"
        );
    }

    #[test]
    fn bigcode_generations_are_lists_in_task_order() {
        let s = read(
            "g.json",
            br#"[["def a(): pass", "def a(): return 1"], ["def b(): pass"]]"#,
        )
        .unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!((s[2].task.as_str(), s[2].line), ("#1", 2));
        let e = read("g.json", b"[[1]]").unwrap_err().to_string();
        assert!(
            e.contains("g.json:1: expected a list of lists of strings"),
            "{e}"
        );
    }
}
