//! The committed JSON Schemas in `schemas/` are exactly what the types generate: a change to
//! a persisted type shows up in review as a schema diff. Regenerate with
//! `PASSRATE_BLESS=1 cargo nextest run -p passrate-schema --test schemas`.

use std::path::PathBuf;

use passrate_schema::{SCHEMA_NAMES, json_schema};

fn committed(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("schemas")
        .join(format!("{name}.schema.json"))
}

#[test]
fn committed_schemas_match_the_types() {
    let bless = std::env::var_os("PASSRATE_BLESS").is_some();
    let mut stale = Vec::new();
    for name in SCHEMA_NAMES {
        let generated = serde_json::to_string_pretty(&json_schema(name).unwrap()).unwrap() + "\n";
        let path = committed(name);
        if bless {
            fs_err::write(&path, &generated).unwrap();
            continue;
        }
        match fs_err::read_to_string(&path) {
            Ok(text) if text == generated => {}
            _ => stale.push(path.display().to_string()),
        }
    }
    assert!(
        stale.is_empty(),
        "schemas out of date (rerun with PASSRATE_BLESS=1): {stale:?}"
    );
}

#[test]
fn every_schema_name_resolves_and_unknown_names_do_not() {
    for name in SCHEMA_NAMES {
        let schema = json_schema(name).unwrap();
        assert!(schema.get("$schema").is_some(), "{name}");
        assert!(
            schema.get("properties").is_some() || schema.get("oneOf").is_some(),
            "{name}"
        );
    }
    assert!(json_schema("nope").is_none());
}

/// A schema validates the shape, so a task serialised by the code has every required
/// property the schema lists.
#[test]
fn task_schema_requires_what_tasks_always_carry() {
    let schema = json_schema("task").unwrap();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for field in ["id", "category", "tier", "variants", "tests"] {
        assert!(
            required.contains(&field),
            "{field} not required: {required:?}"
        );
    }
}
