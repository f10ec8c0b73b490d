//! `Pool::load_task` opens one task without loading the pool, and finds exactly what a full
//! load finds: every task, byte for byte, and nothing for an id the pool does not hold.

mod common;

use common::grid;
use passrate_pool::Pool;

#[test]
fn every_task_opens_alone_as_the_full_load_has_it() {
    let dir = tempfile::tempdir().unwrap();
    let pool = Pool::new(grid(3)).unwrap();
    pool.save(dir.path(), &[]).unwrap();
    let loaded = Pool::load(dir.path()).unwrap();
    assert!(loaded.tasks().len() > 50);
    for task in loaded.tasks() {
        assert_eq!(
            Pool::load_task(dir.path(), &task.id).unwrap().as_ref(),
            Some(task)
        );
    }
    // An id of a family the pool has, and of one it does not.
    let family = loaded.tasks()[0].id.split('/').next().unwrap().to_string();
    assert_eq!(
        Pool::load_task(dir.path(), &format!("{family}/nope")).unwrap(),
        None
    );
    assert_eq!(Pool::load_task(dir.path(), "nosuchfamily/1").unwrap(), None);
    // A prefix of an id is not that id.
    let id = &loaded.tasks()[0].id;
    assert_eq!(
        Pool::load_task(dir.path(), &id[..id.len() - 1]).unwrap(),
        None
    );
}

#[test]
fn the_bundled_pool_opens_one_task_alone() {
    let dir = passrate_pool::bundled_dir().unwrap();
    let task = Pool::load_task(&dir, "humaneval/0")
        .unwrap()
        .expect("humaneval/0 is bundled");
    assert_eq!(task.source.upstream_id, "HumanEval/0");
    assert!(Pool::load_task(&dir, "humaneval/99999").unwrap().is_none());
}
