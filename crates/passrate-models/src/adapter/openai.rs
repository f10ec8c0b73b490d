//! OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp server, Ollama, OpenRouter…).
//!
//! The response types are our own and lenient: every field is optional, `null` is accepted
//! anywhere, unknown fields are ignored, `content` may be a string or an array of parts, and
//! `usage` may be missing or use `input_tokens`/`output_tokens`. The raw JSON is kept.

use std::time::{Duration, SystemTime};

use serde::Deserialize;
use serde_json::{Value, json};

use super::{Adapter, AdapterRequest, BoxFuture, Completion, PreflightFailure};
use crate::answer::{Outcome, Usage};
use crate::error::{AttemptError, ConfigError};
use crate::retry::parse_retry_after;

/// Bytes of an error body kept in the error message.
const ERROR_BODY_LIMIT: usize = 600;
/// Bytes of the provider's explanation kept in a pre-flight error.
const PREFLIGHT_MESSAGE_LIMIT: usize = 500;

pub struct OpenAiAdapter {
    client: reqwest::Client,
    url: String,
    model: String,
    api_key: Option<String>,
}

impl std::fmt::Debug for OpenAiAdapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("OpenAiAdapter")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .finish()
    }
}

impl OpenAiAdapter {
    /// `endpoint` is a base URL (`…/v1`, `/chat/completions` is appended) or the full URL.
    pub fn new(
        model_id: &str,
        endpoint: &str,
        model: &str,
        api_key: Option<String>,
    ) -> Result<OpenAiAdapter, ConfigError> {
        install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(20))
            .user_agent(concat!("passrate/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ConfigError::HttpClient {
                model: model_id.to_string(),
                message: error_chain(&e),
            })?;
        let endpoint = endpoint.trim_end_matches('/');
        let url = if endpoint.ends_with("/chat/completions") {
            endpoint.to_string()
        } else {
            format!("{endpoint}/chat/completions")
        };
        Ok(OpenAiAdapter {
            client,
            url,
            model: model.to_string(),
            api_key,
        })
    }

    fn body(&self, request: &AdapterRequest) -> Value {
        let mut messages = Vec::new();
        if let Some(system) = &request.prompt.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        messages.push(json!({"role": "user", "content": request.prompt.user}));
        let generation = &request.generation;
        let mut body = json!({
            "model": self.model,
            "messages": messages,
            "temperature": generation.temperature,
            "max_tokens": generation.max_tokens,
            "stream": false,
        });
        if !generation.stop.is_empty() {
            body["stop"] = json!(generation.stop);
        }
        if let Some(top_p) = generation.top_p {
            body["top_p"] = json!(top_p);
        }
        if let Some(seed) = generation.seed {
            body["seed"] = json!(seed.wrapping_add(u64::from(request.sample_index)));
        }
        body
    }

    async fn attempt(
        &self,
        request: &AdapterRequest,
        timeout: Duration,
    ) -> Result<Completion, AttemptError> {
        let mut builder = self
            .client
            .post(&self.url)
            .timeout(timeout)
            .json(&self.body(request));
        if let Some(key) = &self.api_key {
            builder = builder.bearer_auth(key);
        }
        let response = builder
            .send()
            .await
            .map_err(|e| transport_error(&e, timeout))?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let bytes = response
            .bytes()
            .await
            .map_err(|e| transport_error(&e, timeout))?;
        if !status.is_success() {
            let text = String::from_utf8_lossy(&bytes);
            return Err(AttemptError::Status {
                status: status.as_u16(),
                body: truncate(text.trim(), ERROR_BODY_LIMIT),
                retry_after,
            });
        }
        let raw: Value = serde_json::from_slice(&bytes).map_err(|e| {
            AttemptError::Malformed(format!(
                "{e}; body starts with `{}`",
                truncate(&String::from_utf8_lossy(&bytes), 200)
            ))
        })?;
        parse_completion(raw)
    }
}

