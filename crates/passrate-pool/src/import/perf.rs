//! Performance inputs for the efficiency score, generated at intake as EvalPerf does: a few
//! inputs per call-test task, scaled up from the task's own until its reference needs a
//! measurable CPU time, with the reference's results and its CPU on them
//! ([`crate::storage::PerfSet`], stored in `perf/<family>.jsonl.gz`).
//!
//! * Which tasks: those whose answer is the function the call tests judge ([`CATEGORIES`]:
//!   not documentation, whose code is given, nor unit-test writing, whose answer is a suite)
//!   and whose tests in the primary language ([`primary_language`]) are all calls.
//! * Seeds: up to [`PERF_SEEDS`] distinct inputs of the task's tests, largest first, that
//!   [`scale`] grows at all.
//! * Scaling ([`scale`], [`ladder`]): ×2, ×4, ×8 … of each seed, built from the seed each
//!   time (rung k+1 extends rung k). Strings repeat (joined by the seed's own separator);
//!   lists, sets and maps gain elements: distinct integers as shifted copies (a sorted or
//!   distinct list stays so), sorted lists by repeating each element in place, other lists by
//!   rotated copies of themselves; positive integers up to [`SIZE_LIKE_MAX`] at the top level
//!   (or in a top-level tuple), which may be sizes or counts, grow by the factor within Java's
//!   `int`. Elements are never changed, only repeated: values stay in the seed's domain. A
//!   ladder ends when an input's encoding would pass [`PERF_MAX_INPUT_BYTES`] or nothing
//!   grows any more. The rotations are drawn from a generator seeded with the seed's own
//!   encoding, so tasks sharing a reference and tests (a translation and its base) share
//!   their inputs, and rebuilds are identical.
//! * Screening: each seed's ladder runs on the primary reference in one execution, each call
//!   stopped past [`SCREEN_CALL_CPU_MS`] (a runaway, e.g. an integer the reference uses as an
//!   exponent, costs little); the ladder ends before the first call that raises, is stopped,
//!   or returns a value no test could expect (a type no test of the task expects, NaN, a
//!   float under an exact comparator, an unencodable value).
//! * Measuring: the two largest rungs left of each seed are run as tests of a probe task
//!   through [`Executor::evaluate`] (the second execution, which must return the same values)
//!   for their per-test CPU; of the two, the smaller one if it needs [`PERF_TARGET_CPU_MS`],
//!   else the larger. Of those needing at least [`PERF_MIN_CPU_MS`], the [`PERF_INPUTS`]
//!   slowest distinct ones are kept, slowest first.
//! * Other languages: each other reference runs the kept inputs (each call within
//!   [`AGREE_CALL_CPU_MS`]); an input's test covers a language when its reference agrees
//!   with the primary's under its declared type (as at build). A language that does not
//!   agree is only left out of the test (its variant stays); each test lists the languages
//!   it covers, with a copy per distinct encoding as build makes them.
//! * Reference CPU: each covered language's reference runs the set as an answer does
//!   ([`Executor::evaluate`] on a probe task whose tests are the perf tests),
//!   [`MEASURE_RUNS`] times; the median of the verdicts' CPU (the sandbox's cgroup, as the
//!   cycle measures answers) is recorded. A language whose reference does not pass its set
//!   is left out of it.
//!
//! The inputs depend on CPU measurements (which rung first needs the target), so a rebuild
//! without the cache may pick a neighbouring rung near a threshold; through the intake cache
//! (keyed by the task's content: [`build_cached`]) rebuilds are identical.

use std::collections::{BTreeMap, BTreeSet};

use passrate_schema::{
    Category, CategoryData, Comparator, Expected, Language, LimitOverrides, Signature, Task,
    TestCase, TestForm, Value, Visibility,
};
use serde::{Deserialize, Serialize};

use super::build::{
    DIGEST_OVER_BYTES, contains_float, contains_opaque, equivalent, run_chunked, tests_for_input,
};
use crate::cache::Cache;
use crate::exec::Executor;
use crate::storage::PerfSet;
use crate::strength::calls_only;
use crate::validate::{INFRASTRUCTURE, with_retries};

/// CPU one performance input should need on the primary reference: well above the timer's
/// resolution and a runtime's noise (a few ms), small enough that three inputs, repeated,
/// cost an answer well under a second.
pub const PERF_TARGET_CPU_MS: u64 = 40;

/// CPU an input must need on the primary reference to be kept at all: below it, start-up
/// and harness costs would dominate the comparison.
pub const PERF_MIN_CPU_MS: u64 = 10;

/// Performance inputs kept per task, at most.
pub const PERF_INPUTS: usize = 3;

/// Seeds scaled per task, at most (each costs one screening execution).
pub const PERF_SEEDS: usize = 4;

/// A scaled input's canonical encoding stays within this: the inputs are stored with the
/// pool and sent to every answer measured.
pub const PERF_MAX_INPUT_BYTES: usize = 256 * 1024;

