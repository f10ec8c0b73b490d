//! API failures made loud (issue 21, point 6): the pre-flight check, the circuit breaker
//! and the attempt observer, against real servers on loopback.

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{model, openai, task};
use passrate_models::{
    AttemptError, AttemptFailure, CacheMode, CircuitState, Model, ModelError, NoCache, Preflight,
};
use passrate_schema::{Language, Reason};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const ROUTE: &str = "/v1/chat/completions";

fn ok_body(text: &str) -> Value {
    json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1}
    })
}

fn preflight_error(result: Result<Preflight, ModelError>) -> (Option<u16>, String, String) {
    match result {
        Err(error @ ModelError::Preflight { .. }) => {
            assert_eq!(error.reason(), Some(Reason::ApiError));
            let text = error.to_string();
            let ModelError::Preflight {
                status, message, ..
            } = error
            else {
                unreachable!()
            };
            (status, message, text)
        }
        other => panic!("expected a pre-flight error, got {other:?}"),
    }
}

/// A loopback port where nothing listens.
fn closed_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    address
}

async fn unit(model: &Model, sample: u32) -> Result<passrate_models::Fetched, ModelError> {
    model
        .answer(
            &task("t/1"),
            Language::Python,
            sample,
            &NoCache,
            CacheMode::Use,
        )
        .await
}

// ---- pre-flight --------------------------------------------------------------------------

#[tokio::test]
async fn preflight_sends_one_tiny_completion_and_reports_what_it_checked() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .and(header("authorization", "Bearer secret"))
        .and(body_partial_json(
            json!({"model": "gpt-test", "max_tokens": 1, "stream": false}),
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_body("OK")))
        .expect(1)
        .mount(&server)
        .await;
    let m = openai(&server.uri(), "");
    let preflight = m.preflight().await.unwrap();
    assert_eq!(preflight.model, "m");
    assert_eq!(
        preflight.checked,
        format!(
            "chat completion of 1 token from `gpt-test` at {}{ROUTE}",
            server.uri()
        )
    );
    let sent: Value = server.received_requests().await.unwrap()[0]
        .body_json()
        .unwrap();
    assert_eq!(sent["messages"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn preflight_surfaces_the_providers_message_for_a_wrong_key() {
    let server = MockServer::start().await;
    let provider = "Incorrect API key provided: secret. You can find your API key at https://platform.openai.com/account/api-keys.";
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({
            "error": {"message": provider, "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}
        })))
        .mount(&server)
        .await;
    let m = openai(&server.uri(), "max_retries = 5");
    let (status, message, text) = preflight_error(m.preflight().await);
    assert_eq!(status, Some(401));
    assert_eq!(message, provider);
    assert_eq!(
        text,
        format!("model `m`: failed the pre-flight check (HTTP 401): {provider}")
    );
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        1,
        "a 401 is not retried"
    );
}

#[tokio::test]
async fn preflight_refuses_an_unknown_model_name_with_its_message() {
    let server = MockServer::start().await;
    let provider = "The model `gpt-test` does not exist or you do not have access to it.";
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(404).set_body_json(json!({
            "error": {"message": provider, "type": "invalid_request_error", "code": "model_not_found"}
        })))
        .mount(&server)
        .await;
    let (status, message, _) = preflight_error(openai(&server.uri(), "").preflight().await);
    assert_eq!(status, Some(404));
    assert_eq!(message, provider);
}

#[tokio::test]
async fn preflight_keeps_a_plain_body_and_truncates_it() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(400).set_body_string("x".repeat(5_000)))
        .mount(&server)
        .await;
    let (status, message, _) = preflight_error(openai(&server.uri(), "").preflight().await);
    assert_eq!(status, Some(400));
    assert!(message.starts_with("xxxx"), "{message}");
    assert!(message.chars().count() <= 501, "{}", message.len());
}

#[tokio::test]
async fn preflight_names_a_refused_connection_and_the_url() {
    let address = closed_port();
    let (status, message, _) =
        preflight_error(openai(&format!("http://{address}"), "").preflight().await);
    assert_eq!(status, None);
    assert_eq!(
        message,
        format!("connection refused by http://{address}{ROUTE}")
    );
}

#[tokio::test]
async fn preflight_names_a_timeout_and_the_url() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(ok_body("late"))
                .set_delay(Duration::from_secs(5)),
        )
        .mount(&server)
        .await;
    let m = openai(&server.uri(), "timeout_s = 0.2");
    let (status, message, _) = preflight_error(m.preflight().await);
    assert_eq!(status, None);
    assert_eq!(
        message,
        format!(
            "no answer from {}{ROUTE} within 0.2 s (timeout)",
            server.uri()
        )
    );
}

