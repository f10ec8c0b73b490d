//! The store's typed errors: every failure says what it was doing and keeps its source.

use std::path::PathBuf;

/// Result alias for store operations.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Everything that can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("failed to create the data directory {}", path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("failed to parse the database location {location}")]
    BadLocation {
        location: String,
        #[source]
        source: sqlx::Error,
    },
    /// A URL whose scheme is no database passrate speaks (`mysql://…`): it is not taken for a
    /// file name either, which would create a SQLite file named after the URL.
    #[error(
        "failed to open the store at {location}: unknown database scheme `{scheme}://` \
         (accepted: postgres://, postgresql://, sqlite:, or a file path)"
    )]
    UnsupportedScheme { location: String, scheme: String },
    /// A reading command found no store where it looked; readers never create one.
    #[error(
        "failed to open the store at {location}: there is no passrate store there \
         (run `passrate run` first to create one)"
    )]
    Missing { location: String },
    /// A reading command found a store older than this passrate; readers never migrate.
    #[error(
        "failed to read the store at {location}: it has schema version {found}, older than \
         the {expected} this passrate reads (run `passrate run` once to migrate it)"
    )]
    Outdated {
        location: String,
        found: i64,
        expected: i64,
    },
    /// A store on a read-only file system whose write-ahead log still holds commits: reading
    /// the database file alone would silently miss them.
    #[error(
        "failed to open the store at {location} read-only: its write-ahead log {} holds \
         commits not yet in the database file, and the file system is read-only (open it once \
         where it is writable, or copy it with its -wal file)",
        wal.display()
    )]
    UnreadableWal { location: String, wal: PathBuf },
    #[error("failed to open the store at {location}")]
    Open {
        location: String,
        #[source]
        source: sqlx::Error,
    },
    #[error(
        "failed to migrate the store at {location} (a database written by a newer passrate \
         cannot be opened by an older one)"
    )]
    Migrate {
        location: String,
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    /// A statement failed; `action` reads like "insert score record for model m week w".
    #[error("failed to {action}")]
    Query {
        action: String,
        #[source]
        source: sqlx::Error,
    },
    #[error("failed to encode {what} as JSON")]
    Encode {
        what: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("failed to decode {what}")]
    Decode {
        what: String,
        #[source]
        source: serde_json::Error,
    },
    /// A stored value that cannot be what this version of the store wrote.
    #[error("failed to decode {what}: {detail}")]
    Corrupt { what: String, detail: String },
    /// A value the caller passed that cannot be stored as given; nothing was written.
    #[error("invalid {what}: {detail}")]
    Invalid { what: String, detail: String },
    #[error(
        "{what} has format version {found}, newer than the {supported} this passrate reads; \
         upgrade passrate to read it"
    )]
    NewerFormat {
        what: String,
        found: u32,
        supported: u32,
    },
    #[error(
        "failed to create run {run_id}: a run with that id already exists with a different {field}"
    )]
    RunConflict { run_id: String, field: &'static str },
    #[error("failed to {action}: run {run_id} does not exist")]
    UnknownRun { action: String, run_id: String },
    /// Every failure to append a score record, whatever the cause (the source says which).
    #[error("failed to insert score record for model {model} week {week}")]
    AppendRecord {
        model: String,
        week: String,
        #[source]
        source: Box<StoreError>,
    },
    #[error("record_version was taken by concurrent writers {attempts} times in a row")]
    VersionContention { attempts: u32 },
}

impl StoreError {
    /// Whether the error is the caller's misuse (a location passrate cannot use), not a
    /// failure of the store.
    pub fn is_usage(&self) -> bool {
        matches!(self, StoreError::UnsupportedScheme { .. })
    }

    pub(crate) fn query(action: impl Into<String>) -> impl FnOnce(sqlx::Error) -> StoreError {
        let action = action.into();
        move |source| StoreError::Query { action, source }
    }
}

/// Whether a database error is a unique or primary key violation (both backends).
pub(crate) fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|e| e.is_unique_violation())
}

/// Whether a database error is a foreign key violation (both backends).
pub(crate) fn is_foreign_key_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|e| e.is_foreign_key_violation())
}
