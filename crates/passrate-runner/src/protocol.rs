//! The host↔harness protocol: the request written to fd 3 and the framed transcript read back
//! from fd 4.
//!
//! Every message from the harness is one frame: an ASCII header line
//! `PASSRATE <nonce> <seq> <len>\n`, then exactly `len` bytes of JSON, then `\n`. The nonce is
//! fresh per execution, `seq` counts frames from 0, and the order of frames is fixed: `hello`,
//! then `loaded` or `load_error`, then one `test` (or `call`) frame per item in order, then
//! `done` (record mode: `check_error` instead of `done` when the check code failed). Anything
//! else — another nonce, a gap, garbage, an out-of-turn frame, bytes after `done` — is a
//! protocol violation, which is never a pass.

use passrate_schema::{ErrorInfo, Value};
use serde_json::{Map, Value as Json, json};

/// Frames whose header is longer than this are garbage, not a header.
pub(crate) const MAX_HEADER: usize = 128;

/// What the harness is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Run `tests` and report each result.
    Tests,
    /// Run the check code against the wrapped entry point and report every call.
    Record,
}

/// One item of a `tests` request. Expected values have no place here: they never leave the
/// host.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum RequestTest {
    Call {
        args: Vec<Value>,
    },
    Sequence {
        constructor_args: Vec<Value>,
        steps: Vec<(String, Vec<Value>)>,
    },
}

/// The request document written to the harness's fd 3.
#[derive(Clone, Debug)]
pub(crate) struct Request<'a> {
    pub nonce: &'a str,
    pub mode: Mode,
    pub entry: &'a str,
    pub class: Option<&'a str>,
    pub file: &'a str,
    pub check_file: Option<&'a str>,
    pub tests: &'a [RequestTest],
}

fn values(items: &[Value]) -> Json {
    Json::Array(items.iter().map(Value::to_json).collect())
}

impl Request<'_> {
    pub fn to_bytes(&self) -> Vec<u8> {
        let tests: Vec<Json> = self
            .tests
            .iter()
            .map(|t| match t {
                RequestTest::Call { args } => json!({ "args": values(args) }),
                RequestTest::Sequence {
                    constructor_args,
                    steps,
                } => json!({
                    "ctor": values(constructor_args),
                    "steps": steps
                        .iter()
                        .map(|(m, a)| json!({ "method": m, "args": values(a) }))
                        .collect::<Vec<_>>(),
                }),
            })
            .collect();
        let doc = json!({
            "nonce": self.nonce,
            "mode": match self.mode { Mode::Tests => "tests", Mode::Record => "record" },
            "entry": self.entry,
            "class": self.class,
            "file": self.file,
            "check_file": self.check_file,
            "tests": tests,
        });
        serde_json::to_vec(&doc).expect("a JSON document serialises")
    }
}

/// What one test produced.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A `call` test (or a sequence whose constructor raised).
    Single(Result<Value, ErrorInfo>),
    /// A `sequence` test: one outcome per step.
    Steps(Vec<Result<Value, ErrorInfo>>),
}

/// A `test` frame.
#[derive(Clone, Debug, PartialEq)]
pub struct TestFrame {
    pub outcome: Outcome,
    /// CPU time the harness measured (informational: the candidate could falsify it).
    pub cpu_us: u64,
}

/// A `call` frame of record mode.
#[derive(Clone, Debug, PartialEq)]
pub struct CallFrame {
    pub args: Vec<Value>,
    pub outcome: Result<Value, ErrorInfo>,
}

/// How loading the candidate went.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Load {
    /// No `loaded`/`load_error` frame arrived.
    #[default]
    NotReported,
    Loaded,
    Failed(ErrorInfo),
}

/// Everything the harness reported, as far as it was well-formed.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Transcript {
    /// The `hello` frame's runtime version: present iff the harness started.
    pub runtime: Option<String>,
    pub load: Load,
    pub tests: Vec<TestFrame>,
    pub calls: Vec<CallFrame>,
    pub check_error: Option<ErrorInfo>,
    /// The harness itself failed (the candidate may have caused it, e.g. by killing its thread).
    pub harness_error: Option<ErrorInfo>,
    pub done: bool,
    /// The stream ended inside a frame (the process was killed while writing).
    pub truncated: bool,
    /// The first violation of the protocol; parsing stopped there.
    pub violation: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Hello,
    Load,
    Items,
    Finished,
}

