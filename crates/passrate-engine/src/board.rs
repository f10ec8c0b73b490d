//! A week's leaderboard as stored, in three sections so that only like is compared with like
//! (ARCHITECTURE.md principle 11):
//! - **ranked**: models that answered the whole sample, ordered, each with its rank interval
//!   and tie group from the family bootstrap and the paired comparison with the next one down;
//! - **partial coverage**: models that answered only part of the sample (replays of public
//!   answer sets), each shown with its score on the tasks it answered (that subset's interval
//!   and n) and compared with the next one only on the tasks both answered;
//! - **controls**: `reference` and `known-buggy`, built from the pool, never ranked; a run
//!   whose controls do not score 100% and 0% raises an alert.
//!
//! The per-task outcomes are read back from the runs that produced the records, so a
//! leaderboard printed later is the one the run printed. Drift signals are the records' own.

use std::collections::{HashMap, HashSet};

use passrate_schema::{DriftSignals, Estimate, Reason, ScoreRecord, TaskOutcome};
use passrate_score::{Contender, ModelOutcomes, PairComparison, ScoreConfig, Scorer};
use passrate_store::{Store, StoredRecord};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::EngineError;
use crate::source::{KNOWN_BUGGY_MODEL, REFERENCE_MODEL};

/// Which part of the board a model is shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Ranked,
    PartialCoverage,
    Controls,
}

/// One line of the leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BoardRow {
    pub section: Section,
    /// Position in the ranked section; `None` elsewhere.
    pub rank: Option<u32>,
    /// The rank interval from the family bootstrap (ranked section only).
    pub rank_low: Option<u32>,
    pub rank_high: Option<u32>,
    /// Models whose rank intervals overlap share a group, numbered down the board (ranked
    /// section only).
    pub tie_group: Option<u32>,
    /// The score shown: over the whole sample (ranked, controls) or over the tasks the model
    /// answered (partial coverage).
    pub shown: Estimate,
    /// Tasks behind `shown` (its `total` counts samples: several per task for a model with
    /// several samples).
    pub tasks: u32,
    pub record: ScoreRecord,
    /// Tasks left out of the score because they had only infrastructure outcomes.
    pub unscored_tasks: u32,
    /// Units whose outcome was a sandbox or model API fault.
    pub infrastructure_faults: u32,
    /// This model against the next one down in its section, on the tasks both scored
    /// (answered, in the partial section); `None` on a section's last row.
    pub vs_next: Option<PairComparison>,
    /// The record's week-over-week drift signals.
    pub drift: Option<DriftSignals>,
}

/// A week's leaderboard in three sections.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Board {
    pub week: String,
    pub ranked: Vec<BoardRow>,
    pub partial: Vec<BoardRow>,
    pub controls: Vec<BoardRow>,
    /// Controls that did not score what they must (reference 100%, known-buggy 0%).
    pub alerts: Vec<String>,
}

impl Board {
    pub fn is_empty(&self) -> bool {
        self.ranked.is_empty() && self.partial.is_empty() && self.controls.is_empty()
    }

    /// Every row, section by section.
    pub fn rows(&self) -> impl Iterator<Item = &BoardRow> {
        self.ranked
            .iter()
            .chain(&self.partial)
            .chain(&self.controls)
    }
}

/// A model's scored outcomes as the board compares them.
struct Entry<'a> {
    stored: &'a StoredRecord,
    /// On the whole sample.
    all: ModelOutcomes,
    /// On the tasks the model answered.
    answered: ModelOutcomes,
}

fn section_of(record: &ScoreRecord) -> Section {
    if record.model == REFERENCE_MODEL || record.model == KNOWN_BUGGY_MODEL {
        Section::Controls
    } else if record.coverage < 1.0 {
        Section::PartialCoverage
    } else {
        Section::Ranked
    }
}

