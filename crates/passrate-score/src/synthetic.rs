//! A deterministic synthetic week (models × tasks) for the scoring benchmark and tests.
//!
//! Integer arithmetic only, from the pinned generator, so the workload is identical on every
//! machine and build: a benchmark figure always refers to the same input.

use passrate_schema::{Category, Language, Reason, TaskOutcome, Tier};

use crate::compare::{Contender, LeaderboardRow};
use crate::error::ScoreError;
use crate::rng::ResampleRng;
use crate::score::{ModelScore, ScoreConfig, Scorer};

/// Size of the synthetic week; the default is DESIGN's target (28 models × 400 tasks), with
/// tasks from about 280 families as a real week's are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkloadSpec {
    pub models: u32,
    pub tasks: u32,
    /// About how many families (source problems) the tasks come from; `tasks` or more makes
    /// every task its own family (the task bootstrap).
    pub families: u32,
    pub run_seed: String,
}

impl Default for WorkloadSpec {
    fn default() -> Self {
        WorkloadSpec {
            models: 28,
            tasks: 400,
            families: 280,
            run_seed: "synthetic-2026-W01".to_owned(),
        }
    }
}

/// Every model's outcomes for the synthetic week.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    pub run_seed: String,
    pub models: Vec<(String, Vec<TaskOutcome>)>,
}

impl Workload {
    pub fn outcome_count(&self) -> usize {
        self.models.iter().map(|(_, o)| o.len()).sum()
    }
}

/// What scoring the workload produced.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadScores {
    pub scores: Vec<ModelScore>,
    pub leaderboard: Vec<LeaderboardRow>,
    /// Bootstrap resamples drawn in all (every estimate, every paired difference and the
    /// leaderboard's rank intervals).
    pub resamples: u64,
}

/// Generates the workload. Models differ in skill (20–90%), tasks in difficulty (±25 points);
/// categories cycle, tiers split 40/40/20, and a few answers are missing or non-compliant so
/// every part of the scorer does work. Families are runs of consecutive tasks (so a family
/// spans categories, languages and sometimes tiers, as `humaneval/96`'s completion, fix and
/// translations do), cut at random with the spec's rate; they come from their own stream, so
/// the outcomes do not depend on `families`.
pub fn workload(spec: &WorkloadSpec) -> Workload {
    let mut cuts = ResampleRng::for_estimate(&spec.run_seed, &["synthetic families"]);
    let mut family = 0u32;
    let families: Vec<String> = (0..spec.tasks)
        .map(|t| {
            if t > 0
                && (spec.families >= spec.tasks
                    || cuts.below(spec.tasks - 1) < spec.families.saturating_sub(1))
            {
                family += 1;
            }
            format!("synthetic-family/{family:04}")
        })
        .collect();
    let mut rng = ResampleRng::for_estimate(&spec.run_seed, &["synthetic workload"]);
    let difficulty: Vec<i64> = (0..spec.tasks)
        .map(|_| i64::from(rng.below(51)) - 25)
        .collect();
    let failures = [Reason::WrongAnswer, Reason::RuntimeError, Reason::Timeout];
    let noncompliant = [
        Reason::SyntaxError,
        Reason::NoCode,
        Reason::MissingEntryPoint,
    ];
    let models = (0..spec.models)
        .map(|m| {
            let skill = 20 + i64::from(rng.below(71));
            let outcomes = (0..spec.tasks)
                .map(|t| {
                    let p_pass = (skill - difficulty[t as usize]).clamp(2, 98);
                    let roll = i64::from(rng.below(100));
                    let reason = if rng.below(100) < 3 {
                        Reason::NoAnswer
                    } else if rng.below(100) < 5 {
                        noncompliant[rng.below(3) as usize]
                    } else if roll < p_pass {
                        Reason::Pass
                    } else {
                        failures[rng.below(3) as usize]
                    };
                    TaskOutcome {
                        task: format!("synthetic/{t:04}"),
                        category: Category::ALL[t as usize % Category::ALL.len()],
                        tier: match u64::from(t) * 10 / u64::from(spec.tasks.max(1)) {
                            0..=3 => Tier::One,
                            4..=7 => Tier::Two,
                            _ => Tier::Three,
                        },
                        language: Language::ALL[t as usize % Language::ALL.len()],
                        sample_index: 0,
                        reason,
                        family: families[t as usize].clone(),
                    }
                })
                .collect();
            (format!("synthetic-model-{m:02}"), outcomes)
        })
        .collect();
    Workload {
        run_seed: spec.run_seed.clone(),
        models,
    }
}

/// Scores the workload as a weekly run would: group every model's outcomes, score it
/// (overall, per category, per tier) and build the leaderboard with its paired comparisons
/// and rank intervals.
pub fn score_workload(
    workload: &Workload,
    config: &ScoreConfig,
) -> Result<WorkloadScores, ScoreError> {
    let mut scorer = Scorer::new(config.clone())?;
    let mut grouped = Vec::with_capacity(workload.models.len());
    let mut scores = Vec::with_capacity(workload.models.len());
    for (model, outcomes) in &workload.models {
        let (g, s) = scorer.score_outcomes(&workload.run_seed, model, outcomes)?;
        grouped.push(g);
        scores.push(s);
    }
    let contenders: Vec<Contender<'_>> = grouped
        .iter()
        .zip(&scores)
        .map(|(outcomes, s)| Contender {
            outcomes,
            overall: s.overall,
        })
        .collect();
    let leaderboard = scorer.leaderboard(&workload.run_seed, &contenders);

    let estimates: u64 = scores
        .iter()
        .map(|s| 1 + s.by_category.len() as u64 + s.by_tier.len() as u64)
        .sum();
    let pairs = leaderboard.iter().filter(|r| r.vs_next.is_some()).count() as u64;
    let ranks = u64::from(!leaderboard.is_empty());
    let resamples = (estimates + pairs + ranks) * u64::from(config.bootstrap.resamples);
    Ok(WorkloadScores {
        scores,
        leaderboard,
        resamples,
    })
}

/// Generates the workload and scores it (the benchmark times `score_workload` alone).
pub fn generate_and_score(
    spec: &WorkloadSpec,
    config: &ScoreConfig,
) -> Result<WorkloadScores, ScoreError> {
    score_workload(&workload(spec), config)
}
