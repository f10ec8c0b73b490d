//! HumanEvalPack's canonical and buggy solutions through the real sandbox, in Python,
//! JavaScript and Java, taken from the bundled pool: every bug-fixing task of
//! `pool/tasks/humanevalfix.jsonl.gz` carries, per language, HumanEvalPack's canonical
//! solution (`reference_solution`), its buggy solution (`faulty_variants`) and the inputs intake
//! recorded. From those inputs each task is built the intake way again: Python records the
//! calls a HumanEval-style `check(candidate)` makes on the canonical solution (`record_calls`;
//! the recorded arguments and values must be the pool's), JavaScript and Java get their
//! expected values from their own canonical solution (`run_calls`). Then every canonical
//! solution must pass and every buggy solution must fail.
//!
//! Nothing beside the repository is read. Java (a cold javac per execution) runs every tenth
//! task unless `PASSRATE_FULL_HUMANEVALPACK=1`. The same checks over the whole upstream
//! dataset (164 problems, its own check code) are `passrate bench runner`; the pool itself is
//! rebuilt from HumanEvalPack by `crates/passrate-pool/tests/generate_pool.rs`.

mod common;

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{runner, task, variant};
use passrate_runner::RecordedCall;
use passrate_runner::humaneval::tests_from;
use passrate_schema::{Expected, Language, Reason, Task, TestForm, Value};

/// The pool's HumanEvalFix tasks (decompressed with `gzip`: this crate has no gzip reader).
fn pool_tasks() -> Vec<Task> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pool/tasks/humanevalfix.jsonl.gz");
    let output = Command::new("gzip")
        .arg("-dc")
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("gzip -dc {}: {e}", path.display()));
    assert!(
        output.status.success(),
        "gzip -dc {}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a pool task"))
        .collect()
}

/// The tasks with a `language` variant, checking the pool still has about as many as today
/// (Python 163, JavaScript 117, Java 95), each with a buggy variant.
fn tasks_in(language: Language, at_least: usize) -> Vec<Task> {
    let tasks: Vec<Task> = pool_tasks()
        .into_iter()
        .filter(|t| t.variants.contains_key(&language))
        .collect();
    assert!(
        tasks.len() >= at_least,
        "{} HumanEvalFix tasks in {language}, expected at least {at_least}",
        tasks.len()
    );
    for t in &tasks {
        assert!(
            !t.variants[&language].faulty_variants.is_empty(),
            "{} {language}: no buggy variant",
            t.id
        );
    }
    tasks
}

/// The pool's call tests that apply to `language`: (arguments, expected value).
fn pool_calls(t: &Task, language: Language) -> Vec<(Vec<Value>, Expected)> {
    t.tests
        .iter()
        .filter(|c| c.languages.is_empty() || c.languages.contains(&language))
        .map(|c| match &c.form {
            TestForm::Call { args, expected } => (args.clone(), expected.clone()),
            other => panic!("{}: not a call test: {other:?}", t.id),
        })
        .collect()
}

/// `value` as a Python literal.
fn python_literal(value: &Value) -> String {
    let items = |vs: &[Value]| vs.iter().map(python_literal).collect::<Vec<_>>().join(", ");
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_nan() => "float('nan')".to_owned(),
        Value::Float(f) if f.is_infinite() => {
            format!("{}float('inf')", if *f < 0.0 { "-" } else { "" })
        }
        Value::Float(f) => format!("{f:?}"),
        // A JSON string is a valid Python string literal.
        Value::Str(s) => serde_json::to_string(s).expect("a string serialises"),
        Value::List(vs) => format!("[{}]", items(vs)),
        Value::Tuple(vs) if vs.len() == 1 => format!("({},)", items(vs)),
        Value::Tuple(vs) => format!("({})", items(vs)),
        Value::Set(vs) if vs.is_empty() => "set()".to_owned(),
        Value::Set(vs) => format!("{{{}}}", items(vs)),
        Value::Map(kvs) => {
            let kvs: Vec<String> = kvs
                .iter()
                .map(|(k, v)| format!("{}: {}", python_literal(k), python_literal(v)))
                .collect();
            format!("{{{}}}", kvs.join(", "))
        }
        Value::Opaque(s) => panic!("an opaque value in a pool test: {s}"),
    }
}

/// HumanEval-style check code making `calls` on `candidate`.
fn python_check(calls: &[(Vec<Value>, Expected)]) -> String {
    let mut code = String::from("def check(candidate):\n    pass\n");
    for (args, _) in calls {
        let args: Vec<String> = args.iter().map(python_literal).collect();
        code.push_str(&format!("    candidate({})\n", args.join(", ")));
    }
    code
}

/// Runs `work` over `0..n` on a few threads (the sandbox bounds real concurrency).
fn parallel(n: usize, work: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= n {
                        break;
                    }
                    work(i);
                }
            });
        }
    });
}