#[tokio::test]
async fn preflight_retries_a_busy_provider_once() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(
            ResponseTemplate::new(429)
                .set_body_json(json!({"error": {"message": "Rate limit reached"}})),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_body("OK")))
        .mount(&server)
        .await;
    openai(&server.uri(), "").preflight().await.unwrap();
    assert_eq!(server.received_requests().await.unwrap().len(), 2);

    // Twice overloaded: the second answer is the error, and there is no third request.
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(
            ResponseTemplate::new(503)
                .set_body_json(json!({"error": {"message": "The server is overloaded"}})),
        )
        .mount(&server)
        .await;
    let (status, message, _) =
        preflight_error(openai(&server.uri(), "max_retries = 5").preflight().await);
    assert_eq!(
        (status, message.as_str()),
        (Some(503), "The server is overloaded")
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn preflight_refuses_a_success_status_without_a_completion() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>welcome</html>"))
        .mount(&server)
        .await;
    let (status, message, _) = preflight_error(openai(&server.uri(), "").preflight().await);
    assert_eq!(status, Some(200));
    assert!(
        message.ends_with(
            "but not with a chat completion: the body starts with `<html>welcome</html>`"
        ),
        "{message}"
    );
}

#[tokio::test]
async fn preflight_checks_a_commands_program_without_running_it() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let program = dir.path().join("ask.sh");
    fs_err::write(
        &program,
        format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    )
    .unwrap();

    // Not executable yet: the error names models.toml's line and the program.
    let text = format!(
        "[[model]]\nid = \"replayed\"\nadapter = \"replay\"\nfile = \"{0}/answers.jsonl\"\n\n[[model]]\nid = \"local\"\nadapter = \"command\"\ncommand = [\"{1}\", \"--fast\"]\n",
        dir.path().display(),
        program.display()
    );
    fs_err::write(dir.path().join("answers.jsonl"), "").unwrap();
    let config =
        passrate_models::ModelsConfig::parse(&text, "models.toml", std::path::Path::new("/"))
            .unwrap();
    let models = Model::build_all(&config, &|_| None).unwrap();
    let (status, message, text) = preflight_error(models[1].preflight().await);
    assert_eq!(status, None);
    assert!(
        message.starts_with(&format!(
            "models.toml:6:1: program `{}` is not executable",
            program.display()
        )),
        "{message}"
    );
    assert!(text.starts_with("model `local`: failed the pre-flight check: models.toml:6:1: "));

    use std::os::unix::fs::PermissionsExt;
    fs_err::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let preflight = models[1].preflight().await.unwrap();
    assert_eq!(
        preflight.checked,
        format!("program {} is executable", program.display())
    );
    assert!(
        !marker.exists(),
        "the pre-flight check does not run the program"
    );

    // A replay has nothing left to check.
    let preflight = models[0].preflight().await.unwrap();
    assert!(preflight.checked.contains("(0 answers)"), "{preflight:?}");

    let missing = model("adapter = \"command\"\ncommand = [\"passrate-no-such-program\"]");
    let (_, message, _) = preflight_error(missing.preflight().await);
    assert_eq!(
        message,
        "models.toml:1:1: program `passrate-no-such-program` is not found on PATH"
    );
}

// ---- the attempt observer ----------------------------------------------------------------

fn recorder() -> (
    passrate_models::AttemptObserver,
    Arc<Mutex<Vec<AttemptFailure>>>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    (
        Arc::new(move |failure: &AttemptFailure| sink.lock().unwrap().push(failure.clone())),
        seen,
    )
}

