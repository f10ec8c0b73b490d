//! ClassEval (FudanSELab, MIT): 100 class-level Python tasks whose tests are `unittest`
//! suites. Each becomes `classeval/N`, a function-completion task whose answer is the whole
//! class, tested by `sequence` tests: construct the class, call its methods, compare each
//! result.
//!
//! The sequences are recorded, the EvalPlus way, by running the dataset's own suite on the
//! reference in the sandbox with the class replaced by a recording proxy: every construction
//! and method call a test makes goes through one recorded function (`EVENT_FN`), which
//! performs it on the real object, so the arguments and the reference's results are what the
//! suite really did. A test is kept only when it can be replayed from those calls alone:
//! exactly one instance, positional arguments, no attribute written from outside, no
//! iteration over the instance (item access, `len` and `in` are recorded as calls), every
//! argument and result encodable, and the test passed on the reference. Assertions on
//! attributes are not replayed (their method calls are). Intake validation then runs the
//! sequences on the reference twice (a test that needed unrecorded state fails there).

use std::collections::BTreeMap;
use std::path::Path;

use passrate_extract::declared_signature;
use passrate_schema::{
    Category, CategoryData, ErrorInfo, Expected, Language, Signature, Step, TestCase, TestForm,
    Value, Variant, Visibility,
};
use serde::Deserialize;

use super::build::{MAX_PUBLIC, Rejection, contains_opaque};
use super::{ImportError, RawTask, TestPlan, read_json, source};
use crate::exec::RecordedCall;

/// The function every recorded event goes through (a name no dataset code uses).
pub const EVENT_FN: &str = "passrate_classeval_event";

/// Tasks left out, with why (decided by reading the data, never by model results).
pub const LEFT_OUT: &[(u32, &str)] = &[
    (17, "depends on today's date"),
    (48, "depends on the host name"),
    (50, "depends on file permissions and fails as root"),
];

#[derive(Debug, Deserialize)]
struct Record {
    task_id: String,
    skeleton: String,
    test: String,
    solution_code: String,
    class_name: String,
    #[serde(default)]
    class_description: String,
}

/// Parses ClassEval into raw tasks (no execution).
pub fn load(data: &Path) -> Result<(Vec<RawTask>, Vec<Rejection>), ImportError> {
    let file = data.join("classeval/ClassEval_data.json");
    let records: Vec<Record> = read_json(&file)?;
    let mut tasks = Vec::new();
    let mut rejected = Vec::new();
    for r in records {
        let n: u32 = r
            .task_id
            .strip_prefix("ClassEval_")
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| ImportError::Data {
                file: file.clone(),
                message: format!("task_id `{}` is not `ClassEval_<number>`", r.task_id),
            })?;
        let id = format!("classeval/{n}");
        if let Some((_, why)) = LEFT_OUT.iter().find(|(k, _)| *k == n) {
            rejected.push(Rejection {
                id,
                stage: "parse".to_owned(),
                reason: (*why).to_owned(),
            });
            continue;
        }
        tasks.push(raw_task(&r, id));
    }
    Ok((tasks, rejected))
}

fn raw_task(r: &Record, id: String) -> RawTask {
    let reference = r.solution_code.replace("\r\n", "\n");
    let signature =
        declared_signature(Language::Python, &reference, "__init__").unwrap_or(Signature {
            params: Vec::new(),
            returns: None,
        });
    let mut variants = BTreeMap::new();
    variants.insert(
        Language::Python,
        Variant {
            prompt: r.skeleton.replace("\r\n", "\n"),
            entry_point: r.class_name.clone(),
            class_name: Some(r.class_name.clone()),
            signature,
            reference_solution: reference,
            given_code: None,
            faulty_variants: Vec::new(),
            preamble: None,
        },
    );
    RawTask {
        id,
        category: Category::FunctionCompletion,
        source: source("classeval", &r.task_id, "MIT"),
        variants,
        category_data: CategoryData::default(),
        // The driver is part of the plan, so changing it invalidates cached builds.
        plan: TestPlan::Sequences {
            check_code: recording_check(&r.test.replace("\r\n", "\n"), &r.class_name),
        },
        primary: Language::Python,
        contract: None,
        atol: None,
        as_set: false,
        factor_prompt: format!("{}\n{}", r.class_description, r.skeleton),
    }
}

