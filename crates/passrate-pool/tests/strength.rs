//! Suite strength by mutation (`passrate_pool::strength`), with a scripted executor standing
//! in for the sandboxed runner: which mutants count as killed, survived or stillborn, and how
//! the faulty variants are reported. `crates/passrate/tests/pool_strength.rs` runs the real
//! command on bundled tasks.

use std::collections::BTreeMap;

use passrate_pool::strength::measure;
use passrate_pool::{ExecError, Executor, RecordedCall};
use passrate_schema::{
    Category, CategoryData, Comparator, ErrorInfo, Expected, Language, Reason, Signature, Source,
    Task, TestCase, TestForm, Value, Variant, Verdict, Visibility,
};

const REFERENCE: &str = "def f(x):\n    if x < 3:\n        return x + 1\n    return 0\n";

/// Passes the reference and the `<=` mutant (the tests never try x = 3); the negated
/// condition "does not compile"; everything else fails its tests.
struct Scripted;

impl Executor for Scripted {
    fn record_calls(
        &self,
        _: Language,
        _: &str,
        _: &str,
        _: &str,
    ) -> Result<Vec<RecordedCall>, ExecError> {
        unreachable!("measuring records nothing")
    }

    fn run_calls(
        &self,
        _: Language,
        _: &str,
        _: &str,
        _: Option<&str>,
        _: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, ExecError> {
        unreachable!("measuring runs answers, not calls")
    }

    fn evaluate(&self, task: &Task, language: Language, code: &str) -> Result<Verdict, ExecError> {
        let reason = if code == REFERENCE || code.contains("x <= 3") {
            Reason::Pass
        } else if code.contains("not (") {
            Reason::CompileError
        } else {
            Reason::WrongAnswer
        };
        let total = task.tests_for(language).count();
        Ok(Verdict {
            task: task.id.clone(),
            language,
            reason,
            tests_passed: if reason == Reason::Pass { total } else { 0 },
            tests_total: total,
            cpu_ms: 1,
            cpu_us: None,
            wall_ms: 1,
            peak_memory_bytes: None,
            tests: Vec::new(),
            detail: None,
            grader: None,
        })
    }
}

fn task(faulty: Vec<String>) -> Task {
    let test = |n: i64, visibility| TestCase {
        visibility,
        form: TestForm::Call {
            args: vec![Value::int(n)],
            expected: Expected::Returns(Value::int(if n < 3 { n + 1 } else { 0 })),
        },
        comparator: None,
        languages: vec![],
    };
    Task {
        format_version: passrate_schema::TASK_FORMAT_VERSION,
        id: "fixture/f".into(),
        version: 1,
        category: Category::BugFixing,
        tier: passrate_schema::Tier::One,
        factors: passrate_schema::IntakeFactors {
            conditions: 1,
            solution_space: 1,
            edge_cases: 0,
        },
        source: Source {
            dataset: "fixture".into(),
            upstream_id: "f".into(),
            license: "MIT".into(),
        },
        variants: BTreeMap::from([(
            Language::Python,
            Variant {
                prompt: "def f(x):\n".into(),
                entry_point: "f".into(),
                class_name: None,
                signature: Signature {
                    params: vec![],
                    returns: None,
                },
                reference_solution: REFERENCE.into(),
                given_code: None,
                faulty_variants: faulty,
                preamble: None,
            },
        )]),
        tests: vec![
            test(0, Visibility::Public),
            test(5, Visibility::Public),
            test(-2, Visibility::Hidden),
        ],
        comparator: Comparator::default(),
        category_data: CategoryData::default(),
        limits: Default::default(),
        calibration: Default::default(),
    }
}

#[test]
fn survivors_are_named_and_stillborn_mutants_do_not_count() {
    let faulty = vec![
        "def f(x):\n    return x + 1\n".to_string(),
        "def f(x):\n    if x <= 3:\n        return x + 1\n    return 0\n".to_string(),
    ];
    let s = measure(&Scripted, &task(faulty), Language::Python, 100).unwrap();
    assert!(s.mutants >= 5, "{s:?}");
    assert_eq!(s.stillborn, 1, "the negated condition: {s:?}");
    assert_eq!(s.survivors, ["line 2: `<` → `<=`"]);
    assert_eq!(s.killed, s.mutants - 2);
    assert_eq!(s.score(), Some(s.killed as f64 / (s.mutants - 1) as f64));
    assert_eq!(s.tests, 3);
    // The second faulty variant is the survivor's fault: the tests miss it too.
    assert_eq!((s.faulty_killed, s.faulty), (1, 2));
}

#[test]
fn a_reference_with_nothing_to_mutate_has_no_score() {
    let mut t = task(vec![]);
    t.variants
        .get_mut(&Language::Python)
        .unwrap()
        .reference_solution = "def f(x):\n    return x\n".into();
    let s = measure(&Scripted, &t, Language::Python, 10).unwrap();
    assert_eq!(s.mutants, 0);
    assert_eq!(s.score(), None);
}