#[tokio::test]
async fn the_observer_sees_every_failed_attempt_and_whether_another_follows() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(503).set_body_string("overloaded"))
        .up_to_n_times(2)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_body("fine")))
        .mount(&server)
        .await;
    let (observer, seen) = recorder();
    let m = openai(&server.uri(), "max_retries = 3").with_observer(observer);
    let answer = unit(&m, 4).await.unwrap().answer;
    assert_eq!(answer.attempts, 3);
    let failures = seen.lock().unwrap().clone();
    assert_eq!(failures.len(), 2, "{failures:?}");
    for (i, failure) in failures.iter().enumerate() {
        assert_eq!(failure.model, "m");
        assert_eq!(failure.task, "t/1");
        assert_eq!(failure.language, Language::Python);
        assert_eq!(failure.sample_index, 4);
        assert_eq!(failure.attempt, i as u32 + 1);
        assert_eq!(failure.error, "HTTP 503: overloaded");
        assert!(failure.will_retry);
        assert!(failure.sent);
        // retry_base_s = 0.01 and retry_max_s = 0.05: equal jitter within the ceiling.
        assert!((5..=50).contains(&failure.delay_ms), "{failure:?}");
    }

    // Out of retries: the last attempt is reported with `will_retry: false`.
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(500).set_body_string("boom"))
        .mount(&server)
        .await;
    let (observer, seen) = recorder();
    let mut m = openai(&server.uri(), "max_retries = 1");
    m.set_observer(observer);
    assert_eq!(unit(&m, 0).await.unwrap_err().attempts(), 2);
    let retries: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|f| (f.attempt, f.will_retry, f.delay_ms == 0))
        .collect();
    assert_eq!(retries, vec![(1, true, false), (2, false, true)]);

    // Not retryable: one report, final.
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(400).set_body_string("bad request"))
        .mount(&server)
        .await;
    let (observer, seen) = recorder();
    let m = openai(&server.uri(), "max_retries = 5").with_observer(observer);
    unit(&m, 0).await.unwrap_err();
    let failures = seen.lock().unwrap().clone();
    assert_eq!(failures.len(), 1);
    assert!(!failures[0].will_retry);
    assert_eq!(failures[0].error, "HTTP 400: bad request");
}

// ---- the circuit breaker -----------------------------------------------------------------

/// A raw HTTP server that counts connections and either closes each at once (`dead`) or
/// answers it with a chat completion.
struct Flaky {
    address: SocketAddr,
    connections: Arc<AtomicUsize>,
    dead: Arc<AtomicBool>,
}

async fn start_flaky() -> Flaky {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let dead = Arc::new(AtomicBool::new(true));
    let (count, is_dead) = (connections.clone(), dead.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            count.fetch_add(1, Ordering::SeqCst);
            if is_dead.load(Ordering::SeqCst) {
                drop(stream);
                continue;
            }
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buffer = [0u8; 4096];
                // Headers, then as many body bytes as Content-Length says.
                loop {
                    let Ok(n) = stream.read(&mut buffer).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    request.extend_from_slice(&buffer[..n]);
                    let text = String::from_utf8_lossy(&request).to_string();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length = text[..end]
                            .lines()
                            .find_map(|line| {
                                let (name, value) = line.split_once(':')?;
                                name.eq_ignore_ascii_case("content-length")
                                    .then(|| value.trim().parse::<usize>().ok())?
                            })
                            .unwrap_or(0);
                        if request.len() >= end + 4 + length {
                            break;
                        }
                    }
                }
                let body = ok_body("alive").to_string();
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    Flaky {
        address,
        connections,
        dead,
    }
}

#[tokio::test]
async fn a_dead_endpoint_opens_the_breaker_and_later_units_send_nothing() {
    let server = start_flaky().await;
    let (observer, seen) = recorder();
    // Default threshold (5); a long cool-down so nothing is let through during the test.
    let m = openai(
        &format!("http://{}", server.address),
        "max_retries = 2\nconcurrency = 1\ncircuit_breaker_cooldown_s = 600",
    )
    .with_observer(observer);

    // Unit 0: three connection failures. Unit 1: two more open the breaker; its third
    // attempt is refused without sending.
    let first = unit(&m, 0).await.unwrap_err();
    assert_eq!(first.attempts(), 3);
    let second = unit(&m, 1).await.unwrap_err();
    assert_eq!(second.attempts(), 2);
    let ModelError::Api { source, .. } = &second else {
        panic!("{second}")
    };
    assert!(
        matches!(source, AttemptError::CircuitOpen { failures: 5, last_error } if last_error.starts_with("failed to connect or transfer")),
        "{source}"
    );
    assert_eq!(server.connections.load(Ordering::SeqCst), 5);
    assert_eq!(m.circuit().state, CircuitState::Open);

    // Later units fail at once, send nothing, and still count as API errors.
    for sample in 2..12 {
        let error = unit(&m, sample).await.unwrap_err();
        assert_eq!(error.reason(), Some(Reason::ApiError));
        assert_eq!(error.attempts(), 0, "{error}");
        assert!(
            error.to_string().contains(
                "not sent: the circuit breaker is open after 5 consecutive connection failure(s)"
            ),
            "{error}"
        );
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 5);
    let stats = m.circuit();
    assert_eq!((stats.times_opened, stats.fast_failures), (1, 11));

    let seen = seen.lock().unwrap();
    let refusals: Vec<_> = seen.iter().filter(|f| !f.sent).collect();
    assert_eq!(refusals.len(), 11);
    assert!(refusals.iter().all(|f| !f.will_retry));
    assert_eq!(seen.iter().filter(|f| f.sent).count(), 5);
}

