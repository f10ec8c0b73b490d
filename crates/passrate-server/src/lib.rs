//! passrate-server: the JSON API under `/api/v1` and the server-rendered leaderboard site,
//! over the store the weekly cycle writes. It reads records and never runs candidate code;
//! every number it shows is the engine's (the board is `passrate_engine::leaderboard`).
//!
//! One module per concern: `api` (endpoint table and handlers), `openapi` (the document
//! built from that table), `site` and `svg` (pages and charts), `state` (what handlers
//! read), `params` (parameter parsing: every bad input is a 4xx naming it), `metrics`,
//! `error`.

mod api;
mod error;
mod metrics;
mod openapi;
mod params;
mod site;
mod state;
mod svg;
pub mod views;
mod write;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::{Method, header};
use axum::response::IntoResponse;
use tokio::net::TcpListener;
use tower_http::compression::CompressionLayer;
use tower_http::cors::{Any, CorsLayer};
use tower_http::trace::TraceLayer;

pub use api::{Endpoint, endpoints};
pub use error::{ApiError, ErrorBody, ServerError};
pub use openapi::document as openapi_document;
pub use state::AppState;

/// The whole application: API, site, health and metrics.
pub fn router(state: AppState) -> Router {
    let state = Arc::new(state);
    let mut api = Router::new();
    for endpoint in endpoints() {
        let mut route = (endpoint.route)();
        if endpoint.request.is_some() {
            route = route.route_layer(axum::middleware::from_fn_with_state(
                state.clone(),
                write::require_token,
            ));
        }
        api = api.route(endpoint.path, route);
    }
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::HEAD])
        .allow_headers([header::IF_NONE_MATCH])
        .expose_headers([header::ETAG]);
    api.merge(site::routes())
        .fallback(fallback)
        .with_state(state.clone())
        .layer(axum::middleware::from_fn_with_state(
            state.metrics.clone(),
            metrics::track,
        ))
        .layer(cors)
        .layer(CompressionLayer::new())
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|request: &Request| {
                    tracing::info_span!(
                        "request",
                        method = %request.method(),
                        path = %request.uri().path(),
                    )
                })
                .on_response(
                    |response: &axum::response::Response,
                     latency: Duration,
                     _span: &tracing::Span| {
                        tracing::info!(
                            status = response.status().as_u16(),
                            latency_us = latency.as_micros() as u64,
                            "answered"
                        );
                    },
                ),
        )
}

/// Unknown paths: a JSON 404 under the API, a page elsewhere.
async fn fallback(request: Request) -> axum::response::Response {
    let path = request.uri().path().to_string();
    if path.starts_with("/api/") {
        ApiError::NoRoute { path }.into_response()
    } else {
        site::not_found(&path)
    }
}

/// Serves `router` on `listener` until `shutdown` resolves, then finishes the requests in
/// flight.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(ServerError::Serve)
}

/// Resolves on SIGTERM or ctrl-c (SIGINT).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!("failed to listen for ctrl-c: {e}");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!("failed to listen for SIGTERM: {e}");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
    tracing::info!("shutting down: finishing requests in flight");
}
