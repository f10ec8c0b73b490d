//! Test harness: a store filled through the store's own writer API with records scored by
//! the real scorer (three weeks, ranked, partial-coverage and control models, a corrected
//! record, a drift flag, hidden tests with marked content), on SQLite or on the PostgreSQL
//! `PASSRATE_TEST_POSTGRES_URL` points to, and a real server on a loopback port.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::{Context, bail};
use passrate_engine::{KNOWN_BUGGY_MODEL, REFERENCE_MODEL, run_score_config};
use passrate_pool::Pool;
use passrate_schema::{
    CodeMeasures, DriftSignals, EfficiencyCheck, ErrorInfo, LimitsUsed, MaintainabilityCheck,
    Manifest, ManifestItem, Provenance, RECORD_FORMAT_VERSION, Reason, RobustnessCheck,
    ScoreRecord, TaskOutcome, TestResult, UnitQuality, Value, Verdict, Visibility,
};
use passrate_score::{ModelOutcomes, QualityUnit, Scorer};
use passrate_store::{Store, UnitResult};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

pub const POSTGRES_URL_VAR: &str = "PASSRATE_TEST_POSTGRES_URL";
/// Planted in every hidden test's actual value, error and detail, and in the task-level
/// detail of verdicts with a failed hidden test: it must never reach a client.
pub const HIDDEN_MARK: &str = "HIDDEN-SECRET-7f3a";
/// Planted in public tests' details: it must reach a client.
pub const PUBLIC_MARK: &str = "public-detail-91c2";

pub const WEEKS: [&str; 3] = ["2026-W46", "2026-W47", "2026-W48"];
pub const RANKED: [(&str, u64); 3] = [("alpha", 85), ("beta", 82), ("gamma", 30)];
pub const PARTIAL: &str = "replay-x";
pub const TASKS: usize = 40;

pub fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool::bundled().expect("the bundled pool loads"))
}

/// The sample: the first pool tasks that have hidden tests (so stripping them is tested on
/// real tasks), each in its first language.
pub fn sample_items() -> Vec<ManifestItem> {
    // Round-robin over categories, so the board has category columns to show.
    let mut by_category: BTreeMap<passrate_schema::Category, Vec<&passrate_schema::Task>> =
        BTreeMap::new();
    for t in pool().tasks().iter().filter(|t| {
        t.tests.iter().any(|c| c.visibility == Visibility::Hidden)
            && t.tests.iter().any(|c| c.visibility == Visibility::Public)
    }) {
        by_category.entry(t.category).or_default().push(t);
    }
    let mut picked = Vec::new();
    for round in 0.. {
        let before = picked.len();
        for tasks in by_category.values() {
            if let Some(t) = tasks.get(round)
                && picked.len() < TASKS
            {
                picked.push(*t);
            }
        }
        if picked.len() == TASKS || picked.len() == before {
            break;
        }
    }
    picked
        .into_iter()
        .map(|t| ManifestItem {
            task: t.id.clone(),
            task_version: t.version,
            language: *t.variants.keys().next().expect("a task has a variant"),
            category: t.category,
            tier: t.tier,
            family: t.family(),
        })
        .collect()
}

/// A fresh, empty database.
pub struct Target {
    pub location: String,
    _dir: Option<tempfile::TempDir>,
    drop_database: Option<(PgPool, String)>,
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

impl Target {
    pub fn sqlite() -> anyhow::Result<Target> {
        let dir = tempfile::tempdir()?;
        let location = dir.path().join("passrate.sqlite3").display().to_string();
        Ok(Target {
            location,
            _dir: Some(dir),
            drop_database: None,
        })
    }

