//! Prometheus text at `/metrics`: requests by route template and status, a latency histogram
//! by route, and store failures. Routes are labelled by their template (`/models/{id}`), not
//! the concrete path, so a crawler cannot grow the label set without bound.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use crate::error::StoreFailure;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

#[derive(Default)]
struct Histogram {
    /// Cumulative counts are computed at render time; these are per bucket (+ one for +Inf).
    counts: [u64; BUCKETS.len() + 1],
    sum: f64,
    count: u64,
}

#[derive(Default)]
struct Inner {
    requests: BTreeMap<(String, String, u16), u64>,
    latency: BTreeMap<String, Histogram>,
    store_errors: u64,
}

/// The server's counters; one per server, shared by every request.
#[derive(Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

impl Metrics {
    fn record(&self, method: &str, route: &str, status: u16, seconds: f64, store_error: bool) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        *inner
            .requests
            .entry((method.to_string(), route.to_string(), status))
            .or_insert(0) += 1;
        let h = inner.latency.entry(route.to_string()).or_default();
        let bucket = BUCKETS
            .iter()
            .position(|&b| seconds <= b)
            .unwrap_or(BUCKETS.len());
        h.counts[bucket] += 1;
        h.sum += seconds;
        h.count += 1;
        if store_error {
            inner.store_errors += 1;
        }
    }

    /// The Prometheus text exposition of every counter.
    pub fn render(&self) -> String {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = String::new();
        out.push_str("# HELP passrate_http_requests_total HTTP requests answered.\n");
        out.push_str("# TYPE passrate_http_requests_total counter\n");
        for ((method, route, status), n) in &inner.requests {
            let _ = writeln!(
                out,
                "passrate_http_requests_total{{method=\"{}\",route=\"{}\",status=\"{status}\"}} {n}",
                escape(method),
                escape(route)
            );
        }
        out.push_str("# HELP passrate_http_request_duration_seconds Time to answer a request.\n");
        out.push_str("# TYPE passrate_http_request_duration_seconds histogram\n");
        for (route, h) in &inner.latency {
            let route = escape(route);
            let mut cumulative = 0;
            for (i, bound) in BUCKETS.iter().enumerate() {
                cumulative += h.counts[i];
                let _ = writeln!(
                    out,
                    "passrate_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            cumulative += h.counts[BUCKETS.len()];
            let _ = writeln!(
                out,
                "passrate_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {cumulative}"
            );
            let _ = writeln!(
                out,
                "passrate_http_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                h.sum
            );
            let _ = writeln!(
                out,
                "passrate_http_request_duration_seconds_count{{route=\"{route}\"}} {}",
                h.count
            );
        }
        out.push_str(
            "# HELP passrate_store_errors_total Requests that failed reading the store.\n",
        );
        out.push_str("# TYPE passrate_store_errors_total counter\n");
        let _ = writeln!(out, "passrate_store_errors_total {}", inner.store_errors);
        out
    }
}

/// Label values escape backslash, quote and newline (the exposition format's rules).
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Middleware: times every request and counts it under its route template.
pub async fn track(
    State(metrics): State<std::sync::Arc<Metrics>>,
    request: Request,
    next: Next,
) -> Response {
    let start = Instant::now();
    let method = request.method().to_string();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".to_string());
    let response = next.run(request).await;
    let store_error = response.extensions().get::<StoreFailure>().is_some();
    metrics.record(
        &method,
        &route,
        response.status().as_u16(),
        start.elapsed().as_secs_f64(),
        store_error,
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_is_cumulative_and_counts_store_errors() {
        let m = Metrics::default();
        m.record("GET", "/a", 200, 0.0002, false);
        m.record("GET", "/a", 500, 0.3, true);
        let text = m.render();
        assert!(text.contains("route=\"/a\",le=\"0.0005\"} 1\n"), "{text}");
        assert!(text.contains("route=\"/a\",le=\"0.5\"} 2\n"), "{text}");
        assert!(text.contains("route=\"/a\",le=\"+Inf\"} 2\n"), "{text}");
        assert!(text.contains("status=\"500\"} 1\n"), "{text}");
        assert!(text.contains("passrate_store_errors_total 1\n"), "{text}");
    }
}
