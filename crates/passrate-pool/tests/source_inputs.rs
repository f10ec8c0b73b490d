//! Every input the bundled pool holds for a HumanEval+ or MBPP+ task (scored hidden tests and
//! extra tests) is, value by value, an input of its source dataset: integers exact at any size
//! (HumanEval/155's -1021021021021021021021021021021021021021021021021 once became a float),
//! floats bit for bit. The datasets are read here by Python's `json` (exact integers), not by
//! the importer's parser, so the two readings check each other. Also: the pool keeps nearly
//! every extra input (scored or stored as an extra test), and no task lost its hidden tests to
//! output size (HumanEval/15, /83, /139 once kept none).

use std::collections::{BTreeMap, HashSet};
use std::process::Command;

use passrate_pool::storage::{Pool, bundled_dir, read_extra_file};
use passrate_schema::{Expected, TestCase, TestForm, Value, Visibility};

/// Writes, per task, its base and extra inputs as passrate's wire encoding (JSON Lines).
const DUMP: &str = r#"
import gzip, json, math, sys

def enc(x):
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):
        return {"int": str(x)}
    if isinstance(x, float):
        if math.isnan(x):
            return {"float": "nan"}
        if math.isinf(x):
            return {"float": "inf" if x > 0 else "-inf"}
        return {"float": x}
    if isinstance(x, list):
        return [enc(i) for i in x]
    if isinstance(x, dict):
        return {"map": [[enc(k), enc(v)] for k, v in x.items()]}
    raise TypeError(type(x))

for path in sys.argv[1:]:
    for line in gzip.open(path, "rt"):
        r = json.loads(line)
        args = lambda i: i if isinstance(i, list) else [i]
        print(json.dumps({
            "id": r["task_id"],
            "base": [enc(args(i)) for i in r["base_input"]],
            "extra": [enc(args(i)) for i in r.get("plus_input", [])],
        }))
"#;

struct SourceInputs {
    base: Vec<Vec<Value>>,
    extra: Vec<Vec<Value>>,
}