/// Judges the canonical solution and every buggy one of one built task; returns problems.
fn judge(t: &Task, language: Language, canonical: &str, buggy: &[String]) -> Vec<String> {
    let r = runner();
    let mut problems = Vec::new();
    match r.evaluate(t, language, canonical) {
        Ok(v) if v.passed() => {}
        Ok(v) => problems.push(format!("{} canonical: {} {:?}", t.id, v.reason, v.detail)),
        Err(e) => problems.push(format!("{} canonical: error {e}", t.id)),
    }
    for (k, code) in buggy.iter().enumerate() {
        match r.evaluate(t, language, code) {
            Ok(v) if !v.passed() && v.reason != Reason::SandboxError => {}
            Ok(v) => problems.push(format!("{} buggy #{k}: {}", t.id, v.reason)),
            Err(e) => problems.push(format!("{} buggy #{k}: error {e}", t.id)),
        }
    }
    problems
}

/// Records the calls of one pool task in `language` on its canonical solution (Python through
/// check code, the others on the inputs), builds a task from them and judges it.
fn record_and_judge(pool_task: &Task, language: Language) -> Vec<String> {
    let id = &pool_task.id;
    let v = &pool_task.variants[&language];
    let canonical = &v.reference_solution;
    let class_name = v.class_name.as_deref();
    let calls = pool_calls(pool_task, language);
    if calls.is_empty() {
        return vec![format!("{id} {language}: no call test")];
    }
    let recorded = if language == Language::Python {
        let recorded =
            match runner().record_calls(language, canonical, &v.entry_point, &python_check(&calls))
            {
                Ok(r) => r,
                Err(e) => return vec![format!("{id}: recording failed: {e}")],
            };
        let as_pool: Vec<(Vec<Value>, Expected)> = recorded
            .iter()
            .map(|c| {
                let expected = match &c.outcome {
                    Ok(v) => Expected::Returns(v.clone()),
                    Err(e) => Expected::Raises(e.kind.clone()),
                };
                (c.args.clone(), expected)
            })
            .collect();
        // The same calls, with the same results under the task's comparator: a bug-fixing
        // task's hidden tests carry its HumanEval task's expected values, which EvalPlus's
        // reference computed (floats may differ in the last digit, within the tolerance).
        let same = as_pool.len() == calls.len()
            && as_pool.iter().zip(&calls).all(|((a, x), (b, y))| {
                a == b
                    && match (x, y) {
                        (Expected::Returns(x), Expected::Returns(y)) => {
                            passrate_runner::compare::matches(y, x, &pool_task.comparator)
                        }
                        (x, y) => x == y,
                    }
            });
        if !same {
            return vec![format!(
                "{id}: recorded {as_pool:?}\n  but the pool holds {calls:?}"
            )];
        }
        recorded
    } else {
        let inputs: Vec<Vec<Value>> = calls.into_iter().map(|(args, _)| args).collect();
        let outcomes =
            match runner().run_calls(language, canonical, &v.entry_point, class_name, &inputs) {
                Ok(o) => o,
                Err(e) => return vec![format!("{id} {language}: run_calls failed: {e}")],
            };
        // Inputs a Java signature cannot take are not tests (intake drops them too).
        inputs
            .into_iter()
            .zip(outcomes)
            .filter(|(_, o)| !matches!(o, Err(e) if e.kind == "ArgumentDecodeError"))
            .map(|(args, outcome)| RecordedCall { args, outcome })
            .collect()
    };
    if recorded.is_empty() {
        return vec![format!("{id} {language}: no input decodes")];
    }
    let built = task(
        id,
        vec![(language, variant(&v.entry_point, class_name, canonical))],
        tests_from(&recorded),
    );
    judge(&built, language, canonical, &v.faulty_variants)
}

fn check_language(language: Language, at_least: usize, sample: bool) {
    let tasks = tasks_in(language, at_least);
    let full = std::env::var("PASSRATE_FULL_HUMANEVALPACK").is_ok_and(|v| v == "1");
    let picked: Vec<&Task> = tasks
        .iter()
        .enumerate()
        .filter(|(k, _)| full || !sample || k % 10 == 3)
        .map(|(_, t)| t)
        .collect();
    let problems = Mutex::new(Vec::new());
    parallel(picked.len(), |k| {
        let found = record_and_judge(picked[k], language);
        problems.lock().unwrap().extend(found);
    });
    let problems = problems.into_inner().unwrap();
    assert!(
        problems.is_empty(),
        "{} problems in {language} ({} tasks):\n{}",
        problems.len(),
        picked.len(),
        problems.join("\n")
    );
}

#[test]
fn python_canonical_pass_and_buggy_fail() {
    check_language(Language::Python, 160, false);
}

#[test]
fn javascript_canonical_pass_and_buggy_fail() {
    check_language(Language::Javascript, 110, false);
}

#[test]
fn java_canonical_pass_and_buggy_fail() {
    check_language(Language::Java, 90, true);
}