    /// `None` (with a notice) when no PostgreSQL is configured outside CI; an error under CI.
    pub async fn postgres() -> anyhow::Result<Option<Target>> {
        let Ok(base) = std::env::var(POSTGRES_URL_VAR) else {
            if std::env::var_os("CI").is_some() {
                bail!(
                    "{POSTGRES_URL_VAR} is not set under CI: run \
                     `eval \"$(scripts/postgres-test-server.sh)\"` before the tests"
                );
            }
            eprintln!(
                "SKIPPED: PostgreSQL test (set {POSTGRES_URL_VAR}, e.g. \
                 `eval \"$(scripts/postgres-test-server.sh)\"`)"
            );
            return Ok(None);
        };
        let admin = PgPoolOptions::new()
            .max_connections(1)
            .connect_with(PgConnectOptions::from_str(&base)?)
            .await
            .with_context(|| format!("connecting to {POSTGRES_URL_VAR}"))?;
        let name = format!(
            "passrate_srv_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&admin)
            .await
            .with_context(|| format!("creating database {name}"))?;
        Ok(Some(Target {
            location: with_database(&base, &name)?,
            _dir: None,
            drop_database: Some((admin, name)),
        }))
    }

    pub async fn finish(self) -> anyhow::Result<()> {
        if let Some((admin, name)) = self.drop_database {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )))
            .execute(&admin)
            .await?;
            admin.close().await;
        }
        Ok(())
    }
}

fn with_database(url: &str, name: &str) -> anyhow::Result<String> {
    let authority_start = url.find("://").context("not a URL")? + 3;
    let path_start = url[authority_start..]
        .find('/')
        .map(|i| authority_start + i)
        .unwrap_or(url.len());
    let query = url[path_start..].find('?').map(|i| &url[path_start + i..]);
    Ok(format!(
        "{}/{}{}",
        &url[..path_start],
        name,
        query.unwrap_or("")
    ))
}

/// Whether `model` passes `task` in `week`: a keyed hash against the model's strength, so
/// the fixture is the same on every machine.
fn passes(model: &str, week: &str, task: &str, strength: u64) -> bool {
    let h = blake3::hash(format!("{model}|{week}|{task}").as_bytes());
    let n = u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"));
    n % 100 < strength
}

fn verdict(item: &ManifestItem, reason: Reason) -> Verdict {
    let pass = reason == Reason::Pass;
    let ran = !matches!(reason, Reason::NoAnswer | Reason::NoCode);
    let tests = if ran {
        vec![
            TestResult {
                index: 0,
                visibility: Visibility::Public,
                reason: Reason::Pass,
                actual: Some(Value::Str("public-actual".into())),
                error: None,
                cpu_us: Some(10),
                detail: Some(PUBLIC_MARK.into()),
            },
            TestResult {
                index: 1,
                visibility: Visibility::Hidden,
                reason,
                actual: Some(Value::Str(HIDDEN_MARK.into())),
                error: (!pass).then(|| ErrorInfo {
                    kind: "AssertionError".into(),
                    message: HIDDEN_MARK.into(),
                }),
                cpu_us: Some(12),
                detail: Some(format!("expected {HIDDEN_MARK}")),
            },
        ]
    } else {
        Vec::new()
    };
    Verdict {
        task: item.task.clone(),
        language: item.language,
        reason,
        tests_passed: tests.iter().filter(|t| t.reason == Reason::Pass).count(),
        tests_total: tests.len(),
        cpu_ms: 3,
        cpu_us: None,
        wall_ms: 5,
        peak_memory_bytes: None,
        tests,
        detail: (ran && !pass).then(|| format!("hidden test 1 failed: {HIDDEN_MARK}")),
        grader: None,
    }
}

/// Fills `location` (created and migrated by the writer) and returns it closed.
/// The quality checks of a passed answer to the `i`th task: every fifth fails an extra input,
/// every third has an efficiency measure (every ninth slower than 10×), every fourth is
/// outside the band on complexity.
pub fn quality(i: usize) -> UnitQuality {
    let measures = |complexity| CodeMeasures {
        cyclomatic_complexity: complexity,
        max_nesting_depth: 2,
        statements: 8,
        duplicated_blocks: 0,
        short_names: 0,
        lint_findings: None,
    };
    let outside = i.is_multiple_of(4);
    UnitQuality {
        robustness: Some(RobustnessCheck {
            extra_tests: 50,
            passed: if i.is_multiple_of(5) { 49 } else { 50 },
            reason: if i.is_multiple_of(5) {
                Reason::WrongAnswer
            } else {
                Reason::Pass
            },
        }),
        efficiency: (i.is_multiple_of(3)).then(|| {
            let ratio = if i.is_multiple_of(9) {
                14.0
            } else {
                1.0 + i as f64 / 100.0
            };
            EfficiencyCheck {
                inputs: 2,
                candidate_cpu_ms: 1.0 + 40.0 * ratio,
                reference_cpu_ms: 41.0,
                baseline_cpu_ms: 1.0,
                ratio,
                repeats: 2,
                spread: 0.02,
                reason: Reason::Pass,
            }
        }),
        maintainability: Some(MaintainabilityCheck {
            candidate: measures(if outside { 9 } else { 3 }),
            reference: measures(3),
            outside_band: if outside {
                vec!["cyclomatic_complexity".into()]
            } else {
                Vec::new()
            },
        }),
    }
}

