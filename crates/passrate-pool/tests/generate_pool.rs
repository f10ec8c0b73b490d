//! The generator of the bundled pool: `cargo test -p passrate-pool --release --test
//! generate_pool -- --ignored --nocapture` rebuilds `pool/` from the data directory
//! (`$PASSRATE_DATA`, else ../shared/data) through the sandboxed runner. Ignored by default:
//! it runs every reference solution (minutes, needs the sandbox).

use std::path::Path;
use std::time::Instant;

use passrate_pool::import::pipeline::{default_data_dir, import};

#[test]
#[ignore = "regenerates pool/ through the sandbox (minutes)"]
fn generate_bundled_pool() -> anyhow::Result<()> {
    let sandbox = passrate_sandbox::Sandbox::new(passrate_sandbox::SandboxConfig::default())?;
    let runner = passrate_runner::Runner::new(sandbox, passrate_runner::RunnerOptions::default());
    let data = default_data_dir();
    let threads = std::env::var("PASSRATE_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(2);
    let start = Instant::now();
    let (pool, licenses, report) = import(&runner, &data, threads, &|stage, done, total| {
        if done == total || done % 200 == 0 {
            eprintln!(
                "{stage}: {done}/{total} ({:.0} s)",
                start.elapsed().as_secs_f64()
            );
        }
    })?;
    let target = std::env::var_os("PASSRATE_POOL_OUT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pool"));
    pool.save(&target, &licenses)?;
    for r in &report.rejected {
        eprintln!("rejected {} ({}): {}", r.id, r.stage, r.reason);
    }
    for d in &report.dropped_variants {
        eprintln!("dropped {} {}: {}", d.id, d.language, d.reason);
    }
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
