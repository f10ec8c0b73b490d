//! The OpenAI-compatible adapter against real HTTP servers on loopback (wiremock, and an
//! axum server where in-flight requests and arrival times must be measured).

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use axum::Json;
use axum::extract::State;
use axum::routing::post;
use common::{openai, task};
use passrate_models::{
    AttemptError, CacheMode, MemoryCache, ModelError, ModelsConfig, NoCache, Origin, Outcome,
};
use passrate_schema::{Language, Reason};
use serde_json::{Value, json};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const ROUTE: &str = "/v1/chat/completions";

fn ok_body(text: &str) -> Value {
    json!({
        "id": "cmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500}
    })
}

async fn requests(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

fn api_error(result: Result<passrate_models::Fetched, ModelError>) -> (u32, AttemptError) {
    match result {
        Err(error @ ModelError::Api { .. }) => {
            assert_eq!(error.reason(), Some(Reason::ApiError));
            let attempts = error.attempts();
            let ModelError::Api { source, .. } = error else {
                unreachable!()
            };
            (attempts, source)
        }
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[tokio::test]
async fn success_sends_a_chat_request_and_records_usage_and_cost() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .and(header("authorization", "Bearer secret"))
        .and(body_partial_json(json!({
            "model": "gpt-test", "stream": false, "temperature": 0.0, "max_tokens": 2048
        })))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(ok_body("def add(a, b): return a + b")),
        )
        .expect(1)
        .mount(&server)
        .await;
    let model = openai(
        &server.uri(),
        "prices = { input_per_mtok = 2.0, output_per_mtok = 8.0 }",
    );
    let fetched = model
        .answer(
            &task("humaneval/0"),
            Language::Python,
            0,
            &NoCache,
            CacheMode::Use,
        )
        .await
        .unwrap();
    let answer = fetched.answer;
    assert_eq!(fetched.origin, Origin::Fetched);
    assert_eq!(answer.outcome.text(), Some("def add(a, b): return a + b"));
    assert_eq!(answer.usage.input_tokens, Some(1000));
    assert_eq!(answer.usage.output_tokens, Some(500));
    assert_eq!(answer.cost_usd, Some((1000.0 * 2.0 + 500.0 * 8.0) / 1e6));
    assert_eq!(answer.finish_reason.as_deref(), Some("stop"));
    assert_eq!(answer.attempts, 1);
    assert_eq!(answer.raw.as_ref().unwrap()["id"], "cmpl-1");

    let sent: Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(sent["messages"][0]["role"], "system");
    assert_eq!(sent["messages"][1]["role"], "user");
    let user = sent["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("Add two numbers."), "{user}");
    assert!(sent.get("stop").is_none(), "no empty stop list is sent");
}

#[tokio::test]
async fn a_response_without_usage_and_with_extra_fields_is_accepted() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{"message": {"content": [{"type": "text", "text": "x = 1"}]}, "logprobs": null}],
            "system_fingerprint": null, "x_vendor": {"a": 1}
        })))
        .mount(&server)
        .await;
    let model = openai(
        &server.uri(),
        "prices = { input_per_mtok = 2.0, output_per_mtok = 8.0 }",
    );
    let answer = model
        .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
        .await
        .unwrap()
        .answer;
    assert_eq!(answer.outcome.text(), Some("x = 1"));
    assert_eq!(answer.usage.input_tokens, None);
    assert_eq!(answer.cost_usd, None, "no usage, no cost");
}

#[tokio::test]
async fn malformed_json_is_retried_then_an_api_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(200).set_body_string("{\"choices\": [{\"mess"))
        .mount(&server)
        .await;
    let model = openai(&server.uri(), "max_retries = 2");
    let result = model
        .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
        .await;
    let (attempts, error) = api_error(result);
    assert_eq!(attempts, 3);
    assert!(
        matches!(error, AttemptError::Malformed(ref m) if m.contains("{\"choices\"")),
        "{error}"
    );
    assert_eq!(requests(&server).await, 3);
}

#[tokio::test]
async fn status_429_waits_for_retry_after_seconds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "1"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_body("ok")))
        .mount(&server)
        .await;
    let model = openai(&server.uri(), "");
    let started = Instant::now();
    let answer = model
        .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
        .await
        .unwrap()
        .answer;
    let waited = started.elapsed();
    assert_eq!(answer.attempts, 2);
    assert_eq!(requests(&server).await, 2);
    // The backoff alone is at most 50 ms here: the second(s) come from Retry-After.
    assert!(waited >= Duration::from_millis(1000), "{waited:?}");
}