pub async fn fill(location: &str) -> anyhow::Result<()> {
    let store = Store::open(location).await?;
    let items = sample_items();
    anyhow::ensure!(items.len() == TASKS, "the bundled pool has too few tasks");
    let mut scorer = Scorer::new(run_score_config())?;
    let config = run_score_config();
    for (w, week) in WEEKS.iter().enumerate() {
        let manifest = Manifest {
            format_version: 1,
            week: week.to_string(),
            seed: format!("seed-{week}"),
            pool_version: pool().version().0,
            items: items.clone(),
            panel: Vec::new(),
            rotation: None,
        };
        let run_id = format!("{week}-fixture0001");
        store
            .create_run(
                &run_id,
                &manifest,
                &serde_json::json!({"models": "fixture", "week": week}),
            )
            .await?;
        let mut models: Vec<(String, u64)> =
            RANKED.iter().map(|(m, s)| (m.to_string(), *s)).collect();
        models.push((PARTIAL.to_string(), 60));
        models.push((REFERENCE_MODEL.to_string(), 100));
        models.push((KNOWN_BUGGY_MODEL.to_string(), 0));
        for (model, strength) in &models {
            let mut outcomes = Vec::new();
            let mut checked: Vec<(ManifestItem, UnitQuality)> = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let reason = if model == PARTIAL && i % 2 == 1 {
                    Reason::NoAnswer
                } else if passes(model, week, &item.task, *strength) {
                    Reason::Pass
                } else {
                    Reason::WrongAnswer
                };
                let unit = UnitResult {
                    run_id: run_id.clone(),
                    model: model.clone(),
                    task: item.task.clone(),
                    task_version: item.task_version,
                    sample_index: 0,
                    language: item.language,
                    category: item.category,
                    tier: item.tier,
                    raw_answer: (reason != Reason::NoAnswer)
                        .then(|| format!("```\n// answer of {model}\n```")),
                    extracted_code: (reason != Reason::NoAnswer)
                        .then(|| format!("// answer of {model}\n")),
                    verdict: verdict(item, reason),
                    generation_ms: 1,
                    execution_ms: 2,
                    usage: Some(serde_json::json!({"prompt_tokens": 100, "completion_tokens": 50})),
                    completed_at: "2026-11-30T12:00:00Z".into(),
                    quality: (reason == Reason::Pass && model != REFERENCE_MODEL)
                        .then(|| quality(i)),
                };
                store.insert_unit_result(&unit).await?;
                if let Some(q) = unit.quality {
                    checked.push((item.clone(), q));
                }
                outcomes.push(TaskOutcome {
                    task: item.task.clone(),
                    category: item.category,
                    tier: item.tier,
                    language: item.language,
                    sample_index: 0,
                    reason,
                    family: item.family.clone(),
                });
            }
            let grouped = ModelOutcomes::from_outcomes(model, &outcomes, config.infrastructure)?;
            let score = scorer.score(&manifest.seed, &grouped);
            let answered: Vec<TaskOutcome> = outcomes
                .iter()
                .filter(|o| o.reason != Reason::NoAnswer)
                .cloned()
                .collect();
            let answered_score = scorer.score(
                &manifest.seed,
                &ModelOutcomes::from_outcomes(model, &answered, config.infrastructure)?,
            );
            let drift = (model == "gamma" && w == 2).then(|| DriftSignals {
                previous_week: WEEKS[1].into(),
                previous_run_id: format!("{}-fixture0001", WEEKS[1]),
                tasks_compared: TASKS as u32,
                both_pass: 5,
                both_fail: 20,
                now_failing: 10,
                now_passing: 5,
                p_value: 0.01,
                alpha: 0.05,
                answers_compared: 0,
                answers_changed: 0,
                answer_change_rate: 0.0,
                change_threshold: 0.5,
                flags: vec!["McNemar p = 0.010 < 0.05 on 40 tasks".into()],
                flipped_tasks: Vec::new(),
            });
            let record = ScoreRecord {
                format_version: RECORD_FORMAT_VERSION,
                model: model.clone(),
                week: week.to_string(),
                evaluated_at: "2026-11-30T12:00:00Z".into(),
                record_version: 0,
                run_id: run_id.clone(),
                seed: manifest.seed.clone(),
                pool_version: manifest.pool_version.clone(),
                overall: score.overall,
                by_category: score.by_category.clone(),
                by_tier: score.by_tier.clone(),
                by_language: score.by_language.clone(),
                compliance_rate: score.compliance_rate,
                coverage: score.coverage,
                reasons: score.reasons.clone(),
                pass_at_k: score.pass_at_k.clone(),
                provenance: Provenance {
                    passrate_version: "0.1.0".into(),
                    extractor_version: "1.1.0".into(),
                    limits: LimitsUsed {
                        cpu_ms: 2000,
                        wall_ms: 4000,
                        memory_mib: 256,
                        heap_mib: 30,
                        pids: 64,
                        workdir_mib: 16,
                        output_bytes: 1 << 20,
                    },
                    runtime_versions: BTreeMap::from([("python".into(), "3.11.2".into())]),
                },
                answered: Some(answered_score.overall),
                families: score.scored_families,
                drift,
                rotation: None,
                quality: passrate_score::quality_scores(
                    &mut scorer,
                    &manifest.seed,
                    model,
                    &checked
                        .iter()
                        .map(|(item, q)| QualityUnit {
                            task: &item.task,
                            family: &item.family,
                            language: item.language,
                            category: item.category,
                            tier: item.tier,
                            quality: q,
                        })
                        .collect::<Vec<_>>(),
                ),
            };
            store.append_score_record(&record).await?;
            // A correction: a second version of alpha's last week.
            if model == "alpha" && w == 2 {
                store
                    .append_score_record(&ScoreRecord {
                        evaluated_at: "2026-12-01T09:00:00Z".into(),
                        ..record
                    })
                    .await?;
            }
        }
        store.finish_run(&run_id).await?;
    }
    store.close().await;
    Ok(())
}

