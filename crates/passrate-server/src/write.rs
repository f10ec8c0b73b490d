//! Write endpoints, behind a bearer token: none work unless the server was started with a
//! token, and the token is compared in constant time.
//!
//! Registering a model appends it to the `models.toml` the server was given (the file
//! `passrate run --models` reads), after validating the whole file with the model crate's own
//! parser, so a registration the next run would refuse is refused now. Only OpenAI-compatible
//! models can be registered over HTTP: a `command` model would let a token holder make the
//! next run execute a program of their choosing, and a `replay` model would read a file of
//! their choosing.

use std::path::{Path, PathBuf};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::api::Shared;
use crate::error::ApiError;

/// Largest request body a write endpoint reads.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// What writes need: the token, and the models file registrations go to.
pub struct WriteConfig {
    /// blake3 of the token: comparing hashes (blake3's `Hash` compares in constant time)
    /// leaks neither the token's bytes nor its length through timing.
    token_hash: blake3::Hash,
    pub models_file: Option<PathBuf>,
    /// Serialises registrations: each reads, validates and replaces the whole file.
    lock: tokio::sync::Mutex<()>,
}

impl WriteConfig {
    pub fn new(token: &str, models_file: Option<PathBuf>) -> WriteConfig {
        WriteConfig {
            token_hash: blake3::hash(token.as_bytes()),
            models_file,
            lock: tokio::sync::Mutex::new(()),
        }
    }
}

/// Middleware on write routes: 403 when writes are off, 401 without a bearer token, 403 with
/// the wrong one.
pub async fn require_token(State(state): State<Shared>, request: Request, next: Next) -> Response {
    let Some(writes) = &state.writes else {
        return ApiError::WritesDisabled.into_response();
    };
    let presented = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match presented {
        None => ApiError::Unauthorized.into_response(),
        Some(token) if blake3::hash(token.trim().as_bytes()) == writes.token_hash => {
            next.run(request).await
        }
        Some(_) => ApiError::Forbidden.into_response(),
    }
}

/// An OpenAI-compatible model to add to the models file.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterModel {
    /// The name on the leaderboard; unique in the file.
    #[schemars(length(min = 1, max = 200))]
    pub id: String,
    /// Base URL (`…/v1`) or the full `…/chat/completions` URL.
    #[schemars(length(min = 1, max = 2000))]
    pub endpoint: String,
    /// The provider's model name.
    #[schemars(length(min = 1, max = 200))]
    pub model: String,
    /// The NAME of the environment variable holding the API key (never the key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.001))]
    pub requests_per_minute: Option<f64>,
}

/// A registration as stored.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Registered {
    pub model: RegisterModel,
    /// The models file it was appended to.
    pub models_file: String,
}

#[derive(Serialize)]
struct TomlEntry<'a> {
    id: &'a str,
    adapter: &'static str,
    endpoint: &'a str,
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_key_env: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requests_per_minute: Option<f64>,
}

#[derive(Serialize)]
struct TomlFile<'a> {
    model: [TomlEntry<'a>; 1],
}

pub async fn register_model(
    State(state): State<Shared>,
    request: Request,
) -> Result<Response, ApiError> {
    let writes = state.writes.as_ref().ok_or(ApiError::WritesDisabled)?;
    let path = writes
        .models_file
        .as_ref()
        .ok_or(ApiError::WritesDisabled)?;
    let body = axum::body::to_bytes(request.into_body(), MAX_BODY_BYTES)
        .await
        .map_err(|_| ApiError::BodyTooLarge {
            max: MAX_BODY_BYTES,
        })?;
    let request: RegisterModel = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad("body", format!("not a model registration: {e}")))?;
    crate::params::id("id", &request.id)?;
    let _guard = writes.lock.lock().await;
    let current = match fs_err::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(ApiError::Internal {
                action: "read the models file".to_string(),
                detail: e.to_string(),
            });
        }
    };
    let base = path.parent().unwrap_or(Path::new("."));
    let file = path.display().to_string();
    let existing = passrate_models::ModelsConfig::parse(&current, &file, base).map_err(|e| {
        ApiError::Internal {
            action: "read the models file".to_string(),
            detail: e.to_string(),
        }
    })?;
    if existing.models.iter().any(|m| m.id == request.id) {
        return Err(ApiError::Conflict {
            parameter: "id",
            message: format!("model `{}` is already registered", request.id),
        });
    }
    let block = toml::to_string(&TomlFile {
        model: [TomlEntry {
            id: &request.id,
            adapter: "openai",
            endpoint: &request.endpoint,
            model: &request.model,
            api_key_env: request.api_key_env.as_deref(),
            requests_per_minute: request.requests_per_minute,
        }],
    })
    .map_err(|e| ApiError::Internal {
        action: "encode the registration".to_string(),
        detail: e.to_string(),
    })?;
    let mut updated = current.clone();
    if !updated.is_empty() && !updated.ends_with('\n') {
        updated.push('\n');
    }
    if !updated.is_empty() {
        updated.push('\n');
    }
    updated.push_str(&block);
    // The next run parses the file this way: refuse now what it would refuse then.
    passrate_models::ModelsConfig::parse(&updated, &file, base)
        .map_err(|e| ApiError::Unprocessable(e.to_string()))?;
    let tmp = path.with_extension("toml.tmp");
    fs_err::write(&tmp, &updated)
        .and_then(|()| fs_err::rename(&tmp, path))
        .map_err(|e| ApiError::Internal {
            action: "write the models file".to_string(),
            detail: e.to_string(),
        })?;
    tracing::info!(model = %request.id, file = %file, "registered a model");
    Ok((
        StatusCode::CREATED,
        axum::Json(Registered {
            model: request,
            models_file: file,
        }),
    )
        .into_response())
}
