//! The recording/building stage and intake validation, with a scripted executor standing in
//! for the sandboxed runner (which has its own tests): the logic under test is how recorded
//! calls and per-language results become tests, which variants are kept, and what is
//! rejected.

use std::collections::BTreeMap;

use passrate_pool::cache::Cache;
use passrate_pool::import::build::build_task;
use passrate_pool::import::{RawTask, TestPlan};
use passrate_pool::{ExecError, Executor, RecordedCall, validate_task};
use passrate_schema::{
    Category, CategoryData, ErrorInfo, Expected, Language, Reason, Signature, Source, Task,
    TestForm, Value, Variant, Verdict, Visibility,
};

/// "Runs" `abs(x)`: Python returns ints; JavaScript returns floats (one number type);
/// Java's reference is wrong for negative inputs. Raises on strings.
struct Scripted;

fn abs(language: Language, args: &[Value]) -> Result<Value, ErrorInfo> {
    match args {
        [Value::Int(i)] => {
            let n = i.to_i64().unwrap_or(0);
            Ok(match language {
                Language::Python => Value::int(n.abs()),
                Language::Javascript => Value::Float(n.abs() as f64),
                Language::Java => Value::int(n),
            })
        }
        _ => Err(ErrorInfo {
            kind: "TypeError".into(),
            message: "bad operand".into(),
        }),
    }
}

impl Executor for Scripted {
    fn record_calls(
        &self,
        language: Language,
        _code: &str,
        _entry: &str,
        check: &str,
    ) -> Result<Vec<RecordedCall>, ExecError> {
        // The check is a list of argument literals, one per line.
        check
            .lines()
            .map(|l| {
                let args = vec![
                    passrate_pool::pylit::parse(l).map_err(|e| ExecError::msg(e.to_string()))?,
                ];
                Ok(RecordedCall {
                    outcome: abs(language, &args),
                    args,
                })
            })
            .collect::<Result<_, ExecError>>()
    }

