//! One model's score for a run: pass rate with its cluster-bootstrap interval, subscores,
//! compliance, coverage, reason counts and pass@k.

use std::borrow::Borrow;
use std::collections::BTreeMap;

use passrate_schema::{Category, Estimate, Language, Reason, TaskOutcome, Tier};
use serde::{Deserialize, Serialize};

use crate::bootstrap::{Bootstrap, Interval, Resampler, number_families};
use crate::error::ScoreError;
use crate::passk::mean_pass_at_k;
use crate::rank::RankScratch;
use crate::rng::ResampleRng;
use crate::tally::{InfraPolicy, ModelOutcomes, TaskTally};

/// Everything that decides the numbers; stored choices, not tuning knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreConfig {
    pub bootstrap: Bootstrap,
    pub infrastructure: InfraPolicy,
    /// k values for pass@k, reported when every task has at least k samples and some task
    /// has more than one.
    pub pass_at_k: Vec<u32>,
    /// Two models closer than this (in score, 0.02 = 2 points) are flagged as tied.
    pub tie_margin: f64,
    /// Significance level of the drift test.
    pub drift_alpha: f64,
}

impl Default for ScoreConfig {
    fn default() -> Self {
        ScoreConfig {
            bootstrap: Bootstrap::default(),
            infrastructure: InfraPolicy::Reject,
            pass_at_k: vec![1, 10, 100],
            tie_margin: 0.02,
            drift_alpha: 0.05,
        }
    }
}

impl ScoreConfig {
    pub fn validate(&self) -> Result<(), ScoreError> {
        self.bootstrap.validate()?;
        if !(0.0..=1.0).contains(&self.tie_margin) {
            return Err(ScoreError::InvalidConfig(format!(
                "tie margin must be within 0..=1, got {}",
                self.tie_margin
            )));
        }
        if !(self.drift_alpha > 0.0 && self.drift_alpha < 1.0) {
            return Err(ScoreError::InvalidConfig(format!(
                "drift alpha must be strictly between 0 and 1, got {}",
                self.drift_alpha
            )));
        }
        if self.pass_at_k.contains(&0) {
            return Err(ScoreError::InvalidConfig("pass@k needs k ≥ 1".into()));
        }
        Ok(())
    }
}

/// A model's score for one run. `Estimate`s count samples: with one sample per task,
/// `passes / total` is passes / tasks; with n samples per task it is the mean pass@1. The
/// intervals resample whole families (see `bootstrap`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelScore {
    pub model: String,
    pub overall: Estimate,
    /// Categories with at least one scored task.
    pub by_category: BTreeMap<Category, Estimate>,
    /// Tiers with at least one scored task.
    pub by_tier: BTreeMap<Tier, Estimate>,
    /// Languages with at least one scored task.
    pub by_language: BTreeMap<Language, Estimate>,
    /// Share of answered samples that were format-compliant (0 when nothing was answered).
    pub compliance_rate: f64,
    /// Share of scored tasks with at least one answer (`no_answer` is a non-pass counted here).
    pub coverage: f64,
    /// Count of every outcome per reason, infrastructure ones included.
    pub reasons: BTreeMap<Reason, u32>,
    /// pass@k (unbiased estimator, mean over tasks); empty for single-sample runs.
    pub pass_at_k: BTreeMap<u32, f64>,
    pub scored_tasks: u32,
    /// Families (source problems) the scored tasks come from: the number of independent
    /// units the overall interval resamples.
    pub scored_families: u32,
    /// Tasks with only infrastructure outcomes (under `InfraPolicy::Exclude`).
    pub unscored_tasks: u32,
    /// Infrastructure samples left out (under `InfraPolicy::Exclude`).
    pub excluded_samples: u32,
}

/// Scores models with one configuration, reusing its resampling buffers across calls.
#[derive(Debug)]
pub struct Scorer {
    pub(crate) config: ScoreConfig,
    pub(crate) resampler: Resampler,
    pub(crate) scratch: Scratch,
    pub(crate) ranks: RankScratch,
}

/// Reusable buffers besides the resampler's: family numbering and shared-task matching.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// Sort order used while numbering families.
    pub(crate) order: Vec<u32>,
    /// Family number of each task of the estimate at hand.
    pub(crate) ids: Vec<u32>,
    /// Indices of the tasks two models share, as (index in a, index in b).
    pub(crate) shared: Vec<(u32, u32)>,
}

impl Scorer {
    pub fn new(config: ScoreConfig) -> Result<Scorer, ScoreError> {
        config.validate()?;
        Ok(Scorer {
            config,
            resampler: Resampler::new(),
            scratch: Scratch::default(),
            ranks: RankScratch::default(),
        })
    }

    pub fn config(&self) -> &ScoreConfig {
        &self.config
    }

    /// Groups raw outcomes (applying the infrastructure policy) and scores them.
    pub fn score_outcomes(
        &mut self,
        run_seed: &str,
        model: &str,
        outcomes: &[TaskOutcome],
    ) -> Result<(ModelOutcomes, ModelScore), ScoreError> {
        let grouped = ModelOutcomes::from_outcomes(model, outcomes, self.config.infrastructure)?;
        let score = self.score(run_seed, &grouped);
        Ok((grouped, score))
    }