impl OpenAiAdapter {
    /// The smallest real request that proves the key and the model name: one chat
    /// completion of at most one token. Listing models (`GET /models`) would be cheaper, but
    /// many compatible servers do not implement it, or list models the key cannot use.
    async fn check(&self, timeout: Duration) -> Result<String, PreflightFailure> {
        let body = json!({
            "model": self.model,
            "messages": [{"role": "user", "content": "Reply with OK."}],
            "temperature": 0.0,
            "max_tokens": 1,
            "stream": false,
        });
        let mut builder = self.client.post(&self.url).timeout(timeout).json(&body);
        if let Some(key) = &self.api_key {
            builder = builder.bearer_auth(key);
        }
        let no_answer = |e: reqwest::Error| connection_failure(&self.url, &e, timeout);
        let response = builder.send().await.map_err(no_answer)?;
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let bytes = response.bytes().await.map_err(no_answer)?;
        let code = status.as_u16();
        if !status.is_success() {
            let message = provider_message(&bytes).unwrap_or_else(|| {
                status
                    .canonical_reason()
                    .unwrap_or("no explanation given")
                    .to_string()
            });
            return Err(PreflightFailure {
                status: Some(code),
                message,
                retryable: code == 408 || code == 429 || status.is_server_error(),
                retry_after,
            });
        }
        // A 2xx that is not a chat completion (a web page from a wrong path, a gateway's
        // error object) would fail every unit just the same.
        let not_a_completion = |detail: String, retryable: bool| PreflightFailure {
            status: Some(code),
            message: format!(
                "{} answered HTTP {code} but not with a chat completion: {detail}",
                self.url
            ),
            retryable,
            retry_after: None,
        };
        let raw: Value = serde_json::from_slice(&bytes).map_err(|_| {
            let start = truncate(String::from_utf8_lossy(&bytes).trim(), 200);
            not_a_completion(format!("the body starts with `{start}`"), false)
        })?;
        match parse_completion(raw) {
            Ok(_) => Ok(format!(
                "chat completion of 1 token from `{}` at {}",
                self.model, self.url
            )),
            Err(AttemptError::Provider(_)) => Err(not_a_completion(
                provider_message(&bytes).unwrap_or_default(),
                true,
            )),
            Err(error) => Err(not_a_completion(error.to_string(), false)),
        }
    }
}

impl Adapter for OpenAiAdapter {
    fn fingerprint(&self) -> &str {
        &self.model
    }

    fn preflight<'a>(
        &'a self,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<String, PreflightFailure>> {
        Box::pin(self.check(timeout))
    }

    fn complete<'a>(
        &'a self,
        request: &'a AdapterRequest,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Completion, AttemptError>> {
        Box::pin(self.attempt(request, timeout))
    }
}

/// reqwest 0.13 is built with `rustls-no-provider` (ring instead of aws-lc, which needs
/// cmake); rustls then needs a process default. Installing twice is harmless.
fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn transport_error(error: &reqwest::Error, timeout: Duration) -> AttemptError {
    if error.is_timeout() {
        AttemptError::Timeout(timeout)
    } else {
        AttemptError::Transport(error_chain(error))
    }
}

