//! Structural measurements on the syntax tree, the one definition that refactoring targets
//! are set in (pool intake) and checked against (the refactoring grader):
//!
//! * **functions**: Python `def`s; JavaScript function declarations, methods and `const f =
//!   (…) => …` / `function` expressions bound to a name; Java methods and constructors.
//!   Each is measured on its own body; a named function nested in another is measured
//!   separately and left out of its parent. Lambdas and anonymous callbacks count as part of
//!   the function they are written in.
//! * **nesting depth**: the most control-flow statements open at once (`if`, `for`,
//!   `while`, `do`, `try`, `with`, `switch`/`match`); `elif`/`else if` continue their `if`
//!   and do not nest.
//! * **cyclomatic complexity** (McCabe): 1 + decision points: `if`, `elif`/`else if`, loops,
//!   comprehension `for`/`if` clauses, `case`s, `except`/`catch`, conditional expressions,
//!   and each boolean operator (`and`, `or`, `&&`, `||`, `??`).
//! * **lines**: lines of the function holding a token that is not a comment or docstring.
//! * **duplicated blocks**: the same run of [`DUPLICATE_MIN_STATEMENTS`] consecutive
//!   statements (at least [`DUPLICATE_MIN_WINDOW_TOKENS`] tokens together) twice, or one
//!   statement of at least [`DUPLICATE_MIN_TOKENS`] tokens twice, anywhere in the code, the
//!   occurrences not overlapping. Statements compare by their tokens (comments and layout
//!   ignored, names kept: copies, not look-alikes).
//!
//! For [`crate::maintain`] (defined precisely there): statements in the whole code and the
//! one-letter names it binds.

use std::collections::HashMap;

use passrate_schema::Language;
use tree_sitter::Node;

use crate::syntax::{self, ParseError, text};

pub const DUPLICATE_MIN_STATEMENTS: usize = 3;
pub const DUPLICATE_MIN_WINDOW_TOKENS: usize = 10;
pub const DUPLICATE_MIN_TOKENS: usize = 20;

/// One function's measurements.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FunctionMetrics {
    pub name: String,
    pub nesting_depth: u32,
    pub cyclomatic_complexity: u32,
    pub lines: u32,
}

/// Code that appears twice.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Duplicate {
    /// 1-based first lines of the two occurrences.
    pub lines: (usize, usize),
    pub statements: usize,
    pub tokens: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub struct Measurements {
    /// In source order.
    pub functions: Vec<FunctionMetrics>,
    pub duplicates: Vec<Duplicate>,
}

impl Measurements {
    pub fn max_nesting_depth(&self) -> u32 {
        self.functions
            .iter()
            .map(|f| f.nesting_depth)
            .max()
            .unwrap_or(0)
    }
    pub fn max_cyclomatic_complexity(&self) -> u32 {
        self.functions
            .iter()
            .map(|f| f.cyclomatic_complexity)
            .max()
            .unwrap_or(0)
    }
    pub fn max_function_lines(&self) -> u32 {
        self.functions.iter().map(|f| f.lines).max().unwrap_or(0)
    }
}

/// Measures every function of `code` and finds its duplicated blocks.
pub fn measure(language: Language, code: &str) -> Result<Measurements, ParseError> {
    let tree = syntax::parse(language, code)?;
    Ok(measure_tree(language, tree.root_node(), code))
}

/// [`measure`] on an already parsed tree.
pub(crate) fn measure_tree(language: Language, root: Node<'_>, code: &str) -> Measurements {
    let mut functions = Vec::new();
    syntax::walk(root, |n| {
        if let Some((name, func)) = named_function(language, n, code) {
            functions.push(function_metrics(language, name, func, code));
        }
        true
    });
    Measurements {
        functions,
        duplicates: duplicates(language, root, code),
    }
}

/// The code outside every named function (imports, class bodies, script code, anonymous
/// functions written there) measured as one more function would be.
pub(crate) fn top_level_metrics(language: Language, root: Node<'_>, code: &str) -> FunctionMetrics {
    function_metrics(language, String::new(), root, code)
}

