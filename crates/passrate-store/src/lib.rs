//! The passrate store: runs and their units of work, append-only score records, and the
//! model adapters' response cache, over SQLite (default) or PostgreSQL.
//!
//! One SQL code path: every statement is written once, with `$N` placeholders, and compiled
//! against both pool types by [`with_pool!`]; only the migrations differ per backend
//! (`migrations/sqlite`, `migrations/postgres`). Values cross the boundary as `TEXT`,
//! `i64` and `f64` only, which both backends encode and decode the same way.
//!
//! Invariants (see `AGENTS.md`): score records, runs, run completions and unit results are
//! never updated or deleted, and the database itself refuses it (triggers); a unit of work
//! `(run, model, task, sample_index)` is stored at most once; a correction to a score is a new
//! record with the next `record_version`.

mod cache;
mod error;
mod records;
mod runs;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

pub use error::{Result, StoreError};
pub use records::StoredRecord;
pub use runs::{CompletedUnit, Run, UnitResult};

/// File name of the SQLite database inside a data directory.
pub const DEFAULT_DATABASE_FILE: &str = "passrate.sqlite3";

/// Which database a [`Store`] talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    Sqlite,
    Postgres,
}

#[derive(Clone)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$pool` bound to the concrete pool. The body is written once and
/// type-checked against both backends, which is what keeps the SQL a single code path.
macro_rules! with_pool {
    ($store:expr, $pool:ident => $body:expr) => {
        match &$store.pool {
            $crate::Pool::Sqlite($pool) => $body,
            $crate::Pool::Postgres($pool) => $body,
        }
    };
}
pub(crate) use with_pool;

/// The result of an idempotent insert: the stored value, and whether this call stored it
/// (`false`: it was already there, and `value` is what was stored first).
#[derive(Clone, Debug, PartialEq)]
pub struct Inserted<T> {
    pub value: T,
    pub inserted: bool,
}

/// A handle on the store; cheap to clone (it wraps a connection pool).
#[derive(Clone)]
pub struct Store {
    pool: Pool,
    /// Where the store lives, with any password removed (it appears in errors).
    location: String,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("backend", &self.backend())
            .field("location", &self.location)
            .finish()
    }
}

static SQLITE_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// What a store location names.
enum Location {
    Postgres,
    /// A `sqlite:` URL.
    SqliteUrl,
    /// A plain file path.
    SqliteFile,
}

/// Classifies `location`; anything with `://` that is not PostgreSQL is refused rather than
/// taken for a file name (`mysql://h/db` would otherwise become the file `./mysql:/h/db`).
fn classify(location: &str, redacted: &str) -> Result<Location> {
    if location.starts_with("postgres://") || location.starts_with("postgresql://") {
        Ok(Location::Postgres)
    } else if location.starts_with("sqlite:") {
        Ok(Location::SqliteUrl)
    } else if let Some(end) = location.find("://") {
        Err(StoreError::UnsupportedScheme {
            location: redacted.to_string(),
            scheme: location[..end].to_string(),
        })
    } else {
        Ok(Location::SqliteFile)
    }
}

impl Store {
    /// Opens (creating if needed) and migrates the store at `location`: a `postgres://` or
    /// `postgresql://` URL, a `sqlite:` URL (`sqlite::memory:` for a private in-memory
    /// database), or a plain file path for SQLite. A missing parent directory is created.
    /// Any other `scheme://` is [`StoreError::UnsupportedScheme`]. For writers.
    pub async fn open(location: &str) -> Result<Store> {
        let redacted = redact(location);
        match classify(location, &redacted)? {
            Location::Postgres => {
                let options = Self::postgres_options(location, &redacted)?;
                Self::open_postgres(options, redacted).await
            }
            Location::SqliteUrl => {
                let options = Self::sqlite_options(location, &redacted)?;
                let in_memory = location.contains(":memory:") || location.contains("mode=memory");
                Self::open_sqlite(options, in_memory, redacted).await
            }
            Location::SqliteFile => {
                let options = SqliteConnectOptions::new().filename(location);
                Self::open_sqlite(options, false, redacted).await
            }
        }
    }

    /// Opens the default SQLite store of a data directory (`DIR/passrate.sqlite3`), creating
    /// and migrating it if needed. For writers.
    pub async fn open_data_dir(dir: &Path) -> Result<Store> {
        let path = dir.join(DEFAULT_DATABASE_FILE);
        let options = SqliteConnectOptions::new().filename(&path);
        Self::open_sqlite(options, false, path.display().to_string()).await
    }

