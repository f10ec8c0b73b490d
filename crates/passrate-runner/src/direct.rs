//! Test-only executor: runs an [`ExecRequest`] as plain processes (fd 3 and fd 4 wired by the
//! shell) to test the harnesses' encoders and the host logic without the sandbox. It enforces
//! nothing and is compiled only into this crate's unit tests; production code executes only
//! through `passrate_sandbox::Sandbox`.

use std::process::Command;
use std::time::Instant;

use passrate_sandbox::{ExecOutcome, ExecRequest, ExecStatus, Program, SandboxError};

fn argv(p: &Program) -> Vec<String> {
    let mut v: Vec<String> = match p {
        Program::Python { script, args } => {
            let mut v = vec![
                "/usr/bin/python3".into(),
                "-I".into(),
                "-B".into(),
                script.clone(),
            ];
            v.extend(args.iter().cloned());
            v
        }
        Program::Node { script, args } => {
            let mut v = vec!["/usr/bin/node".into(), script.clone()];
            v.extend(args.iter().cloned());
            v
        }
        Program::Javac { sources, archive } => {
            assert!(!archive, "direct runs have no class-data archive");
            let mut v = vec![
                "/usr/bin/javac".into(),
                "-proc:none".into(),
                "-d".into(),
                ".".into(),
            ];
            v.extend(sources.iter().cloned());
            v
        }
        Program::Java { main_class, args } => {
            let mut v = vec![
                "/usr/bin/java".into(),
                "-cp".into(),
                ".".into(),
                main_class.clone(),
            ];
            v.extend(args.iter().cloned());
            v
        }
        Program::Exec { path, args } => {
            let mut v = vec![path.clone()];
            v.extend(args.iter().cloned());
            v
        }
    };
    // Wall-clock stand-in for the CPU limit.
    let mut wrapped = vec![
        "/usr/bin/timeout".into(),
        "-s".into(),
        "KILL".into(),
        "20".into(),
    ];
    wrapped.append(&mut v);
    wrapped
}

