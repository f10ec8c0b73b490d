//! The site and the API show a model with too many infrastructure faults as not ranked:
//! through a real server over a real SQLite store, `faulty` (4 of its 200 units in
//! `sandbox_error`, 2%) is in the board's `unranked` section with its note, and `steady`
//! (1 fault, 0.5%) is ranked; every row shows its faults with their share.

mod common;

use std::collections::BTreeMap;

use anyhow::{Context, ensure};
use common::{Server, Target, client};
use passrate_engine::{REFERENCE_MODEL, run_score_config};
use passrate_schema::{
    Category, Language, LimitsUsed, Manifest, ManifestItem, Provenance, RECORD_FORMAT_VERSION,
    Reason, ScoreRecord, Tier, Verdict,
};
use passrate_score::Scorer;
use passrate_store::{Store, UnitResult};
use serde_json::Value;

const WEEK: &str = "2026-W48";
const UNITS: usize = 200;

fn verdict(item: &ManifestItem, reason: Reason) -> Verdict {
    Verdict {
        task: item.task.clone(),
        language: item.language,
        reason,
        tests_passed: usize::from(reason == Reason::Pass),
        tests_total: 1,
        cpu_ms: 1,
        wall_ms: 1,
        peak_memory_bytes: None,
        tests: Vec::new(),
        detail: None,
        grader: None,
    }
}