/// The leaderboard of `week` (empty when nothing is recorded for it).
pub async fn leaderboard(
    store: &Store,
    week: &str,
    config: &ScoreConfig,
) -> Result<Board, EngineError> {
    let stored = store.leaderboard(week).await?;
    let mut scorer = Scorer::new(config.clone()).map_err(EngineError::score(""))?;
    let mut samples: HashMap<String, HashSet<String>> = HashMap::new();
    let mut entries = Vec::with_capacity(stored.len());
    for s in &stored {
        let record = &s.record;
        if !samples.contains_key(&record.run_id) {
            let tasks = match store.run(&record.run_id).await? {
                Some(run) => run.manifest.items.into_iter().map(|i| i.task).collect(),
                None => HashSet::new(),
            };
            samples.insert(record.run_id.clone(), tasks);
        }
        let in_sample = &samples[&record.run_id];
        // The leaderboard scores the sample; drift-panel units are the run's too.
        let outcomes: Vec<TaskOutcome> = store
            .task_outcomes(&record.run_id, &record.model)
            .await?
            .into_iter()
            .filter(|o| in_sample.is_empty() || in_sample.contains(&o.task))
            .collect();
        let answered: Vec<TaskOutcome> = outcomes
            .iter()
            .filter(|o| o.reason != Reason::NoAnswer)
            .cloned()
            .collect();
        let group = |outcomes: &[TaskOutcome]| {
            ModelOutcomes::from_outcomes(&record.model, outcomes, config.infrastructure)
                .map_err(EngineError::score(&record.model))
        };
        entries.push(Entry {
            stored: s,
            all: group(&outcomes)?,
            answered: group(&answered)?,
        });
    }
    // Every run of a week has the week's seed; comparisons are seeded from it.
    let seed = stored
        .first()
        .map(|s| s.record.seed.clone())
        .unwrap_or_default();

    let mut board = Board {
        week: week.to_string(),
        ranked: Vec::new(),
        partial: Vec::new(),
        controls: Vec::new(),
        alerts: Vec::new(),
    };
    let of = |section| {
        entries
            .iter()
            .filter(move |e| section_of(&e.stored.record) == section)
    };

    let ranked: Vec<Contender<'_>> = of(Section::Ranked)
        .map(|e| Contender {
            outcomes: &e.all,
            overall: e.stored.record.overall,
        })
        .collect();
    for row in scorer.leaderboard(&seed, &ranked) {
        let entry = find(&entries, &row.model);
        board.ranked.push(BoardRow {
            rank: Some(row.rank),
            rank_low: Some(row.rank_low),
            rank_high: Some(row.rank_high),
            tie_group: Some(row.tie_group),
            vs_next: row.vs_next,
            ..plain_row(entry, Section::Ranked, entry.stored.record.overall)
        });
    }

    let mut partial: Vec<&Entry<'_>> = of(Section::PartialCoverage).collect();
    partial.sort_by(|x, y| {
        let (a, b) = (answered_estimate(x), answered_estimate(y));
        b.score
            .total_cmp(&a.score)
            .then(b.ci_low.total_cmp(&a.ci_low))
            .then_with(|| x.stored.record.model.cmp(&y.stored.record.model))
    });
    for (i, entry) in partial.iter().enumerate() {
        let vs_next = partial.get(i + 1).map(|next| {
            scorer.compare(
                &seed,
                Contender {
                    outcomes: &entry.answered,
                    overall: answered_estimate(entry),
                },
                Contender {
                    outcomes: &next.answered,
                    overall: answered_estimate(next),
                },
            )
        });
        board.partial.push(BoardRow {
            vs_next,
            ..plain_row(entry, Section::PartialCoverage, answered_estimate(entry))
        });
    }

    for entry in of(Section::Controls) {
        let record = &entry.stored.record;
        let expected = if record.model == REFERENCE_MODEL {
            1.0
        } else {
            0.0
        };
        if record.overall.score != expected {
            board.alerts.push(format!(
                "control {} scored {:.1}% ({} of {}), it must score {:.0}%: the pool, the \
                 extractor or the runner is wrong, not a model",
                record.model,
                record.overall.score * 100.0,
                record.overall.passes,
                record.overall.total,
                expected * 100.0
            ));
        }
        board
            .controls
            .push(plain_row(entry, Section::Controls, record.overall));
    }
    Ok(board)
}

fn find<'a, 'b>(entries: &'a [Entry<'b>], model: &str) -> &'a Entry<'b> {
    entries
        .iter()
        .find(|e| e.stored.record.model == model)
        .expect("rows come from the records")
}

/// The score on answered tasks: the record's (format 2), or the overall score of an older
/// record, which did not store it.
fn answered_estimate(entry: &Entry<'_>) -> Estimate {
    entry
        .stored
        .record
        .answered
        .unwrap_or(entry.stored.record.overall)
}

fn plain_row(entry: &Entry<'_>, section: Section, shown: Estimate) -> BoardRow {
    let record = &entry.stored.record;
    let behind = if section == Section::PartialCoverage {
        &entry.answered
    } else {
        &entry.all
    };
    BoardRow {
        tasks: behind.tasks.len() as u32,
        section,
        rank: None,
        rank_low: None,
        rank_high: None,
        tie_group: None,
        shown,
        record: record.clone(),
        unscored_tasks: entry.all.unscored_tasks.len() as u32,
        infrastructure_faults: record
            .reasons
            .iter()
            .filter(|(reason, _)| reason.is_infrastructure())
            .map(|(_, n)| n)
            .sum(),
        vs_next: None,
        drift: record.drift.clone(),
    }
}