/// Parses the channel output. Never panics, whatever the bytes: the candidate can write to the
/// channel too, so every byte is untrusted.
pub fn parse_transcript(
    bytes: &[u8],
    nonce: &str,
    mode_record: bool,
    max_frame: usize,
) -> Transcript {
    let mut t = Transcript::default();
    let mut pos = 0usize;
    let mut seq = 0u64;
    let mut phase = Phase::Hello;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        let Some(nl) = rest.iter().take(MAX_HEADER + 1).position(|&b| b == b'\n') else {
            if rest.len() <= MAX_HEADER && b"PASSRATE ".starts_with(&rest[..rest.len().min(9)]) {
                t.truncated = true;
            } else {
                t.violation = Some(format!("garbage on the result channel at byte {pos}"));
            }
            return t;
        };
        let header = match std::str::from_utf8(&rest[..nl]) {
            Ok(h) => h,
            Err(_) => {
                t.violation = Some(format!("garbage on the result channel at byte {pos}"));
                return t;
            }
        };
        let len = match parse_header(header, nonce, seq) {
            Ok(len) => len,
            Err(why) => {
                t.violation = Some(format!("{why} at byte {pos}"));
                return t;
            }
        };
        if len > max_frame {
            t.violation = Some(format!(
                "frame of {len} bytes exceeds the {max_frame}-byte limit"
            ));
            return t;
        }
        let body_start = nl + 1;
        if rest.len() < body_start + len + 1 {
            t.truncated = true;
            return t;
        }
        if rest[body_start + len] != b'\n' {
            t.violation = Some(format!("frame {seq} is not terminated"));
            return t;
        }
        let payload = &rest[body_start..body_start + len];
        if phase == Phase::Finished {
            t.violation = Some(format!("frame {seq} after the end of the transcript"));
            return t;
        }
        match accept(&mut t, &mut phase, payload, mode_record) {
            Ok(()) => {}
            Err(why) => {
                t.violation = Some(format!("frame {seq}: {why}"));
                return t;
            }
        }
        pos += body_start + len + 1;
        seq += 1;
    }
    t
}

pub(crate) fn parse_header(header: &str, nonce: &str, seq: u64) -> Result<usize, String> {
    let mut parts = header.split(' ');
    if parts.next() != Some("PASSRATE") {
        return Err("garbage on the result channel".to_owned());
    }
    if parts.next() != Some(nonce) {
        return Err("a frame with the wrong nonce".to_owned());
    }
    let got_seq = parts.next().and_then(|s| s.parse::<u64>().ok());
    if got_seq != Some(seq) {
        return Err(format!("frame out of sequence (expected {seq})"));
    }
    let len = parts
        .next()
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && s.len() <= 12)
        .and_then(|s| s.parse::<usize>().ok())
        .ok_or_else(|| "a frame header without a valid length".to_owned())?;
    if parts.next().is_some() {
        return Err("a malformed frame header".to_owned());
    }
    Ok(len)
}

pub(crate) fn single_key(payload: &[u8]) -> Result<(String, Json, Map<String, Json>), String> {
    let doc: Json = serde_json::from_slice(payload).map_err(|e| format!("invalid JSON: {e}"))?;
    let Json::Object(mut map) = doc else {
        return Err("a frame is a JSON object".to_owned());
    };
    // The frame's kind is its first key; other keys are that kind's fields.
    let Some(kind) = map.keys().next().cloned() else {
        return Err("an empty frame".to_owned());
    };
    let value = map.remove(&kind).expect("key exists");
    Ok((kind, value, map))
}

pub(crate) fn error_info(json: &Json) -> Result<ErrorInfo, String> {
    let obj = json.as_object().ok_or("an error is an object")?;
    let kind = obj
        .get("kind")
        .and_then(Json::as_str)
        .ok_or("an error has a kind")?;
    let message = obj
        .get("message")
        .and_then(Json::as_str)
        .ok_or("an error has a message")?;
    if obj.len() != 2 {
        return Err("unexpected fields in an error".to_owned());
    }
    Ok(ErrorInfo {
        kind: kind.to_owned(),
        message: message.to_owned(),
    })
}

fn result(json: &Json) -> Result<Result<Value, ErrorInfo>, String> {
    let obj = json.as_object().ok_or("a result is an object")?;
    if obj.len() != 1 {
        return Err("a result has exactly one of ok, error".to_owned());
    }
    if let Some(v) = obj.get("ok") {
        return Value::from_json(v).map(Ok).map_err(|e| e.to_string());
    }
    if let Some(e) = obj.get("error") {
        return error_info(e).map(Err);
    }
    Err("a result has exactly one of ok, error".to_owned())
}

