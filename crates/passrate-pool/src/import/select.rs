//! The scored suite, chosen by mutation: a built task's tests are run against mechanical
//! mutants of its primary reference ([`crate::strength::call_kills`]), the score is stored
//! in the task ([`MutationScore`]), and a task with more than [`MAX_SCORED`] tests keeps as
//! scored only its public tests, the fewest hidden ones that kill every mutant the whole
//! suite kills (greedy, as EvalPlus's "mini" suites are chosen), and an even spread of the
//! others up to the cap. The hidden tests it does not score become extra tests: never judged
//! in a weekly run, kept for the robustness of passing answers.
//!
//! Before choosing, a suite that kills fewer than [`MUTATION_TARGET`] of the mutants (or
//! passes a known faulty variant) gets inputs aimed at the survivors ([`directed_tests`]):
//! the task's unscored inputs and inputs generated from its own are run on the reference and
//! on each survivor, and the fewest that tell every survivor they can from the reference are
//! kept when the reference answers them alike twice and every other language's reference
//! agrees (the rules of generated inputs at build). A survivor no input tells apart is likely
//! equivalent to the reference: it is named in the score and not counted. A suite still
//! under the target is too weak for the pool ([`too_weak`]): intake rejects the task, naming
//! the survivors.
//!
//! Tests are chosen by input: the per-language copies of one input (languages that return
//! different encodings) are scored or not together. A task derived later from a built one
//! (translations, documentation, bug fixing) inherits its scored suite.

use std::collections::{BTreeMap, BTreeSet};

use passrate_schema::{
    Expected, Language, MutationScore, Task, TestCase, TestForm, Value, Visibility,
};

use super::build::{
    DroppedVariant, contains_float, equivalent, run_chunked, screen_generated, tests_for_input,
};
use super::generate::{self, TARGET_HIDDEN};
use crate::exec::Executor;
use crate::strength::{MEASURED, MUTATION_TARGET, call_kills, calls_only};
use crate::validate::with_retries;

/// Tests a weekly run scores per task, at most (public tests beyond it are all kept).
pub const MAX_SCORED: usize = 20;

/// Mechanical mutants made of each reference.
pub const MUTANTS: usize = 10;

/// Inputs generated for a suite with surviving mutants ([`directed_tests`]), before the
/// references screen them.
pub const DIRECTED_PROPOSALS: usize = 60;

/// What the selection did to one task.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// `None` when no mutant of the reference loads (nothing to mutate: `len(s)`).
    pub score: Option<MutationScore>,
    /// Hidden tests aimed at surviving mutants, to append to the task's tests.
    pub added: Vec<TestCase>,
    /// Per test of the task, the added ones last: scored (`true`) or moved to the extra
    /// tests.
    pub scored: Vec<bool>,
    /// Languages whose reference answers an input inside the dataset's contract differently
    /// from the primary's, with the input: their variants leave the task.
    pub wrong: BTreeMap<Language, String>,
    /// Inputs that told survivors apart but could not become tests, each with why.
    pub refused: Vec<String>,
}

