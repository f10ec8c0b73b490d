//! Fixtures for the binary's end-to-end tests: a small pool of real tasks (Python and
//! JavaScript function completion and bug fixing, across the three tiers), models.toml
//! files with command models, and helpers to run `passrate` against them.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use passrate_pool::{Pool, tier_for};
use passrate_schema::{
    Category, CategoryData, Expected, IntakeFactors, Language, Param, Signature, Source,
    TASK_FORMAT_VERSION, Task, TestCase, TestForm, Value, Variant, Visibility,
};

/// A week in which no task of the fixture's two-task cells is retired (weeks 12–15 of each
/// 32-week rotation cycle have both phases of a two-task cell active).
pub const WEEK: &str = "2026-W14";

/// Factors that give each tier under the documented rule.
fn factors(tier: u8) -> IntakeFactors {
    match tier {
        1 => IntakeFactors {
            conditions: 1,
            solution_space: 1,
            edge_cases: 0,
        },
        2 => IntakeFactors {
            conditions: 5,
            solution_space: 1,
            edge_cases: 0,
        },
        _ => IntakeFactors {
            conditions: 9,
            solution_space: 2,
            edge_cases: 2,
        },
    }
}

pub fn call(args: Vec<Value>, expected: Value) -> TestCase {
    TestCase {
        visibility: Visibility::Hidden,
        form: TestForm::Call {
            args,
            expected: Expected::Returns(expected),
        },
        comparator: None,
        languages: Vec::new(),
    }
}

pub fn int(n: i64) -> Value {
    Value::int(n)
}

fn list(xs: &[i64]) -> Value {
    Value::List(xs.iter().map(|&x| int(x)).collect())
}

struct Spec {
    id: &'static str,
    category: Category,
    tier: u8,
    entry: &'static str,
    params: &'static [&'static str],
    doc: &'static str,
    python: &'static str,
    python_bug: Option<&'static str>,
    javascript: Option<(&'static str, Option<&'static str>)>,
    tests: Vec<TestCase>,
}

fn build(spec: Spec) -> Task {
    let signature = Signature {
        params: spec
            .params
            .iter()
            .map(|p| Param {
                name: (*p).to_string(),
                ty: None,
            })
            .collect(),
        returns: None,
    };
    let bug_fixing = spec.category == Category::BugFixing;
    let mut variants = BTreeMap::new();
    let header = format!(
        "def {}({}):\n    \"\"\"{}\"\"\"\n",
        spec.entry,
        spec.params.join(", "),
        spec.doc
    );
    variants.insert(
        Language::Python,
        Variant {
            prompt: if bug_fixing {
                spec.python_bug.expect("bug fixing has a bug").to_string()
            } else {
                header
            },
            entry_point: spec.entry.to_string(),
            class_name: None,
            signature: signature.clone(),
            reference_solution: spec.python.to_string(),
            given_code: spec.python_bug.map(str::to_string),
            faulty_variants: spec.python_bug.map(str::to_string).into_iter().collect(),
            preamble: None,
        },
    );
    if let Some((js, js_bug)) = spec.javascript {
        variants.insert(
            Language::Javascript,
            Variant {
                prompt: match js_bug {
                    Some(bug) if bug_fixing => bug.to_string(),
                    _ => format!(
                        "/** {} */\nfunction {}({}) {{\n",
                        spec.doc,
                        spec.entry,
                        spec.params.join(", ")
                    ),
                },
                entry_point: spec.entry.to_string(),
                class_name: None,
                signature,
                reference_solution: js.to_string(),
                given_code: js_bug.map(str::to_string),
                faulty_variants: js_bug.map(str::to_string).into_iter().collect(),
                preamble: None,
            },
        );
    }
    let f = factors(spec.tier);
    Task {
        format_version: TASK_FORMAT_VERSION,
        id: spec.id.to_string(),
        version: 1,
        category: spec.category,
        tier: tier_for(&f),
        factors: f,
        source: Source {
            dataset: "passrate-e2e".to_string(),
            upstream_id: spec.id.to_string(),
            license: "MIT".to_string(),
        },
        variants,
        tests: spec.tests,
        comparator: Default::default(),
        category_data: CategoryData::default(),
        limits: Default::default(),
        calibration: Default::default(),
    }
}