/// A request that got no HTTP answer, described for a person: what failed, and where.
fn connection_failure(url: &str, error: &reqwest::Error, timeout: Duration) -> PreflightFailure {
    let chain = error_chain(error);
    let lower = chain.to_lowercase();
    let refused = std::iter::successors(Some(error as &(dyn std::error::Error + 'static)), |e| {
        e.source()
    })
    .filter_map(|e| e.downcast_ref::<std::io::Error>())
    .any(|e| e.kind() == std::io::ErrorKind::ConnectionRefused);
    let message = if error.is_timeout() {
        format!(
            "no answer from {url} within {:.1} s (timeout)",
            timeout.as_secs_f64()
        )
    } else if refused || lower.contains("connection refused") {
        format!("connection refused by {url}")
    } else if lower.contains("dns error") || lower.contains("failed to lookup address") {
        format!("DNS lookup failed for {url}: {chain}")
    } else if lower.contains("certificate") || lower.contains("tls") {
        format!("TLS with {url} failed: {chain}")
    } else {
        format!("failed to reach {url}: {chain}")
    };
    PreflightFailure::fatal(message)
}

/// The explanation in an error body: OpenAI's `{"error": {"message": …}}`, the variants
/// other servers use (`{"error": "…"}`, `{"message": …}`, `{"detail": …}`), else the body
/// itself. `None` for an empty body.
pub(crate) fn provider_message(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let from_json = serde_json::from_str::<Value>(text).ok().and_then(|value| {
        let as_text = |v: &Value| match v {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Value::Null | Value::String(_) => None,
            other => Some(other.to_string()),
        };
        let error = value.get("error");
        error
            .and_then(|e| e.get("message"))
            .and_then(as_text)
            .or_else(|| error.filter(|e| e.is_string()).and_then(as_text))
            .or_else(|| value.get("message").and_then(as_text))
            .or_else(|| value.get("detail").and_then(as_text))
    });
    Some(truncate(
        from_json.as_deref().unwrap_or(text),
        PREFLIGHT_MESSAGE_LIMIT,
    ))
}

/// The error and its sources, because reqwest's own message omits the cause.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    // OpenAI also sends the more precise `retry-after-ms`.
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    parse_retry_after(value, SystemTime::now())
}