/// A scaled input holds at most this many values ([`nodes`]): a harness decodes every
/// input of an execution at once, within the runtime's heap (Python: 30 MiB of data), and a
/// set of [`PERF_INPUTS`] such inputs decodes in some 6 MiB. Strings count one each: their
/// characters cost a byte each, like their encoding.
pub const PERF_MAX_NODES: usize = 8 * 1024;

/// Doublings of a seed, at most (×2 … ×2^20).
pub const MAX_DOUBLINGS: u32 = 20;

/// CPU one call may take while a ladder is screened: four times the target, so the largest
/// rung left of a linear reference needs 2–4 times the target and the one below 1–2 times.
pub const SCREEN_CALL_CPU_MS: u64 = 4 * PERF_TARGET_CPU_MS;

/// CPU one call of another language's reference may take on the kept inputs: a reference
/// several times slower than the primary's still covers them.
pub const AGREE_CALL_CPU_MS: u64 = 1_000;

/// Executions of each reference on its set; the median is recorded.
pub const MEASURE_RUNS: usize = 3;

/// Cache kind of whole performance sets; bump the suffix when what [`build`] makes changes.
pub const PERF_KIND: &str = "perf-1";
/// Cache kind of the primary's inputs ([`choose_inputs`]): shared by tasks with the same
/// primary reference and tests (a translation into the base task's primary language).
const INPUTS_KIND: &str = "perf-inputs-1";
/// Cache kind of one language's reference CPU on a set.
const CPU_KIND: &str = "perf-cpu-1";

/// Integers stay within Java's `int`.
const INT_BOUND: i64 = i32::MAX as i64;

/// Top-level integers up to this may be sizes or counts and grow; larger ones are values
/// (a modulus, a year) and stay.
pub const SIZE_LIKE_MAX: i64 = 1 << 20;

/// Categories whose answer is the function the call tests judge.
pub const CATEGORIES: [Category; 5] = [
    Category::FunctionCompletion,
    Category::AlgorithmImplementation,
    Category::BugFixing,
    Category::CodeTranslation,
    Category::Refactoring,
];

/// The language whose reference the inputs are scaled on: Python where the task has it (every
/// dataset's authoritative language), else its first (a translation's only) language.
pub fn primary_language(task: &Task) -> Option<Language> {
    if task.variants.contains_key(&Language::Python) {
        Some(Language::Python)
    } else {
        task.variants.keys().next().copied()
    }
}

/// The primary language of a task that gets performance inputs, `None` for others.
pub fn applies(task: &Task) -> Option<Language> {
    let language = primary_language(task)?;
    (CATEGORIES.contains(&task.category)
        && calls_only(task, language)
        && task.tests_for(language).next().is_some())
    .then_some(language)
}

/// `args` scaled by `factor` (see the module documentation); `salt` seeds the rotations.
pub fn scale(args: &[Value], factor: usize, salt: u64) -> Vec<Value> {
    args.iter()
        .enumerate()
        .map(|(i, a)| scale_top(a, factor, mix(salt, i as u64)))
        .collect()
}

/// A seed and its scaled versions ×2, ×4, … (the seed first), while the encoding stays
/// within [`PERF_MAX_INPUT_BYTES`] and [`PERF_MAX_NODES`] and something still grows.
pub fn ladder(seed: &[Value]) -> Vec<Vec<Value>> {
    let salt = salt_of(seed);
    let mut rungs = vec![seed.to_vec()];
    for k in 1..=MAX_DOUBLINGS {
        let next = scale(seed, 1 << k, salt);
        if encoded_len(&next) > PERF_MAX_INPUT_BYTES
            || nodes(&next) > PERF_MAX_NODES
            || rungs.last() == Some(&next)
        {
            break;
        }
        rungs.push(next);
    }
    rungs
}

fn encoded_len(args: &[Value]) -> usize {
    args.iter().map(|a| a.canonical_bytes().len()).sum()
}

/// The generator's seed for a seed input: its encoding, so equal inputs scale alike.
fn salt_of(seed: &[Value]) -> u64 {
    let mut h = blake3::Hasher::new();
    h.update(b"passrate-perf/");
    h.update(&Value::List(seed.to_vec()).canonical_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&h.finalize().as_bytes()[..8]);
    u64::from_le_bytes(bytes)
}

fn mix(salt: u64, i: u64) -> u64 {
    Rng(salt ^ i.wrapping_mul(0xD6E8_FEB8_6659_FD93)).next()
}

/// A top-level argument (or a member of a top-level tuple): integers may be sizes here.
fn scale_top(v: &Value, factor: usize, salt: u64) -> Value {
    match v {
        Value::Int(n) => match n.to_i64() {
            Some(m) if (1..=SIZE_LIKE_MAX).contains(&m) => {
                Value::int(m.saturating_mul(factor as i64).min(INT_BOUND))
            }
            _ => v.clone(),
        },
        Value::Tuple(xs) => Value::Tuple(
            xs.iter()
                .enumerate()
                .map(|(i, x)| scale_top(x, factor, mix(salt, i as u64)))
                .collect(),
        ),
        _ => grow(v, factor, salt),
    }
}