#[tokio::test]
async fn status_429_honours_an_http_date_retry_after() {
    let server = MockServer::start().await;
    // Started before the date is taken, so the set-up below cannot eat into the bound.
    let started = Instant::now();
    let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(2));
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", date.as_str()))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_body("ok")))
        .mount(&server)
        .await;
    let model = openai(&server.uri(), "");
    model
        .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
        .await
        .unwrap();
    // The date has whole-second precision: now + 2 s is at least 1 s after `started`.
    assert!(
        started.elapsed() >= Duration::from_millis(1000),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn status_500_then_success() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(500).set_body_string("internal"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_body("second")))
        .mount(&server)
        .await;
    let model = openai(&server.uri(), "");
    let answer = model
        .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
        .await
        .unwrap()
        .answer;
    assert_eq!(answer.outcome.text(), Some("second"));
    assert_eq!(answer.attempts, 2);
    assert_eq!(requests(&server).await, 2);
}

#[tokio::test]
async fn persistent_503_ends_as_api_error_after_the_retries() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(503).set_body_string("overloaded"))
        .mount(&server)
        .await;
    let model = openai(&server.uri(), "max_retries = 3");
    let result = model
        .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
        .await;
    let message = result.as_ref().unwrap_err().to_string();
    let (attempts, error) = api_error(result);
    assert_eq!(attempts, 4);
    assert!(matches!(error, AttemptError::Status { status: 503, .. }));
    assert_eq!(requests(&server).await, 4);
    assert!(
        message.contains("model `m`: failed to get an answer for t/1 (python, sample 0) after 4 attempt(s): HTTP 503: overloaded"),
        "{message}"
    );
}

#[tokio::test]
async fn status_400_fails_at_once() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"error": {"message": "max_tokens is too large"}})),
        )
        .mount(&server)
        .await;
    let model = openai(&server.uri(), "max_retries = 5");
    let result = model
        .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
        .await;
    let (attempts, error) = api_error(result);
    assert_eq!(attempts, 1);
    assert!(!error.is_retryable());
    assert!(
        error.to_string().contains("max_tokens is too large"),
        "{error}"
    );
    assert_eq!(requests(&server).await, 1);
}

#[tokio::test]
async fn a_slow_response_within_the_timeout_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(ok_body("slow"))
                .set_delay(Duration::from_millis(300)),
        )
        .mount(&server)
        .await;
    let model = openai(&server.uri(), "timeout_s = 10");
    let answer = model
        .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
        .await
        .unwrap()
        .answer;
    assert_eq!(answer.outcome.text(), Some("slow"));
    assert!(answer.latency_ms >= 300, "{}", answer.latency_ms);
}

#[tokio::test]
async fn a_response_slower_than_the_timeout_times_out_and_is_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(ok_body("too late"))
                .set_delay(Duration::from_secs(5)),
        )
        .mount(&server)
        .await;
    let model = openai(&server.uri(), "timeout_s = 0.3\nmax_retries = 1");
    let started = Instant::now();
    let result = model
        .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
        .await;
    let elapsed = started.elapsed();
    let (attempts, error) = api_error(result);
    assert_eq!(attempts, 2);
    assert_eq!(error, AttemptError::Timeout(Duration::from_millis(300)));
    assert!(elapsed >= Duration::from_millis(600), "{elapsed:?}");
    assert!(
        elapsed < Duration::from_secs(5),
        "did not wait for the slow server: {elapsed:?}"
    );
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_reported() {
    // A port that was just free: nothing listens there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let model = openai(&format!("http://{address}"), "max_retries = 2");
    let (attempts, error) = api_error(
        model
            .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
            .await,
    );
    assert_eq!(attempts, 3);
    assert!(matches!(error, AttemptError::Transport(_)), "{error}");
}

#[tokio::test]
async fn the_cache_prevents_a_second_request_and_refresh_forces_one() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_body("cached")))
        .mount(&server)
        .await;
    let model = openai(&server.uri(), "");
    let cache = MemoryCache::new();
    let t = task("t/1");
    let first = model
        .answer(&t, Language::Python, 0, &cache, CacheMode::Use)
        .await
        .unwrap();
    let second = model
        .answer(&t, Language::Python, 0, &cache, CacheMode::Use)
        .await
        .unwrap();
    assert_eq!(first.origin, Origin::Fetched);
    assert_eq!(second.origin, Origin::Cached);
    assert_eq!(second.answer, first.answer);
    assert_eq!(requests(&server).await, 1);

    // Another sample, language or task version is another unit.
    model
        .answer(&t, Language::Python, 1, &cache, CacheMode::Use)
        .await
        .unwrap();
    model
        .answer(&t, Language::Java, 0, &cache, CacheMode::Use)
        .await
        .unwrap();
    let mut bumped = t.clone();
    bumped.version = 2;
    model
        .answer(&bumped, Language::Python, 0, &cache, CacheMode::Use)
        .await
        .unwrap();
    assert_eq!(requests(&server).await, 4);
    assert_eq!(cache.len(), 4);

    let refreshed = model
        .answer(&t, Language::Python, 0, &cache, CacheMode::Refresh)
        .await
        .unwrap();
    assert_eq!(refreshed.origin, Origin::Fetched);
    assert_eq!(requests(&server).await, 5);
    assert_eq!(cache.len(), 4, "refresh replaces the cached answer");
}

