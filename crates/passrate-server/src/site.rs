//! The leaderboard site: server-rendered pages (askama), no JavaScript, readable on a phone.
//! Pages read what the API reads ([`AppState`]), so a page never shows another number.

use std::collections::BTreeSet;

use askama::Template;
use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};

use crate::api::Shared;
use crate::error::ApiError;
use crate::params::{self, ApiPath, Query};
use crate::state::{AppState, MAX_PER_PAGE, lock};
use crate::svg::{self, pct};
use crate::views::{Board, BoardRow, Section};

pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/", get(board))
        .route("/models/{model}", get(model))
        .route("/runs/{run_id}", get(run))
        .route("/compare", get(compare))
        .route("/tasks/{task_id}", get(task))
}

/// An error shown as a page, with the API's status.
struct PageError(ApiError);

impl From<ApiError> for PageError {
    fn from(e: ApiError) -> PageError {
        PageError(e)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = self.0.status();
        let store_failure = self.0.is_store_failure();
        let message = if status.is_server_error() {
            // Logged (with its chain) by the API error's own response.
            drop(self.0.into_response());
            "the server failed to read its store; try again later".to_string()
        } else {
            self.0.to_string()
        };
        let mut response = page_response(
            status,
            ErrorPage {
                title: format!(
                    "{} {}",
                    status.as_u16(),
                    status.canonical_reason().unwrap_or("")
                ),
                message,
            },
        );
        if store_failure {
            response.extensions_mut().insert(crate::error::StoreFailure);
        }
        response
    }
}

pub fn not_found(path: &str) -> Response {
    page_response(
        StatusCode::NOT_FOUND,
        ErrorPage {
            title: "404 Not Found".to_string(),
            message: format!("no page at {path}"),
        },
    )
}

fn page_response(status: StatusCode, page: impl Template) -> Response {
    match page.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(e) => ApiError::Internal {
            action: "render a page".to_string(),
            detail: e.to_string(),
        }
        .into_response(),
    }
}

fn enc(segment: &str) -> String {
    utf8_percent_encode(segment, NON_ALPHANUMERIC).to_string()
}

fn model_href(model: &str) -> String {
    format!("/models/{}", enc(model))
}

fn run_href(run: &str) -> String {
    format!("/runs/{}", enc(run))
}

fn task_href(task: &str) -> String {
    format!("/tasks/{}", enc(task))
}

/// A serde enum's wire name (`bug_fixing`, `tier2`).
fn name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    title: String,
    message: String,
}

struct Line {
    rank: String,
    model: String,
    href: String,
    score: String,
    ci: String,
    n: String,
    tie_group: String,
    tie: String,
    categories: Vec<String>,
    tiers: Vec<String>,
    languages: Vec<String>,
    coverage: String,
    compliance: String,
    faults: u32,
    /// The faults' share of the model's units, e.g. `2.0%`.
    fault_share: String,
    /// Why the row is not ranked (unranked section only).
    unranked: Option<String>,
    drift: Option<String>,
    vs_next: String,
    compare_href: Option<String>,
    pass_at_k: String,
    quality: QualityCells,
}

/// The quality columns of a record, as shown ("–" where a score is absent).
struct QualityCells {
    /// Pass on plus inputs, % with its interval.
    plus: String,
    /// Median CPU time relative to the reference, with its interval.
    cpu: String,
    /// Share of measured answers slower than 10× the reference, %.
    slow: String,
    /// Share of answers whose code is within the reference's band, % with its interval.
    band: String,
    /// Per-measure medians, answer / reference.
    medians: String,
}

