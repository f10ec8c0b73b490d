//! The cluster bootstrap on hand-checkable inputs: a family of identical tasks behaves as one
//! task, single-task families are the task bootstrap, and subscores and paired differences
//! resample families too.

mod common;

use common::{contender, outcomes, task};
use passrate_schema::{Category, Reason, TaskOutcome};
use passrate_score::{ScoreConfig, Scorer};

fn scorer() -> Scorer {
    Scorer::new(ScoreConfig::default()).unwrap()
}

/// `pattern` repeated `copies` times within each family: family `f` holds tasks
/// `f·copies … f·copies + copies − 1`, all passing iff `pattern[f]`.
fn in_families(pattern: &[bool], copies: usize) -> Vec<TaskOutcome> {
    let passes: Vec<bool> = pattern
        .iter()
        .flat_map(|&p| std::iter::repeat_n(p, copies))
        .collect();
    let mut out = outcomes(&passes);
    for (i, o) in out.iter_mut().enumerate() {
        o.family = format!("family/{:04}", i / copies);
    }
    out
}

const PATTERN: [bool; 40] = [
    true, false, true, true, false, false, true, false, true, true, true, false, true, false,
    false, true, false, false, true, false, true, true, true, false, false, true, false, true,
    true, false, false, false, true, true, false, true, false, true, true, false,
];

#[test]
fn two_families_of_identical_tasks_behave_like_two_tasks() {
    // Family A: 3 passing tasks; family B: 3 failing ones. Every resample is k·3 / 6 = k / 2
    // with k ~ Binomial(2, 1/2) families of A drawn: 0 and 1 each have probability 1/4, far
    // beyond the 2.5% tails, so the interval is [0, 1], exactly that of two single tasks.
    let six = in_families(&[true, false], 3);
    let (_, s) = scorer().score_outcomes("s", "m", &six).unwrap();
    assert_eq!((s.overall.passes, s.overall.total), (3, 6));
    assert_eq!((s.overall.ci_low, s.overall.ci_high), (0.0, 1.0));
    assert_eq!(s.scored_families, 2);
    let (_, two) = scorer()
        .score_outcomes("s", "m", &outcomes(&[true, false]))
        .unwrap();
    assert_eq!(
        (s.overall.ci_low, s.overall.ci_high),
        (two.overall.ci_low, two.overall.ci_high)
    );
    // As six independent tasks, 0/6 and 6/6 each have probability 1/64 < 2.5%: narrower.
    let (_, naive) = scorer()
        .score_outcomes(
            "s",
            "m",
            &outcomes(&[true, true, true, false, false, false]),
        )
        .unwrap();
    assert!(
        naive.overall.ci_low > 0.0 && naive.overall.ci_high < 1.0,
        "{naive:?}"
    );
}

#[test]
fn families_of_identical_tasks_give_the_single_task_interval_exactly() {
    // 40 families of 5 identical tasks: each resample's Σpasses/Σtasks is 5k / 5n = k / n, on
    // the same draws as 40 single tasks (same seed, same layout), so the bounds are equal.
    let (_, clustered) = scorer()
        .score_outcomes("s", "m", &in_families(&PATTERN, 5))
        .unwrap();
    let (_, single) = scorer()
        .score_outcomes("s", "m", &in_families(&PATTERN, 1))
        .unwrap();
    assert_eq!(clustered.overall.score, single.overall.score);
    assert_eq!(
        (clustered.overall.ci_low, clustered.overall.ci_high),
        (single.overall.ci_low, single.overall.ci_high)
    );
    // The 200 tasks resampled as independent would claim about √5 times more precision.
    let mut naive = in_families(&PATTERN, 5);
    naive.iter_mut().for_each(|o| o.family.clear());
    let (_, naive) = scorer().score_outcomes("s", "m", &naive).unwrap();
    let width = |e: passrate_schema::Estimate| e.ci_high - e.ci_low;
    let ratio = width(clustered.overall) / width(naive.overall);
    assert!((1.8..2.7).contains(&ratio), "width ratio {ratio}");
}

#[test]
fn single_task_families_are_the_task_bootstrap_bit_for_bit() {
    // Families named explicitly, one per task, in an order unrelated to the task ids: the
    // layout follows the tasks, never the names, so nothing moves.
    let passes: Vec<bool> = (0..300).map(|i| (i * 37 + 11) % 100 < 55).collect();
    let mut named = outcomes(&passes);
    for (i, o) in named.iter_mut().enumerate() {
        o.family = format!("zz/{}", 1_000 - i);
    }
    let (_, a) = scorer().score_outcomes("s", "m", &named).unwrap();
    let (_, b) = scorer()
        .score_outcomes("s", "m", &outcomes(&passes))
        .unwrap();
    assert_eq!(a, b);
}

#[test]
fn a_subscore_resamples_only_its_own_tasks_of_each_family() {
    // Every family has one bug-fixing task and one other task. The bug-fixing subscore sees
    // one task per family: its interval is that of the bug-fixing tasks alone, as singletons.
    let n = 70;
    let mut week = Vec::new();
    for f in 0..n {
        for (k, category) in [Category::BugFixing, Category::CodeTranslation]
            .into_iter()
            .enumerate()
        {
            let pass = (f * 13 + k * 7) % 10 < 6;
            let mut o = task(
                f * 2 + k,
                2 * n,
                if pass {
                    Reason::Pass
                } else {
                    Reason::WrongAnswer
                },
            );
            o.category = category;
            o.family = format!("family/{f:03}");
            week.push(o);
        }
    }
    let (_, s) = scorer().score_outcomes("s", "m", &week).unwrap();
    let only_fixes: Vec<TaskOutcome> = week
        .iter()
        .filter(|o| o.category == Category::BugFixing)
        .map(|o| TaskOutcome {
            family: String::new(),
            ..o.clone()
        })
        .collect();
    let (_, fixes) = scorer().score_outcomes("s", "m", &only_fixes).unwrap();
    assert_eq!(
        s.by_category[&Category::BugFixing],
        fixes.by_category[&Category::BugFixing]
    );
    assert_eq!(s.scored_families, n as u32);
}

#[test]
fn paired_differences_resample_shared_families() {
    // b is a with every family's outcome flipped for 5 families; as families of 5 identical
    // tasks the paired interval is exactly that of the 40 single tasks.
    let mut b_pattern = PATTERN;
    for f in [0, 3, 8, 12, 17] {
        b_pattern[f] = !b_pattern[f];
    }
    let pair = |copies: usize| {
        let a = scorer()
            .score_outcomes("s", "a", &in_families(&PATTERN, copies))
            .unwrap();
        let b = scorer()
            .score_outcomes("s", "b", &in_families(&b_pattern, copies))
            .unwrap();
        scorer()
            .compare("s", contender(&a), contender(&b))
            .difference
            .unwrap()
    };
    let (clustered, single) = (pair(5), pair(1));
    assert_eq!(
        (clustered.point, clustered.low, clustered.high),
        (single.point, single.low, single.high)
    );
    assert!(clustered.low < clustered.high, "{clustered:?}");
}
