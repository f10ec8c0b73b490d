//! The JSON API: one table of endpoints from which both the router and the OpenAPI document
//! are built, so the document cannot list a route the server does not serve or miss one.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;

use crate::error::ApiError;
use crate::params::{self, ApiPath, Query};
use crate::state::{AppState, DEFAULT_PER_PAGE, MAX_PER_PAGE};
use crate::views::{self, Health, Weeks};

pub type Shared = Arc<AppState>;

/// How long clients and proxies may reuse a response without asking again. Records are
/// immutable, but a week can gain a corrected version, so reuse is short and revalidated by
/// ETag (a hash of the body, so it changes exactly when the content does).
const CACHE_CONTROL_VALUE: &str = "public, max-age=60";

/// A query parameter as documented.
pub struct QueryParam {
    pub name: &'static str,
    pub description: &'static str,
    pub required: bool,
    /// JSON Schema of the value.
    pub schema: fn() -> serde_json::Value,
}

/// One route of the API.
pub struct Endpoint {
    pub path: &'static str,
    pub method: &'static str,
    pub operation_id: &'static str,
    pub summary: &'static str,
    /// Path parameters, in order, with their description.
    pub path_params: &'static [(&'static str, &'static str)],
    pub query: &'static [QueryParam],
    /// The 200 response: its media type and schema.
    pub media_type: &'static str,
    pub response: fn(&mut SchemaGenerator) -> Schema,
    /// Whether it may answer 503 (the store is unreachable).
    pub may_be_unavailable: bool,
    /// A write: behind the bearer token, with this request body.
    pub request: Option<fn(&mut SchemaGenerator) -> Schema>,
    pub route: fn() -> MethodRouter<Shared>,
}

fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

fn week_schema() -> serde_json::Value {
    serde_json::json!({"type": "string", "pattern": "^[0-9]{4}-W[0-9]{2}$", "examples": ["2026-W48"]})
}

fn id_schema() -> serde_json::Value {
    serde_json::json!({"type": "string", "minLength": 1, "maxLength": params::MAX_ID_BYTES})
}

fn page_schema() -> serde_json::Value {
    serde_json::json!({"type": "integer", "minimum": 1, "maximum": u32::MAX})
}