/// Measures `task`'s suite in `language` and chooses its scored tests, adding tests aimed at
/// surviving mutants from `extra` (the task's unscored inputs) and from generated inputs,
/// which `screening` (the reference with the dataset's contract; by default the reference)
/// screens. `None` when the task is not measured (its category's reference is not what its
/// tests judge, or it has tests other than calls). Infrastructure failures are the error.
pub fn select(
    exec: &dyn Executor,
    task: &Task,
    language: Language,
    extra: &[TestCase],
    screening: Option<&str>,
) -> Result<Option<Selection>, String> {
    if !MEASURED.contains(&task.category) || !calls_only(task, language) {
        return Ok(None);
    }
    let Some(variant) = task.variants.get(&language) else {
        return Ok(None);
    };
    let mutants =
        passrate_extract::mutants::mutants(language, &variant.reference_solution, MUTANTS);
    // Known faulty variants (QuixBugs' bugs) must stay killed by the scored suite; they
    // are not part of the score, which is the mechanical mutants'.
    let programs: Vec<&str> = mutants
        .iter()
        .map(|m| m.code.as_str())
        .chain(variant.faulty_variants.iter().map(String::as_str))
        .collect();
    let mut kills = call_kills(exec, task, language, &programs)?;
    let live: Vec<usize> = (0..mutants.len()).filter(|&m| kills[m].is_some()).collect();
    let survivors: Vec<usize> = (0..programs.len())
        .filter(|&p| kills[p].as_ref().is_some_and(BTreeSet::is_empty))
        .collect();
    let mut grown = task.clone();
    let mut added = Vec::new();
    // Below the target, or a known bug passing, the suite gets inputs aimed at the survivors.
    let surviving_mutants = survivors.iter().filter(|&&p| p < mutants.len()).count();
    let killed_share = (live.len() - surviving_mutants) as f64 / live.len().max(1) as f64;
    let weak = (!live.is_empty() && killed_share < MUTATION_TARGET)
        || survivors.iter().any(|&p| p >= mutants.len());
    // Survivors no input tried tells apart from the reference (only looked for here).
    let mut equivalent: BTreeSet<usize> = BTreeSet::new();
    let mut wrong = BTreeMap::new();
    let mut refused = Vec::new();
    if weak {
        let codes: Vec<&str> = survivors.iter().map(|&p| programs[p]).collect();
        let directed = directed_tests(exec, task, language, extra, screening, &codes)?;
        wrong = directed.wrong;
        refused = directed.refused;
        equivalent.extend(
            (0..survivors.len())
                .filter(|s| !directed.told_apart.contains(s))
                .map(|s| survivors[s]),
        );
        for (tests, told) in directed.tests {
            for &s in &told {
                if let Some(failed) = kills[survivors[s]].as_mut() {
                    failed.extend(grown.tests.len()..grown.tests.len() + tests.len());
                }
            }
            grown.tests.extend(tests.iter().cloned());
            added.extend(tests);
        }
    }
    let scored = choose(&grown, language, &kills);
    let kept: BTreeSet<usize> = (0..scored.len()).filter(|&i| scored[i]).collect();
    let killed_by_kept = |m: usize| {
        kills[m]
            .as_ref()
            .is_some_and(|failed| !failed.is_disjoint(&kept))
    };
    let score = (!live.is_empty()).then(|| MutationScore {
        language,
        mutants: live.len() as u32,
        killed: live.iter().filter(|&&m| killed_by_kept(m)).count() as u32,
        survivors: live
            .iter()
            .filter(|&&m| !killed_by_kept(m) && !equivalent.contains(&m))
            .map(|&m| mutants[m].description.clone())
            .collect(),
        equivalent: live
            .iter()
            .filter(|&&m| !killed_by_kept(m) && equivalent.contains(&m))
            .map(|&m| mutants[m].description.clone())
            .collect(),
    });
    Ok(Some(Selection {
        score,
        added,
        scored,
        wrong,
        refused,
    }))
}

/// What [`directed_tests`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Directed {
    /// Each kept input's tests (a copy per language where their encodings differ) and the
    /// survivors it fails (indices into `survivors`).
    pub tests: Vec<(Vec<TestCase>, BTreeSet<usize>)>,
    /// The survivors some input tried fails, kept or not: the others are likely equivalent
    /// to the reference.
    pub told_apart: BTreeSet<usize>,
    /// See [`Selection::wrong`]; the tests above leave these languages out.
    pub wrong: BTreeMap<Language, String>,
    /// Why each input refused was (it told survivors apart but could not become a test).
    pub refused: Vec<String>,
}