pub(crate) fn run(req: &ExecRequest) -> Result<ExecOutcome, SandboxError> {
    let work = tempfile::tempdir().map_err(|e| SandboxError::Internal(e.to_string()))?;
    let side = tempfile::tempdir().map_err(|e| SandboxError::Internal(e.to_string()))?;
    for f in &req.files {
        fs_err::write(work.path().join(&f.path), &f.contents)
            .map_err(|e| SandboxError::Internal(e.to_string()))?;
    }
    let chan_in = side.path().join("in");
    let chan_out = side.path().join("out");
    fs_err::write(&chan_in, &req.channel_input)
        .map_err(|e| SandboxError::Internal(e.to_string()))?;
    fs_err::write(&chan_out, b"").map_err(|e| SandboxError::Internal(e.to_string()))?;
    let start = Instant::now();
    let mut outcome = ExecOutcome {
        status: ExecStatus::Ok,
        step: 0,
        exit_code: Some(0),
        signal: None,
        cpu_us: 0,
        wall_us: 0,
        peak_memory_bytes: None,
        stdout: Vec::new(),
        stderr: Vec::new(),
        channel_output: Vec::new(),
        truncated: false,
    };
    for (i, step) in req.steps.iter().enumerate() {
        let args = argv(step);
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg(r#"exec "$@" 3<"$CHAN_IN" 4>"$CHAN_OUT" </dev/null"#)
            .arg("sh")
            .args(&args)
            .env("CHAN_IN", &chan_in)
            .env("CHAN_OUT", &chan_out)
            .current_dir(work.path())
            .output()
            .map_err(|e| SandboxError::Internal(e.to_string()))?;
        outcome.step = i;
        outcome.stdout = out.stdout;
        outcome.stderr = out.stderr;
        outcome.exit_code = out.status.code();
        if !out.status.success() {
            outcome.status = if out.status.code() == Some(137) {
                ExecStatus::Timeout
            } else {
                ExecStatus::RuntimeError
            };
            break;
        }
    }
    outcome.wall_us = start.elapsed().as_micros() as u64;
    outcome.channel_output =
        fs_err::read(&chan_out).map_err(|e| SandboxError::Internal(e.to_string()))?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use passrate_schema::{Integer, Language, Value};

    use super::run;
    use crate::{Core, RunnerOptions};

    fn identity(
        language: Language,
        code: &str,
        class: Option<&str>,
        values: &[Value],
    ) -> Vec<Value> {
        let options = RunnerOptions::default();
        let runtimes = Mutex::new(BTreeMap::new());
        let core = Core {
            options: &options,
            exec: run,
            runtimes: &runtimes,
            java_harness: &std::sync::OnceLock::new(),
            python_harness: &std::sync::OnceLock::new(),
        };
        let calls: Vec<Vec<Value>> = values.iter().map(|v| vec![v.clone()]).collect();
        core.run_calls(language, code, "ident", class, &calls)
            .expect("runs")
            .into_iter()
            .map(|r| r.expect("no exception"))
            .collect()
    }

    fn samples() -> Vec<Value> {
        let big = Value::Int(Integer::parse("-123456789012345678901234567890").unwrap());
        vec![
            Value::Null,
            Value::Bool(true),
            Value::int(-7),
            big,
            Value::Float(0.1),
            Value::Float(-2.5e-300),
            Value::Float(f64::INFINITY),
            Value::str("é\u{2028}\"\\\n\u{1F600}"),
            Value::List(vec![Value::int(1), Value::List(vec![])]),
        ]
    }

    #[test]
    fn python_encoder_round_trips_every_kind() {
        let mut values = samples();
        values.push(Value::Tuple(vec![Value::int(1), Value::str("a")]));
        values.push(Value::Set(vec![Value::int(3)]));
        values.push(Value::Map(vec![(
            Value::Tuple(vec![Value::int(1)]),
            Value::Null,
        )]));
        let got = identity(
            Language::Python,
            "def ident(x):\n    return x\n",
            None,
            &values,
        );
        assert_eq!(got, values);
    }

    #[test]
    fn the_python_harness_runs_as_bytecode_compiled_once() {
        let options = RunnerOptions::default();
        let runtimes = Mutex::new(BTreeMap::new());
        let pyc = std::sync::OnceLock::new();
        let core = Core {
            options: &options,
            exec: run,
            runtimes: &runtimes,
            java_harness: &std::sync::OnceLock::new(),
            python_harness: &pyc,
        };
        let calls = vec![vec![Value::int(41)]];
        let got = core
            .run_calls(
                Language::Python,
                "def inc(x):\n    return x + 1\n",
                "inc",
                None,
                &calls,
            )
            .expect("runs");
        assert_eq!(got, vec![Ok(Value::int(42))]);
        let bytes = pyc.get().expect("built").as_deref().expect("compiled");
        assert_eq!(&bytes[2..4], b"\r\n");
        let layout = core.layout(Language::Python, "x = 1\n", None, None);
        assert!(
            layout
                .files
                .iter()
                .any(|f| f.path.ends_with(".pyc") && f.contents == bytes)
        );
    }

    #[test]
    fn node_encoder_round_trips_its_kinds() {
        let mut values = samples();
        values.remove(3); // JavaScript numbers cannot hold the big int exactly.
        values.push(Value::Map(vec![(Value::str("k"), Value::int(2))]));
        let got = identity(
            Language::Javascript,
            "const ident = (x) => x;\n",
            None,
            &values,
        );
        assert_eq!(got, values);
    }

    #[test]
    fn java_decodes_into_declared_types_and_encodes_back() {
        let code = "import java.util.*;\nclass Solution {\n  public static Map<String, List<Integer>> ident(Map<String, List<Integer>> m) { return m; }\n}\n";
        let v = Value::Map(vec![(
            Value::str("a"),
            Value::List(vec![Value::int(1), Value::int(2)]),
        )]);
        assert_eq!(
            identity(
                Language::Java,
                code,
                Some("Solution"),
                std::slice::from_ref(&v)
            ),
            vec![v]
        );
    }

    #[test]
    fn deep_nesting_becomes_opaque_not_a_protocol_violation() {
        for (language, code) in [
            (
                Language::Python,
                "def ident(x):\n    v = None\n    for _ in range(500):\n        v = {(): [v]}\n    return v\n",
            ),
            (
                Language::Javascript,
                "const ident = (x) => { let v = null; for (let i = 0; i < 500; i++) v = new Map([[1, [v]]]); return v; };\n",
            ),
        ] {
            let got = identity(language, code, None, &[Value::Null]);
            let text = got[0].to_json().to_string();
            assert!(text.contains("too deep"), "{language}");
            let depth = text.matches("map").count();
            assert!(depth < 30, "{depth}");
        }
    }
}
