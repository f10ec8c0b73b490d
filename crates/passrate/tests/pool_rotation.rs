//! `passrate pool rotation` and `passrate sample` through the real binary on the bundled
//! pool: a week's rotation is computed, not stored (the regression: 285 of the 296 tasks
//! rotated in for 2026-W52 were 2026-W51's retirees), and the manifest carries the rotation
//! and the drift panel.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

fn repo_pool() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pool")
}

/// The binary on the bundled pool, with no other setting leaking in from the environment.
fn passrate(args: &[&str]) -> Json {
    let output = assert_cmd::Command::new(env!("CARGO_BIN_EXE_passrate"))
        .env_remove("PASSRATE_MODELS")
        .env_remove("PASSRATE_DATA_DIR")
        .env_remove("PASSRATE_DATABASE")
        .env("PASSRATE_POOL", repo_pool())
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&output).expect("stdout is one JSON document")
}

fn ids(value: &Json) -> BTreeSet<String> {
    value
        .as_array()
        .expect("a list of task ids")
        .iter()
        .map(|v| v.as_str().expect("a task id").to_owned())
        .collect()
}

#[test]
fn week_52_brings_back_none_of_week_51s_retirees() {
    let w51 = passrate(&["pool", "rotation", "--week", "2026-W51", "--json"]);
    let w52 = passrate(&["pool", "rotation", "--week", "2026-W52", "--json"]);
    assert_eq!(w52["week"], "2026-W52");
    assert_eq!(w52["rate"], 0.05);
    assert_eq!(w52["weeks_out"], 12);
    assert_eq!(w52["panel_tasks"], 100);
    let (went_out, came_in) = (ids(&w52["went_out"]), ids(&w52["came_in"]));
    assert!(!went_out.is_empty() && !came_in.is_empty());
    assert!(went_out.is_disjoint(&came_in));
    assert!(
        came_in.is_disjoint(&ids(&w51["went_out"])),
        "W52's newcomers include W51's retirees"
    );
    assert!(
        went_out.is_disjoint(&ids(&w51["came_in"])),
        "W52 retires tasks that came back in W51"
    );
    // The same week again: the same answer (nothing was stored the first time).
    assert_eq!(
        w52,
        passrate(&["pool", "rotation", "--week", "2026-W52", "--json"])
    );
}

#[test]
fn the_manifest_carries_the_rotation_and_a_disjoint_panel() {
    let m = passrate(&["sample", "--week", "2026-W52", "--json"]);
    let rotation = passrate(&["pool", "rotation", "--week", "2026-W52", "--json"]);
    for field in [
        "rate",
        "weeks_out",
        "active_tasks",
        "retired_tasks",
        "went_out",
        "came_in",
    ] {
        assert_eq!(m["rotation"][field], rotation[field], "{field}");
    }
    let items = m["items"].as_array().unwrap();
    let panel = m["panel"].as_array().unwrap();
    assert_eq!((items.len(), panel.len()), (400, 100));
    let sampled: BTreeSet<&str> = items.iter().map(|i| i["task"].as_str().unwrap()).collect();
    let on_panel: BTreeSet<&str> = panel.iter().map(|i| i["task"].as_str().unwrap()).collect();
    assert!(sampled.is_disjoint(&on_panel));
    assert!(panel.iter().all(|i| i["family"].is_string()));
    // The panel is the same in another week.
    let other = passrate(&["sample", "--week", "2026-W40", "--json"]);
    assert_eq!(other["panel"], m["panel"]);
    assert_ne!(other["items"], m["items"]);
}