/// Hidden tests aimed at `survivors` (programs `task`'s suite does not fail in `language`):
/// the inputs of the `extra` tests that apply to `language` with the reference's recorded
/// value, then [`DIRECTED_PROPOSALS`] inputs generated from the task's own, screened on
/// `screening` (the reference under the dataset's contract) or the reference; greedily the
/// fewest that fail every survivor some input fails; each kept only when the reference
/// returns the same value in a second execution and every other language's reference agrees
/// under its declared type (an input refused there is replaced by the next best, for up to
/// [`DIRECTED_ROUNDS`] rounds).
pub fn directed_tests(
    exec: &dyn Executor,
    task: &Task,
    language: Language,
    extra: &[TestCase],
    screening: Option<&str>,
    survivors: &[&str],
) -> Result<Directed, String> {
    let variant = &task.variants[&language];
    let seeds: Vec<Vec<Value>> = task
        .tests_for(language)
        .filter_map(|(_, t)| match &t.form {
            TestForm::Call { args, .. } => Some(args.clone()),
            TestForm::Sequence { .. } => None,
        })
        .collect();
    let proposals = generate::propose(
        &format!("{}#survivors", task.id),
        &seeds,
        DIRECTED_PROPOSALS.div_ceil(generate::PROPOSALS_PER_WANTED),
    );
    let mut answered: Vec<(Vec<Value>, Value)> = extra
        .iter()
        .filter(|t| t.applies_to(language))
        .filter_map(|t| match &t.form {
            TestForm::Call {
                args,
                expected: Expected::Returns(value),
            } => Some((args.clone(), value.clone())),
            _ => None,
        })
        .collect();
    let screen = |language: Language, calls: &[Vec<Value>]| {
        with_retries(|| {
            exec.run_calls_within(
                language,
                screening.unwrap_or(&variant.reference_solution),
                &variant.entry_point,
                variant.class_name.as_deref(),
                calls,
                generate::SCREEN_CALL_CPU_MS,
            )
        })
    };
    answered.extend(screen_generated(&screen, language, &proposals)?);
    // An exact comparator has no tolerance for a float a new input returns; and an answer of
    // a type no existing test expects (a bool where every test expects an int: mutated
    // inputs can lead the reference off its domain) is no test an honest answer must meet.
    let exact = task.comparator.abs_tol.is_none() && task.comparator.rel_tol.is_none();
    let expected_types = expected_types(task, language);
    let answered: Vec<(Vec<Value>, Value)> = answered
        .into_iter()
        .filter(|(_, v)| !(exact && contains_float(v)))
        .filter(|(_, v)| expected_types.is_empty() || expected_types.contains(v.type_name()))
        .collect();
    if answered.is_empty() {
        return Ok(Directed::default());
    }
    // Which survivors each input fails: the inputs as the tests of a probe task, judged as
    // the suite is.
    let mut probe = task.clone();
    probe.tests = answered
        .iter()
        .map(|(args, value)| TestCase {
            visibility: Visibility::Hidden,
            form: TestForm::Call {
                args: args.clone(),
                expected: Expected::Returns(value.clone()),
            },
            comparator: None,
            languages: Vec::new(),
        })
        .collect();
    let mut fails: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); answered.len()];
    for (s, failed) in call_kills(exec, &probe, language, survivors)?
        .iter()
        .enumerate()
    {
        for &k in failed.iter().flatten() {
            fails[k].insert(s);
        }
    }
    let told_apart: BTreeSet<usize> = fails.iter().flatten().copied().collect();
    let mut out = Directed {
        tests: Vec::new(),
        told_apart: told_apart.clone(),
        wrong: BTreeMap::new(),
        refused: Vec::new(),
    };
    // Greedy rounds: an input the checks below refuse is excluded and the survivors it told
    // apart are aimed at again, with the next best inputs.
    let mut uncovered = told_apart;
    let mut excluded: BTreeSet<usize> = BTreeSet::new();
    for _ in 0..DIRECTED_ROUNDS {
        let chosen = greedy_cover(&fails, &uncovered, &excluded);
        if chosen.is_empty() {
            break;
        }
        let contract = screening.is_some();
        let (tests, wrong) = checked(
            exec, task, language, &answered, &chosen, contract, &out.wrong,
        )?;
        out.wrong.extend(wrong);
        for (k, tests) in chosen.iter().zip(tests) {
            match tests {
                Ok(tests) => {
                    uncovered.retain(|s| !fails[*k].contains(s));
                    out.tests.push((tests, fails[*k].clone()));
                }
                Err(why) => {
                    excluded.insert(*k);
                    out.refused.push(why);
                }
            }
        }
    }
    Ok(out)
}