/// A server on a loopback port over the store at `location` (opened read-only, as `passrate
/// serve` does); stops when dropped.
pub struct Server {
    pub addr: SocketAddr,
    pub store: Store,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), passrate_server::ServerError>>>,
}

impl Server {
    pub async fn start(location: &str) -> anyhow::Result<Server> {
        let store = Store::open_existing(location).await?;
        let state = passrate_server::AppState::new(store.clone(), pool().clone());
        Server::serve(store, state).await
    }

    /// With the write endpoints on.
    pub async fn start_with_writes(
        location: &str,
        token: &str,
        models_file: &std::path::Path,
    ) -> anyhow::Result<Server> {
        let store = Store::open_existing(location).await?;
        let state = passrate_server::AppState::new(store.clone(), pool().clone())
            .with_writes(token, Some(models_file.to_path_buf()));
        Server::serve(store, state).await
    }

    async fn serve(store: Store, state: passrate_server::AppState) -> anyhow::Result<Server> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let router = passrate_server::router(state);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(passrate_server::serve(listener, router, async move {
            let _ = stopped.await;
        }));
        Ok(Server {
            addr,
            store,
            stop: Some(stop),
            task: Some(task),
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Stops the server and waits for it to finish.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await??;
        }
        self.store.close().await;
        Ok(())
    }
}

pub fn client() -> reqwest::Client {
    static INSTALL: OnceLock<()> = OnceLock::new();
    INSTALL.get_or_init(|| {
        // reqwest is built without a TLS provider; the tests speak plain HTTP but the client
        // still wants one installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder().build().expect("a client builds")
}
