//! Raw task → task: obtain the test inputs (record the dataset's check on the primary
//! reference, or take the inputs given as data), run every language's reference on them,
//! keep a language only if it agrees with the primary language on every test, and turn the
//! results into `call` tests.
//!
//! Rules:
//! * A call on which the primary reference raises, or whose arguments or result cannot be
//!   encoded (opaque), is dropped: expected values always come from a normal return.
//! * The primary reference must reproduce what it returned while being recorded.
//! * A test is shared by all languages when their references return the same encoded value;
//!   otherwise each language gets its own copy with its own expected value.
//! * Floats: when an expected value contains a float, the comparator gets EvalPlus's
//!   tolerance, `abs_tol = max(atol, 1e-6)` and `rel_tol = 1e-7`.
//! * Hidden inputs: at most [`MAX_HIDDEN`](super::humaneval::MAX_HIDDEN), spread over the
//!   dataset's list, are scored (`Task::tests`). Every other input the primary reference
//!   answers is kept as an extra test ([`Built::extra_tests`], stored beside the pool for a
//!   later choice of the scored suite), recorded on the primary only. When the scored inputs
//!   do not complete in one execution (HumanEval/15's outputs overflow the 1 MiB result
//!   channel), they are recorded a few at a time and the scored suite keeps those whose
//!   results fit in [`SCORED_OUTPUT_BYTES`]; the others become extra tests. No task loses its
//!   hidden inputs to output size.
//! * An expected value whose canonical encoding exceeds [`DIGEST_OVER_BYTES`] is stored as its
//!   digest ([`Expected::ReturnsDigest`], hidden tests under an exact comparator only).

use std::collections::BTreeMap;

use passrate_schema::{
    Comparator, ErrorInfo, Expected, Language, TASK_FORMAT_VERSION, Task, TestCase, TestForm,
    Value, Visibility,
};

use super::humaneval::MAX_HIDDEN;
use super::{RawTask, TestPlan, generate, spread};
use crate::cache::Cache;
use crate::exec::Executor;
use crate::tier::{factors_for, tier_for};
use crate::validate::{INFRASTRUCTURE, with_retries};

/// Cache kind of built tasks; bump the suffix when `build_task` changes its results.
pub const BUILD_KIND: &str = "build-6";

/// Encoded results of the scored hidden tests an execution must carry, at most: a quarter of
/// the result channel (1 MiB by default), which leaves the public tests and a candidate that
/// formats its values differently room.
pub const SCORED_OUTPUT_BYTES: usize = 256 * 1024;

/// Expected values larger than this (canonical encoding) are stored as digests.
pub const DIGEST_OVER_BYTES: usize = 16 * 1024;

/// Calls per execution when recording inputs a few at a time.
const RECORD_CHUNK: usize = 64;

/// Cap on public tests per task (recorded checks rarely exceed it).
pub const MAX_PUBLIC: usize = 100;

/// Why a task did not make it into the pool.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rejection {
    pub id: String,
    pub stage: String,
    pub reason: String,
}

/// A language variant removed from a task, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DroppedVariant {
    pub id: String,
    pub language: Language,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Built {
    pub task: Task,
    pub dropped: Vec<DroppedVariant>,
    /// What was left out of the task and why (e.g. hidden tests no reference completes).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Hidden tests from generated inputs ([`super::generate`]) among the task's tests.
    #[serde(default)]
    pub generated: usize,
    /// The dataset's hidden inputs that are not scored, with the primary reference's results
    /// (`languages` = the primary: no other language was run on them).
    #[serde(default)]
    pub extra_tests: Vec<TestCase>,
    /// Hidden tests [`super::select`] moved from the scored suite to the extra tests.
    #[serde(default)]
    pub unscored: usize,
}

fn reject(raw: &RawTask, stage: &str, reason: impl Into<String>) -> Rejection {
    Rejection {
        id: raw.id.clone(),
        stage: stage.to_owned(),
        reason: reason.into(),
    }
}

pub(crate) fn contains_opaque(v: &Value) -> bool {
    match v {
        Value::Opaque(_) => true,
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => xs.iter().any(contains_opaque),
        Value::Map(kv) => kv
            .iter()
            .any(|(k, v)| contains_opaque(k) || contains_opaque(v)),
        _ => false,
    }
}