/// Rounds of [`directed_tests`]' choice, each a run of every language's reference.
const DIRECTED_ROUNDS: usize = 3;

/// Greedily, the fewest inputs (not `excluded`) that fail every `uncovered` survivor some
/// input fails: `fails[k]` holds the survivors input `k` fails.
fn greedy_cover(
    fails: &[BTreeSet<usize>],
    uncovered: &BTreeSet<usize>,
    excluded: &BTreeSet<usize>,
) -> Vec<usize> {
    let mut uncovered = uncovered.clone();
    let mut chosen = Vec::new();
    while let Some((gain, std::cmp::Reverse(k))) = (0..fails.len())
        .filter(|k| !excluded.contains(k) && !chosen.contains(k))
        .map(|k| {
            (
                fails[k].intersection(&uncovered).count(),
                std::cmp::Reverse(k),
            )
        })
        .max()
    {
        if gain == 0 {
            break;
        }
        chosen.push(k);
        uncovered.retain(|s| !fails[k].contains(s));
    }
    chosen
}

/// Per input, its tests or why it was refused; and the languages found wrong, with why.
type Checked = (
    Vec<Result<Vec<TestCase>, String>>,
    BTreeMap<Language, String>,
);

/// The tests of each `chosen` input of `answered` (arguments, the reference's first answer)
/// in `language`, or why not: the reference answers differently in a second execution, or
/// another language's reference does not agree under its declared type. With `contract`
/// (the inputs were screened under the dataset's preconditions), a language that answers
/// normally but differently is wrong rather than the input: it is returned with the input,
/// and left out of every test, as are the languages already in `wrong`.
fn checked(
    exec: &dyn Executor,
    task: &Task,
    language: Language,
    answered: &[(Vec<Value>, Value)],
    chosen: &[usize],
    contract: bool,
    wrong: &BTreeMap<Language, String>,
) -> Result<Checked, String> {
    let reference = |language: Language, calls: &[Vec<Value>]| {
        let v = &task.variants[&language];
        with_retries(|| {
            exec.run_calls_within(
                language,
                &v.reference_solution,
                &v.entry_point,
                v.class_name.as_deref(),
                calls,
                generate::SCREEN_CALL_CPU_MS,
            )
        })
    };
    let chosen_calls: Vec<Vec<Value>> = chosen.iter().map(|&k| answered[k].0.clone()).collect();
    let again = run_chunked(&reference, language, &chosen_calls)?;
    // Per input: every language's answer so far, or why the input is refused.
    let mut values: Vec<Result<Vec<(Language, Value)>, String>> = chosen
        .iter()
        .zip(again)
        .zip(&chosen_calls)
        .map(|((&k, outcome), args)| {
            let first = &answered[k].1;
            match outcome {
                Some(Ok(v))
                    if v == *first || (contains_float(first) && equivalent(first, &v, false)) =>
                {
                    Ok(vec![(language, first.clone())])
                }
                _ => Err(format!(
                    "{language} answers {} differently in a second execution",
                    short(&Value::List(args.clone()))
                )),
            }
        })
        .collect();
    let mut newly_wrong = BTreeMap::new();
    for (other, v) in &task.variants {
        if *other == language || wrong.contains_key(other) || values.iter().all(Result::is_err) {
            continue;
        }
        let out = run_chunked(&reference, *other, &chosen_calls)?;
        let declared = passrate_runner::declared::variant_return(*other, v);
        let mut contradicted: Option<String> = None;
        for ((slot, outcome), args) in values.iter_mut().zip(&out).zip(&chosen_calls) {
            let Ok(answers) = slot else { continue };
            let expected = passrate_runner::compare::conform(&answers[0].1, &declared);
            let disagreement = format!(
                "on {}, {language} returns {}, {other} {}",
                short(&Value::List(args.clone())),
                short(&answers[0].1),
                match outcome {
                    Some(Ok(value)) => short(value),
                    Some(Err(e)) => format!("raises {}", e.kind),
                    None => "does not complete".to_owned(),
                }
            );
            match outcome {
                Some(Ok(value)) if equivalent(&expected, value, task.comparator.as_set) => {
                    answers.push((*other, value.clone()))
                }
                // Inside the dataset's contract, a normal answer that differs is the other
                // language's reference being wrong.
                Some(Ok(_)) if contract => {
                    contradicted.get_or_insert_with(|| {
                        format!("an input inside the dataset's contract, aimed at a surviving mutant: {disagreement}")
                    });
                }
                _ => *slot = Err(disagreement),
            }
        }
        if let Some(reason) = contradicted {
            // Its answers so far leave the tests: the language leaves the task.
            for answers in values.iter_mut().flatten() {
                answers.retain(|(l, _)| l != other);
            }
            newly_wrong.insert(*other, reason);
        }
    }
    Ok((
        chosen_calls
            .iter()
            .zip(values)
            .map(|(args, answers)| answers.map(|a| tests_for_input(args, Visibility::Hidden, a)))
            .collect(),
        newly_wrong,
    ))
}