pub(crate) fn no_extra(rest: &Map<String, Json>, allowed: &[&str]) -> Result<(), String> {
    match rest.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!("unexpected field {k:?}")),
        None => Ok(()),
    }
}

fn accept(
    t: &mut Transcript,
    phase: &mut Phase,
    payload: &[u8],
    record: bool,
) -> Result<(), String> {
    let (kind, value, rest) = single_key(payload)?;
    match (*phase, kind.as_str()) {
        (Phase::Hello, "hello") => {
            no_extra(&rest, &[])?;
            let runtime = value
                .get("runtime")
                .and_then(Json::as_str)
                .ok_or("hello without a runtime")?;
            t.runtime = Some(runtime.to_owned());
            *phase = Phase::Load;
        }
        (Phase::Load, "loaded") => {
            no_extra(&rest, &[])?;
            t.load = Load::Loaded;
            *phase = Phase::Items;
        }
        (Phase::Load, "load_error") => {
            no_extra(&rest, &[])?;
            t.load = Load::Failed(error_info(&value)?);
            *phase = Phase::Finished;
        }
        (Phase::Items, "test") if !record => {
            no_extra(&rest, &["result", "cpu_us"])?;
            let index = value.as_u64().ok_or("a test index is a number")?;
            if index != t.tests.len() as u64 {
                return Err(format!(
                    "result for test {index} out of turn (expected {})",
                    t.tests.len()
                ));
            }
            let res = rest.get("result").ok_or("a test frame without a result")?;
            let cpu_us = rest
                .get("cpu_us")
                .and_then(Json::as_u64)
                .ok_or("a test frame without cpu_us")?;
            let outcome = match res.as_object().and_then(|o| o.get("steps")) {
                Some(Json::Array(steps)) if res.as_object().map(Map::len) == Some(1) => {
                    Outcome::Steps(steps.iter().map(result).collect::<Result<_, _>>()?)
                }
                Some(_) => return Err("steps is a list".to_owned()),
                None => Outcome::Single(result(res)?),
            };
            t.tests.push(TestFrame { outcome, cpu_us });
        }
        (Phase::Items, "call") if record => {
            no_extra(&rest, &[])?;
            let obj = value.as_object().ok_or("a call is an object")?;
            let args = match obj.get("args") {
                Some(Json::Array(items)) => items
                    .iter()
                    .map(|a| Value::from_json(a).map_err(|e| e.to_string()))
                    .collect::<Result<Vec<_>, _>>()?,
                _ => return Err("a call without args".to_owned()),
            };
            let mut outcome_obj = obj.clone();
            outcome_obj.remove("args");
            let outcome = result(&Json::Object(outcome_obj))?;
            t.calls.push(CallFrame { args, outcome });
        }
        (Phase::Items, "check_error") if record => {
            no_extra(&rest, &[])?;
            t.check_error = Some(error_info(&value)?);
            *phase = Phase::Finished;
        }
        (Phase::Items, "done") => {
            no_extra(&rest, &[])?;
            if !value.is_null() {
                return Err("done carries no value".to_owned());
            }
            t.done = true;
            *phase = Phase::Finished;
        }
        (_, "harness_error") => {
            no_extra(&rest, &[])?;
            t.harness_error = Some(error_info(&value)?);
            *phase = Phase::Finished;
        }
        (_, other) => return Err(format!("unexpected {other:?} frame")),
    }
    Ok(())
}

