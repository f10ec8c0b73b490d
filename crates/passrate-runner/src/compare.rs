//! Comparators: trusted host code deciding whether a returned value equals the expected one.
//!
//! Strict by default: types must match exactly (`True != 1`, `"5" != 5`, `(1, 2) != [1, 2]`),
//! floats compare by value (NaN equals NaN: a reference that returns NaN is matched by NaN),
//! maps by key regardless of order, sets regardless of order. A [`Comparator`] relaxes this
//! only in the ways it names. Opaque values equal nothing.

use std::cmp::Ordering;

use passrate_schema::{Comparator, Integer, Value};

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
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
        // Exact when the float holds an integer: no rounding of big ints through f64.
        if i.as_str() == format!("{}", f as i64) {
            return true;
        }
    }
    float_eq(i.to_f64(), f, cmp)
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
