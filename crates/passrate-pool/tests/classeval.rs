//! ClassEval through the real sandbox: the dataset's unittest suites recorded on the
//! reference become `sequence` tests that the reference passes, twice, and that a class with
//! one wrong method fails. Skipped when the data directory is absent.

use passrate_pool::cache::Cache;
use passrate_pool::import::build::build_task;
use passrate_pool::import::classeval;
use passrate_pool::import::pipeline::{default_data_dir, intake_runner_options};
use passrate_pool::validate_task;
use passrate_runner::Runner;
use passrate_sandbox::{Sandbox, SandboxConfig};
use passrate_schema::{Expected, Language, Reason, TestForm};

fn runner() -> Runner {
    let id = std::process::id() % 50_000;
    let config = SandboxConfig {
        slots: 2,
        uid_base: 500_000_000 + id * 4_000,
        // One group for this crate's test processes: leaves are named by their jail's pid and a
        // sandbox only removes leaves whose jail is dead, so processes share it safely, and a
        // per-process group would stay behind (this sandbox is never dropped).
        cgroup_group: "passrate-pool-test".to_owned(),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::new(config).expect("this machine must be able to sandbox");
    Runner::new(sandbox, intake_runner_options())
}

#[test]
fn unittest_suites_become_sequences_the_reference_passes() -> anyhow::Result<()> {
    let data = default_data_dir();
    if !data.join("classeval").exists() {
        eprintln!("skipping: no data at {}", data.display());
        return Ok(());
    }
    let (raws, left_out) = classeval::load(&data)?;
    assert_eq!(raws.len() + left_out.len(), 100);
    let runner = runner();
    let cache = Cache::in_memory("classeval-test");
    // ClassEval_0 (a request filter, dict arguments), ClassEval_1 (an area calculator,
    // float results) and ClassEval_18 (a mapping: item access through the proxy).
    for id in ["classeval/0", "classeval/1", "classeval/18"] {
        let raw = raws.iter().find(|r| r.id == id).expect("task parsed");
        let built = build_task(&runner, raw).map_err(|r| anyhow::anyhow!("{r:?}"))?;
        let task = built.task;
        assert!(task.tests.len() >= 5, "{id}: {} tests", task.tests.len());
        assert!(
            task.tests
                .iter()
                .all(|t| matches!(t.form, TestForm::Sequence { .. })),
            "{id}"
        );
        assert_eq!(task.variants.len(), 1);
        let (validated, _) =
            validate_task(&runner, &cache, &task).map_err(|r| anyhow::anyhow!("{r:?}"))?;
        assert_eq!(validated.tests, task.tests);

        // The same class with one method answering wrongly must fail.
        let variant = &task.variants[&Language::Python];
        let method = task
            .tests
            .iter()
            .find_map(|t| match &t.form {
                TestForm::Sequence { steps, .. } => steps
                    .iter()
                    .find(|s| matches!(s.expected, Expected::Returns(_)))
                    .map(|s| s.method.clone()),
                TestForm::Call { .. } => None,
            })
            .expect("a step that returns");
        let broken = format!(
            "{}\n\n_orig = {cls}.{method}\n{cls}.{method} = lambda self, *a: ('wrong', _orig(self, *a))\n",
            variant.reference_solution,
            cls = variant.class_name.as_deref().unwrap()
        );
        let verdict = runner.evaluate(&task, Language::Python, &broken)?;
        assert_eq!(verdict.reason, Reason::WrongAnswer, "{id}: {verdict:?}");
    }
    Ok(())
}