fn per_page_schema() -> serde_json::Value {
    serde_json::json!({"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE})
}

fn text_schema(_: &mut SchemaGenerator) -> Schema {
    schemars::json_schema!({"type": "string"})
}

fn openapi_schema(_: &mut SchemaGenerator) -> Schema {
    schemars::json_schema!({"type": "object"})
}

const WEEK: QueryParam = QueryParam {
    name: "week",
    description: "ISO week, e.g. 2026-W48 (default: the latest week with records)",
    required: false,
    schema: week_schema,
};

/// Every API route.
pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint {
            path: "/healthz",
            method: "get",
            operation_id: "health",
            summary: "Whether the server can read its store",
            path_params: &[],
            query: &[],
            media_type: "application/json",
            response: schema_of::<Health>,
            may_be_unavailable: true,
            request: None,
            route: || get(health),
        },
        Endpoint {
            path: "/metrics",
            method: "get",
            operation_id: "metrics",
            summary: "Prometheus text: requests, latency histogram, store errors",
            path_params: &[],
            query: &[],
            media_type: "text/plain",
            response: text_schema,
            may_be_unavailable: false,
            request: None,
            route: || get(metrics),
        },
        Endpoint {
            path: "/api/v1/openapi.json",
            method: "get",
            operation_id: "openapi",
            summary: "This document (OpenAPI 3.1)",
            path_params: &[],
            query: &[],
            media_type: "application/json",
            response: openapi_schema,
            may_be_unavailable: false,
            request: None,
            route: || get(openapi),
        },
        Endpoint {
            path: "/api/v1/weeks",
            method: "get",
            operation_id: "weeks",
            summary: "The weeks with score records, oldest first",
            path_params: &[],
            query: &[],
            media_type: "application/json",
            response: schema_of::<Weeks>,
            may_be_unavailable: true,
            request: None,
            route: || get(weeks),
        },
        Endpoint {
            path: "/api/v1/leaderboard",
            method: "get",
            operation_id: "leaderboard",
            summary: "A week's leaderboard: ranked, partial coverage and controls (the board \
                      `passrate leaderboard --json` prints)",
            path_params: &[],
            query: &[WEEK],
            media_type: "application/json",
            response: schema_of::<views::Board>,
            may_be_unavailable: true,
            request: None,
            route: || get(leaderboard),
        },
        Endpoint {
            path: "/api/v1/models/{model}/history",
            method: "get",
            operation_id: "model_history",
            summary: "Every record version of a model, oldest week first, paginated",
            path_params: &[("model", "Model id")],
            query: &[
                QueryParam {
                    name: "page",
                    description: "1-based page (default 1)",
                    required: false,
                    schema: page_schema,
                },
                QueryParam {
                    name: "per_page",
                    description: "Records per page (default 100)",
                    required: false,
                    schema: per_page_schema,
                },
            ],
            media_type: "application/json",
            response: schema_of::<views::History>,
            may_be_unavailable: true,
            request: None,
            route: || get(history),
        },
        Endpoint {
            path: "/api/v1/runs/{run_id}",
            method: "get",
            operation_id: "run",
            summary: "A run's manifest, settings and provenance",
            path_params: &[("run_id", "Run id, e.g. 2026-W48-0123456789ab")],
            query: &[],
            media_type: "application/json",
            response: schema_of::<views::RunView>,
            may_be_unavailable: true,
            request: None,
            route: || get(run),
        },
        Endpoint {
            path: "/api/v1/runs/{run_id}/models/{model}/outcomes",
            method: "get",
            operation_id: "run_outcomes",
            summary: "A run's per-task outcomes for one model, without hidden-test content",
            path_params: &[("run_id", "Run id"), ("model", "Model id")],
            query: &[],
            media_type: "application/json",
            response: schema_of::<views::Outcomes>,
            may_be_unavailable: true,
            request: None,
            route: || get(outcomes),
        },
        Endpoint {
            path: "/api/v1/compare",
            method: "get",
            operation_id: "compare",
            summary: "Two models on a week: paired difference with its interval, and the tasks \
                      that differ",
            path_params: &[],
            query: &[
                QueryParam {
                    name: "a",
                    description: "First model id",
                    required: true,
                    schema: id_schema,
                },
                QueryParam {
                    name: "b",
                    description: "Second model id",
                    required: true,
                    schema: id_schema,
                },
                WEEK,
            ],
            media_type: "application/json",
            response: schema_of::<views::Comparison>,
            may_be_unavailable: true,
            request: None,
            route: || get(compare),
        },
        Endpoint {
            path: "/api/v1/pool/stats",
            method: "get",
            operation_id: "pool_stats",
            summary: "Counts of the pool per category, tier and language, with a week's rotation",
            path_params: &[],
            query: &[QueryParam {
                name: "week",
                description: "ISO week (default: the latest week with records)",
                required: false,
                schema: week_schema,
            }],
            media_type: "application/json",
            response: schema_of::<views::PoolStats>,
            may_be_unavailable: true,
            request: None,
            route: || get(pool_stats),
        },
        Endpoint {
            path: "/api/v1/tasks/{task_id}",
            method: "get",
            operation_id: "task",
            summary: "A task's public view: prompt, public tests, category, tier, family",
            path_params: &[(
                "task_id",
                "Task id, percent-encoded (humaneval%2F12 for humaneval/12)",
            )],
            query: &[],
            media_type: "application/json",
            response: schema_of::<views::TaskView>,
            may_be_unavailable: false,
            request: None,
            route: || get(task),
        },
        Endpoint {
            path: "/api/v1/models",
            method: "post",
            operation_id: "register_model",
            summary: "Register an OpenAI-compatible model in the server's models file (bearer \
                      token; off unless the server was started with one)",
            path_params: &[],
            query: &[],
            media_type: "application/json",
            response: schema_of::<crate::write::Registered>,
            may_be_unavailable: false,
            request: Some(schema_of::<crate::write::RegisterModel>),
            route: || post(crate::write::register_model),
        },
    ]
}

/// The ETag of a body: a hash of its bytes, so it changes exactly when the content does.
pub fn etag_of(body: &[u8]) -> String {
    format!("\"{}\"", &blake3::hash(body).to_hex()[..32])
}

/// A JSON response with an ETag (hash of the body) and Cache-Control; 304 when the client
/// already holds it.
pub fn cached_json<T: Serialize>(headers: &HeaderMap, value: &T) -> Result<Response, ApiError> {
    let body = serde_json::to_vec(value).map_err(|e| ApiError::Internal {
        action: "encode the response".to_string(),
        detail: e.to_string(),
    })?;
    let etag = etag_of(&body);
    respond(headers, "application/json", body.into(), &etag)
}

