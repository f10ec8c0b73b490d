//! Week-over-week drift of one model: did the identifier serve a different model this week?
//!
//! Two signals, both against the model's latest record of an earlier week (ARCHITECTURE.md
//! principle 10):
//! - **McNemar**: the exact test on the first sample's verdicts of the tasks both runs
//!   scored — the drift panel (the same tasks in the same languages every week) and the
//!   sample tasks the two weeks happen to share. The panel is what gives it power: two weekly
//!   samples share only a few dozen tasks.
//! - **Answer change**: the share of panel answers (first sample, code extracted both weeks)
//!   whose normalized code differs. At temperature 0 a provider that swaps the model behind an
//!   identifier changes most answers even when the pass rate barely moves.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use passrate_schema::{DriftSignals, Language, Manifest, TaskOutcome};
use passrate_score::{InfraPolicy, ModelOutcomes};
use passrate_store::{Store, UnitResult};
use serde::{Deserialize, Serialize};

use crate::error::EngineError;

/// How drift is flagged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DriftOptions {
    /// Significance level of the McNemar test.
    pub alpha: f64,
    /// Answer-change rate above which a model is flagged (0.5: most panel answers changed).
    pub change_threshold: f64,
    /// Fewest panel answers compared before the answer-change rate can flag (a model that
    /// answered three panel tasks says little either way).
    pub min_answers: u32,
}

impl Default for DriftOptions {
    fn default() -> Self {
        DriftOptions {
            alpha: 0.05,
            change_threshold: 0.5,
            min_answers: 10,
        }
    }
}

/// One week's side of the comparison: which tasks were the panel, the outcomes, the code.
pub struct WeekSide<'a> {
    pub manifest: &'a Manifest,
    pub outcomes: &'a [TaskOutcome],
    pub units: &'a [UnitResult],
}

/// Code as compared week over week: comment-only lines dropped and every run of whitespace
/// made one space, so reformatting alone is not a change, while any change of tokens is.
pub fn normalize_code(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    for line in code.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("//") {
            continue;
        }
        for word in trimmed.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}

type Key = (String, Language);

fn panel_keys(manifest: &Manifest) -> BTreeSet<Key> {
    manifest
        .panel
        .iter()
        .map(|i| (i.task.clone(), i.language))
        .collect()
}

fn sample_keys(manifest: &Manifest) -> BTreeSet<Key> {
    manifest
        .items
        .iter()
        .map(|i| (i.task.clone(), i.language))
        .collect()
}

