//! The signature a function declares, read from its syntax tree. The pool stores what this
//! returns for each reference, and the extractor checks answers against it, so one parser
//! decides both (a text scan once took a doc comment's `> f([1, 2], 3)` for the declaration).

use passrate_schema::{Language, Param, Signature};
use tree_sitter::Node;

use crate::structure::find_function;
use crate::syntax::{self, text};

/// The parameters (names, and declared types where the language has them) and the declared
/// return type of the function or method `name` in `code`. `None` when `code` declares no
/// such function. Python's `self`/`cls` of methods and the bare `*` and `/` markers are not
/// parameters a caller passes, so they are left out.
pub fn declared_signature(language: Language, code: &str, name: &str) -> Option<Signature> {
    let tree = syntax::parse(language, code).ok()?;
    let func = find_function(tree.root_node(), code, name)?;
    match language {
        Language::Python => python(func, code),
        Language::Javascript => javascript(func, code),
        Language::Java => java(func, code),
    }
}

fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

fn field_text(node: Node<'_>, field: &str, code: &str) -> Option<String> {
    node.child_by_field_name(field)
        .map(|n| text(n, code).trim().to_owned())
}

fn python(func: Node<'_>, code: &str) -> Option<Signature> {
    let params_node = func.child_by_field_name("parameters")?;
    let is_method = func
        .parent()
        .and_then(|block| block.parent())
        .is_some_and(|p| p.kind() == "class_definition");
    let mut params = Vec::new();
    for p in named_children(params_node) {
        let (name, ty) = match p.kind() {
            "identifier" => (text(p, code).to_owned(), None),
            "typed_parameter" => {
                let name = named_children(p)
                    .into_iter()
                    .find(|c| c.kind() != "type")
                    .map(|c| text(c, code).to_owned())?;
                (name, field_text(p, "type", code))
            }
            "default_parameter" | "typed_default_parameter" => {
                (field_text(p, "name", code)?, field_text(p, "type", code))
            }
            "list_splat_pattern" | "dictionary_splat_pattern" => (text(p, code).to_owned(), None),
            // `*` and `/` markers, comments.
            _ => continue,
        };
        params.push(Param { name, ty });
    }
    if is_method
        && params
            .first()
            .is_some_and(|p| p.name == "self" || p.name == "cls")
    {
        params.remove(0);
    }
    Some(Signature {
        params,
        returns: field_text(func, "return_type", code),
    })
}

fn javascript(func: Node<'_>, code: &str) -> Option<Signature> {
    // `const f = (a, b) => …` declares through its value.
    let callable = if func.kind() == "variable_declarator" {
        func.child_by_field_name("value")?
    } else {
        func
    };
    let mut params = Vec::new();
    if let Some(single) = callable.child_by_field_name("parameter") {
        params.push(Param {
            name: text(single, code).to_owned(),
            ty: None,
        });
    } else {
        let list = callable.child_by_field_name("parameters")?;
        for p in named_children(list) {
            let name = match p.kind() {
                "assignment_pattern" => field_text(p, "left", code)?,
                "comment" => continue,
                _ => text(p, code).to_owned(),
            };
            params.push(Param { name, ty: None });
        }
    }
    Some(Signature {
        params,
        returns: None,
    })
}

