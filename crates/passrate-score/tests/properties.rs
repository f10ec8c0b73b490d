//! Invariants that must hold for any input: bounds order, containment of the estimate,
//! monotonicity in passes, the statistics' ranges, family labels mattering only as a
//! partition, and the shape of rank intervals and tie groups.

mod common;

use common::{contender, outcomes, score_with};
use passrate_schema::TaskOutcome;
use passrate_score::{
    Bootstrap, Contender, ResampleRng, ScoreConfig, Scorer, Stratify, mcnemar_exact, pass_at_k,
};
use proptest::prelude::*;

/// Outcomes for `passes` with task `i` in family `families[i]` (named by `name`).
fn in_families(passes: &[bool], families: &[u8], name: impl Fn(u8) -> String) -> Vec<TaskOutcome> {
    let mut out = outcomes(passes);
    for (o, &f) in out.iter_mut().zip(families) {
        o.family = name(f);
    }
    out
}

/// A pass/fail list with a family label (0..n/2, so families of several tasks occur) per task.
fn clustered() -> impl Strategy<Value = (Vec<bool>, Vec<u8>)> {
    (1usize..120).prop_flat_map(|n| {
        (
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(0u8..((n / 2).max(1) as u8), n),
        )
    })
}

fn config(stratify: Stratify) -> ScoreConfig {
    ScoreConfig {
        // Fewer resamples keep the debug-build run short; the invariants do not depend on it.
        bootstrap: Bootstrap {
            resamples: 200,
            confidence: 0.95,
            stratify,
        },
        ..ScoreConfig::default()
    }
}

