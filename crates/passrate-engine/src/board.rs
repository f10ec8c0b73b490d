//! A week's leaderboard as stored, in four sections so that only like is compared with like
//! (ARCHITECTURE.md principle 11):
//! - **ranked**: models that answered the whole sample, ordered, each with its rank interval
//!   and tie group from the family bootstrap and the paired comparison with the next one down;
//! - **partial coverage**: models that answered only part of the sample (replays of public
//!   answer sets), each shown with its score on the tasks it answered (that subset's interval
//!   and n) and compared with the next one only on the tasks both answered;
//! - **unranked**: models whose infrastructure faults exceed
//!   [`BoardOptions::max_fault_share`] of their units (1% by default). Unscored units change
//!   a score, so such a model is shown with its faults and not ranked or compared until the
//!   faulted units are re-run;
//! - **controls**: `reference` and `known-buggy`, built from the pool, never ranked; a run
//!   whose controls do not score 100% and 0% raises an alert.
//!
//! Every row carries its infrastructure faults and their share of the model's units. The
//! threshold only sorts stored records into sections: it changes no record, so it is a board
//! option and not part of a run's configuration.
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
    /// Too many infrastructure faults to rank (`BoardOptions::max_fault_share`).
    Unranked,
    Controls,
}

/// How the board is drawn from the stored records.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BoardOptions {
    /// A model whose infrastructure faults are more than this share of its units (0.01 =
    /// 1%; within 0..=1, 1 ranks every model) is not ranked until they are re-run.
    pub max_fault_share: f64,
}

impl Default for BoardOptions {
    fn default() -> Self {
        BoardOptions {
            max_fault_share: 0.01,
        }
    }
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
    /// The model's units in the sample (every outcome of the record, faults included).
    pub units: u32,
    /// `infrastructure_faults / units` (0 without units).
    pub fault_share: f64,
    /// This model against the next one down in its section, on the tasks both scored
    /// (answered, in the partial section); `None` on a section's last row.
    pub vs_next: Option<PairComparison>,
    /// The record's week-over-week drift signals.
    pub drift: Option<DriftSignals>,
}

impl BoardRow {
    /// Why an unranked row is not ranked, e.g. "not ranked: 3 infrastructure faults (2.0% of
    /// 150 units), re-run to rank"; `None` for rows of other sections.
    pub fn unranked_note(&self) -> Option<String> {
        (self.section == Section::Unranked).then(|| {
            format!(
                "not ranked: {} infrastructure fault{} ({:.1}% of {} units), re-run to rank",
                self.infrastructure_faults,
                if self.infrastructure_faults == 1 {
                    ""
                } else {
                    "s"
                },
                self.fault_share * 100.0,
                self.units
            )
        })
    }
}

/// A week's leaderboard in four sections.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Board {
    pub week: String,
    pub ranked: Vec<BoardRow>,
    pub partial: Vec<BoardRow>,
    /// Models with too many infrastructure faults to rank, by name.
    #[serde(default)]
    pub unranked: Vec<BoardRow>,
    pub controls: Vec<BoardRow>,
    /// The options the board was drawn with.
    #[serde(default)]
    pub options: BoardOptions,
    /// Controls that did not score what they must (reference 100%, known-buggy 0%).
    pub alerts: Vec<String>,
}

impl Board {
    pub fn is_empty(&self) -> bool {
        self.ranked.is_empty()
            && self.partial.is_empty()
            && self.unranked.is_empty()
            && self.controls.is_empty()
    }

    /// Every row, section by section.
    pub fn rows(&self) -> impl Iterator<Item = &BoardRow> {
        self.ranked
            .iter()
            .chain(&self.partial)
            .chain(&self.unranked)
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

/// A record's infrastructure faults and units (its `reasons` count every sample unit).
fn faults(record: &ScoreRecord) -> (u32, u32) {
    let faults = record
        .reasons
        .iter()
        .filter(|(reason, _)| reason.is_infrastructure())
        .map(|(_, n)| n)
        .sum();
    (faults, record.reasons.values().sum())
}

fn fault_share(record: &ScoreRecord) -> f64 {
    match faults(record) {
        (_, 0) => 0.0,
        (faults, units) => f64::from(faults) / f64::from(units),
    }
}

fn section_of(record: &ScoreRecord, options: &BoardOptions) -> Section {
    if record.model == REFERENCE_MODEL || record.model == KNOWN_BUGGY_MODEL {
        Section::Controls
    } else if fault_share(record) > options.max_fault_share {
        Section::Unranked
    } else if record.coverage < 1.0 {
        Section::PartialCoverage
    } else {
        Section::Ranked
    }
}

/// The leaderboard of `week` (empty when nothing is recorded for it), with the default
/// [`BoardOptions`].
pub async fn leaderboard(
    store: &Store,
    week: &str,
    config: &ScoreConfig,
) -> Result<Board, EngineError> {
    leaderboard_with(store, week, config, &BoardOptions::default()).await
}

/// The leaderboard of `week` drawn with `options`.
pub async fn leaderboard_with(
    store: &Store,
    week: &str,
    config: &ScoreConfig,
    options: &BoardOptions,
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
        unranked: Vec::new(),
        controls: Vec::new(),
        options: *options,
        alerts: Vec::new(),
    };
    let of = |section| {
        entries
            .iter()
            .filter(move |e| section_of(&e.stored.record, options) == section)
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

    let mut unranked: Vec<&Entry<'_>> = of(Section::Unranked).collect();
    unranked.sort_by(|x, y| x.stored.record.model.cmp(&y.stored.record.model));
    for entry in unranked {
        board.unranked.push(plain_row(
            entry,
            Section::Unranked,
            entry.stored.record.overall,
        ));
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
    let (infrastructure_faults, units) = faults(record);
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
        infrastructure_faults,
        units,
        fault_share: fault_share(record),
        vs_next: None,
        drift: record.drift.clone(),
    }
}
