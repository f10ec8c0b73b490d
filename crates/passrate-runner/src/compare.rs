//! Comparators: trusted host code deciding whether a returned value equals the expected one.
//!
//! Strict by default: types must match exactly (`True != 1`, `"5" != 5`, `(1, 2) != [1, 2]`),
//! floats compare by value (NaN equals NaN: a reference that returns NaN is matched by NaN),
//! maps by key regardless of order, sets regardless of order. A [`Comparator`] relaxes this
//! only in the ways it names. Opaque values equal nothing.
//!
//! Two host-side adjustments follow the task's declaration and the upstream harness's `==`
//! ([`crate::declared`] applies them once per evaluation): [`conform`] rewrites an expected
//! value to the declared return type (a reference's `False` for a declared `int` count is
//! `0`), and [`for_language`] makes ints and floats equal by value where the language's
//! own `==` does (Python's `1 == 1.0`, JavaScript's one number type). Bool never equals an
//! int, and actual values are never rewritten: the candidate's tricks stay visible.

use std::cmp::Ordering;

use passrate_schema::{Comparator, Integer, Language, Value};

use crate::declared::Declared;

/// The comparator `cmp` under `language`'s equality: Python's and JavaScript's `==` equate
/// an int and a float of the same value, so they compare numerically; Java's answers carry
/// their declared static types and stay strict.
pub fn for_language(cmp: &Comparator, language: Language) -> Comparator {
    let mut out = cmp.clone();
    if matches!(language, Language::Python | Language::Javascript) {
        out.numeric = true;
    }
    out
}

/// `expected` rewritten to the `declared` type: for a declared int (or JavaScript number) a
/// bool is its int, for a declared float a bool or an int is the float of the same value;
/// inside containers element by element. Anything else, and any value the declaration does
/// not describe, is kept as it is.
pub fn conform(expected: &Value, declared: &Declared) -> Value {
    match (declared, expected) {
        (Declared::Unknown, v) => v.clone(),
        (Declared::Optional(_), Value::Null) => Value::Null,
        (Declared::Optional(inner), v) => conform(v, inner),
        (Declared::Int | Declared::Number, Value::Bool(b)) => Value::int(i64::from(*b)),
        (Declared::Float, Value::Bool(b)) => Value::Float(f64::from(u8::from(*b))),
        (Declared::Float, Value::Int(i)) => Value::Float(i.to_f64()),
        (Declared::Seq(item) | Declared::Set(item), Value::List(items)) => {
            Value::List(items.iter().map(|v| conform(v, item)).collect())
        }
        (Declared::Seq(item) | Declared::Set(item), Value::Tuple(items)) => {
            Value::Tuple(items.iter().map(|v| conform(v, item)).collect())
        }
        (Declared::Seq(item) | Declared::Set(item), Value::Set(items)) => {
            Value::Set(items.iter().map(|v| conform(v, item)).collect())
        }
        (Declared::Tuple(types), Value::Tuple(items) | Value::List(items))
            if types.len() == items.len() =>
        {
            let out = items
                .iter()
                .zip(types)
                .map(|(v, t)| conform(v, t))
                .collect();
            match expected {
                Value::Tuple(_) => Value::Tuple(out),
                _ => Value::List(out),
            }
        }
        (Declared::Map(k, v), Value::Map(entries)) => Value::Map(
            entries
                .iter()
                .map(|(key, value)| (conform(key, k), conform(value, v)))
                .collect(),
        ),
        (_, v) => v.clone(),
    }
}

/// Whether `actual` is acceptable for `expected` under `cmp`.
pub fn matches(expected: &Value, actual: &Value, cmp: &Comparator) -> bool {
    eq(&normalize(expected, cmp), &normalize(actual, cmp), cmp)
}

/// Why `actual` does not match `expected`, for a human. The expected value is shown only when
/// `reveal` is set (public tests): hidden tests must not leak their expected outputs.
pub fn explain(expected: &Value, actual: &Value, cmp: &Comparator, reveal: bool) -> String {
    let e_kind = kind(expected, cmp);
    let a_kind = kind(actual, cmp);
    if let Value::Opaque(name) = actual {
        return format!("returned a value of type {name}, which is not comparable");
    }
    if e_kind != a_kind {
        return format!("expected {e_kind}, got {a_kind}");
    }
    if reveal {
        format!("expected {}, got {}", short(expected), short(actual))
    } else {
        format!("wrong {e_kind} value")
    }
}

fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 200 {
        let cut: String = text.chars().take(200).collect();
        format!("{cut}…")
    } else {
        text
    }
}

