//! The canonical typed value shared by the Python, JavaScript and Java harnesses.
//!
//! Wire encoding (JSON), chosen so that no two distinct values share an encoding:
//!
//! | value  | encoding                                            |
//! |--------|-----------------------------------------------------|
//! | null   | `null`                                              |
//! | bool   | `true` / `false`                                    |
//! | string | a JSON string                                       |
//! | list   | a JSON array                                        |
//! | int    | `{"int": "-123"}` (decimal text, arbitrary size)    |
//! | float  | `{"float": 1.5}` or `{"float": "nan"/"inf"/"-inf"}` |
//! | tuple  | `{"tuple": [...]}`                                  |
//! | set    | `{"set": [...]}`                                    |
//! | map    | `{"map": [[key, value], ...]}` (any key type)       |
//! | opaque | `{"opaque": "TypeName"}`: a value the harness could not encode; equal to nothing |
//!
//! Harnesses encode only exact built-in types (`type(x) is int`, not a subclass), so an
//! object that overrides equality can never pass for an expected value.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An integer of arbitrary size, stored as canonical decimal text (no leading zeros, no `+`,
/// no `-0`), so equality of the text is equality of the numbers.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Integer(String);

impl Integer {
    /// Parses decimal text, normalising it. Returns `None` if it is not an integer.
    pub fn parse(text: &str) -> Option<Integer> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let trimmed = digits.trim_start_matches('0');
        if trimmed.is_empty() {
            return Some(Integer("0".to_owned()));
        }
        let mut canonical = String::with_capacity(trimmed.len() + 1);
        if negative {
            canonical.push('-');
        }
        canonical.push_str(trimmed);
        Some(Integer(canonical))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn to_i64(&self) -> Option<i64> {
        self.0.parse().ok()
    }

    /// Nearest `f64` (used only by comparators that allow int/float equivalence).
    pub fn to_f64(&self) -> f64 {
        self.0.parse().unwrap_or(f64::NAN)
    }
}

impl From<i64> for Integer {
    fn from(n: i64) -> Self {
        Integer(n.to_string())
    }
}

impl fmt::Debug for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A typed value: an argument, a return value or an expected value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(Integer),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    Set(Vec<Value>),
    Map(Vec<(Value, Value)>),
    /// A value of a type the harness does not encode; never equal to anything.
    Opaque(String),
}

/// A JSON document that is not a valid value encoding.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("invalid value encoding at {path}: {message}")]
pub struct ValueError {
    pub path: String,
    pub message: String,
}

impl Value {
    pub fn int(n: i64) -> Value {
        Value::Int(Integer::from(n))
    }

    pub fn str(s: impl Into<String>) -> Value {
        Value::Str(s.into())
    }

    /// The name of the value's type, as verdicts report it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Set(_) => "set",
            Value::Map(_) => "map",
            Value::Opaque(_) => "opaque",
        }
    }

    /// Encodes into the wire JSON form.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{Value as J, json};
        match self {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => json!({ "int": i.as_str() }),
            Value::Float(f) => {
                if f.is_nan() {
                    json!({ "float": "nan" })
                } else if f.is_infinite() {
                    json!({ "float": if *f > 0.0 { "inf" } else { "-inf" } })
                } else {
                    json!({ "float": f })
                }
            }
            Value::Str(s) => J::String(s.clone()),
            Value::List(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Tuple(items) => {
                json!({ "tuple": items.iter().map(Value::to_json).collect::<Vec<_>>() })
            }
            Value::Set(items) => {
                json!({ "set": items.iter().map(Value::to_json).collect::<Vec<_>>() })
            }
            Value::Map(entries) => json!({
                "map": entries
                    .iter()
                    .map(|(k, v)| J::Array(vec![k.to_json(), v.to_json()]))
                    .collect::<Vec<_>>()
            }),
            Value::Opaque(name) => json!({ "opaque": name }),
        }
    }

    /// Decodes the wire JSON form, naming the JSON path of the first problem.
    pub fn from_json(json: &serde_json::Value) -> Result<Value, ValueError> {
        decode(json, &mut String::from("$"), 0)
    }
}