pub(crate) fn contains_float(v: &Value) -> bool {
    match v {
        Value::Float(_) => true,
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => xs.iter().any(contains_float),
        Value::Map(kv) => kv
            .iter()
            .any(|(k, v)| contains_float(k) || contains_float(v)),
        _ => false,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan())
        || a == b
        || (a - b).abs() <= 1e-6_f64.max(1e-6 * a.abs().max(b.abs()))
}

/// Whether two languages' results mean the same thing: numbers by value, lists and tuples
/// alike, sets and maps order-free; `as_set` compares collections as sets.
pub fn equivalent(a: &Value, b: &Value, as_set: bool) -> bool {
    use Value::*;
    let seq = |v: &Value| -> Option<Vec<Value>> {
        match v {
            List(x) | Tuple(x) | Set(x) => Some(x.clone()),
            _ => None,
        }
    };
    match (a, b) {
        (Int(x), Int(y)) => x == y,
        (Int(x), Float(y)) | (Float(y), Int(x)) => close(x.to_f64(), *y),
        (Float(x), Float(y)) => close(*x, *y),
        (Map(x), Map(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.iter()
                        .any(|(k2, v2)| equivalent(k, k2, false) && equivalent(v, v2, as_set))
                })
        }
        (Set(_), _) | (_, Set(_)) if seq(a).is_some() && seq(b).is_some() => same_members(
            &seq(a).unwrap_or_default(),
            &seq(b).unwrap_or_default(),
            true,
        ),
        _ if seq(a).is_some() && seq(b).is_some() => {
            let (x, y) = (seq(a).unwrap_or_default(), seq(b).unwrap_or_default());
            if as_set {
                same_members(&x, &y, true)
            } else {
                x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| equivalent(p, q, false))
            }
        }
        _ => a == b,
    }
}

fn same_members(x: &[Value], y: &[Value], dedupe: bool) -> bool {
    let x_in_y = x.iter().all(|p| y.iter().any(|q| equivalent(p, q, false)));
    let y_in_x = y.iter().all(|q| x.iter().any(|p| equivalent(p, q, false)));
    x_in_y && y_in_x && (dedupe || x.len() == y.len())
}

/// How another language answered a generated input it did not answer alike.
enum Answer {
    /// A normal value, not the primary's.
    Differs(String),
    /// An error, NaN or an unencodable value: outside the task's domain.
    Fails,
}

fn contains_nan(v: &Value) -> bool {
    match v {
        Value::Float(x) => x.is_nan(),
        Value::List(xs) | Value::Tuple(xs) | Value::Set(xs) => xs.iter().any(contains_nan),
        Value::Map(kv) => kv.iter().any(|(k, v)| contains_nan(k) || contains_nan(v)),
        _ => false,
    }
}

fn describe_args(args: &[Value]) -> String {
    let text = args
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if text.len() > 80 {
        format!("({}…)", &text[..text.floor_char_boundary(80)])
    } else {
        format!("({text})")
    }
}

fn describe(outcome: &Result<Value, ErrorInfo>) -> String {
    match outcome {
        Ok(v) => {
            let text = v.to_string();
            if text.len() > 80 {
                format!("{}…", &text[..text.floor_char_boundary(80)])
            } else {
                text
            }
        }
        Err(e) => format!("{}: {}", e.kind, e.message),
    }
}

