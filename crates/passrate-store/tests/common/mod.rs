//! Test harness: a fresh database per test on SQLite (a temp file) and on PostgreSQL (a new
//! database in the cluster `PASSRATE_TEST_POSTGRES_URL` points to), and a macro that runs
//! the same test body on both.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::str::FromStr;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::{Context, bail};
use passrate_schema::{
    Category, Estimate, Language, LimitsUsed, Manifest, ManifestItem, Provenance,
    RECORD_FORMAT_VERSION, Reason, ScoreRecord, Tier, Verdict,
};
use passrate_store::{BackendKind, Store, UnitResult};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool};

pub const POSTGRES_URL_VAR: &str = "PASSRATE_TEST_POSTGRES_URL";

/// Runs each named `async fn(&Target) -> anyhow::Result<()>` once on SQLite and once on
/// PostgreSQL, as `<name>::sqlite` and `<name>::postgres`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() -> anyhow::Result<()> {
                let target = $crate::common::Target::sqlite().await?;
                super::$name(&target).await?;
                target.finish().await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() -> anyhow::Result<()> {
                let Some(target) = $crate::common::Target::postgres().await? else {
                    return Ok(());
                };
                super::$name(&target).await?;
                target.finish().await
            }
        }
    )*};
}

/// A value bound to a raw statement.
pub enum Arg {
    Text(String),
    Int(i64),
    Bytes(Vec<u8>),
}

/// A direct connection beside the store, for what the API must not allow (UPDATE, DELETE)
/// and for planting rows the API would not write (other format versions).
pub enum Raw {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

impl Raw {
    pub async fn execute(&self, sql: &str, args: Vec<Arg>) -> Result<u64, sqlx::Error> {
        let sql = sqlx::AssertSqlSafe(sql.to_string());
        macro_rules! run {
            ($pool:expr) => {{
                let mut query = sqlx::query(sql);
                for arg in args {
                    query = match arg {
                        Arg::Text(t) => query.bind(t),
                        Arg::Int(i) => query.bind(i),
                        Arg::Bytes(b) => query.bind(b),
                    };
                }
                query.execute($pool).await.map(|r| r.rows_affected())
            }};
        }
        match self {
            Raw::Sqlite(pool) => run!(pool),
            Raw::Postgres(pool) => run!(pool),
        }
    }

    pub async fn count(&self, table: &str) -> anyhow::Result<i64> {
        let sql = sqlx::AssertSqlSafe(format!("SELECT COUNT(*) FROM {table}"));
        Ok(match self {
            Raw::Sqlite(pool) => sqlx::query_scalar(sql).fetch_one(pool).await?,
            Raw::Postgres(pool) => sqlx::query_scalar(sql).fetch_one(pool).await?,
        })
    }

    async fn close(&self) {
        match self {
            Raw::Sqlite(pool) => pool.close().await,
            Raw::Postgres(pool) => pool.close().await,
        }
    }
}

/// One fresh, empty database (not migrated until [`Target::open`]).
pub struct Target {
    pub backend: BackendKind,
    /// What `Store::open` takes.
    pub location: String,
    pub raw: Raw,
    _dir: Option<tempfile::TempDir>,
    /// (admin pool, database name) to drop at the end on PostgreSQL.
    drop_database: Option<(PgPool, String)>,
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

impl Target {
    pub async fn sqlite() -> anyhow::Result<Target> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("data").join("passrate.sqlite3");
        std::fs::create_dir_all(path.parent().context("no parent")?)?;
        let raw = SqlitePool::connect_with(
            SqliteConnectOptions::new()
                .filename(&path)
                .create_if_missing(true),
        )
        .await?;
        Ok(Target {
            backend: BackendKind::Sqlite,
            location: path.display().to_string(),
            raw: Raw::Sqlite(raw),
            _dir: Some(dir),
            drop_database: None,
        })
    }

    /// `None` (after a notice on stderr) when no PostgreSQL is configured outside CI; an error
    /// under CI, which always provides one.
    pub async fn postgres() -> anyhow::Result<Option<Target>> {
        let Ok(base) = std::env::var(POSTGRES_URL_VAR) else {
            if std::env::var_os("CI").is_some() {
                bail!(
                    "{POSTGRES_URL_VAR} is not set under CI: run \
                     `eval \"$(scripts/postgres-test-server.sh)\"` before the tests"
                );
            }
            eprintln!(
                "SKIPPED: PostgreSQL test (set {POSTGRES_URL_VAR}, e.g. \
                 `eval \"$(scripts/postgres-test-server.sh)\"`)"
            );
            return Ok(None);
        };
        let admin = PgPoolOptions::new()
            .max_connections(1)
            .connect_with(PgConnectOptions::from_str(&base)?)
            .await
            .with_context(|| format!("connecting to {POSTGRES_URL_VAR}"))?;
        let name = format!(
            "passrate_t_{}_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)?
                .subsec_nanos()
        );
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&admin)
            .await
            .with_context(|| format!("creating database {name}"))?;
        let location = with_database(&base, &name)?;
        let raw = PgPoolOptions::new()
            .max_connections(2)
            .connect_with(PgConnectOptions::from_str(&location)?)
            .await?;
        Ok(Some(Target {
            backend: BackendKind::Postgres,
            location,
            raw: Raw::Postgres(raw),
            _dir: None,
            drop_database: Some((admin, name)),
        }))
    }

