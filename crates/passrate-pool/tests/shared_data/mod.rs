//! Where the tests that read the public datasets find them, and what they do when they are
//! not there: skip with a notice on a developer's machine, fail under `CI=true` (a missing
//! service fails in CI rather than skipping, as every test of this project does).

use std::path::{Path, PathBuf};

/// The data directory: `$PASSRATE_DATA`, else `$PASSRATE_SHARED_DATA`, else `../shared/data`
/// beside the repository. `None` when it lacks any of `needed` (paths inside it) and `CI` is
/// not `true`; under `CI=true` that panics naming what is missing.
pub fn data_dir(needed: &[&str]) -> Option<PathBuf> {
    let dir = std::env::var_os("PASSRATE_DATA")
        .or_else(|| std::env::var_os("PASSRATE_SHARED_DATA"))
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|n| !dir.join(n).exists())
        .collect();
    if missing.is_empty() {
        return Some(dir);
    }
    let message = format!(
        "the public datasets are not at {} (missing {}): set PASSRATE_DATA or PASSRATE_SHARED_DATA",
        dir.display(),
        missing.join(", ")
    );
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{message}");
    }
    eprintln!("skipping: {message}");
    None
}