/// The reference with the event function appended. The real class is bound as a default
/// argument when the module loads, before the suite's driver shadows its name.
pub fn recording_reference(reference: &str, class_name: &str) -> String {
    format!(
        "{reference}\n\n\
         _passrate_objects = {{}}\n\n\
         def {EVENT_FN}(test, instance, method, args, _cls={class_name}):\n\
         \x20   if method == \"__init__\":\n\
         \x20       _passrate_objects[(test, instance)] = _cls(*args)\n\
         \x20       return None\n\
         \x20   if method.startswith(\"!\"):\n\
         \x20       return None\n\
         \x20   return getattr(_passrate_objects[(test, instance)], method)(*args)\n"
    )
}

/// The dataset's suite followed by a driver that runs each test (sorted by class, then
/// method name) with the class replaced by a recording proxy. Markers (`!taint`, `!failed`)
/// are events too, so the host learns which tests cannot be replayed.
pub fn recording_check(suite: &str, class_name: &str) -> String {
    // The suite's own entry point (`if __name__ == '__main__': unittest.main()`) would run
    // every test unrecorded and exit.
    let suite: String = suite
        .lines()
        .take_while(|l| !l.starts_with("if __name__"))
        .filter(|l| !l.contains("unittest.main("))
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        r#"{suite}

import unittest as _passrate_unittest

_passrate_current = [None, 0]


class _PassrateInstance:
    def __init__(self, test, instance):
        object.__setattr__(self, "_passrate_at", (test, instance))

    def __getattr__(self, name):
        test, instance = object.__getattribute__(self, "_passrate_at")
        real = getattr(_passrate_objects[(test, instance)], name)
        if not callable(real):
            return real

        def call(*args, **kwargs):
            if kwargs:
                {EVENT_FN}(test, instance, "!taint", ["keyword arguments to " + name])
                return real(*args, **kwargs)
            return {EVENT_FN}(test, instance, name, list(args))

        return call

    def __setattr__(self, name, value):
        test, instance = object.__getattribute__(self, "_passrate_at")
        {EVENT_FN}(test, instance, "!taint", ["sets attribute " + name])
        setattr(_passrate_objects[(test, instance)], name, value)

    # Container protocols bypass __getattr__; they are method calls like any other.
    def __getitem__(self, key):
        return self.__getattr__("__getitem__")(key)

    def __setitem__(self, key, value):
        return self.__getattr__("__setitem__")(key, value)

    def __delitem__(self, key):
        return self.__getattr__("__delitem__")(key)

    def __len__(self):
        return self.__getattr__("__len__")()

    def __contains__(self, item):
        return self.__getattr__("__contains__")(item)

    def __iter__(self):
        test, instance = object.__getattribute__(self, "_passrate_at")
        {EVENT_FN}(test, instance, "!taint", ["iterates over the instance"])
        return iter(_passrate_objects[(test, instance)])


def _passrate_factory(*args, **kwargs):
    test = _passrate_current[0]
    _passrate_current[1] += 1
    instance = _passrate_current[1]
    if kwargs:
        {EVENT_FN}(test, instance, "!taint", ["keyword arguments to the constructor"])
        _passrate_objects[(test, instance)] = _passrate_real_class(*args, **kwargs)
    else:
        {EVENT_FN}(test, instance, "__init__", list(args))
    return _PassrateInstance(test, instance)


_passrate_real_class = {class_name}
{class_name} = _passrate_factory
_passrate_cases = sorted(
    (v for v in list(globals().values())
     if isinstance(v, type) and issubclass(v, _passrate_unittest.TestCase)
     and v is not _passrate_unittest.TestCase),
    key=lambda c: c.__name__,
)
for _passrate_case in _passrate_cases:
    for _passrate_name in sorted(_passrate_unittest.TestLoader().getTestCaseNames(_passrate_case)):
        _passrate_id = _passrate_case.__name__ + "." + _passrate_name
        _passrate_current[0] = _passrate_id
        _passrate_current[1] = 0
        _passrate_result = _passrate_unittest.TestResult()
        _passrate_case(_passrate_name).run(_passrate_result)
        if not _passrate_result.wasSuccessful() or _passrate_result.skipped:
            {EVENT_FN}(_passrate_id, 0, "!failed", [])
"#
    )
}