    /// Opens an existing store at `location` (the forms [`Store::open`] takes) for reading:
    /// nothing is created (no file, no directory) and nothing is migrated. A missing store is
    /// [`StoreError::Missing`], one older than this passrate [`StoreError::Outdated`]. SQLite
    /// is opened read-only, so a store on a read-only mount can be read.
    pub async fn open_existing(location: &str) -> Result<Store> {
        let redacted = redact(location);
        match classify(location, &redacted)? {
            Location::Postgres => {
                let options = Self::postgres_options(location, &redacted)?
                    // Belt and braces: a reader's session cannot write even by mistake.
                    .options([("default_transaction_read_only", "on")]);
                Self::open_postgres_existing(options, redacted).await
            }
            Location::SqliteUrl => {
                let options = Self::sqlite_options(location, &redacted)?;
                Self::open_sqlite_existing(options, redacted).await
            }
            Location::SqliteFile => {
                let options = SqliteConnectOptions::new().filename(location);
                Self::open_sqlite_existing(options, redacted).await
            }
        }
    }

    /// [`Store::open_existing`] for the default store of a data directory.
    pub async fn open_existing_data_dir(dir: &Path) -> Result<Store> {
        let path = dir.join(DEFAULT_DATABASE_FILE);
        let options = SqliteConnectOptions::new().filename(&path);
        Self::open_sqlite_existing(options, path.display().to_string()).await
    }

    fn postgres_options(location: &str, redacted: &str) -> Result<PgConnectOptions> {
        PgConnectOptions::from_str(location).map_err(|source| StoreError::BadLocation {
            location: redacted.to_string(),
            source,
        })
    }

    fn sqlite_options(location: &str, redacted: &str) -> Result<SqliteConnectOptions> {
        SqliteConnectOptions::from_str(location).map_err(|source| StoreError::BadLocation {
            location: redacted.to_string(),
            source,
        })
    }

    async fn open_sqlite_existing(
        options: SqliteConnectOptions,
        location: String,
    ) -> Result<Store> {
        let path = options.get_filename().to_path_buf();
        // An in-memory database is always empty: nothing to read.
        let in_memory = path.as_os_str() == ":memory:";
        if in_memory || !path.is_file() {
            return Err(StoreError::Missing { location });
        }
        let options = options
            .read_only(true)
            .create_if_missing(false)
            .busy_timeout(Duration::from_secs(30));
        match Self::read_sqlite(options.clone(), &location).await {
            Ok(store) => return Ok(store),
            Err(e @ (StoreError::Missing { .. } | StoreError::Outdated { .. })) => return Err(e),
            Err(_) => {}
        }
        // A WAL database opened read-only still creates its `-shm` file; on a read-only file
        // system that fails, and only `immutable=1` (no locks, no shared memory) can read it.
        // It reads the database file alone, so a write-ahead log with commits would be missed.
        let mut wal = path.into_os_string();
        wal.push("-wal");
        let wal = std::path::PathBuf::from(wal);
        if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
            return Err(StoreError::UnreadableWal { location, wal });
        }
        Self::read_sqlite(options.immutable(true), &location).await
    }

    /// Connects a read-only SQLite pool and checks it holds a current store.
    async fn read_sqlite(options: SqliteConnectOptions, location: &str) -> Result<Store> {
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open {
                location: location.to_string(),
                source,
            })?;
        let store = Store {
            pool: Pool::Sqlite(pool),
            location: location.to_string(),
        };
        if let Err(e) = store.check_schema(&SQLITE_MIGRATIONS).await {
            store.close().await;
            return Err(e);
        }
        Ok(store)
    }

    async fn open_postgres_existing(options: PgConnectOptions, location: String) -> Result<Store> {
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open {
                location: location.clone(),
                source,
            })?;
        let store = Store {
            pool: Pool::Postgres(pool),
            location,
        };
        if let Err(e) = store.check_schema(&POSTGRES_MIGRATIONS).await {
            store.close().await;
            return Err(e);
        }
        Ok(store)
    }

    /// Whether the database holds a passrate store with every migration this passrate knows:
    /// [`StoreError::Missing`] when it has none, [`StoreError::Outdated`] when some are missing.
    async fn check_schema(&self, migrator: &sqlx::migrate::Migrator) -> Result<()> {
        let expected = migrator.iter().map(|m| m.version).max().unwrap_or(0);
        let applied: Option<i64> = with_pool!(self, pool => {
            // sqlx's own bookkeeping table: absent, the database was never a passrate store.
            let sql = "SELECT MAX(version) FROM _sqlx_migrations WHERE success";
            match sqlx::query_scalar(sql).fetch_one(pool).await {
                Ok(v) => v,
                Err(e) if is_missing_table(&e) => {
                    return Err(StoreError::Missing {
                        location: self.location.clone(),
                    });
                }
                Err(source) => {
                    return Err(StoreError::Open {
                        location: self.location.clone(),
                        source,
                    });
                }
            }
        });
        match applied {
            None => Err(StoreError::Missing {
                location: self.location.clone(),
            }),
            Some(found) if found < expected => Err(StoreError::Outdated {
                location: self.location.clone(),
                found,
                expected,
            }),
            Some(_) => Ok(()),
        }
    }

    async fn open_sqlite(
        options: SqliteConnectOptions,
        in_memory: bool,
        location: String,
    ) -> Result<Store> {
        let mut options = options
            .create_if_missing(true)
            .foreign_keys(true)
            // Concurrent writers wait for the lock instead of failing at once.
            .busy_timeout(Duration::from_secs(30));
        let pool_options = if in_memory {
            // Every connection to `:memory:` would be its own database: keep exactly one.
            SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
        } else {
            if let Some(parent) = options.get_filename().parent()
                && !parent.as_os_str().is_empty()
            {
                std::fs::create_dir_all(parent).map_err(|source| StoreError::CreateDir {
                    path: parent.to_path_buf(),
                    source,
                })?;
            }
            // WAL: readers never block the writer; NORMAL sync is durable across a killed
            // process (only an OS crash can lose the last commits).
            options = options
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal);
            SqlitePoolOptions::new().max_connections(4)
        };
        let pool = pool_options
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open {
                location: location.clone(),
                source,
            })?;
        SQLITE_MIGRATIONS
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                location: location.clone(),
                source,
            })?;
        Ok(Store {
            pool: Pool::Sqlite(pool),
            location,
        })
    }

    async fn open_postgres(options: PgConnectOptions, location: String) -> Result<Store> {
        // One direct connection first: the pool would retry a refused connection until its
        // acquire timeout, while an unreachable server should be reported at once.
        let probe = sqlx::PgConnection::connect_with(&options)
            .await
            .map_err(|source| StoreError::Open {
                location: location.clone(),
                source,
            })?;
        // A failed goodbye to a server that just answered changes nothing for the store.
        let _ = probe.close().await;
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open {
                location: location.clone(),
                source,
            })?;
        POSTGRES_MIGRATIONS
            .run(&pool)
            .await
            .map_err(|source| StoreError::Migrate {
                location: location.clone(),
                source,
            })?;
        Ok(Store {
            pool: Pool::Postgres(pool),
            location,
        })
    }

    /// The backend this store uses.
    pub fn backend(&self) -> BackendKind {
        match self.pool {
            Pool::Sqlite(_) => BackendKind::Sqlite,
            Pool::Postgres(_) => BackendKind::Postgres,
        }
    }

    /// Where the store lives (passwords removed), for messages.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Closes every connection, waiting for in-flight statements; later calls fail.
    pub async fn close(&self) {
        with_pool!(self, pool => pool.close().await)
    }
}

