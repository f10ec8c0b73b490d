//! EvalPlus test inputs (HumanEval+, MBPP+), exactly as the datasets hold them.
//!
//! `HumanEvalPlus.jsonl.gz` / `MbppPlus.jsonl.gz` give `base_input` and `plus_input` as JSON,
//! written by Python's `json`: integers of any size (HumanEval/155's
//! -1021021021021021021021021021021021021021021021021) and bare `NaN`/`Infinity`. serde_json
//! turns integers outside i64/u64 into f64, so these arrays are read here by [`parse_json`],
//! which keeps every integer exact. JSON has no tuples; the OriginFmt files' `inputs = […]`
//! (Python literals) do, but list each distinct input once. [`typed_inputs`] lines the two up:
//! the OriginFmt value is taken where it is the same input (tuples as lists), else the exact
//! JSON value, and an input met twice is kept once.

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use passrate_schema::{Integer, Value};

use super::ImportError;

/// One task's inputs: each an argument list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    pub base: Vec<Vec<Value>>,
    pub extra: Vec<Vec<Value>>,
}

/// A JSON document that [`parse_json`] rejects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSON at byte {at}: {message}")]
pub struct JsonError {
    pub at: usize,
    pub message: String,
}

/// Reads `task_id → (base_input, plus_input)` from an EvalPlus JSON Lines file (gzip when
/// the name ends in `.gz`), every number exact.
pub fn read_inputs(path: &Path) -> Result<BTreeMap<String, Inputs>, ImportError> {
    let file = fs_err::File::open(path)?;
    let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut out = BTreeMap::new();
    for (i, line) in BufReader::new(reader).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let fail = |field: &str, message: String| ImportError::Parse {
            file: path.to_path_buf(),
            line: i + 1,
            path: field.to_owned(),
            message,
        };
        let doc = parse_json(&line).map_err(|e| fail("", e.to_string()))?;
        let Value::Map(fields) = doc else {
            return Err(fail("", "a record is a JSON object".into()));
        };
        let get = |name: &str| {
            fields
                .iter()
                .find(|(k, _)| *k == Value::Str(name.to_owned()))
                .map(|(_, v)| v)
        };
        let id = match get("task_id") {
            Some(Value::Str(s)) => s.clone(),
            _ => return Err(fail("task_id", "missing or not a string".into())),
        };
        let lists = |name: &str| -> Result<Vec<Vec<Value>>, ImportError> {
            match get(name) {
                None => Ok(Vec::new()),
                Some(Value::List(items)) => Ok(items.iter().map(argument_list).collect()),
                // MbppPlus.jsonl writes Mbpp/793's missing extra inputs as `{}`.
                Some(Value::Map(entries)) if entries.is_empty() => Ok(Vec::new()),
                Some(_) => Err(fail(name, "not an array".into())),
            }
        };
        let inputs = Inputs {
            base: lists("base_input")?,
            extra: lists("plus_input")?,
        };
        out.insert(id, inputs);
    }
    Ok(out)
}

/// An input as the function's arguments: an array is the argument list, anything else the
/// only argument.
fn argument_list(input: &Value) -> Vec<Value> {
    match input {
        Value::List(args) => args.clone(),
        other => vec![other.clone()],
    }
}

/// Reconciles the JSON inputs with the OriginFmt ones (`origin`, base then extra, each
/// distinct input once): duplicates are dropped (an extra input equal to a base one too),
/// and where OriginFmt holds the same inputs in the same order its values (with their tuples)
/// are taken. Otherwise the exact JSON values stand.
pub fn typed_inputs(json: &Inputs, origin: Option<Vec<Vec<Value>>>) -> Inputs {
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let key = |args: &Vec<Value>| Value::List(args.clone()).canonical_bytes();
    let base: Vec<Vec<Value>> = json
        .base
        .iter()
        .filter(|a| seen.insert(key(a)))
        .cloned()
        .collect();
    let extra: Vec<Vec<Value>> = json
        .extra
        .iter()
        .filter(|a| seen.insert(key(a)))
        .cloned()
        .collect();
    if let Some(origin) = origin
        && origin.len() == base.len() + extra.len()
        && origin
            .iter()
            .zip(base.iter().chain(&extra))
            .all(|(o, j)| same_json(&Value::List(o.clone()), &Value::List(j.clone())))
    {
        let (b, e) = origin.split_at(base.len());
        return Inputs {
            base: b.to_vec(),
            extra: e.to_vec(),
        };
    }
    Inputs { base, extra }
}

