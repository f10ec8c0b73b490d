//! Mechanical mutants of a program, made on its syntax tree: the faults a test suite should
//! catch. Each mutant changes one place: a comparison's operator moved across its boundary
//! (`<` ↔ `<=`, `>` ↔ `>=`, `==` ↔ `!=`), arithmetic swapped (`+` ↔ `-`, `*` → `+`,
//! `//` and `/` → `*`, `%` → `//`), a boolean connective flipped (`and` ↔ `or`, `&&` ↔ `||`),
//! a negation dropped, an integer literal off by one, a boolean literal flipped, or an `if`
//! condition negated (a dropped or inverted branch).
//!
//! Mutants that do not parse are not produced; what a mutant means (whether it is equivalent
//! to the original) is for the caller to find out by running it.

use passrate_schema::Language;
use tree_sitter::Node;

use crate::syntax::{parse, text, walk};

/// One mutant: what was changed, where, and the whole mutated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutant {
    /// E.g. "line 4: `<` → `<=`".
    pub description: String,
    pub code: String,
}

/// Operator replacements: (operator, replacement).
const OPERATORS: &[(&str, &str)] = &[
    ("<", "<="),
    ("<=", "<"),
    (">", ">="),
    (">=", ">"),
    ("==", "!="),
    ("!=", "=="),
    ("===", "!=="),
    ("!==", "==="),
    ("+", "-"),
    ("-", "+"),
    ("*", "+"),
    ("/", "*"),
    ("//", "*"),
    ("%", "//"),
    ("and", "or"),
    ("or", "and"),
    ("&&", "||"),
    ("||", "&&"),
    ("+=", "-="),
    ("-=", "+="),
];

/// Syntax nodes whose operator child is a binary operator in each grammar.
const BINARY_PARENTS: &[&str] = &[
    "comparison_operator",
    "binary_operator",
    "boolean_operator",
    "binary_expression",
    "augmented_assignment",
    "augmented_assignment_expression",
];

/// At most `limit` mutants of `code`, spread evenly over all the program's mutation points
/// (in source order), so that a long program is not mutated only at its top.
pub fn mutants(language: Language, code: &str, limit: usize) -> Vec<Mutant> {
    let Ok(tree) = parse(language, code) else {
        return Vec::new();
    };
    let mut edits: Vec<(std::ops::Range<usize>, String, String)> = Vec::new();
    walk(tree.root_node(), |node| {
        edits_at(language, node, code, &mut edits);
        true
    });
    let mut out = Vec::new();
    let step = (edits.len() as f64 / limit.max(1) as f64).max(1.0);
    let mut next = 0.0;
    for (i, (range, replacement, what)) in edits.iter().enumerate() {
        if out.len() == limit {
            break;
        }
        if (i as f64) < next {
            continue;
        }
        let mut mutated = String::with_capacity(code.len() + replacement.len());
        mutated.push_str(&code[..range.start]);
        mutated.push_str(replacement);
        mutated.push_str(&code[range.end..]);
        let parses = parse(language, &mutated).is_ok_and(|t| !t.root_node().has_error());
        if parses {
            next += step;
            let line = code[..range.start].matches('\n').count() + 1;
            out.push(Mutant {
                description: format!("line {line}: {what}"),
                code: mutated,
            });
        }
    }
    out
}

