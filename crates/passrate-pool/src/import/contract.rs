//! The preconditions a dataset states for its inputs: EvalPlus ships, beside each HumanEval+
//! and MBPP+ canonical solution, a contract of `assert` lines (`assert n > 0, "invalid
//! inputs"`) that its own input generator respects. Intake screens every generated input on
//! the reference wrapped in those checks ([`contracted`]), so an input outside what the task
//! promises (a negative threshold where the docstring asks for a positive one) raises there
//! and is discarded like any input the reference raises on, instead of becoming a test an
//! honest answer may fail.

use passrate_schema::Variant;

/// `variant`'s Python reference with `contract` checked on every call of its entry point,
/// recursive ones included (as EvalPlus checks it inside the function): the entry point is
/// rebound to a wrapper that runs the asserts, then the original. `None` when the signature
/// has no plain parameters to name.
pub fn contracted(variant: &Variant, contract: &str) -> Option<String> {
    let params: Vec<&str> = variant
        .signature
        .params
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let plain = |p: &&str| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_');
    if params.is_empty() || !params.iter().all(plain) {
        return None;
    }
    let entry = &variant.entry_point;
    let lines: Vec<&str> = contract.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return None;
    }
    let indent = lines
        .iter()
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let body: String = lines
        .iter()
        .map(|l| format!("    {}\n", &l[indent..]))
        .collect();
    let args = params.join(", ");
    Some(format!(
        "{code}\n\n_passrate_uncontracted_{entry} = {entry}\n\n\ndef {entry}({args}):\n{body}    return _passrate_uncontracted_{entry}({args})\n",
        code = variant.reference_solution.trim_end(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use passrate_schema::{Param, Signature};

    fn variant(code: &str, params: &[&str]) -> Variant {
        Variant {
            prompt: String::new(),
            entry_point: "f".into(),
            class_name: None,
            signature: Signature {
                params: params
                    .iter()
                    .map(|n| Param {
                        name: (*n).into(),
                        ty: None,
                    })
                    .collect(),
                returns: None,
            },
            reference_solution: code.into(),
            given_code: None,
            faulty_variants: Vec::new(),
            preamble: None,
        }
    }

    #[test]
    fn the_contract_wraps_the_entry_point_reindented() {
        let v = variant("def f(n, k):\n    return n * k\n", &["n", "k"]);
        let contract = "\n  assert isinstance(n, int), \"invalid inputs\" # $_CONTRACT_$\n  assert n > 0, \"invalid inputs\" # $_CONTRACT_$\n";
        let code = contracted(&v, contract).expect("wrapped");
        assert!(code.starts_with("def f(n, k):\n    return n * k\n"));
        assert!(code.contains("_passrate_uncontracted_f = f\n"));
        assert!(code.contains(
            "def f(n, k):\n    assert isinstance(n, int), \"invalid inputs\" # $_CONTRACT_$\n    assert n > 0,"
        ));
        assert!(code.ends_with("    return _passrate_uncontracted_f(n, k)\n"));
    }

    #[test]
    fn no_wrapper_without_plain_parameters_or_asserts() {
        assert_eq!(
            contracted(&variant("def f():\n    return 1\n", &[]), "assert True"),
            None
        );
        assert_eq!(
            contracted(&variant("def f(*xs):\n    pass\n", &["*xs"]), "assert xs"),
            None
        );
        assert_eq!(
            contracted(&variant("def f(x):\n    pass\n", &["x"]), "\n  \n"),
            None
        );
    }
}