/// Builds one task.
pub fn build_task(exec: &dyn Executor, raw: &RawTask) -> Result<Built, Rejection> {
    let primary = raw.primary;
    let Some(primary_variant) = raw.variants.get(&primary) else {
        return Err(reject(raw, "parse", format!("no {primary} variant")));
    };
    let (mut public, hidden, recorded) = match &raw.plan {
        TestPlan::Sequences { check_code } => return build_sequences(exec, raw, check_code),
        TestPlan::Record {
            language,
            check_code,
            hidden_inputs,
        } => {
            let variant = &raw.variants[language];
            let calls = with_retries(|| {
                exec.record_calls(
                    *language,
                    &variant.reference_solution,
                    &variant.entry_point,
                    check_code,
                )
            })
            .map_err(|e| reject(raw, "record", e))?;
            let mut public: Vec<Vec<Value>> = Vec::new();
            let mut recorded = BTreeMap::new();
            for call in calls {
                if call.args.iter().any(contains_opaque) || public.contains(&call.args) {
                    continue;
                }
                recorded.insert(public.len(), call.outcome);
                public.push(call.args);
            }
            (public, hidden_inputs.clone(), recorded)
        }
        TestPlan::Inputs { public, hidden } => (public.clone(), hidden.clone(), BTreeMap::new()),
    };
    public.truncate(MAX_PUBLIC);
    let hidden: Vec<Vec<Value>> = hidden.into_iter().filter(|h| !public.contains(h)).collect();
    if public.is_empty() {
        return Err(reject(raw, "record", "the check made no usable calls"));
    }
    let run = |language: Language,
               calls: &[Vec<Value>]|
     -> Result<Vec<Result<Value, ErrorInfo>>, String> {
        let variant = &raw.variants[&language];
        let out = with_retries(|| {
            exec.run_calls(
                language,
                &variant.reference_solution,
                &variant.entry_point,
                variant.class_name.as_deref(),
                calls,
            )
        })?;
        if out.len() == calls.len() {
            Ok(out)
        } else {
            Err(format!(
                "runner returned {} results for {} calls",
                out.len(),
                calls.len()
            ))
        }
    };
    let mut hidden = hidden;
    let wanted = generate::wanted(public.len(), hidden.len());
    // Generated inputs the primary answered once, with that first answer: the run below is
    // the second, separate execution they must match.
    let mut generated: Vec<(Vec<Value>, Value)> = Vec::new();
    let mut proposed = 0;
    if wanted > 0 {
        let seeds: Vec<Vec<Value>> = public.iter().chain(&hidden).cloned().collect();
        let proposals = generate::propose(&raw.id, &seeds, wanted);
        proposed = proposals.len();
        let variant = &raw.variants[&primary];
        // Inputs outside the dataset's stated preconditions raise here and are discarded.
        let screened_code = screening_code(raw);
        let screen = |language: Language, calls: &[Vec<Value>]| {
            with_retries(|| {
                exec.run_calls_within(
                    language,
                    &screened_code,
                    &variant.entry_point,
                    variant.class_name.as_deref(),
                    calls,
                    generate::SCREEN_CALL_CPU_MS,
                )
            })
        };
        generated = screen_generated(&screen, primary, &proposals)
            .map_err(|e| reject(raw, "generate", e))?;
        generated.truncate(wanted);
        hidden.extend(generated.iter().map(|(args, _)| args.clone()));
    }
    let n_public = public.len();
    let scored_at: Vec<usize> = spread(&(0..hidden.len()).collect::<Vec<_>>(), MAX_HIDDEN);
    let mut unscored: Vec<usize> = (0..hidden.len())
        .filter(|i| scored_at.binary_search(i).is_err())
        .collect();
    let mut calls: Vec<Vec<Value>> = public
        .into_iter()
        .chain(scored_at.iter().map(|&i| hidden[i].clone()))
        .collect();
    let mut notes = Vec::new();
    // The primary first, on the scored tests in one execution as an evaluation runs them.
    // When it cannot complete them within an evaluation's limits (HumanEval/15's largest
    // outputs overflow the 1 MiB result channel), the scored hidden inputs are recorded a
    // few at a time and only those whose results fit are scored; the rest become extra tests.
    let primary_out = match run(primary, &calls) {
        Ok(out) => out,
        Err(e) if calls.len() > n_public && !e.starts_with(INFRASTRUCTURE) => {
            let alone = run_chunked(&run, primary, &calls[n_public..])
                .map_err(|e2| reject(raw, "run", e2))?;
            let mut fits = Vec::new();
            let mut bytes = 0;
            for (k, outcome) in alone.iter().enumerate() {
                let size = match outcome {
                    Some(Ok(v)) => v.canonical_bytes().len(),
                    _ => continue,
                };
                if bytes + size <= SCORED_OUTPUT_BYTES {
                    bytes += size;
                    fits.push(k);
                }
            }
            let mut chosen: Vec<Vec<Value>> = calls[..n_public]
                .iter()
                .cloned()
                .chain(fits.iter().map(|&k| calls[n_public + k].clone()))
                .collect();
            let out = match run(primary, &chosen) {
                Ok(out) => out,
                Err(e2) if !e2.starts_with(INFRASTRUCTURE) => {
                    fits.clear();
                    chosen.truncate(n_public);
                    notes.push(format!(
                        "no hidden test scored: the {primary} reference did not complete them in one execution ({e}; then {e2})"
                    ));
                    run(primary, &calls[..n_public]).map_err(|e3| reject(raw, "run", e3))?
                }
                Err(e2) => return Err(reject(raw, "run", e2)),
            };
            notes.push(format!(
                "{} of {} scored hidden tests kept, the others stored as extra tests: the {primary} reference did not complete them in one execution ({e})",
                fits.len(),
                calls.len() - n_public
            ));
            unscored.extend(
                (0..scored_at.len())
                    .filter(|k| !fits.contains(k))
                    .map(|k| scored_at[k]),
            );
            unscored.sort_unstable();
            calls = chosen;
            out
        }
        Err(e) => return Err(reject(raw, "run", e)),
    };
    let unscored_calls: Vec<Vec<Value>> = unscored.iter().map(|&i| hidden[i].clone()).collect();
    let extra_out =
        run_chunked(&run, primary, &unscored_calls).map_err(|e| reject(raw, "run", e))?;
    let mut extra_tests = Vec::new();
    let mut extra_missing = 0;
    for (args, outcome) in unscored_calls.into_iter().zip(extra_out) {
        match outcome {
            Some(Ok(value)) if !contains_opaque(&value) => extra_tests.push(TestCase {
                visibility: Visibility::Hidden,
                form: TestForm::Call {
                    args,
                    expected: Expected::Returns(value),
                },
                comparator: None,
                languages: vec![primary],
            }),
            _ => extra_missing += 1,
        }
    }
    if extra_missing > 0 {
        notes.push(format!(
            "{extra_missing} extra inputs left out: the {primary} reference raised, returned an unencodable value or did not complete them alone"
        ));
    }
    // The recording and the replay must agree: a check on determinism before any test exists.
    for (i, outcome) in &recorded {
        let replay = &primary_out[*i];
        let same = match (outcome, replay) {
            (Ok(a), Ok(b)) => a == b || (contains_float(a) && equivalent(a, b, false)),
            (Err(a), Err(b)) => a.kind == b.kind,
            _ => false,
        };
        if !same {
            return Err(reject(
                raw,
                "record",
                format!(
                    "call {i} returned {} when recorded and {} when replayed",
                    describe(outcome),
                    describe(replay)
                ),
            ));
        }
    }
    // Tests are the calls the primary answered with an encodable value; a generated input
    // also needs the same answer as in its screening run.
    let first_answer = |args: &Vec<Value>| {
        generated
            .iter()
            .find(|(g, _)| g == args)
            .map(|(_, value)| value)
    };
    let is_generated = |i: usize| first_answer(&calls[i]).is_some();
    let mut keep: Vec<usize> = (0..calls.len())
        .filter(|&i| match (&primary_out[i], first_answer(&calls[i])) {
            (Ok(v), _) if contains_opaque(v) => false,
            (Ok(v), Some(first)) => {
                v == first || (contains_float(v) && equivalent(v, first, false))
            }
            (Ok(_), None) => true,
            (Err(_), _) => false,
        })
        .collect();
    if !keep.iter().any(|&i| i < n_public) {
        return Err(reject(
            raw,
            "run",
            "the reference raised or returned an unencodable value on every public call",
        ));
    }
    // The other languages run only those: an input that is no test (the primary ran out of
    // memory on it) must not cost them their variant (humaneval/100's JavaScript reference
    // hit the memory limit on inputs Python could not answer either) or their CPU. A
    // generated input another language disagrees on, or cannot complete, is no test either:
    // it lies outside what the task assumes, and it costs no variant.
    let (dropped, agreeing) = 'agree: loop {
        let kept_calls: Vec<Vec<Value>> = keep.iter().map(|&i| calls[i].clone()).collect();
        let mut dropped = Vec::new();
        // Each language's outcomes, in the order of `keep`.
        let mut agreeing: BTreeMap<Language, Vec<Result<Value, ErrorInfo>>> = BTreeMap::new();
        // How each language answered each generated input it did not answer alike.
        let mut differing: Vec<(usize, Language, Answer)> = Vec::new();
        for language in raw.variants.keys() {
            if *language == primary {
                continue;
            }
            let out = match run(*language, &kept_calls) {
                Ok(out) => out,
                Err(reason) => {
                    // Whether the generated inputs are what it cannot complete.
                    let dataset: Vec<Vec<Value>> = keep
                        .iter()
                        .filter(|&&i| !is_generated(i))
                        .map(|&i| calls[i].clone())
                        .collect();
                    if dataset.len() < kept_calls.len() && run(*language, &dataset).is_ok() {
                        keep.retain(|&i| !is_generated(i));
                        continue 'agree;
                    }
                    dropped.push(DroppedVariant {
                        id: raw.id.clone(),
                        language: *language,
                        reason,
                    });
                    continue;
                }
            };
            // The other language's declared return type decides what its answer must equal,
            // as it does for candidates: Java's `int getMaxTriples` agrees with a Python
            // reference that returns False for 0 (humaneval/147).
            let declared =
                passrate_runner::declared::variant_return(*language, &raw.variants[language]);
            let mut disagreement = None;
            for (&i, other) in keep.iter().zip(&out) {
                let expected = primary_out[i].as_ref().expect("kept calls returned");
                let expected = &passrate_runner::compare::conform(expected, &declared);
                match other {
                    Ok(v) if !contains_opaque(v) && equivalent(expected, v, raw.as_set) => {}
                    Ok(v) if is_generated(i) && !contains_opaque(v) && !contains_nan(v) => {
                        differing.push((i, *language, Answer::Differs(describe(other))))
                    }
                    _ if is_generated(i) => differing.push((i, *language, Answer::Fails)),
                    other => {
                        disagreement = Some(format!(
                            "call {i}: {primary} returns {}, {language} {}",
                            describe(&primary_out[i]),
                            describe(other)
                        ));
                        break;
                    }
                }
            }
            match disagreement {
                Some(reason) => dropped.push(DroppedVariant {
                    id: raw.id.clone(),
                    language: *language,
                    reason,
                }),
                None => {
                    agreeing.insert(*language, out);
                }
            }
        }
        // A language dropped for the dataset's inputs does not decide.
        differing.retain(|(_, language, _)| agreeing.contains_key(language));
        // A generated input every language answers normally, where another language agrees
        // with the primary and this one returns something else, shows this one's reference is
        // wrong (MBXP's JavaScript min_cost agrees with Python on MBPP's three inputs only):
        // its variant is dropped, naming the input.
        let mut wrong: BTreeMap<Language, String> = BTreeMap::new();
        for (i, language, answer) in &differing {
            let Answer::Differs(answered) = answer else {
                continue;
            };
            let others_fail = differing
                .iter()
                .any(|(j, _, a)| j == i && matches!(a, Answer::Fails));
            let corroborated = agreeing
                .keys()
                .any(|l| !differing.iter().any(|(j, m, _)| j == i && m == l));
            if corroborated && !others_fail {
                wrong.entry(*language).or_insert_with(|| {
                    format!(
                        "generated input {}: {primary} returns {} and so do the other languages, {language} {answered}",
                        describe_args(&calls[*i]),
                        describe(&primary_out[*i])
                    )
                });
            }
        }
        for (language, reason) in wrong {
            agreeing.remove(&language);
            dropped.push(DroppedVariant {
                id: raw.id.clone(),
                language,
                reason,
            });
        }
        // Any other generated input some remaining language does not answer alike (it raises,
        // returns NaN, or none corroborates the primary) lies outside what the task assumes
        // of its inputs: it leaves every language, and costs no variant.
        let unfit: Vec<usize> = differing
            .iter()
            .filter(|(_, language, _)| agreeing.contains_key(language))
            .map(|(i, _, _)| *i)
            .collect();
        if !unfit.is_empty() {
            let positions: Vec<bool> = keep.iter().map(|i| !unfit.contains(i)).collect();
            for out in agreeing.values_mut() {
                let mut at = positions.iter();
                out.retain(|_| *at.next().expect("aligned with keep"));
            }
            let mut at = positions.iter();
            keep.retain(|_| *at.next().expect("aligned with keep"));
        }
        break (dropped, agreeing);
    };
    let kept_generated = keep.iter().filter(|&&i| is_generated(i)).count();
    if kept_generated < wanted {
        notes.push(format!(
            "{kept_generated} of {wanted} wanted generated inputs kept: the references raised, timed out, were not deterministic or disagreed on the other {} of {proposed} proposed",
            proposed - kept_generated
        ));
    }
    // With no hidden test left (nothing generated survived, the dataset gives none), the last
    // third of the dataset's calls become the hidden ones.
    let mut public_until = n_public;
    if !keep.iter().any(|&i| i >= n_public) && keep.len() >= 2 {
        public_until = keep[keep.len() - (keep.len() / 3).max(1)];
    }
    let mut tests = Vec::new();
    let mut any_float = false;
    for (k, &i) in keep.iter().enumerate() {
        let visibility = if i < public_until {
            Visibility::Public
        } else {
            Visibility::Hidden
        };
        let primary_value = primary_out[i].clone().expect("kept calls returned");
        let answers: Vec<(Language, Value)> = std::iter::once((primary, primary_value))
            .chain(
                agreeing
                    .iter()
                    .map(|(l, out)| (*l, out[k].clone().expect("agreeing calls returned"))),
            )
            .collect();
        any_float |= answers.iter().any(|(_, v)| contains_float(v));
        tests.extend(tests_for_input(&calls[i], visibility, answers));
    }
    let mut variants = raw.variants.clone();
    variants.retain(|l, _| *l == primary || agreeing.contains_key(l));
    let mut comparator = Comparator {
        as_set: raw.as_set,
        ..Comparator::default()
    };
    if any_float {
        comparator.abs_tol = Some(raw.atol.unwrap_or(0.0).max(1e-6));
        comparator.rel_tol = Some(1e-7);
    }
    if comparator.is_exact() {
        for test in tests.iter_mut().chain(extra_tests.iter_mut()) {
            digest_if_huge(test);
        }
    }
    Ok(Built {
        task: new_task(
            raw,
            &primary_variant.reference_solution,
            variants,
            tests,
            comparator,
        ),
        dropped,
        notes,
        extra_tests,
        generated: kept_generated,
        unscored: 0,
    })
}