/// A collection or string `factor` times as long; anything else unchanged.
fn grow(v: &Value, factor: usize, salt: u64) -> Value {
    match v {
        Value::Str(s) => Value::Str(grow_str(s, factor)),
        Value::List(xs) => Value::List(grow_list(xs, factor, salt)),
        Value::Set(xs) => Value::Set(grow_set(xs, factor)),
        Value::Map(kv) => Value::Map(grow_map(kv, factor)),
        _ => v.clone(),
    }
}

/// Values (nodes) in `args`: what decoding them costs a harness (a Python int decoded from
/// `{"int": "7"}` takes some 250 bytes before it is converted; a string, one node).
fn nodes(args: &[Value]) -> usize {
    fn count(v: &Value) -> usize {
        1 + match v {
            Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => xs.iter().map(count).sum(),
            Value::Map(kv) => kv.iter().map(|(k, v)| count(k) + count(v)).sum(),
            _ => 0,
        }
    }
    args.iter().map(count).sum()
}

/// Copies of `s`, joined by a newline or a space where `s` has lines or words (so a list of
/// words stays one), else end to end (a palindrome or a balanced bracket string stays one).
fn grow_str(s: &str, factor: usize) -> String {
    if s.is_empty() {
        return String::new();
    }
    let sep = if s.contains('\n') {
        "\n"
    } else if s.contains(' ') {
        " "
    } else {
        ""
    };
    vec![s; factor].join(sep)
}

fn ints(xs: &[Value]) -> Option<Vec<i64>> {
    xs.iter()
        .map(|x| match x {
            Value::Int(n) => n.to_i64(),
            _ => None,
        })
        .collect()
}

fn distinct(xs: &[i64]) -> bool {
    xs.iter().collect::<BTreeSet<_>>().len() == xs.len()
}

fn floats(xs: &[Value]) -> Option<Vec<f64>> {
    xs.iter()
        .map(|x| match x {
            Value::Float(f) if f.is_finite() => Some(*f),
            _ => None,
        })
        .collect()
}

/// [`shifted`] for distinct finite floats.
fn shifted_floats(xs: &[f64], factor: usize) -> Option<Vec<f64>> {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    let span = sorted.last()? - sorted.first()? + 1.0;
    let grown: Vec<f64> = (0..factor)
        .flat_map(|c| xs.iter().map(move |x| x + c as f64 * span))
        .collect();
    grown.iter().all(|x| x.is_finite()).then_some(grown)
}

/// `factor` copies of distinct integers, copy c shifted by c times their span: distinct
/// stays distinct and sorted stays sorted. `None` past Java's `int`.
fn shifted(xs: &[i64], factor: usize) -> Option<Vec<i64>> {
    let min = *xs.iter().min()? as i128;
    let max = *xs.iter().max()? as i128;
    let span = max - min + 1;
    if max + span * (factor as i128 - 1) > INT_BOUND as i128 {
        return None;
    }
    let span = span as i64;
    Some(
        (0..factor as i64)
            .flat_map(|c| xs.iter().map(move |x| x + c * span))
            .collect(),
    )
}

/// Whether `xs` (numbers or strings, at least two) is sorted ascending.
fn sorted(xs: &[Value]) -> bool {
    if xs.len() < 2 {
        return false;
    }
    xs.windows(2).all(|w| match (&w[0], &w[1]) {
        (Value::Int(a), Value::Int(b)) => {
            matches!((a.to_i64(), b.to_i64()), (Some(a), Some(b)) if a <= b)
        }
        (Value::Float(a), Value::Float(b)) => a <= b,
        (Value::Str(a), Value::Str(b)) => a <= b,
        _ => false,
    })
}

fn grow_list(xs: &[Value], factor: usize, salt: u64) -> Vec<Value> {
    if xs.is_empty() || factor <= 1 {
        return xs.to_vec();
    }
    if let Some(v) = ints(xs)
        && distinct(&v)
        && let Some(grown) = shifted(&v, factor)
    {
        return grown.into_iter().map(Value::int).collect();
    }
    if let Some(v) = floats(xs)
        && let Some(grown) = shifted_floats(&v, factor)
    {
        return grown.into_iter().map(Value::Float).collect();
    }
    if sorted(xs) {
        return xs
            .iter()
            .flat_map(|x| std::iter::repeat_n(x.clone(), factor))
            .collect();
    }
    // Copies rotated by a drawn offset each: the same multiset and neighbours, not one period.
    let mut rng = Rng(salt);
    let mut out = Vec::with_capacity(xs.len() * factor);
    out.extend_from_slice(xs);
    for _ in 1..factor {
        let r = rng.below(xs.len());
        out.extend_from_slice(&xs[r..]);
        out.extend_from_slice(&xs[..r]);
    }
    out
}

