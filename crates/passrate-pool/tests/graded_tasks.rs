//! Documentation and refactoring tasks derived from HumanEval, through intake validation
//! with their graders in the real sandbox: how many are accepted per language, and why the
//! others are not. Ignored by default (minutes, needs the sandbox):
//! `cargo test -p passrate-pool --release --test graded_tasks -- --ignored --nocapture`.

use std::collections::BTreeMap;
use std::path::Path;

use passrate_pool::cache::Cache;
use passrate_pool::exec::Executor;
use passrate_pool::import::build::build_all;
use passrate_pool::import::pipeline::{
    default_data_dir, derive_all, intake_runner_options, parse_all,
};
use passrate_pool::validate::validate;
use passrate_schema::Category;

#[test]
#[ignore = "validates the HumanEval documentation and refactoring tasks in the sandbox (minutes)"]
fn humaneval_documentation_and_refactoring_tasks_validate() -> anyhow::Result<()> {
    let sandbox = passrate_sandbox::Sandbox::new(passrate_sandbox::SandboxConfig::default())?;
    let threads = 2 * sandbox.slots();
    let runner = passrate_runner::Runner::new(sandbox, intake_runner_options());
    let cache_dir = std::env::var_os("PASSRATE_CACHE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/pool-cache"));
    let cache = Cache::new(Some(cache_dir), &runner.fingerprint());
    let mut parsed = parse_all(&default_data_dir())?;
    parsed.mbpp.clear();
    parsed.quixbugs.clear();
    let raws = parsed.base_tasks();
    let mut built = BTreeMap::new();
    for b in build_all(&runner, &cache, &raws, threads, &|_, _, _, _| {})
        .into_iter()
        .flatten()
    {
        built.insert(b.task.id.clone(), b.task);
    }
    let derived: Vec<_> = derive_all(&parsed, &built)
        .into_iter()
        .filter(|t| {
            matches!(
                t.category,
                Category::DocumentationGeneration | Category::Refactoring
            )
        })
        .collect();
    let mut offered: BTreeMap<(Category, String), usize> = BTreeMap::new();
    for t in &derived {
        for l in t.variants.keys() {
            *offered.entry((t.category, l.to_string())).or_default() += 1;
        }
    }
    let start = std::time::Instant::now();
    let report = validate(&runner, &cache, derived, threads, &|_, _, _, _| {});
    let mut accepted: BTreeMap<(Category, String), usize> = BTreeMap::new();
    for t in &report.accepted {
        for l in t.variants.keys() {
            *accepted.entry((t.category, l.to_string())).or_default() += 1;
        }
    }
    for (key, n) in &offered {
        eprintln!(
            "{} {}: {} of {} derived variants in accepted tasks",
            key.0,
            key.1,
            accepted.get(key).copied().unwrap_or(0),
            n
        );
    }
    for r in &report.rejected {
        eprintln!("rejected {}: {}", r.id, r.reason);
    }
    eprintln!(
        "{} accepted, {} rejected in {:.1} s",
        report.accepted.len(),
        report.rejected.len(),
        start.elapsed().as_secs_f64()
    );
    let doc_accepted = report
        .accepted
        .iter()
        .filter(|t| t.category == Category::DocumentationGeneration)
        .count();
    assert!(
        doc_accepted >= 150,
        "{doc_accepted} documentation tasks accepted"
    );
    Ok(())
}
