//! The pages in a real headless Chromium (Debian's `chromium`, driven by `playwright-core`):
//! one whisker per model, tie groups as the API says, one history point per record, every
//! link answers 200, no horizontal scroll on a 375 px phone. Screenshots go to
//! `target/passrate-server-browser/`. Needs `eval "$(scripts/chromium-test-deps.sh)"`; under
//! `CI=true` a missing browser fails the test instead of skipping it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use common::{Server, Target};

fn tool_paths() -> anyhow::Result<Option<(PathBuf, PathBuf)>> {
    let chromium = std::env::var_os("PASSRATE_TEST_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let playwright = std::env::var_os("PASSRATE_TEST_PLAYWRIGHT")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/passrate/playwright"))
        });
    let found = playwright
        .filter(|p| {
            p.join("node_modules/playwright-core/package.json")
                .is_file()
        })
        .filter(|_| chromium.is_file());
    match found {
        Some(p) => Ok(Some((chromium, p))),
        None if std::env::var_os("CI").is_some() => bail!(
            "chromium or playwright-core is missing under CI: run \
             `eval \"$(scripts/chromium-test-deps.sh)\"` before the tests"
        ),
        None => {
            eprintln!("SKIPPED: browser test (run `eval \"$(scripts/chromium-test-deps.sh)\"`)");
            Ok(None)
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_in_chromium() -> anyhow::Result<()> {
    let Some((chromium, playwright)) = tool_paths()? else {
        return Ok(());
    };
    let target = Target::sqlite()?;
    common::fill(&target.location).await?;
    let server = Server::start(&target.location).await?;
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shots = manifest.join("../../target/passrate-server-browser");
    let script = manifest.join("tests/browser/site.cjs");
    let base = server.url("");
    let output = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(script)
            .arg(base)
            .arg(&shots)
            .env("PASSRATE_TEST_CHROMIUM", chromium)
            .env("PASSRATE_TEST_PLAYWRIGHT", playwright)
            .output()
    })
    .await?
    .context("failed to run node")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    server.stop().await?;
    target.finish().await?;
    if !output.status.success() {
        bail!(
            "the browser checks failed ({}):\n{stdout}\n{stderr}",
            output.status
        );
    }
    let summary: serde_json::Value = serde_json::from_str(stdout.trim())?;
    // Six models on the board; alpha has four records (one a correction).
    anyhow::ensure!(summary["whiskers"] == 6, "{summary}");
    anyhow::ensure!(summary["history_points"]["alpha"] == 4, "{summary}");
    anyhow::ensure!(summary["links"].as_u64() > Some(50), "{summary}");
    Ok(())
}
