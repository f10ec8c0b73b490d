//! The pool's reference models and the store-backed answer cache, without a sandbox.

use std::collections::BTreeMap;

use passrate_engine::{AnswerSource, StoreCache};
use passrate_models::{
    ANSWER_FORMAT_VERSION, Answer, AnswerCache, CacheKey, CacheMode, NoCache, Outcome, Usage,
};
use passrate_schema::{
    Category, IntakeFactors, Language, Signature, Source, TASK_FORMAT_VERSION, Task, Tier, Variant,
};

fn task(category: Category, faulty: &[&str]) -> Task {
    let variant = Variant {
        prompt: "def f(x):\n".into(),
        entry_point: "f".into(),
        class_name: None,
        signature: Signature {
            params: vec![],
            returns: None,
        },
        reference_solution: "def f(x):\n    return x\n".into(),
        given_code: None,
        faulty_variants: faulty.iter().map(|s| s.to_string()).collect(),
        preamble: None,
    };
    Task {
        format_version: TASK_FORMAT_VERSION,
        id: "t/1".into(),
        version: 1,
        category,
        tier: Tier::One,
        factors: IntakeFactors {
            conditions: 1,
            solution_space: 1,
            edge_cases: 0,
        },
        source: Source {
            dataset: "test".into(),
            upstream_id: "1".into(),
            license: "MIT".into(),
        },
        variants: BTreeMap::from([(Language::Python, variant)]),
        tests: vec![],
        comparator: Default::default(),
        category_data: Default::default(),
        limits: Default::default(),
        calibration: Default::default(),
    }
}

#[tokio::test]
async fn reference_models_answer_from_the_pool() {
    let bug = task(
        Category::BugFixing,
        &["def f(x):\n    return -x\n", "def f(x):\n    return 0\n"],
    );
    let plain = task(Category::FunctionCompletion, &[]);
    let reference = AnswerSource::reference();
    let buggy = AnswerSource::known_buggy();
    let mode = CacheMode::Use;

    let a = reference
        .answer(&bug, Language::Python, 0, &NoCache, mode)
        .await
        .unwrap();
    assert_eq!(a.text.as_deref(), Some("def f(x):\n    return x\n"));
    let b = buggy
        .answer(&bug, Language::Python, 0, &NoCache, mode)
        .await
        .unwrap();
    assert_eq!(
        b.text.as_deref(),
        Some("def f(x):\n    return -x\n"),
        "the first faulty variant"
    );
    let c = buggy
        .answer(&plain, Language::Python, 0, &NoCache, mode)
        .await
        .unwrap();
    assert_eq!(c.text, None, "no faulty variant: no answer");
    assert!(c.no_answer_detail.is_some());
    let d = reference
        .answer(&plain, Language::Java, 0, &NoCache, mode)
        .await
        .unwrap();
    assert_eq!(d.text, None, "no variant in that language: no answer");
    assert_ne!(reference.identity(), buggy.identity());
    // Unit-test writing: an answer is a suite; known-buggy's asserts nothing.
    let tests = task(Category::UnitTestWriting, &["def f(x):\n    return -x\n"]);
    let e = buggy
        .answer(&tests, Language::Python, 0, &NoCache, mode)
        .await
        .unwrap();
    assert_eq!(
        e.text.as_deref(),
        Some(passrate_grade::unittest::trivial_suite(Language::Python))
    );
}

fn answer(text: &str) -> Answer {
    Answer {
        format_version: ANSWER_FORMAT_VERSION,
        model: "m".into(),
        task: "t/1".into(),
        task_version: 1,
        language: Language::Python,
        sample_index: 0,
        prompt_hash: "p".into(),
        cache_key: "k".into(),
        outcome: Outcome::Answered { text: text.into() },
        finish_reason: None,
        usage: Usage::default(),
        latency_ms: 3,
        attempts: 1,
        cost_usd: None,
        raw: None,
    }
}

#[tokio::test]
async fn the_store_cache_keeps_and_replaces_answers_within_its_run_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = passrate_store::Store::open_data_dir(dir.path())
        .await
        .unwrap();
    let cache = StoreCache::new(store.clone(), "2026-W51-aaa", None);
    let key = CacheKey::from_hex("ab".repeat(32));
    assert_eq!(cache.get(&key).await.unwrap(), None);
    cache.put(&key, &answer("first")).await.unwrap();
    assert_eq!(cache.get(&key).await.unwrap(), Some(answer("first")));
    // `put` is the refresh path: the newer answer replaces the cached one.
    cache.put(&key, &answer("second")).await.unwrap();
    assert_eq!(cache.get(&key).await.unwrap(), Some(answer("second")));
    store.close().await;
    // Persisted: a new handle on the same directory sees it.
    let store = passrate_store::Store::open_data_dir(dir.path())
        .await
        .unwrap();
    let cache = StoreCache::new(store.clone(), "2026-W51-aaa", None);
    assert_eq!(cache.get(&key).await.unwrap(), Some(answer("second")));

    // Another run (next week's) does not see it: every run asks afresh ...
    let next_week = StoreCache::new(store.clone(), "2026-W52-bbb", None);
    assert_eq!(next_week.get(&key).await.unwrap(), None);
    // ... unless it names the run whose answers it reuses; it reads them, writes its own.
    let reusing = StoreCache::new(store.clone(), "2026-W52-ccc", Some("2026-W51-aaa".into()));
    assert_eq!(reusing.get(&key).await.unwrap(), Some(answer("second")));
    reusing.put(&key, &answer("third")).await.unwrap();
    assert_eq!(reusing.get(&key).await.unwrap(), Some(answer("third")));
    assert_eq!(cache.get(&key).await.unwrap(), Some(answer("second")));
}