/// `(name, function node)` if `n` defines a named function.
fn named_function<'t>(language: Language, n: Node<'t>, code: &str) -> Option<(String, Node<'t>)> {
    let name = |n: Node<'t>| {
        n.child_by_field_name("name")
            .map(|x| text(x, code).to_owned())
    };
    match (language, n.kind()) {
        (Language::Python, "function_definition")
        | (
            Language::Javascript,
            "function_declaration" | "generator_function_declaration" | "method_definition",
        )
        | (Language::Java, "method_declaration" | "constructor_declaration") => Some((name(n)?, n)),
        (Language::Javascript, "variable_declarator") => {
            let value = n.child_by_field_name("value")?;
            matches!(
                value.kind(),
                "arrow_function" | "function_expression" | "function" | "generator_function"
            )
            .then(|| Some((name(n)?, value)))
            .flatten()
        }
        _ => None,
    }
}

fn is_control(language: Language, n: Node<'_>) -> bool {
    let kind = n.kind();
    let control = match language {
        Language::Python => matches!(
            kind,
            "if_statement"
                | "for_statement"
                | "while_statement"
                | "try_statement"
                | "with_statement"
                | "match_statement"
        ),
        Language::Javascript => matches!(
            kind,
            "if_statement"
                | "for_statement"
                | "for_in_statement"
                | "while_statement"
                | "do_statement"
                | "try_statement"
                | "switch_statement"
        ),
        Language::Java => matches!(
            kind,
            "if_statement"
                | "for_statement"
                | "enhanced_for_statement"
                | "while_statement"
                | "do_statement"
                | "try_statement"
                | "try_with_resources_statement"
                | "switch_expression"
        ),
    };
    control && !is_else_if(n)
}

/// `else if`: an `if` that is its parent `if`'s alternative (JavaScript through an
/// `else_clause`).
fn is_else_if(n: Node<'_>) -> bool {
    if n.kind() != "if_statement" {
        return false;
    }
    let Some(parent) = n.parent() else {
        return false;
    };
    let owner = if parent.kind() == "else_clause" {
        match parent.parent() {
            Some(p) => p,
            None => return false,
        }
    } else {
        parent
    };
    owner.kind() == "if_statement"
        && (parent.kind() == "else_clause"
            || owner
                .child_by_field_name("alternative")
                .is_some_and(|a| a == n))
}

fn is_decision(language: Language, n: Node<'_>, code: &str) -> bool {
    let kind = n.kind();
    let operator = || {
        n.child_by_field_name("operator")
            .map(|o| text(o, code))
            .unwrap_or("")
    };
    match language {
        Language::Python => matches!(
            kind,
            "if_statement"
                | "elif_clause"
                | "for_statement"
                | "while_statement"
                | "except_clause"
                | "conditional_expression"
                | "boolean_operator"
                | "for_in_clause"
                | "if_clause"
                | "case_clause"
        ),
        Language::Javascript => {
            matches!(
                kind,
                "if_statement"
                    | "for_statement"
                    | "for_in_statement"
                    | "while_statement"
                    | "do_statement"
                    | "catch_clause"
                    | "ternary_expression"
                    | "switch_case"
            ) || (kind == "binary_expression" && matches!(operator(), "&&" | "||" | "??"))
        }
        Language::Java => {
            matches!(
                kind,
                "if_statement"
                    | "for_statement"
                    | "enhanced_for_statement"
                    | "while_statement"
                    | "do_statement"
                    | "catch_clause"
                    | "ternary_expression"
            ) || (kind == "switch_label" && text(n, code).trim_start().starts_with("case"))
                || (kind == "binary_expression" && matches!(operator(), "&&" | "||"))
        }
    }
}

/// Whether `n` is a Python docstring (a bare string as a block's first statement).
fn is_docstring(language: Language, n: Node<'_>) -> bool {
    language == Language::Python
        && n.kind() == "expression_statement"
        && n.parent()
            .and_then(|p| crate::items::python_docstring(p))
            .is_some_and(|d| d == n)
}

