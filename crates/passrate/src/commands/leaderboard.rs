//! `passrate leaderboard`: a week's leaderboard from the store: score with its 95% interval,
//! compliance, coverage, and whether each model is distinguishable from the next one down.

use std::fmt::Write as _;

use passrate_engine::{Board, run_score_config};
use passrate_pool::parse_week;
use passrate_schema::exit;

use super::run::{print_data, runtime};
use super::store_args::StoreArgs;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// ISO week, e.g. 2026-W48 (default: the latest week with records).
    #[arg(long)]
    week: Option<String>,
    #[command(flatten)]
    store: StoreArgs,
    /// One JSON document instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    runtime()?.block_on(async {
        let store = args.store.open_existing().await?;
        let week = match &args.week {
            Some(w) => parse_week(w)?,
            None => match store.weeks().await?.pop() {
                Some(w) => w,
                None => {
                    eprintln!(
                        "no score records yet in {}; run `passrate run` first",
                        store.location()
                    );
                    return Ok(exit::OK);
                }
            },
        };
        let board = passrate_engine::leaderboard(&store, &week, &run_score_config()).await?;
        store.close().await;
        if args.json {
            print_data(&format!("{}\n", serde_json::to_string(&board)?))?;
        } else if board.rows.is_empty() {
            eprintln!("no score records for week {week}");
        } else {
            print_data(&render(&board))?;
        }
        Ok(exit::OK)
    })
}

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

/// A signed difference in points, without a `-0.0` for a difference that rounds to zero.
fn points(x: f64) -> String {
    let p = x * 100.0;
    if p.abs() < 0.05 {
        "0.0".to_string()
    } else {
        format!("{p:+.1}")
    }
}

/// The leaderboard as a text table. Scores in percent; "vs next" compares a model with the
/// one below it on their shared tasks (paired bootstrap difference in points) and says
/// `tied` when the leaderboard cannot order them by what it shows.
pub fn render(board: &Board) -> String {
    let width = board
        .rows
        .iter()
        .map(|r| r.record.model.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>4}  {:<width$}  {:>6}  {:>14}  {:>10}  {:>8}  {:>7}  vs next",
        "rank", "model", "score", "95% CI", "compliance", "coverage", "tasks"
    );
    for row in &board.rows {
        let r = &row.record;
        let o = &r.overall;
        let vs = match &row.vs_next {
            None => String::new(),
            Some(c) => {
                let diff = c
                    .difference
                    .map(|d| {
                        format!(
                            " ({} [{}, {}] on {} shared)",
                            points(d.point),
                            points(d.low),
                            points(d.high),
                            c.shared_tasks
                        )
                    })
                    .unwrap_or_else(|| " (no shared tasks)".to_string());
                let verdict = if c.tied {
                    "tied"
                } else if c.significant {
                    "ahead"
                } else {
                    "ahead, not significant"
                };
                format!("{verdict}{diff}")
            }
        };
        let tasks = if row.unscored_tasks > 0 {
            format!("{}+{}u", o.total, row.unscored_tasks)
        } else {
            o.total.to_string()
        };
        let line = format!(
            "{:>4}  {:<width$}  {:>6}  {:>14}  {:>10}  {:>8}  {:>7}  {}",
            row.rank,
            r.model,
            pct(o.score),
            format!("[{}, {}]", pct(o.ci_low), pct(o.ci_high)),
            pct(r.compliance_rate),
            pct(r.coverage),
            tasks,
            vs
        );
        let _ = writeln!(s, "{}", line.trim_end());
    }
    let infra: Vec<String> = board
        .rows
        .iter()
        .filter_map(|row| {
            let n: u32 = row
                .record
                .reasons
                .iter()
                .filter(|(reason, _)| reason.is_infrastructure())
                .map(|(_, n)| n)
                .sum();
            (n > 0).then(|| format!("{} {n}", row.record.model))
        })
        .collect();
    for row in &board.rows {
        if let Some(d) = row.drift.as_ref().filter(|d| d.suspected_update) {
            let _ = writeln!(
                s,
                "drift: {} changed since last week on {} shared tasks ({} → {}, McNemar p = {:.3}): suspected silent update",
                row.record.model,
                d.shared_tasks,
                pct(d.last_week_score),
                pct(d.this_week_score),
                d.p_value
            );
        }
    }
    if let Some(first) = board.rows.first() {
        let r = &first.record;
        let _ = writeln!(
            s,
            "week {}  seed {}  pool {}",
            board.week,
            &r.seed[..r.seed.len().min(12)],
            &r.pool_version[..r.pool_version.len().min(12)]
        );
    }
    if !infra.is_empty() {
        let _ = writeln!(
            s,
            "infrastructure faults (not scored; `u` = tasks left unscored): {}",
            infra.join(", ")
        );
    }
    s
}
