//! `passrate schema` prints what the schema crate generates, on stdout, as JSON.

use std::process::Command;

fn passrate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_passrate"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn lists_names_and_prints_each_schema() {
    let out = passrate(&["schema"]);
    assert!(out.status.success());
    let names: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(names, passrate_schema::SCHEMA_NAMES);
    for name in &names {
        let out = passrate(&["schema", name]);
        assert!(out.status.success(), "{name}");
        let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            printed,
            passrate_schema::json_schema(name).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn unknown_name_is_a_usage_error_naming_the_choices() {
    let out = passrate(&["schema", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("score-record"), "{stderr}");
    assert!(out.stdout.is_empty());
}