#[tokio::test]
async fn api_errors_are_not_cached() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(500))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_body("later")))
        .mount(&server)
        .await;
    let model = openai(&server.uri(), "max_retries = 0");
    let cache = MemoryCache::new();
    let t = task("t/1");
    assert!(
        model
            .answer(&t, Language::Python, 0, &cache, CacheMode::Use)
            .await
            .is_err()
    );
    assert!(cache.is_empty());
    let retried = model
        .answer(&t, Language::Python, 0, &cache, CacheMode::Use)
        .await
        .unwrap();
    assert_eq!(
        retried.answer.outcome,
        Outcome::Answered {
            text: "later".into()
        }
    );
}

#[tokio::test]
async fn a_missing_key_variable_stops_before_any_request() {
    let server = MockServer::start().await;
    let text = format!(
        "[[model]]\nid = \"ok\"\nadapter = \"openai\"\nendpoint = \"{}\"\nmodel = \"x\"\n\n[[model]]\nid = \"keyless\"\nadapter = \"openai\"\nendpoint = \"{}\"\nmodel = \"y\"\napi_key_env = \"PASSRATE_NO_SUCH_VARIABLE\"\n",
        server.uri(),
        server.uri()
    );
    let config = ModelsConfig::parse(&text, "models.toml", std::path::Path::new("/")).unwrap();
    let err = passrate_models::Model::build_all(&config, &|_| None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "models.toml:7:1: model `keyless`: environment variable `PASSRATE_NO_SUCH_VARIABLE` (named by `api_key_env`) is not set or empty"
    );
    assert_eq!(requests(&server).await, 0);
}

/// An axum server that counts requests in flight and records arrival times.
#[derive(Default)]
struct Probe {
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    arrivals: Mutex<Vec<Instant>>,
}

async fn probe_handler(State(probe): State<Arc<Probe>>, Json(_body): Json<Value>) -> Json<Value> {
    probe.arrivals.lock().unwrap().push(Instant::now());
    let now = probe.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    probe.max_in_flight.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(150)).await;
    probe.in_flight.fetch_sub(1, Ordering::SeqCst);
    Json(ok_body("probed"))
}

async fn start_probe() -> (SocketAddr, Arc<Probe>) {
    let probe = Arc::new(Probe::default());
    let app = axum::Router::new()
        .route(ROUTE, post(probe_handler))
        .with_state(probe.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (address, probe)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_concurrency_limit_holds_at_the_server() {
    let (address, probe) = start_probe().await;
    let model = Arc::new(openai(&format!("http://{address}"), "concurrency = 3"));
    let t = Arc::new(task("t/1"));
    let handles: Vec<_> = (0..12)
        .map(|sample| {
            let (model, t) = (model.clone(), t.clone());
            tokio::spawn(async move {
                model
                    .answer(&t, Language::Python, sample, &NoCache, CacheMode::Use)
                    .await
                    .unwrap()
            })
        })
        .collect();
    for handle in handles {
        handle.await.unwrap();
    }
    assert_eq!(probe.arrivals.lock().unwrap().len(), 12);
    // Never more than 3, and the limit is actually reached (12 requests of 150 ms each).
    assert_eq!(probe.max_in_flight.load(Ordering::SeqCst), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_spaces_requests() {
    let (address, probe) = start_probe().await;
    // 600 per minute with a burst of 1: one request every 100 ms, even with 8 slots.
    let model = Arc::new(openai(
        &format!("http://{address}"),
        "concurrency = 8\nrequests_per_minute = 600",
    ));
    let t = Arc::new(task("t/1"));
    let handles: Vec<_> = (0..5)
        .map(|sample| {
            let (model, t) = (model.clone(), t.clone());
            tokio::spawn(async move {
                model
                    .answer(&t, Language::Python, sample, &NoCache, CacheMode::Use)
                    .await
                    .unwrap()
            })
        })
        .collect();
    for handle in handles {
        handle.await.unwrap();
    }
    let mut arrivals = probe.arrivals.lock().unwrap().clone();
    arrivals.sort();
    assert_eq!(arrivals.len(), 5);
    for pair in arrivals.windows(2) {
        let gap = pair[1] - pair[0];
        // 100 ms slots; a little slack for when the server sees the request.
        assert!(gap >= Duration::from_millis(85), "gap {gap:?}");
    }
}