impl Value {
    /// The canonical encoding that digests of expected values hash
    /// ([`crate::Expected::ReturnsDigest`]): the compact wire JSON, except that a set's members
    /// and a map's entries are sorted by their own canonical encoding and a set's duplicate
    /// members are removed. Two values without floats or opaques that the strict comparator
    /// calls equal (sets and maps regardless of order) encode to the same bytes, and values it
    /// tells apart never do.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_canonical(&mut out);
        out
    }

    fn write_canonical(&self, out: &mut Vec<u8>) {
        fn items(out: &mut Vec<u8>, items: &[Value]) {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                item.write_canonical(out);
            }
            out.push(b']');
        }
        match self {
            Value::Null | Value::Bool(_) | Value::Float(_) | Value::Opaque(_) | Value::Str(_) => {
                out.extend_from_slice(self.to_json().to_string().as_bytes())
            }
            Value::Int(i) => {
                out.extend_from_slice(b"{\"int\":\"");
                out.extend_from_slice(i.as_str().as_bytes());
                out.extend_from_slice(b"\"}");
            }
            Value::List(xs) => items(out, xs),
            Value::Tuple(xs) => {
                out.extend_from_slice(b"{\"tuple\":");
                items(out, xs);
                out.push(b'}');
            }
            Value::Set(xs) => {
                let mut members: Vec<Vec<u8>> = xs.iter().map(Value::canonical_bytes).collect();
                members.sort();
                members.dedup();
                out.extend_from_slice(b"{\"set\":[");
                out.extend_from_slice(&members.join(&b','));
                out.extend_from_slice(b"]}");
            }
            Value::Map(entries) => {
                let mut pairs: Vec<Vec<u8>> = entries
                    .iter()
                    .map(|(k, v)| {
                        let mut pair = vec![b'['];
                        k.write_canonical(&mut pair);
                        pair.push(b',');
                        v.write_canonical(&mut pair);
                        pair.push(b']');
                        pair
                    })
                    .collect();
                pairs.sort();
                out.extend_from_slice(b"{\"map\":[");
                out.extend_from_slice(&pairs.join(&b','));
                out.extend_from_slice(b"]}");
            }
        }
    }

    /// Whether the value holds a float anywhere (its digest would not honour a tolerance).
    pub fn contains_float(&self) -> bool {
        match self {
            Value::Float(_) => true,
            Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => {
                xs.iter().any(Value::contains_float)
            }
            Value::Map(kv) => kv
                .iter()
                .any(|(k, v)| k.contains_float() || v.contains_float()),
            _ => false,
        }
    }
}

/// Deeper nesting than this is rejected rather than risking the decoder's stack.
pub const MAX_DEPTH: usize = 200;

