//! Replay files that cannot be loaded (issue 23, bad input): invalid UTF-8, a truncated
//! `.gz` and a missing file are reported at a line, and the error says which line of
//! `models.toml` names the file.

use std::io::Write;
use std::path::{Path, PathBuf};

use passrate_models::{ConfigError, ModelsConfig, adapter, process_env};

/// A `models.toml` in `dir` whose second model replays `file`, loaded and built.
fn load_replay(dir: &Path, file: &str) -> (PathBuf, ConfigError) {
    let config = dir.join("models.toml");
    fs_err::write(
        &config,
        format!(
            "[[model]]\nid = \"other\"\nadapter = \"command\"\ncommand = [\"true\"]\n\n[[model]]\nid = \"replayed\"\nadapter = \"replay\"\nfile = \"{file}\"\n"
        ),
    )
    .expect("writable");
    let models = ModelsConfig::load(&config).expect("a valid models.toml");
    let replayed = models.get("replayed").expect("the replay model");
    let Err(err) = adapter::from_config(replayed, &process_env) else {
        panic!("{file} loaded");
    };
    (config, err)
}

/// The replay's own error inside the `models.toml` one, after checking the latter.
fn inner(config: &Path, err: ConfigError, file: &str) -> ConfigError {
    let text = err.to_string();
    assert!(
        text.starts_with(&format!("{}:9:8: model `replayed`", config.display())),
        "{text}"
    );
    assert!(text.contains(file), "{text}");
    match err {
        ConfigError::ReplayFile { source, .. } => *source,
        other => panic!("expected a replay file error, got {other}"),
    }
}

#[test]
fn a_missing_replay_file_names_the_models_toml_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (config, err) = load_replay(dir.path(), "gone.jsonl");
    match inner(&config, err, "gone.jsonl") {
        ConfigError::Read { path, source } => {
            assert_eq!(path, dir.path().join("gone.jsonl"));
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected a read error, got {other}"),
    }
}

#[test]
fn invalid_utf8_in_a_replay_is_reported_by_line_and_column() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut bytes =
        b"{\"task\": \"a\", \"text\": \"x\"}\n{\"task\": \"b\", \"text\": \"\xc3\xa9".to_vec();
    bytes.extend_from_slice(b"\xff\"}\n");
    fs_err::write(dir.path().join("bad.jsonl"), &bytes).expect("writable");
    let (config, err) = load_replay(dir.path(), "bad.jsonl");
    let err = inner(&config, err, "bad.jsonl");
    let text = err.to_string();
    assert!(matches!(err, ConfigError::ReplayDecode { .. }), "{text}");
    // Line 2; the bad byte follows 24 characters on its line (`é` is one character, two bytes).
    assert!(text.contains("bad.jsonl:2:25: "), "{text}");
    assert!(text.contains("invalid UTF-8"), "{text}");
}

#[test]
fn invalid_utf8_in_a_gzipped_replay_is_reported_by_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let text = b"{\"task\": \"a\", \"text\": \"x\"}\n{\"task\": \"b\", \"text\": \"x\"}\n{\"task\": \"c\", \"text\": \"\xfe\"}\n";
    fs_err::write(dir.path().join("bad.jsonl.gz"), gzip(text)).expect("writable");
    let (config, err) = load_replay(dir.path(), "bad.jsonl.gz");
    let text = inner(&config, err, "bad.jsonl.gz").to_string();
    assert!(text.contains("bad.jsonl.gz:3:24: "), "{text}");
    assert!(text.contains("invalid UTF-8"), "{text}");
}

#[test]
fn a_truncated_gzipped_replay_names_the_line_reached() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let lines: String = (0..5_000)
        .map(|i| format!("{{\"task\": \"t/{i}\", \"text\": \"def f():\\n    return {i}\"}}\n"))
        .collect();
    let whole = gzip(lines.as_bytes());
    let cut = &whole[..whole.len() / 2];
    fs_err::write(dir.path().join("cut.jsonl.gz"), cut).expect("writable");
    let (config, err) = load_replay(dir.path(), "cut.jsonl.gz");
    let err = inner(&config, err, "cut.jsonl.gz");
    let ConfigError::ReplayDecode { location, message } = &err else {
        panic!("expected a decode error, got {err}");
    };
    let line = location.line.expect("the line reached");
    // Half the compressed bytes hold a good part of the lines, never all of them.
    assert!((100..5_000).contains(&line), "{err}");
    assert!(message.contains("truncated"), "{err}");
    assert!(
        err.to_string().contains(&format!("cut.jsonl.gz:{line}: ")),
        "{err}"
    );

    // The whole file loads: the error above is the truncation, not the content.
    fs_err::write(dir.path().join("cut.jsonl.gz"), &whole).expect("writable");
    let config = ModelsConfig::load(&config).expect("a valid models.toml");
    let replayed = config.get("replayed").expect("the replay model");
    assert!(adapter::from_config(replayed, &process_env).is_ok());
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).expect("in memory");
    gz.finish().expect("in memory")
}