/// Builds one frame (used by tests and fuzzing to speak the harness's side).
pub fn frame(nonce: &str, seq: u64, payload: &str) -> Vec<u8> {
    let mut out = format!("PASSRATE {nonce} {seq} {}\n", payload.len()).into_bytes();
    out.extend_from_slice(payload.as_bytes());
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: &str = "0123abcd";

    fn stream(frames: &[&str]) -> Vec<u8> {
        frames
            .iter()
            .enumerate()
            .flat_map(|(i, f)| frame(N, i as u64, f))
            .collect()
    }

    #[test]
    fn a_complete_transcript_parses() {
        let bytes = stream(&[
            r#"{"hello":{"runtime":"python 3.11"}}"#,
            r#"{"loaded":null}"#,
            r#"{"test":0,"result":{"ok":{"int":"3"}},"cpu_us":5}"#,
            r#"{"test":1,"result":{"steps":[{"ok":null},{"error":{"kind":"ValueError","message":"x"}}]},"cpu_us":7}"#,
            r#"{"done":null}"#,
        ]);
        let t = parse_transcript(&bytes, N, false, 1 << 20);
        assert_eq!(t.violation, None);
        assert!(t.done);
        assert_eq!(t.runtime.as_deref(), Some("python 3.11"));
        assert_eq!(t.tests.len(), 2);
        assert_eq!(t.tests[0].outcome, Outcome::Single(Ok(Value::int(3))));
        assert!(matches!(&t.tests[1].outcome, Outcome::Steps(s) if s.len() == 2 && s[1].is_err()));
    }

    #[test]
    fn a_wrong_nonce_is_a_violation() {
        let mut bytes = stream(&[r#"{"hello":{"runtime":"x"}}"#, r#"{"loaded":null}"#]);
        bytes.extend(frame(
            "forged",
            2,
            r#"{"test":0,"result":{"ok":null},"cpu_us":1}"#,
        ));
        let t = parse_transcript(&bytes, N, false, 1 << 20);
        assert!(t.violation.unwrap().contains("wrong nonce"));
        assert!(t.tests.is_empty());
    }

    #[test]
    fn out_of_turn_results_are_violations() {
        let bytes = stream(&[
            r#"{"hello":{"runtime":"x"}}"#,
            r#"{"loaded":null}"#,
            r#"{"test":1,"result":{"ok":null},"cpu_us":1}"#,
        ]);
        let t = parse_transcript(&bytes, N, false, 1 << 20);
        assert!(t.violation.unwrap().contains("out of turn"));
        let mut bytes = stream(&[r#"{"hello":{"runtime":"x"}}"#, r#"{"loaded":null}"#]);
        bytes.extend(frame(N, 5, r#"{"done":null}"#));
        assert!(
            parse_transcript(&bytes, N, false, 1 << 20)
                .violation
                .unwrap()
                .contains("sequence")
        );
    }

    #[test]
    fn frames_after_done_are_violations() {
        let bytes = stream(&[
            r#"{"hello":{"runtime":"x"}}"#,
            r#"{"loaded":null}"#,
            r#"{"done":null}"#,
            r#"{"done":null}"#,
        ]);
        let t = parse_transcript(&bytes, N, false, 1 << 20);
        assert!(t.done);
        assert!(t.violation.unwrap().contains("after the end"));
    }

    #[test]
    fn a_cut_frame_is_truncation_not_violation() {
        let bytes = stream(&[r#"{"hello":{"runtime":"x"}}"#, r#"{"loaded":null}"#]);
        let full = [
            bytes.clone(),
            frame(N, 2, r#"{"test":0,"result":{"ok":null},"cpu_us":1}"#),
        ]
        .concat();
        for cut in bytes.len() + 1..full.len() {
            let t = parse_transcript(&full[..cut], N, false, 1 << 20);
            assert!(t.truncated, "cut at {cut}");
            assert_eq!(t.violation, None);
            assert!(t.tests.is_empty());
        }
    }

    #[test]
    fn bare_numbers_and_untyped_values_are_rejected() {
        let bytes = stream(&[
            r#"{"hello":{"runtime":"x"}}"#,
            r#"{"loaded":null}"#,
            r#"{"test":0,"result":{"ok":3},"cpu_us":1}"#,
        ]);
        assert!(
            parse_transcript(&bytes, N, false, 1 << 20)
                .violation
                .is_some()
        );
    }

    #[test]
    fn oversized_frames_are_rejected_before_reading_them() {
        let mut bytes = stream(&[r#"{"hello":{"runtime":"x"}}"#]);
        bytes.extend_from_slice(format!("PASSRATE {N} 1 999999999\n").as_bytes());
        let t = parse_transcript(&bytes, N, false, 1 << 20);
        assert!(t.violation.unwrap().contains("exceeds"));
    }

    #[test]
    fn request_never_contains_expected_values_by_construction() {
        let tests = [RequestTest::Call {
            args: vec![Value::str("in")],
        }];
        let req = Request {
            nonce: N,
            mode: Mode::Tests,
            entry: "f",
            class: None,
            file: "solution.py",
            check_file: None,
            tests: &tests,
        };
        let doc: Json = serde_json::from_slice(&req.to_bytes()).unwrap();
        assert_eq!(doc["tests"][0], json!({"args": ["in"]}));
    }
}
