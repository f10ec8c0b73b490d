//! The server's typed errors. Every API failure is a JSON body `{"error", "message",
//! "parameter"?}` with a 4xx status when the request was at fault (naming the parameter) and
//! a 5xx only when the store or the scorer failed.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Serialize;

/// Why a request could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A query or path parameter that is malformed, out of range or unknown.
    #[error("invalid parameter `{parameter}`: {message}")]
    BadParameter { parameter: String, message: String },
    /// The query string is longer than the server reads.
    #[error("the query string has {len} bytes, more than the {max} this server reads")]
    QueryTooLong { len: usize, max: usize },
    /// A well-formed identifier naming nothing stored.
    #[error("{what} {id} not found")]
    NotFound {
        what: &'static str,
        /// Which parameter named it.
        parameter: &'static str,
        id: String,
    },
    /// No route matches the path.
    #[error("no such endpoint: {path}")]
    NoRoute { path: String },
    #[error("missing bearer token (send `Authorization: Bearer <token>`)")]
    Unauthorized,
    #[error("the bearer token is not the server's")]
    Forbidden,
    /// The server was started without a token (or without a models file): writes are off.
    #[error("writes are disabled on this server (start it with --token-env and --models-file)")]
    WritesDisabled,
    #[error("the request body is larger than the {max} bytes this endpoint reads")]
    BodyTooLarge { max: usize },
    #[error("{message}")]
    Conflict {
        parameter: &'static str,
        message: String,
    },
    /// A well-formed request the models file would not accept.
    #[error("the registration is invalid: {0}")]
    Unprocessable(String),
    #[error("failed to read the store")]
    Store(#[from] passrate_store::StoreError),
    #[error("failed to compute the leaderboard")]
    Engine(#[from] passrate_engine::EngineError),
    #[error("failed to {action}")]
    Internal { action: String, detail: String },
}

/// The JSON body of every error response.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ErrorBody {
    /// A stable machine-readable code: `bad_parameter`, `not_found`, `no_route`,
    /// `query_too_long`, `unauthorized`, `forbidden`, `writes_disabled`, `body_too_large`,
    /// `conflict`, `invalid_registration`, `store_error`, `internal`.
    pub error: String,
    /// For a person: what was wrong.
    pub message: String,
    /// The parameter at fault, when one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
}

impl ApiError {
    pub fn bad(parameter: impl Into<String>, message: impl Into<String>) -> ApiError {
        ApiError::BadParameter {
            parameter: parameter.into(),
            message: message.into(),
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadParameter { .. } => StatusCode::BAD_REQUEST,
            ApiError::QueryTooLong { .. } => StatusCode::URI_TOO_LONG,
            ApiError::NotFound { .. } | ApiError::NoRoute { .. } => StatusCode::NOT_FOUND,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden | ApiError::WritesDisabled => StatusCode::FORBIDDEN,
            ApiError::BodyTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Store(_) | ApiError::Engine(_) | ApiError::Internal { .. } => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        }
    }

    fn code(&self) -> &'static str {
        match self {
            ApiError::BadParameter { .. } => "bad_parameter",
            ApiError::QueryTooLong { .. } => "query_too_long",
            ApiError::NotFound { .. } => "not_found",
            ApiError::NoRoute { .. } => "no_route",
            ApiError::Unauthorized => "unauthorized",
            ApiError::Forbidden => "forbidden",
            ApiError::WritesDisabled => "writes_disabled",
            ApiError::BodyTooLarge { .. } => "body_too_large",
            ApiError::Conflict { .. } => "conflict",
            ApiError::Unprocessable(_) => "invalid_registration",
            ApiError::Store(_) | ApiError::Engine(_) => "store_error",
            ApiError::Internal { .. } => "internal",
        }
    }

    /// Whether the failure was the store's (counted in `/metrics`).
    pub fn is_store_failure(&self) -> bool {
        matches!(self, ApiError::Store(_) | ApiError::Engine(_))
    }

    pub fn body(&self) -> ErrorBody {
        let parameter = match self {
            ApiError::BadParameter { parameter, .. } => Some(parameter.clone()),
            ApiError::NotFound { parameter, .. } => Some((*parameter).to_string()),
            ApiError::QueryTooLong { .. } => Some("query".to_string()),
            ApiError::Conflict { parameter, .. } => Some((*parameter).to_string()),
            ApiError::BodyTooLarge { .. } | ApiError::Unprocessable(_) => Some("body".to_string()),
            _ => None,
        };
        ErrorBody {
            error: self.code().to_string(),
            message: self.to_string(),
            parameter,
        }
    }
}

/// Marks a response as a store failure for the metrics layer, which sees only responses.
#[derive(Clone, Copy, Debug)]
pub struct StoreFailure;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            // The chain goes to the log; the client gets the summary, not database details.
            let mut chain = String::new();
            let mut source = std::error::Error::source(&self);
            while let Some(cause) = source {
                chain.push_str(": ");
                chain.push_str(&cause.to_string());
                source = cause.source();
            }
            if let ApiError::Internal { detail, .. } = &self {
                chain.push_str(": ");
                chain.push_str(detail);
            }
            tracing::error!("{self}{chain}");
        }
        let store_failure = self.is_store_failure();
        let mut response = (status, axum::Json(self.body())).into_response();
        if store_failure {
            response.extensions_mut().insert(StoreFailure);
        }
        response
    }
}

/// Failures of the server itself (binding, serving).
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("failed to load the task pool")]
    Pool(#[from] passrate_pool::PoolError),
    #[error("failed to serve HTTP")]
    Serve(#[source] std::io::Error),
}