/// Whether a Python value and a JSON value are the same input once written as JSON: tuples
/// are arrays, NaN is NaN, and everything else must be equal (ints exactly).
pub fn same_json(python: &Value, json: &Value) -> bool {
    match (python, json) {
        (Value::List(a) | Value::Tuple(a), Value::List(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_json(x, y))
        }
        (Value::Float(a), Value::Float(b)) => {
            (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
        }
        (Value::Map(a), Value::Map(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((k1, v1), (k2, v2))| same_json(k1, k2) && same_json(v1, v2))
        }
        _ => python == json,
    }
}

/// Parses one JSON document into a [`Value`]: numbers without a fraction or exponent are
/// exact integers of any size, others floats; `NaN`, `Infinity` and `-Infinity` (Python's
/// `json` writes them) are floats; objects are maps with string keys, in order.
pub fn parse_json(text: &str) -> Result<Value, JsonError> {
    let mut p = JsonParser {
        s: text.as_bytes(),
        text,
        i: 0,
        depth: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("unexpected text after the document"));
    }
    Ok(v)
}

struct JsonParser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    depth: usize,
}

impl JsonParser<'_> {
    fn err(&self, message: &str) -> JsonError {
        JsonError {
            at: self.i,
            message: message.to_owned(),
        }
    }

    fn ws(&mut self) {
        while self
            .s
            .get(self.i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, JsonError> {
        if self.text[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(value)
        } else {
            Err(self.err("unexpected character"))
        }
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        self.ws();
        let Some(&c) = self.s.get(self.i) else {
            return Err(self.err("unexpected end of input"));
        };
        match c {
            b'n' => self.literal("null", Value::Null),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'N' => self.literal("NaN", Value::Float(f64::NAN)),
            b'I' => self.literal("Infinity", Value::Float(f64::INFINITY)),
            b'-' if self.text[self.i..].starts_with("-Infinity") => {
                self.literal("-Infinity", Value::Float(f64::NEG_INFINITY))
            }
            b'-' | b'0'..=b'9' => self.number(),
            b'"' => self.string().map(Value::Str),
            b'[' | b'{' => {
                self.depth += 1;
                if self.depth > passrate_schema::value::MAX_DEPTH {
                    return Err(self.err("nested too deeply"));
                }
                let v = if c == b'[' {
                    self.array()
                } else {
                    self.object()
                };
                self.depth -= 1;
                v
            }
            _ => Err(self.err("unexpected character")),
        }
    }

    fn array(&mut self) -> Result<Value, JsonError> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(Value::List(items));
        }
        loop {
            items.push(self.value()?);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::List(items));
                }
                _ => return Err(self.err("expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self) -> Result<Value, JsonError> {
        self.i += 1;
        let mut entries: Vec<(Value, Value)> = Vec::new();
        self.ws();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(Value::Map(entries));
        }
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.err("expected a string key"));
            }
            let key = Value::Str(self.string()?);
            self.ws();
            if self.s.get(self.i) != Some(&b':') {
                return Err(self.err("expected `:`"));
            }
            self.i += 1;
            let value = self.value()?;
            // A later duplicate key replaces the earlier value, as in Python's `json`.
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => entries.push((key, value)),
            }
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Map(entries));
                }
                _ => return Err(self.err("expected `,` or `}`")),
            }
        }
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        let mut is_float = false;
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        while let Some(&b) = self.s.get(self.i) {
            match b {
                b'0'..=b'9' => {}
                b'.' | b'e' | b'E' => is_float = true,
                b'+' | b'-' if matches!(self.s[self.i - 1], b'e' | b'E') => {}
                _ => break,
            }
            self.i += 1;
        }
        let text = &self.text[start..self.i];
        if is_float {
            text.parse::<f64>()
                .map(Value::Float)
                .map_err(|_| self.err("bad number"))
        } else {
            Integer::parse(text)
                .filter(|_| !text.starts_with('+'))
                .map(Value::Int)
                .ok_or_else(|| self.err("bad number"))
        }
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while self
                .s
                .get(self.i)
                .is_some_and(|b| *b != b'"' && *b != b'\\' && *b >= 0x20)
            {
                self.i += 1;
            }
            out.push_str(&self.text[start..self.i]);
            match self.s.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let Some(&e) = self.s.get(self.i) else {
                        return Err(self.err("unterminated escape"));
                    };
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi)
                                && self.text[self.i..].starts_with("\\u")
                            {
                                let save = self.i;
                                self.i += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                } else {
                                    self.i = save;
                                    hi
                                }
                            } else {
                                hi
                            };
                            // A lone surrogate (Python's `json` can write one) has no `char`.
                            out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                        }
                        _ => return Err(self.err("bad escape")),
                    }
                }
                _ => return Err(self.err("unterminated string")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let digits = self
            .text
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.err("short \\u escape"))?;
        let n = u32::from_str_radix(digits, 16).map_err(|_| self.err("bad \\u escape"))?;
        self.i += 4;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str) -> Value {
        Value::Int(Integer::parse(text).unwrap())
    }

    #[test]
    fn integers_stay_exact_at_any_size() {
        // HumanEval/155's extra input, as HumanEvalPlus.jsonl writes it.
        let v = parse_json(
            "[-1021021021021021021021021021021021021021021021021, 18446744073709551616]",
        )
        .unwrap();
        assert_eq!(
            v,
            Value::List(vec![
                int("-1021021021021021021021021021021021021021021021021"),
                int("18446744073709551616"),
            ])
        );
    }

    #[test]
    fn floats_specials_strings_and_objects() {
        let v = parse_json(
            r#"{"a": [1.5, -2e3, NaN, -Infinity, Infinity], "s": "\u00e9\ud83d\ude00\n\"", "a": 0}"#,
        )
        .unwrap();
        let Value::Map(entries) = v else {
            panic!("an object is a map")
        };
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].1, int("0"), "a later duplicate key wins");
        assert_eq!(entries[1].1, Value::str("é😀\n\""));
        let v = parse_json("[1.5, -2e3, Infinity]").unwrap();
        assert_eq!(
            v,
            Value::List(vec![
                Value::Float(1.5),
                Value::Float(-2000.0),
                Value::Float(f64::INFINITY)
            ])
        );
        assert!(parse_json("[1,]").is_err());
        assert!(parse_json("[1] x").is_err());
        assert!(parse_json("\"abc").is_err());
    }

    #[test]
    fn origin_values_are_taken_where_they_are_the_same_inputs() {
        let json = Inputs {
            base: vec![vec![Value::List(vec![int("1"), int("2")])]],
            extra: vec![
                vec![Value::List(vec![int("3")])],
                vec![Value::List(vec![int("1"), int("2")])],
                vec![Value::List(vec![int("3")])],
            ],
        };
        let origin = vec![
            vec![Value::Tuple(vec![int("1"), int("2")])],
            vec![Value::Tuple(vec![int("3")])],
        ];
        let typed = typed_inputs(&json, Some(origin.clone()));
        assert_eq!(typed.base, origin[..1].to_vec());
        assert_eq!(typed.extra, origin[1..].to_vec());
        // An OriginFmt value that is not the JSON input (an int read as a float) is not taken.
        let json = Inputs {
            base: vec![vec![int(
                "-1021021021021021021021021021021021021021021021021",
            )]],
            extra: vec![],
        };
        let typed = typed_inputs(&json, Some(vec![vec![Value::Float(-1.021021021021021e48)]]));
        assert_eq!(typed, json);
    }
}
