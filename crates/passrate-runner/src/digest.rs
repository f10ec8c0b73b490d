//! Digests of expected values: how a test whose expected result is too large to store whole
//! ([`Expected::ReturnsDigest`](passrate_schema::Expected::ReturnsDigest)) is judged.
//!
//! The digest is blake3 over the value's canonical encoding
//! ([`Value::canonical_bytes`]), computed on the host from a decoded value: at intake from
//! the reference's result, at judging from the candidate's. Equal digests mean equal canonical
//! encodings, which is what the strict comparator calls equal for values without floats (sets
//! and maps in any order), so a digest is only ever taken of such a value under an exact
//! comparator ([`digestible`]). Like every comparison, it happens outside the sandbox; the
//! candidate never sees the digest.

use passrate_schema::{Comparator, Value, ValueDigest};

/// The digest of `value` (see the module documentation).
pub fn digest(value: &Value) -> ValueDigest {
    let bytes = value.canonical_bytes();
    ValueDigest {
        blake3: blake3::hash(&bytes).to_hex().to_string(),
        bytes: bytes.len() as u64,
        type_name: value.type_name().to_owned(),
    }
}

/// Whether a test expecting `value` under `comparator` may store a digest instead: the digest
/// is strict equality, so no tolerance, reordering or int/float equivalence may apply, and an
/// opaque value (equal to nothing) is never an expected value.
pub fn digestible(value: &Value, comparator: &Comparator) -> bool {
    comparator.is_exact() && !value.contains_float() && !contains_opaque(value)
}

fn contains_opaque(value: &Value) -> bool {
    match value {
        Value::Opaque(_) => true,
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => xs.iter().any(contains_opaque),
        Value::Map(kv) => kv
            .iter()
            .any(|(k, v)| contains_opaque(k) || contains_opaque(v)),
        _ => false,
    }
}

/// Whether the candidate's `actual` value is the one `expected` is the digest of. An opaque
/// value (or one holding an opaque) matches nothing, as in the comparators.
pub fn matches(expected: &ValueDigest, actual: &Value) -> bool {
    if contains_opaque(actual) {
        return false;
    }
    let bytes = actual.canonical_bytes();
    bytes.len() as u64 == expected.bytes
        && blake3::hash(&bytes).to_hex().as_str() == expected.blake3
}

/// Why `actual` is not the value `expected` digests, for a human. Says nothing about the
/// expected value beyond its type and encoded size (the tests with digests are hidden).
pub fn explain(expected: &ValueDigest, actual: &Value) -> String {
    if let Value::Opaque(name) = actual {
        return format!("returned a value of type {name}, which is not comparable");
    }
    if actual.type_name() != expected.type_name {
        return format!(
            "expected {}, got {}",
            expected.type_name,
            actual.type_name()
        );
    }
    format!(
        "wrong {} value (compared by digest, {} bytes encoded)",
        expected.type_name,
        actual.canonical_bytes().len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use passrate_schema::Integer;

    fn huge(digits: usize, last: char) -> Value {
        Value::Int(Integer::parse(&format!("18{}{last}", "0".repeat(digits))).unwrap())
    }

    #[test]
    fn a_digest_matches_the_same_value_only() {
        let expected = digest(&huge(100_000, '0'));
        assert_eq!(expected.type_name, "int");
        assert!(matches(&expected, &huge(100_000, '0')));
        assert!(!matches(&expected, &huge(100_000, '1')));
        assert!(!matches(&expected, &huge(99_999, '0')));
        assert!(!matches(
            &expected,
            &Value::str(format!("18{}0", "0".repeat(100_000)))
        ));
        assert!(!matches(&expected, &Value::Opaque("Forged".into())));
        assert!(explain(&expected, &Value::str("x")).contains("expected int, got string"));
    }

    #[test]
    fn sets_and_maps_match_in_any_order() {
        let a = Value::Set(vec![Value::int(3), Value::int(1), Value::int(2)]);
        let b = Value::Set(vec![Value::int(1), Value::int(2), Value::int(3)]);
        assert!(matches(&digest(&a), &b));
        let list = Value::List(vec![Value::int(1), Value::int(2), Value::int(3)]);
        assert!(!matches(&digest(&a), &list));
        let m1 = Value::Map(vec![
            (Value::str("a"), Value::int(1)),
            (Value::str("b"), Value::int(2)),
        ]);
        let m2 = Value::Map(vec![
            (Value::str("b"), Value::int(2)),
            (Value::str("a"), Value::int(1)),
        ]);
        assert!(matches(&digest(&m1), &m2));
    }

    #[test]
    fn only_exact_comparisons_of_float_free_values_are_digestible() {
        let exact = Comparator::default();
        assert!(digestible(&huge(10, '0'), &exact));
        assert!(!digestible(&Value::List(vec![Value::Float(1.5)]), &exact));
        assert!(!digestible(&Value::Opaque("X".into()), &exact));
        let tolerant = Comparator {
            abs_tol: Some(1e-6),
            ..Comparator::default()
        };
        assert!(!digestible(&huge(10, '0'), &tolerant));
    }
}
