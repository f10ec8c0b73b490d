//! Per-task tallies of one model's outcomes: the compact table every estimate is computed from.

use std::collections::BTreeMap;

use passrate_schema::{Category, Language, Reason, TaskOutcome, Tier};
use serde::{Deserialize, Serialize};

use crate::error::ScoreError;

/// What to do with infrastructure outcomes (`Reason::is_infrastructure`: sandbox or API
/// errors). They are never counted as the model's failures; the choice is between refusing
/// to score and scoring without them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InfraPolicy {
    /// Refuse to score while any infrastructure outcome remains (`ScoreError::Infrastructure`):
    /// the runner is expected to retry them first. The default, so nothing slips through.
    #[default]
    Reject,
    /// Drop the infrastructure samples; a task left with no scored sample leaves the
    /// denominator and is listed in `ModelOutcomes::unscored_tasks`. The dropped samples stay
    /// visible in `reasons` and `excluded_samples`.
    Exclude,
}

/// One task (in one language) for one model, over its scored samples.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskTally {
    pub task: String,
    /// The resampling unit: the task's family (`TaskOutcome::family_or_task`), the source
    /// problem it derives from, or the task id when the family is unknown.
    pub family: String,
    pub language: Language,
    pub category: Category,
    pub tier: Tier,
    /// Scored samples (infrastructure outcomes excluded); at least 1.
    pub samples: u32,
    /// Samples whose reason is `Pass` (compliant and every test passed).
    pub passes: u32,
    /// Samples with an answer (reason other than `NoAnswer`).
    pub answered: u32,
    /// Answered samples that were format-compliant.
    pub compliant: u32,
    /// Whether the lowest-index scored sample passed (the drift test pairs tasks on it).
    pub first_passed: bool,
}

/// One model's outcomes, grouped by task, ordered by (task id, language) so that results do
/// not depend on the order the outcomes arrived in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelOutcomes {
    pub model: String,
    /// Tasks with at least one scored sample, sorted by (task, language).
    pub tasks: Vec<TaskTally>,
    /// Count of every outcome per reason, infrastructure ones included.
    pub reasons: BTreeMap<Reason, u32>,
    /// Infrastructure samples left out under `InfraPolicy::Exclude`.
    pub excluded_samples: u32,
    /// Tasks whose every sample was an infrastructure outcome: not scored at all.
    pub unscored_tasks: Vec<(String, Language)>,
}

impl ModelOutcomes {
    /// Groups `outcomes` (all for `model`; any order) by task.
    pub fn from_outcomes(
        model: &str,
        outcomes: &[TaskOutcome],
        policy: InfraPolicy,
    ) -> Result<ModelOutcomes, ScoreError> {
        let mut order: Vec<&TaskOutcome> = outcomes.iter().collect();
        order.sort_unstable_by(|a, b| {
            (a.task.as_str(), a.language, a.sample_index).cmp(&(
                b.task.as_str(),
                b.language,
                b.sample_index,
            ))
        });

        let mut reasons = BTreeMap::new();
        for outcome in &order {
            *reasons.entry(outcome.reason).or_insert(0) += 1;
        }
        let infrastructure: Vec<&&TaskOutcome> = order
            .iter()
            .filter(|o| o.reason.is_infrastructure())
            .collect();
        if policy == InfraPolicy::Reject
            && let Some(first) = infrastructure.first()
        {
            return Err(ScoreError::Infrastructure {
                model: model.to_owned(),
                count: infrastructure.len() as u32,
                task: first.task.clone(),
                reason: first.reason,
            });
        }

        let mut tasks = Vec::new();
        let mut unscored_tasks = Vec::new();
        for group in order.chunk_by(|a, b| a.task == b.task && a.language == b.language) {
            let head = group[0];
            let mut tally = TaskTally {
                task: head.task.clone(),
                family: head.family_or_task().to_owned(),
                language: head.language,
                category: head.category,
                tier: head.tier,
                samples: 0,
                passes: 0,
                answered: 0,
                compliant: 0,
                first_passed: false,
            };
            for (i, outcome) in group.iter().enumerate() {
                if i > 0 && outcome.sample_index == group[i - 1].sample_index {
                    return Err(ScoreError::DuplicateSample {
                        model: model.to_owned(),
                        task: outcome.task.clone(),
                        language: outcome.language,
                        sample_index: outcome.sample_index,
                    });
                }
                if (outcome.category, outcome.tier) != (head.category, head.tier) {
                    return Err(ScoreError::InconsistentTask {
                        model: model.to_owned(),
                        task: outcome.task.clone(),
                        language: outcome.language,
                        first_category: head.category,
                        first_tier: head.tier,
                        second_category: outcome.category,
                        second_tier: outcome.tier,
                    });
                }
                if outcome.family_or_task() != tally.family {
                    return Err(ScoreError::InconsistentFamily {
                        model: model.to_owned(),
                        task: outcome.task.clone(),
                        language: outcome.language,
                        first: tally.family.clone(),
                        second: outcome.family_or_task().to_owned(),
                    });
                }
                if outcome.reason.is_infrastructure() {
                    continue;
                }
                if tally.samples == 0 {
                    tally.first_passed = outcome.passed();
                }
                tally.samples += 1;
                tally.passes += u32::from(outcome.passed());
                if outcome.reason != Reason::NoAnswer {
                    tally.answered += 1;
                    tally.compliant += u32::from(!outcome.reason.is_noncompliant());
                }
            }
            if tally.samples == 0 {
                unscored_tasks.push((tally.task, tally.language));
            } else {
                tasks.push(tally);
            }
        }

        Ok(ModelOutcomes {
            model: model.to_owned(),
            tasks,
            reasons,
            excluded_samples: infrastructure.len() as u32,
            unscored_tasks,
        })
    }