/// The drift signals of `model` between `previous` (an earlier week's run) and `current`.
pub fn compare(
    model: &str,
    previous_week: &str,
    previous_run_id: &str,
    current: &WeekSide<'_>,
    previous: &WeekSide<'_>,
    options: &DriftOptions,
) -> Result<DriftSignals, EngineError> {
    let (panel_now, panel_before) = (panel_keys(current.manifest), panel_keys(previous.manifest));
    let panel: BTreeSet<&Key> = panel_now.intersection(&panel_before).collect();
    let shared_sample: BTreeSet<Key> = sample_keys(current.manifest)
        .intersection(&sample_keys(previous.manifest))
        .cloned()
        .collect();
    let compared = |outcomes: &[TaskOutcome]| -> Vec<TaskOutcome> {
        outcomes
            .iter()
            .filter(|o| {
                let key = (o.task.clone(), o.language);
                panel.contains(&key) || shared_sample.contains(&key)
            })
            .cloned()
            .collect()
    };
    let now =
        ModelOutcomes::from_outcomes(model, &compared(current.outcomes), InfraPolicy::Exclude)
            .map_err(EngineError::score(model))?;
    let before =
        ModelOutcomes::from_outcomes(model, &compared(previous.outcomes), InfraPolicy::Exclude)
            .map_err(EngineError::score(model))?;
    let report = passrate_score::drift::drift(&now, &before, options.alpha)
        .map_err(EngineError::score(model))?;

    let passed_before: HashMap<(&str, Language), bool> = before
        .tasks
        .iter()
        .map(|t| ((t.task.as_str(), t.language), t.first_passed))
        .collect();
    let mut flipped_tasks: Vec<String> = now
        .tasks
        .iter()
        .filter(|t| {
            passed_before
                .get(&(t.task.as_str(), t.language))
                .is_some_and(|&was| was != t.first_passed)
        })
        .map(|t| format!("{} ({})", t.task, t.language))
        .collect();
    flipped_tasks.sort();

    let first_code = |side: &WeekSide<'_>| -> BTreeMap<Key, String> {
        side.units
            .iter()
            .filter(|u| u.sample_index == 0)
            .filter_map(|u| {
                let key = (u.task.clone(), u.language);
                let code = u.extracted_code.as_deref()?;
                panel.contains(&key).then(|| (key, normalize_code(code)))
            })
            .collect()
    };
    let (code_now, code_before) = (first_code(current), first_code(previous));
    let mut answers_compared = 0u32;
    let mut answers_changed = 0u32;
    for (key, code) in &code_now {
        if let Some(old) = code_before.get(key) {
            answers_compared += 1;
            answers_changed += u32::from(old != code);
        }
    }
    let answer_change_rate = if answers_compared == 0 {
        0.0
    } else {
        f64::from(answers_changed) / f64::from(answers_compared)
    };

    let mut flags = Vec::new();
    if report.suspected_update {
        flags.push(format!(
            "McNemar: p = {:.2e} < {} on {} tasks compared with {previous_week} ({} now failing, \
             {} now passing; pass rate {:.1}% -> {:.1}%)",
            report.p_value,
            options.alpha,
            report.shared_tasks,
            report.only_last_week,
            report.only_this_week,
            report.last_week_score * 100.0,
            report.this_week_score * 100.0,
        ));
    }
    if answers_compared >= options.min_answers && answer_change_rate > options.change_threshold {
        flags.push(format!(
            "answer change: {answers_changed} of {answers_compared} panel answers changed since \
             {previous_week} ({:.0}% > {:.0}%)",
            answer_change_rate * 100.0,
            options.change_threshold * 100.0
        ));
    }
    Ok(DriftSignals {
        previous_week: previous_week.to_string(),
        previous_run_id: previous_run_id.to_string(),
        tasks_compared: report.shared_tasks,
        both_pass: report.both_pass,
        both_fail: report.both_fail,
        now_failing: report.only_last_week,
        now_passing: report.only_this_week,
        p_value: report.p_value,
        alpha: options.alpha,
        answers_compared,
        answers_changed,
        answer_change_rate,
        change_threshold: options.change_threshold,
        flags,
        flipped_tasks,
    })
}

/// The drift signals of `model` in `week` against its latest record of an earlier week, read
/// from the store; `None` when it has none.
pub async fn against_previous_week(
    store: &Store,
    model: &str,
    week: &str,
    current: &WeekSide<'_>,
    options: &DriftOptions,
) -> Result<Option<DriftSignals>, EngineError> {
    let Some(previous) = store.previous_record(model, week).await? else {
        return Ok(None);
    };
    let run_id = &previous.record.run_id;
    let Some(run) = store.run(run_id).await? else {
        return Ok(None);
    };
    let outcomes = store.task_outcomes(run_id, model).await?;
    let units = store.unit_results(run_id, model).await?;
    let side = WeekSide {
        manifest: &run.manifest,
        outcomes: &outcomes,
        units: &units,
    };
    compare(
        model,
        &previous.record.week,
        run_id,
        current,
        &side,
        options,
    )
    .map(Some)
}

#[cfg(test)]
mod tests {
    use super::normalize_code;

    #[test]
    fn reformatting_and_comments_are_not_a_change_but_tokens_are() {
        let a = "def f(x):\n    # add one\n    return x + 1\n";
        let b = "def f(x):\n\n        return x  +  1";
        let c = "def f(x):\n    return x + 2\n";
        assert_eq!(normalize_code(a), normalize_code(b));
        assert_ne!(normalize_code(a), normalize_code(c));
        assert_eq!(normalize_code("// only a comment\n"), "");
    }
}