fn decode(json: &serde_json::Value, path: &mut String, depth: usize) -> Result<Value, ValueError> {
    use serde_json::Value as J;
    let fail = |path: &String, message: &str| ValueError {
        path: path.clone(),
        message: message.to_owned(),
    };
    if depth > MAX_DEPTH {
        return Err(fail(path, "nested too deeply"));
    }
    let decode_items = |items: &Vec<J>, path: &mut String| -> Result<Vec<Value>, ValueError> {
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            out.push(decode(item, path, depth + 1)?);
            path.truncate(len);
        }
        Ok(out)
    };
    match json {
        J::Null => Ok(Value::Null),
        J::Bool(b) => Ok(Value::Bool(*b)),
        J::String(s) => Ok(Value::Str(s.clone())),
        J::Number(_) => Err(fail(
            path,
            "bare number: use {\"int\": ...} or {\"float\": ...}",
        )),
        J::Array(items) => Ok(Value::List(decode_items(items, path)?)),
        J::Object(map) => {
            if map.len() != 1 {
                return Err(fail(path, "a tagged value has exactly one key"));
            }
            let (tag, inner) = map.iter().next().expect("one entry");
            let len = path.len();
            path.push('.');
            path.push_str(tag);
            let value = match (tag.as_str(), inner) {
                ("int", J::String(s)) => Integer::parse(s)
                    .map(Value::Int)
                    .ok_or_else(|| fail(path, "not a decimal integer")),
                ("int", J::Number(n)) if n.is_i64() || n.is_u64() => Ok(Value::Int(
                    Integer::parse(&n.to_string()).expect("json integer"),
                )),
                ("float", J::Number(n)) => n
                    .as_f64()
                    .map(Value::Float)
                    .ok_or_else(|| fail(path, "not a float")),
                ("float", J::String(s)) => match s.as_str() {
                    "nan" => Ok(Value::Float(f64::NAN)),
                    "inf" => Ok(Value::Float(f64::INFINITY)),
                    "-inf" => Ok(Value::Float(f64::NEG_INFINITY)),
                    _ => Err(fail(path, "float text must be nan, inf or -inf")),
                },
                ("tuple", J::Array(items)) => decode_items(items, path).map(Value::Tuple),
                ("set", J::Array(items)) => decode_items(items, path).map(Value::Set),
                ("map", J::Array(entries)) => {
                    let mut out = Vec::with_capacity(entries.len());
                    for (i, entry) in entries.iter().enumerate() {
                        let len = path.len();
                        path.push_str(&format!("[{i}]"));
                        match entry {
                            J::Array(pair) if pair.len() == 2 => {
                                path.push_str("[0]");
                                let k = decode(&pair[0], path, depth + 1)?;
                                path.truncate(path.len() - 3);
                                path.push_str("[1]");
                                let v = decode(&pair[1], path, depth + 1)?;
                                out.push((k, v));
                            }
                            _ => return Err(fail(path, "a map entry is a [key, value] pair")),
                        }
                        path.truncate(len);
                    }
                    Ok(Value::Map(out))
                }
                ("opaque", J::String(s)) => Ok(Value::Opaque(s.clone())),
                (tag, _) => Err(fail(
                    path,
                    &format!("unknown tag or wrong payload for {tag:?}"),
                )),
            };
            path.truncate(len);
            value
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let json = serde_json::Value::deserialize(deserializer)?;
        Value::from_json(&json).map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Value {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Value".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A typed value: null, bool, string, array (list), or an object with exactly one of the keys int, float, tuple, set, map, opaque. See passrate-schema's value module.",
        })
    }
}