fn kind(v: &Value, cmp: &Comparator) -> &'static str {
    match v {
        Value::Int(_) | Value::Float(_) if cmp.numeric => "number",
        Value::List(_) | Value::Tuple(_) | Value::Set(_) if cmp.as_set => "collection",
        other => other.type_name(),
    }
}

/// Puts unordered collections into a canonical order so that comparison is pairwise.
fn normalize(v: &Value, cmp: &Comparator) -> Value {
    match v {
        Value::List(items) | Value::Tuple(items) if cmp.as_set => set_of(items, cmp),
        Value::Set(items) => set_of(items, cmp),
        Value::List(items) => {
            let mut out: Vec<Value> = items.iter().map(|i| normalize(i, cmp)).collect();
            if cmp.unordered {
                out.sort_by(total_order);
            }
            Value::List(out)
        }
        Value::Tuple(items) => {
            let mut out: Vec<Value> = items.iter().map(|i| normalize(i, cmp)).collect();
            if cmp.unordered {
                out.sort_by(total_order);
            }
            Value::Tuple(out)
        }
        Value::Map(entries) => {
            let mut out: Vec<(Value, Value)> = entries
                .iter()
                .map(|(k, v)| (normalize(k, cmp), normalize(v, cmp)))
                .collect();
            out.sort_by(|a, b| total_order(&a.0, &b.0));
            Value::Map(out)
        }
        other => other.clone(),
    }
}

fn set_of(items: &[Value], cmp: &Comparator) -> Value {
    let mut out: Vec<Value> = items.iter().map(|i| normalize(i, cmp)).collect();
    out.sort_by(total_order);
    out.dedup_by(|a, b| eq(a, b, cmp));
    Value::Set(out)
}

fn eq(e: &Value, a: &Value, cmp: &Comparator) -> bool {
    match (e, a) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Float(x), Value::Float(y)) => float_eq(*x, *y, cmp),
        (Value::Int(i), Value::Float(f)) | (Value::Float(f), Value::Int(i)) if cmp.numeric => {
            int_float_eq(i, *f, cmp)
        }
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::List(x), Value::List(y))
        | (Value::Tuple(x), Value::Tuple(y))
        | (Value::Set(x), Value::Set(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq(p, q, cmp))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| eq(k1, k2, cmp) && eq(v1, v2, cmp))
        }
        _ => false,
    }
}

fn float_eq(x: f64, y: f64, cmp: &Comparator) -> bool {
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if x == y {
        return true;
    }
    if x.is_infinite() || y.is_infinite() {
        return false;
    }
    let diff = (x - y).abs();
    let abs_ok = cmp.abs_tol.is_some_and(|t| diff <= t);
    let rel_ok = cmp
        .rel_tol
        .is_some_and(|t| diff <= t * x.abs().max(y.abs()));
    abs_ok || rel_ok
}

fn int_float_eq(i: &Integer, f: f64, cmp: &Comparator) -> bool {
    // Exact when the float holds an integer, as Python compares them (`10**30 != 1e30`):
    // `{:.0}` prints a float's exact value, so no big int is rounded through f64.
    if f.is_finite() && f.fract() == 0.0 {
        let exact = format!("{f:.0}");
        if i.as_str() == exact || (exact == "-0" && i.as_str() == "0") {
            return true;
        }
    }
    let tolerant = cmp.abs_tol.is_some() || cmp.rel_tol.is_some();
    tolerant && float_eq(i.to_f64(), f, cmp)
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Int(_) | Value::Float(_) => 2,
        Value::Str(_) => 3,
        Value::List(_) => 4,
        Value::Tuple(_) => 5,
        Value::Set(_) => 6,
        Value::Map(_) => 7,
        Value::Opaque(_) => 8,
    }
}

fn int_order(a: &Integer, b: &Integer) -> Ordering {
    let (an, bn) = (a.as_str().starts_with('-'), b.as_str().starts_with('-'));
    match (an, bn) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => {
            let by_magnitude = a
                .as_str()
                .len()
                .cmp(&b.as_str().len())
                .then_with(|| a.as_str().cmp(b.as_str()));
            if an {
                by_magnitude.reverse()
            } else {
                by_magnitude
            }
        }
    }
}