fn java(func: Node<'_>, code: &str) -> Option<Signature> {
    let list = func.child_by_field_name("parameters")?;
    let mut params = Vec::new();
    for p in named_children(list) {
        match p.kind() {
            "formal_parameter" => params.push(Param {
                name: field_text(p, "name", code)?,
                ty: field_text(p, "type", code).map(|t| {
                    // `int[] a` and `int a[]` declare the same type.
                    let dims = p
                        .child_by_field_name("dimensions")
                        .map(|d| text(d, code).trim().to_owned())
                        .unwrap_or_default();
                    format!("{t}{dims}")
                }),
            }),
            "spread_parameter" => {
                let children = named_children(p);
                let ty = children
                    .iter()
                    .find(|c| c.kind() != "variable_declarator" && c.kind() != "modifiers")
                    .map(|c| text(*c, code).trim().to_owned());
                let name = children
                    .iter()
                    .find(|c| c.kind() == "variable_declarator")
                    .and_then(|d| field_text(*d, "name", code))?;
                params.push(Param {
                    name,
                    ty: ty.map(|t| format!("{t}...")),
                });
            }
            _ => {}
        }
    }
    Some(Signature {
        params,
        returns: field_text(func, "type", code),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &Signature) -> Vec<&str> {
        s.params.iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn python_types_defaults_and_methods() {
        let s = declared_signature(
            Language::Python,
            "from typing import List\n\ndef has_close(numbers: List[float], t: float = 0.5, *rest, k=2) -> bool:\n    return True\n",
            "has_close",
        )
        .unwrap();
        assert_eq!(names(&s), ["numbers", "t", "*rest", "k"]);
        assert_eq!(s.params[0].ty.as_deref(), Some("List[float]"));
        assert_eq!(s.params[1].ty.as_deref(), Some("float"));
        assert_eq!(s.params[3].ty, None);
        assert_eq!(s.returns.as_deref(), Some("bool"));
        let m = declared_signature(
            Language::Python,
            "class A:\n    def f(self, x, /, y, *, z):\n        return x\n",
            "f",
        )
        .unwrap();
        assert_eq!(names(&m), ["x", "y", "z"]);
    }

    #[test]
    fn javascript_declarations_and_arrows() {
        let s = declared_signature(
            Language::Javascript,
            "// sum(1, 2)\nconst sum = (a, b = 2, ...more) => a + b;\n",
            "sum",
        )
        .unwrap();
        assert_eq!(names(&s), ["a", "b", "...more"]);
        let s =
            declared_signature(Language::Javascript, "const inc = x => x + 1;\n", "inc").unwrap();
        assert_eq!(names(&s), ["x"]);
        let s = declared_signature(
            Language::Javascript,
            "function similarElements(testTup1, testTup2) { return []; }\n",
            "similarElements",
        )
        .unwrap();
        assert_eq!(names(&s), ["testTup1", "testTup2"]);
    }

    /// MBXP's Java prompts quote example calls in the Javadoc before the declaration; the
    /// signature must come from the declaration.
    #[test]
    fn java_reads_the_declaration_not_the_doc_example() {
        let code = "import java.util.*;\n\nclass MinCost {\n    /**\n     * > minCost([[1, 2, 3], [4, 8, 2], [1, 5, 3]], 2, 2)\n     * 8\n     */\n    public static int minCost(List<List<Integer>> cost, int m, int n) {\n        return 0;\n    }\n}\n";
        let s = declared_signature(Language::Java, code, "minCost").unwrap();
        assert_eq!(names(&s), ["cost", "m", "n"]);
        assert_eq!(s.params[0].ty.as_deref(), Some("List<List<Integer>>"));
        assert_eq!(s.params[1].ty.as_deref(), Some("int"));
        assert_eq!(s.returns.as_deref(), Some("int"));
    }

    #[test]
    fn java_arrays_varargs_and_generics() {
        let code = "class S {\n    public Map<String, Integer> h(final int[] a, int b[], String... rest) { return null; }\n}\n";
        let s = declared_signature(Language::Java, code, "h").unwrap();
        assert_eq!(names(&s), ["a", "b", "rest"]);
        assert_eq!(s.params[0].ty.as_deref(), Some("int[]"));
        assert_eq!(s.params[1].ty.as_deref(), Some("int[]"));
        assert_eq!(s.params[2].ty.as_deref(), Some("String..."));
        assert_eq!(s.returns.as_deref(), Some("Map<String, Integer>"));
    }

    #[test]
    fn missing_function_is_none() {
        assert!(declared_signature(Language::Python, "def g(): pass\n", "f").is_none());
    }
}