/// Distinct members from `xs`: integers shifted, strings repeated; others do not grow.
fn distinct_copies(xs: &[Value], factor: usize) -> Option<Vec<Value>> {
    if let Some(v) = ints(xs) {
        return shifted(&v, factor).map(|g| g.into_iter().map(Value::int).collect());
    }
    if xs
        .iter()
        .all(|x| matches!(x, Value::Str(s) if !s.is_empty()))
    {
        let mut out: Vec<Value> = Vec::with_capacity(xs.len() * factor);
        let mut seen = BTreeSet::new();
        for c in 1..=factor {
            for x in xs {
                if let Value::Str(s) = x {
                    let grown = s.repeat(c);
                    if seen.insert(grown.clone()) {
                        out.push(Value::Str(grown));
                    }
                }
            }
        }
        return Some(out);
    }
    None
}

fn grow_set(xs: &[Value], factor: usize) -> Vec<Value> {
    if xs.is_empty() || factor <= 1 {
        return xs.to_vec();
    }
    distinct_copies(xs, factor).unwrap_or_else(|| xs.to_vec())
}

fn grow_map(kv: &[(Value, Value)], factor: usize) -> Vec<(Value, Value)> {
    if kv.is_empty() || factor <= 1 {
        return kv.to_vec();
    }
    let keys: Vec<Value> = kv.iter().map(|(k, _)| k.clone()).collect();
    match distinct_copies(&keys, factor) {
        Some(grown) => grown
            .into_iter()
            .enumerate()
            .map(|(i, k)| (k, kv[i % kv.len()].1.clone()))
            .collect(),
        None => kv.to_vec(),
    }
}

/// SplitMix64: small, fast and the same on every machine.
struct Rng(u64);

impl Rng {
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

/// One kept input of the primary reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PerfInput {
    pub args: Vec<Value>,
    /// The primary reference's result (the same in two executions).
    pub value: Value,
    /// The primary reference's CPU on it (the harness's figure), µs.
    pub cpu_us: u64,
    /// The seed test's own comparator, if it has one.
    pub comparator: Option<Comparator>,
}

/// What a variant's reference runs depend on (not the text shown to models).
#[derive(Serialize)]
struct VariantKey<'a> {
    prompt: &'a str,
    entry_point: &'a str,
    class_name: Option<&'a str>,
    signature: &'a Signature,
    reference_solution: &'a str,
    preamble: Option<&'a str>,
}

fn variant_key(task: &Task, language: Language) -> Option<VariantKey<'_>> {
    let v = task.variants.get(&language)?;
    Some(VariantKey {
        prompt: &v.prompt,
        entry_point: &v.entry_point,
        class_name: v.class_name.as_deref(),
        signature: &v.signature,
        reference_solution: &v.reference_solution,
        preamble: v.preamble.as_deref(),
    })
}

/// The tests `language` runs, `languages` cleared (it only selects them).
fn tests_key(task: &Task, tests: &[TestCase], language: Language) -> Vec<TestCase> {
    tests
        .iter()
        .filter(|t| t.applies_to(language))
        .map(|t| TestCase {
            languages: Vec::new(),
            comparator: Some(task.comparator_for(t).clone()),
            ..t.clone()
        })
        .collect()
}

/// Everything a whole set depends on: the task's content without its id or the texts shown
/// to models, so tasks sharing references and tests share it.
#[derive(Serialize)]
struct SetKey<'a> {
    category: Category,
    variants: BTreeMap<Language, VariantKey<'a>>,
    tests: &'a [TestCase],
    comparator: &'a Comparator,
    limits: &'a LimitOverrides,
}

#[derive(Serialize)]
struct InputsKey<'a> {
    language: Language,
    variant: VariantKey<'a>,
    tests: Vec<TestCase>,
    limits: &'a LimitOverrides,
}

#[derive(Serialize)]
struct CpuKey<'a> {
    language: Language,
    variant: VariantKey<'a>,
    tests: Vec<TestCase>,
    limits: &'a LimitOverrides,
}

/// `compute`'s result through `cache`; errors (infrastructure failures) are not stored.
fn cached<T: Serialize + serde::de::DeserializeOwned>(
    cache: &Cache,
    kind: &str,
    input: &impl Serialize,
    compute: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    let key = cache.key(kind, input);
    cache.get_or_compute(kind, &key, compute)
}

/// [`build`] through the intake cache, keyed by the task's content (not its id: a
/// translation and its sibling from another source language share one set). Only
/// infrastructure failures (after retries) are errors; they are not stored.
pub fn build_cached(
    exec: &dyn Executor,
    cache: &Cache,
    task: &Task,
) -> Result<Option<PerfSet>, String> {
    if applies(task).is_none() {
        return Ok(None);
    }
    let key = SetKey {
        category: task.category,
        variants: task
            .variants
            .keys()
            .filter_map(|l| Some((*l, variant_key(task, *l)?)))
            .collect(),
        tests: &task.tests,
        comparator: &task.comparator,
        limits: &task.limits,
    };
    cached(cache, PERF_KIND, &key, || build(exec, cache, task))
}