fn quality_cells(record: &passrate_schema::ScoreRecord) -> QualityCells {
    let dash = || "–".to_string();
    let with_ci = |e: &passrate_schema::Estimate| {
        format!("{} ({}–{})", pct(e.score), pct(e.ci_low), pct(e.ci_high))
    };
    let Some(q) = &record.quality else {
        return QualityCells {
            plus: dash(),
            cpu: dash(),
            slow: dash(),
            band: dash(),
            medians: dash(),
        };
    };
    QualityCells {
        plus: q.robustness.as_ref().map_or_else(dash, with_ci),
        cpu: q.efficiency.as_ref().map_or_else(dash, |e| {
            format!(
                "{:.2}× ({:.2}–{:.2})",
                e.ratio.median, e.ratio.ci_low, e.ratio.ci_high
            )
        }),
        slow: q
            .efficiency
            .as_ref()
            .map_or_else(dash, |e| with_ci(&e.slow)),
        band: q
            .maintainability
            .as_ref()
            .map_or_else(dash, |m| with_ci(&m.within_band)),
        medians: q.maintainability.as_ref().map_or_else(dash, |m| {
            m.medians
                .iter()
                .map(|(k, v)| format!("{k} {} / {}", v.candidate, v.reference))
                .collect::<Vec<_>>()
                .join(", ")
        }),
    }
}

struct SectionView {
    id: &'static str,
    title: &'static str,
    note: String,
    chart: String,
    lines: Vec<Line>,
}

#[derive(Template)]
#[template(path = "board.html")]
struct BoardPage {
    title: String,
    week: String,
    weeks: Vec<(String, bool)>,
    categories: Vec<String>,
    tiers: Vec<String>,
    languages: Vec<String>,
    sections: Vec<SectionView>,
    alerts: Vec<String>,
    json_href: String,
}

fn line(
    board: &Board,
    row: &BoardRow,
    next: Option<&BoardRow>,
    cats: &[String],
    tiers: &[String],
    languages: &[String],
) -> Line {
    let r = &row.record;
    let by_cat: std::collections::BTreeMap<String, String> = r
        .by_category
        .iter()
        .map(|(c, e)| (name(c), pct(e.score)))
        .collect();
    let by_tier: std::collections::BTreeMap<String, String> = r
        .by_tier
        .iter()
        .map(|(t, e)| (t.to_string(), pct(e.score)))
        .collect();
    let by_language: std::collections::BTreeMap<String, String> = r
        .by_language
        .iter()
        .map(|(l, e)| (l.to_string(), pct(e.score)))
        .collect();
    let rank = match (row.rank, row.rank_low, row.rank_high) {
        (Some(rank), Some(lo), Some(hi)) if lo != hi => format!("{rank} ({lo}–{hi})"),
        (Some(rank), _, _) => rank.to_string(),
        _ => "–".to_string(),
    };
    let vs_next = row
        .vs_next
        .as_ref()
        .map(|c| {
            let diff = c
                .difference
                .map(|d| {
                    format!(
                        "{:+.1} [{:+.1}, {:+.1}]",
                        d.point * 100.0,
                        d.low * 100.0,
                        d.high * 100.0
                    )
                })
                .unwrap_or_else(|| "no shared task".to_string());
            let verdict = if c.tied {
                "tied"
            } else if c.significant {
                "ahead"
            } else {
                "not separable"
            };
            format!("{verdict}: {diff} on {} shared", c.shared_tasks)
        })
        .unwrap_or_default();
    Line {
        rank,
        model: r.model.clone(),
        href: model_href(&r.model),
        score: pct(row.shown.score),
        ci: format!("{}–{}", pct(row.shown.ci_low), pct(row.shown.ci_high)),
        n: format!("{}/{}", row.shown.passes, row.shown.total),
        tie_group: row.tie_group.map(|g| g.to_string()).unwrap_or_default(),
        tie: row.tie_group.map(|g| format!("T{g}")).unwrap_or_default(),
        categories: cats
            .iter()
            .map(|c| by_cat.get(c).cloned().unwrap_or_else(|| "–".into()))
            .collect(),
        tiers: tiers
            .iter()
            .map(|t| by_tier.get(t).cloned().unwrap_or_else(|| "–".into()))
            .collect(),
        languages: languages
            .iter()
            .map(|l| by_language.get(l).cloned().unwrap_or_else(|| "–".into()))
            .collect(),
        coverage: pct(r.coverage),
        compliance: pct(r.compliance_rate),
        faults: row.infrastructure_faults,
        fault_share: format!("{:.1}%", row.fault_share * 100.0),
        unranked: row.unranked_note(),
        drift: row
            .drift
            .as_ref()
            .filter(|d| !d.flags.is_empty())
            .map(|d| d.flags.join("; ")),
        vs_next,
        compare_href: next.map(|n| {
            format!(
                "/compare?a={}&b={}&week={}",
                enc(&r.model),
                enc(&n.record.model),
                enc(&board.week)
            )
        }),
        pass_at_k: r
            .pass_at_k
            .iter()
            .map(|(k, v)| format!("pass@{k} {}", pct(*v)))
            .collect::<Vec<_>>()
            .join(", "),
        quality: quality_cells(r),
    }
}

