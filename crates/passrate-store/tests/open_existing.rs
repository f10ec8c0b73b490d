//! Issue 21, point 8: a URL with an unknown scheme is refused (it used to become a SQLite
//! file named after the URL); readers open an existing store without creating, migrating or
//! writing anything, and can read a store on a read-only mount.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use common::{Arg, Target, record};
use passrate_store::{DEFAULT_DATABASE_FILE, Store, StoreError};

fn store_error(e: anyhow::Error) -> anyhow::Result<StoreError> {
    e.downcast::<StoreError>()
        .map_err(|e| anyhow::anyhow!("not a store error: {e:#}"))
}

/// Everything under `dir`, for "nothing was created" checks.
fn listing(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(listing(&path)?);
        }
        out.push(path);
    }
    out.sort();
    Ok(out)
}

#[tokio::test]
async fn unknown_scheme_is_refused_and_creates_no_file() -> anyhow::Result<()> {
    let cwd = std::env::current_dir()?;
    for location in [
        "mysql://root@127.0.0.1/passrate",
        "mariadb://u:secret@h/db",
        "file:///tmp/x.sqlite3",
    ] {
        for reader in [false, true] {
            let result = if reader {
                Store::open_existing(location).await
            } else {
                Store::open(location).await
            };
            let Err(e) = result else {
                bail!("{location} opened (reader: {reader})");
            };
            let scheme = location.split("://").next().unwrap_or_default();
            match &e {
                StoreError::UnsupportedScheme { scheme: s, .. } => assert_eq!(s, scheme),
                other => bail!("{location}: expected UnsupportedScheme, got {other:?}"),
            }
            assert!(e.is_usage());
            let message = e.to_string();
            for accepted in ["postgres://", "postgresql://", "sqlite:", "file path"] {
                assert!(message.contains(accepted), "{message}");
            }
            assert!(!message.contains("secret"), "{message}");
            assert!(!cwd.join(format!("{scheme}:")).exists(), "{location}");
        }
    }
    Ok(())
}

#[tokio::test]
async fn reader_on_a_missing_store_creates_nothing() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let e = Store::open_existing_data_dir(&data).await.unwrap_err();
    assert!(matches!(e, StoreError::Missing { .. }), "{e:?}");
    let message = e.to_string();
    assert!(
        message.contains(&data.join(DEFAULT_DATABASE_FILE).display().to_string()),
        "{message}"
    );
    assert!(message.contains("passrate run"), "{message}");
    let file = dir.path().join("other").join("store.sqlite3");
    for location in [
        file.display().to_string(),
        format!("sqlite:{}", file.display()),
    ] {
        let e = Store::open_existing(&location).await.unwrap_err();
        assert!(matches!(e, StoreError::Missing { .. }), "{location}: {e:?}");
    }
    assert_eq!(listing(dir.path())?, Vec::<PathBuf>::new());
    Ok(())
}

/// A database that is not a passrate store (never migrated) is `Missing`, and stays unmigrated.
async fn reader_on_an_unmigrated_database_is_missing(t: &Target) -> anyhow::Result<()> {
    let e = store_error(
        Store::open_existing(&t.location)
            .await
            .map_err(anyhow::Error::from)
            .err()
            .context("an empty database opened as a store")?,
    )?;
    assert!(matches!(e, StoreError::Missing { .. }), "{e:?}");
    let migrations = t.raw.count("_sqlx_migrations").await;
    assert!(migrations.is_err(), "the reader migrated: {migrations:?}");
    Ok(())
}

async fn reader_reads_what_the_writer_wrote_and_cannot_write(t: &Target) -> anyhow::Result<()> {
    let writer = t.open().await?;
    writer
        .append_score_record(&record("m", "2026-W10", "run-1", 300))
        .await?;
    writer.close().await;
    let reader = Store::open_existing(&t.location).await?;
    assert_eq!(reader.model_history("m").await?.len(), 1);
    assert_eq!(reader.weeks().await?, vec!["2026-W10".to_string()]);
    let write = reader
        .append_score_record(&record("m", "2026-W11", "run-1", 300))
        .await;
    assert!(write.is_err(), "a reader wrote a record");
    reader.close().await;
    assert_eq!(t.raw.count("score_records").await?, 1);
    Ok(())
}

/// A store missing a migration this passrate has is reported, not migrated by the reader.
async fn reader_on_an_outdated_store_says_so(t: &Target) -> anyhow::Result<()> {
    let writer = t.open().await?;
    writer.close().await;
    let before = t.raw.count("_sqlx_migrations").await?;
    t.raw
        .execute(
            "DELETE FROM _sqlx_migrations WHERE version = (SELECT MAX(version) FROM _sqlx_migrations)",
            Vec::<Arg>::new(),
        )
        .await?;
    let e = Store::open_existing(&t.location).await.unwrap_err();
    assert!(matches!(e, StoreError::Outdated { .. }), "{e:?}");
    assert!(e.to_string().contains("passrate run"), "{e}");
    assert_eq!(t.raw.count("_sqlx_migrations").await?, before - 1);
    Ok(())
}

on_both_backends!(
    reader_on_an_unmigrated_database_is_missing,
    reader_reads_what_the_writer_wrote_and_cannot_write,
    reader_on_an_outdated_store_says_so,
);

/// A read-only bind mount of a directory, unmounted when dropped (also when the test fails).
struct ReadOnlyMount {
    target: PathBuf,
}

impl ReadOnlyMount {
    fn new(source: &Path, target: &Path) -> anyhow::Result<ReadOnlyMount> {
        let status = Command::new("mount")
            .arg("--bind")
            .arg(source)
            .arg(target)
            .status()
            .context("failed to run mount")?;
        anyhow::ensure!(status.success(), "mount --bind failed: {status}");
        let mount = ReadOnlyMount {
            target: target.to_path_buf(),
        };
        // A bind mount takes `ro` only on a remount.
        let status = Command::new("mount")
            .args(["-o", "remount,ro,bind"])
            .arg(target)
            .status()
            .context("failed to run mount")?;
        anyhow::ensure!(status.success(), "remounting read-only failed: {status}");
        Ok(mount)
    }
}

impl Drop for ReadOnlyMount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.target).status();
    }
}

async fn is_root() -> anyhow::Result<bool> {
    let status = tokio::fs::read_to_string("/proc/self/status").await?;
    Ok(status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        == Some("0"))
}

#[tokio::test]
async fn reader_reads_a_store_on_a_read_only_mount() -> anyhow::Result<()> {
    if !is_root().await? {
        eprintln!("SKIPPED: a read-only bind mount needs root");
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let mounted = dir.path().join("ro");
    std::fs::create_dir_all(&mounted)?;
    let writer = Store::open_data_dir(&data).await?;
    writer
        .append_score_record(&record("m", "2026-W10", "run-1", 300))
        .await?;
    writer.close().await;
    let before = listing(&data)?;
    let mount = ReadOnlyMount::new(&data, &mounted)?;
    let probe = tokio::fs::write(mounted.join("probe"), "x").await;
    assert!(probe.is_err(), "the mount is writable");

    let reader = Store::open_existing_data_dir(&mounted).await?;
    assert_eq!(reader.model_history("m").await?.len(), 1);
    reader.close().await;
    let file = mounted.join(DEFAULT_DATABASE_FILE);
    let reader = Store::open_existing(&file.display().to_string()).await?;
    assert_eq!(reader.weeks().await?, vec!["2026-W10".to_string()]);
    reader.close().await;

    drop(mount);
    assert_eq!(listing(&data)?, before);
    Ok(())
}