fn function_metrics(
    language: Language,
    name: String,
    func: Node<'_>,
    code: &str,
) -> FunctionMetrics {
    let mut max_depth = 0u32;
    let mut decisions = 0u32;
    let mut rows = std::collections::BTreeSet::new();
    // Explicit stack: answers may nest deeper than the thread's stack allows.
    let mut stack: Vec<(Node<'_>, u32)> = vec![(func, 0)];
    while let Some((n, depth)) = stack.pop() {
        // A named function inside is measured on its own.
        if n != func && named_function(language, n, code).is_some() {
            continue;
        }
        if syntax::is_comment(n) || is_docstring(language, n) {
            continue;
        }
        let depth = if is_control(language, n) {
            let d = depth + 1;
            max_depth = max_depth.max(d);
            d
        } else {
            depth
        };
        if is_decision(language, n, code) {
            decisions += 1;
        }
        if n.child_count() == 0 {
            for row in n.start_position().row..=n.end_position().row {
                rows.insert(row);
            }
        }
        let mut c = n.walk();
        for child in n.children(&mut c) {
            stack.push((child, depth));
        }
    }
    FunctionMetrics {
        name,
        nesting_depth: max_depth,
        cyclomatic_complexity: 1 + decisions,
        lines: rows.len() as u32,
    }
}

fn is_statement_list(language: Language, kind: &str) -> bool {
    match language {
        Language::Python => matches!(kind, "module" | "block"),
        Language::Javascript => matches!(
            kind,
            "program" | "statement_block" | "switch_case" | "switch_default"
        ),
        Language::Java => matches!(
            kind,
            "program" | "block" | "switch_block_statement_group" | "constructor_body"
        ),
    }
}

/// Hash and token count of a statement, comments and docstrings left out.
fn statement_key(language: Language, stmt: Node<'_>, code: &str) -> (blake3::Hash, usize) {
    let mut hasher = blake3::Hasher::new();
    let mut tokens = 0usize;
    syntax::walk(stmt, |n| {
        if syntax::is_comment(n) || is_docstring(language, n) {
            return false;
        }
        hasher.update(&n.kind_id().to_le_bytes());
        if n.child_count() == 0 {
            tokens += 1;
            let t = text(n, code);
            hasher.update(&(t.len() as u64).to_le_bytes());
            hasher.update(t.as_bytes());
        }
        true
    });
    (hasher.finalize(), tokens)
}

fn duplicates(language: Language, root: Node<'_>, code: &str) -> Vec<Duplicate> {
    struct Stmt {
        key: blake3::Hash,
        tokens: usize,
        line: usize,
        start: usize,
        end: usize,
    }
    let mut lists: Vec<Vec<Stmt>> = Vec::new();
    let mut singles: Vec<Stmt> = Vec::new();
    syntax::walk(root, |n| {
        if is_statement_list(language, n.kind()) {
            let mut c = n.walk();
            let stmts: Vec<Stmt> = n
                .named_children(&mut c)
                .filter(|s| !syntax::is_comment(*s) && !is_docstring(language, *s))
                .filter(|s| s.kind() != "switch_label" && !s.kind().ends_with("_label"))
                .map(|s| {
                    let (key, tokens) = statement_key(language, s, code);
                    Stmt {
                        key,
                        tokens,
                        line: s.start_position().row + 1,
                        start: s.start_byte(),
                        end: s.end_byte(),
                    }
                })
                .collect();
            lists.push(stmts);
        }
        true
    });
    let mut found = Vec::new();
    // Runs of consecutive statements.
    let mut windows: HashMap<Vec<blake3::Hash>, (usize, usize, usize)> = HashMap::new();
    for list in &lists {
        for w in list.windows(DUPLICATE_MIN_STATEMENTS) {
            let tokens: usize = w.iter().map(|s| s.tokens).sum();
            if tokens < DUPLICATE_MIN_WINDOW_TOKENS {
                continue;
            }
            let key: Vec<blake3::Hash> = w.iter().map(|s| s.key).collect();
            let (start, end) = (w[0].start, w[w.len() - 1].end);
            match windows.get(&key) {
                Some(&(line, s0, e0)) if end <= s0 || start >= e0 => {
                    found.push(Duplicate {
                        lines: (line, w[0].line),
                        statements: DUPLICATE_MIN_STATEMENTS,
                        tokens,
                    });
                }
                Some(_) => {}
                None => {
                    windows.insert(key, (w[0].line, start, end));
                }
            }
        }
    }
    // Single large statements (a copied loop, a copied branch).
    let mut seen: HashMap<blake3::Hash, (usize, usize, usize)> = HashMap::new();
    for list in lists {
        singles.extend(list);
    }
    singles.sort_by_key(|s| s.start);
    for s in &singles {
        if s.tokens < DUPLICATE_MIN_TOKENS {
            continue;
        }
        match seen.get(&s.key) {
            Some(&(line, s0, e0)) if s.end <= s0 || s.start >= e0 => found.push(Duplicate {
                lines: (line, s.line),
                statements: 1,
                tokens: s.tokens,
            }),
            Some(_) => {}
            None => {
                seen.insert(s.key, (s.line, s.start, s.end));
            }
        }
    }
    found.sort_by_key(|d| d.lines);
    found.dedup_by_key(|d| d.lines);
    found
}

/// A node's children with the grammar field each stands in.
fn fielded_children<'t>(n: Node<'t>) -> Vec<(Option<&'t str>, Node<'t>)> {
    let mut cursor = n.walk();
    let mut out = Vec::new();
    if cursor.goto_first_child() {
        loop {
            out.push((cursor.field_name(), cursor.node()));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

/// Whether `child`, in `field` of `parent`, is part of a loop header (`for` initialiser,
/// condition, update, loop variable and iterable; a comprehension's `for` clause).
fn in_loop_header(parent: Node<'_>, field: Option<&str>) -> bool {
    matches!(
        parent.kind(),
        "for_statement" | "for_in_statement" | "enhanced_for_statement" | "for_in_clause"
    ) && !matches!(field, Some("body" | "alternative"))
}

fn is_statement(language: Language, n: Node<'_>) -> bool {
    let kind = n.kind();
    match language {
        Language::Python => matches!(
            kind,
            "expression_statement"
                | "return_statement"
                | "raise_statement"
                | "pass_statement"
                | "break_statement"
                | "continue_statement"
                | "import_statement"
                | "import_from_statement"
                | "future_import_statement"
                | "assert_statement"
                | "delete_statement"
                | "global_statement"
                | "nonlocal_statement"
                | "print_statement"
                | "exec_statement"
                | "type_alias_statement"
                | "if_statement"
                | "elif_clause"
                | "for_statement"
                | "while_statement"
                | "try_statement"
                | "with_statement"
                | "match_statement"
                | "function_definition"
                | "class_definition"
        ),
        Language::Javascript => {
            matches!(
                kind,
                "expression_statement"
                    | "lexical_declaration"
                    | "variable_declaration"
                    | "using_declaration"
                    | "return_statement"
                    | "throw_statement"
                    | "break_statement"
                    | "continue_statement"
                    | "debugger_statement"
                    | "import_statement"
                    | "field_definition"
                    | "if_statement"
                    | "for_statement"
                    | "for_in_statement"
                    | "while_statement"
                    | "do_statement"
                    | "try_statement"
                    | "switch_statement"
                    | "with_statement"
                    | "function_declaration"
                    | "generator_function_declaration"
                    | "class_declaration"
                    | "method_definition"
            ) || (kind == "export_statement" && n.child_by_field_name("declaration").is_none())
        }
        Language::Java => matches!(
            kind,
            "expression_statement"
                | "local_variable_declaration"
                | "field_declaration"
                | "constant_declaration"
                | "return_statement"
                | "throw_statement"
                | "break_statement"
                | "continue_statement"
                | "yield_statement"
                | "assert_statement"
                | "import_declaration"
                | "package_declaration"
                | "explicit_constructor_invocation"
                | "if_statement"
                | "for_statement"
                | "enhanced_for_statement"
                | "while_statement"
                | "do_statement"
                | "try_statement"
                | "try_with_resources_statement"
                | "switch_expression"
                | "synchronized_statement"
                | "method_declaration"
                | "constructor_declaration"
                | "compact_constructor_declaration"
                | "class_declaration"
                | "interface_declaration"
                | "enum_declaration"
                | "record_declaration"
                | "annotation_type_declaration"
        ),
    }
}

/// Statements in the whole code: simple statements and compound-statement headers, each
/// `elif`/`else if` one more; not blocks, `else`/`except`/`catch`/`finally`/`case` clauses,
/// labels, comments, Python docstrings, nor a declaration inside a `for` header.
pub(crate) fn count_statements(language: Language, root: Node<'_>) -> u32 {
    let mut count = 0u32;
    // (node, whether it stands in a loop header); explicit stack for deep code.
    let mut stack = vec![(root, false)];
    while let Some((n, header)) = stack.pop() {
        if syntax::is_comment(n) || is_docstring(language, n) {
            continue;
        }
        if !header && is_statement(language, n) {
            count = count.saturating_add(1);
        }
        for (field, child) in fielded_children(n) {
            stack.push((child, in_loop_header(n, field)));
        }
    }
    count
}

/// Distinct names of one alphabetic character bound by an assignment or a variable
/// declaration (Python: `=` and `:=` targets, `with … as`, `import … as`; JavaScript:
/// declarators and `=` targets, destructuring included; Java: declarators, resources and `=`
/// targets), minus the parameter names of every named function. Not counted: loop headers,
/// comprehension clauses, lambda and catch parameters (never bindings here), augmented
/// assignments (`x += 1` rebinds), attribute and index targets, and names bound to a function
/// (a named function of this module, a Python or Java lambda assigned to a name).
pub(crate) fn short_names(
    language: Language,
    root: Node<'_>,
    code: &str,
) -> std::collections::BTreeSet<String> {
    let mut bound = std::collections::BTreeSet::new();
    let mut parameters = std::collections::HashSet::new();
    let mut stack = vec![(root, false)];
    while let Some((n, header)) = stack.pop() {
        if let Some((_, func)) = named_function(language, n, code) {
            parameter_names(func, code, &mut parameters);
        }
        if !header && let Some(target) = binding_target(language, n, code) {
            pattern_names(target, code, &mut bound);
        }
        for (field, child) in fielded_children(n) {
            stack.push((child, header || in_loop_header(n, field)));
        }
    }
    bound.retain(|name| {
        let mut chars = name.chars();
        let short = matches!((chars.next(), chars.next()), (Some(c), None) if c.is_alphabetic());
        short && !parameters.contains(name)
    });
    bound
}

/// The target an assignment or declaration node binds.
fn binding_target<'t>(language: Language, n: Node<'t>, code: &str) -> Option<Node<'t>> {
    match (language, n.kind()) {
        (Language::Python, "assignment") => {
            let left = n.child_by_field_name("left")?;
            let lambda = n
                .child_by_field_name("right")
                .is_some_and(|r| r.kind() == "lambda");
            (!lambda).then_some(left)
        }
        (Language::Python, "named_expression") => n.child_by_field_name("name"),
        (Language::Python, "as_pattern") => n
            .parent()
            .filter(|p| p.kind() == "with_item")
            .and_then(|_| n.child_by_field_name("alias")),
        (Language::Python, "aliased_import") => n.child_by_field_name("alias"),
        (Language::Javascript, "variable_declarator") => {
            if named_function(language, n, code).is_some() {
                None
            } else {
                n.child_by_field_name("name")
            }
        }
        (Language::Java, "variable_declarator" | "resource") => {
            let lambda = n
                .child_by_field_name("value")
                .is_some_and(|v| v.kind() == "lambda_expression");
            if lambda {
                None
            } else {
                n.child_by_field_name("name")
            }
        }
        (Language::Javascript | Language::Java, "assignment_expression") => {
            n.child_by_field_name("left")
        }
        _ => None,
    }
}

/// Names a binding target binds: plain names, and the names inside tuple, list, array and
/// object patterns; attribute, member and index targets bind none.
fn pattern_names(target: Node<'_>, code: &str, into: &mut std::collections::BTreeSet<String>) {
    let mut stack = vec![target];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                into.insert(text(n, code).to_owned());
            }
            "as_pattern_target" if n.named_child_count() == 0 => {
                into.insert(text(n, code).to_owned());
            }
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "list_splat_pattern"
            | "as_pattern_target"
            | "object_pattern"
            | "array_pattern"
            | "rest_pattern"
            | "parenthesized_expression" => {
                let mut c = n.walk();
                stack.extend(n.named_children(&mut c));
            }
            "pair_pattern" => stack.extend(n.child_by_field_name("value")),
            "assignment_pattern" | "object_assignment_pattern" => {
                stack.extend(n.child_by_field_name("left"));
            }
            _ => {}
        }
    }
}

