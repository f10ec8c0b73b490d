//! The API through a real server on loopback, over a store filled with the engine's types, on
//! SQLite and on PostgreSQL.

mod common;

use std::collections::BTreeSet;

use anyhow::{Context, ensure};
use common::{HIDDEN_MARK, PUBLIC_MARK, Server, Target, WEEKS, client};
use passrate_engine::run_score_config;
use passrate_store::Store;
use reqwest::StatusCode;
use serde_json::Value;

async fn get(server: &Server, path: &str) -> anyhow::Result<(StatusCode, Value)> {
    let response = client().get(server.url(path)).send().await?;
    let status = response.status();
    let text = response.text().await?;
    let body = serde_json::from_str(&text).with_context(|| format!("{path}: not JSON: {text}"))?;
    Ok((status, body))
}

/// Asserts a 4xx JSON error naming `parameter`.
async fn rejects(
    server: &Server,
    path: &str,
    status: StatusCode,
    parameter: &str,
) -> anyhow::Result<()> {
    let (got, body) = get(server, path).await?;
    ensure!(got == status, "{path}: {got} instead of {status}: {body}");
    ensure!(
        body["parameter"] == parameter,
        "{path}: names {} instead of {parameter}: {body}",
        body["parameter"]
    );
    ensure!(body["message"].is_string(), "{path}: no message: {body}");
    Ok(())
}