#[tokio::test]
async fn after_the_cooldown_a_trial_request_closes_the_breaker() {
    let server = start_flaky().await;
    let m = openai(
        &format!("http://{}", server.address),
        "max_retries = 0\nconcurrency = 1\ncircuit_breaker_failures = 2\ncircuit_breaker_cooldown_s = 0.3",
    );
    unit(&m, 0).await.unwrap_err();
    unit(&m, 1).await.unwrap_err();
    assert_eq!(m.circuit().state, CircuitState::Open);
    assert_eq!(unit(&m, 2).await.unwrap_err().attempts(), 0);
    assert_eq!(server.connections.load(Ordering::SeqCst), 2);

    // Still dead after the cool-down: the one trial fails and the breaker opens again.
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert_eq!(m.circuit().state, CircuitState::HalfOpen);
    assert_eq!(unit(&m, 3).await.unwrap_err().attempts(), 1);
    assert_eq!(server.connections.load(Ordering::SeqCst), 3);
    assert_eq!(unit(&m, 4).await.unwrap_err().attempts(), 0);
    assert_eq!(m.circuit().times_opened, 2);

    // Back to life: the next trial succeeds and everything flows again.
    server.dead.store(false, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(350)).await;
    for sample in 5..8 {
        let answer = unit(&m, sample).await.unwrap().answer;
        assert_eq!(answer.outcome.text(), Some("alive"));
    }
    assert_eq!(m.circuit().state, CircuitState::Closed);
    assert_eq!(server.connections.load(Ordering::SeqCst), 6);
}

#[tokio::test]
async fn a_refused_port_trips_the_breaker_across_concurrent_units() {
    let address = closed_port();
    let m = Arc::new(openai(
        &format!("http://{address}"),
        "max_retries = 3\nconcurrency = 4\ncircuit_breaker_cooldown_s = 600",
    ));
    let handles: Vec<_> = (0..40)
        .map(|sample| {
            let m = m.clone();
            tokio::spawn(async move {
                let error = unit(&m, sample).await.unwrap_err();
                let refused = matches!(
                    error,
                    ModelError::Api {
                        source: AttemptError::CircuitOpen { .. },
                        ..
                    }
                );
                (error.attempts(), refused)
            })
        })
        .collect();
    let (mut sent, mut refused) = (0, 0);
    for handle in handles {
        let (attempts, was_refused) = handle.await.unwrap();
        sent += attempts;
        refused += u64::from(was_refused);
    }
    // Without the breaker: 40 units × 4 attempts = 160 connection attempts. With it: the
    // 5 that open it, plus at most the other 3 in flight at that moment.
    assert!((5..=8).contains(&sent), "{sent} requests sent");
    let stats = m.circuit();
    assert_eq!(stats.times_opened, 1);
    assert!(refused >= 36, "{refused} units refused");
    assert_eq!(stats.fast_failures, refused);
}

#[tokio::test]
async fn http_error_answers_do_not_trip_the_breaker() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ROUTE))
        .respond_with(ResponseTemplate::new(503).set_body_string("overloaded"))
        .mount(&server)
        .await;
    let m = openai(
        &server.uri(),
        "max_retries = 2\ncircuit_breaker_failures = 2",
    );
    for sample in 0..4 {
        assert_eq!(unit(&m, sample).await.unwrap_err().attempts(), 3);
    }
    assert_eq!(server.received_requests().await.unwrap().len(), 12);
    assert_eq!(m.circuit().state, CircuitState::Closed);
    assert_eq!(m.circuit().consecutive_failures, 0);
}

#[tokio::test]
async fn a_zero_threshold_disables_the_breaker() {
    let address = closed_port();
    let m = openai(
        &format!("http://{address}"),
        "max_retries = 2\ncircuit_breaker_failures = 0",
    );
    for sample in 0..4 {
        assert_eq!(unit(&m, sample).await.unwrap_err().attempts(), 3);
    }
    assert_eq!(m.circuit().state, CircuitState::Closed);
    assert_eq!(m.circuit().consecutive_failures, 12);
}