/// Whether a query failed because its table does not exist (both backends).
fn is_missing_table(error: &sqlx::Error) -> bool {
    error.as_database_error().is_some_and(|e| {
        // PostgreSQL: undefined_table; SQLite reports it only in the message.
        e.code().as_deref() == Some("42P01") || e.message().starts_with("no such table")
    })
}

/// Current time as RFC 3339 UTC, the format of every `*_at` column.
pub(crate) fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| String::from("1970-01-01T00:00:00Z"))
}

/// Converts an unsigned count to the `i64` both backends store; larger values are refused
/// rather than wrapped.
pub(crate) fn to_i64(value: u64, what: &str) -> Result<i64> {
    i64::try_from(value).map_err(|_| StoreError::Invalid {
        what: what.to_string(),
        detail: format!("{value} does not fit in a signed 64-bit column"),
    })
}

/// Converts a stored `i64` back to the unsigned type the schema uses.
pub(crate) fn from_i64<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T> {
    T::try_from(value).map_err(|_| StoreError::Corrupt {
        what: what.to_string(),
        detail: format!("stored value {value} is out of range"),
    })
}

pub(crate) fn to_json<T: serde::Serialize + ?Sized>(value: &T, what: &str) -> Result<String> {
    serde_json::to_string(value).map_err(|source| StoreError::Encode {
        what: what.to_string(),
        source,
    })
}

pub(crate) fn from_json<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|source| StoreError::Decode {
        what: what.to_string(),
        source,
    })
}

/// Removes the password from a `scheme://user:password@host/...` URL.
fn redact(location: &str) -> String {
    let Some(scheme_end) = location.find("://") else {
        return location.to_string();
    };
    let rest = &location[scheme_end + 3..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let Some(at) = authority.rfind('@') else {
        return location.to_string();
    };
    let userinfo = &authority[..at];
    let Some(colon) = userinfo.find(':') else {
        return location.to_string();
    };
    format!(
        "{}{}:***{}",
        &location[..scheme_end + 3],
        &userinfo[..colon],
        &rest[at..]
    )
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn redact_removes_only_the_password() {
        assert_eq!(
            redact("postgres://u:secret@h:5432/db?sslmode=disable"),
            "postgres://u:***@h:5432/db?sslmode=disable"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact("/data/passrate.sqlite3"), "/data/passrate.sqlite3");
        assert_eq!(redact("sqlite::memory:"), "sqlite::memory:");
    }
}
