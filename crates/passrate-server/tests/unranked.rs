//! The site and the API show a model with too many infrastructure faults as not ranked:
//! through a real server over a real SQLite store, `faulty` (4 of its 200 units in
//! `sandbox_error`, 2%) is in the board's `unranked` section with its note, and `steady`
//! (1 fault, 0.5%) is ranked; every row shows its faults with their share.

mod common;
#[path = "../../passrate-engine/tests/fixtures/fault_store.rs"]
mod fault_store;

use anyhow::{Context, ensure};
use common::{Server, Target, client};
use fault_store::{MODELS, WEEK, fill};
use passrate_store::Store;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_shows_a_model_over_the_fault_threshold_as_not_ranked() -> anyhow::Result<()> {
    let target = Target::sqlite()?;
    let store = Store::open(&target.location).await?;
    fill(&store, &MODELS).await?;
    store.close().await;
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
