//! A stub of a task's entry point: the same name and, in Java, the same declaration, with a
//! body that returns at once. Executed on a task's inputs it costs what the harness costs
//! (starting, decoding the arguments, encoding a trivial result) and nothing else, which is
//! the baseline efficiency subtracts before comparing an answer's CPU with the reference's.

use passrate_schema::Language;

use crate::syntax::{self, text};

/// The stub for `entry_point`: for Python and JavaScript a function of any arguments
/// returning `None`/`null`; for Java, `reference` with the entry point's body replaced by a
/// `return` of its type's default value (so the class, imports and signature stay the
/// reference's). `None` when the Java reference has no method of that name.
pub fn entry_point_stub(language: Language, reference: &str, entry_point: &str) -> Option<String> {
    match language {
        Language::Python => Some(format!(
            "def {entry_point}(*args, **kwargs):\n    return None\n"
        )),
        Language::Javascript => Some(format!(
            "function {entry_point}(...args) {{\n  return null;\n}}\n"
        )),
        Language::Java => java_stub(reference, entry_point),
    }
}

fn java_stub(reference: &str, entry_point: &str) -> Option<String> {
    let tree = syntax::parse(Language::Java, reference).ok()?;
    let mut found = None;
    syntax::walk(tree.root_node(), |n| {
        if found.is_some() {
            return false;
        }
        if n.kind() == "method_declaration"
            && n.child_by_field_name("name")
                .is_some_and(|name| text(name, reference) == entry_point)
            && let Some(body) = n.child_by_field_name("body")
        {
            found = Some((
                n.child_by_field_name("type")
                    .map(|t| text(t, reference).to_string()),
                body.byte_range(),
            ));
            return false;
        }
        true
    });
    let (ty, body) = found?;
    let value = match ty.as_deref() {
        Some("void") => None,
        Some("boolean") => Some("false"),
        Some("char") => Some("'\\0'"),
        Some("int" | "long" | "short" | "byte") => Some("0"),
        Some("double" | "float") => Some("0.0"),
        _ => Some("null"),
    };
    let body_text = match value {
        Some(v) => format!("{{ return ({}) {v}; }}", ty.as_deref().unwrap_or("Object")),
        None => "{ }".to_string(),
    };
    let mut stub = reference.to_string();
    stub.replace_range(body, &body_text);
    Some(stub)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_keeps_the_declaration_and_returns_the_default_of_its_type() {
        let reference = "import java.util.*;\nclass Solution {\n    public int fizzBuzz(int n) {\n        int c = 0;\n        for (int i = 0; i < n; i++) c += i;\n        return c;\n    }\n    private int helper() { return 1; }\n}\n";
        let stub = entry_point_stub(Language::Java, reference, "fizzBuzz").unwrap();
        assert_eq!(
            stub,
            "import java.util.*;\nclass Solution {\n    public int fizzBuzz(int n) { return (int) 0; }\n    private int helper() { return 1; }\n}\n"
        );
        let list = "class Solution {\n    public List<Integer> f(List<Integer> xs) {\n        return xs;\n    }\n}\n";
        assert!(
            entry_point_stub(Language::Java, list, "f")
                .unwrap()
                .contains("{ return (List<Integer>) null; }")
        );
        assert_eq!(entry_point_stub(Language::Java, list, "g"), None);
    }

    #[test]
    fn python_and_javascript_take_any_arguments() {
        assert_eq!(
            entry_point_stub(Language::Python, "", "f").unwrap(),
            "def f(*args, **kwargs):\n    return None\n"
        );
        assert_eq!(
            entry_point_stub(Language::Javascript, "", "f").unwrap(),
            "function f(...args) {\n  return null;\n}\n"
        );
    }
}