/// A value for a rejection note, cut to a readable length.
fn short(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// Why a suite is too weak for the pool: it kills fewer than [`MUTATION_TARGET`] of the
/// mutants some input tells apart from the reference, even with the inputs aimed at them
/// (the survivors and the first inputs refused are named). `None` when it is strong enough
/// or not measured.
pub fn too_weak(selection: &Selection) -> Option<String> {
    let score = selection.score.as_ref()?;
    let share = score.score()?;
    (share < MUTATION_TARGET).then(|| {
        let mut reason = format!(
            "the scored tests kill {} of the {} mutants of the {} reference that inputs tell apart from it ({:.0} %, under {:.0} %); surviving: {}",
            score.killed,
            score.mutants as usize - score.equivalent.len(),
            score.language,
            share * 100.0,
            MUTATION_TARGET * 100.0,
            score.survivors.join("; ")
        );
        if !selection.refused.is_empty() {
            let shown: Vec<&str> = selection.refused.iter().take(2).map(String::as_str).collect();
            reason.push_str(&format!(
                "; inputs that tell them apart, refused: {}",
                shown.join("; ")
            ));
        }
        reason
    })
}

/// Which tests stay scored: everything when the task has at most [`MAX_SCORED`] inputs;
/// otherwise the public inputs, then greedily the hidden input that fails the most programs
/// not yet failed, until none adds one, then hidden inputs spread over the rest up to the cap
/// (and to at least [`TARGET_HIDDEN`] hidden ones, however many public tests there are).
/// Inputs with no test in `language` are always kept (nothing measured them).
fn choose(task: &Task, language: Language, kills: &[Option<BTreeSet<usize>>]) -> Vec<bool> {
    let groups = input_groups(&task.tests);
    if groups.len() <= MAX_SCORED {
        return vec![true; task.tests.len()];
    }
    let measured = |g: &Vec<usize>| {
        g.iter().any(|&i| {
            let t = &task.tests[i];
            t.applies_to(language)
        })
    };
    let mut keep: Vec<bool> = groups
        .iter()
        .map(|g| task.tests[g[0]].visibility == Visibility::Public || !measured(g))
        .collect();
    let fails = |g: &Vec<usize>, program: &Option<BTreeSet<usize>>| {
        program
            .as_ref()
            .is_some_and(|failed| g.iter().any(|i| failed.contains(i)))
    };
    let mut uncovered: Vec<usize> = (0..kills.len())
        .filter(|&p| {
            !groups
                .iter()
                .zip(&keep)
                .any(|(g, k)| *k && fails(g, &kills[p]))
        })
        .collect();
    loop {
        let best = (0..groups.len())
            .filter(|&g| !keep[g])
            .map(|g| {
                let gain = uncovered
                    .iter()
                    .filter(|&&p| fails(&groups[g], &kills[p]))
                    .count();
                (gain, std::cmp::Reverse(g))
            })
            .max();
        match best {
            Some((gain, std::cmp::Reverse(g))) if gain > 0 => {
                keep[g] = true;
                uncovered.retain(|&p| !fails(&groups[g], &kills[p]));
            }
            _ => break,
        }
    }
    // A task with many public tests still scores a few hidden ones.
    let kept_hidden = (0..groups.len())
        .filter(|&g| keep[g] && task.tests[groups[g][0]].visibility == Visibility::Hidden)
        .count();
    let room = MAX_SCORED
        .saturating_sub(keep.iter().filter(|k| **k).count())
        .max(TARGET_HIDDEN.saturating_sub(kept_hidden));
    let rest: Vec<usize> = (0..groups.len()).filter(|&g| !keep[g]).collect();
    for g in super::spread(&rest, room) {
        keep[g] = true;
    }
    let mut scored = vec![false; task.tests.len()];
    for (g, k) in groups.iter().zip(keep) {
        for &i in g {
            scored[i] = k;
        }
    }
    scored
}

fn same_input(a: &TestCase, b: &TestCase) -> bool {
    matches!((&a.form, &b.form), (TestForm::Call { args: x, .. }, TestForm::Call { args: y, .. }) if x == y)
}

/// Test indices grouped by input (a call's arguments), in order of first appearance; a
/// sequence test is a group of its own.
fn input_groups(tests: &[TestCase]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_args: std::collections::HashMap<Vec<u8>, usize> = Default::default();
    for (i, test) in tests.iter().enumerate() {
        let TestForm::Call { args, .. } = &test.form else {
            groups.push(vec![i]);
            continue;
        };
        let key: Vec<u8> = args.iter().flat_map(|a| a.canonical_bytes()).collect();
        match by_args.get(&key) {
            Some(&g) => groups[g].push(i),
            None => {
                by_args.insert(key, groups.len());
                groups.push(vec![i]);
            }
        }
    }
    groups
}

/// What [`apply`] did to a task.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// Hidden tests moved to the extra tests.
    pub unscored: usize,
    /// Variants removed because their reference contradicts the primary's.
    pub dropped: Vec<DroppedVariant>,
}