/// `body` with its ETag and Cache-Control, or 304 when `If-None-Match` names the ETag.
pub fn respond(
    headers: &HeaderMap,
    content_type: &'static str,
    body: axum::body::Bytes,
    etag: &str,
) -> Result<Response, ApiError> {
    let etag_value = HeaderValue::from_str(etag).map_err(|e| ApiError::Internal {
        action: "build the ETag".to_string(),
        detail: e.to_string(),
    })?;
    let matches = headers
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| {
            let tag = tag.trim();
            tag == "*" || tag.trim_start_matches("W/") == etag
        });
    let cache = HeaderValue::from_static(CACHE_CONTROL_VALUE);
    if matches {
        return Ok((
            StatusCode::NOT_MODIFIED,
            [(ETAG, etag_value), (CACHE_CONTROL, cache)],
        )
            .into_response());
    }
    Ok((
        [
            (CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (ETAG, etag_value),
            (CACHE_CONTROL, cache),
        ],
        body,
    )
        .into_response())
}

async fn health(State(state): State<Shared>) -> Response {
    match state.store.weeks().await {
        Ok(_) => axum::Json(Health {
            status: "ok".to_string(),
            store: state.store.location().to_string(),
        })
        .into_response(),
        Err(e) => {
            tracing::error!("health check: the store did not answer: {e}");
            let mut response = (
                StatusCode::SERVICE_UNAVAILABLE,
                axum::Json(Health {
                    status: "unavailable".to_string(),
                    store: state.store.location().to_string(),
                }),
            )
                .into_response();
            response.extensions_mut().insert(crate::error::StoreFailure);
            response
        }
    }
}

async fn metrics(State(state): State<Shared>) -> Response {
    (
        [(
            CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        state.metrics.render(),
    )
        .into_response()
}

async fn openapi(headers: HeaderMap) -> Result<Response, ApiError> {
    cached_json(&headers, crate::openapi::document())
}

async fn weeks(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    Query::parse(raw.as_deref(), &[])?;
    cached_json(
        &headers,
        &Weeks {
            weeks: state.weeks().await?,
        },
    )
}

async fn leaderboard(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let query = Query::parse(raw.as_deref(), &["week"])?;
    let week = state.week_or_latest(query.week("week")?).await?;
    let cached = state.board(&week).await?;
    respond(
        &headers,
        "application/json",
        cached.json.clone(),
        &cached.etag,
    )
}

async fn history(
    State(state): State<Shared>,
    ApiPath(model): ApiPath<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let model = params::id("model", &model)?;
    let query = Query::parse(raw.as_deref(), &["page", "per_page"])?;
    let page = query.number("page", u32::MAX)?.unwrap_or(1);
    let per_page = query
        .number("per_page", MAX_PER_PAGE)?
        .unwrap_or(DEFAULT_PER_PAGE);
    cached_json(&headers, &state.history(&model, page, per_page).await?)
}

async fn run(
    State(state): State<Shared>,
    ApiPath(run_id): ApiPath<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let run_id = params::id("run_id", &run_id)?;
    Query::parse(raw.as_deref(), &[])?;
    cached_json(&headers, &state.run(&run_id).await?)
}

async fn outcomes(
    State(state): State<Shared>,
    ApiPath((run_id, model)): ApiPath<(String, String)>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let run_id = params::id("run_id", &run_id)?;
    let model = params::id("model", &model)?;
    Query::parse(raw.as_deref(), &[])?;
    cached_json(&headers, &state.outcomes(&run_id, &model).await?)
}

async fn compare(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let query = Query::parse(raw.as_deref(), &["a", "b", "week"])?;
    let (a, b) = (query.id("a")?, query.id("b")?);
    let week = state.week_or_latest(query.week("week")?).await?;
    cached_json(&headers, &state.compare(&week, &a, &b).await?)
}

async fn pool_stats(
    State(state): State<Shared>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let query = Query::parse(raw.as_deref(), &["week"])?;
    // The pool exists without any record: with no week and no records, this week.
    let week = match query.week("week")? {
        Some(w) => w,
        None => match state.weeks().await?.pop() {
            Some(w) => w,
            None => passrate_pool::current_week(),
        },
    };
    let state2 = state.clone();
    let stats = tokio::task::spawn_blocking(move || state2.pool_stats(&week))
        .await
        .map_err(|e| ApiError::Internal {
            action: "compute the pool stats".to_string(),
            detail: e.to_string(),
        })??;
    cached_json(&headers, &stats)
}

async fn task(
    State(state): State<Shared>,
    ApiPath(task_id): ApiPath<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let task_id = params::id("task_id", &task_id)?;
    Query::parse(raw.as_deref(), &[])?;
    cached_json(&headers, &state.task(&task_id)?)
}