    fn run_calls(
        &self,
        language: Language,
        _code: &str,
        _entry: &str,
        _class: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, ExecError> {
        Ok(calls.iter().map(|a| abs(language, a)).collect())
    }

    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
    ) -> Result<Verdict, ExecError> {
        let ok = candidate.contains("abs");
        let total = task.tests_for(language).count();
        Ok(Verdict {
            task: task.id.clone(),
            language,
            reason: if ok {
                Reason::Pass
            } else {
                Reason::WrongAnswer
            },
            tests_passed: if ok { total } else { 0 },
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

fn variant(code: &str) -> Variant {
    Variant {
        prompt: "def f(x):\n".into(),
        entry_point: "f".into(),
        class_name: None,
        signature: Signature {
            params: vec![],
            returns: None,
        },
        reference_solution: code.into(),
        given_code: None,
        faulty_variants: vec![],
        preamble: None,
    }
}

fn raw(languages: &[Language]) -> RawTask {
    RawTask {
        id: "fixture/abs".into(),
        category: Category::FunctionCompletion,
        source: Source {
            dataset: "fixture".into(),
            upstream_id: "abs".into(),
            license: "MIT".into(),
        },
        variants: languages
            .iter()
            .map(|l| (*l, variant("def f(x):\n    return abs(x)\n")))
            .collect::<BTreeMap<_, _>>(),
        category_data: CategoryData::default(),
        plan: TestPlan::Record {
            language: Language::Python,
            check_code: "3\n-4\n'x'\n3".into(),
            hidden_inputs: vec![vec![Value::int(-7)], vec![Value::int(3)]],
        },
        primary: Language::Python,
        atol: None,
        as_set: false,
        factor_prompt: String::new(),
        contract: None,
    }
}

#[test]
fn recorded_calls_become_tests_per_language() {
    let built = build_task(&Scripted, &raw(&[Language::Python, Language::Javascript])).unwrap();
    let t = &built.task;
    // Public 3 and -4 (the raising call and the duplicate are dropped), hidden -7 (3 is public),
    // then hidden tests from generated inputs: six wanted to reach ten calls with the four
    // the dataset gives ('x' among them), and six kept (inputs mutated from 'x' raise and are
    // discarded; there are enough others).
    let visibilities: Vec<Visibility> = t.tests.iter().map(|t| t.visibility).collect();
    assert_eq!(built.generated, 6);
    assert!(built.notes.is_empty(), "{:?}", built.notes);
    assert_eq!(visibilities.len(), 6 + 2 * 6);
    assert!(visibilities[6..].iter().all(|v| *v == Visibility::Hidden));
    // Python's ints and JavaScript's floats differ as values: one test per language per call.
    assert_eq!(
        visibilities[..6],
        [
            Visibility::Public,
            Visibility::Public,
            Visibility::Public,
            Visibility::Public,
            Visibility::Hidden,
            Visibility::Hidden
        ]
    );
    let TestForm::Call { args, expected } = &t.tests[0].form else {
        panic!()
    };
    assert_eq!(args, &vec![Value::int(3)]);
    assert_eq!(expected, &Expected::Returns(Value::int(3)));
    assert_eq!(t.tests[0].languages, vec![Language::Python]);
    assert_eq!(t.tests[1].languages, vec![Language::Javascript]);
    assert_eq!(t.variants.len(), 2);
    // Floats appeared, so the comparator carries EvalPlus's default tolerance.
    assert_eq!(t.comparator.abs_tol, Some(1e-6));
    assert!(passrate_pool::check_task(t).is_ok());
}

#[test]
fn a_language_that_disagrees_is_dropped() {
    let built = build_task(&Scripted, &raw(&[Language::Python, Language::Java])).unwrap();
    assert!(!built.task.variants.contains_key(&Language::Java));
    assert_eq!(built.dropped.len(), 1);
    assert!(
        built.dropped[0].reason.contains("call 1"),
        "{}",
        built.dropped[0].reason
    );
    assert!(built.task.tests.iter().all(|t| t.languages.is_empty()));
}

#[test]
fn validation_fills_calibration_and_rejects_failing_references() {
    let task = python_abs_task();
    assert!(validate_task(&Scripted, &Cache::in_memory("test"), &task).is_ok());
    let mut broken = task.clone();
    broken
        .variants
        .get_mut(&Language::Python)
        .unwrap()
        .reference_solution = "def f(x):\n    return x\n".into();
    let err = validate_task(&Scripted, &Cache::in_memory("test"), &broken).unwrap_err();
    assert!(
        err.reason.contains("python reference fails on run 1"),
        "{}",
        err.reason
    );
}

#[test]
fn a_bug_that_passes_the_tests_is_rejected() {
    let mut task = python_abs_task();
    task.category = Category::BugFixing;
    let v = task.variants.get_mut(&Language::Python).unwrap();
    v.given_code = Some("def f(x):\n    return abs(x) + 0\n".into());
    v.faulty_variants = vec!["def f(x):\n    return abs(x) + 0\n".into()];
    let err = validate_task(&Scripted, &Cache::in_memory("test"), &task).unwrap_err();
    assert!(
        err.reason.contains("faulty variant 0 passes"),
        "{}",
        err.reason
    );
}

/// The Python `abs` fixture, built by the scripted executor.
fn python_abs_task() -> Task {
    build_task(&Scripted, &raw(&[Language::Python]))
        .unwrap()
        .task
}

/// The recording half of [`Executor`] as [`Scripted`] does it, for executors that differ only
/// in how they evaluate.
macro_rules! recording_as_scripted {
    () => {
        as_scripted!(record_calls);
        as_scripted!(run_calls);
    };
}

/// One [`Executor`] method forwarded to [`Scripted`].
macro_rules! as_scripted {
    (record_calls) => {
        fn record_calls(
            &self,
            language: Language,
            code: &str,
            entry: &str,
            check: &str,
        ) -> Result<Vec<RecordedCall>, ExecError> {
            Scripted.record_calls(language, code, entry, check)
        }
    };
    (run_calls) => {
        fn run_calls(
            &self,
            language: Language,
            code: &str,
            entry: &str,
            class: Option<&str>,
            calls: &[Vec<Value>],
        ) -> Result<Vec<Result<Value, ErrorInfo>>, ExecError> {
            Scripted.run_calls(language, code, entry, class, calls)
        }
    };
    (evaluate) => {
        fn evaluate(
            &self,
            task: &Task,
            language: Language,
            candidate: &str,
        ) -> Result<Verdict, ExecError> {
            Scripted.evaluate(task, language, candidate)
        }
    };
}

/// Counts evaluations and fails the first `flaky` of them as infrastructure faults.
struct Counting {
    evaluations: std::sync::atomic::AtomicUsize,
    flaky: std::sync::atomic::AtomicUsize,
}

impl Counting {
    fn new(flaky: usize) -> Counting {
        Counting {
            evaluations: 0.into(),
            flaky: flaky.into(),
        }
    }
}

impl Executor for Counting {
    recording_as_scripted!();

    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
    ) -> Result<Verdict, ExecError> {
        use std::sync::atomic::Ordering;
        if self
            .flaky
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            return Err(ExecError::infrastructure("sandbox hiccup"));
        }
        self.evaluations.fetch_add(1, Ordering::SeqCst);
        Scripted.evaluate(task, language, candidate)
    }
}

#[test]
fn the_same_code_on_the_same_tests_is_evaluated_once() {
    use std::sync::atomic::Ordering;
    let task = python_abs_task();
    let mut twin = task.clone();
    twin.id = "fixture/abs-twin".into();
    let mut other_tests = task.clone();
    other_tests.id = "fixture/abs-fewer-tests".into();
    other_tests.tests.pop();
    let exec = Counting::new(0);
    let cache = Cache::in_memory("test");
    let report = passrate_pool::validate(
        &exec,
        &cache,
        vec![task, twin, other_tests],
        2,
        &|_, _, _, _| {},
    );
    assert_eq!(report.accepted.len(), 3);
    // Two runs for the shared key, two for the task with other tests.
    assert_eq!(exec.evaluations.load(Ordering::SeqCst), 4);
    assert_eq!(report.accepted[1].id, "fixture/abs-twin");
}

#[test]
fn a_recorded_reference_runs_once_more_and_any_other_code_twice() {
    use std::sync::atomic::Ordering;
    let built = python_abs_task();
    // A derived task with the same code and tests (a translation's target) shares the
    // recorded key; one whose reference is other code does not.
    let mut same_code = built.clone();
    same_code.id = "fixture/abs-same-code".into();
    let mut other_code = built.clone();
    other_code.id = "fixture/abs-other-code".into();
    other_code
        .variants
        .get_mut(&Language::Python)
        .unwrap()
        .reference_solution = "def f(x):\n    return abs(x) + 0\n".into();
    let cache = Cache::in_memory("test");
    let recorded = passrate_pool::Recorded::from_built(&cache, [&built]);
    assert_eq!(recorded.len(), 1);
    let exec = Counting::new(0);
    let report = passrate_pool::validate_with(
        &exec,
        &cache,
        vec![built.clone(), same_code, other_code],
        1,
        &recorded,
        &|_, _, _, _| {},
    );
    assert_eq!(report.accepted.len(), 3, "{:?}", report.rejected);
    // One run for the recorded key (shared by its twin), two for the other code.
    assert_eq!(exec.evaluations.load(Ordering::SeqCst), 3);
    // Without the recording (a stored pool), the reference runs twice.
    let exec = Counting::new(0);
    let fresh = Cache::in_memory("test");
    assert!(validate_task(&exec, &fresh, &built).is_ok());
    assert_eq!(exec.evaluations.load(Ordering::SeqCst), 2);
}

/// Counts executions of each code; a refactoring task's given code breaks a structural
/// target, as the real grader reports it. Every test passes with its index's value.
struct RefactorCounting {
    given: &'static str,
    runs: std::sync::Mutex<BTreeMap<String, usize>>,
}

impl Executor for RefactorCounting {
    recording_as_scripted!();

    fn evaluate(&self, task: &Task, language: Language, code: &str) -> Result<Verdict, ExecError> {
        *self
            .runs
            .lock()
            .unwrap()
            .entry(code.to_owned())
            .or_default() += 1;
        let mut v = Scripted.evaluate(task, language, code)?;
        v.tests = task
            .tests_for(language)
            .map(|(index, t)| passrate_schema::TestResult {
                index,
                visibility: t.visibility,
                reason: Reason::Pass,
                actual: Some(Value::int(index as i64)),
                error: None,
                cpu_us: Some(1_000),
                detail: None,
            })
            .collect();
        if code == self.given {
            v.reason = Reason::GraderRule;
            v.grader = Some(passrate_schema::GraderReport {
                grader: "refactoring".into(),
                failed_rules: vec![passrate_schema::RuleFailure {
                    rule: "refactor.max_nesting_depth".into(),
                    detail: "nested".into(),
                }],
                ..Default::default()
            });
        }
        Ok(v)
    }
}

#[test]
fn a_refactoring_reference_on_its_recorded_base_tests_runs_once() {
    let built = python_abs_task();
    let reference = built.variants[&Language::Python].reference_solution.clone();
    let given = "def f(x):\n    if x < 0:\n        return -x\n    return abs(x)\n";
    let refactoring = |id: &str| {
        let mut t = built.clone();
        t.id = id.into();
        t.category = Category::Refactoring;
        t.variants.get_mut(&Language::Python).unwrap().given_code = Some(given.into());
        t
    };
    let same_tests = refactoring("refactor/fixture/abs/python");
    // Other tests: the base's recording says nothing about them.
    let mut fewer_tests = refactoring("refactor/fixture/abs-fewer/python");
    fewer_tests.tests.pop();
    let cache = Cache::in_memory("test");
    let recorded = passrate_pool::Recorded::from_built(&cache, [&built]);
    let exec = RefactorCounting {
        given,
        runs: Default::default(),
    };
    let report = passrate_pool::validate_with(
        &exec,
        &cache,
        vec![same_tests, fewer_tests],
        1,
        &recorded,
        &|_, _, _, _| {},
    );
    assert_eq!(report.accepted.len(), 2, "{:?}", report.rejected);
    let runs = exec.runs.lock().unwrap().clone();
    // One run of the reference on the recorded tests (through the real runner it is the
    // base task's own evaluation, from the intake cache), two on the others; the given code
    // once on each task.
    assert_eq!(runs.get(&reference), Some(&3), "{runs:?}");
    assert_eq!(runs.get(given), Some(&2), "{runs:?}");
}

#[test]
fn infrastructure_faults_are_retried_and_results_persist() {
    use std::sync::atomic::Ordering;
    let dir = tempfile::tempdir().unwrap();
    let task = python_abs_task();
    let exec = Counting::new(1);
    let cache = Cache::new(Some(dir.path().to_path_buf()), "test");
    assert!(validate_task(&exec, &cache, &task).is_ok());
    assert_eq!(exec.evaluations.load(Ordering::SeqCst), 2);
    // A new process with the same cache directory executes nothing.
    let again = Counting::new(0);
    let cache = Cache::new(Some(dir.path().to_path_buf()), "test");
    assert!(validate_task(&again, &cache, &task).is_ok());
    assert_eq!(again.evaluations.load(Ordering::SeqCst), 0);
    // Faults beyond the retries reject the task for this run and are not stored.
    let broken = Counting::new(10);
    let fresh = Cache::new(
        Some(tempfile::tempdir().unwrap().path().to_path_buf()),
        "test",
    );
    let err = validate_task(&broken, &fresh, &task).unwrap_err();
    assert!(err.reason.contains("infrastructure"), "{}", err.reason);
}
/// Records, per evaluated candidate, the per-test calibration the task carried; the
/// reference's tests report 2 ms of CPU each.
struct SeesCalibration {
    seen: std::sync::Mutex<Vec<(String, Option<Vec<u64>>)>>,
}

impl Executor for SeesCalibration {
    recording_as_scripted!();

    fn evaluate(&self, task: &Task, language: Language, code: &str) -> Result<Verdict, ExecError> {
        self.seen.lock().unwrap().push((
            code.to_owned(),
            task.calibration
                .reference_test_cpu_us
                .get(&language)
                .cloned(),
        ));
        let mut v = Scripted.evaluate(task, language, code)?;
        v.tests = task
            .tests_for(language)
            .map(|(index, t)| passrate_schema::TestResult {
                index,
                visibility: t.visibility,
                reason: v.reason,
                actual: None,
                error: None,
                cpu_us: Some(2_000),
                detail: None,
            })
            .collect();
        Ok(v)
    }
}

#[test]
fn faulty_variants_are_judged_with_the_reference_budgets() {
    let mut task = python_abs_task();
    task.category = Category::BugFixing;
    let v = task.variants.get_mut(&Language::Python).unwrap();
    let faulty = "def f(x):\n    return x\n";
    v.given_code = Some(faulty.into());
    v.faulty_variants = vec![faulty.into()];
    let exec = SeesCalibration {
        seen: Default::default(),
    };
    let (accepted, _) = validate_task(&exec, &Cache::in_memory("test"), &task).unwrap();
    let n = accepted.tests_for(Language::Python).count();
    let seen = exec.seen.lock().unwrap().clone();
    // The reference's two runs measure; the faulty variant then runs on the measured budgets.
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(seen[..2].iter().all(|(_, c)| c.is_none()), "{seen:?}");
    assert_eq!(seen[2], (faulty.to_owned(), Some(vec![2_000; n])));
}

#[test]
fn refactoring_given_code_is_judged_with_the_reference_budgets() {
    let mut task = python_abs_task();
    task.category = Category::Refactoring;
    let given = "def f(x):\n    if x < 0:\n        return -x\n    return abs(x)\n";
    task.variants.get_mut(&Language::Python).unwrap().given_code = Some(given.into());
    let exec = SeesCalibration {
        seen: Default::default(),
    };
    // The scripted grader reports no structural rule, so the task is rejected after both
    // evaluations; what matters here is what the given code was judged with.
    let _ = validate_task(&exec, &Cache::in_memory("test"), &task);
    let n = task.tests_for(Language::Python).count();
    let seen = exec.seen.lock().unwrap().clone();
    assert!(seen.len() >= 2, "{seen:?}");
    assert_eq!(
        seen[0].1, None,
        "the reference runs first, unbudgeted: {seen:?}"
    );
    assert_eq!(seen[1], (given.to_owned(), Some(vec![2_000; n])));
}

/// As [`Scripted`], except that JavaScript cannot complete a run holding a call the
/// primary (Python) raised on, as a reference that runs out of memory on an input Python
/// could not answer either.
struct StuckOnUnanswered;

impl Executor for StuckOnUnanswered {
    as_scripted!(record_calls);

    fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry: &str,
        class: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, ExecError> {
        if language == Language::Javascript
            && calls.iter().any(|c| abs(Language::Python, c).is_err())
        {
            return Err(ExecError::msg(
                "the reference did not run to completion (memory_limit)",
            ));
        }
        Scripted.run_calls(language, code, entry, class, calls)
    }

    as_scripted!(evaluate);
}

#[test]
fn other_languages_run_only_the_calls_that_become_tests() {
    // Python raises on `'x'`, so it is no test; JavaScript, which cannot complete a run
    // holding it, keeps its variant because it never runs it.
    let built = build_task(
        &StuckOnUnanswered,
        &raw(&[Language::Python, Language::Javascript]),
    )
    .unwrap();
    assert!(built.dropped.is_empty(), "{:?}", built.dropped);
    assert_eq!(built.task.variants.len(), 2);
    // Three calls and six generated inputs, each a test per language (ints and floats).
    assert_eq!(built.generated, 6);
    assert_eq!(built.task.tests.len(), 2 * 9);
}

/// "Runs" `is_zero_count(x)`: Python's reference returns `False` where the count is 0 (an
/// accident, as in HumanEval/147), Java's declares `int` and returns 0.
struct BoolForZero;

impl Executor for BoolForZero {
    fn record_calls(
        &self,
        language: Language,
        code: &str,
        entry: &str,
        check: &str,
    ) -> Result<Vec<RecordedCall>, ExecError> {
        let calls = Scripted.record_calls(language, code, entry, check)?;
        Ok(calls
            .into_iter()
            .map(|c| RecordedCall {
                outcome: self
                    .run_calls(language, code, entry, None, std::slice::from_ref(&c.args))
                    .unwrap()
                    .remove(0),
                args: c.args,
            })
            .collect())
    }

    fn run_calls(
        &self,
        language: Language,
        _code: &str,
        _entry: &str,
        _class: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, ExecError> {
        Ok(calls
            .iter()
            .map(|args| {
                let n = match args.first() {
                    Some(Value::Int(i)) => i.to_i64().unwrap_or(0).abs(),
                    _ => 0,
                };
                Ok(match (language, n) {
                    (Language::Python, 0) => Value::Bool(false),
                    _ => Value::int(n),
                })
            })
            .collect())
    }

    fn evaluate(
        &self,
        task: &Task,
        language: Language,
        candidate: &str,
    ) -> Result<Verdict, ExecError> {
        Scripted.evaluate(task, language, candidate)
    }
}

/// Regression (HumanEval/147): a language whose declared return type accepts the primary's
/// value is not dropped for the primary's accident of type.
#[test]
fn a_language_agreeing_under_its_declared_type_is_kept() {
    let mut task = raw(&[Language::Python, Language::Java]);
    task.plan = TestPlan::Record {
        language: Language::Python,
        check_code: "0\n3".into(),
        hidden_inputs: vec![vec![Value::int(-5)]],
    };
    let java = task.variants.get_mut(&Language::Java).unwrap();
    java.signature.returns = Some("int".into());
    java.reference_solution =
        "class Solution {\n    public int f(int x) {\n        return Math.abs(x);\n    }\n}\n"
            .into();
    let built = build_task(&BoolForZero, &task).unwrap();
    assert!(
        built.dropped.is_empty(),
        "{:?}",
        built.dropped.iter().map(|d| &d.reason).collect::<Vec<_>>()
    );
    assert!(built.task.variants.contains_key(&Language::Java));
    // Without the declaration the accident still decides.
    let mut undeclared = task.clone();
    undeclared
        .variants
        .get_mut(&Language::Java)
        .unwrap()
        .signature
        .returns = None;
    undeclared
        .variants
        .get_mut(&Language::Java)
        .unwrap()
        .reference_solution =
        "class Solution {\n    public Object f(Object x) {\n        return x;\n    }\n}\n".into();
    let built = build_task(&BoolForZero, &undeclared).unwrap();
    assert_eq!(built.dropped.len(), 1);
}

/// The fixture with only non-negative dataset inputs, on which Java's wrong `abs` agrees.
fn raw_non_negative(languages: &[Language]) -> RawTask {
    let mut raw = raw(languages);
    raw.plan = TestPlan::Record {
        language: Language::Python,
        check_code: "3\n5\n8".into(),
        hidden_inputs: vec![],
    };
    raw
}

#[test]
fn generated_inputs_another_language_disagrees_on_are_discarded_not_its_variant() {
    let built = build_task(
        &Scripted,
        &raw_non_negative(&[Language::Python, Language::Java]),
    )
    .unwrap();
    // Java's reference is wrong for negative numbers: the generated negatives are no tests,
    // and Java keeps its variant (the dataset's inputs agree).
    assert!(built.dropped.is_empty(), "{:?}", built.dropped);
    assert!(built.task.variants.contains_key(&Language::Java));
    assert!(built.generated >= 3, "{}", built.generated);
    for t in &built.task.tests {
        let TestForm::Call { args, .. } = &t.form else {
            panic!()
        };
        let [Value::Int(n)] = args.as_slice() else {
            panic!("{args:?}")
        };
        assert!(n.to_i64().unwrap() >= 0, "{n}");
    }
    let hidden = built
        .task
        .tests
        .iter()
        .filter(|t| t.visibility == Visibility::Hidden)
        .count();
    assert_eq!(hidden, built.generated);
}

/// Python's reference answers the dataset's inputs, and any other with a different number
/// on every run (as a reference that reads a clock or iterates a hash-seeded set would).
struct NotDeterministic(std::sync::atomic::AtomicI64);

impl Executor for NotDeterministic {
    as_scripted!(record_calls);

    fn run_calls(
        &self,
        language: Language,
        code: &str,
        entry: &str,
        class: Option<&str>,
        calls: &[Vec<Value>],
    ) -> Result<Vec<Result<Value, ErrorInfo>>, ExecError> {
        let dataset = [3, 5, 8].map(|n| vec![Value::int(n)]);
        let mut out = Scripted.run_calls(language, code, entry, class, calls)?;
        for (call, outcome) in calls.iter().zip(out.iter_mut()) {
            if !dataset.contains(call) {
                let n = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                *outcome = Ok(Value::int(n));
            }
        }
        Ok(out)
    }

    as_scripted!(evaluate);
}

#[test]
fn generated_inputs_the_reference_answers_differently_twice_are_no_tests() {
    let built = build_task(
        &NotDeterministic(0.into()),
        &raw_non_negative(&[Language::Python]),
    )
    .unwrap();
    assert_eq!(built.generated, 0);
    assert!(
        built
            .notes
            .iter()
            .any(|n| n.starts_with("0 of 7 wanted generated inputs kept")),
        "{:?}",
        built.notes
    );
    // With nothing generated, the last of the dataset's three calls is the hidden one.
    let visibilities: Vec<Visibility> = built.task.tests.iter().map(|t| t.visibility).collect();
    assert_eq!(
        visibilities,
        [Visibility::Public, Visibility::Public, Visibility::Hidden]
    );
}

#[test]
fn a_bug_fixing_task_gets_the_base_s_hidden_tests_its_references_pass() {
    let base = python_abs_task();
    let base_hidden: Vec<&passrate_schema::TestCase> = base
        .tests
        .iter()
        .filter(|t| t.visibility == Visibility::Hidden)
        .collect();
    let arg = |t: &passrate_schema::TestCase| match &t.form {
        TestForm::Call { args, .. } => match args.as_slice() {
            [Value::Int(n)] => n.to_i64().unwrap(),
            other => panic!("{other:?}"),
        },
        TestForm::Sequence { .. } => panic!(),
    };
    assert!(
        base_hidden.iter().any(|t| arg(t) < 0),
        "the base holds negatives"
    );
    // Derived as bug fixing is: public tests only, and a Java reference (wrong on negatives).
    let mut fix = base.clone();
    fix.id = "humanevalfix/abs".into();
    fix.category = Category::BugFixing;
    fix.tests.retain(|t| t.visibility == Visibility::Public);
    let python = fix.variants[&Language::Python].clone();
    fix.variants.insert(Language::Java, python);
    let mut other = fix.clone();
    other.id = "translate/abs".into();
    other.category = Category::CodeTranslation;
    let mut tasks = vec![fix, other];
    let added = passrate_pool::import::screen::add_agreeing_hidden(
        &Scripted,
        &mut tasks,
        &|t: &Task| (t.id == "humanevalfix/abs").then_some(&base),
        2,
        &|_, _, _| {},
    )
    .unwrap();
    let kept: Vec<i64> = tasks[0]
        .tests
        .iter()
        .filter(|t| t.visibility == Visibility::Hidden)
        .map(arg)
        .collect();
    let want: Vec<i64> = base_hidden
        .iter()
        .map(|t| arg(t))
        .filter(|n| *n >= 0)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(kept, want);
    assert_eq!(added, want.len());
    // Only bug fixing is screened.
    assert!(
        tasks[1]
            .tests
            .iter()
            .all(|t| t.visibility == Visibility::Public)
    );
}

#[test]
fn a_class_task_without_hidden_tests_gets_its_last_third_hidden() {
    let public = |n: i64| passrate_schema::TestCase {
        visibility: Visibility::Public,
        form: TestForm::Call {
            args: vec![Value::int(n)],
            expected: Expected::Returns(Value::int(n)),
        },
        comparator: None,
        languages: vec![],
    };
    let mut tests: Vec<_> = (0..7).map(public).collect();
    passrate_pool::import::build::hide_tail(&mut tests);
    let hidden: Vec<bool> = tests
        .iter()
        .map(|t| t.visibility == Visibility::Hidden)
        .collect();
    assert_eq!(hidden, [false, false, false, false, false, true, true]);
    let mut two: Vec<_> = (0..2).map(public).collect();
    passrate_pool::import::build::hide_tail(&mut two);
    assert_eq!(two[1].visibility, Visibility::Hidden);
    assert_eq!(two[0].visibility, Visibility::Public);
    let mut one = vec![public(1)];
    passrate_pool::import::build::hide_tail(&mut one);
    assert_eq!(one[0].visibility, Visibility::Public);
}

#[test]
fn a_language_the_others_contradict_on_a_generated_input_is_dropped_naming_it() {
    // JavaScript agrees with Python (as floats) on every input, Java's `abs` is wrong for
    // negative ones: on a generated negative input JavaScript corroborates Python, so Java's
    // reference is the wrong one.
    let built = build_task(
        &Scripted,
        &raw_non_negative(&[Language::Python, Language::Javascript, Language::Java]),
    )
    .unwrap();
    assert!(!built.task.variants.contains_key(&Language::Java));
    assert_eq!(built.dropped.len(), 1, "{:?}", built.dropped);
    assert_eq!(built.dropped[0].language, Language::Java);
    assert!(
        built.dropped[0].reason.starts_with("generated input (-"),
        "{}",
        built.dropped[0].reason
    );
    // With Java gone, the negative inputs are tests.
    assert!(built.task.tests.iter().any(|t| matches!(&t.form,
        TestForm::Call { args, .. } if matches!(args.as_slice(), [Value::Int(n)] if n.to_i64().unwrap() < 0))));
}