    /// Number of distinct families among the scored tasks.
    pub fn family_count(&self) -> usize {
        let mut names: Vec<&str> = self.tasks.iter().map(|t| t.family.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names.len()
    }

    /// The largest number of scored samples any task has (1 for single-sample runs).
    pub fn max_samples(&self) -> u32 {
        self.tasks.iter().map(|t| t.samples).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(task: &str, sample: u32, reason: Reason) -> TaskOutcome {
        TaskOutcome {
            task: task.to_owned(),
            category: Category::BugFixing,
            tier: Tier::Two,
            language: Language::Python,
            sample_index: sample,
            reason,
            family: String::new(),
        }
    }

    #[test]
    fn groups_counts_and_orders() {
        let outcomes = [
            outcome("b", 0, Reason::WrongAnswer),
            outcome("a", 1, Reason::Pass),
            outcome("a", 0, Reason::NoAnswer),
            outcome("c", 0, Reason::SyntaxError),
        ];
        let m = ModelOutcomes::from_outcomes("m", &outcomes, InfraPolicy::Reject).unwrap();
        let ids: Vec<&str> = m.tasks.iter().map(|t| t.task.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c"]);
        let a = &m.tasks[0];
        assert_eq!((a.samples, a.passes, a.answered, a.compliant), (2, 1, 1, 1));
        assert!(!a.first_passed, "sample 0 was no_answer");
        let c = &m.tasks[2];
        assert_eq!((c.samples, c.passes, c.answered, c.compliant), (1, 0, 1, 0));
        assert_eq!(m.reasons[&Reason::NoAnswer], 1);
        assert_eq!(m.max_samples(), 2);
    }

    #[test]
    fn infrastructure_is_rejected_by_default() {
        let outcomes = [
            outcome("a", 0, Reason::Pass),
            outcome("b", 0, Reason::SandboxError),
        ];
        let err = ModelOutcomes::from_outcomes("m", &outcomes, InfraPolicy::default()).unwrap_err();
        assert!(
            matches!(err, ScoreError::Infrastructure { count: 1, ref task, .. } if task == "b"),
            "{err}"
        );
    }

    #[test]
    fn infrastructure_excluded_is_reported() {
        let outcomes = [
            outcome("a", 0, Reason::Pass),
            outcome("a", 1, Reason::ApiError),
            outcome("b", 0, Reason::SandboxError),
        ];
        let m = ModelOutcomes::from_outcomes("m", &outcomes, InfraPolicy::Exclude).unwrap();
        assert_eq!(m.tasks.len(), 1);
        assert_eq!(m.tasks[0].samples, 1);
        assert_eq!(m.excluded_samples, 2);
        assert_eq!(m.unscored_tasks, [("b".to_owned(), Language::Python)]);
        assert_eq!(m.reasons[&Reason::SandboxError], 1);
        assert_eq!(m.reasons[&Reason::ApiError], 1);
    }

    #[test]
    fn duplicates_and_inconsistent_labels_are_errors() {
        let dup = [
            outcome("a", 0, Reason::Pass),
            outcome("a", 0, Reason::WrongAnswer),
        ];
        assert!(matches!(
            ModelOutcomes::from_outcomes("m", &dup, InfraPolicy::Reject),
            Err(ScoreError::DuplicateSample {
                sample_index: 0,
                ..
            })
        ));
        let mut other = outcome("a", 1, Reason::Pass);
        other.tier = Tier::Three;
        let mixed = [outcome("a", 0, Reason::Pass), other];
        assert!(matches!(
            ModelOutcomes::from_outcomes("m", &mixed, InfraPolicy::Reject),
            Err(ScoreError::InconsistentTask { .. })
        ));
        // Two samples of one task naming different families: the resampling unit would be
        // ambiguous.
        let mut other = outcome("a", 1, Reason::Pass);
        other.family = "humaneval/96".into();
        let mixed = [outcome("a", 0, Reason::Pass), other];
        assert!(matches!(
            ModelOutcomes::from_outcomes("m", &mixed, InfraPolicy::Reject),
            Err(ScoreError::InconsistentFamily { ref second, .. }) if second == "humaneval/96"
        ));
    }

    #[test]
    fn the_family_defaults_to_the_task_id() {
        let mut fixed = outcome("humaneval-fix/96", 0, Reason::Pass);
        fixed.family = "humaneval/96".into();
        let outcomes = [
            outcome("humaneval/96", 0, Reason::Pass),
            fixed,
            outcome("quixbugs/gcd", 0, Reason::Pass),
        ];
        let m = ModelOutcomes::from_outcomes("m", &outcomes, InfraPolicy::Reject).unwrap();
        let families: Vec<&str> = m.tasks.iter().map(|t| t.family.as_str()).collect();
        assert_eq!(families, ["humaneval/96", "humaneval/96", "quixbugs/gcd"]);
        assert_eq!(m.family_count(), 2);
    }
}
