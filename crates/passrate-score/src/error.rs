//! Errors the scorer reports instead of producing a misleading number.

use passrate_schema::{Category, Language, Reason, Tier};

#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    /// Infrastructure outcomes are not model failures; the caller must retry them or ask for
    /// them to be excluded explicitly (`InfraPolicy::Exclude`).
    #[error(
        "failed to score model {model}: {count} infrastructure outcome(s), first {reason} on task {task} \
         (retry them, or score with InfraPolicy::Exclude to report them as unscored)"
    )]
    Infrastructure {
        model: String,
        count: u32,
        task: String,
        reason: Reason,
    },
    #[error(
        "failed to score model {model}: task {task} ({language}) is labelled both {first_category:?}/{first_tier:?} and {second_category:?}/{second_tier:?}"
    )]
    InconsistentTask {
        model: String,
        task: String,
        language: Language,
        first_category: Category,
        first_tier: Tier,
        second_category: Category,
        second_tier: Tier,
    },
    #[error(
        "failed to score model {model}: task {task} ({language}) is in family {first} and in family {second}"
    )]
    InconsistentFamily {
        model: String,
        task: String,
        language: Language,
        first: String,
        second: String,
    },
    #[error(
        "failed to score model {model}: duplicate outcome for task {task} ({language}) sample {sample_index}"
    )]
    DuplicateSample {
        model: String,
        task: String,
        language: Language,
        sample_index: u32,
    },
    #[error("failed to compare weeks: drift compares one model, got {this_week} and {last_week}")]
    ModelMismatch {
        this_week: String,
        last_week: String,
    },
    #[error("invalid scoring configuration: {0}")]
    InvalidConfig(String),
}