/// One input's tests: one for every language when their answers encode alike, else a copy
/// per distinct answer naming its languages.
pub(crate) fn tests_for_input(
    args: &[Value],
    visibility: Visibility,
    answers: Vec<(Language, Value)>,
) -> Vec<TestCase> {
    let mut groups: Vec<(Value, Vec<Language>)> = Vec::new();
    for (language, value) in answers {
        match groups.iter_mut().find(|(v, _)| *v == value) {
            Some((_, languages)) => languages.push(language),
            None => groups.push((value, vec![language])),
        }
    }
    let single = groups.len() == 1;
    groups
        .into_iter()
        .map(|(value, mut languages)| {
            languages.sort();
            TestCase {
                visibility,
                form: TestForm::Call {
                    args: args.to_vec(),
                    expected: Expected::Returns(value),
                },
                comparator: None,
                languages: if single { Vec::new() } else { languages },
            }
        })
        .collect()
}

/// Replaces a hidden test's expected value by its digest when it is too large to store.
fn digest_if_huge(test: &mut TestCase) {
    if test.visibility != Visibility::Hidden {
        return;
    }
    if let TestForm::Call { expected, .. } = &mut test.form
        && let Expected::Returns(value) = expected
        && value.canonical_bytes().len() > DIGEST_OVER_BYTES
        && passrate_runner::digest::digestible(value, &Comparator::default())
    {
        *expected = Expected::ReturnsDigest(passrate_runner::digest::digest(value));
    }
}

