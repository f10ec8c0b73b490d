//! Huge integers cross the channel exactly and without eating the candidate's budget.
//! Regression: CPython before 3.12 turns ints into decimal text in quadratic time (half a
//! million digits take about 4 s, twice the default CPU limit), so the Python harness timed
//! out encoding results the channel could still carry; it now converts large ints by halves.

mod common;

use common::{assert_passes, call, int, task, variant};
use passrate_schema::{Integer, Language, Value};

#[test]
fn million_digit_results_are_encoded_exactly_within_the_budget() {
    // 18 · 10^499998 (HumanEval/83's `starts_one_ends(500000)`), a negative one, and a
    // value just above the fast path's threshold that is not a power of ten; together under
    // the 1 MiB result channel.
    let code = "def f(k):\n    if k == 0:\n        return 18 * 10 ** (5 * 10 ** 5 - 2)\n    if k == 1:\n        return -(10 ** 200000) - 7\n    return 2 ** 40000 - 1\n";
    let big = Value::Int(Integer::parse(&format!("18{}", "0".repeat(499_998))).unwrap());
    let negative = Value::Int(Integer::parse(&format!("-1{}7", "0".repeat(199_999))).unwrap());
    // 2^40000 − 1, computed here by repeated doubling of decimal digits.
    let mut digits = vec![1u8];
    for _ in 0..40_000 {
        let mut carry = 0;
        for d in digits.iter_mut() {
            let v = *d * 2 + carry;
            *d = v % 10;
            carry = v / 10;
        }
        if carry > 0 {
            digits.push(carry);
        }
    }
    digits[0] -= 1; // 2^n ends in 2, 4, 6 or 8: no borrow
    let text: String = digits.iter().rev().map(|d| char::from(b'0' + d)).collect();
    let mersenne = Value::Int(Integer::parse(&text).unwrap());
    let t = task(
        "huge/ints",
        vec![(Language::Python, variant("f", None, code))],
        vec![
            call(vec![int(0)], big),
            call(vec![int(1)], negative),
            call(vec![int(2)], mersenne),
        ],
    );
    assert_passes(&t, Language::Python, code);
}
