//! Shared fixtures for the integration tests: a task and models built from TOML text.
#![allow(dead_code)]

use std::path::Path;

use passrate_models::{Model, ModelsConfig};
use passrate_schema::{
    Category, IntakeFactors, Language, Signature, Source, TASK_FORMAT_VERSION, Task, Tier, Variant,
};

pub fn task(id: &str) -> Task {
    let variant = |prompt: &str| Variant {
        prompt: prompt.into(),
        entry_point: "add".into(),
        class_name: None,
        signature: Signature {
            params: vec![],
            returns: None,
        },
        reference_solution: "def add(a, b):\n    return a + b\n".into(),
        given_code: None,
        faulty_variants: vec![],
        preamble: None,
    };
    Task {
        format_version: TASK_FORMAT_VERSION,
        id: id.into(),
        version: 1,
        category: Category::FunctionCompletion,
        tier: Tier::One,
        factors: IntakeFactors {
            conditions: 1,
            solution_space: 1,
            edge_cases: 0,
        },
        source: Source {
            dataset: "test".into(),
            upstream_id: id.into(),
            license: "MIT".into(),
        },
        variants: [
            (
                Language::Python,
                variant("def add(a, b):\n    \"\"\"Add two numbers.\"\"\"\n"),
            ),
            (
                Language::Java,
                variant("class Main { static int add(int a, int b) {"),
            ),
        ]
        .into_iter()
        .collect(),
        tests: vec![],
        comparator: Default::default(),
        category_data: Default::default(),
        limits: Default::default(),
        calibration: Default::default(),
    }
}

/// One model from a `[[model]]` body (id `m`), with `TEST_KEY=secret` in its environment.
pub fn model(body: &str) -> Model {
    let text = format!("[[model]]\nid = \"m\"\n{body}\n");
    let config = ModelsConfig::parse(&text, "models.toml", Path::new("/")).unwrap();
    Model::build_all(&config, &|name| {
        (name == "TEST_KEY").then(|| "secret".to_string())
    })
    .unwrap()
    .remove(0)
}

/// An OpenAI model at `base` (a server URI) with fast retries.
pub fn openai(base: &str, extra: &str) -> Model {
    model(&format!(
        "adapter = \"openai\"\nendpoint = \"{base}/v1\"\nmodel = \"gpt-test\"\napi_key_env = \"TEST_KEY\"\nretry_base_s = 0.01\nretry_max_s = 0.05\n{extra}"
    ))
}
