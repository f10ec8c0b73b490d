//! Test inputs generated at intake for call-test tasks whose dataset gives too few: type-aware
//! mutation of the task's own inputs, as EvalPlus builds its "plus" inputs. Numbers move to
//! boundaries, signs, zero and larger magnitudes; strings become empty, shorter, longer,
//! re-cased, reversed, padded with whitespace or given a non-ASCII letter; lists become
//! empty, singletons, sorted, reversed, longer, with duplicates or one element mutated;
//! tuples, sets and maps mutate their members. A mutant is mutated again, so inputs drift
//! further from the seeds as generation goes on.
//!
//! Generation only proposes inputs. What makes one a test is decided in [`super::build`]:
//! the primary reference must return normally and the same value in two separate executions,
//! and every other language's reference must agree with it; expected values always come from
//! the reference run in the sandbox. An input outside what the task silently assumes (a
//! negative count, an empty list where one element is required) shows up there as a raise,
//! a time-out or a disagreement, and is discarded.
//!
//! Deterministic: the same task id and seeds give the same inputs, so the pool rebuilds
//! byte for byte.

use passrate_schema::{Integer, Value};

/// Tests a call-test task should have (public and hidden together) before generation stops.
pub const TARGET_TESTS: usize = 10;

/// Hidden tests a call-test task should have.
pub const TARGET_HIDDEN: usize = 3;

/// Inputs proposed per input still wanted: many are discarded by the references.
pub const PROPOSALS_PER_WANTED: usize = 2;

/// A generated input's canonical encoding stays under this, so that generated tests never
/// dominate an execution's output or the pool's size.
const MAX_INPUT_BYTES: usize = 2048;

/// Longest list or string a mutation builds.
const MAX_LEN: usize = 64;

/// Integers stay within Java's `int`: a wider one is an input the Java variant cannot take,
/// which would only cost the task that variant's agreement.
const INT_BOUND: i64 = i32::MAX as i64;

/// CPU a generated input may take on the primary reference in its screening run: a dataset's
/// inputs take a few milliseconds each, and one that sends the reference into a long loop
/// (a negative count) should cost little before it is discarded.
pub const SCREEN_CALL_CPU_MS: u64 = 250;

/// Largest magnitude a mutation gives an integer whose seed is smaller.
const MAX_GROWN_INT: i64 = 10_000;

/// How many inputs to propose for a task with `public` and `hidden` dataset inputs (0 when
/// it already meets both targets).
pub fn wanted(public: usize, hidden: usize) -> usize {
    TARGET_TESTS
        .saturating_sub(public + hidden)
        .max(TARGET_HIDDEN.saturating_sub(hidden))
}

/// Proposes up to `wanted × PROPOSALS_PER_WANTED` new inputs for task `id`, mutated from
/// `seeds` (the task's dataset inputs), none equal to a seed or to each other.
pub fn propose(id: &str, seeds: &[Vec<Value>], wanted: usize) -> Vec<Vec<Value>> {
    let target = wanted * PROPOSALS_PER_WANTED;
    if target == 0 || seeds.is_empty() {
        return Vec::new();
    }
    let mut rng = Rng::for_task(id);
    let mut corpus: Vec<Vec<Value>> = seeds.to_vec();
    let mut out: Vec<Vec<Value>> = Vec::new();
    // Most attempts produce something new; the bound only stops tasks whose inputs cannot be
    // mutated (no arguments, only nulls).
    for _ in 0..target * 20 {
        if out.len() == target {
            break;
        }
        let base = &corpus[rng.below(corpus.len())];
        if base.is_empty() {
            continue;
        }
        let mut args = base.clone();
        let at = rng.below(args.len());
        let Some(mutated) = mutate(&args[at], &mut rng) else {
            continue;
        };
        args[at] = mutated;
        let size: usize = args.iter().map(|a| a.canonical_bytes().len()).sum();
        if size > MAX_INPUT_BYTES || corpus.contains(&args) {
            continue;
        }
        corpus.push(args.clone());
        out.push(args);
    }
    out
}

/// One mutation of `v` that keeps its type, or `None` when there is nothing to change.
fn mutate(v: &Value, rng: &mut Rng) -> Option<Value> {
    let changed = match v {
        Value::Null | Value::Opaque(_) => return None,
        Value::Bool(b) => Value::Bool(!b),
        Value::Int(n) => Value::Int(mutate_int(n, rng)?),
        Value::Float(x) => Value::Float(mutate_float(*x, rng)),
        Value::Str(s) => Value::Str(mutate_str(s, rng)),
        Value::List(xs) => Value::List(mutate_seq(xs, rng, true)?),
        Value::Tuple(xs) => {
            // A tuple's arity is part of its type: only its members change.
            let mut xs = xs.clone();
            if xs.is_empty() {
                return None;
            }
            let i = rng.below(xs.len());
            xs[i] = mutate(&xs[i], rng)?;
            Value::Tuple(xs)
        }
        Value::Set(xs) => {
            let mut members = mutate_seq(xs, rng, false)?;
            dedupe(&mut members);
            Value::Set(members)
        }
        Value::Map(kv) => Value::Map(mutate_map(kv, rng)?),
    };
    (changed != *v).then_some(changed)
}