/// Twelve real tasks: two per (category, tier) cell for function completion and bug fixing.
pub fn tasks() -> Vec<Task> {
    use Category::{BugFixing as Bug, FunctionCompletion as Fc};
    let b = |x: bool| Value::Bool(x);
    vec![
        build(Spec {
            id: "e2e/add",
            category: Fc,
            tier: 1,
            entry: "add",
            params: &["a", "b"],
            doc: "Return a + b.",
            python: "def add(a, b):\n    return a + b\n",
            python_bug: None,
            javascript: Some(("function add(a, b) {\n  return a + b;\n}\n", None)),
            tests: vec![
                call(vec![int(1), int(2)], int(3)),
                call(vec![int(-4), int(4)], int(0)),
            ],
        }),
        build(Spec {
            id: "e2e/is_even",
            category: Fc,
            tier: 1,
            entry: "is_even",
            params: &["n"],
            doc: "Return True when n is even.",
            python: "def is_even(n):\n    return n % 2 == 0\n",
            python_bug: None,
            javascript: None,
            tests: vec![
                call(vec![int(4)], b(true)),
                call(vec![int(7)], b(false)),
                call(vec![int(0)], b(true)),
            ],
        }),
        build(Spec {
            id: "e2e/count_vowels",
            category: Fc,
            tier: 2,
            entry: "count_vowels",
            params: &["s"],
            doc: "Count the vowels (aeiou, any case) in s.",
            python: "def count_vowels(s):\n    return sum(1 for c in s.lower() if c in 'aeiou')\n",
            python_bug: None,
            javascript: None,
            tests: vec![
                call(vec![Value::str("Hello World")], int(3)),
                call(vec![Value::str("")], int(0)),
            ],
        }),
        build(Spec {
            id: "e2e/sum_of_squares",
            category: Fc,
            tier: 2,
            entry: "sum_of_squares",
            params: &["xs"],
            doc: "Return the sum of the squares of xs.",
            python: "def sum_of_squares(xs):\n    return sum(x * x for x in xs)\n",
            python_bug: None,
            javascript: Some((
                "function sum_of_squares(xs) {\n  return xs.reduce((s, x) => s + x * x, 0);\n}\n",
                None,
            )),
            tests: vec![
                call(vec![list(&[1, 2, 3])], int(14)),
                call(vec![list(&[])], int(0)),
            ],
        }),
        build(Spec {
            id: "e2e/gcd",
            category: Fc,
            tier: 3,
            entry: "gcd",
            params: &["a", "b"],
            doc: "Greatest common divisor of two non-negative integers.",
            python: "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n",
            python_bug: None,
            javascript: None,
            tests: vec![
                call(vec![int(12), int(18)], int(6)),
                call(vec![int(7), int(0)], int(7)),
            ],
        }),
        build(Spec {
            id: "e2e/fib",
            category: Fc,
            tier: 3,
            entry: "fib",
            params: &["n"],
            doc: "The n-th Fibonacci number, fib(0) = 0, fib(1) = 1.",
            python: "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
            python_bug: None,
            javascript: None,
            tests: vec![call(vec![int(0)], int(0)), call(vec![int(10)], int(55))],
        }),
        build(Spec {
            id: "e2e/absolute",
            category: Bug,
            tier: 1,
            entry: "absolute",
            params: &["x"],
            doc: "Absolute value of x.",
            python: "def absolute(x):\n    return -x if x < 0 else x\n",
            python_bug: Some("def absolute(x):\n    return x\n"),
            javascript: None,
            tests: vec![call(vec![int(-3)], int(3)), call(vec![int(5)], int(5))],
        }),
        build(Spec {
            id: "e2e/maximum",
            category: Bug,
            tier: 1,
            entry: "maximum",
            params: &["xs"],
            doc: "Largest element of a non-empty list.",
            python: "def maximum(xs):\n    best = xs[0]\n    for x in xs:\n        if x > best:\n            best = x\n    return best\n",
            python_bug: Some("def maximum(xs):\n    return xs[0]\n"),
            javascript: Some((
                "function maximum(xs) {\n  return Math.max(...xs);\n}\n",
                Some("function maximum(xs) {\n  return xs[0];\n}\n"),
            )),
            tests: vec![
                call(vec![list(&[1, 9, 3])], int(9)),
                call(vec![list(&[4])], int(4)),
            ],
        }),
        build(Spec {
            id: "e2e/factorial",
            category: Bug,
            tier: 2,
            entry: "factorial",
            params: &["n"],
            doc: "n! for n >= 0.",
            python: "def factorial(n):\n    r = 1\n    for i in range(2, n + 1):\n        r *= i\n    return r\n",
            python_bug: Some(
                "def factorial(n):\n    r = 1\n    for i in range(2, n):\n        r *= i\n    return r\n",
            ),
            javascript: None,
            tests: vec![call(vec![int(5)], int(120)), call(vec![int(0)], int(1))],
        }),
        build(Spec {
            id: "e2e/reverse_words",
            category: Bug,
            tier: 2,
            entry: "reverse_words",
            params: &["s"],
            doc: "The words of s in reverse order, joined by single spaces.",
            python: "def reverse_words(s):\n    return ' '.join(reversed(s.split()))\n",
            python_bug: Some("def reverse_words(s):\n    return ' '.join(s.split())\n"),
            javascript: None,
            tests: vec![call(vec![Value::str("a b c")], Value::str("c b a"))],
        }),
        build(Spec {
            id: "e2e/is_prime",
            category: Bug,
            tier: 3,
            entry: "is_prime",
            params: &["n"],
            doc: "Whether n is a prime number.",
            python: "def is_prime(n):\n    if n < 2:\n        return False\n    i = 2\n    while i * i <= n:\n        if n % i == 0:\n            return False\n        i += 1\n    return True\n",
            python_bug: Some(
                "def is_prime(n):\n    i = 2\n    while i * i <= n:\n        if n % i == 0:\n            return False\n        i += 1\n    return True\n",
            ),
            javascript: None,
            tests: vec![
                call(vec![int(1)], b(false)),
                call(vec![int(13)], b(true)),
                call(vec![int(15)], b(false)),
            ],
        }),
        build(Spec {
            id: "e2e/clamp",
            category: Bug,
            tier: 3,
            entry: "clamp",
            params: &["x", "lo", "hi"],
            doc: "x limited to the range [lo, hi].",
            python: "def clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n",
            python_bug: Some("def clamp(x, lo, hi):\n    return min(lo, max(x, hi))\n"),
            javascript: None,
            tests: vec![
                call(vec![int(5), int(0), int(3)], int(3)),
                call(vec![int(-1), int(0), int(3)], int(0)),
                call(vec![int(2), int(0), int(3)], int(2)),
            ],
        }),
    ]
}