    /// Scores one model. Each estimate has its own generator, seeded from the run seed, the
    /// model id and the estimate's name, so adding a subscore never shifts another's interval.
    pub fn score(&mut self, run_seed: &str, outcomes: &ModelOutcomes) -> ModelScore {
        let model = outcomes.model.as_str();
        // Families are numbered once per model; every estimate groups its tasks by them.
        let tasks = &outcomes.tasks;
        let families = number_families(
            tasks.len(),
            |i| tasks[i].family.as_str(),
            &mut self.scratch.order,
            &mut self.scratch.ids,
        );
        let overall = self.estimate_numbered(run_seed, tasks, &[model, "overall"], |_| true);
        let mut by_category = BTreeMap::new();
        for category in Category::ALL {
            if tasks.iter().any(|t| t.category == category) {
                let parts = [model, "category", category.as_str()];
                let e = self.estimate_numbered(run_seed, tasks, &parts, |t| t.category == category);
                by_category.insert(category, e);
            }
        }
        let mut by_tier = BTreeMap::new();
        for (tier, label) in Tier::ALL.into_iter().zip(["1", "2", "3"]) {
            if tasks.iter().any(|t| t.tier == tier) {
                let parts = [model, "tier", label];
                let e = self.estimate_numbered(run_seed, tasks, &parts, |t| t.tier == tier);
                by_tier.insert(tier, e);
            }
        }
        let mut by_language = BTreeMap::new();
        for language in Language::ALL {
            if tasks.iter().any(|t| t.language == language) {
                let parts = [model, "language", language.as_str()];
                let e = self.estimate_numbered(run_seed, tasks, &parts, |t| t.language == language);
                by_language.insert(language, e);
            }
        }

        let answered: u64 = tasks.iter().map(|t| u64::from(t.answered)).sum();
        let compliant: u64 = tasks.iter().map(|t| u64::from(t.compliant)).sum();
        let covered = tasks.iter().filter(|t| t.answered > 0).count();
        let scored = tasks.len();

        let mut pass_at_k = BTreeMap::new();
        if outcomes.max_samples() > 1 {
            for &k in &self.config.pass_at_k {
                let per_task = tasks.iter().map(|t| (t.samples, t.passes));
                if let Some(value) = mean_pass_at_k(per_task, k) {
                    pass_at_k.insert(k, value);
                }
            }
        }

        ModelScore {
            model: model.to_owned(),
            overall,
            by_category,
            by_tier,
            by_language,
            compliance_rate: share(compliant, answered),
            coverage: share(covered as u64, scored as u64),
            reasons: outcomes.reasons.clone(),
            pass_at_k,
            scored_tasks: scored as u32,
            scored_families: families,
            unscored_tasks: outcomes.unscored_tasks.len() as u32,
            excluded_samples: outcomes.excluded_samples,
        }
    }

    /// The pass rate of any set of tasks with its cluster-bootstrap interval, seeded from the
    /// run seed and `parts` (which name the estimate: `score` uses `[model, "overall"]`,
    /// `[model, "category", name]`, `[model, "tier", "1"]`). For a subset `score` does not
    /// report, e.g. a partially covered model's tasks shared with another. `tasks` should be in
    /// (task id, language) order, as `ModelOutcomes::tasks` is: the order of first appearance
    /// decides the families' layout and so which family each draw picks.
    pub fn estimate<T: Borrow<TaskTally>>(
        &mut self,
        run_seed: &str,
        parts: &[&str],
        tasks: &[T],
    ) -> Estimate {
        number_families(
            tasks.len(),
            |i| tasks[i].borrow().family.as_str(),
            &mut self.scratch.order,
            &mut self.scratch.ids,
        );
        self.estimate_numbered(run_seed, tasks, parts, |_| true)
    }

    /// The estimate over the tasks `keep` selects, with families already numbered in
    /// `scratch.ids` (index for index with `tasks`).
    fn estimate_numbered<T: Borrow<TaskTally>>(
        &mut self,
        run_seed: &str,
        tasks: &[T],
        parts: &[&str],
        keep: impl Fn(&TaskTally) -> bool,
    ) -> Estimate {
        let stratify = self.config.bootstrap.stratify;
        let (mut passes, mut total) = (0u32, 0u32);
        self.resampler.clear();
        for (t, &family) in tasks.iter().zip(&self.scratch.ids) {
            let t = t.borrow();
            if !keep(t) {
                continue;
            }
            passes += t.passes;
            total += t.samples;
            self.resampler.push(
                family,
                stratify,
                t.category,
                t.tier,
                (t.passes, t.samples),
                (0, 1),
            );
        }
        let mut rng = ResampleRng::for_estimate(run_seed, parts);
        let Interval { point, low, high } = self.resampler.single(&mut rng, &self.config.bootstrap);
        Estimate {
            passes,
            total,
            score: point,
            ci_low: low,
            ci_high: high,
        }
    }
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}