fn mutate_int(n: &Integer, rng: &mut Rng) -> Option<Integer> {
    // Integers beyond i64 come from datasets that test big numbers: left as they are.
    let n = n.to_i64()?;
    let candidates = [
        0,
        1,
        -1,
        n.saturating_add(1),
        n.saturating_sub(1),
        n.saturating_neg(),
        n.saturating_mul(2),
        n / 2,
        n.saturating_add(rng.below(21) as i64 - 10),
        n.saturating_mul(10).saturating_add(7),
        100,
    ];
    // Magnitudes grow only so far beyond the task's own: a count of a billion makes a loop
    // over it time out, which tells nothing about the task and costs a screening run.
    let bound = n.saturating_abs().clamp(MAX_GROWN_INT, INT_BOUND);
    let m = candidates[rng.below(candidates.len())].clamp(-bound, bound);
    Some(Integer::from(m))
}

fn mutate_float(x: f64, rng: &mut Rng) -> f64 {
    let candidates = [
        0.0,
        -x,
        x + 0.5,
        x * 2.0,
        x / 2.0,
        x.round() + 0.25,
        x - 1.0,
        1e-3,
    ];
    candidates[rng.below(candidates.len())]
}

fn mutate_str(s: &str, rng: &mut Rng) -> String {
    let chars: Vec<char> = s.chars().collect();
    let pick = |rng: &mut Rng| chars[rng.below(chars.len())];
    match rng.below(11) {
        0 => String::new(),
        _ if chars.is_empty() => ["a", " ", "ab", "A1"][rng.below(4)].to_owned(),
        1 => pick(rng).to_string(),
        2 if chars.len() * 2 <= MAX_LEN => format!("{s}{s}"),
        3 => chars.iter().rev().collect(),
        4 => s.to_uppercase(),
        5 => s.to_lowercase(),
        6 => format!(" {s} "),
        7 => {
            // A letter outside ASCII (one UTF-16 unit, one code point: the same length in
            // every language).
            let mut c = chars.clone();
            c.insert(rng.below(c.len() + 1), ['é', 'ß', 'Ж'][rng.below(3)]);
            c.into_iter().collect()
        }
        8 => {
            let mut c = chars.clone();
            c.remove(rng.below(c.len()));
            c.into_iter().collect()
        }
        9 if chars.len() < MAX_LEN => {
            let mut c = chars.clone();
            let i = rng.below(c.len());
            c.insert(i, c[i]);
            c.into_iter().collect()
        }
        _ => {
            let mut c = chars.clone();
            let i = rng.below(c.len());
            c[i] = if c[i].is_uppercase() {
                c[i].to_lowercase().next().unwrap_or(c[i])
            } else {
                c[i].to_uppercase().next().unwrap_or(c[i])
            };
            c.into_iter().collect()
        }
    }
}

/// A list's (or set's) mutation; `ordered` allows the order-only ones.
fn mutate_seq(xs: &[Value], rng: &mut Rng, ordered: bool) -> Option<Vec<Value>> {
    if xs.is_empty() {
        // Nothing tells what an element would be.
        return None;
    }
    let mut v = xs.to_vec();
    match rng.below(9) {
        0 => v.clear(),
        1 => v.truncate(1),
        2 => {
            let i = rng.below(v.len());
            v.remove(i);
        }
        3 if v.len() < MAX_LEN => {
            let i = rng.below(v.len());
            v.insert(i, v[i].clone());
        }
        4 if ordered => v.reverse(),
        5 if ordered => sort(&mut v)?,
        6 if v.len() * 2 <= MAX_LEN => {
            let extra: Vec<Value> = (0..v.len())
                .map(|i| mutate(&v[i], rng).unwrap_or_else(|| v[i].clone()))
                .collect();
            v.extend(extra);
        }
        7 if v.len() < MAX_LEN => {
            let i = rng.below(v.len());
            let new = mutate(&v[i], rng)?;
            v.push(new);
        }
        _ => {
            let i = rng.below(v.len());
            v[i] = mutate(&v[i], rng)?;
        }
    }
    Some(v)
}

fn mutate_map(kv: &[(Value, Value)], rng: &mut Rng) -> Option<Vec<(Value, Value)>> {
    if kv.is_empty() {
        return None;
    }
    let mut kv = kv.to_vec();
    let i = rng.below(kv.len());
    match rng.below(3) {
        0 => {
            kv.remove(i);
        }
        1 => {
            let key = mutate(&kv[i].0, rng)?;
            if kv.iter().any(|(k, _)| *k == key) {
                return None;
            }
            let value = kv[i].1.clone();
            kv.push((key, value));
        }
        _ => kv[i].1 = mutate(&kv[i].1, rng)?,
    }
    Some(kv)
}