/// Writes the fixture pool to `dir`.
pub fn write_pool(dir: &Path) -> PathBuf {
    let pool = Pool::new(tasks()).expect("fixture tasks are valid");
    pool.save(dir, &[]).expect("pool saves");
    dir.to_path_buf()
}

/// A command model that answers `add`, `is_even` and `absolute` correctly and every other
/// task with a function returning None (a wrong answer, not an infrastructure fault), after
/// a short pause, so a run lasts long enough to be interrupted.
pub const LAZY_MODEL: &str = r#"
import json, sys, time
request = json.load(sys.stdin)
time.sleep(0.15)
entry = request["entry_point"]
known = {
    "add": "def add(a, b):\n    return a + b\n",
    "is_even": "def is_even(n):\n    return n % 2 == 0\n",
    "absolute": "def absolute(x):\n    return abs(x)\n",
}
if request["language"] == "javascript":
    body = "function %s(...args) {\n  return null;\n}\n" % entry
else:
    body = known.get(entry, "def %s(*args):\n    return None\n" % entry)
fence = "javascript" if request["language"] == "javascript" else "python"
print("```%s\n%s```" % (fence, body))
"#;

/// Writes models.toml with the lazy command model, and with `flaky` a model whose command
/// always asks to be retried (exit 75): an API that never recovers.
pub fn write_models(dir: &Path, flaky: bool) -> PathBuf {
    let script = dir.join("lazy_model.py");
    fs_err::write(&script, LAZY_MODEL).expect("write script");
    let mut toml = format!(
        "[[model]]\nid = \"lazy\"\nadapter = \"command\"\ncommand = [\"python3\", \"{}\"]\nconcurrency = 4\n",
        script.display()
    );
    if flaky {
        // The script is rewritten by tests in which the API recovers (same command line, so
        // the same run resumes).
        let flaky = dir.join("flaky.sh");
        fs_err::write(&flaky, "exit 75\n").expect("write flaky.sh");
        toml.push_str(&format!(
            "\n[[model]]\nid = \"flaky-api\"\nadapter = \"command\"\ncommand = [\"sh\", \"{}\"]\nmax_retries = 1\nretry_base_s = 0.01\n",
            flaky.display()
        ));
    }
    let path = dir.join("models.toml");
    fs_err::write(&path, toml).expect("write models.toml");
    path
}