/// One reference's outcomes on calls, or why the execution did not complete.
pub(crate) type RunCalls<'a> =
    dyn Fn(Language, &[Vec<Value>]) -> Result<Vec<Result<Value, ErrorInfo>>, String> + 'a;

/// Runs `calls` [`RECORD_CHUNK`] at a time, splitting a chunk that does not complete (output
/// or CPU limit, a crash) down to single calls: each call's outcome, `None` for one that does
/// not complete alone. Infrastructure failures end it.
pub(crate) fn run_chunked(
    run: &RunCalls<'_>,
    language: Language,
    calls: &[Vec<Value>],
) -> Result<Vec<Option<Result<Value, ErrorInfo>>>, String> {
    let mut out = Vec::with_capacity(calls.len());
    let mut pending: Vec<&[Vec<Value>]> = calls.chunks(RECORD_CHUNK).rev().collect();
    while let Some(chunk) = pending.pop() {
        match run(language, chunk) {
            Ok(results) => out.extend(results.into_iter().map(Some)),
            Err(e) if e.starts_with(INFRASTRUCTURE) => return Err(e),
            Err(_) if chunk.len() == 1 => out.push(None),
            Err(_) => {
                let (a, b) = chunk.split_at(chunk.len() / 2);
                pending.push(b);
                pending.push(a);
            }
        }
    }
    Ok(out)
}