/// Called after each task: (task, done, total).
pub type PerfProgress<'a> = dyn Fn(&Task, usize, usize) + Sync + 'a;

/// [`build_cached`] for every task on `threads` workers, results in the tasks' order.
pub fn build_all(
    exec: &dyn Executor,
    cache: &Cache,
    tasks: &[Task],
    threads: usize,
    progress: &PerfProgress<'_>,
) -> Vec<Result<Option<PerfSet>, String>> {
    crate::parallel::map_in_order(
        tasks,
        threads,
        |task| build_cached(exec, cache, task),
        |task, _, done| progress(task, done, tasks.len()),
    )
}

/// The performance set of `task` (`None` when it gets none), the primary's inputs and each
/// language's CPU through `cache`.
pub fn build(exec: &dyn Executor, cache: &Cache, task: &Task) -> Result<Option<PerfSet>, String> {
    let Some(primary) = applies(task) else {
        return Ok(None);
    };
    let Some(variant) = variant_key(task, primary) else {
        return Ok(None);
    };
    let inputs_key = InputsKey {
        language: primary,
        variant,
        tests: tests_key(task, &task.tests, primary),
        limits: &task.limits,
    };
    let inputs: Vec<PerfInput> = cached(cache, INPUTS_KIND, &inputs_key, || {
        choose_inputs(exec, task, primary)
    })?;
    if inputs.is_empty() {
        return Ok(None);
    }
    let calls: Vec<Vec<Value>> = inputs.iter().map(|i| i.args.clone()).collect();
    let mut answers: Vec<Vec<(Language, Value)>> = inputs
        .iter()
        .map(|i| vec![(primary, i.value.clone())])
        .collect();
    for (language, variant) in &task.variants {
        if *language == primary {
            continue;
        }
        let run = |language: Language, calls: &[Vec<Value>]| {
            with_retries(|| {
                exec.run_calls_within(
                    language,
                    &variant.reference_solution,
                    &variant.entry_point,
                    variant.class_name.as_deref(),
                    calls,
                    AGREE_CALL_CPU_MS,
                )
            })
        };
        let out = match run_chunked(&run, *language, &calls) {
            Ok(out) => out,
            Err(e) if infrastructure(&e) => return Err(e),
            // Its harness could not take the inputs: it covers none of them.
            Err(_) => vec![None; calls.len()],
        };
        let declared = passrate_runner::declared::variant_return(*language, variant);
        for ((input, outcome), answers) in inputs.iter().zip(out).zip(&mut answers) {
            let expected = passrate_runner::compare::conform(&input.value, &declared);
            if let Some(Ok(v)) = outcome
                && !contains_opaque(&v)
                && equivalent(&expected, &v, task.comparator.as_set)
            {
                answers.push((*language, v));
            }
        }
    }
    let mut tests: Vec<TestCase> = Vec::new();
    for (input, answers) in inputs.iter().zip(answers) {
        let covered: Vec<Language> = {
            let mut l: Vec<Language> = answers.iter().map(|(l, _)| *l).collect();
            l.sort();
            l
        };
        for mut test in tests_for_input(&input.args, Visibility::Hidden, answers) {
            if test.languages.is_empty() {
                test.languages = covered.clone();
            }
            test.comparator = input.comparator.clone();
            let exact = task.comparator_for(&test).is_exact();
            digest_if_huge(&mut test, exact);
            tests.push(test);
        }
    }
    let covered: BTreeSet<Language> = tests.iter().flat_map(|t| t.languages.clone()).collect();
    let mut reference_cpu_ms = BTreeMap::new();
    for language in covered {
        let Some(variant) = variant_key(task, language) else {
            continue;
        };
        let key = CpuKey {
            language,
            variant,
            tests: tests_key(task, &tests, language),
            limits: &task.limits,
        };
        let cpu: Option<f64> = cached(cache, CPU_KIND, &key, || {
            measure(exec, task, language, &tests)
        })?;
        match cpu {
            Some(ms) => {
                reference_cpu_ms.insert(language, ms);
            }
            None => {
                for t in &mut tests {
                    t.languages.retain(|l| *l != language);
                }
            }
        }
    }
    tests.retain(|t| !t.languages.is_empty());
    if tests.is_empty() || !reference_cpu_ms.contains_key(&primary) {
        return Ok(None);
    }
    Ok(Some(PerfSet {
        tests,
        reference_cpu_ms,
    }))
}

/// A hidden test's expected value stored as its digest when large (exact comparators only),
/// as build stores hidden tests.
fn digest_if_huge(test: &mut TestCase, exact: bool) {
    if let TestForm::Call { expected, .. } = &mut test.form
        && let Expected::Returns(value) = expected
        && exact
        && value.canonical_bytes().len() > DIGEST_OVER_BYTES
        && passrate_runner::digest::digestible(value, &Comparator::default())
    {
        *expected = Expected::ReturnsDigest(passrate_runner::digest::digest(value));
    }
}