/// Sorts a list of numbers or of strings; `None` for anything else (no order every
/// language shares).
fn sort(v: &mut [Value]) -> Option<()> {
    if v.iter()
        .all(|x| matches!(x, Value::Int(n) if n.to_i64().is_some()))
    {
        v.sort_by_key(|x| match x {
            Value::Int(n) => n.to_i64().unwrap_or_default(),
            _ => 0,
        });
    } else if v
        .iter()
        .all(|x| matches!(x, Value::Float(f) if f.is_finite()))
    {
        v.sort_by(|a, b| match (a, b) {
            (Value::Float(a), Value::Float(b)) => a.total_cmp(b),
            _ => std::cmp::Ordering::Equal,
        });
    } else if v.iter().all(|x| matches!(x, Value::Str(_))) {
        v.sort_by(|a, b| match (a, b) {
            (Value::Str(a), Value::Str(b)) => a.cmp(b),
            _ => std::cmp::Ordering::Equal,
        });
    } else {
        return None;
    }
    Some(())
}

fn dedupe(v: &mut Vec<Value>) {
    let mut seen: Vec<Value> = Vec::with_capacity(v.len());
    v.retain(|x| {
        let new = !seen.contains(x);
        if new {
            seen.push(x.clone());
        }
        new
    });
}

/// SplitMix64 seeded from the task id: small, fast and the same on every machine.
struct Rng(u64);

impl Rng {
    fn for_task(id: &str) -> Rng {
        let hash = blake3::hash(format!("passrate-generate/{id}").as_bytes());
        let mut seed = [0u8; 8];
        seed.copy_from_slice(&hash.as_bytes()[..8]);
        Rng(u64::from_le_bytes(seed))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[i64]) -> Value {
        Value::List(xs.iter().map(|&x| Value::int(x)).collect())
    }

    #[test]
    fn the_same_task_gets_the_same_inputs_and_another_task_others() {
        let seeds = vec![vec![ints(&[3, 1, 2]), Value::int(5)]];
        let a = propose("mbpp/1", &seeds, 7);
        assert_eq!(a, propose("mbpp/1", &seeds, 7));
        assert_ne!(a, propose("mbpp/2", &seeds, 7));
        assert_eq!(a.len(), 7 * PROPOSALS_PER_WANTED);
    }

    #[test]
    fn proposals_keep_each_argument_s_type_and_never_repeat_a_seed() {
        let seeds = vec![
            vec![
                Value::str("hello world"),
                ints(&[1, 2, 3]),
                Value::Float(1.5),
            ],
            vec![Value::str("abc"), ints(&[7]), Value::Float(-2.0)],
        ];
        let out = propose("t", &seeds, 10);
        assert_eq!(out.len(), 10 * PROPOSALS_PER_WANTED);
        for args in &out {
            assert!(!seeds.contains(args), "{args:?}");
            assert!(matches!(args[0], Value::Str(_)));
            assert!(
                matches!(&args[1], Value::List(xs) if xs.iter().all(|x| matches!(x, Value::Int(_))))
            );
            assert!(matches!(args[2], Value::Float(_)));
        }
        let unique: std::collections::BTreeSet<String> =
            out.iter().map(|a| format!("{a:?}")).collect();
        assert_eq!(unique.len(), out.len());
    }

    #[test]
    fn boundaries_are_reached() {
        let seeds = vec![vec![ints(&[5, 9, 2]), Value::str("Abc")]];
        let out = propose("t", &seeds, 40);
        assert!(out.iter().any(|a| a[0] == ints(&[])), "an empty list");
        assert!(
            out.iter().any(|a| a[1] == Value::str("")),
            "an empty string"
        );
        assert!(
            out.iter().any(|a| a[0] == ints(&[2, 5, 9])),
            "a sorted list"
        );
        assert!(
            out.iter().any(
                |a| matches!(&a[0], Value::List(xs) if xs.iter().any(|x| *x == Value::int(0)))
            ),
            "a zero"
        );
    }

    #[test]
    fn integers_stay_in_java_int_and_huge_ones_are_left_alone() {
        let seeds = vec![vec![Value::int(2_000_000_000)]];
        for args in propose("t", &seeds, 20) {
            let Value::Int(n) = &args[0] else { panic!() };
            assert!(n.to_i64().unwrap().abs() <= INT_BOUND, "{n}");
        }
        // Small seeds stay within MAX_GROWN_INT, however often mutated.
        for args in propose("t", &[vec![Value::int(7)]], 200) {
            let Value::Int(n) = &args[0] else { panic!() };
            assert!(n.to_i64().unwrap().abs() <= MAX_GROWN_INT, "{n}");
        }
        let huge = Value::Int(Integer::parse("123456789012345678901234567890").unwrap());
        assert!(propose("t", &[vec![huge]], 5).is_empty());
    }

    #[test]
    fn nothing_to_mutate_proposes_nothing() {
        assert!(propose("t", &[vec![]], 5).is_empty());
        assert!(propose("t", &[vec![Value::Null]], 5).is_empty());
        assert!(propose("t", &[], 5).is_empty());
        assert_eq!(wanted(10, 3), 0);
        assert_eq!(wanted(3, 0), 7);
        assert_eq!(wanted(12, 1), 2);
    }
}
