//! Declared types through the real sandbox, on pool tasks whose reference returns a type the
//! task does not declare: humaneval/147 (a count, `False` for n <= 2), humaneval/130 (a list
//! mixing ints and floats), mbpp/126 (a sum of divisors as floats). Honest answers of the
//! declared type pass; the candidate's tricks (a bool for an int, a str for an int,
//! subclasses, a lying `__eq__`) still fail, in Python, JavaScript and Java.

mod common;

use std::path::Path;
use std::process::Command;

use common::runner;
use passrate_schema::{Language, Param, Reason, Signature, Task, Variant, Verdict};

/// One task of the bundled pool (decompressed with `gzip`: this crate has no gzip reader).
fn pool_task(file: &str, id: &str) -> Task {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../pool/tasks")
        .join(file);
    let output = Command::new("gzip")
        .arg("-dc")
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("gzip -dc {}: {e}", path.display()));
    assert!(output.status.success(), "gzip -dc {}", path.display());
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Task>(l).expect("a pool task"))
        .find(|t| t.id == id)
        .unwrap_or_else(|| panic!("{id} is not in {file}"))
}

fn judge(task: &Task, language: Language, code: &str) -> Verdict {
    runner()
        .evaluate(task, language, code)
        .unwrap_or_else(|e| panic!("{} {language}: runner error {e}", task.id))
}

