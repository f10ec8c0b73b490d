//! A week's leaderboard as stored: each model's latest record, ordered, with the paired
//! comparison to the next model down (tie flags) and the drift test against the model's
//! previous week. The per-task outcomes are read back from the runs that produced the
//! records, so a leaderboard printed later is the one the run printed.

use passrate_schema::ScoreRecord;
use passrate_score::{Contender, DriftReport, ModelOutcomes, PairComparison, ScoreConfig, Scorer};
use passrate_store::Store;
use serde::Serialize;

use crate::error::EngineError;

/// One line of the leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoardRow {
    pub rank: u32,
    pub record: ScoreRecord,
    /// Tasks left out of the score because they had only infrastructure outcomes.
    pub unscored_tasks: u32,
    /// This model against the next one down; `None` on the last row.
    pub vs_next: Option<PairComparison>,
    /// Against the model's previous week on shared tasks; `None` without a previous week.
    pub drift: Option<DriftReport>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Board {
    pub week: String,
    pub rows: Vec<BoardRow>,
}

fn score_error(model: &str) -> impl FnOnce(passrate_score::ScoreError) -> EngineError + '_ {
    move |source| EngineError::Score {
        model: model.to_string(),
        source,
    }
}

/// The leaderboard of `week` (empty when nothing is recorded for it).
pub async fn leaderboard(
    store: &Store,
    week: &str,
    config: &ScoreConfig,
) -> Result<Board, EngineError> {
    let stored = store.leaderboard(week).await?;
    let mut scorer = Scorer::new(config.clone()).map_err(score_error(""))?;
    let mut grouped = Vec::with_capacity(stored.len());
    for s in &stored {
        let record = &s.record;
        let outcomes = store.task_outcomes(&record.run_id, &record.model).await?;
        let outcomes =
            ModelOutcomes::from_outcomes(&record.model, &outcomes, config.infrastructure)
                .map_err(score_error(&record.model))?;
        grouped.push(outcomes);
    }
    let contenders: Vec<Contender<'_>> = stored
        .iter()
        .zip(&grouped)
        .map(|(s, outcomes)| Contender {
            outcomes,
            overall: s.record.overall,
        })
        .collect();
    // Every run of a week has the week's seed; comparisons are seeded from it.
    let seed = stored
        .first()
        .map(|s| s.record.seed.clone())
        .unwrap_or_default();
    let ordered = scorer.leaderboard(&seed, &contenders);
    let mut rows = Vec::with_capacity(ordered.len());
    for row in ordered {
        let index = stored
            .iter()
            .position(|s| s.record.model == row.model)
            .expect("rows come from the records");
        let this_week = &grouped[index];
        let drift = match store.previous_week_outcomes(&row.model, week).await? {
            Some((_, last)) => {
                let last = ModelOutcomes::from_outcomes(&row.model, &last, config.infrastructure)
                    .map_err(score_error(&row.model))?;
                Some(
                    scorer
                        .drift(this_week, &last)
                        .map_err(score_error(&row.model))?,
                )
            }
            None => None,
        };
        rows.push(BoardRow {
            rank: row.rank,
            record: stored[index].record.clone(),
            unscored_tasks: this_week.unscored_tasks.len() as u32,
            vs_next: row.vs_next,
            drift,
        });
    }
    Ok(Board {
        week: week.to_string(),
        rows,
    })
}