/// Applies `selection` to `task`: stores its score, removes the variants it found wrong,
/// adds its directed tests and moves the tests it does not score to the front of `extra`.
/// A suite [`too_weak`] for the pool is the error, with why, and changes nothing.
pub fn apply(
    task: &mut Task,
    extra: &mut Vec<TestCase>,
    selection: Selection,
) -> Result<Applied, String> {
    if let Some(reason) = too_weak(&selection) {
        return Err(reason);
    }
    let dropped = selection
        .wrong
        .iter()
        .map(|(language, reason)| DroppedVariant {
            id: task.id.clone(),
            language: *language,
            reason: reason.clone(),
        })
        .collect();
    task.calibration.mutation = selection.score;
    for language in selection.wrong.keys() {
        task.variants.remove(language);
    }
    // An extra test chosen to kill a survivor is scored now, not kept twice.
    extra.retain(|e| !selection.added.iter().any(|a| same_input(a, e)));
    task.tests.extend(selection.added);
    let mut scored = selection.scored.into_iter();
    let (kept, moved): (Vec<TestCase>, Vec<TestCase>) = std::mem::take(&mut task.tests)
        .into_iter()
        .partition(|_| scored.next().unwrap_or(true));
    task.tests = kept;
    let n = moved.len();
    let mut all = moved;
    all.append(extra);
    *extra = all;
    // Tests of a language that left apply to the others, or to nobody.
    if !selection.wrong.is_empty() {
        for tests in [&mut task.tests, extra] {
            tests.retain_mut(|t| {
                let specific = !t.languages.is_empty();
                t.languages.retain(|l| !selection.wrong.contains_key(l));
                !specific || !t.languages.is_empty()
            });
        }
    }
    Ok(Applied {
        unscored: n,
        dropped,
    })
}