    pub async fn open(&self) -> anyhow::Result<Store> {
        let store = Store::open(&self.location).await?;
        anyhow::ensure!(store.backend() == self.backend, "opened the wrong backend");
        Ok(store)
    }

    /// Closes the raw pool and drops the PostgreSQL database (a failed test leaves it behind
    /// in the throwaway cluster, for inspection).
    pub async fn finish(self) -> anyhow::Result<()> {
        self.raw.close().await;
        if let Some((admin, name)) = self.drop_database {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )))
            .execute(&admin)
            .await?;
            admin.close().await;
        }
        Ok(())
    }
}

/// Replaces the database name in a `postgres://…/name?params` URL.
fn with_database(url: &str, name: &str) -> anyhow::Result<String> {
    let authority_start = url.find("://").context("not a URL")? + 3;
    let path_start = url[authority_start..]
        .find('/')
        .map(|i| authority_start + i)
        .unwrap_or(url.len());
    let query = url[path_start..].find('?').map(|i| &url[path_start + i..]);
    Ok(format!(
        "{}/{}{}",
        &url[..path_start],
        name,
        query.unwrap_or("")
    ))
}

pub fn manifest(week: &str, tasks: &[&str]) -> Manifest {
    Manifest {
        format_version: 1,
        week: week.to_string(),
        seed: format!("seed-{week}"),
        pool_version: "pool-abc123".to_string(),
        items: tasks
            .iter()
            .map(|task| ManifestItem {
                task: task.to_string(),
                task_version: 1,
                language: Language::Python,
                category: Category::BugFixing,
                tier: Tier::Two,
                family: format!("fam/{task}"),
            })
            .collect(),
        panel: Vec::new(),
        rotation: None,
    }
}

pub fn unit(
    run_id: &str,
    model: &str,
    task: &str,
    sample_index: u32,
    reason: Reason,
) -> UnitResult {
    UnitResult {
        run_id: run_id.to_string(),
        model: model.to_string(),
        task: task.to_string(),
        task_version: 3,
        sample_index,
        language: Language::Python,
        category: Category::BugFixing,
        tier: Tier::Two,
        raw_answer: Some(format!("```python\ndef {task}(): pass\n```")),
        extracted_code: Some(format!("def {task}(): pass\n")),
        verdict: Verdict {
            task: task.to_string(),
            language: Language::Python,
            reason,
            tests_passed: usize::from(reason == Reason::Pass) * 5,
            tests_total: 5,
            cpu_ms: 12,
            cpu_us: None,
            wall_ms: 30,
            peak_memory_bytes: Some(1 << 20),
            tests: Vec::new(),
            detail: None,
            grader: None,
        },
        generation_ms: 1500,
        execution_ms: 35,
        usage: Some(serde_json::json!({"prompt_tokens": 120, "completion_tokens": 64})),
        completed_at: "2026-11-23T10:00:00Z".to_string(),
        quality: None,
    }
}

fn estimate(passes: u32, total: u32) -> Estimate {
    let score = f64::from(passes) / f64::from(total);
    Estimate {
        passes,
        total,
        score,
        ci_low: (score - 0.05).max(0.0),
        ci_high: (score + 0.05).min(1.0),
    }
}

pub fn record(model: &str, week: &str, run_id: &str, passes: u32) -> ScoreRecord {
    ScoreRecord {
        format_version: RECORD_FORMAT_VERSION,
        model: model.to_string(),
        week: week.to_string(),
        evaluated_at: "2026-11-23T12:00:00Z".to_string(),
        record_version: 0,
        run_id: run_id.to_string(),
        seed: format!("seed-{week}"),
        pool_version: "pool-abc123".to_string(),
        overall: estimate(passes, 400),
        by_category: BTreeMap::from([
            (Category::BugFixing, estimate(passes / 2, 200)),
            (
                Category::FunctionCompletion,
                estimate(passes - passes / 2, 200),
            ),
        ]),
        by_tier: BTreeMap::from([
            (Tier::One, estimate(passes / 2, 160)),
            (Tier::Two, estimate(passes - passes / 2, 240)),
        ]),
        by_language: BTreeMap::from([(Language::Python, estimate(passes, 400))]),
        compliance_rate: 0.975,
        coverage: 1.0,
        reasons: BTreeMap::from([(Reason::Pass, passes), (Reason::WrongAnswer, 400 - passes)]),
        pass_at_k: BTreeMap::new(),
        provenance: Provenance {
            passrate_version: "0.1.0".to_string(),
            extractor_version: "1".to_string(),
            limits: LimitsUsed {
                cpu_ms: 2000,
                wall_ms: 4000,
                memory_mib: 256,
                heap_mib: 30,
                pids: 64,
                workdir_mib: 16,
                output_bytes: 1 << 20,
            },
            runtime_versions: BTreeMap::from([("python".to_string(), "3.11.2".to_string())]),
        },
        answered: None,
        families: 0,
        drift: None,
        rotation: None,
        quality: None,
    }
}