fn truncate(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_string();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

// ---- lenient response types ---------------------------------------------------------------

#[derive(Deserialize, Default)]
#[serde(default)]
struct ChatResponse {
    choices: Option<Vec<Option<Choice>>>,
    usage: Option<RawUsage>,
    error: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Choice {
    message: Option<Message>,
    /// Legacy completions shape, which some servers return on the chat route.
    text: Option<String>,
    /// Kept as a value: some servers send numbers or objects here.
    finish_reason: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message {
    content: Option<Content>,
    refusal: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Parts(Vec<Value>),
    Other(serde::de::IgnoredAny),
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
}

/// Interprets a 2xx body. No choice at all is a malformed (retryable) response; a choice
/// without text is the model's (empty) answer.
pub(crate) fn parse_completion(raw: Value) -> Result<Completion, AttemptError> {
    let response: ChatResponse = serde_json::from_value(raw.clone())
        .map_err(|e| AttemptError::Malformed(format!("unexpected response shape: {e}")))?;
    let first = response
        .choices
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .next();
    let Some(choice) = first else {
        return Err(match response.error {
            Some(error) if !error.is_null() => {
                AttemptError::Provider(truncate(&error.to_string(), ERROR_BODY_LIMIT))
            }
            _ => AttemptError::Malformed("the response has no choices".into()),
        });
    };
    let message = choice.message.unwrap_or_default();
    let text = match message.content {
        Some(Content::Text(text)) => text,
        Some(Content::Parts(parts)) => parts
            .iter()
            .filter_map(|part| match part {
                Value::String(s) => Some(s.as_str()),
                Value::Object(map) => map.get("text").and_then(Value::as_str),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(""),
        Some(Content::Other(_)) | None => choice.text.or(message.refusal).unwrap_or_default(),
    };
    let usage = response.usage.unwrap_or_default();
    Ok(Completion {
        outcome: Outcome::Answered { text },
        usage: Usage {
            input_tokens: usage.prompt_tokens.or(usage.input_tokens),
            output_tokens: usage.completion_tokens.or(usage.output_tokens),
        },
        finish_reason: choice.finish_reason.and_then(|reason| match reason {
            Value::String(text) => Some(text),
            Value::Null => None,
            other => Some(other.to_string()),
        }),
        raw: Some(raw),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(raw: Value) -> String {
        parse_completion(raw)
            .unwrap()
            .outcome
            .text()
            .unwrap()
            .to_string()
    }

    #[test]
    fn content_may_be_a_string_parts_or_null() {
        assert_eq!(
            text(json!({"choices": [{"message": {"content": "x = 1"}}]})),
            "x = 1"
        );
        assert_eq!(
            text(json!({"choices": [{"message": {"content": [
                {"type": "text", "text": "a"}, {"type": "image_url"}, {"type": "text", "text": "b"}
            ]}}]})),
            "ab"
        );
        assert_eq!(
            text(json!({"choices": [{"message": {"content": null}, "finish_reason": "length"}]})),
            ""
        );
        assert_eq!(text(json!({"choices": [{"text": "legacy"}]})), "legacy");
        assert_eq!(
            text(json!({"choices": [{"message": {"content": null, "refusal": "no"}}]})),
            "no"
        );
    }

    #[test]
    fn usage_is_optional_and_accepts_both_spellings() {
        let c = parse_completion(json!({
            "id": null, "choices": [{"message": {"role": "assistant", "content": "x"}, "extra": 1}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
        }))
        .unwrap();
        assert_eq!(c.usage.input_tokens, Some(12));
        assert_eq!(c.usage.output_tokens, Some(3));
        let c = parse_completion(json!({"choices": [{"message": {"content": "x"}}],
            "usage": {"input_tokens": 5, "output_tokens": null}}))
        .unwrap();
        assert_eq!(c.usage.input_tokens, Some(5));
        assert_eq!(c.usage.output_tokens, None);
        let c =
            parse_completion(json!({"choices": [{"message": {"content": "x"}}], "usage": null}))
                .unwrap();
        assert_eq!(c.usage, Usage::default());
        assert!(c.raw.is_some());
    }

    #[test]
    fn the_providers_message_is_taken_from_the_usual_shapes() {
        let message = |body: &str| provider_message(body.as_bytes());
        assert_eq!(
            message(r#"{"error": {"message": "Incorrect API key provided: sk-x", "type": "invalid_request_error", "code": "invalid_api_key"}}"#).as_deref(),
            Some("Incorrect API key provided: sk-x")
        );
        assert_eq!(
            message(r#"{"error": "model not found"}"#).as_deref(),
            Some("model not found")
        );
        assert_eq!(
            message(r#"{"object": "error", "message": "The model `x` does not exist."}"#)
                .as_deref(),
            Some("The model `x` does not exist.")
        );
        assert_eq!(
            message(r#"{"detail": [{"msg": "field required"}]}"#).as_deref(),
            Some(r#"[{"msg":"field required"}]"#)
        );
        assert_eq!(
            message("  <html>Bad Gateway</html>\n").as_deref(),
            Some("<html>Bad Gateway</html>")
        );
        assert_eq!(
            message(r#"{"error": {"code": 7}}"#).as_deref(),
            Some(r#"{"error": {"code": 7}}"#)
        );
        assert_eq!(message(" \n"), None);
        let long = message(&"x".repeat(2_000)).unwrap();
        assert!(long.len() <= PREFLIGHT_MESSAGE_LIMIT + '…'.len_utf8());
    }

    #[test]
    fn no_choices_is_malformed_or_the_providers_error() {
        assert!(matches!(
            parse_completion(json!({"choices": []})),
            Err(AttemptError::Malformed(_))
        ));
        assert!(matches!(
            parse_completion(json!({"choices": null})),
            Err(AttemptError::Malformed(_))
        ));
        assert!(matches!(
            parse_completion(json!({"error": {"message": "upstream overloaded"}})),
            Err(AttemptError::Provider(m)) if m.contains("overloaded")
        ));
        assert!(matches!(
            parse_completion(json!({"choices": "nope"})),
            Err(AttemptError::Malformed(_))
        ));
    }
}