/// One run in a SQLite store: `faulty` with 4 of 200 units in `sandbox_error` (2%), `steady`
/// with 1 (0.5%), `clean` with none, and the reference; records scored by the real scorer
/// from the outcomes the store gives back, as the cycle scores them.
async fn fill(location: &str) -> anyhow::Result<()> {
    let store = Store::open(location).await?;
    let items: Vec<ManifestItem> = (0..UNITS)
        .map(|i| ManifestItem {
            task: format!("fixture/{i}"),
            task_version: 1,
            language: Language::Python,
            category: Category::FunctionCompletion,
            tier: Tier::ALL[i % 3],
            family: format!("fixture/{i}"),
        })
        .collect();
    let manifest = Manifest {
        format_version: 1,
        week: WEEK.into(),
        seed: "seed-fixture".into(),
        pool_version: "fixture".into(),
        items: items.clone(),
        panel: Vec::new(),
        rotation: None,
    };
    let run_id = format!("{WEEK}-fixture00001");
    store
        .create_run(&run_id, &manifest, &serde_json::json!({"fixture": true}))
        .await?;
    let mut scorer = Scorer::new(run_score_config())?;
    // (model, units in sandbox_error, every how many units a wrong answer; 0: none)
    for (model, faults, fail_every) in [
        ("faulty", 4, 3),
        ("steady", 1, 4),
        ("clean", 0, 5),
        (REFERENCE_MODEL, 0, 0),
    ] {
        for (i, item) in items.iter().enumerate() {
            let reason = if i < faults {
                Reason::SandboxError
            } else if fail_every > 0 && i % fail_every == 0 {
                Reason::WrongAnswer
            } else {
                Reason::Pass
            };
            store
                .insert_unit_result(&UnitResult {
                    run_id: run_id.clone(),
                    model: model.into(),
                    task: item.task.clone(),
                    task_version: 1,
                    sample_index: 0,
                    language: item.language,
                    category: item.category,
                    tier: item.tier,
                    raw_answer: Some("```python\ndef f(): pass\n```".into()),
                    extracted_code: Some("def f(): pass\n".into()),
                    verdict: verdict(item, reason),
                    generation_ms: 1,
                    execution_ms: 1,
                    usage: None,
                    completed_at: "2026-11-30T12:00:00Z".into(),
                })
                .await?;
        }
        let outcomes = store.task_outcomes(&run_id, model).await?;
        let (_, score) = scorer.score_outcomes(&manifest.seed, model, &outcomes)?;
        store
            .append_score_record_for_run(&ScoreRecord {
                format_version: RECORD_FORMAT_VERSION,
                model: model.into(),
                week: WEEK.into(),
                evaluated_at: "2026-11-30T12:00:00Z".into(),
                record_version: 0,
                run_id: run_id.clone(),
                seed: manifest.seed.clone(),
                pool_version: manifest.pool_version.clone(),
                overall: score.overall,
                by_category: score.by_category,
                by_tier: score.by_tier,
                by_language: score.by_language,
                compliance_rate: score.compliance_rate,
                coverage: score.coverage,
                reasons: score.reasons,
                pass_at_k: score.pass_at_k,
                provenance: Provenance {
                    passrate_version: "0.1.0".into(),
                    extractor_version: "1.2.0".into(),
                    limits: LimitsUsed {
                        cpu_ms: 2000,
                        wall_ms: 4000,
                        memory_mib: 256,
                        heap_mib: 30,
                        pids: 64,
                        workdir_mib: 16,
                        output_bytes: 1 << 20,
                    },
                    runtime_versions: BTreeMap::new(),
                },
                answered: Some(score.overall),
                families: score.scored_families,
                drift: None,
                rotation: None,
            })
            .await?;
    }
    store.finish_run(&run_id).await?;
    store.close().await;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_shows_a_model_over_the_fault_threshold_as_not_ranked() -> anyhow::Result<()> {
    let target = Target::sqlite()?;
    fill(&target.location).await?;
    let server = Server::start(&target.location).await?;

    let board: Value = client()
        .get(server.url(&format!("/api/v1/leaderboard?week={WEEK}")))
        .send()
        .await?
        .json()
        .await?;
    let models = |section: &str| -> Vec<String> {
        board[section]
            .as_array()
            .map(|rows| {
                rows.iter()
                    .filter_map(|r| r["record"]["model"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    ensure!(models("unranked") == ["faulty"], "{board}");
    let mut ranked = models("ranked");
    ranked.sort();
    ensure!(ranked == ["clean", "steady"], "{board}");
    let row = &board["unranked"][0];
    ensure!(row["rank"].is_null() && row["fault_share"] == 0.02 && row["units"] == 200);

    let response = client()
        .get(server.url(&format!("/?week={WEEK}")))
        .send()
        .await?;
    ensure!(response.status().is_success(), "{}", response.status());
    let html = response.text().await?;
    let section = html
        .split("<section id=\"unranked\"")
        .nth(1)
        .context("an unranked section on the page")?;
    let section = &section[..section.find("</section>").context("the section ends")?];
    ensure!(section.contains("<h2>Not ranked</h2>"), "{section}");
    ensure!(section.contains("exceed 1.0% of their units"), "{section}");
    ensure!(
        section.contains(
            "<strong>faulty</strong>: not ranked: 4 infrastructure faults (2.0% of 200 \
             units), re-run to rank"
        ),
        "{section}"
    );
    ensure!(section.contains("<td>not ranked</td>"), "{section}");
    // Subscores by language have their columns beside categories and tiers.
    ensure!(
        html.contains("<th scope=\"col\">python</th>"),
        "no language column"
    );
    ensure!(
        section.contains("data-faults=\"4\">4 (2.0%)</td>"),
        "{section}"
    );
    ensure!(!section.contains("data-model=\"steady\""), "{section}");
    // The ranked section ranks steady and shows its one fault with its share.
    let ranked = html
        .split("<section id=\"ranked\"")
        .nth(1)
        .context("a ranked section")?;
    let ranked = &ranked[..ranked.find("</section>").context("the section ends")?];
    ensure!(ranked.contains("data-model=\"steady\""), "{ranked}");
    ensure!(
        ranked.contains("data-faults=\"1\">1 (0.5%)</td>"),
        "{ranked}"
    );
    ensure!(!ranked.contains("data-model=\"faulty\""), "{ranked}");

    server.stop().await?;
    target.finish().await?;
    Ok(())
}