/// `passrate run` arguments for the fixture cycle (10 of the 12 tasks). The fixture holds
/// function-completion and bug-fixing tasks only; the categories with their own graders are
/// covered by `passrate-grade`'s tests and the bundled pool's default run.
pub fn run_args(pool: &Path, models: &Path, data: &Path) -> Vec<String> {
    [
        "run",
        "--week",
        WEEK,
        "--size",
        "10",
        // Twelve tasks leave none for a drift panel.
        "--panel-size",
        "0",
        "--share",
        "algorithm_implementation=0",
        "--share",
        "code_translation=0",
        "--share",
        "documentation_generation=0",
        "--share",
        "unit_test_writing=0",
        "--share",
        "refactoring=0",
        "--pool",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([
        pool.display().to_string(),
        "--models".to_string(),
        models.display().to_string(),
        "--data-dir".to_string(),
        data.display().to_string(),
    ])
    .collect()
}

/// The binary with an environment that cannot leak settings into a test.
pub fn passrate() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_passrate"));
    for var in [
        "PASSRATE_POOL",
        "PASSRATE_MODELS",
        "PASSRATE_DATA_DIR",
        "PASSRATE_DATABASE",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// `n` function-completion tasks `e2e/plus_<k>` (`plus_k(x) = x + k`), a third in each tier,
/// each its own family: a pool large enough for a weekly sample, the drift panel and the
/// rotation together, cheap to judge.
pub fn plus_tasks(n: usize) -> Vec<Task> {
    (0..n)
        .map(|k| {
            let entry = format!("plus_{k}");
            let f = factors(1 + (k % 3) as u8);
            let signature = Signature {
                params: vec![Param {
                    name: "x".to_string(),
                    ty: None,
                }],
                returns: None,
            };
            let variant = Variant {
                prompt: format!("def {entry}(x):\n    \"\"\"Return x + {k}.\"\"\"\n"),
                entry_point: entry.clone(),
                class_name: None,
                signature,
                reference_solution: format!("def {entry}(x):\n    return x + {k}\n"),
                given_code: None,
                faulty_variants: vec![format!("def {entry}(x):\n    return x - {k} - 1\n")],
                preamble: None,
            };
            let k = k as i64;
            Task {
                format_version: TASK_FORMAT_VERSION,
                id: format!("e2e/plus_{k}"),
                version: 1,
                category: Category::FunctionCompletion,
                tier: tier_for(&f),
                factors: f,
                source: Source {
                    dataset: "passrate-e2e".to_string(),
                    upstream_id: format!("plus_{k}"),
                    license: "MIT".to_string(),
                },
                variants: BTreeMap::from([(Language::Python, variant)]),
                tests: vec![
                    call(vec![int(1)], int(1 + k)),
                    call(vec![int(-5)], int(k - 5)),
                    call(vec![int(100)], int(100 + k)),
                ],
                comparator: Default::default(),
                category_data: CategoryData::default(),
                limits: Default::default(),
                calibration: Default::default(),
            }
        })
        .collect()
}

/// A command model for `plus_tasks` whose behaviour a file decides, read at every request (so
/// a test can change the model behind an unchanged identifier, as a provider might):
/// - `good`: the right function;
/// - `swapped`: another model: wrong for even k, the same function written differently for
///   odd k;
/// - `prose`: a refusal in prose;
/// - `half`: the right function for even k, no answer for odd k (partial coverage).
pub const PLUS_MODEL: &str = r#"
import json, sys
request = json.load(sys.stdin)
mode = open(sys.argv[1]).read().strip()
entry = request["entry_point"]
k = int(entry.split("_")[1])
if mode == "good":
    body = "def %s(x):\n    return x + %d\n" % (entry, k)
elif mode == "swapped":
    if k % 2 == 0:
        body = "def %s(x):\n    return x + %d + 1\n" % (entry, k)
    else:
        body = "def %s(x):\n    y = %d\n    return y + x\n" % (entry, k)
elif mode == "half":
    if k % 2 == 1:
        print(json.dumps({"no_answer": True}))
        sys.exit(0)
    body = "def %s(x):\n    return x + %d\n" % (entry, k)
else:
    print("I cannot help with that.")
    sys.exit(0)
print("```python\n%s```" % body)
"#;

/// Writes models.toml with one `PLUS_MODEL` command model per `(id, mode file)`, and the
/// script; returns the models.toml path.
pub fn write_plus_models(dir: &Path, models: &[(&str, &Path)]) -> PathBuf {
    let script = dir.join("plus_model.py");
    fs_err::write(&script, PLUS_MODEL).expect("write script");
    let mut toml = String::new();
    for (id, mode) in models {
        toml.push_str(&format!(
            "[[model]]\nid = \"{id}\"\nadapter = \"command\"\ncommand = [\"/usr/bin/python3\", \"{}\", \"{}\"]\nconcurrency = 4\n\n",
            script.display(),
            mode.display()
        ));
    }
    let path = dir.join("models.toml");
    fs_err::write(&path, toml).expect("write models.toml");
    path
}

/// Writes a pool of `tasks` to `dir`.
pub fn write_tasks(dir: &Path, tasks: Vec<Task>) -> PathBuf {
    let pool = Pool::new(tasks).expect("fixture tasks are valid");
    pool.save(dir, &[]).expect("pool saves");
    dir.to_path_buf()
}

/// `passrate run` arguments for a `plus_tasks` pool: 20 tasks a week and a drift panel of 40,
/// function completion only.
pub fn plus_run_args(week: &str, pool: &Path, models: &Path, data: &Path) -> Vec<String> {
    let mut args: Vec<String> = ["run", "--week", week, "--size", "20", "--panel-size", "40"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for category in Category::ALL {
        if category != Category::FunctionCompletion {
            args.push("--share".into());
            args.push(format!("{}=0", category.as_str()));
        }
    }
    args.extend([
        "--pool".into(),
        pool.display().to_string(),
        "--models".into(),
        models.display().to_string(),
        "--data-dir".into(),
        data.display().to_string(),
        "--json".into(),
    ]);
    args
}
