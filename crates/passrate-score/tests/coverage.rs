//! Simulation: with correlated task families, the cluster bootstrap's 95% interval covers the
//! true pass rate about 95% of the time, while resampling tasks as if independent
//! under-covers. This is the reason families are resampled (DESIGN principle 11).
//!
//! Each simulated week has 130 families of 1–5 tasks (about 390 tasks, the size of a real
//! week). A family draws its pass probability p from Beta(1, 1) (uniform: mean 1/2, the true
//! rate) and each of its tasks passes with probability p, so tasks of one family are
//! correlated (intra-family correlation 1 / (1 + 1 + 1) = 1/3). With the size-weighted mean
//! family size 55/15 ≈ 3.67, the design effect is 1 + 2.67 / 3 ≈ 1.89: the task bootstrap's
//! interval is about 1/√1.89 ≈ 0.73 times too narrow, which puts its expected coverage near
//! P(|Z| < 1.96 · 0.73) ≈ 0.85.
//!
//! 2,000 weeks × 400 resamples (not 1,000: the test runs unoptimised in CI, ~20 s; 400
//! resamples still place the 2.5% and 97.5% points at the 11th order statistic from each
//! end). Each bound on the coverage is at least 3 binomial standard errors (±0.5% at 95%,
//! ±0.8% at 85%) away from the expected figure; the seeds are fixed, so the outcome is
//! deterministic.

use passrate_schema::{Category, Language, Tier};
use passrate_score::{Bootstrap, ResampleRng, ScoreConfig, Scorer, TaskTally};

const WEEKS: u32 = 2_000;
const FAMILIES: u32 = 130;
const TRUE_RATE: f64 = 0.5;

/// A uniform draw in (0, 1) from the pinned generator.
fn uniform(rng: &mut ResampleRng) -> f64 {
    (f64::from(rng.next_u32()) + 0.5) / 4_294_967_296.0
}

/// One simulated week's tallies, each task in its family.
fn week(index: u32) -> Vec<TaskTally> {
    let mut rng = ResampleRng::for_estimate("coverage simulation", &[&index.to_string()]);
    let mut tasks = Vec::new();
    for family in 0..FAMILIES {
        let size = 1 + rng.below(5);
        // Beta(1, 1): uniform.
        let p = uniform(&mut rng);
        for _ in 0..size {
            let pass = uniform(&mut rng) < p;
            let i = tasks.len();
            tasks.push(TaskTally {
                task: format!("t{i:04}"),
                family: format!("f{family:04}"),
                language: Language::Python,
                category: Category::ALL[i % Category::ALL.len()],
                tier: Tier::ALL[i % Tier::ALL.len()],
                samples: 1,
                passes: u32::from(pass),
                answered: 1,
                compliant: 1,
                first_passed: pass,
            });
        }
    }
    tasks
}

#[test]
fn cluster_intervals_cover_the_true_rate_and_task_intervals_do_not() {
    let mut scorer = Scorer::new(ScoreConfig {
        bootstrap: Bootstrap {
            resamples: 400,
            ..Bootstrap::default()
        },
        ..ScoreConfig::default()
    })
    .unwrap();
    let (mut cluster, mut naive) = (0u32, 0u32);
    let (mut cluster_width, mut naive_width) = (0.0, 0.0);
    for w in 0..WEEKS {
        let mut tasks = week(w);
        let seed = format!("coverage-{w}");
        let e = scorer.estimate(&seed, &["m", "overall"], &tasks);
        cluster += u32::from(e.ci_low <= TRUE_RATE && TRUE_RATE <= e.ci_high);
        cluster_width += e.ci_high - e.ci_low;
        // The same week with every task its own family: the task bootstrap.
        for t in &mut tasks {
            t.family.clone_from(&t.task);
        }
        let e = scorer.estimate(&seed, &["m", "overall"], &tasks);
        naive += u32::from(e.ci_low <= TRUE_RATE && TRUE_RATE <= e.ci_high);
        naive_width += e.ci_high - e.ci_low;
    }
    let share = |n: u32| f64::from(n) / f64::from(WEEKS);
    let (cluster, naive) = (share(cluster), share(naive));
    let mean = |sum: f64| sum / f64::from(WEEKS);
    eprintln!(
        "coverage of the true rate over {WEEKS} simulated weeks: cluster bootstrap {:.1}% \
         (mean width {:.3}), task bootstrap {:.1}% (mean width {:.3})",
        cluster * 100.0,
        mean(cluster_width),
        naive * 100.0,
        mean(naive_width),
    );
    assert!(
        (0.93..=0.97).contains(&cluster),
        "cluster bootstrap covers {cluster:.3}, expected 0.93–0.97"
    );
    assert!(
        naive < 0.90,
        "the task bootstrap should under-cover with correlated families, covers {naive:.3}"
    );
}