/// A total order on values used only to canonicalise unordered collections.
pub(crate) fn total_order(a: &Value, b: &Value) -> Ordering {
    rank(a).cmp(&rank(b)).then_with(|| match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Int(x), Value::Int(y)) => int_order(x, y),
        (Value::Float(x), Value::Float(y)) => x.total_cmp(y),
        (Value::Int(x), Value::Float(y)) => x.to_f64().total_cmp(y).then(Ordering::Less),
        (Value::Float(x), Value::Int(y)) => x.total_cmp(&y.to_f64()).then(Ordering::Greater),
        (Value::Str(x), Value::Str(y)) => x.cmp(y),
        (Value::List(x), Value::List(y))
        | (Value::Tuple(x), Value::Tuple(y))
        | (Value::Set(x), Value::Set(y)) => seq_order(x, y),
        (Value::Map(x), Value::Map(y)) => {
            for ((k1, v1), (k2, v2)) in x.iter().zip(y) {
                let o = total_order(k1, k2).then_with(|| total_order(v1, v2));
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Opaque(x), Value::Opaque(y)) => x.cmp(y),
        _ => Ordering::Equal,
    })
}

fn seq_order(x: &[Value], y: &[Value]) -> Ordering {
    for (p, q) in x.iter().zip(y) {
        let o = total_order(p, q);
        if o != Ordering::Equal {
            return o;
        }
    }
    x.len().cmp(&y.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn exact() -> Comparator {
        Comparator::default()
    }

    fn i(n: i64) -> Value {
        Value::int(n)
    }

    #[test]
    fn strict_types() {
        assert!(!matches(&i(1), &Value::Bool(true), &exact()));
        assert!(!matches(&Value::Bool(true), &i(1), &exact()));
        assert!(!matches(&i(5), &Value::str("5"), &exact()));
        assert!(!matches(&i(1), &Value::Float(1.0), &exact()));
        assert!(!matches(
            &Value::Tuple(vec![i(1), i(2)]),
            &Value::List(vec![i(1), i(2)]),
            &exact()
        ));
        assert!(matches(
            &Value::List(vec![i(1), i(2)]),
            &Value::List(vec![i(1), i(2)]),
            &exact()
        ));
        assert!(!matches(
            &Value::List(vec![i(1), i(2)]),
            &Value::List(vec![i(2), i(1)]),
            &exact()
        ));
    }

    #[test]
    fn opaque_equals_nothing() {
        let o = Value::Opaque("AlwaysEqual".into());
        assert!(!matches(&o, &o, &exact()));
        assert!(!matches(&i(1), &o, &exact()));
    }

    #[test]
    fn floats() {
        assert!(matches(
            &Value::Float(f64::NAN),
            &Value::Float(f64::NAN),
            &exact()
        ));
        assert!(!matches(
            &Value::Float(0.3),
            &Value::Float(0.1 + 0.2),
            &exact()
        ));
        let tol = Comparator {
            abs_tol: Some(1e-6),
            ..Comparator::default()
        };
        assert!(matches(&Value::Float(0.3), &Value::Float(0.1 + 0.2), &tol));
        assert!(!matches(&Value::Float(0.3), &Value::Float(0.31), &tol));
        assert!(!matches(
            &Value::Float(f64::INFINITY),
            &Value::Float(1e308),
            &tol
        ));
        let rel = Comparator {
            rel_tol: Some(1e-9),
            ..Comparator::default()
        };
        assert!(matches(
            &Value::Float(1e20),
            &Value::Float(1e20 + 1e10),
            &rel
        ));
        assert!(!matches(&Value::Float(1e20), &Value::Float(1.1e20), &rel));
    }

    #[test]
    fn numeric_equates_ints_and_floats() {
        let num = Comparator {
            numeric: true,
            ..Comparator::default()
        };
        assert!(matches(&i(3), &Value::Float(3.0), &num));
        assert!(matches(&Value::Float(3.0), &i(3), &num));
        assert!(!matches(&i(3), &Value::Float(3.5), &num));
        assert!(!matches(&i(1), &Value::Bool(true), &num));
        let big = Value::Int(Integer::parse("123456789012345678901234567890").unwrap());
        assert!(!matches(&big, &Value::Float(1.0), &num));
    }

    #[test]
    fn maps_and_sets_ignore_order() {
        let m1 = Value::Map(vec![(i(1), Value::str("a")), (i(2), Value::str("b"))]);
        let m2 = Value::Map(vec![(i(2), Value::str("b")), (i(1), Value::str("a"))]);
        assert!(matches(&m1, &m2, &exact()));
        let m3 = Value::Map(vec![(i(2), Value::str("a")), (i(1), Value::str("b"))]);
        assert!(!matches(&m1, &m3, &exact()));
        assert!(matches(
            &Value::Set(vec![i(1), i(2)]),
            &Value::Set(vec![i(2), i(1)]),
            &exact()
        ));
        assert!(!matches(
            &Value::Set(vec![i(1), i(2)]),
            &Value::Set(vec![i(1)]),
            &exact()
        ));
    }

    #[test]
    fn unordered_and_as_set() {
        let un = Comparator {
            unordered: true,
            ..Comparator::default()
        };
        assert!(matches(
            &Value::List(vec![i(1), i(2), i(2)]),
            &Value::List(vec![i(2), i(1), i(2)]),
            &un
        ));
        assert!(!matches(
            &Value::List(vec![i(1), i(2), i(2)]),
            &Value::List(vec![i(1), i(1), i(2)]),
            &un
        ));
        let set = Comparator {
            as_set: true,
            ..Comparator::default()
        };
        assert!(matches(
            &Value::List(vec![i(1), i(2), i(2)]),
            &Value::Set(vec![i(2), i(1)]),
            &set
        ));
        assert!(!matches(
            &Value::List(vec![i(1), i(3)]),
            &Value::List(vec![i(1)]),
            &set
        ));
    }

    #[test]
    fn explanations_hide_hidden_expected_values() {
        let text = explain(&Value::str("secret"), &Value::str("guess"), &exact(), false);
        assert!(!text.contains("secret"));
        let text = explain(&Value::str("secret"), &Value::str("guess"), &exact(), true);
        assert!(text.contains("secret"));
        assert_eq!(
            explain(&i(1), &Value::Float(1.0), &exact(), false),
            "expected int, got float"
        );
    }

    fn python() -> Comparator {
        for_language(&exact(), Language::Python)
    }

    fn float_list(items: &[f64]) -> Value {
        Value::List(items.iter().map(|&f| Value::Float(f)).collect())
    }

    #[test]
    fn python_and_javascript_equate_ints_and_floats_as_their_eq_does() {
        for language in [Language::Python, Language::Javascript] {
            let cmp = for_language(&exact(), language);
            assert!(matches(&i(6), &Value::Float(6.0), &cmp), "{language}");
            assert!(matches(&Value::Float(6.0), &i(6), &cmp), "{language}");
            assert!(!matches(&i(6), &Value::Float(6.5), &cmp), "{language}");
            // Bool and str stay distinct from numbers.
            assert!(!matches(&i(1), &Value::Bool(true), &cmp), "{language}");
            assert!(!matches(&Value::Bool(false), &i(0), &cmp), "{language}");
            assert!(!matches(&i(5), &Value::str("5"), &cmp), "{language}");
            assert!(
                !matches(&i(1), &Value::Opaque("FloatLike".into()), &cmp),
                "{language}"
            );
        }
        // Java's answers carry their static types: strict.
        let java = for_language(&exact(), Language::Java);
        assert!(!matches(&i(6), &Value::Float(6.0), &java));
        assert!(matches(&i(6), &i(6), &java));
    }

    #[test]
    fn ints_equal_floats_exactly_without_a_tolerance() {
        // Python: 10**30 != 1e30 (1e30 is 1000000000000000019884624838656).
        let big = Value::Int(Integer::parse("1000000000000000000000000000000").unwrap());
        assert!(!matches(&big, &Value::Float(1e30), &python()));
        let exact_big = Value::Int(Integer::parse("1000000000000000019884624838656").unwrap());
        assert!(matches(&exact_big, &Value::Float(1e30), &python()));
        assert!(matches(&i(0), &Value::Float(-0.0), &python()));
        assert!(matches(&i(-3), &Value::Float(-3.0), &python()));
        // With a tolerance, within it.
        let tol = for_language(
            &Comparator {
                abs_tol: Some(1e-6),
                ..Comparator::default()
            },
            Language::Python,
        );
        assert!(matches(&i(3), &Value::Float(3.000_000_1), &tol));
        assert!(!matches(&i(3), &Value::Float(3.01), &tol));
    }

    #[test]
    fn a_declared_int_turns_an_expected_bool_into_its_int() {
        let expected = conform(&Value::Bool(false), &Declared::Int);
        assert_eq!(expected, i(0));
        assert!(matches(&expected, &i(0), &python()));
        assert!(matches(&expected, &i(0), &exact()));
        // The answer's own bool is not rewritten: it does not equal the int.
        assert!(!matches(&expected, &Value::Bool(false), &python()));
        assert!(!matches(
            &conform(&Value::Bool(true), &Declared::Int),
            &Value::Bool(true),
            &python()
        ));
        assert!(!matches(&expected, &i(1), &python()));
        // An expected int stays an int; True for 1 still fails.
        assert_eq!(conform(&i(1), &Declared::Int), i(1));
        assert!(!matches(
            &conform(&i(1), &Declared::Int),
            &Value::Bool(true),
            &python()
        ));
        // JavaScript's number likewise.
        assert_eq!(conform(&Value::Bool(true), &Declared::Number), i(1));
    }

    #[test]
    fn a_declared_float_turns_an_expected_int_into_its_float() {
        let expected = conform(&i(6), &Declared::Float);
        assert_eq!(expected, Value::Float(6.0));
        // Java answers return a double; Python answers may return either.
        assert!(matches(&expected, &Value::Float(6.0), &exact()));
        assert!(matches(&expected, &i(6), &python()));
        assert!(!matches(&expected, &i(7), &python()));
        assert!(!matches(&expected, &Value::str("6"), &python()));
        assert!(!matches(&expected, &Value::Bool(true), &python()));
        assert_eq!(
            conform(&Value::Bool(true), &Declared::Float),
            Value::Float(1.0)
        );
    }

    #[test]
    fn containers_conform_element_by_element() {
        let seq = |t| Declared::Seq(Box::new(t));
        let expected = conform(
            &Value::List(vec![i(1), i(3), Value::Float(2.0), Value::Float(8.0)]),
            &seq(Declared::Float),
        );
        assert_eq!(expected, float_list(&[1.0, 3.0, 2.0, 8.0]));
        let honest = Value::List(vec![Value::Float(1.0), i(3), Value::Float(2.0), i(8)]);
        assert!(matches(&expected, &honest, &python()));
        let exploit = Value::List(vec![Value::Bool(true), i(3), Value::Float(2.0), i(8)]);
        assert!(!matches(&expected, &exploit, &python()));
        assert!(!matches(
            &expected,
            &Value::Opaque("FloatList".into()),
            &python()
        ));
        // A list of ints declared `List<Integer>` keeps its ints; bools become ints.
        assert_eq!(
            conform(
                &Value::List(vec![Value::Bool(true), i(2)]),
                &seq(Declared::Int)
            ),
            Value::List(vec![i(1), i(2)])
        );
        // Tuples by position, maps by key and value, optionals around their value.
        let pair = Declared::Tuple(vec![Declared::Float, Declared::Str]);
        assert_eq!(
            conform(&Value::Tuple(vec![i(2), Value::str("a")]), &pair),
            Value::Tuple(vec![Value::Float(2.0), Value::str("a")])
        );
        let map = Declared::Map(Box::new(Declared::Str), Box::new(Declared::Int));
        assert_eq!(
            conform(
                &Value::Map(vec![(Value::str("k"), Value::Bool(false))]),
                &map
            ),
            Value::Map(vec![(Value::str("k"), i(0))])
        );
        let opt = Declared::Optional(Box::new(Declared::Int));
        assert_eq!(conform(&Value::Null, &opt), Value::Null);
        assert_eq!(conform(&Value::Bool(true), &opt), i(1));
    }

    #[test]
    fn nothing_declared_changes_nothing() {
        for v in [
            Value::Bool(false),
            i(3),
            Value::Float(2.5),
            Value::str("x"),
            Value::List(vec![Value::Bool(true), i(1)]),
        ] {
            assert_eq!(conform(&v, &Declared::Unknown), v);
        }
        // Undeclared, bool stays distinct from int under Python's equality.
        assert!(!matches(&Value::Bool(false), &i(0), &python()));
        // Values the declaration does not describe are kept (a str where an int is declared).
        assert_eq!(conform(&Value::str("5"), &Declared::Int), Value::str("5"));
        assert_eq!(conform(&i(5), &Declared::Bool), i(5));
    }

    proptest! {
        #[test]
        fn int_order_agrees_with_i128(a in any::<i64>(), b in any::<i64>()) {
            prop_assert_eq!(int_order(&Integer::from(a), &Integer::from(b)), a.cmp(&b));
        }

        #[test]
        fn unordered_lists_match_their_permutations(mut v in prop::collection::vec(-50i64..50, 0..20), seed in any::<u64>()) {
            let original = Value::List(v.iter().map(|&n| i(n)).collect());
            let len = v.len().max(1);
            v.rotate_left((seed as usize) % len);
            v.reverse();
            let permuted = Value::List(v.iter().map(|&n| i(n)).collect());
            let un = Comparator { unordered: true, ..Comparator::default() };
            prop_assert!(matches(&original, &permuted, &un));
        }
    }
}
