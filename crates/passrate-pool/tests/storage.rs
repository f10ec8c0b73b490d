//! Writing, loading and rejecting pool directories.

mod common;

use passrate_pool::{Pool, PoolError};
use passrate_schema::{Category, Language};

fn save(tasks: Vec<passrate_schema::Task>) -> anyhow::Result<(tempfile::TempDir, Pool)> {
    let dir = tempfile::tempdir()?;
    let pool = Pool::new(tasks)?;
    pool.save(dir.path().join("pool"), &[])?;
    Ok((dir, pool))
}

#[test]
fn round_trip_keeps_tasks_and_version() -> anyhow::Result<()> {
    let (dir, pool) = save(common::grid(2))?;
    let loaded = Pool::load(dir.path().join("pool"))?;
    assert_eq!(loaded.tasks(), pool.tasks());
    assert_eq!(loaded.version(), pool.version());
    assert!(
        dir.path()
            .join("pool/tasks/function_completion.jsonl.gz")
            .exists()
    );
    assert!(dir.path().join("pool/README.md").exists());
    Ok(())
}

#[test]
fn version_changes_with_content_only() -> anyhow::Result<()> {
    let a = Pool::new(common::grid(1))?;
    let mut reversed = common::grid(1);
    reversed.reverse();
    let b = Pool::new(reversed)?;
    assert_eq!(a.version(), b.version(), "order of input does not matter");
    let mut changed = common::grid(1);
    changed[0].version = 2;
    let c = Pool::new(changed)?;
    assert_ne!(a.version(), c.version());
    assert_eq!(a.version().short().len(), 12);
    Ok(())
}

#[test]
fn duplicate_ids_are_rejected() {
    let mut tasks = common::grid(1);
    tasks.push(tasks[0].clone());
    let err = Pool::new(tasks).unwrap_err();
    assert!(matches!(err, PoolError::DuplicateId { .. }), "{err}");
}

#[test]
fn tasks_without_tests_or_reference_are_rejected() {
    let mut t = common::task("x/1", Category::FunctionCompletion, 1, &[Language::Python]);
    t.tests.clear();
    let err = Pool::new(vec![t]).unwrap_err();
    assert!(err.to_string().contains("no tests"), "{err}");
    let mut t = common::task("x/1", Category::FunctionCompletion, 1, &[Language::Python]);
    t.variants
        .get_mut(&Language::Python)
        .unwrap()
        .reference_solution = " ".into();
    let err = Pool::new(vec![t]).unwrap_err();
    assert!(err.to_string().contains("no reference solution"), "{err}");
}

#[test]
fn a_tier_that_does_not_follow_from_the_factors_is_rejected() {
    let mut t = common::task("x/1", Category::FunctionCompletion, 1, &[Language::Python]);
    t.tier = passrate_schema::Tier::Three;
    let err = Pool::new(vec![t]).unwrap_err();
    assert!(
        err.to_string().contains("does not follow from its factors"),
        "{err}"
    );
}

#[test]
fn malformed_line_names_file_line_and_field() -> anyhow::Result<()> {
    let (dir, _) = save(common::grid(1))?;
    let file = dir.path().join("pool/tasks/bug_fixing.jsonl.gz");
    let tasks = passrate_pool::storage::read_task_file(&file)?;
    let mut lines: Vec<String> = tasks
        .iter()
        .map(|(_, t)| serde_json::to_string(t).unwrap())
        .collect();
    lines[1] = lines[1].replace("\"category\":\"bug_fixing\"", "\"category\":\"poetry\"");
    // Plain JSON Lines are accepted too: replace the compressed file with a plain one.
    fs_err::remove_file(&file)?;
    fs_err::write(
        dir.path().join("pool/tasks/bug_fixing.jsonl"),
        lines.join("\n"),
    )?;
    let index = dir.path().join("pool/pool.json");
    let text = fs_err::read_to_string(&index)?.replace("bug_fixing.jsonl.gz", "bug_fixing.jsonl");
    fs_err::write(&index, text)?;
    let err = Pool::load(dir.path().join("pool")).unwrap_err();
    match &err {
        PoolError::Parse {
            file, line, path, ..
        } => {
            assert!(file.ends_with("tasks/bug_fixing.jsonl"));
            assert_eq!(*line, 2);
            assert_eq!(path, "category");
        }
        other => panic!("unexpected error {other}"),
    }
    Ok(())
}

#[test]
fn save_replaces_atomically_and_leaves_no_staging() -> anyhow::Result<()> {
    let (dir, _) = save(common::grid(1))?;
    let pool = Pool::new(common::grid(2))?;
    pool.save(dir.path().join("pool"), &[])?;
    let loaded = Pool::load(dir.path().join("pool"))?;
    assert_eq!(loaded.tasks().len(), 42);
    let leftovers: Vec<_> = fs_err::read_dir(dir.path())?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(leftovers, vec!["pool".to_owned()]);
    Ok(())
}

#[test]
fn the_series_round_trips_and_is_part_of_the_version() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let one = Pool::new(common::grid(1))?;
    assert_eq!(one.series(), 1, "a new pool is series 1");
    let two = one.clone().with_series(2);
    assert_ne!(one.version(), two.version(), "the series changes the panel");
    two.save(dir.path().join("pool"), &[])?;
    let index = fs_err::read_to_string(dir.path().join("pool/pool.json"))?;
    assert!(index.contains("\"series\": 2"), "{index}");
    let loaded = Pool::load(dir.path().join("pool"))?;
    assert_eq!(loaded.series(), 2);
    assert_eq!(loaded.version(), two.version());
    assert_eq!(
        passrate_pool::storage::read_series(&dir.path().join("pool"))?,
        2
    );
    assert_eq!(
        passrate_pool::storage::read_series(&dir.path().join("none"))?,
        1,
        "no pool yet: series 1"
    );
    // Nothing but the index, tasks and README: no rotation state is written.
    assert!(!dir.path().join("pool/rotation.json").exists());
    Ok(())
}

#[test]
fn a_pool_json_without_series_is_series_1_and_series_0_is_rejected() -> anyhow::Result<()> {
    let (dir, pool) = save(common::grid(1))?;
    let index = dir.path().join("pool/pool.json");
    let text = fs_err::read_to_string(&index)?;
    fs_err::write(&index, text.replace("  \"series\": 1,\n", ""))?;
    assert!(!fs_err::read_to_string(&index)?.contains("series"));
    let loaded = Pool::load(dir.path().join("pool"))?;
    assert_eq!(loaded.series(), 1);
    assert_eq!(loaded.version(), pool.version());
    fs_err::write(&index, text.replace("\"series\": 1", "\"series\": 0"))?;
    let err = Pool::load(dir.path().join("pool")).unwrap_err();
    assert!(err.to_string().contains("series"), "{err}");
    Ok(())
}