fn read_sources(data: &std::path::Path) -> BTreeMap<String, SourceInputs> {
    let out = Command::new("python3")
        .arg("-c")
        .arg(DUMP)
        .arg(data.join("HumanEvalPlus.jsonl.gz"))
        .arg(data.join("MbppPlus.jsonl.gz"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lists = |j: &serde_json::Value| -> Vec<Vec<Value>> {
        j.as_array()
            .expect("an array of inputs")
            .iter()
            .map(
                |args| match Value::from_json(args).expect("wire encoding") {
                    Value::List(a) => a,
                    other => panic!("an argument list, got {other}"),
                },
            )
            .collect()
    };
    let text = String::from_utf8(out.stdout).expect("utf-8");
    text.lines()
        .map(|line| {
            let j: serde_json::Value = serde_json::from_str(line).expect("json line");
            // Pool ids: `HumanEval/155` → humaneval/155, `Mbpp/2` → mbpp/2.
            let upstream = j["id"].as_str().expect("task id");
            let (set, n) = upstream.split_once('/').expect("set/number");
            let id = format!("{}/{n}", set.to_ascii_lowercase());
            (
                id,
                SourceInputs {
                    base: lists(&j["base"]),
                    extra: lists(&j["extra"]),
                },
            )
        })
        .collect()
}

/// An input as JSON holds it (tuples and sets are arrays), encoded canonically: equal keys
/// mean the same input, ints exactly at any size and floats bit for bit (NaN is NaN).
fn json_key(args: &[Value]) -> Vec<u8> {
    fn as_json(v: &Value) -> Value {
        match v {
            Value::List(a) | Value::Tuple(a) | Value::Set(a) => {
                Value::List(a.iter().map(as_json).collect())
            }
            Value::Map(kv) => {
                Value::Map(kv.iter().map(|(k, v)| (as_json(k), as_json(v))).collect())
            }
            other => other.clone(),
        }
    }
    as_json(&Value::List(args.to_vec())).canonical_bytes()
}

fn args_of(test: &TestCase) -> &[Value] {
    match &test.form {
        TestForm::Call { args, .. } => args,
        TestForm::Sequence { .. } => panic!("HumanEval+/MBPP+ tasks have call tests"),
    }
}

#[test]
fn every_evalplus_input_in_the_pool_is_its_source_value() {
    // The two EvalPlus files, committed beside this test (tests/data/evalplus/README.md).
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/evalplus");
    let sources = read_sources(&data);
    let pool = Pool::bundled().expect("the bundled pool loads");
    // Each extra-tests file read once (`Pool::extra_tests` reads a family's file per call).
    let dir = bundled_dir().expect("the bundled pool");
    let mut extra_tests: BTreeMap<String, Vec<TestCase>> = BTreeMap::new();
    for family in ["humaneval", "mbpp"] {
        for e in read_extra_file(&dir.join(format!("extra/{family}.jsonl.gz")))
            .expect("extra tests read")
        {
            extra_tests.insert(e.id, e.tests);
        }
    }
    assert_eq!(
        pool.extra_tests("humaneval/155").expect("extra tests read"),
        extra_tests["humaneval/155"]
    );
    let (mut checked, mut source_extra, mut kept_extra, mut digests) = (0, 0, 0, 0);
    let mut generated_total = 0;
    let mut tasks = 0;
    for (id, source) in &sources {
        let Some(task) = pool.get(id) else {
            continue; // rejected at intake (pool/REJECTIONS.md)
        };
        tasks += 1;
        let extra = extra_tests.get(id).cloned().unwrap_or_default();
        let hidden: Vec<&TestCase> = task
            .tests
            .iter()
            .filter(|t| t.visibility == Visibility::Hidden)
            .chain(&extra)
            .collect();
        let source_keys: HashSet<Vec<u8>> = source
            .base
            .iter()
            .chain(&source.extra)
            .map(|s| json_key(s))
            .collect();
        let pool_keys: HashSet<Vec<u8>> = hidden.iter().map(|t| json_key(args_of(t))).collect();
        // Inputs beyond the dataset's are generated ones: a thin suite gets at most as many
        // as generation wanted to reach its targets, and a suite under the mutation target at
        // most one per mutant it aims at (`import::select`).
        let base_distinct: HashSet<Vec<u8>> = source.base.iter().map(|s| json_key(s)).collect();
        let extra_distinct = source
            .extra
            .iter()
            .map(|s| json_key(s))
            .filter(|k| !base_distinct.contains(k))
            .collect::<HashSet<_>>()
            .len();
        let wanted = passrate_pool::import::generate::wanted(base_distinct.len(), extra_distinct)
            + passrate_pool::import::select::MUTANTS;
        let mut generated: HashSet<Vec<u8>> = HashSet::new();
        for test in &hidden {
            let args = args_of(test);
            if !source_keys.contains(&json_key(args)) {
                generated.insert(json_key(args));
                assert!(
                    generated.len() <= wanted,
                    "{id}: hidden input {} is not an input of the dataset, and {} inputs were generated where {wanted} were wanted",
                    Value::List(args.to_vec()),
                    generated.len()
                );
                generated_total += 1;
                continue;
            }
            if let TestForm::Call {
                expected: Expected::ReturnsDigest(_),
                ..
            } = &test.form
            {
                digests += 1;
            }
            checked += 1;
        }
        // The extra inputs the pool keeps, scored or not (distinct ones; those equal to a
        // public input are public tests).
        let base_keys: HashSet<Vec<u8>> = source.base.iter().map(|s| json_key(s)).collect();
        let distinct: HashSet<Vec<u8>> = source
            .extra
            .iter()
            .map(|s| json_key(s))
            .filter(|k| !base_keys.contains(k))
            .collect();
        source_extra += distinct.len();
        kept_extra += distinct.iter().filter(|k| pool_keys.contains(*k)).count();
    }
    eprintln!(
        "{tasks} tasks: {checked} hidden inputs checked ({digests} expected by digest); {kept_extra} of {source_extra} distinct extra inputs kept; {generated_total} generated"
    );
    assert!(tasks > 500, "{tasks} HumanEval+/MBPP+ tasks in the pool");
    // Left out only where the reference raises, returns an unencodable value or cannot
    // complete the input alone within an evaluation's limits.
    assert!(
        kept_extra * 100 >= source_extra * 97,
        "only {kept_extra} of {source_extra} extra inputs kept"
    );
    for id in ["humaneval/15", "humaneval/83", "humaneval/139"] {
        let scored = pool
            .get(id)
            .map(|t| {
                t.tests
                    .iter()
                    .filter(|t| t.visibility == Visibility::Hidden)
                    .count()
            })
            .unwrap_or(0);
        assert!(scored > 0, "{id} scores no hidden test");
    }
}