/// Judges every case at once (bounded by the sandbox's slots) and reports every case whose
/// verdict is not the one wanted: `Pass`, or a failure with the reason named.
fn check(task: &Task, language: Language, cases: &[(&str, &str, Reason)]) {
    let verdicts: Vec<Verdict> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .iter()
            .map(|(_, code, _)| s.spawn(move || judge(task, language, code)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    let failures: Vec<String> = cases
        .iter()
        .zip(&verdicts)
        .filter(|((_, _, want), v)| v.reason != *want)
        .map(|((name, _, want), v)| {
            format!(
                "{} {language} {name}: expected {want}, got {} ({}/{} tests; {:?})",
                task.id, v.reason, v.tests_passed, v.tests_total, v.detail
            )
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// humaneval/147 as its Python reference defines it: the Python variant alone, with the tests
/// Python runs (the reference's `False` where the count is 0), declaring nothing.
fn max_triples_python_only() -> Task {
    let mut task = pool_task("humaneval.jsonl.gz", "humaneval/147");
    task.variants.retain(|l, _| *l == Language::Python);
    task.tests
        .retain(|t| t.languages.is_empty() || t.languages.contains(&Language::Python));
    for t in &mut task.tests {
        t.languages.clear();
    }
    task.calibration
        .reference_test_cpu_us
        .retain(|l, _| *l == Language::Python);
    task
}

/// humaneval/147 with the Java variant HumanEvalPack declares (`public int
/// getMaxTriples(int n)`) beside the Python tests: the declaration makes the task's return an
/// int for every language.
fn max_triples_declared() -> Task {
    let mut task = max_triples_python_only();
    task.variants.insert(
        Language::Java,
        Variant {
            prompt: String::new(),
            entry_point: "getMaxTriples".to_owned(),
            class_name: Some("Solution".to_owned()),
            signature: Signature {
                params: vec![Param {
                    name: "n".to_owned(),
                    ty: Some("int".to_owned()),
                }],
                returns: Some("int".to_owned()),
            },
            reference_solution: JAVA_MAX_TRIPLES.to_owned(),
            given_code: None,
            faulty_variants: Vec::new(),
            preamble: None,
        },
    );
    task.variants.insert(
        Language::Javascript,
        Variant {
            prompt: String::new(),
            entry_point: "getMaxTriples".to_owned(),
            class_name: None,
            signature: Signature {
                params: vec![Param {
                    name: "n".to_owned(),
                    ty: None,
                }],
                returns: None,
            },
            reference_solution: String::new(),
            given_code: None,
            faulty_variants: Vec::new(),
            preamble: None,
        },
    );
    task
}

/// Counts by residue: the values i*i - i + 1 are 1 (mod 3) unless i = 2 (mod 3).
const PY_MAX_TRIPLES: &str = "def get_max_triples(n):\n    ones = sum(1 for i in range(1, n + 1) if (i * i - i + 1) % 3 == 1)\n    zeros = n - ones\n    return ones * (ones - 1) * (ones - 2) // 6 + zeros * (zeros - 1) * (zeros - 2) // 6\n";

const JAVA_MAX_TRIPLES: &str = "import java.util.*;\n\nclass Solution {\n    public int getMaxTriples(int n) {\n        long ones = 0;\n        for (int i = 1; i <= n; i++) {\n            if (((long) i * i - i + 1) % 3 == 1) ones++;\n        }\n        long zeros = n - ones;\n        return (int) (ones * (ones - 1) * (ones - 2) / 6 + zeros * (zeros - 1) * (zeros - 2) / 6);\n    }\n}\n";

const JS_MAX_TRIPLES: &str = "const getMaxTriples = (n) => {\n  let ones = 0;\n  for (let i = 1; i <= n; i++) if ((i * i - i + 1) % 3 === 1) ones++;\n  const zeros = n - ones;\n  return ones * (ones - 1) * (ones - 2) / 6 + zeros * (zeros - 1) * (zeros - 2) / 6;\n};\n";

#[test]
fn without_a_declaration_a_bool_expected_value_stays_a_bool() {
    let task = max_triples_python_only();
    let v = judge(&task, Language::Python, PY_MAX_TRIPLES);
    let failed: Vec<usize> = v
        .tests
        .iter()
        .filter(|t| t.reason != Reason::Pass)
        .map(|t| t.index)
        .collect();
    // The tests of n = 1 and 2 expect the reference's False; nothing declares an int.
    let expect_false: Vec<usize> = task
        .tests
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            matches!(
                &t.form,
                passrate_schema::TestForm::Call {
                    expected: passrate_schema::Expected::Returns(passrate_schema::Value::Bool(
                        false
                    )),
                    ..
                }
            )
        })
        .map(|(i, _)| i)
        .collect();
    assert!(!expect_false.is_empty(), "a scored test of n <= 2");
    assert_eq!(failed, expect_false, "{v:#?}");
    assert_eq!(v.reason, Reason::WrongAnswer);
}

#[test]
fn humaneval_147_a_declared_int_count_accepts_0_where_the_reference_said_false() {
    let task = max_triples_declared();
    check(
        &task,
        Language::Python,
        &[
            ("honest count", PY_MAX_TRIPLES, Reason::Pass),
            (
                "the reference's own False",
                "def get_max_triples(n):\n    if n <= 2:\n        return False\n    ones = sum(1 for i in range(1, n + 1) if (i * i - i + 1) % 3 == 1)\n    zeros = n - ones\n    return ones * (ones - 1) * (ones - 2) // 6 + zeros * (zeros - 1) * (zeros - 2) // 6\n",
                Reason::Pass,
            ),
            (
                "True for 1",
                "def get_max_triples(n):\n    ones = sum(1 for i in range(1, n + 1) if (i * i - i + 1) % 3 == 1)\n    zeros = n - ones\n    r = ones * (ones - 1) * (ones - 2) // 6 + zeros * (zeros - 1) * (zeros - 2) // 6\n    return True if r == 1 else r\n",
                Reason::WrongAnswer,
            ),
            (
                "True for n <= 2",
                "def get_max_triples(n):\n    if n <= 2:\n        return True\n    ones = sum(1 for i in range(1, n + 1) if (i * i - i + 1) % 3 == 1)\n    zeros = n - ones\n    return ones * (ones - 1) * (ones - 2) // 6 + zeros * (zeros - 1) * (zeros - 2) // 6\n",
                Reason::WrongAnswer,
            ),
            (
                "a str for an int",
                "def get_max_triples(n):\n    ones = sum(1 for i in range(1, n + 1) if (i * i - i + 1) % 3 == 1)\n    zeros = n - ones\n    return str(ones * (ones - 1) * (ones - 2) // 6 + zeros * (zeros - 1) * (zeros - 2) // 6)\n",
                Reason::WrongAnswer,
            ),
            (
                "an int subclass equal to everything",
                "class Count(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\ndef get_max_triples(n):\n    return Count(0)\n",
                Reason::WrongAnswer,
            ),
        ],
    );
}

#[test]
fn humaneval_147_javascript_and_java_take_the_declared_int() {
    let task = max_triples_declared();
    check(
        &task,
        Language::Javascript,
        &[
            ("honest count", JS_MAX_TRIPLES, Reason::Pass),
            (
                "true for 1",
                "const getMaxTriples = (n) => {\n  let ones = 0;\n  for (let i = 1; i <= n; i++) if ((i * i - i + 1) % 3 === 1) ones++;\n  const zeros = n - ones;\n  const r = ones * (ones - 1) * (ones - 2) / 6 + zeros * (zeros - 1) * (zeros - 2) / 6;\n  return r === 1 ? true : r;\n};\n",
                Reason::WrongAnswer,
            ),
            (
                "a string for an int",
                "const getMaxTriples = (n) => {\n  let ones = 0;\n  for (let i = 1; i <= n; i++) if ((i * i - i + 1) % 3 === 1) ones++;\n  const zeros = n - ones;\n  return String(ones * (ones - 1) * (ones - 2) / 6 + zeros * (zeros - 1) * (zeros - 2) / 6);\n};\n",
                Reason::WrongAnswer,
            ),
            (
                "a Number object with a lying valueOf",
                "const getMaxTriples = (n) => {\n  const x = new Number(0);\n  x.valueOf = () => 1;\n  return x;\n};\n",
                Reason::WrongAnswer,
            ),
        ],
    );
    check(
        &task,
        Language::Java,
        &[
            ("honest count", JAVA_MAX_TRIPLES, Reason::Pass),
            (
                "a Boolean for a count",
                "import java.util.*;\n\nclass Solution {\n    public Object getMaxTriples(int n) {\n        return n <= 2 ? (Object) Boolean.FALSE : (Object) Integer.valueOf(new Real().getMaxTriples(n));\n    }\n}\n\nclass Real {\n    public int getMaxTriples(int n) {\n        long ones = 0;\n        for (int i = 1; i <= n; i++) {\n            if (((long) i * i - i + 1) % 3 == 1) ones++;\n        }\n        long zeros = n - ones;\n        return (int) (ones * (ones - 1) * (ones - 2) / 6 + zeros * (zeros - 1) * (zeros - 2) / 6);\n    }\n}\n",
                Reason::Pass,
            ),
            (
                "a Boolean for 1",
                "import java.util.*;\n\nclass Solution {\n    public Object getMaxTriples(int n) {\n        int r = new Real().getMaxTriples(n);\n        return r == 1 ? (Object) Boolean.TRUE : (Object) Integer.valueOf(r);\n    }\n}\n\nclass Real {\n    public int getMaxTriples(int n) {\n        long ones = 0;\n        for (int i = 1; i <= n; i++) {\n            if (((long) i * i - i + 1) % 3 == 1) ones++;\n        }\n        long zeros = n - ones;\n        return (int) (ones * (ones - 1) * (ones - 2) / 6 + zeros * (zeros - 1) * (zeros - 2) / 6);\n    }\n}\n",
                Reason::WrongAnswer,
            ),
            (
                "a String for an int",
                "import java.util.*;\n\nclass Solution {\n    public String getMaxTriples(int n) {\n        return \"0\";\n    }\n}\n",
                Reason::WrongAnswer,
            ),
        ],
    );
}

#[test]
fn humaneval_130_ints_and_floats_of_equal_value_are_equal() {
    let task = pool_task("humaneval.jsonl.gz", "humaneval/130");
    let honest = "def tri(n):\n    seq = [1.0, 3]\n    for i in range(2, n + 1):\n        if i % 2 == 0:\n            seq.append(i / 2 + 1)\n        else:\n            seq.append(seq[i - 1] + seq[i - 2] + (i + 3) / 2)\n    return seq[:n + 1]\n";
    let v = judge(&task, Language::Python, honest);
    assert_eq!(v.reason, Reason::Pass, "{v:#?}");
    assert_eq!(v.tests_total, task.tests_for(Language::Python).count());
    check(
        &task,
        Language::Python,
        &[
            ("[1.0, 3, 2.0, 8.0]", honest, Reason::Pass),
            (
                "all ints",
                "def tri(n):\n    seq = [1, 3]\n    for i in range(2, n + 1):\n        if i % 2 == 0:\n            seq.append(i // 2 + 1)\n        else:\n            seq.append(seq[i - 1] + seq[i - 2] + (i + 3) // 2)\n    return seq[:n + 1]\n",
                Reason::Pass,
            ),
            (
                "True for 1",
                "def tri(n):\n    seq = [True, 3]\n    for i in range(2, n + 1):\n        if i % 2 == 0:\n            seq.append(i / 2 + 1)\n        else:\n            seq.append(seq[i - 1] + seq[i - 2] + (i + 3) / 2)\n    return seq[:n + 1]\n",
                Reason::WrongAnswer,
            ),
            (
                "a float subclass with a lying __eq__",
                "class F(float):\n    def __eq__(self, other):\n        return True\n    __hash__ = float.__hash__\ndef tri(n):\n    return [F(0.0) for _ in range(n + 1)]\n",
                Reason::WrongAnswer,
            ),
            (
                "a list subclass equal to everything",
                "class L(list):\n    def __eq__(self, other):\n        return True\ndef tri(n):\n    return L()\n",
                Reason::WrongAnswer,
            ),
            (
                "strs for numbers",
                "def tri(n):\n    seq = [1, 3]\n    for i in range(2, n + 1):\n        if i % 2 == 0:\n            seq.append(i // 2 + 1)\n        else:\n            seq.append(seq[i - 1] + seq[i - 2] + (i + 3) // 2)\n    return [str(x) for x in seq[:n + 1]]\n",
                Reason::WrongAnswer,
            ),
        ],
    );
    check(
        &task,
        Language::Javascript,
        &[
            (
                "numbers",
                "const tri = (n) => {\n  const seq = [1, 3];\n  for (let i = 2; i <= n; i++) seq.push(i % 2 === 0 ? i / 2 + 1 : seq[i - 1] + seq[i - 2] + (i + 3) / 2);\n  return seq.slice(0, n + 1);\n};\n",
                Reason::Pass,
            ),
            (
                "true for 1",
                "const tri = (n) => {\n  const seq = [1, 3];\n  for (let i = 2; i <= n; i++) seq.push(i % 2 === 0 ? i / 2 + 1 : seq[i - 1] + seq[i - 2] + (i + 3) / 2);\n  const out = seq.slice(0, n + 1);\n  out[0] = true;\n  return out;\n};\n",
                Reason::WrongAnswer,
            ),
        ],
    );
    check(
        &task,
        Language::Java,
        &[
            (
                "List<Integer>",
                "import java.util.*;\n\nclass Solution {\n    public List<Integer> tri(int n) {\n        List<Integer> seq = new ArrayList<>(List.of(1, 3));\n        for (int i = 2; i <= n; i++) seq.add(i % 2 == 0 ? i / 2 + 1 : seq.get(i - 1) + seq.get(i - 2) + (i + 3) / 2);\n        return new ArrayList<>(seq.subList(0, n + 1));\n    }\n}\n",
                Reason::Pass,
            ),
            (
                "List<Double> for the declared List<Integer>",
                "import java.util.*;\n\nclass Solution {\n    public List<Double> tri(int n) {\n        List<Double> seq = new ArrayList<>(List.of(1.0, 3.0));\n        for (int i = 2; i <= n; i++) seq.add(i % 2 == 0 ? i / 2 + 1.0 : seq.get(i - 1) + seq.get(i - 2) + (i + 3) / 2);\n        return new ArrayList<>(seq.subList(0, n + 1));\n    }\n}\n",
                Reason::WrongAnswer,
            ),
        ],
    );
}

#[test]
fn mbpp_126_an_int_sum_equals_the_references_float_sum() {
    let task = pool_task("mbpp.jsonl.gz", "mbpp/126");
    let divisors = "    g = math.gcd(a, b)\n    total = 0\n    i = 1\n    while i * i <= g:\n        if g % i == 0:\n            total += i\n            if g // i != i:\n                total += g // i\n        i += 1\n";
    let honest = format!("import math\ndef sum(a, b):\n{divisors}    return total\n");
    let as_str = format!("import math\ndef sum(a, b):\n{divisors}    return str(total)\n");
    let int_subclass = format!(
        "import math\nclass N(int):\n    pass\ndef sum(a, b):\n{divisors}    return N(total)\n"
    );
    let lying_float = format!(
        "import math\nclass F(float):\n    def __eq__(self, other):\n        return True\n    __hash__ = float.__hash__\ndef sum(a, b):\n{divisors}    return F(total)\n"
    );
    let bool_one = format!(
        "import math\ndef sum(a, b):\n{divisors}    return True if total == 1 else total\n"
    );
    check(
        &task,
        Language::Python,
        &[
            ("an int", &honest, Reason::Pass),
            ("a str for an int", &as_str, Reason::WrongAnswer),
            ("an int subclass", &int_subclass, Reason::WrongAnswer),
            (
                "a float subclass with a lying __eq__",
                &lying_float,
                Reason::WrongAnswer,
            ),
            ("True for 1", &bool_one, Reason::WrongAnswer),
        ],
    );
}
