//! Fuzzes the API from its own OpenAPI document with schemathesis (PyPI): no 5xx, every
//! status documented, every response matching its schema and media type. Needs
//! `eval "$(scripts/schemathesis-test.sh)"`; under `CI=true` a missing tool fails the test.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use common::{Server, Target};

fn schemathesis() -> anyhow::Result<Option<PathBuf>> {
    let candidate = std::env::var_os("PASSRATE_TEST_SCHEMATHESIS")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| Path::new(&h).join(".cache/passrate/schemathesis/bin/st"))
        })
        .filter(|p| p.is_file());
    match candidate {
        Some(st) => Ok(Some(st)),
        None if std::env::var_os("CI").is_some() => bail!(
            "schemathesis is missing under CI: run `eval \"$(scripts/schemathesis-test.sh)\"` \
             before the tests"
        ),
        None => {
            eprintln!(
                "SKIPPED: schemathesis test (run `eval \"$(scripts/schemathesis-test.sh)\"`)"
            );
            Ok(None)
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_no_server_error() -> anyhow::Result<()> {
    let Some(st) = schemathesis()? else {
        return Ok(());
    };
    let target = Target::sqlite()?;
    common::fill(&target.location).await?;
    let dir = tempfile::tempdir()?;
    let models = dir.path().join("models.toml");
    // Writes on, so the fuzzer reaches past the token check on the write endpoint too.
    let token = "schemathesis-token-0123456789";
    let server = Server::start_with_writes(&target.location, token, &models).await?;
    let schema = server.url("/api/v1/openapi.json");
    let work = dir.path().to_path_buf();
    let output = tokio::task::spawn_blocking(move || {
        Command::new(st)
            .args(["run", &schema])
            .args([
                "--checks",
                "not_a_server_error,status_code_conformance,content_type_conformance,\
                 response_schema_conformance,response_headers_conformance",
                "--max-examples",
                "25",
                "--seed",
                "20261203",
                "--request-timeout",
                "10",
                "--header",
                &format!("Authorization: Bearer {token}"),
                "--no-color",
                // No example database: nothing is written into the source tree.
                "--generation-database",
                "none",
            ])
            // Schemathesis keeps a cache in its working directory: a throwaway one.
            .current_dir(&work)
            .env("SCHEMATHESIS_HOOKS", "")
            .output()
    })
    .await?
    .context("failed to run schemathesis")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    server.stop().await?;
    target.finish().await?;
    if !output.status.success() {
        bail!(
            "schemathesis found failures ({}):\n{stdout}\n{stderr}",
            output.status
        );
    }
    Ok(())
}
