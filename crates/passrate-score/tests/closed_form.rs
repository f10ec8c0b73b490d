//! The bootstrap interval agrees with closed-form binomial intervals on large samples.

mod common;

use common::{first_k, score, wilson};

#[test]
fn percentile_bootstrap_matches_wilson_at_n_400() {
    let n = 400;
    for p in [0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95] {
        let k = (p * n as f64).round() as usize;
        let (w_low, w_high) = wilson(k, n);
        for seed in ["2026-W01", "2026-W02", "2026-W03"] {
            let (_, s) = score(seed, "model", &first_k(n, k));
            let e = s.overall;
            assert_eq!((e.passes, e.total), (k as u32, n as u32));
            let (width, w_width) = (e.ci_high - e.ci_low, w_high - w_low);
            assert!(
                (width / w_width - 1.0).abs() < 0.15,
                "p={p} seed={seed}: bootstrap width {width:.4} vs Wilson {w_width:.4}"
            );
            assert!(
                (e.ci_low - w_low).abs() < 0.012 && (e.ci_high - w_high).abs() < 0.012,
                "p={p} seed={seed}: bootstrap [{:.4}, {:.4}] vs Wilson [{w_low:.4}, {w_high:.4}]",
                e.ci_low,
                e.ci_high
            );
        }
    }
}

#[test]
fn bootstrap_width_tracks_the_normal_approximation() {
    // Half-width of the normal interval is 1.96·sqrt(p(1−p)/n): it shrinks as n grows and is
    // widest at p = 0.5; the bootstrap must follow both trends.
    let half = |k: usize, n: usize| {
        let (_, s) = score("2026-W10", "model", &first_k(n, k));
        (s.overall.ci_high - s.overall.ci_low) / 2.0
    };
    for (k, n) in [(50, 100), (200, 400), (800, 1600)] {
        let p = k as f64 / n as f64;
        let normal = 1.96 * (p * (1.0 - p) / n as f64).sqrt();
        let h = half(k, n);
        assert!(
            (h / normal - 1.0).abs() < 0.15,
            "n={n}: {h:.4} vs {normal:.4}"
        );
    }
    assert!(half(200, 400) > half(40, 400));
}
