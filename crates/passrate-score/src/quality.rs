//! A model's quality scores for a run, from the quality checks of its passed answers: each a
//! share or a median with a cluster-bootstrap interval over task families, like the pass
//! rate, and each over only the passed tasks it applies to, so a failure never counts twice.
//!
//! * robustness: share of checked (task, language) samples passing every extra input;
//! * efficiency: median CPU ratio to the reference over the samples with a ratio (a task's
//!   value is the median of its samples; a time-out is its budget's ratio, a lower bound),
//!   and the share slower than [`passrate_schema::SLOW_RATIO`]× or not getting through the performance inputs at
//!   all (a crash, a limit, a wrong value: these have no ratio);
//! * maintainability: share within the band around the reference, and per measure the median
//!   of the answer's value beside the reference's.

use std::collections::BTreeMap;

use passrate_schema::{
    Category, CodeMeasures, EfficiencyScore, Language, MaintainabilityScore, MeasureMedians,
    Median, QualityScores, Tier, UnitQuality,
};

use crate::bootstrap::number_families;
use crate::rng::ResampleRng;
use crate::score::Scorer;
use crate::tally::TaskTally;

/// One passed sample's quality checks, with what places it among the tasks.
#[derive(Clone, Copy, Debug)]
pub struct QualityUnit<'a> {
    pub task: &'a str,
    /// The resampling unit (the task's family; the task id when unknown).
    pub family: &'a str,
    pub language: Language,
    pub category: Category,
    pub tier: Tier,
    pub quality: &'a UnitQuality,
}