async fn the_api(target: &Target) -> anyhow::Result<()> {
    common::fill(&target.location).await?;
    let server = Server::start(&target.location).await?;
    let latest = WEEKS[2];

    // The board is the engine's, exactly: what `passrate leaderboard --json` prints.
    let store = Store::open_existing(&target.location).await?;
    let engine = passrate_engine::leaderboard(&store, latest, &run_score_config()).await?;
    store.close().await;
    let (status, board) = get(&server, "/api/v1/leaderboard").await?;
    ensure!(status == StatusCode::OK, "{board}");
    ensure!(
        board == serde_json::to_value(&engine)?,
        "the API board differs from the engine's"
    );
    ensure!(board["week"] == latest, "default week is not the latest");
    ensure!(
        board["ranked"].as_array().map(Vec::len) == Some(3),
        "{board}"
    );
    ensure!(
        board["partial"].as_array().map(Vec::len) == Some(1),
        "{board}"
    );
    ensure!(
        board["controls"].as_array().map(Vec::len) == Some(2),
        "{board}"
    );
    let (_, w46) = get(&server, "/api/v1/leaderboard?week=2026-W46").await?;
    ensure!(w46["week"] == "2026-W46");

    // Bad inputs: 4xx naming the parameter.
    rejects(
        &server,
        "/api/v1/leaderboard?week=2026-W60",
        StatusCode::BAD_REQUEST,
        "week",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/leaderboard?week=tuesday",
        StatusCode::BAD_REQUEST,
        "week",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/leaderboard?week=2026-W01",
        StatusCode::NOT_FOUND,
        "week",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/leaderboard?wek=2026-W48",
        StatusCode::BAD_REQUEST,
        "wek",
    )
    .await?;
    let long = format!("/api/v1/leaderboard?week={}", "9".repeat(5000));
    rejects(&server, &long, StatusCode::URI_TOO_LONG, "query").await?;
    rejects(
        &server,
        "/api/v1/models/alpha/history?page=9",
        StatusCode::BAD_REQUEST,
        "page",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/models/alpha/history?page=-1",
        StatusCode::BAD_REQUEST,
        "page",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/models/alpha/history?per_page=100000",
        StatusCode::BAD_REQUEST,
        "per_page",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/models/al%01pha/history",
        StatusCode::BAD_REQUEST,
        "model",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/models/%FF%FE/history",
        StatusCode::BAD_REQUEST,
        "path",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/models/nobody/history",
        StatusCode::NOT_FOUND,
        "model",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/runs/nope",
        StatusCode::NOT_FOUND,
        "run_id",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/tasks/nope%2F1",
        StatusCode::NOT_FOUND,
        "task_id",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/compare?a=alpha",
        StatusCode::BAD_REQUEST,
        "b",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/compare?a=alpha&b=alpha",
        StatusCode::BAD_REQUEST,
        "b",
    )
    .await?;
    rejects(
        &server,
        "/api/v1/compare?a=alpha&b=zed",
        StatusCode::NOT_FOUND,
        "b",
    )
    .await?;
    let (status, body) = get(&server, "/api/v1/nothing").await?;
    ensure!(
        status == StatusCode::NOT_FOUND && body["error"] == "no_route",
        "{body}"
    );

    // History: every version, oldest first, paginated.
    let (_, all) = get(&server, "/api/v1/models/alpha/history").await?;
    ensure!(all["total"] == 4, "{all}");
    let versions: Vec<(String, u64)> = all["records"]
        .as_array()
        .context("records")?
        .iter()
        .map(|r| {
            (
                r["record"]["week"].as_str().unwrap_or("").to_string(),
                r["record"]["record_version"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    ensure!(
        versions
            == vec![
                ("2026-W46".into(), 1),
                ("2026-W47".into(), 1),
                ("2026-W48".into(), 1),
                ("2026-W48".into(), 2)
            ],
        "{versions:?}"
    );
    let (_, p2) = get(&server, "/api/v1/models/alpha/history?page=2&per_page=3").await?;
    ensure!(
        p2["pages"] == 2 && p2["records"].as_array().map(Vec::len) == Some(1),
        "{p2}"
    );
    ensure!(p2["records"][0]["record"]["record_version"] == 2, "{p2}");

    // A run: manifest, settings, provenance.
    let run_id = format!("{latest}-fixture0001");
    let (status, run) = get(&server, &format!("/api/v1/runs/{run_id}")).await?;
    ensure!(status == StatusCode::OK, "{run}");
    ensure!(run["manifest"]["items"].as_array().map(Vec::len) == Some(common::TASKS));
    ensure!(run["settings"]["models"] == "fixture", "{run}");
    ensure!(run["models"].as_array().map(Vec::len) == Some(6), "{run}");
    ensure!(run["models"][0]["provenance"]["extractor_version"] == "1.1.0");

    // Outcomes: public test details yes, hidden test content never.
    let path = format!("/api/v1/runs/{run_id}/models/gamma/outcomes");
    let response = client().get(server.url(&path)).send().await?;
    ensure!(response.status() == StatusCode::OK);
    let text = response.text().await?;
    ensure!(
        !text.contains(HIDDEN_MARK),
        "hidden test content leaked: {text}"
    );
    ensure!(text.contains(PUBLIC_MARK), "public test details missing");
    let outcomes: Value = serde_json::from_str(&text)?;
    let first = &outcomes["outcomes"][0];
    ensure!(first["verdict"]["hidden_tests"] == 1, "{first}");
    ensure!(
        first["verdict"]["public_tests"]
            .as_array()
            .is_some_and(|t| t.iter().all(|t| t["visibility"] == "public")),
        "{first}"
    );
    ensure!(
        first["answer"].is_string(),
        "the answer is missing: {first}"
    );
    // A passed unit carries its quality checks (counts and measures), a failed one none.
    for outcome in outcomes["outcomes"].as_array().unwrap() {
        let passed = outcome["reason"] == "pass";
        ensure!(
            outcome["quality"]["robustness"]["extra_tests"].is_number() == passed,
            "{outcome}"
        );
    }

    // Quality scores: in every ranked row's record, and in the page's columns.
    for row in board["ranked"].as_array().unwrap() {
        let q = &row["record"]["quality"];
        ensure!(q["robustness"]["total"].as_u64() > Some(0), "{row}");
        ensure!(
            q["maintainability"]["within_band"]["score"].is_number(),
            "{q}"
        );
        ensure!(q["efficiency"]["ratio"]["median"].is_number(), "{q}");
    }
    ensure!(
        board["controls"][0]["record"]["quality"].is_null(),
        "controls are not checked"
    );
    let page = client().get(server.url("/")).send().await?.text().await?;
    let top = &board["ranked"][0]["record"]["quality"]["robustness"];
    let plus = format!(
        "<td data-quality=\"plus\">{:.1} (",
        top["score"].as_f64().unwrap() * 100.0
    );
    ensure!(page.contains(&plus), "{plus} not on the board page");

    // Paired comparison: the board's neighbours compare the same way.
    let (status, cmp) = get(
        &server,
        &format!("/api/v1/compare?a=alpha&b=beta&week={latest}"),
    )
    .await?;
    ensure!(status == StatusCode::OK, "{cmp}");
    let next = board["ranked"]
        .as_array()
        .context("ranked")?
        .iter()
        .find(|r| {
            r["vs_next"]["a"] == "alpha" && r["vs_next"]["b"] == "beta"
                || r["vs_next"]["a"] == "beta" && r["vs_next"]["b"] == "alpha"
        });
    if let Some(row) = next {
        ensure!(
            row["vs_next"]["shared_tasks"] == cmp["comparison"]["shared_tasks"],
            "{row} vs {cmp}"
        );
    }
    let differing = cmp["differing"].as_array().context("differing")?;
    ensure!(
        differing
            .iter()
            .all(|d| (d["a"] == "pass") != (d["b"] == "pass")),
        "{cmp}"
    );

    // Pool stats and a task's public view.
    let (status, stats) = get(&server, "/api/v1/pool/stats").await?;
    ensure!(
        status == StatusCode::OK && stats["week"] == latest,
        "{stats}"
    );
    let original = passrate_pool::stats(
        common::pool(),
        latest,
        &passrate_pool::SampleConfig::default(),
    )?;
    ensure!(
        stats == serde_json::to_value(&original)?,
        "the API's pool stats differ from the pool's"
    );
    let task_id = common::sample_items()[0].task.clone();
    let encoded: String = task_id.replace('/', "%2F");
    let response = client()
        .get(server.url(&format!("/api/v1/tasks/{encoded}")))
        .send()
        .await?;
    ensure!(response.status() == StatusCode::OK);
    let text = response.text().await?;
    ensure!(
        !text.contains("reference_solution"),
        "the answer leaked: {text}"
    );
    let view: Value = serde_json::from_str(&text)?;
    ensure!(view["id"] == task_id.as_str() && view["hidden_tests"].as_u64() > Some(0));
    let task = common::pool().get(&task_id).context("task")?;
    for test in task
        .tests
        .iter()
        .filter(|t| t.visibility == passrate_schema::Visibility::Hidden)
    {
        let hidden = serde_json::to_string(&test.form)?;
        ensure!(
            !text.contains(&hidden),
            "a hidden test appears in the task view"
        );
    }

    // Caching: ETag, Cache-Control, 304 on revalidation; gzip; CORS for GET.
    let response = client()
        .get(server.url("/api/v1/leaderboard"))
        .header("accept-encoding", "gzip")
        .header("origin", "https://example.org")
        .send()
        .await?;
    let headers = response.headers().clone();
    let etag = headers.get("etag").context("no ETag")?.clone();
    ensure!(headers.get("cache-control").is_some(), "no Cache-Control");
    ensure!(
        headers.get("content-encoding").is_some_and(|v| v == "gzip"),
        "{headers:?}"
    );
    ensure!(
        headers
            .get("access-control-allow-origin")
            .is_some_and(|v| v == "*"),
        "{headers:?}"
    );
    let again = client()
        .get(server.url("/api/v1/leaderboard"))
        .header("if-none-match", etag)
        .send()
        .await?;
    ensure!(
        again.status() == StatusCode::NOT_MODIFIED,
        "{}",
        again.status()
    );

    // Health and metrics.
    let (status, health) = get(&server, "/healthz").await?;
    ensure!(
        status == StatusCode::OK && health["status"] == "ok",
        "{health}"
    );
    let metrics = client()
        .get(server.url("/metrics"))
        .send()
        .await?
        .text()
        .await?;
    ensure!(
        metrics.contains("passrate_http_requests_total{method=\"GET\",route=\"/api/v1/leaderboard\",status=\"200\"}"),
        "{metrics}"
    );
    ensure!(metrics.contains(
        "passrate_http_request_duration_seconds_bucket{route=\"/api/v1/leaderboard\",le=\"+Inf\"}"
    ));
    ensure!(
        metrics.contains("passrate_store_errors_total 0\n"),
        "{metrics}"
    );

    // A store that stops answering: 5xx JSON (no panic), 503 health, counted store errors.
    server.store.close().await;
    let (status, body) = get(&server, "/api/v1/models/alpha/history").await?;
    ensure!(
        status == StatusCode::INTERNAL_SERVER_ERROR && body["error"] == "store_error",
        "{body}"
    );
    let (status, _) = get(&server, "/healthz").await?;
    ensure!(status == StatusCode::SERVICE_UNAVAILABLE);
    let metrics = client()
        .get(server.url("/metrics"))
        .send()
        .await?
        .text()
        .await?;
    ensure!(
        metrics.contains("passrate_store_errors_total 2\n"),
        "{metrics}"
    );

    server.stop().await
}

/// The OpenAPI document lists exactly the routes the router serves: each documented route
/// answers with something other than "no route", and the router has no API route the
/// document lacks (the fallback answers every path outside it).
async fn openapi_matches_the_router(target: &Target) -> anyhow::Result<()> {
    common::fill(&target.location).await?;
    let server = Server::start(&target.location).await?;
    let (status, doc) = get(&server, "/api/v1/openapi.json").await?;
    ensure!(
        status == StatusCode::OK && doc["openapi"] == "3.1.0",
        "{doc}"
    );
    let documented: BTreeSet<String> = doc["paths"]
        .as_object()
        .context("paths")?
        .keys()
        .cloned()
        .collect();
    let served: BTreeSet<String> = passrate_server::endpoints()
        .iter()
        .map(|e| e.path.to_string())
        .collect();
    ensure!(documented == served, "{documented:?} != {served:?}");
    let operations: Vec<(String, String)> = doc["paths"]
        .as_object()
        .context("paths")?
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .into_iter()
                .flat_map(|ops| ops.keys())
                .map(move |method| (path.clone(), method.clone()))
        })
        .collect();
    let table: BTreeSet<(String, String)> = passrate_server::endpoints()
        .iter()
        .map(|e| (e.path.to_string(), e.method.to_string()))
        .collect();
    ensure!(
        operations.iter().cloned().collect::<BTreeSet<_>>() == table,
        "{operations:?} != {table:?}"
    );
    for (path, method) in &operations {
        let concrete = path
            .replace("{model}", "alpha")
            .replace("{run_id}", "x")
            .replace("{task_id}", "x");
        let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes())?;
        let response = client()
            .request(method, server.url(&concrete))
            .send()
            .await?;
        let status = response.status();
        let text = response.text().await?;
        ensure!(
            !text.contains("\"no_route\"") && status != StatusCode::METHOD_NOT_ALLOWED,
            "{path} is documented but not served: {status} {text}"
        );
        // Every parameter a route takes is documented.
        for name in path.split('{').skip(1).filter_map(|s| s.split('}').next()) {
            let params = doc["paths"][path]["get"]["parameters"]
                .as_array()
                .context("parameters")?;
            ensure!(
                params
                    .iter()
                    .any(|p| p["name"] == name && p["in"] == "path"),
                "{path}: path parameter {name} undocumented"
            );
        }
    }
    // The schemas every operation refers to exist.
    let text = doc.to_string();
    for reference in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
        let name = reference.split('"').next().unwrap_or("");
        ensure!(
            doc["components"]["schemas"].get(name).is_some(),
            "dangling $ref {name}"
        );
    }
    server.stop().await
}

