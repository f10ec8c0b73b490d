//! Issue 21, point 8, through the binary: `--database mysql://…` used to exit 0 and create a
//! SQLite file at `./mysql:/…`; `leaderboard` and `history` created (and migrated) a store
//! wherever they looked. Unknown schemes are a usage error (exit 2), readers create nothing
//! (a missing store is exit 6, saying where they looked), and a store on a read-only mount
//! can be read.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anyhow::Context;
use common::passrate;
use passrate_schema::{RECORD_FORMAT_VERSION, ScoreRecord, exit};
use passrate_store::Store;

const WEEK: &str = "2026-W10";

/// Everything under `dir`.
fn listing(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in fs_err::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(listing(&path)?);
        }
        out.push(path);
    }
    out.sort();
    Ok(out)
}

fn run_in(cwd: &Path, args: &[&str]) -> anyhow::Result<Output> {
    Ok(passrate().current_dir(cwd).args(args).output()?)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_unknown_database_scheme_is_a_usage_error_and_creates_no_file() -> anyhow::Result<()> {
    let cwd = tempfile::tempdir()?;
    let url = "mysql://root@127.0.0.1/passrate";
    for args in [
        vec!["run", "--database", url],
        vec!["leaderboard", "--database", url],
        vec!["history", "some-model", "--database", url],
    ] {
        let out = run_in(cwd.path(), &args)?;
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(exit::USAGE), "{args:?}: {err}");
        for needle in [
            "mysql://",
            "postgres://",
            "postgresql://",
            "sqlite:",
            "file path",
        ] {
            assert!(err.contains(needle), "{args:?}: {err}");
        }
        assert_eq!(listing(cwd.path())?, Vec::<PathBuf>::new(), "{args:?}");
    }
    Ok(())
}

#[test]
fn reading_commands_create_no_store_and_say_where_they_looked() -> anyhow::Result<()> {
    let cwd = tempfile::tempdir()?;
    let empty = cwd.path().join("empty");
    fs_err::create_dir(&empty)?;
    let empty_arg = empty.display().to_string();
    let absent = cwd.path().join("absent");
    let absent_arg = absent.display().to_string();
    let file_arg = cwd
        .path()
        .join("db")
        .join("x.sqlite3")
        .display()
        .to_string();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["leaderboard", "--data-dir", &empty_arg],
            empty.join("passrate.sqlite3").display().to_string(),
        ),
        (
            vec!["history", "m", "--data-dir", &empty_arg],
            empty.join("passrate.sqlite3").display().to_string(),
        ),
        (
            vec!["leaderboard", "--data-dir", &absent_arg],
            absent.join("passrate.sqlite3").display().to_string(),
        ),
        (
            vec!["leaderboard", "--database", &file_arg],
            file_arg.clone(),
        ),
        // The default data directory, `./.passrate`.
        (
            vec!["leaderboard"],
            ".passrate/passrate.sqlite3".to_string(),
        ),
        (
            vec!["history", "m"],
            ".passrate/passrate.sqlite3".to_string(),
        ),
    ];
    for (args, looked) in cases {
        let out = run_in(cwd.path(), &args)?;
        let err = stderr(&out);
        assert_eq!(
            out.status.code(),
            Some(exit::STORE_ERROR),
            "{args:?}: {err}"
        );
        assert!(err.contains(&looked), "{args:?}: {err}");
        assert!(err.contains("passrate run"), "{args:?}: {err}");
        assert_eq!(listing(cwd.path())?, vec![empty.clone()], "{args:?}");
    }
    Ok(())
}

/// A read-only bind mount, unmounted when dropped (also when the test fails).
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

fn is_root() -> anyhow::Result<bool> {
    let status = fs_err::read_to_string("/proc/self/status")?;
    Ok(status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        == Some("0"))
}

/// A store in `data` with one score record of model `lazy` (written through the store's API:
/// this test is about reading, not about the cycle).
fn write_store(data: &Path) -> anyhow::Result<()> {
    let estimate = |passes: u32, total: u32| {
        let score = f64::from(passes) / f64::from(total);
        serde_json::json!({
            "passes": passes, "total": total, "score": score,
            "ci_low": score - 0.1, "ci_high": score + 0.1,
        })
    };
    let record: ScoreRecord = serde_json::from_value(serde_json::json!({
        "format_version": RECORD_FORMAT_VERSION,
        "model": "lazy",
        "week": WEEK,
        "evaluated_at": "2026-03-02T12:00:00Z",
        "record_version": 0,
        "run_id": "run-1",
        "seed": "seed",
        "pool_version": "pool-1",
        "overall": estimate(6, 10),
        "by_category": { "function_completion": estimate(6, 10) },
        "by_tier": { "1": estimate(6, 10) },
        "compliance_rate": 1.0,
        "coverage": 1.0,
        "reasons": { "pass": 6, "wrong_answer": 4 },
        "provenance": {
            "passrate_version": "0.1.0",
            "extractor_version": "1.1.0",
            "limits": {
                "cpu_ms": 2000, "wall_ms": 4000, "memory_mib": 256, "heap_mib": 30,
                "pids": 64, "workdir_mib": 16, "output_bytes": 1048576,
            },
            "runtime_versions": {},
        },
    }))
    .context("failed to build the score record")?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let store = Store::open_data_dir(data).await?;
        store.append_score_record(&record).await?;
        store.close().await;
        anyhow::Ok(())
    })
}

#[test]
fn leaderboard_and_history_read_a_store_on_a_read_only_mount() -> anyhow::Result<()> {
    if !is_root()? {
        eprintln!("SKIPPED: a read-only bind mount needs root");
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    write_store(&data)?;
    let before = listing(&data)?;

    let mounted = dir.path().join("ro");
    fs_err::create_dir(&mounted)?;
    let mount = ReadOnlyMount::new(&data, &mounted)?;
    let ro = mounted.display().to_string();
    let out = passrate()
        .args(["leaderboard", "--week", WEEK, "--json", "--data-dir", &ro])
        .output()?;
    assert!(out.status.success(), "leaderboard failed: {}", stderr(&out));
    let board = String::from_utf8_lossy(&out.stdout);
    assert!(board.contains("\"lazy\""), "{board}");
    let out = passrate()
        .args(["history", "lazy", "--json", "--data-dir", &ro])
        .output()?;
    assert!(out.status.success(), "history failed: {}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(WEEK));
    let file = format!("sqlite:{}", mounted.join("passrate.sqlite3").display());
    let out = passrate()
        .args(["leaderboard", "--week", WEEK, "--database", &file])
        .output()?;
    assert!(
        out.status.success(),
        "leaderboard --database failed: {}",
        stderr(&out)
    );
    drop(mount);
    assert_eq!(listing(&data)?, before);
    Ok(())
}