fn section(
    board: &Board,
    section: Section,
    rows: &[BoardRow],
    cats: &[String],
    tiers: &[String],
    languages: &[String],
) -> SectionView {
    let (id, title, note) = match section {
        Section::Ranked => (
            "ranked",
            "Ranked",
            "Models that answered the whole sample. Rank intervals and tie groups come from the \
             family bootstrap: models sharing a tie group (T1, T2, …, shaded alike) cannot be \
             ordered by what the data shows."
                .to_string(),
        ),
        Section::PartialCoverage => (
            "partial",
            "Partial coverage",
            "Models that answered only part of the sample (replays of public answer sets), \
             scored on the tasks they answered; not ranked against the full-coverage models."
                .to_string(),
        ),
        Section::Unranked => (
            "unranked",
            "Not ranked",
            format!(
                "Models whose infrastructure faults (sandbox or API failures left after the \
                 retries, never the model's failures) exceed {:.1}% of their units. Unscored \
                 units change a score, so these are not ranked or compared until the faulted \
                 units are re-run.",
                board.options.max_fault_share * 100.0
            ),
        ),
        Section::Controls => (
            "controls",
            "Controls",
            "Built from the pool: the reference solutions must score 100% and the known-buggy \
             variants 0%. Never ranked."
                .to_string(),
        ),
    };
    SectionView {
        id,
        title,
        note,
        chart: svg::board_bars(&format!("{title}, week {}", board.week), rows),
        lines: rows
            .iter()
            .enumerate()
            .map(|(i, r)| line(board, r, rows.get(i + 1), cats, tiers, languages))
            .collect(),
    }
}

async fn board(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Result<Response, PageError> {
    let query = Query::parse(raw.as_deref(), &["week"])?;
    let weeks = state.weeks().await?;
    if weeks.is_empty() && query.get("week").is_none() {
        return Ok(page_response(
            StatusCode::OK,
            ErrorPage {
                title: "No records yet".to_string(),
                message: "the store has no score records yet: run `passrate run` first".to_string(),
            },
        ));
    }
    let week = state.week_or_latest(query.week("week")?).await?;
    let cached = state.board(&week).await?;
    // The page depends only on the board and the week list (its picker): render it once.
    if let Some((rendered_with, html)) = &*lock(&cached.page)
        && *rendered_with == weeks
    {
        return Ok(html_response(html.clone()));
    }
    let board = &cached.board;
    let cats: Vec<String> = board
        .rows()
        .flat_map(|r| r.record.by_category.keys().map(name))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let tiers: Vec<String> = board
        .rows()
        .flat_map(|r| r.record.by_tier.keys().map(ToString::to_string))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // Records written before subscores by language were kept have none: no columns then.
    let languages: Vec<String> = board
        .rows()
        .flat_map(|r| r.record.by_language.keys().map(ToString::to_string))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut sections = Vec::new();
    for (kind, rows) in [
        (Section::Ranked, &board.ranked),
        (Section::PartialCoverage, &board.partial),
        (Section::Unranked, &board.unranked),
        (Section::Controls, &board.controls),
    ] {
        if !rows.is_empty() {
            sections.push(section(board, kind, rows, &cats, &tiers, &languages));
        }
    }
    let page = BoardPage {
        title: format!("Leaderboard {week}"),
        weeks: weeks
            .iter()
            .rev()
            .map(|w| (w.clone(), *w == week))
            .collect(),
        json_href: format!("/api/v1/leaderboard?week={}", enc(&week)),
        week,
        categories: cats,
        tiers,
        languages,
        sections,
        alerts: board.alerts.clone(),
    };
    let html: axum::body::Bytes = page
        .render()
        .map_err(|e| ApiError::Internal {
            action: "render the board".to_string(),
            detail: e.to_string(),
        })?
        .into();
    *lock(&cached.page) = Some((weeks, html.clone()));
    Ok(html_response(html))
}

fn html_response(html: axum::body::Bytes) -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("text/html; charset=utf-8"),
        )],
        html,
    )
        .into_response()
}