fn stratify() -> impl Strategy<Value = Stratify> {
    prop_oneof![
        Just(Stratify::None),
        Just(Stratify::Category),
        Just(Stratify::Tier),
        Just(Stratify::Cell),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn intervals_are_ordered_and_contain_the_estimate(
        passes in prop::collection::vec(any::<bool>(), 1..160),
        seed in "[a-z0-9-]{1,12}",
        stratify in stratify(),
    ) {
        let (_, s) = score_with(config(stratify), &seed, "model", &passes);
        let all = std::iter::once(s.overall)
            .chain(s.by_category.values().copied())
            .chain(s.by_tier.values().copied());
        for e in all {
            prop_assert!(0.0 <= e.ci_low, "{e:?}");
            prop_assert!(e.ci_low <= e.score && e.score <= e.ci_high, "{e:?}");
            prop_assert!(e.ci_high <= 1.0, "{e:?}");
            prop_assert_eq!(e.score, f64::from(e.passes) / f64::from(e.total));
        }
        prop_assert_eq!(s.overall.passes as usize, passes.iter().filter(|p| **p).count());
    }

    #[test]
    fn turning_a_failure_into_a_pass_never_lowers_anything(
        passes in prop::collection::vec(any::<bool>(), 1..160),
        pick in any::<prop::sample::Index>(),
        seed in "[a-z0-9]{1,8}",
        stratify in stratify(),
    ) {
        let i = pick.index(passes.len());
        prop_assume!(!passes[i]);
        let mut better = passes.clone();
        better[i] = true;
        let (_, before) = score_with(config(stratify), &seed, "m", &passes);
        let (_, after) = score_with(config(stratify), &seed, "m", &better);
        // The resampled tasks do not depend on the values, so every resample can only rise.
        let pairs = std::iter::once((before.overall, after.overall))
            .chain(before.by_tier.values().copied().zip(after.by_tier.values().copied()));
        for (b, a) in pairs {
            prop_assert!(a.score >= b.score && a.ci_low >= b.ci_low && a.ci_high >= b.ci_high,
                "{b:?} → {a:?}");
        }
    }

    #[test]
    fn paired_differences_are_bounded_and_contain_the_estimate(
        pairs in prop::collection::vec(any::<(bool, bool)>(), 1..160),
        seed in "[a-z0-9]{1,8}",
    ) {
        let (a_passes, b_passes): (Vec<bool>, Vec<bool>) = pairs.into_iter().unzip();
        let a = score_with(config(Stratify::None), &seed, "a", &a_passes);
        let b = score_with(config(Stratify::None), &seed, "b", &b_passes);
        let mut scorer = passrate_score::Scorer::new(config(Stratify::None)).unwrap();
        let c = scorer.compare(&seed, contender(&a), contender(&b));
        let d = c.difference.unwrap();
        prop_assert!(-1.0 <= d.low && d.low <= d.point && d.point <= d.high && d.high <= 1.0,
            "{d:?}");
        prop_assert!((d.point - (a.1.overall.score - b.1.overall.score)).abs() < 1e-12);
        prop_assert_eq!(c.tied, c.within_intervals || c.within_margin);
    }

    #[test]
    fn pass_at_k_is_a_probability_monotone_in_k_and_c(n in 1u32..300, c in 0u32..300, k in 1u32..300) {
        let c = c % (n + 1);
        let k = 1 + (k - 1) % n;
        let p = pass_at_k(n, c, k).unwrap();
        prop_assert!((0.0..=1.0).contains(&p));
        prop_assert!((pass_at_k(n, c, 1).unwrap() - f64::from(c) / f64::from(n)).abs() < 1e-12);
        if k < n {
            prop_assert!(pass_at_k(n, c, k + 1).unwrap() >= p - 1e-12);
        }
        if c < n {
            prop_assert!(pass_at_k(n, c + 1, k).unwrap() >= p - 1e-12);
        }
    }

    #[test]
    fn mcnemar_is_symmetric_and_shrinks_with_imbalance(b in 0u32..400, c in 0u32..400) {
        let p = mcnemar_exact(b, c);
        prop_assert!(p > 0.0 && p <= 1.0);
        prop_assert_eq!(p, mcnemar_exact(c, b));
        // One more discordant pair on the larger side is more evidence of change.
        let (lo, hi) = (b.min(c), b.max(c));
        prop_assert!(mcnemar_exact(lo, hi + 1) <= p + 1e-15);
    }

    #[test]
    fn bounded_draws_stay_below_the_bound(seed in any::<[u8; 32]>(), n in 1u32..=u32::MAX) {
        let mut rng = ResampleRng::from_seed(seed);
        for _ in 0..64 {
            prop_assert!(rng.below(n) < n);
        }
    }

    #[test]
    fn family_names_matter_only_as_a_partition(
        (passes, families) in clustered(),
        seed in "[a-z0-9]{1,8}",
        stratify in stratify(),
    ) {
        // Renaming every family (a bijection that reverses their sort order) keeps the same
        // groups, so every number stays, bit for bit.
        let a = in_families(&passes, &families, |f| format!("fam-{f:03}"));
        let b = in_families(&passes, &families, |f| format!("zz-{:03}", 255 - f));
        let mut scorer = Scorer::new(config(stratify)).unwrap();
        let (_, sa) = scorer.score_outcomes(&seed, "m", &a).unwrap();
        let (_, sb) = scorer.score_outcomes(&seed, "m", &b).unwrap();
        prop_assert_eq!(sa, sb);
    }

    #[test]
    fn with_families_a_pass_still_never_lowers_anything(
        (passes, families) in clustered(),
        pick in any::<prop::sample::Index>(),
        seed in "[a-z0-9]{1,8}",
        stratify in stratify(),
    ) {
        let i = pick.index(passes.len());
        prop_assume!(!passes[i]);
        let mut better = passes.clone();
        better[i] = true;
        let name = |f: u8| format!("f{f}");
        let mut scorer = Scorer::new(config(stratify)).unwrap();
        let (_, before) = scorer
            .score_outcomes(&seed, "m", &in_families(&passes, &families, name))
            .unwrap();
        let (_, after) = scorer
            .score_outcomes(&seed, "m", &in_families(&better, &families, name))
            .unwrap();
        let pairs = std::iter::once((before.overall, after.overall))
            .chain(before.by_category.values().copied().zip(after.by_category.values().copied()));
        for (b, a) in pairs {
            prop_assert!(a.score >= b.score && a.ci_low >= b.ci_low && a.ci_high >= b.ci_high,
                "{b:?} → {a:?}");
            prop_assert!(0.0 <= a.ci_low && a.ci_low <= a.ci_high && a.ci_high <= 1.0, "{a:?}");
        }
    }

    #[test]
    fn rank_intervals_are_within_the_board_and_groups_follow_overlaps(
        models in prop::collection::vec(prop::collection::vec(any::<bool>(), 30), 1..7),
        families in prop::collection::vec(0u8..12, 30),
        seed in "[a-z0-9]{1,8}",
    ) {
        let mut scorer = Scorer::new(config(Stratify::None)).unwrap();
        // A twin of the first model is always on the board, so equal models always occur.
        let twin = models[0].clone();
        let scored: Vec<_> = models
            .iter()
            .chain([&twin])
            .enumerate()
            .map(|(m, passes)| {
                let o = in_families(passes, &families, |f| format!("f{f}"));
                scorer.score_outcomes(&seed, &format!("model-{m}"), &o).unwrap()
            })
            .collect();
        let contenders: Vec<Contender<'_>> = scored.iter().map(contender).collect();
        let rows = scorer.leaderboard(&seed, &contenders);
        let n = rows.len() as u32;
        let mut last_group = 0;
        for (i, r) in rows.iter().enumerate() {
            prop_assert!(1 <= r.rank_low && r.rank_low <= r.rank_high && r.rank_high <= n, "{r:?}");
            // Groups are numbered in board order: a row starts group k + 1 or joins one
            // already started.
            prop_assert!(r.tie_group <= last_group + 1, "{i}: {r:?}");
            last_group = last_group.max(r.tie_group);
            for other in &rows[..i] {
                let overlap = r.rank_low <= other.rank_high && other.rank_low <= r.rank_high;
                if overlap {
                    prop_assert_eq!(r.tie_group, other.tie_group);
                }
            }
            // Models with the same passes are scored equally on every resample.
            for other in &rows[..i] {
                let same = scored.iter().find(|s| s.0.model == r.model).unwrap().0.tasks
                    == scored.iter().find(|s| s.0.model == other.model).unwrap().0.tasks;
                if same {
                    prop_assert_eq!((r.rank_low, r.rank_high), (other.rank_low, other.rank_high));
                }
            }
        }
    }
}
