//! Invariants that must hold for any input: bounds order, containment of the estimate,
//! monotonicity in passes, and the statistics' ranges.

mod common;

use common::{contender, score_with};
use passrate_score::{Bootstrap, ResampleRng, ScoreConfig, Stratify, mcnemar_exact, pass_at_k};
use proptest::prelude::*;

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
}