/// The mutations at `node` (byte range, replacement, description).
fn edits_at(
    language: Language,
    node: Node<'_>,
    code: &str,
    edits: &mut Vec<(std::ops::Range<usize>, String, String)>,
) {
    let kind = node.kind();
    // An operator token of a binary expression.
    if !node.is_named()
        && node
            .parent()
            .is_some_and(|p| BINARY_PARENTS.contains(&p.kind()))
        && let Some((_, to)) = OPERATORS.iter().find(|(from, _)| *from == kind)
    {
        // Python's `/` → `*` and `//` → `*` are fine; `%` → `//` only where it exists.
        if *to == "//" && language != Language::Python {
            return;
        }
        edits.push((
            node.byte_range(),
            (*to).to_owned(),
            format!("`{kind}` → `{to}`"),
        ));
        return;
    }
    match kind {
        // Integer literals, off by one.
        "integer" | "number" | "decimal_integer_literal" => {
            let t = text(node, code);
            if let Ok(n) = t.parse::<i64>()
                && n.unsigned_abs() < 1 << 40
            {
                for m in [n + 1, n - 1] {
                    if m >= 0 {
                        edits.push((node.byte_range(), m.to_string(), format!("`{t}` → `{m}`")));
                    }
                }
            }
        }
        "true" | "false" => {
            let t = text(node, code);
            let flipped = match t {
                "True" => "False",
                "False" => "True",
                "true" => "false",
                "false" => "true",
                _ => return,
            };
            edits.push((
                node.byte_range(),
                flipped.to_owned(),
                format!("`{t}` → `{flipped}`"),
            ));
        }
        // A negation dropped.
        "not_operator" => {
            if let Some(arg) = node.child_by_field_name("argument") {
                edits.push((
                    node.byte_range(),
                    text(arg, code).to_owned(),
                    "`not` dropped".into(),
                ));
            }
        }
        "unary_expression"
            if node
                .child_by_field_name("operator")
                .is_some_and(|op| op.kind() == "!") =>
        {
            if let Some(arg) = node.child_by_field_name("argument") {
                edits.push((
                    node.byte_range(),
                    text(arg, code).to_owned(),
                    "`!` dropped".into(),
                ));
            }
        }
        // An `if` condition negated: the branch taken and the one skipped swap.
        "if_statement" | "elif_clause" => {
            if let Some(cond) = node.child_by_field_name("condition") {
                let c = text(cond, code);
                let negated = match language {
                    Language::Python => format!("not ({c})"),
                    // The condition node includes its parentheses.
                    Language::Javascript | Language::Java => format!("(!{c})"),
                };
                edits.push((cond.byte_range(), negated, "condition negated".into()));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_mutants_each_change_one_place_and_parse() {
        let code = "def f(xs, k):\n    total = 0\n    for x in xs:\n        if x < k and not x == 3:\n            total += x\n    return total\n";
        let all = mutants(Language::Python, code, 100);
        let described: Vec<&str> = all.iter().map(|m| m.description.as_str()).collect();
        for want in [
            "line 4: `<` → `<=`",
            "line 4: `and` → `or`",
            "line 4: `not` dropped",
            "line 4: `==` → `!=`",
            "line 4: condition negated",
            "line 5: `+=` → `-=`",
            "line 2: `0` → `1`",
        ] {
            assert!(
                described.contains(&want),
                "{want} missing from {described:?}"
            );
        }
        for m in &all {
            assert_ne!(m.code, code);
            assert!(
                !parse(Language::Python, &m.code)
                    .unwrap()
                    .root_node()
                    .has_error()
            );
        }
        let negated = all
            .iter()
            .find(|m| m.description == "line 4: condition negated")
            .unwrap();
        assert!(
            negated.code.contains("if not (x < k and not x == 3):"),
            "{}",
            negated.code
        );
    }

    #[test]
    fn javascript_and_java_mutants() {
        let js =
            "function f(a, b) {\n  if (a >= b || !a) { return true; }\n  return a % 2 === 0;\n}\n";
        let d: Vec<String> = mutants(Language::Javascript, js, 100)
            .into_iter()
            .map(|m| m.description)
            .collect();
        for want in [
            "line 2: `>=` → `>`",
            "line 2: `||` → `&&`",
            "line 2: `!` dropped",
            "line 2: condition negated",
            "line 2: `true` → `false`",
            "line 3: `===` → `!==`",
        ] {
            assert!(d.iter().any(|x| x == want), "{want} missing from {d:?}");
        }
        let java = "class Solution {\n    int f(int n) {\n        if (n > 1) return n - 1;\n        return 0;\n    }\n}\n";
        let d: Vec<String> = mutants(Language::Java, java, 100)
            .into_iter()
            .map(|m| m.description)
            .collect();
        for want in [
            "line 3: `>` → `>=`",
            "line 3: `-` → `+`",
            "line 3: condition negated",
            "line 4: `0` → `1`",
        ] {
            assert!(d.iter().any(|x| x == want), "{want} missing from {d:?}");
        }
    }

    #[test]
    fn the_limit_spreads_over_the_program() {
        let code = (0..30)
            .map(|i| format!("def f{i}(x):\n    return x + {i}\n"))
            .collect::<String>();
        let some = mutants(Language::Python, &code, 5);
        assert_eq!(some.len(), 5);
        let last_line: usize = some
            .last()
            .unwrap()
            .description
            .trim_start_matches("line ")
            .split(':')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(last_line > 40, "{:?}", some);
    }
}