/// One recorded test, before it becomes a [`TestCase`].
#[derive(Debug, Default)]
struct Recording {
    constructions: usize,
    constructor_args: Vec<Value>,
    steps: Vec<Step>,
    unusable: Option<String>,
}

/// Turns the recorded events into `sequence` tests, in the suite's order; tests that cannot
/// be replayed are left out, with a note saying how many and why.
pub fn sequences_from_events(events: &[RecordedCall]) -> (Vec<TestCase>, Vec<String>) {
    let mut order: Vec<String> = Vec::new();
    let mut tests: BTreeMap<String, Recording> = BTreeMap::new();
    for event in events {
        let [
            Value::Str(test),
            Value::Int(_),
            Value::Str(method),
            Value::List(args),
        ] = event.args.as_slice()
        else {
            continue;
        };
        if !tests.contains_key(test) {
            order.push(test.clone());
        }
        let rec = tests.entry(test.clone()).or_default();
        let mark = |rec: &mut Recording, why: String| {
            rec.unusable.get_or_insert(why);
        };
        match method.as_str() {
            "!failed" => mark(rec, "fails on the reference".to_owned()),
            "!taint" => mark(
                rec,
                args.first()
                    .and_then(|a| match a {
                        Value::Str(s) => Some(s.clone()),
                        _ => None,
                    })
                    .unwrap_or_else(|| "not replayable".to_owned()),
            ),
            "__init__" => {
                rec.constructions += 1;
                if rec.constructions > 1 {
                    mark(rec, "uses more than one instance".to_owned());
                } else if args.iter().any(contains_opaque) {
                    mark(rec, "constructor argument cannot be encoded".to_owned());
                } else if let Err(e) = &event.outcome {
                    mark(rec, format!("constructor raised {}", e.kind));
                } else {
                    rec.constructor_args = args.clone();
                }
            }
            _ => {
                if rec.constructions == 0 {
                    mark(rec, "calls a method before constructing".to_owned());
                    continue;
                }
                if args.iter().any(contains_opaque) {
                    mark(rec, format!("argument of {method} cannot be encoded"));
                    continue;
                }
                let expected = match &event.outcome {
                    Ok(v) if contains_opaque(v) => {
                        mark(rec, format!("result of {method} cannot be encoded"));
                        continue;
                    }
                    Ok(v) => Expected::Returns(v.clone()),
                    Err(ErrorInfo { kind, .. }) => Expected::Raises(kind.clone()),
                };
                rec.steps.push(Step {
                    method: method.clone(),
                    args: args.clone(),
                    expected,
                });
            }
        }
    }
    let mut cases = Vec::new();
    let mut left_out: BTreeMap<String, usize> = BTreeMap::new();
    for test in order {
        let rec = tests.remove(&test).expect("recorded");
        let why = rec.unusable.or_else(|| {
            (rec.constructions == 0 || rec.steps.is_empty())
                .then(|| "calls no method of the class".to_owned())
        });
        if let Some(why) = why {
            *left_out.entry(why).or_default() += 1;
            continue;
        }
        if cases.len() == MAX_PUBLIC {
            *left_out.entry("over the cap".to_owned()).or_default() += 1;
            continue;
        }
        cases.push(TestCase {
            visibility: Visibility::Public,
            form: TestForm::Sequence {
                constructor_args: rec.constructor_args,
                steps: rec.steps,
            },
            comparator: None,
            languages: Vec::new(),
        });
    }
    let notes = left_out
        .into_iter()
        .map(|(why, n)| format!("{n} upstream test(s) not replayable: {why}"))
        .collect();
    (cases, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use passrate_schema::Integer;

    fn event(
        test: &str,
        method: &str,
        args: Vec<Value>,
        outcome: Result<Value, &str>,
    ) -> RecordedCall {
        RecordedCall {
            args: vec![
                Value::Str(test.to_owned()),
                Value::Int(Integer::parse("1").unwrap()),
                Value::Str(method.to_owned()),
                Value::List(args),
            ],
            outcome: outcome.map_err(|k| ErrorInfo {
                kind: k.to_owned(),
                message: String::new(),
            }),
        }
    }

    fn int(n: i64) -> Value {
        Value::Int(Integer::parse(&n.to_string()).unwrap())
    }

    #[test]
    fn replayable_tests_become_sequences_in_suite_order() {
        let events = vec![
            event("T.test_b", "__init__", vec![int(3)], Ok(Value::Null)),
            event("T.test_b", "push", vec![int(1)], Ok(Value::Null)),
            event("T.test_b", "pop", vec![], Ok(int(1))),
            event("T.test_b", "pop", vec![], Err("IndexError")),
            event("T.test_a", "__init__", vec![], Ok(Value::Null)),
            event("T.test_a", "size", vec![], Ok(int(0))),
        ];
        let (cases, notes) = sequences_from_events(&events);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(cases.len(), 2);
        let TestForm::Sequence {
            constructor_args,
            steps,
        } = &cases[0].form
        else {
            panic!("not a sequence")
        };
        assert_eq!(constructor_args, &vec![int(3)]);
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[2].expected, Expected::Raises("IndexError".to_owned()));
    }

    #[test]
    fn unreplayable_tests_are_left_out_with_reasons() {
        let opaque = Value::Opaque("<object>".to_owned());
        let events = vec![
            event("T.failed", "__init__", vec![], Ok(Value::Null)),
            event("T.failed", "size", vec![], Ok(int(0))),
            event("T.failed", "!failed", vec![], Ok(Value::Null)),
            event("T.two", "__init__", vec![], Ok(Value::Null)),
            event("T.two", "__init__", vec![], Ok(Value::Null)),
            event("T.two", "size", vec![], Ok(int(0))),
            event("T.taint", "__init__", vec![], Ok(Value::Null)),
            event(
                "T.taint",
                "!taint",
                vec![Value::Str("sets attribute x".to_owned())],
                Ok(Value::Null),
            ),
            event("T.taint", "size", vec![], Ok(int(0))),
            event("T.opaque", "__init__", vec![], Ok(Value::Null)),
            event("T.opaque", "me", vec![], Ok(opaque)),
            event("T.nothing", "__init__", vec![], Ok(Value::Null)),
        ];
        let (cases, notes) = sequences_from_events(&events);
        assert!(cases.is_empty());
        let text = notes.join("; ");
        for why in [
            "fails on the reference",
            "more than one instance",
            "sets attribute x",
            "result of me cannot be encoded",
            "calls no method",
        ] {
            assert!(text.contains(why), "{why} missing from {text}");
        }
    }

    #[test]
    fn driver_drops_unittest_main_and_shadows_the_class() {
        let check = recording_check(
            "import unittest\nclass T(unittest.TestCase):\n    pass\nif __name__ == '__main__':\n    unittest.main()\n",
            "Stack",
        );
        assert!(!check.contains("unittest.main("));
        assert!(check.contains("Stack = _passrate_factory"));
        let reference = recording_reference("class Stack:\n    pass\n", "Stack");
        assert!(reference.contains(&format!(
            "def {EVENT_FN}(test, instance, method, args, _cls=Stack)"
        )));
    }
}