/// Names of a function's parameters (not their types or default values).
fn parameter_names(func: Node<'_>, code: &str, into: &mut std::collections::HashSet<String>) {
    let Some(params) = func
        .child_by_field_name("parameters")
        .or_else(|| func.child_by_field_name("parameter"))
    else {
        return;
    };
    let mut stack = vec![params];
    while let Some(n) = stack.pop() {
        if matches!(
            n.kind(),
            "identifier" | "shorthand_property_identifier_pattern"
        ) {
            into.insert(text(n, code).to_owned());
            continue;
        }
        for (field, child) in fielded_children(n) {
            if !matches!(
                field,
                Some("type" | "value" | "right" | "dimensions" | "decorator")
            ) {
                stack.push(child);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(language: Language, code: &str) -> FunctionMetrics {
        let m = measure(language, code).unwrap();
        assert_eq!(m.functions.len(), 1, "{:?}", m.functions);
        m.functions[0].clone()
    }

    #[test]
    fn python_function_metrics() {
        let code = "def f(xs, t):\n    \"\"\"Doc.\n    more\n    \"\"\"\n    # note\n    for a in xs:\n        for b in xs:\n            if a != b and abs(a - b) < t:\n                return True\n            elif a > 3:\n                pass\n    return [x for x in xs if x] if xs else None\n";
        let m = one(Language::Python, code);
        assert_eq!(m.nesting_depth, 3);
        // 1 + for + for + if + and + elif + for_in + if_clause + conditional
        assert_eq!(m.cyclomatic_complexity, 9);
        assert_eq!(m.lines, 8);
    }

    #[test]
    fn nested_named_functions_are_measured_apart() {
        let code = "def outer(x):\n    def inner(y):\n        if y:\n            if y > 1:\n                return 2\n        return 0\n    return inner(x)\n";
        let m = measure(Language::Python, code).unwrap();
        let names: Vec<_> = m
            .functions
            .iter()
            .map(|f| {
                (
                    f.name.as_str(),
                    f.nesting_depth,
                    f.cyclomatic_complexity,
                    f.lines,
                )
            })
            .collect();
        assert_eq!(names, vec![("outer", 0, 1, 2), ("inner", 2, 3, 5)]);
        assert_eq!(m.max_nesting_depth(), 2);
    }

    #[test]
    fn javascript_else_if_does_not_nest() {
        let code = "const f = (n) => {\n  if (n > 0) {\n    return 1;\n  } else if (n < 0 && n > -9) {\n    return -1;\n  }\n  return n ? 2 : (n ?? 0);\n};\nfunction g() { return 1; }\n";
        let m = measure(Language::Javascript, code).unwrap();
        assert_eq!(m.functions[0].name, "f");
        assert_eq!(m.functions[0].nesting_depth, 1);
        // 1 + if + else-if + && + ?: + ??
        assert_eq!(m.functions[0].cyclomatic_complexity, 6);
        assert_eq!(m.functions[1].name, "g");
        assert_eq!(m.functions[1].lines, 1);
    }

    #[test]
    fn java_metrics() {
        let code = "class Solution {\n    public boolean f(List<Double> xs, double t) {\n        for (int i = 0; i < xs.size(); i++) {\n            for (int j = i + 1; j < xs.size(); j++) {\n                if (Math.abs(xs.get(i) - xs.get(j)) < t || t < 0) return true;\n                else if (t > 9) { switch (i) { case 1: return false; default: break; } }\n            }\n        }\n        return false;\n    }\n}";
        let m = one(Language::Java, code);
        assert_eq!(m.nesting_depth, 4);
        // 1 + for + for + if + || + else-if + case
        assert_eq!(m.cyclomatic_complexity, 7);
        // Lines holding only a closing brace count: they are code.
        assert_eq!(m.lines, 9);
    }

    #[test]
    fn duplicated_runs_and_statements_are_found() {
        let dup = "def f(xs):\n    a = 0\n    b = len(xs)\n    c = a + b\n    print(c)\n    a = 0\n    b = len(xs)\n    c = a + b\n    return c\n";
        let d = measure(Language::Python, dup).unwrap().duplicates;
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].lines, (2, 6));
        let clean = "def f(xs):\n    a = 0\n    b = len(xs)\n    c = a + b\n    return c\n";
        assert!(
            measure(Language::Python, clean)
                .unwrap()
                .duplicates
                .is_empty()
        );
        // Overlapping runs of one repeated statement are not two copies of a run.
        let repeated =
            "def f():\n    x = g(1)\n    x = g(1)\n    x = g(1)\n    x = g(1)\n    return x\n";
        assert!(
            measure(Language::Python, repeated)
                .unwrap()
                .duplicates
                .is_empty()
        );
        let big = "function f(xs) {\n  for (let i = 0; i < xs.length; i++) { if (xs[i] > 0) { xs[i] = xs[i] * 2 + 1; } }\n  log(xs);\n  for (let i = 0; i < xs.length; i++) { if (xs[i] > 0) { xs[i] = xs[i] * 2 + 1; } }\n}\n";
        let d = measure(Language::Javascript, big).unwrap().duplicates;
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].statements, 1);
    }
}