struct HistoryLine {
    week: String,
    week_href: String,
    version: u32,
    score: String,
    ci: String,
    n: String,
    coverage: String,
    compliance: String,
    drift: Option<String>,
    run: String,
    run_href: String,
    recorded_at: String,
    quality: QualityCells,
}

#[derive(Template)]
#[template(path = "model.html")]
struct ModelPage {
    title: String,
    model: String,
    chart: String,
    lines: Vec<HistoryLine>,
    json_href: String,
}

async fn model(
    State(state): State<Shared>,
    ApiPath(model): ApiPath<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, PageError> {
    let model = params::id("model", &model)?;
    Query::parse(raw.as_deref(), &[])?;
    // The chart shows the whole history; a model with more records than a page holds is
    // shown through its latest page's worth.
    let first = state.history(&model, 1, MAX_PER_PAGE).await?;
    let history = if first.pages > 1 {
        state.history(&model, first.pages, MAX_PER_PAGE).await?
    } else {
        first
    };
    let lines = history
        .records
        .iter()
        .map(|s| {
            let r = &s.record;
            HistoryLine {
                week: r.week.clone(),
                week_href: format!("/?week={}", enc(&r.week)),
                version: r.record_version,
                score: pct(r.overall.score),
                ci: format!("{}–{}", pct(r.overall.ci_low), pct(r.overall.ci_high)),
                n: format!("{}/{}", r.overall.passes, r.overall.total),
                coverage: pct(r.coverage),
                compliance: pct(r.compliance_rate),
                drift: r
                    .drift
                    .as_ref()
                    .filter(|d| !d.flags.is_empty())
                    .map(|d| d.flags.join("; ")),
                run: r.run_id.clone(),
                run_href: run_href(&r.run_id),
                recorded_at: s.recorded_at.clone(),
                quality: quality_cells(r),
            }
        })
        .collect();
    Ok(page_response(
        StatusCode::OK,
        ModelPage {
            title: format!("Model {model}"),
            chart: svg::history_line(&model, &history.records),
            json_href: format!("/api/v1/models/{}/history", enc(&model)),
            model,
            lines,
        },
    ))
}

struct ItemLine {
    task: String,
    href: Option<String>,
    language: String,
    category: String,
    tier: String,
}

struct OutcomeLine {
    task: String,
    href: Option<String>,
    language: String,
    sample: u32,
    reason: String,
    passed: bool,
    tests: String,
}

struct ModelOutcomes {
    model: String,
    href: String,
    score: String,
    outcomes: Vec<OutcomeLine>,
    json_href: String,
}

#[derive(Template)]
#[template(path = "run.html")]
struct RunPage {
    title: String,
    run_id: String,
    week: String,
    week_href: String,
    seed: String,
    pool_version: String,
    started_at: String,
    finished_at: String,
    rotation: Option<String>,
    items: Vec<ItemLine>,
    settings: String,
    provenance: String,
    models: Vec<ModelOutcomes>,
    json_href: String,
}

fn task_link(state: &AppState, task: &str) -> Option<String> {
    state.pool.get(task).map(|_| task_href(task))
}

async fn run(
    State(state): State<Shared>,
    ApiPath(run_id): ApiPath<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, PageError> {
    let run_id = params::id("run_id", &run_id)?;
    Query::parse(raw.as_deref(), &[])?;
    let run = state.run(&run_id).await?;
    let mut models = Vec::new();
    for m in &run.models {
        let outcomes = state.outcomes(&run_id, &m.model).await?;
        models.push(ModelOutcomes {
            model: m.model.clone(),
            href: model_href(&m.model),
            score: format!(
                "{}% ({}–{}%)",
                pct(m.overall.score),
                pct(m.overall.ci_low),
                pct(m.overall.ci_high)
            ),
            json_href: format!(
                "/api/v1/runs/{}/models/{}/outcomes",
                enc(&run_id),
                enc(&m.model)
            ),
            outcomes: outcomes
                .outcomes
                .iter()
                .map(|o| OutcomeLine {
                    href: task_link(&state, &o.task),
                    task: o.task.clone(),
                    language: name(&o.language),
                    sample: o.sample_index,
                    reason: name(&o.reason),
                    passed: o.reason == passrate_schema::Reason::Pass,
                    tests: format!("{}/{}", o.verdict.tests_passed, o.verdict.tests_total),
                })
                .collect(),
        });
    }
    let provenance = run
        .models
        .first()
        .map(|m| serde_json::to_string_pretty(&m.provenance).unwrap_or_default())
        .unwrap_or_else(|| "no record yet".to_string());
    Ok(page_response(
        StatusCode::OK,
        RunPage {
            title: format!("Run {run_id}"),
            week_href: format!("/?week={}", enc(&run.week)),
            week: run.week.clone(),
            seed: run.manifest.seed.clone(),
            pool_version: run.manifest.pool_version.clone(),
            started_at: run.started_at.clone(),
            finished_at: run
                .finished_at
                .clone()
                .unwrap_or_else(|| "not finished".into()),
            rotation: run.manifest.rotation.as_ref().map(|r| {
                format!(
                    "rate {:.0}%, {} weeks out: {} active, {} retired",
                    r.rate * 100.0,
                    r.weeks_out,
                    r.active_tasks,
                    r.retired_tasks
                )
            }),
            items: run
                .manifest
                .items
                .iter()
                .map(|i| ItemLine {
                    href: task_link(&state, &i.task),
                    task: i.task.clone(),
                    language: name(&i.language),
                    category: name(&i.category),
                    tier: name(&i.tier),
                })
                .collect(),
            settings: serde_json::to_string_pretty(&run.settings).unwrap_or_default(),
            provenance,
            models,
            json_href: format!("/api/v1/runs/{}", enc(&run_id)),
            run_id,
        },
    ))
}

struct DiffLine {
    task: String,
    href: Option<String>,
    language: String,
    a: String,
    b: String,
}

#[derive(Template)]
#[template(path = "compare.html")]
struct ComparePage {
    title: String,
    week: String,
    weeks: Vec<(String, bool)>,
    models: Vec<(String, bool, bool)>,
    result: Option<CompareResult>,
}

struct CompareResult {
    a: String,
    a_href: String,
    b: String,
    b_href: String,
    a_score: String,
    b_score: String,
    difference: String,
    verdict: String,
    shared: u32,
    differing: Vec<DiffLine>,
    json_href: String,
}

async fn compare(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
) -> Result<Response, PageError> {
    let query = Query::parse(raw.as_deref(), &["a", "b", "week"])?;
    let week = state.week_or_latest(query.week("week")?).await?;
    let weeks = state.weeks().await?;
    let cached = state.board(&week).await?;
    let board = &cached.board;
    let (a, b) = (query.get("a").unwrap_or(""), query.get("b").unwrap_or(""));
    let result = if a.is_empty() || b.is_empty() {
        None
    } else {
        let (a, b) = (params::id("a", a)?, params::id("b", b)?);
        let c = state.compare(&week, &a, &b).await?;
        let cmp = &c.comparison;
        Some(CompareResult {
            a_href: model_href(&a),
            b_href: model_href(&b),
            a_score: format!(
                "{}% ({}–{}%)",
                pct(c.a.score),
                pct(c.a.ci_low),
                pct(c.a.ci_high)
            ),
            b_score: format!(
                "{}% ({}–{}%)",
                pct(c.b.score),
                pct(c.b.ci_low),
                pct(c.b.ci_high)
            ),
            difference: cmp
                .difference
                .map(|d| {
                    format!(
                        "{:+.1} points, 95% paired interval [{:+.1}, {:+.1}]",
                        d.point * 100.0,
                        d.low * 100.0,
                        d.high * 100.0
                    )
                })
                .unwrap_or_else(|| "no shared task".into()),
            verdict: if cmp.tied {
                "tied: the board cannot order them".into()
            } else if cmp.significant {
                "the order is supported on the shared tasks".into()
            } else {
                "not separable on the shared tasks".into()
            },
            shared: cmp.shared_tasks,
            differing: c
                .differing
                .iter()
                .map(|d| DiffLine {
                    href: task_link(&state, &d.task),
                    task: d.task.clone(),
                    language: name(&d.language),
                    a: name(&d.a),
                    b: name(&d.b),
                })
                .collect(),
            json_href: format!(
                "/api/v1/compare?a={}&b={}&week={}",
                enc(&a),
                enc(&b),
                enc(&week)
            ),
            a,
            b,
        })
    };
    let models = board
        .rows()
        .map(|r| {
            let m = r.record.model.clone();
            (m.clone(), m == a, m == b)
        })
        .collect();
    Ok(page_response(
        StatusCode::OK,
        ComparePage {
            title: format!("Compare, week {week}"),
            weeks: weeks
                .iter()
                .rev()
                .map(|w| (w.clone(), *w == week))
                .collect(),
            week,
            models,
            result,
        },
    ))
}

struct VariantView {
    language: String,
    prompt: String,
    given_code: Option<String>,
    entry_point: String,
}

#[derive(Template)]
#[template(path = "task.html")]
struct TaskPage {
    title: String,
    id: String,
    version: u32,
    category: String,
    tier: String,
    family: String,
    source: String,
    variants: Vec<VariantView>,
    public_tests: Vec<String>,
    hidden_tests: usize,
    json_href: String,
}

async fn task(
    State(state): State<Shared>,
    ApiPath(task_id): ApiPath<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, PageError> {
    let task_id = params::id("task_id", &task_id)?;
    Query::parse(raw.as_deref(), &[])?;
    let t = state.task(&task_id)?;
    Ok(page_response(
        StatusCode::OK,
        TaskPage {
            title: format!("Task {}", t.id),
            json_href: format!("/api/v1/tasks/{}", enc(&t.id)),
            id: t.id.clone(),
            version: t.version,
            category: name(&t.category),
            tier: name(&t.tier),
            family: t.family.clone(),
            source: format!(
                "{} {} ({})",
                t.source.dataset, t.source.upstream_id, t.source.license
            ),
            variants: t
                .variants
                .iter()
                .map(|(l, v)| VariantView {
                    language: name(l),
                    prompt: v.prompt.clone(),
                    given_code: v.given_code.clone(),
                    entry_point: v.entry_point.clone(),
                })
                .collect(),
            public_tests: t
                .public_tests
                .iter()
                .map(|test| serde_json::to_string(test).unwrap_or_default())
                .collect(),
            hidden_tests: t.hidden_tests,
        },
    ))
}