/// The generated inputs ([`generate::propose`]) the primary reference answers with an
/// encodable value of storable size, in proposal order, with that answer. (The build's own run
/// of the primary is the second execution each must match, and the other languages' runs
/// decide the rest: see [`build_task`].)
pub(crate) fn screen_generated(
    run: &RunCalls<'_>,
    primary: Language,
    proposals: &[Vec<Value>],
) -> Result<Vec<(Vec<Value>, Value)>, String> {
    if proposals.is_empty() {
        return Ok(Vec::new());
    }
    let out = run_chunked(run, primary, proposals)?;
    Ok(proposals
        .iter()
        .zip(out)
        .filter_map(|(args, outcome)| match outcome {
            Some(Ok(v))
                if !contains_opaque(&v) && v.canonical_bytes().len() <= DIGEST_OVER_BYTES =>
            {
                Some((args.clone(), v))
            }
            _ => None,
        })
        .collect())
}

/// A class-level task: its sequences are recorded on the primary reference, which is then
/// the only language (the recording is the reference run that gives the expected values;
/// intake validation replays them twice).
fn build_sequences(
    exec: &dyn Executor,
    raw: &RawTask,
    check_code: &str,
) -> Result<Built, Rejection> {
    let primary = raw.primary;
    let variant = &raw.variants[&primary];
    let class_name = variant
        .class_name
        .as_deref()
        .ok_or_else(|| reject(raw, "parse", "a sequence task needs a class name"))?;
    let events = with_retries(|| {
        exec.record_calls(
            primary,
            &super::classeval::recording_reference(&variant.reference_solution, class_name),
            super::classeval::EVENT_FN,
            check_code,
        )
    })
    .map_err(|e| reject(raw, "record", e))?;
    let (mut tests, notes) = super::classeval::sequences_from_events(&events);
    hide_tail(&mut tests);
    if tests.is_empty() {
        return Err(reject(
            raw,
            "record",
            format!("no upstream test is replayable ({})", notes.join("; ")),
        ));
    }
    let any_float = tests.iter().any(|t| match &t.form {
        TestForm::Sequence { steps, .. } => steps
            .iter()
            .any(|s| matches!(&s.expected, Expected::Returns(v) if contains_float(v))),
        TestForm::Call { .. } => false,
    });
    let mut comparator = Comparator::default();
    if any_float {
        comparator.abs_tol = Some(1e-6);
        comparator.rel_tol = Some(1e-7);
    }
    let mut variants = raw.variants.clone();
    variants.retain(|l, _| *l == primary);
    Ok(Built {
        task: new_task(
            raw,
            &variant.reference_solution,
            variants,
            tests,
            comparator,
        ),
        dropped: Vec::new(),
        notes,
        generated: 0,
        extra_tests: Vec::new(),
        unscored: 0,
    })
}