/// The types of the values the task's call tests in `language` expect: an input whose answer
/// is of another type led the reference off its domain.
pub(crate) fn expected_types(task: &Task, language: Language) -> BTreeSet<&str> {
    task.tests_for(language)
        .filter_map(|(_, t)| match &t.form {
            TestForm::Call {
                expected: Expected::Returns(v),
                ..
            } => Some(v.type_name()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use passrate_schema::{Expected, Value};

    fn call(n: i64, visibility: Visibility) -> TestCase {
        TestCase {
            visibility,
            form: TestForm::Call {
                args: vec![Value::Int(n.into())],
                expected: Expected::Returns(Value::Int(n.into())),
            },
            comparator: None,
            languages: Vec::new(),
        }
    }

    fn task_with(tests: Vec<TestCase>) -> Task {
        let mut task: Task = serde_json::from_value(serde_json::json!({
            "format_version": 1, "id": "t/1", "version": 1,
            "category": "function_completion", "tier": 1,
            "factors": {"conditions": 1, "solution_space": 1, "edge_cases": 0},
            "source": {"dataset": "t", "upstream_id": "1", "license": "MIT"},
            "variants": {"python": {
                "prompt": "", "entry_point": "f",
                "signature": {"params": [{"name": "n"}]},
                "reference_solution": "def f(n):\n    return n\n"
            }},
            "tests": []
        }))
        .expect("a task");
        task.tests = tests;
        task
    }

    #[test]
    fn small_suites_stay_whole() {
        let task = task_with(
            (0..MAX_SCORED as i64)
                .map(|n| call(n, Visibility::Hidden))
                .collect(),
        );
        let kills = vec![Some(BTreeSet::from([3]))];
        assert!(choose(&task, Language::Python, &kills).iter().all(|k| *k));
    }

    #[test]
    fn large_suites_keep_public_killers_and_a_spread_up_to_the_cap() {
        let mut tests = vec![call(0, Visibility::Public), call(1, Visibility::Public)];
        tests.extend((2..200).map(|n| call(n, Visibility::Hidden)));
        let task = task_with(tests);
        // Program 0 dies on test 150 only, program 1 on 7 and 151, program 2 on a public
        // test, program 3 never (a survivor), program 4 does not load.
        let kills = vec![
            Some(BTreeSet::from([150])),
            Some(BTreeSet::from([7, 151])),
            Some(BTreeSet::from([1])),
            Some(BTreeSet::new()),
            None,
        ];
        let scored = choose(&task, Language::Python, &kills);
        assert_eq!(scored.iter().filter(|k| **k).count(), MAX_SCORED);
        assert!(scored[0] && scored[1], "public tests are always scored");
        assert!(scored[150], "the only test killing program 0 is scored");
        assert!(
            scored[7] || scored[151],
            "one test killing program 1 is scored"
        );
    }

    #[test]
    fn a_language_found_wrong_leaves_the_task_and_its_tests() {
        let mut task = task_with(vec![
            call(1, Visibility::Public),
            call(2, Visibility::Hidden),
        ]);
        let python = task.variants[&Language::Python].clone();
        task.variants.insert(Language::Java, python);
        let mut java_only = call(3, Visibility::Hidden);
        java_only.languages = vec![Language::Java];
        let mut both = call(4, Visibility::Hidden);
        both.languages = vec![Language::Python, Language::Java];
        task.tests.extend([java_only, both]);
        let mut extra = Vec::new();
        let applied = apply(
            &mut task,
            &mut extra,
            Selection {
                score: None,
                added: Vec::new(),
                scored: vec![true; 4],
                wrong: BTreeMap::from([(Language::Java, "disagrees".to_owned())]),
                refused: Vec::new(),
            },
        )
        .expect("not measured, so not too weak");
        assert_eq!(applied.dropped.len(), 1);
        assert_eq!(applied.dropped[0].language, Language::Java);
        assert_eq!(
            task.variants.keys().collect::<Vec<_>>(),
            vec![&Language::Python]
        );
        assert_eq!(task.tests.len(), 3, "the Java-only test is gone");
        assert_eq!(task.tests[2].languages, vec![Language::Python]);
    }

    #[test]
    fn only_mutants_told_apart_count_against_the_target() {
        let selection = |killed, survivors: &[&str], equivalent: &[&str]| Selection {
            score: Some(MutationScore {
                language: Language::Python,
                mutants: 10,
                killed,
                survivors: survivors.iter().map(|s| s.to_string()).collect(),
                equivalent: equivalent.iter().map(|s| s.to_string()).collect(),
            }),
            added: Vec::new(),
            scored: Vec::new(),
            wrong: BTreeMap::new(),
            refused: vec!["on [1], python returns 1, java 2".to_owned()],
        };
        // 7 of 10 killed, but two survivors no input tells apart: 7 of 8.
        assert_eq!(
            too_weak(&selection(7, &["line 2: `<` → `<=`"], &["a", "b"])),
            None
        );
        let reason = too_weak(&selection(6, &["line 2: `<` → `<=`", "c"], &["a", "b"]))
            .expect("6 of 8 is under 80 %");
        assert!(reason.contains("kill 6 of the 8 mutants"), "{reason}");
        assert!(reason.contains("line 2: `<` → `<=`"), "{reason}");
        assert!(reason.contains("python returns 1, java 2"), "{reason}");
    }

    #[test]
    fn many_public_tests_still_leave_hidden_ones_scored() {
        let mut tests: Vec<TestCase> = (0..30).map(|n| call(n, Visibility::Public)).collect();
        tests.extend((30..60).map(|n| call(n, Visibility::Hidden)));
        let task = task_with(tests);
        let scored = choose(&task, Language::Python, &[Some(BTreeSet::new())]);
        assert!(scored[..30].iter().all(|k| *k));
        assert_eq!(scored[30..].iter().filter(|k| **k).count(), TARGET_HIDDEN);
    }

    #[test]
    fn copies_of_one_input_move_together() {
        let mut tests: Vec<TestCase> = (0..30).map(|n| call(n, Visibility::Hidden)).collect();
        let mut java_copy = call(25, Visibility::Hidden);
        java_copy.languages = vec![Language::Java];
        tests[25].languages = vec![Language::Python, Language::Javascript];
        tests.push(java_copy);
        let task = task_with(tests);
        let kills = vec![Some(BTreeSet::from([25]))];
        let scored = choose(&task, Language::Python, &kills);
        assert!(scored[25] && scored[30]);
        let mut task = task;
        let mut extra = vec![call(99, Visibility::Hidden)];
        let moved = apply(
            &mut task,
            &mut extra,
            Selection {
                score: Some(MutationScore {
                    language: Language::Python,
                    mutants: 1,
                    killed: 1,
                    survivors: Vec::new(),
                    equivalent: Vec::new(),
                }),
                added: Vec::new(),
                scored,
                wrong: BTreeMap::new(),
                refused: Vec::new(),
            },
        )
        .expect("strong enough")
        .unscored;
        assert_eq!(task.tests.len(), MAX_SCORED + 1);
        assert_eq!(moved, 31 - MAX_SCORED - 1);
        assert_eq!(extra.len(), moved + 1);
        assert_eq!(
            task.calibration.mutation.as_ref().map(|m| m.killed),
            Some(1)
        );
    }
}
