//! `passrate leaderboard`: a week's leaderboard from the store: score with its 95% interval,
//! compliance, coverage, and whether each model is distinguishable from the next one down;
//! every model's infrastructure faults with their share of its units, and the models with too
//! many of them to rank.

use std::fmt::Write as _;

use passrate_engine::{Board, BoardRow, run_score_config};
use passrate_pool::parse_week;
use passrate_schema::exit;

use super::CliError;
use super::output::{print_data, print_json};
use super::run::runtime;
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

pub fn run(args: Args) -> Result<i32, CliError> {
    runtime()?.block_on(async {
        let store = args.store.open_existing().await?;
        let week = match &args.week {
            Some(w) => parse_week(w)?,
            None => match store.weeks().await?.pop() {
                Some(w) => w,
                None => {
                    super::notice!(
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
            print_json("the leaderboard", &board)?;
        } else if board.is_empty() {
            super::notice!("no score records for week {week}");
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

fn interval(e: &passrate_schema::Estimate) -> String {
    format!("[{}, {}]", pct(e.ci_low), pct(e.ci_high))
}

/// "ahead (+5.3 [+1.5, +8.8] on 400 shared)": the paired comparison with the next row.
fn versus(row: &BoardRow) -> String {
    let Some(c) = &row.vs_next else {
        return String::new();
    };
    // Without a shared task there is nothing to compare: neither "ahead" nor "tied".
    if c.difference.is_none() {
        return "not comparable (no task scored by both)".to_string();
    }
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

/// `[low, high]` of a ratio.
fn ratio_interval(low: f64, high: f64) -> String {
    format!("[{low:.2}, {high:.2}]")
}

/// The quality table: every row with quality scores, in board order. Beside the pass rate,
/// never in it: each column is over the model's passed tasks it applies to.
fn render_quality(s: &mut String, board: &Board, width: usize) {
    let rows: Vec<_> = board
        .rows()
        .filter_map(|r| Some((r, r.record.quality.as_ref()?)))
        .collect();
    if rows.is_empty() {
        return;
    }
    let mut line = |text: String| {
        let _ = writeln!(s, "{}", text.trim_end());
    };
    line(String::new());
    line(
        "quality of passed answers, never in the score: plus = every extra input passed; cpu = CPU"
            .to_string(),
    );
    line(
        "time / reference's, median; slow = over 10x or failing; band = code in the reference's \
         band"
            .to_string(),
    );
    line(format!(
        "{:<width$}  {:>6}  {:>14}  {:>5}  {:>6}  {:>14}  {:>6}  {:>5}  {:>6}  {:>14}  {:>5}",
        "model", "plus", "95% CI", "n", "cpu", "95% CI", "slow", "n", "band", "95% CI", "n"
    ));
    let dash = || "-".to_string();
    for (row, q) in rows {
        let (plus, plus_ci, plus_n) = q.robustness.as_ref().map_or_else(
            || (dash(), dash(), dash()),
            |e| (pct(e.score), interval(e), e.total.to_string()),
        );
        let (cpu, cpu_ci, slow, cpu_n) = q.efficiency.as_ref().map_or_else(
            || (dash(), dash(), dash(), dash()),
            |e| {
                (
                    format!("{:.2}x", e.ratio.median),
                    ratio_interval(e.ratio.ci_low, e.ratio.ci_high),
                    pct(e.slow.score),
                    e.slow.total.to_string(),
                )
            },
        );
        let (band, band_ci, band_n) = q.maintainability.as_ref().map_or_else(
            || (dash(), dash(), dash()),
            |m| {
                (
                    pct(m.within_band.score),
                    interval(&m.within_band),
                    m.within_band.total.to_string(),
                )
            },
        );
        line(format!(
            "{:<width$}  {:>6}  {:>14}  {:>5}  {:>6}  {:>14}  {:>6}  {:>5}  {:>6}  {:>14}  {:>5}",
            row.record.model,
            plus,
            plus_ci,
            plus_n,
            cpu,
            cpu_ci,
            slow,
            cpu_n,
            band,
            band_ci,
            band_n
        ));
    }
}

fn tasks(row: &BoardRow) -> String {
    if row.unscored_tasks > 0 {
        format!("{}+{}u", row.tasks, row.unscored_tasks)
    } else {
        row.tasks.to_string()
    }
}

/// The leaderboard as text, in its sections (ranked, partial coverage, not ranked, controls). Scores in percent with their 95%
/// intervals. Ranked models carry their rank interval and tie group (models whose rank
/// intervals overlap share a group); "vs next" compares a model with the one below it in its
/// section on the tasks both scored (paired bootstrap difference in points) and says `tied`
/// when the board cannot order them by what it shows.
pub fn render(board: &Board) -> String {
    let width = board
        .rows()
        .map(|r| r.record.model.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut s = String::new();
    let line = |s: &mut String, text: String| {
        let _ = writeln!(s, "{}", text.trim_end());
    };

    line(
        &mut s,
        "ranked: models that answered the whole sample".to_string(),
    );
    if board.ranked.is_empty() {
        line(&mut s, "  (none this week)".to_string());
    } else {
        line(
            &mut s,
            format!(
                "{:>4}  {:>7}  {:>5}  {:<width$}  {:>6}  {:>14}  {:>10}  {:>7}  vs next",
                "rank", "rank CI", "group", "model", "score", "95% CI", "compliance", "tasks"
            ),
        );
        for row in &board.ranked {
            let r = &row.record;
            line(
                &mut s,
                format!(
                    "{:>4}  {:>7}  {:>5}  {:<width$}  {:>6}  {:>14}  {:>10}  {:>7}  {}",
                    row.rank.unwrap_or(0),
                    format!(
                        "{}-{}",
                        row.rank_low.unwrap_or(0),
                        row.rank_high.unwrap_or(0)
                    ),
                    row.tie_group.unwrap_or(0),
                    r.model,
                    pct(row.shown.score),
                    interval(&row.shown),
                    pct(r.compliance_rate),
                    tasks(row),
                    versus(row)
                ),
            );
        }
    }

    if !board.partial.is_empty() {
        line(&mut s, String::new());
        line(
            &mut s,
            "partial coverage: scored on the tasks each answered, compared only on tasks both \
             answered"
                .to_string(),
        );
        line(
            &mut s,
            format!(
                "{:<width$}  {:>6}  {:>14}  {:>9}  {:>10}  {:>8}  vs next",
                "model", "score", "95% CI", "answered", "compliance", "coverage"
            ),
        );
        for row in &board.partial {
            let r = &row.record;
            line(
                &mut s,
                format!(
                    "{:<width$}  {:>6}  {:>14}  {:>9}  {:>10}  {:>8}  {}",
                    r.model,
                    pct(row.shown.score),
                    interval(&row.shown),
                    format!("{}/{}", row.shown.total, r.overall.total),
                    pct(r.compliance_rate),
                    pct(r.coverage),
                    versus(row)
                ),
            );
        }
    }

    if !board.unranked.is_empty() {
        line(&mut s, String::new());
        line(
            &mut s,
            format!(
                "not ranked: infrastructure faults above {:.1}% of the model's units (unscored \
                 units change a score)",
                board.options.max_fault_share * 100.0
            ),
        );
        line(
            &mut s,
            format!(
                "{:<width$}  {:>6}  {:>14}  {:>10}  {:>7}  why",
                "model", "score", "95% CI", "compliance", "tasks"
            ),
        );
        for row in &board.unranked {
            line(
                &mut s,
                format!(
                    "{:<width$}  {:>6}  {:>14}  {:>10}  {:>7}  {}",
                    row.record.model,
                    pct(row.shown.score),
                    interval(&row.shown),
                    pct(row.record.compliance_rate),
                    tasks(row),
                    row.unranked_note().unwrap_or_default()
                ),
            );
        }
    }

    if !board.controls.is_empty() {
        line(&mut s, String::new());
        line(
            &mut s,
            "controls: built from the pool, never ranked (reference must pass all, known-buggy \
             none)"
                .to_string(),
        );
        for row in &board.controls {
            line(
                &mut s,
                format!(
                    "{:<width$}  {:>6}  {:>14}  {:>7}",
                    row.record.model,
                    pct(row.shown.score),
                    interval(&row.shown),
                    tasks(row)
                ),
            );
        }
    }

    render_quality(&mut s, board, width);

    line(&mut s, String::new());
    for alert in &board.alerts {
        line(&mut s, format!("ALERT: {alert}"));
    }
    for row in board.rows() {
        if let Some(d) = &row.drift {
            for flag in &d.flags {
                line(&mut s, format!("drift: {}: {flag}", row.record.model));
            }
            if d.flagged() && !d.flipped_tasks.is_empty() {
                let shown: Vec<&str> = d.flipped_tasks.iter().take(8).map(String::as_str).collect();
                let more = d.flipped_tasks.len().saturating_sub(shown.len());
                line(
                    &mut s,
                    format!(
                        "drift: {}: flipped {}{}",
                        row.record.model,
                        shown.join(", "),
                        if more > 0 {
                            format!(" and {more} more")
                        } else {
                            String::new()
                        }
                    ),
                );
            }
        }
    }
    if let Some(first) = board.rows().next() {
        let r = &first.record;
        let rotation = r
            .rotation
            .as_ref()
            .map(|rot| {
                format!(
                    "  rotation {} active, {} retired ({:.0}%/week, {} weeks out)",
                    rot.active_tasks,
                    rot.retired_tasks,
                    rot.rate * 100.0,
                    rot.weeks_out
                )
            })
            .unwrap_or_default();
        line(
            &mut s,
            format!(
                "week {}  seed {}  pool {}{rotation}",
                board.week,
                &r.seed[..r.seed.len().min(12)],
                &r.pool_version[..r.pool_version.len().min(12)]
            ),
        );
    }
    let infra: Vec<String> = board
        .rows()
        .filter(|row| row.infrastructure_faults > 0)
        .map(|row| {
            format!(
                "{} {} ({}% of {} units)",
                row.record.model,
                row.infrastructure_faults,
                pct(row.fault_share),
                row.units
            )
        })
        .collect();
    if !infra.is_empty() {
        line(
            &mut s,
            format!(
                "infrastructure faults (not scored; `u` = tasks left unscored): {}",
                infra.join(", ")
            ),
        );
    }
    s
}
