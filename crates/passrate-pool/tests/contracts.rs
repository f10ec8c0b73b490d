//! EvalPlus's contracts screen generated inputs, through the real sandbox: the reference
//! wrapped in HumanEval/0's contract ([`passrate_pool::import::contract::contracted`])
//! answers inputs inside the preconditions as the reference does and raises on those
//! outside, which intake then discards like any input the reference raises on.

use passrate_pool::import::contract::contracted;
use passrate_schema::{Language, Param, Signature, Value, Variant};

fn runner() -> passrate_runner::Runner {
    let sandbox = passrate_sandbox::Sandbox::new(passrate_sandbox::SandboxConfig::default())
        .expect("the sandbox starts (needs root)");
    passrate_runner::Runner::new(
        sandbox,
        passrate_pool::import::pipeline::intake_runner_options(),
    )
}

/// HumanEval/0 as HumanEval+ ships it: the canonical solution and its contract.
const REFERENCE: &str = "from typing import List\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    sorted_numbers = sorted(numbers)\n    for i in range(len(sorted_numbers) - 1):\n        if sorted_numbers[i + 1] - sorted_numbers[i] < threshold:\n            return True\n    return False\n";
const CONTRACT: &str = "\n    assert isinstance(threshold, float) and threshold > 0, \"invalid inputs\" # $_CONTRACT_$\n    assert isinstance(numbers, list), \"invalid inputs\" # $_CONTRACT_$\n    assert all([isinstance(v, (int, float)) for v in numbers]), \"invalid inputs\" # $_CONTRACT_$\n";

fn floats(xs: &[f64]) -> Value {
    Value::List(xs.iter().map(|x| Value::Float(*x)).collect())
}

#[test]
fn inputs_outside_the_contract_raise_and_the_others_answer_as_the_reference() {
    let variant = Variant {
        prompt: String::new(),
        entry_point: "has_close_elements".into(),
        class_name: None,
        signature: Signature {
            params: ["numbers", "threshold"]
                .iter()
                .map(|n| Param {
                    name: (*n).into(),
                    ty: None,
                })
                .collect(),
            returns: None,
        },
        reference_solution: REFERENCE.into(),
        given_code: None,
        faulty_variants: Vec::new(),
        preamble: None,
    };
    let code = contracted(&variant, CONTRACT).expect("a contract to wrap");
    let calls = vec![
        vec![floats(&[1.0, 2.0, 2.2]), Value::Float(0.5)],
        vec![floats(&[1.0, 2.0]), Value::Float(-0.5)],
        vec![floats(&[1.0, 2.0]), Value::int(1)],
        vec![Value::List(vec![Value::Str("a".into())]), Value::Float(0.5)],
    ];
    let runner = runner();
    let plain = runner
        .run_calls(
            Language::Python,
            REFERENCE,
            "has_close_elements",
            None,
            &calls[..1],
        )
        .expect("runs");
    let checked = runner
        .run_calls(Language::Python, &code, "has_close_elements", None, &calls)
        .expect("runs");
    assert_eq!(
        checked[0], plain[0],
        "inside the contract: the reference's answer"
    );
    assert_eq!(checked[0], Ok(Value::Bool(true)));
    for (call, outcome) in calls.iter().zip(&checked).skip(1) {
        let error = outcome.as_ref().expect_err("outside the contract");
        assert_eq!(error.kind, "AssertionError", "{call:?}");
    }
}
