//! Typed errors: configuration (with file, line and field), one request attempt, one answer.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use passrate_schema::{Language, Reason};

/// Where in a configuration file something is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file as given (or `<string>` for in-memory text).
    pub file: String,
    /// 1-based line and column, when known.
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl Location {
    /// The 1-based line and column of a byte offset in `text`.
    pub(crate) fn at_offset(file: &str, text: &str, offset: Option<usize>) -> Location {
        let (line, column) = match offset {
            Some(offset) => {
                let offset = offset.min(text.len());
                let before = &text[..offset];
                let line = before.matches('\n').count() + 1;
                let line_start = before.rfind('\n').map_or(0, |i| i + 1);
                (Some(line), Some(before[line_start..].chars().count() + 1))
            }
            None => (None, None),
        };
        Location {
            file: file.to_string(),
            line,
            column,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        Ok(())
    }
}

/// A `models.toml` (or replay file) that cannot be used. Raised at start-up, before any
/// request is sent.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("failed to read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{location}: invalid TOML: {message}")]
    Syntax { location: Location, message: String },
    /// A field has the wrong type, is missing, unknown or out of range.
    #[error("{location}: field `{field}`: {message}")]
    Field {
        location: Location,
        /// Dotted path, e.g. `model[2].generation.temperature`.
        field: String,
        message: String,
    },
    #[error(
        "{location}: model `{model}`: environment variable `{var}` (named by `api_key_env`) is not set or empty"
    )]
    MissingApiKey {
        location: Location,
        model: String,
        var: String,
    },
    #[error("{location}: invalid replay line: {message}")]
    Replay { location: Location, message: String },
    /// A replay file whose bytes are not text: invalid UTF-8, or a `.gz` that ends early or
    /// is corrupt. The location is the line reached.
    #[error("{location}: failed to decode the replay file: {message}")]
    ReplayDecode { location: Location, message: String },
    /// A replay file that cannot be loaded, located where `models.toml` names it.
    #[error("{location}: model `{model}`: failed to load the replay file {}", file.display())]
    ReplayFile {
        /// The `file = …` line of `models.toml`.
        location: Location,
        model: String,
        file: PathBuf,
        #[source]
        source: Box<ConfigError>,
    },
    #[error("failed to build the HTTP client for model `{model}`: {message}")]
    HttpClient { model: String, message: String },
}

/// What went wrong in one attempt at getting an answer. Cloneable and textual so it can be
/// recorded; [`AttemptError::is_retryable`] decides whether another attempt is made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AttemptError {
    #[error("request timed out after {:.1} s", .0.as_secs_f64())]
    Timeout(Duration),
    #[error("failed to connect or transfer: {0}")]
    Transport(String),
    #[error("HTTP {status}: {body}")]
    Status {
        status: u16,
        /// The start of the response body (for the provider's explanation).
        body: String,
        retry_after: Option<Duration>,
    },
    #[error("malformed response: {0}")]
    Malformed(String),
    /// A 2xx response whose body is an error object (some gateways do that).
    #[error("provider reported an error: {0}")]
    Provider(String),
    #[error("command failed: {0}")]
    Command(String),
    /// The command exited with `EX_TEMPFAIL` (75): it asks to be retried.
    #[error("command asked for a retry (exit 75): {0}")]
    CommandTempFail(String),
    /// Nothing was sent: the model's circuit breaker is open after repeated connection
    /// failures (see [`crate::breaker`]).
    #[error(
        "not sent: the circuit breaker is open after {failures} consecutive connection failure(s); last: {last_error}"
    )]
    CircuitOpen { failures: u32, last_error: String },
}

impl AttemptError {
    /// Timeouts, transport errors, 408/429/5xx, malformed or error bodies and temporary
    /// command failures are worth another attempt; other 4xx and command failures are not.
    pub fn is_retryable(&self) -> bool {
        match self {
            AttemptError::Timeout(_)
            | AttemptError::Transport(_)
            | AttemptError::Malformed(_)
            | AttemptError::Provider(_)
            | AttemptError::CommandTempFail(_) => true,
            AttemptError::Status { status, .. } => {
                *status == 408 || *status == 429 || (500..=599).contains(status)
            }
            AttemptError::Command(_) | AttemptError::CircuitOpen { .. } => false,
        }
    }

    /// Whether the endpoint could not be reached or did not answer in time (refused, DNS,
    /// TLS, reset, timeout), as opposed to answering with an error: what the circuit breaker
    /// counts.
    pub fn is_connection_failure(&self) -> bool {
        matches!(self, AttemptError::Timeout(_) | AttemptError::Transport(_))
    }

    /// The delay the server asked for (`Retry-After`), if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            AttemptError::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// Why a model could not give an answer record.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Every attempt failed, or a failure was not retryable. Recorded as `api_error`.
    #[error(
        "model `{model}`: failed to get an answer for {task} ({language}, sample {sample_index}) after {attempts} attempt(s): {source}"
    )]
    Api {
        model: String,
        task: String,
        language: Language,
        sample_index: u32,
        attempts: u32,
        #[source]
        source: AttemptError,
    },
    /// The task cannot be posed in this language (a manifest or pool inconsistency).
    #[error("model `{model}`: failed to build the prompt for {task}: {source}")]
    Prompt {
        model: String,
        task: String,
        #[source]
        source: crate::prompt::PromptError,
    },
    #[error("model `{model}`: {source}")]
    Cache {
        model: String,
        #[source]
        source: crate::cache::CacheError,
    },
    /// The check before a run failed: wrong key, unknown model name, endpoint unreachable,
    /// a command that cannot be run. `message` is the provider's own explanation when it
    /// gave one.
    #[error("model `{model}`: failed the pre-flight check{}: {message}", http_status(*.status))]
    Preflight {
        model: String,
        /// The HTTP status, when the endpoint answered.
        status: Option<u16>,
        message: String,
    },
}

fn http_status(status: Option<u16>) -> String {
    status.map(|s| format!(" (HTTP {s})")).unwrap_or_default()
}

impl ModelError {
    /// The reason to record for the unit, when the unit can be recorded at all: API and
    /// cache failures (including an open circuit breaker and a failed pre-flight) are
    /// infrastructure (`api_error`, never scored); a prompt error is a pool/manifest bug the
    /// run must stop on.
    pub fn reason(&self) -> Option<Reason> {
        match self {
            ModelError::Api { .. } | ModelError::Cache { .. } | ModelError::Preflight { .. } => {
                Some(Reason::ApiError)
            }
            ModelError::Prompt { .. } => None,
        }
    }

    /// Requests sent before giving up (0 when nothing was sent, e.g. the circuit breaker was
    /// already open; pre-flight requests are not unit attempts).
    pub fn attempts(&self) -> u32 {
        match self {
            ModelError::Api { attempts, .. } => *attempts,
            _ => 0,
        }
    }
}
