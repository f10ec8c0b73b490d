//! Importers: public datasets → raw task specs (pure parsing) → tasks with recorded tests
//! (through an [`Executor`](crate::exec::Executor)) → derived tasks → intake validation.
//!
//! Each dataset module parses its files into [`RawTask`]s whose tests are still a
//! [`TestPlan`]: check code to record, or inputs given as data. [`build`] turns plans into
//! `call`/`sequence` tests whose expected values come from running each language's reference.

pub mod build;
pub mod classeval;
pub mod contract;
pub mod derived;
pub mod evalplus;
pub mod generate;
pub mod humaneval;
pub mod mbpp;
pub mod perf;
pub mod pipeline;
pub mod quixbugs;
pub mod screen;
pub mod select;
pub mod suites;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use passrate_schema::{Category, CategoryData, Language, Source, Value, Variant};
use serde::de::DeserializeOwned;

/// Problems reading a dataset.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("failed to read dataset file")]
    Io(#[from] std::io::Error),
    #[error("failed to parse {file}:{line} at `{path}`: {message}")]
    Parse {
        file: PathBuf,
        line: usize,
        path: String,
        message: String,
    },
    #[error("{file}: {message}")]
    Data { file: PathBuf, message: String },
    #[error(transparent)]
    Pool(#[from] crate::error::PoolError),
    #[error(transparent)]
    Exec(#[from] crate::exec::ExecError),
}

/// How a task's tests are obtained.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum TestPlan {
    /// Assertion-style check code: the calls it makes on `language`'s reference become the
    /// public tests; `hidden_inputs` (extra inputs given as data) become hidden tests.
    Record {
        language: Language,
        check_code: String,
        hidden_inputs: Vec<Vec<Value>>,
    },
    /// Inputs given as data.
    Inputs {
        public: Vec<Vec<Value>>,
        hidden: Vec<Vec<Value>>,
    },
    /// A class-level `unittest` suite with its recording driver
    /// ([`classeval::recording_check`]): the constructions and method calls its tests make on
    /// the (only) language's reference class become `sequence` tests.
    Sequences { check_code: String },
}

/// A task before its tests are recorded. Serialised only for the intake cache's keys.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RawTask {
    pub id: String,
    pub category: Category,
    pub source: Source,
    pub variants: BTreeMap<Language, Variant>,
    pub category_data: CategoryData,
    pub plan: TestPlan,
    /// The language whose tests are authoritative: other languages' references must agree
    /// with it on every test, or their variant is dropped.
    pub primary: Language,
    /// Absolute float tolerance stated by the dataset (EvalPlus `atol`), if any.
    pub atol: Option<f64>,
    /// Compare results as sets (the dataset's check wraps them in `set(…)`).
    pub as_set: bool,
    /// Prompt text the edge-case factor is counted on.
    pub factor_prompt: String,
    /// The dataset's preconditions on the primary reference's inputs, as Python `assert`
    /// lines (EvalPlus's contract): generated inputs that break them are discarded
    /// ([`contract`]).
    pub contract: Option<String>,
}

pub(crate) fn source(dataset: &str, upstream_id: &str, license: &str) -> Source {
    Source {
        dataset: dataset.to_owned(),
        upstream_id: upstream_id.to_owned(),
        license: license.to_owned(),
    }
}

/// Reads a JSON Lines file (gzip if it ends in `.gz`) into records, with field-path errors.
pub fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, ImportError> {
    let file = fs_err::File::open(path)?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut out = Vec::new();
    for (i, line) in BufReader::new(reader).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let line = non_json_numbers_to_null(&line);
        let de = &mut serde_json::Deserializer::from_str(&line);
        let record = serde_path_to_error::deserialize(de).map_err(|e| ImportError::Parse {
            file: path.to_path_buf(),
            line: i + 1,
            path: e.path().to_string(),
            message: e.inner().to_string(),
        })?;
        out.push(record);
    }
    Ok(out)
}

/// EvalPlus files were written by Python's `json`, which emits bare `NaN`, `Infinity` and
/// `-Infinity`; they become `null` here (only in inputs this crate reads from the typed
/// OriginFmt files instead).
pub fn non_json_numbers_to_null(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains("NaN") && !line.contains("Infinity") {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let token = ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        if let Some(t) = token {
            out.push_str("null");
            rest = &rest[t.len()..];
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    std::borrow::Cow::Owned(out)
}

/// Reads one JSON document.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, ImportError> {
    let text = fs_err::read_to_string(path)?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    serde_path_to_error::deserialize(de).map_err(|e| ImportError::Parse {
        file: path.to_path_buf(),
        line: e.inner().line(),
        path: e.path().to_string(),
        message: e.inner().to_string(),
    })
}

/// Converts a JSON argument list (EvalPlus `base_input`, QuixBugs inputs) to values: JSON
/// numbers with a fraction or exponent are floats, others ints.
pub fn json_to_value(json: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    match json {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => {
            if n.is_i64() || n.is_u64() {
                Value::Int(passrate_schema::Integer::parse(&n.to_string()).expect("integer"))
            } else {
                Value::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        J::String(s) => Value::Str(s.clone()),
        J::Array(items) => Value::List(items.iter().map(json_to_value).collect()),
        J::Object(map) => Value::Map(
            map.iter()
                .map(|(k, v)| (Value::Str(k.clone()), json_to_value(v)))
                .collect(),
        ),
    }
}

/// Picks at most `cap` items spread evenly over `items` (keeping their order), so a cap
/// keeps small and large inputs alike.
pub fn spread<T: Clone>(items: &[T], cap: usize) -> Vec<T> {
    if items.len() <= cap {
        return items.to_vec();
    }
    (0..cap)
        .map(|i| items[i * items.len() / cap].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn python_json_specials_become_null() {
        let line = r#"{"a": [NaN, -Infinity, 1.5], "s": "NaN \" Infinity"}"#;
        let fixed = super::non_json_numbers_to_null(line);
        assert_eq!(fixed, r#"{"a": [null, null, 1.5], "s": "NaN \" Infinity"}"#);
        assert!(serde_json::from_str::<serde_json::Value>(&fixed).is_ok());
    }
}