/// Writes: off without a token (403), 401 without a bearer token, 403 with a wrong one, and
/// with the right one a registration lands in the models file, validated by the model
/// crate's parser; `command` models cannot be registered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_need_the_token() -> anyhow::Result<()> {
    let target = Target::sqlite()?;
    common::fill(&target.location).await?;
    let registration = serde_json::json!({
        "id": "new-model",
        "endpoint": "http://127.0.0.1:9/v1",
        "model": "provider-name",
        "api_key_env": "NEW_MODEL_KEY",
    });

    let server = Server::start(&target.location).await?;
    let response = client()
        .post(server.url("/api/v1/models"))
        .header("authorization", "Bearer anything-at-all-long")
        .json(&registration)
        .send()
        .await?;
    ensure!(
        response.status() == StatusCode::FORBIDDEN,
        "{}",
        response.status()
    );
    let body: Value = response.json().await?;
    ensure!(body["error"] == "writes_disabled", "{body}");
    server.stop().await?;

    let dir = tempfile::tempdir()?;
    let models = dir.path().join("models.toml");
    let token = "correct-horse-battery-staple";
    let server = Server::start_with_writes(&target.location, token, &models).await?;
    let post = |auth: Option<&str>, body: &Value| {
        let mut request = client().post(server.url("/api/v1/models")).json(body);
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        request.send()
    };
    let r = post(None, &registration).await?;
    ensure!(r.status() == StatusCode::UNAUTHORIZED, "{}", r.status());
    let r = post(Some("Bearer correct-horse-battery-stapl"), &registration).await?;
    ensure!(r.status() == StatusCode::FORBIDDEN, "{}", r.status());
    let r = post(Some(&format!("Basic {token}")), &registration).await?;
    ensure!(r.status() == StatusCode::UNAUTHORIZED, "{}", r.status());
    ensure!(!models.exists(), "a refused request wrote the models file");

    let bearer = format!("Bearer {token}");
    let r = post(Some(&bearer), &registration).await?;
    ensure!(
        r.status() == StatusCode::CREATED,
        "{}: {}",
        r.status(),
        r.text().await?
    );
    let parsed = passrate_models::ModelsConfig::load(&models)?;
    ensure!(parsed.models.len() == 1 && parsed.models[0].id == "new-model");
    let r = post(Some(&bearer), &registration).await?;
    ensure!(r.status() == StatusCode::CONFLICT, "{}", r.status());
    let body: Value = r.json().await?;
    ensure!(body["parameter"] == "id", "{body}");

    let command = serde_json::json!({"id": "x", "adapter": "command", "command": ["sh"]});
    let r = post(Some(&bearer), &command).await?;
    ensure!(r.status() == StatusCode::BAD_REQUEST, "{}", r.status());
    let bad_rate = serde_json::json!({
        "id": "y", "endpoint": "http://h/v1", "model": "m", "requests_per_minute": -1.0
    });
    let r = post(Some(&bearer), &bad_rate).await?;
    ensure!(
        r.status() == StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        r.status()
    );
    let huge = serde_json::json!({"id": "z".repeat(20_000), "endpoint": "e", "model": "m"});
    let r = post(Some(&bearer), &huge).await?;
    ensure!(
        r.status() == StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        r.status()
    );
    ensure!(
        passrate_models::ModelsConfig::load(&models)?.models.len() == 1,
        "a refused registration changed the file"
    );
    server.stop().await?;
    target.finish().await
}

macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() -> anyhow::Result<()> {
                let target = crate::common::Target::sqlite()?;
                super::$name(&target).await?;
                target.finish().await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() -> anyhow::Result<()> {
                let Some(target) = crate::common::Target::postgres().await? else {
                    return Ok(());
                };
                super::$name(&target).await?;
                target.finish().await
            }
        }
    )*};
}

on_both_backends!(the_api, openapi_matches_the_router);
