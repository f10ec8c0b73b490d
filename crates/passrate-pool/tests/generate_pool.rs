//! The generator of the bundled pool, as a test for environments without the CLI:
//! `PASSRATE_JAIL=… cargo test -p passrate-pool --release --test generate_pool -- --ignored
//! --nocapture` rebuilds `$PASSRATE_POOL_OUT` (default: the repository's `pool/`) from the
//! data directory (`$PASSRATE_DATA`, else ../shared/data) through the sandboxed runner, with
//! the intake cache in `target/pool-cache`. `passrate pool import` does the same with
//! options and progress output; prefer it. Ignored by default: it runs every reference
//! solution (minutes, needs the sandbox) and reads public sets that are not in the repository.
//!
//! The data directory holds copies of these upstream files (directory: repository @ commit,
//! upstream paths), each directory with the upstream LICENSE (`mbpp/NOTICE.md`, and
//! `mxeval/NOTICE` and `mxeval/mbxp/LICENSE`), which the pool ships in `pool/licenses/`:
//!
//! - `humaneval/`: openai/human-eval @ 6d43fb98, `data/HumanEval.jsonl.gz` (MIT);
//! - `humanevalplus/`: evalplus/humanevalplus_release @ 200defce (v0.1.10),
//!   `HumanEvalPlus.jsonl.gz` and `HumanEvalPlus-OriginFmt.jsonl.gz` (Apache-2.0);
//! - `humanevalpack/{python,js,java}/humanevalpack.jsonl`: bigcode-project/octopack @ e17a8f64,
//!   `evaluation/create/humaneval-x/data/<lang>/data/humanevalpack.jsonl` (MIT);
//! - `humaneval-x/`: THUDM/CodeGeeX @ 2838420b, `codegeex/benchmark/humaneval-x/` (Apache-2.0,
//!   licence only);
//! - `mbpp/mbpp.jsonl`: google-research `mbpp/` (CC-BY-4.0), as vendored by patdfb/TPC-EES @
//!   30c8c572;
//! - `mbppplus/`: evalplus/mbppplus_release @ dadf43da (v0.2.0), `MbppPlus.jsonl.gz` and
//!   `MbppPlus-OriginFmt.jsonl.gz` (Apache-2.0);
//! - `mxeval/mbxp/`: amazon-science/mxeval @ e09974f9, `data/mbxp/*_release_v1*.jsonl`
//!   (repository Apache-2.0, MBXP data CC-BY-4.0);
//! - `quixbugs/quixbugs.jsonl`: jkoppel/QuixBugs @ 4257f44b (MIT), its programs and tests
//!   collected into one JSON Lines file;
//! - `classeval/ClassEval_data.json`: FudanSELab/ClassEval @ eaeac44d, `data/` (MIT).

use std::path::Path;
use std::time::Instant;

use passrate_pool::import::pipeline::{
    Event, ImportOptions, default_data_dir, import, intake_runner_options,
};

#[test]
#[ignore = "regenerates pool/ through the sandbox (minutes)"]
fn generate_bundled_pool() -> anyhow::Result<()> {
    let sandbox = passrate_sandbox::Sandbox::new(passrate_sandbox::SandboxConfig::default())?;
    let slots = sandbox.slots();
    let runner = passrate_runner::Runner::new(sandbox, intake_runner_options());
    let data = default_data_dir();
    let options = ImportOptions {
        threads: std::env::var("PASSRATE_THREADS")
            .ok()
            .and_then(|t| t.parse().ok())
            .unwrap_or(2 * slots),
        cache_dir: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/pool-cache")),
        mbxp_java: std::env::var_os("PASSRATE_NO_MBXP_JAVA").is_none(),
    };
    let start = Instant::now();
    let last = std::sync::Mutex::new(Instant::now());
    let (pool, licenses, report) = import(&runner, &data, &options, &|e| match e {
        Event::Done {
            stage,
            id,
            rejected,
            done,
            total,
        } => {
            if let Some(r) = rejected {
                eprintln!("  rejected {id}: {}", r.reason);
            }
            let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
            if done == total || last.elapsed().as_secs() >= 10 {
                *last = Instant::now();
                eprintln!(
                    "[{:.0} s] {stage}: {done}/{total} (last {id})",
                    start.elapsed().as_secs_f64()
                );
            }
        }
        Event::End { stage, elapsed } => {
            eprintln!("{stage} took {:.1} s", elapsed.as_secs_f64())
        }
        Event::Start { .. } => {}
    })?;
    let target = std::env::var_os("PASSRATE_POOL_OUT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pool"));
    let rejections = report.rejections_markdown(&options);
    pool.save_with(
        &target,
        &licenses,
        &[("REJECTIONS.md", rejections.as_bytes())],
    )?;
    eprintln!(
        "pool {}: {} tasks ({} base parsed, {} built, {} derived, {} rejected, {} variants dropped); parse {:.1} s, record {:.1} s, validate {:.1} s, total {:.1} s",
        pool.version().short(),
        report.accepted,
        report.parsed,
        report.built,
        report.derived,
        report.rejected.len(),
        report.dropped_variants.len(),
        report.parse_time.as_secs_f64(),
        report.build_time.as_secs_f64(),
        report.validate_time.as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