impl fmt::Display for Value {
    /// A compact, Python-like rendering for humans (verdict details, `pool show`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn seq(
            f: &mut fmt::Formatter<'_>,
            open: &str,
            items: &[Value],
            close: &str,
        ) -> fmt::Result {
            f.write_str(open)?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{item}")?;
            }
            f.write_str(close)
        }
        match self {
            Value::Null => f.write_str("None"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::List(items) => seq(f, "[", items, "]"),
            Value::Tuple(items) if items.len() == 1 => write!(f, "({},)", items[0]),
            Value::Tuple(items) => seq(f, "(", items, ")"),
            Value::Set(items) => seq(f, "{", items, "}"),
            Value::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Opaque(name) => write!(f, "<{name}>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::int),
            "-?[1-9][0-9]{0,40}".prop_map(|s| Value::Int(Integer::parse(&s).unwrap())),
            any::<f64>()
                .prop_filter("nan compares unequal", |f| !f.is_nan())
                .prop_map(Value::Float),
            ".*".prop_map(Value::Str),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::List),
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Tuple),
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Set),
                prop::collection::vec((inner.clone(), inner), 0..4).prop_map(Value::Map),
            ]
        })
    }

    proptest! {
        #[test]
        fn wire_encoding_round_trips(v in arb_value()) {
            let text = serde_json::to_string(&v).unwrap();
            let back: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(back, v);
        }
    }

    #[test]
    fn distinct_types_have_distinct_encodings() {
        let values = [
            Value::Bool(true),
            Value::int(1),
            Value::Float(1.0),
            Value::str("1"),
            Value::List(vec![Value::int(1), Value::int(2)]),
            Value::Tuple(vec![Value::int(1), Value::int(2)]),
            Value::Set(vec![Value::int(1), Value::int(2)]),
        ];
        let encoded: Vec<String> = values.iter().map(|v| v.to_json().to_string()).collect();
        for i in 0..encoded.len() {
            for j in i + 1..encoded.len() {
                assert_ne!(encoded[i], encoded[j]);
            }
        }
    }

    #[test]
    fn special_floats_round_trip() {
        for f in [f64::INFINITY, f64::NEG_INFINITY, -0.0] {
            let back = Value::from_json(&Value::Float(f).to_json()).unwrap();
            assert_eq!(back, Value::Float(f));
        }
        let nan = Value::from_json(&Value::Float(f64::NAN).to_json()).unwrap();
        assert!(matches!(nan, Value::Float(x) if x.is_nan()));
    }

    #[test]
    fn integers_are_canonical() {
        assert_eq!(Integer::parse("007").unwrap().as_str(), "7");
        assert_eq!(Integer::parse("-0").unwrap().as_str(), "0");
        assert_eq!(Integer::parse("+12").unwrap().as_str(), "12");
        assert!(Integer::parse("1.0").is_none());
        assert!(Integer::parse("").is_none());
        assert!(Integer::parse("-").is_none());
    }

    #[test]
    fn bad_encodings_name_their_path() {
        let json: serde_json::Value = serde_json::json!([1, {"int": "2"}]);
        let err = Value::from_json(&json).unwrap_err();
        assert_eq!(err.path, "$[0]");
        let json = serde_json::json!({"map": [[{"int": "1"}, {"float": "x"}]]});
        let err = Value::from_json(&json).unwrap_err();
        assert_eq!(err.path, "$.map[0][1].float");
        let json = serde_json::json!({"int": "1", "float": 1.0});
        assert!(Value::from_json(&json).is_err());
    }

    #[test]
    fn canonical_bytes_ignore_set_and_map_order_only() {
        let a = Value::Set(vec![Value::str("b"), Value::int(1), Value::str("b")]);
        let b = Value::Set(vec![Value::int(1), Value::str("b")]);
        assert_eq!(a.canonical_bytes(), b.canonical_bytes());
        let m1 = Value::Map(vec![
            (Value::int(2), Value::Null),
            (Value::int(1), Value::Null),
        ]);
        let m2 = Value::Map(vec![
            (Value::int(1), Value::Null),
            (Value::int(2), Value::Null),
        ]);
        assert_eq!(m1.canonical_bytes(), m2.canonical_bytes());
        let list = Value::List(vec![Value::int(1), Value::int(2)]);
        let reversed = Value::List(vec![Value::int(2), Value::int(1)]);
        let tuple = Value::Tuple(vec![Value::int(1), Value::int(2)]);
        assert_ne!(list.canonical_bytes(), reversed.canonical_bytes());
        assert_ne!(list.canonical_bytes(), tuple.canonical_bytes());
        assert_ne!(
            Value::str("1").canonical_bytes(),
            Value::int(1).canonical_bytes()
        );
        assert_eq!(
            Value::Tuple(vec![Value::int(-7), Value::str("a\"b")]).canonical_bytes(),
            br#"{"tuple":[{"int":"-7"},"a\"b"]}"#.to_vec()
        );
    }

    proptest! {
        #[test]
        fn canonical_bytes_are_valid_wire_json(v in arb_value()) {
            let json: serde_json::Value = serde_json::from_slice(&v.canonical_bytes()).unwrap();
            let back = Value::from_json(&json).unwrap();
            prop_assert_eq!(back.canonical_bytes(), v.canonical_bytes());
        }
    }

    #[test]
    fn deep_nesting_is_rejected_not_overflowed() {
        let mut json = serde_json::json!(null);
        for _ in 0..(MAX_DEPTH + 5) {
            json = serde_json::Value::Array(vec![json]);
        }
        assert!(Value::from_json(&json).is_err());
    }
}