fn contains_nan(v: &Value) -> bool {
    match v {
        Value::Float(x) => x.is_nan(),
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => xs.iter().any(contains_nan),
        Value::Map(kv) => kv.iter().any(|(k, v)| contains_nan(k) || contains_nan(v)),
        _ => false,
    }
}

/// A probe of `task` in `language` whose tests are `tests`: judged on call tests alone (no
/// category grader), no calibration (per-test budgets of other tests), `cpu_ms` CPU for the
/// tests.
fn probe(task: &Task, tests: Vec<TestCase>, cpu_ms: u64) -> Task {
    let mut probe = task.clone();
    probe.category = Category::FunctionCompletion;
    probe.category_data = CategoryData::default();
    probe.calibration = Default::default();
    probe.tests = tests;
    probe.limits.cpu_ms = Some(cpu_ms);
    probe
}

/// The primary reference's inputs: each seed's ladder screened, the two largest rungs left
/// measured, the slowest [`PERF_INPUTS`] kept (see the module documentation).
pub fn choose_inputs(
    exec: &dyn Executor,
    task: &Task,
    language: Language,
) -> Result<Vec<PerfInput>, String> {
    // The seeds: distinct inputs that grow, largest first.
    let mut seeds: Vec<(Vec<Value>, Option<Comparator>)> = Vec::new();
    for (_, t) in task.tests_for(language) {
        if let TestForm::Call { args, .. } = &t.form
            && !seeds.iter().any(|(a, _)| a == args)
        {
            seeds.push((args.clone(), t.comparator.clone()));
        }
    }
    seeds.retain(|(args, _)| scale(args, 2, 0) != *args);
    seeds.sort_by_key(|(args, _)| std::cmp::Reverse(encoded_len(args)));
    seeds.truncate(PERF_SEEDS);
    let mut chosen: Vec<PerfInput> = Vec::new();
    for (seed, comparator) in &seeds {
        if let Some(input) = scale_seed(exec, task, language, seed, comparator.as_ref())?
            && !chosen.iter().any(|c| c.args == input.args)
        {
            chosen.push(input);
        }
    }
    // Slowest first; equal CPU in seed order.
    chosen.sort_by_key(|c| std::cmp::Reverse(c.cpu_us));
    chosen.truncate(PERF_INPUTS);
    Ok(chosen)
}

/// Whether an execution's failure is the machinery's rather than the inputs': a harness that
/// runs out of its heap decoding large inputs is reported as not starting, an
/// infrastructure failure, but it is the inputs' size.
fn infrastructure(e: &str) -> bool {
    e.starts_with(INFRASTRUCTURE) && !e.contains("memory_limit") && !e.contains("MemoryError")
}

/// One seed's input: its ladder screened on the reference in one execution (each call within
/// [`SCREEN_CALL_CPU_MS`]), the two largest rungs it answers acceptably run again as a
/// probe's tests for their CPU and the second execution's agreement, and of those the
/// smaller if it needs [`PERF_TARGET_CPU_MS`], else the larger, if it needs
/// [`PERF_MIN_CPU_MS`].
fn scale_seed(
    exec: &dyn Executor,
    task: &Task,
    language: Language,
    seed: &[Value],
    comparator: Option<&Comparator>,
) -> Result<Option<PerfInput>, String> {
    let variant = &task.variants[&language];
    let exact = comparator.unwrap_or(&task.comparator).is_exact();
    let expected_types = super::select::expected_types(task, language);
    // A value no test of the task could expect ends the ladder as a raise does: a type no
    // test expects (the reference's answer off its domain), NaN, a float under an exact
    // comparator, an unencodable value.
    let acceptable = |v: &Value| {
        !(contains_opaque(v) || contains_nan(v) || (exact && contains_float(v)))
            && (expected_types.is_empty() || expected_types.contains(v.type_name()))
            && (exact || v.canonical_bytes().len() <= PERF_MAX_INPUT_BYTES)
    };
    let rungs = ladder(seed);
    let partial = match with_retries(|| {
        exec.run_calls_until(
            language,
            &variant.reference_solution,
            &variant.entry_point,
            variant.class_name.as_deref(),
            &rungs,
            SCREEN_CALL_CPU_MS,
        )
    }) {
        Ok(p) => p,
        Err(e) if infrastructure(&e) => return Err(e),
        Err(_) => return Ok(None),
    };
    let answered: Vec<(Vec<Value>, Value)> = rungs
        .into_iter()
        .zip(partial.outcomes)
        .map_while(|(args, outcome)| match outcome {
            Ok(v) if acceptable(&v) => Some((args, v)),
            _ => None,
        })
        .collect();
    let candidates = &answered[answered.len().saturating_sub(2)..];
    if candidates.is_empty() {
        return Ok(None);
    }
    // The second execution: the rungs as a probe's tests, for their values and CPU.
    let tests: Vec<TestCase> = candidates
        .iter()
        .map(|(args, value)| TestCase {
            visibility: Visibility::Public,
            form: TestForm::Call {
                args: args.clone(),
                expected: Expected::Returns(value.clone()),
            },
            comparator: comparator.cloned(),
            languages: Vec::new(),
        })
        .collect();
    let allowance = 1_000 + 2 * SCREEN_CALL_CPU_MS * tests.len() as u64;
    let probe = probe(task, tests, allowance);
    let verdict =
        match with_retries(|| exec.evaluate(&probe, language, &variant.reference_solution)) {
            Ok(v) => v,
            Err(e) if infrastructure(&e) => return Err(e),
            Err(_) => return Ok(None),
        };
    let mut cpu: Vec<Option<u64>> = vec![None; candidates.len()];
    for r in &verdict.tests {
        if r.reason == passrate_schema::Reason::Pass
            && let Some(slot) = cpu.get_mut(r.index)
        {
            *slot = r.cpu_us;
        }
    }
    let measured: Vec<(usize, u64)> = cpu
        .iter()
        .enumerate()
        .filter_map(|(k, us)| Some((k, (*us)?)))
        .collect();
    let pick = measured
        .iter()
        .find(|(_, us)| *us >= PERF_TARGET_CPU_MS * 1000)
        .or(measured.last());
    Ok(pick
        .filter(|(_, us)| *us >= PERF_MIN_CPU_MS * 1000)
        .map(|&(k, us)| PerfInput {
            args: candidates[k].0.clone(),
            value: candidates[k].1.clone(),
            cpu_us: us,
            comparator: comparator.cloned(),
        }))
}

