//! The OpenAI-compatible adapter against a real OpenAI-compatible server: a LiteLLM proxy
//! (`scripts/litellm-test-server.sh`) serving one model with a fixed `mock_response` and
//! rejecting any key but its own. Mocks check what we expect a server to do; this checks
//! what a real one does (error shapes, status codes, the answer's format).
//!
//! `PASSRATE_TEST_OPENAI_URL` and `PASSRATE_TEST_OPENAI_KEY` point at it
//! (`eval "$(scripts/litellm-test-server.sh)"`). Without them the tests are skipped with a
//! notice, except under CI, where they fail so the suite cannot silently test less.

mod common;

use std::path::Path;

use common::task;
use passrate_models::{AttemptError, CacheMode, Model, ModelError, ModelsConfig, NoCache, Outcome};
use passrate_schema::Language;

const URL_VAR: &str = "PASSRATE_TEST_OPENAI_URL";
const KEY_VAR: &str = "PASSRATE_TEST_OPENAI_KEY";
const MODEL_VAR: &str = "PASSRATE_TEST_OPENAI_MODEL";
/// What the script's proxy answers to everything.
const MOCK_RESPONSE: &str = "def add(a, b):\n    return a + b\n";
/// What its auth hook says to a wrong key.
const WRONG_KEY_MESSAGE: &str = "Incorrect API key provided to the passrate test proxy";

struct Server {
    url: String,
    key: String,
    model: String,
}

fn set(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The server to test against, `None` (after a notice) to skip; panics under CI.
fn server(test: &str) -> Option<Server> {
    if let (Some(url), Some(key)) = (set(URL_VAR), set(KEY_VAR)) {
        let model = set(MODEL_VAR).unwrap_or_else(|| "passrate-mock".into());
        return Some(Server { url, key, model });
    }
    let under_ci = set("CI").is_some_and(|v| v != "false" && v != "0");
    assert!(
        !under_ci,
        "{URL_VAR} and {KEY_VAR} are not set, and CI must not skip the real-server tests: run `eval \"$(scripts/litellm-test-server.sh)\"` first"
    );
    eprintln!(
        "note: {test} skipped: {URL_VAR} and {KEY_VAR} are not set (eval \"$(scripts/litellm-test-server.sh)\" to run it)"
    );
    None
}

/// A model on the server with `key` and the provider model name `model`.
fn model_with(server: &Server, model: &str, key: &str) -> Model {
    let text = format!(
        "[[model]]\nid = \"real\"\nadapter = \"openai\"\nendpoint = \"{}\"\nmodel = \"{model}\"\napi_key_env = \"KEY\"\nmax_retries = 0\ntimeout_s = 30\n",
        server.url
    );
    let config = ModelsConfig::parse(&text, "models.toml", Path::new("/")).unwrap();
    let key = key.to_string();
    Model::build_all(&config, &move |name| (name == "KEY").then(|| key.clone()))
        .unwrap()
        .remove(0)
}

fn preflight_error(
    result: Result<passrate_models::Preflight, ModelError>,
) -> (Option<u16>, String) {
    match result {
        Err(ModelError::Preflight {
            status, message, ..
        }) => (status, message),
        other => panic!("expected a pre-flight error, got {other:?}"),
    }
}

#[tokio::test]
async fn an_answer_round_trips_through_a_real_server() {
    let Some(server) = server("an_answer_round_trips_through_a_real_server") else {
        return;
    };
    let m = model_with(&server, &server.model, &server.key);
    let answer = m
        .answer(
            &task("humaneval/0"),
            Language::Python,
            0,
            &NoCache,
            CacheMode::Use,
        )
        .await
        .unwrap()
        .answer;
    assert_eq!(
        answer.outcome,
        Outcome::Answered {
            text: MOCK_RESPONSE.into()
        }
    );
    assert_eq!(answer.attempts, 1);
    assert_eq!(answer.finish_reason.as_deref(), Some("stop"));
    assert!(answer.usage.output_tokens.is_some(), "{:?}", answer.usage);
}

#[tokio::test]
async fn preflight_passes_with_the_right_key() {
    let Some(server) = server("preflight_passes_with_the_right_key") else {
        return;
    };
    let preflight = model_with(&server, &server.model, &server.key)
        .preflight()
        .await
        .unwrap();
    assert!(
        preflight.checked.contains(&server.model),
        "{}",
        preflight.checked
    );
}

#[tokio::test]
async fn a_wrong_key_gets_the_providers_401_message() {
    let Some(server) = server("a_wrong_key_gets_the_providers_401_message") else {
        return;
    };
    let m = model_with(&server, &server.model, "sk-wrong-key");
    let (status, message) = preflight_error(m.preflight().await);
    assert_eq!(status, Some(401), "{message}");
    // The message from the error body, not the body itself.
    assert_eq!(message, WRONG_KEY_MESSAGE);

    // A unit with that key fails at once (a 401 is not retried) as an API error.
    let error = m
        .answer(&task("t/1"), Language::Python, 0, &NoCache, CacheMode::Use)
        .await
        .unwrap_err();
    assert_eq!(error.attempts(), 1);
    assert!(
        matches!(&error, ModelError::Api { source: AttemptError::Status { status: 401, body, .. }, .. } if body.contains(WRONG_KEY_MESSAGE)),
        "{error}"
    );
}

#[tokio::test]
async fn an_unknown_model_name_is_refused_with_the_providers_message() {
    let Some(server) = server("an_unknown_model_name_is_refused_with_the_providers_message") else {
        return;
    };
    let m = model_with(&server, "passrate-no-such-model", &server.key);
    let (status, message) = preflight_error(m.preflight().await);
    // LiteLLM says 400, OpenAI 404: either way a client error naming the model.
    assert!(matches!(status, Some(400..=404)), "{status:?}: {message}");
    assert!(message.contains("passrate-no-such-model"), "{message}");
    assert!(
        !message.starts_with('{'),
        "the message, not the body: {message}"
    );
}