/// Makes the last third of a test list hidden (at least one, and at least one stays public)
/// when the dataset marks none hidden: a pass must then also hold on tests whose details the
/// candidate's author never sees.
pub fn hide_tail(tests: &mut [TestCase]) {
    if tests.len() < 2 || tests.iter().any(|t| t.visibility == Visibility::Hidden) {
        return;
    }
    let hidden = (tests.len() / 3).max(1);
    let from = tests.len() - hidden;
    for t in &mut tests[from..] {
        t.visibility = Visibility::Hidden;
    }
}

/// A built task: the raw spec's identity with its tests, the tier from the primary
/// reference's factors, no calibration yet (validation measures it).
fn new_task(
    raw: &RawTask,
    primary_reference: &str,
    variants: BTreeMap<Language, passrate_schema::Variant>,
    tests: Vec<TestCase>,
    comparator: Comparator,
) -> Task {
    let factors = factors_for(raw.primary, primary_reference, &raw.factor_prompt);
    Task {
        format_version: TASK_FORMAT_VERSION,
        id: raw.id.clone(),
        version: 1,
        category: raw.category,
        tier: tier_for(&factors),
        factors,
        source: raw.source.clone(),
        variants,
        tests,
        comparator,
        category_data: raw.category_data.clone(),
        limits: Default::default(),
        calibration: Default::default(),
    }
}