/// Median CPU (ms, the verdicts' cgroup figure, to the µs where the runner gives it) of `language`'s reference on its tests among
/// `tests`, over [`MEASURE_RUNS`] evaluations; `None` when it does not pass them every time.
fn measure(
    exec: &dyn Executor,
    task: &Task,
    language: Language,
    tests: &[TestCase],
) -> Result<Option<f64>, String> {
    let mine: Vec<TestCase> = tests
        .iter()
        .filter(|t| t.languages.contains(&language))
        .cloned()
        .collect();
    let allowance = 1_000 + AGREE_CALL_CPU_MS * mine.len() as u64;
    let probe = probe(task, mine, allowance);
    let reference = &task.variants[&language].reference_solution;
    let mut cpu = Vec::with_capacity(MEASURE_RUNS);
    for _ in 0..MEASURE_RUNS {
        let verdict = match with_retries(|| exec.evaluate(&probe, language, reference)) {
            Ok(v) => v,
            Err(e) if infrastructure(&e) => return Err(e),
            Err(_) => return Ok(None),
        };
        if !verdict.passed() {
            return Ok(None);
        }
        cpu.push(
            verdict
                .cpu_us
                .map_or(verdict.cpu_ms as f64, |us| us as f64 / 1000.0),
        );
    }
    cpu.sort_by(f64::total_cmp);
    Ok(Some(cpu[cpu.len() / 2]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[i64]) -> Value {
        Value::List(xs.iter().map(|&x| Value::int(x)).collect())
    }

    fn len(v: &Value) -> usize {
        match v {
            Value::List(xs) | Value::Set(xs) => xs.len(),
            Value::Map(kv) => kv.len(),
            Value::Str(s) => s.chars().count(),
            _ => 0,
        }
    }

    #[test]
    fn collections_and_strings_grow_by_the_factor() {
        let args = vec![
            ints(&[3, 1, 1]),
            Value::str("abc"),
            Value::Set(vec![Value::int(1), Value::int(5)]),
            Value::Map(vec![(Value::str("k"), Value::int(1))]),
        ];
        for factor in [2, 4, 8] {
            let out = scale(&args, factor, 7);
            for (a, b) in args.iter().zip(&out) {
                assert_eq!(len(b), len(a) * factor, "{a:?} ×{factor}: {b:?}");
            }
        }
    }

    #[test]
    fn sorted_and_distinct_lists_stay_so() {
        // Strictly increasing: shifted copies, still sorted and distinct.
        assert_eq!(
            scale(&[ints(&[1, 2, 5])], 2, 0),
            vec![ints(&[1, 2, 5, 6, 7, 10])]
        );
        // Distinct, unsorted: still a permutation.
        assert_eq!(
            scale(&[ints(&[3, 1, 2])], 3, 0),
            vec![ints(&[3, 1, 2, 6, 4, 5, 9, 7, 8])]
        );
        // Sorted with duplicates: each element repeated in place.
        assert_eq!(
            scale(&[ints(&[1, 1, 2])], 2, 0),
            vec![ints(&[1, 1, 1, 1, 2, 2])]
        );
        let words = Value::List(vec![Value::str("a"), Value::str("b"), Value::str("b")]);
        assert_eq!(
            scale(&[words], 2, 0),
            vec![Value::List(
                ["a", "a", "b", "b", "b", "b"].map(Value::str).to_vec()
            )]
        );
    }

    #[test]
    fn other_lists_grow_by_rotated_copies_of_the_same_elements() {
        let seed = ints(&[5, 1, 5, 2]);
        let Value::List(out) = &scale(std::slice::from_ref(&seed), 8, 42)[0] else {
            panic!()
        };
        assert_eq!(out.len(), 32);
        let Value::List(xs) = &seed else { panic!() };
        for chunk in out.chunks(4) {
            let mut a = chunk.to_vec();
            let mut b = xs.clone();
            a.sort_by_key(|v| v.to_string());
            b.sort_by_key(|v| v.to_string());
            assert_eq!(a, b, "each copy holds the seed's elements");
        }
        // A larger factor extends a smaller one (the ladder's rungs nest).
        let Value::List(smaller) = &scale(std::slice::from_ref(&seed), 4, 42)[0] else {
            panic!()
        };
        assert_eq!(&out[..16], &smaller[..]);
    }

    #[test]
    fn strings_keep_their_separator_and_shape() {
        assert_eq!(grow_str("(()())", 2), "(()())(()())");
        assert_eq!(grow_str("hello world", 2), "hello world hello world");
        assert_eq!(grow_str("a\nb", 2), "a\nb\na\nb");
        assert_eq!(grow_str("", 8), "");
        // A palindrome stays one.
        let p = grow_str("abcba", 4);
        assert_eq!(p, p.chars().rev().collect::<String>());
    }

    #[test]
    fn sizes_grow_within_java_int_and_values_stay() {
        assert_eq!(scale(&[Value::int(10)], 4, 0), vec![Value::int(40)]);
        assert_eq!(
            scale(&[Value::int(1 << 20)], 1 << 20, 0),
            vec![Value::int(INT_BOUND)]
        );
        // Not sizes: zero, negatives, large values, floats, booleans.
        for v in [
            Value::int(0),
            Value::int(-3),
            Value::int(1_000_000_007),
            Value::Float(2.5),
            Value::Bool(true),
        ] {
            assert_eq!(scale(std::slice::from_ref(&v), 8, 0), vec![v]);
        }
        // Inside a top-level tuple, as an argument; inside a list, data.
        assert_eq!(
            scale(&[Value::Tuple(vec![Value::int(3), Value::str("ab")])], 2, 0),
            vec![Value::Tuple(vec![Value::int(6), Value::str("abab")])]
        );
        assert_eq!(
            scale(&[ints(&[2, 2])], 2, 0),
            vec![ints(&[2, 2, 2, 2])],
            "list elements are not grown"
        );
        // Shifting past Java's int falls back to copies.
        let big = ints(&[2_000_000_000, 1]);
        let Value::List(out) = &scale(&[big], 2, 0)[0] else {
            panic!()
        };
        assert!(
            out.iter()
                .all(|v| matches!(v, Value::Int(n) if n.to_i64().unwrap() <= INT_BOUND))
        );
    }

    #[test]
    fn ladders_double_until_the_size_cap_and_stop_when_nothing_grows() {
        let seed = vec![Value::str("ab"), Value::int(3)];
        let rungs = ladder(&seed);
        assert_eq!(rungs[0], seed);
        assert_eq!(rungs[1], vec![Value::str("abab"), Value::int(6)]);
        let last = rungs.last().unwrap();
        assert!(encoded_len(last) <= PERF_MAX_INPUT_BYTES);
        assert!(
            encoded_len(&scale(&seed, 1 << rungs.len(), salt_of(&seed))) > PERF_MAX_INPUT_BYTES
        );
        // An integer alone grows to Java's int bound, then stops.
        let rungs = ladder(&[Value::int(1 << 15)]);
        assert_eq!(rungs.last().unwrap(), &vec![Value::int(INT_BOUND)]);
        assert!(rungs.len() <= MAX_DOUBLINGS as usize + 1);
        // Nothing to grow: the seed alone.
        assert_eq!(ladder(&[Value::Float(1.0), Value::int(0)]).len(), 1);
        // Deterministic.
        let seed = vec![ints(&[4, 4, 1, 9]), Value::str("x y")];
        assert_eq!(ladder(&seed), ladder(&seed));
    }

    #[test]
    fn sets_and_maps_keep_distinct_members() {
        let set = Value::Set(vec![Value::str("a"), Value::str("aa")]);
        let Value::Set(out) = &scale(&[set], 3, 0)[0] else {
            panic!()
        };
        let unique: BTreeSet<String> = out.iter().map(|v| v.to_string()).collect();
        assert_eq!(unique.len(), out.len());
        let map = Value::Map(vec![
            (Value::int(1), Value::str("x")),
            (Value::int(2), Value::str("y")),
        ]);
        assert_eq!(
            scale(&[map], 2, 0),
            vec![Value::Map(vec![
                (Value::int(1), Value::str("x")),
                (Value::int(2), Value::str("y")),
                (Value::int(3), Value::str("x")),
                (Value::int(4), Value::str("y")),
            ])]
        );
    }
}