/// The model's quality scores, `None` when no passed sample had a check.
pub fn quality_scores(
    scorer: &mut Scorer,
    run_seed: &str,
    model: &str,
    units: &[QualityUnit<'_>],
) -> Option<QualityScores> {
    let mut units = units.to_vec();
    units.sort_by(|a, b| (a.task, a.language).cmp(&(b.task, b.language)));

    let robustness = share(
        scorer,
        run_seed,
        &[model, "quality", "robustness"],
        &units,
        |q| q.robustness.as_ref().map(|r| r.robust()),
    );
    let slow = share(scorer, run_seed, &[model, "quality", "slow"], &units, |q| {
        q.efficiency.as_ref().map(|e| e.slow())
    });
    let efficiency = slow.map(|slow| EfficiencyScore {
        ratio: median_by_family(
            scorer,
            run_seed,
            &[model, "quality", "ratio"],
            &units,
            |q| measured(q).map(|e| e.ratio),
        ),
        slow,
    });
    let within = share(
        scorer,
        run_seed,
        &[model, "quality", "maintainability"],
        &units,
        |q| q.maintainability.as_ref().map(|m| m.within_band()),
    );
    let maintainability = within.map(|within_band| MaintainabilityScore {
        within_band,
        medians: measure_medians(&units),
    });
    let scores = QualityScores {
        robustness,
        efficiency,
        maintainability,
    };
    (scores.robustness.is_some() || scores.efficiency.is_some() || scores.maintainability.is_some())
        .then_some(scores)
}

/// The share of checked samples for which `check` says yes, as an estimate over the tasks;
/// `None` when no sample was checked.
fn share(
    scorer: &mut Scorer,
    run_seed: &str,
    parts: &[&str],
    units: &[QualityUnit<'_>],
    check: impl Fn(&UnitQuality) -> Option<bool>,
) -> Option<passrate_schema::Estimate> {
    let mut tallies: Vec<TaskTally> = Vec::new();
    for unit in units {
        let Some(yes) = check(unit.quality) else {
            continue;
        };
        let same_task = tallies
            .last()
            .is_some_and(|t| t.task == unit.task && t.language == unit.language);
        if !same_task {
            tallies.push(TaskTally {
                task: unit.task.to_string(),
                family: unit.family.to_string(),
                language: unit.language,
                category: unit.category,
                tier: unit.tier,
                samples: 0,
                passes: 0,
                answered: 0,
                compliant: 0,
                first_passed: yes,
            });
        }
        let t = tallies.last_mut().expect("pushed above");
        t.samples += 1;
        t.answered += 1;
        t.compliant += 1;
        t.passes += u32::from(yes);
    }
    (!tallies.is_empty()).then(|| scorer.estimate(run_seed, parts, &tallies))
}

/// The median over tasks of each task's median `value`, with a percentile interval from
/// resampling families (every task of a drawn family, as the pass rate's bootstrap does).
fn median_by_family(
    scorer: &Scorer,
    run_seed: &str,
    parts: &[&str],
    units: &[QualityUnit<'_>],
    value: impl Fn(&UnitQuality) -> Option<f64>,
) -> Median {
    // (task, language) → its family and its samples' values, in task order.
    let mut tasks: Vec<(&str, Language, &str, Vec<f64>)> = Vec::new();
    for unit in units {
        let Some(v) = value(unit.quality) else {
            continue;
        };
        match tasks.last_mut() {
            Some((task, language, _, values))
                if *task == unit.task && *language == unit.language =>
            {
                values.push(v);
            }
            _ => tasks.push((unit.task, unit.language, unit.family, vec![v])),
        }
    }
    let values: Vec<f64> = tasks.iter().map(|(.., v)| median(v)).collect();
    let (mut order, mut ids) = (Vec::new(), Vec::new());
    let families = number_families(tasks.len(), |i| tasks[i].2, &mut order, &mut ids);
    let mut members: Vec<Vec<f64>> = vec![Vec::new(); families as usize];
    for (i, &family) in ids.iter().enumerate() {
        members[family as usize].push(values[i]);
    }
    let bootstrap = scorer.config().bootstrap;
    let mut rng = ResampleRng::for_estimate(run_seed, parts);
    let mut stats = Vec::with_capacity(bootstrap.resamples as usize);
    let mut drawn = Vec::with_capacity(values.len());
    for _ in 0..bootstrap.resamples {
        drawn.clear();
        for _ in 0..families {
            drawn.extend_from_slice(&members[rng.below(families) as usize]);
        }
        stats.push(median(&drawn));
    }
    stats.sort_by(f64::total_cmp);
    let k = bootstrap.tail_index();
    let point = median(&values);
    let (low, high) = if stats.is_empty() {
        (point, point)
    } else {
        (stats[k], stats[stats.len() - 1 - k])
    };
    Median {
        tasks: values.len() as u32,
        median: point,
        ci_low: low,
        ci_high: high,
    }
}

/// One measure of [`CodeMeasures`] (`None` where it was not taken).
type Field = fn(&CodeMeasures) -> Option<u32>;

fn measure_medians(units: &[QualityUnit<'_>]) -> BTreeMap<String, MeasureMedians> {
    let checks: Vec<_> = units
        .iter()
        .filter_map(|u| u.quality.maintainability.as_ref())
        .collect();
    let fields: [(&str, Field); 6] = [
        ("cyclomatic_complexity", |m| Some(m.cyclomatic_complexity)),
        ("max_nesting_depth", |m| Some(m.max_nesting_depth)),
        ("statements", |m| Some(m.statements)),
        ("duplicated_blocks", |m| Some(m.duplicated_blocks)),
        ("short_names", |m| Some(m.short_names)),
        ("lint_findings", |m| m.lint_findings),
    ];
    let mut medians = BTreeMap::new();
    for (name, field) in fields {
        let pairs: Vec<(f64, f64)> = checks
            .iter()
            .filter_map(|c| {
                Some((
                    f64::from(field(&c.candidate)?),
                    f64::from(field(&c.reference)?),
                ))
            })
            .collect();
        if pairs.is_empty() {
            continue;
        }
        let candidate: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let reference: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        medians.insert(
            name.to_string(),
            MeasureMedians {
                candidate: median(&candidate),
                reference: median(&reference),
            },
        );
    }
    medians
}

fn measured(q: &UnitQuality) -> Option<&passrate_schema::EfficiencyCheck> {
    q.efficiency.as_ref().filter(|e| e.measured())
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::ScoreConfig;
    use passrate_schema::{EfficiencyCheck, MaintainabilityCheck, Reason, RobustnessCheck};

    fn measures(complexity: u32) -> CodeMeasures {
        CodeMeasures {
            cyclomatic_complexity: complexity,
            max_nesting_depth: 1,
            statements: 4,
            duplicated_blocks: 0,
            short_names: 0,
            lint_findings: None,
        }
    }

    fn quality(robust: bool, ratio: Option<f64>, outside: bool) -> UnitQuality {
        UnitQuality {
            robustness: Some(RobustnessCheck {
                extra_tests: 10,
                passed: if robust { 10 } else { 9 },
                reason: if robust {
                    Reason::Pass
                } else {
                    Reason::WrongAnswer
                },
            }),
            efficiency: ratio.map(|ratio| EfficiencyCheck {
                inputs: 3,
                candidate_cpu_ms: 10.0 * ratio,
                reference_cpu_ms: 10.0,
                baseline_cpu_ms: 0.0,
                ratio,
                repeats: 2,
                spread: 0.01,
                reason: Reason::Pass,
            }),
            maintainability: Some(MaintainabilityCheck {
                candidate: measures(if outside { 9 } else { 2 }),
                reference: measures(2),
                outside_band: if outside {
                    vec!["cyclomatic_complexity".into()]
                } else {
                    Vec::new()
                },
            }),
        }
    }

    fn units<'a>(ids: &'a [String], qualities: &'a [UnitQuality]) -> Vec<QualityUnit<'a>> {
        ids.iter()
            .zip(qualities)
            .map(|(id, q)| QualityUnit {
                task: id,
                family: id,
                language: Language::Python,
                category: Category::FunctionCompletion,
                tier: Tier::One,
                quality: q,
            })
            .collect()
    }

    #[test]
    fn shares_medians_and_slow_answers_are_counted_over_the_checked_tasks() {
        let ids: Vec<String> = (0..10).map(|i| format!("t/{i}")).collect();
        let qualities: Vec<UnitQuality> = (0..10)
            .map(|i| {
                quality(
                    i < 8,
                    (i < 9).then_some(if i < 7 { 1.0 + i as f64 / 10.0 } else { 20.0 }),
                    i == 0,
                )
            })
            .collect();
        let mut scorer = Scorer::new(ScoreConfig::default()).unwrap();
        let scores = quality_scores(&mut scorer, "seed", "m", &units(&ids, &qualities)).unwrap();
        let robustness = scores.robustness.unwrap();
        assert_eq!((robustness.passes, robustness.total), (8, 10));
        assert!(robustness.ci_low <= 0.8 && 0.8 <= robustness.ci_high);
        let efficiency = scores.efficiency.unwrap();
        assert_eq!(efficiency.ratio.tasks, 9);
        // Ratios 1.0 … 1.6 and 20, 20: the median of nine is the fifth, 1.4.
        assert!((efficiency.ratio.median - 1.4).abs() < 1e-12);
        assert!(efficiency.ratio.ci_low <= 1.4 && 1.4 <= efficiency.ratio.ci_high);
        assert_eq!((efficiency.slow.passes, efficiency.slow.total), (2, 9));
        let maintainability = scores.maintainability.unwrap();
        assert_eq!(
            (
                maintainability.within_band.passes,
                maintainability.within_band.total
            ),
            (9, 10)
        );
        let complexity = maintainability.medians["cyclomatic_complexity"];
        assert_eq!((complexity.candidate, complexity.reference), (2.0, 2.0));
        assert!(!maintainability.medians.contains_key("lint_findings"));
    }

    #[test]
    fn nothing_checked_gives_no_scores() {
        let ids = vec!["t/0".to_string()];
        let qualities = vec![UnitQuality::default()];
        let mut scorer = Scorer::new(ScoreConfig::default()).unwrap();
        assert_eq!(
            quality_scores(&mut scorer, "s", "m", &units(&ids, &qualities)),
            None
        );
    }

    #[test]
    fn the_median_interval_is_reproducible_and_widens_with_spread() {
        let ids: Vec<String> = (0..40).map(|i| format!("t/{i:02}")).collect();
        let tight: Vec<UnitQuality> = (0..40)
            .map(|i| quality(true, Some(1.0 + (i % 3) as f64 / 100.0), false))
            .collect();
        let wide: Vec<UnitQuality> = (0..40)
            .map(|i| quality(true, Some(0.5 + i as f64 / 10.0), false))
            .collect();
        let mut scorer = Scorer::new(ScoreConfig::default()).unwrap();
        let a = quality_scores(&mut scorer, "s", "m", &units(&ids, &tight)).unwrap();
        let b = quality_scores(&mut scorer, "s", "m", &units(&ids, &tight)).unwrap();
        assert_eq!(a, b);
        let c = quality_scores(&mut scorer, "s", "m", &units(&ids, &wide)).unwrap();
        let width = |s: &QualityScores| {
            let r = s.efficiency.as_ref().unwrap().ratio;
            r.ci_high - r.ci_low
        };
        assert!(
            width(&c) > 10.0 * width(&a),
            "{} vs {}",
            width(&c),
            width(&a)
        );
    }
}