/// The primary reference wrapped in the dataset's contract ([`super::contract`]), where the
/// dataset states one.
fn contracted_primary(raw: &RawTask) -> Option<String> {
    raw.contract
        .as_deref()
        .filter(|_| raw.primary == Language::Python)
        .and_then(|c| super::contract::contracted(&raw.variants[&raw.primary], c))
}

/// The primary reference that screens generated inputs: under the dataset's contract where
/// it states one, else the reference itself.
fn screening_code(raw: &RawTask) -> String {
    contracted_primary(raw).unwrap_or_else(|| raw.variants[&raw.primary].reference_solution.clone())
}

/// Measures a built task's suite by mutation and keeps the scored tests
/// [`super::select`] chooses; the others join its extra tests. A language whose reference
/// contradicts the primary's on an input aimed at a survivor loses its variant, naming it.
fn scored_suite(exec: &dyn Executor, raw: &RawTask, mut built: Built) -> Result<Built, Rejection> {
    let contracted = contracted_primary(raw);
    let selection = super::select::select(
        exec,
        &built.task,
        raw.primary,
        &built.extra_tests,
        contracted.as_deref(),
    )
    .map_err(|e| reject(raw, "select", e))?;
    if let Some(selection) = selection {
        let applied = super::select::apply(&mut built.task, &mut built.extra_tests, selection)
            .map_err(|reason| reject(raw, "select", reason))?;
        built.dropped.extend(applied.dropped);
        built.unscored = applied.unscored;
    }
    Ok(built)
}

/// Builds one task through the cache (keyed by the raw spec). Infrastructure failures that
/// survive the retries reject the task for this run but are not cached.
pub fn build_cached(exec: &dyn Executor, cache: &Cache, raw: &RawTask) -> Result<Built, Rejection> {
    // The kind carries the build logic's version, so changing it invalidates only builds.
    let key = cache.key(BUILD_KIND, raw);
    let mut infrastructure = None;
    let result: Result<Result<Built, Rejection>, String> =
        cache.get_or_compute(BUILD_KIND, &key, || {
            let r = build_task(exec, raw).and_then(|b| scored_suite(exec, raw, b));
            // Execution failures carry the executor's message; they must not be persisted as if
            // they were properties of the task.
            match &r {
                Err(rej) if rej.reason.starts_with(INFRASTRUCTURE) => {
                    infrastructure = Some(rej.clone());
                    return Err(rej.reason.clone());
                }
                Ok(b) => {
                    if let Some(d) = b
                        .dropped
                        .iter()
                        .find(|d| d.reason.starts_with(INFRASTRUCTURE))
                    {
                        return Err(format!("{} {}: {}", d.id, d.language, d.reason));
                    }
                }
                Err(_) => {}
            }
            Ok(r)
        });
    match result {
        Ok(r) => r,
        Err(reason) => Err(infrastructure.unwrap_or_else(|| reject(raw, "record", reason))),
    }
}

/// Called after each task: (raw task, its rejection if any, done, total).
pub type BuildProgress<'a> = dyn Fn(&RawTask, Option<&Rejection>, usize, usize) + Sync + 'a;

/// Builds many tasks on `threads` worker threads; results keep the input order.
pub fn build_all(
    exec: &dyn Executor,
    cache: &Cache,
    raws: &[RawTask],
    threads: usize,
    progress: &BuildProgress<'_>,
) -> Vec<Result<Built, Rejection>> {
    crate::parallel::map_in_order(
        raws,
        threads,
        |raw| build_cached(exec, cache, raw),
        |raw, result, done| progress(raw, result.as_ref().err(), done, raws.len()),
    )
}
