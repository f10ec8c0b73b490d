//! Semantically equivalent rewrites of a unit-test task's implementation under test, made on
//! the host with tree-sitter. A test suite must pass on each of them as it passes on the
//! reference: a suite that fails one tests the implementation's text (its source, code
//! object, line numbers, names of locals), not its behaviour, and so "kills" every mutant
//! without testing anything.
//!
//! Each rewrite changes one kind of thing and leaves the behaviour unchanged:
//! - `reformatted`: a comment header shifts every line, and every line's indentation is
//!   doubled (lines inside multi-line string literals are left as they are);
//! - `renamed_locals`: local variables (not parameters) get new names, where the name is
//!   bound in the function and used nowhere else in the code;
//! - `comments_and_docstrings`: every comment and docstring gets words added, and each
//!   function body starts with a new comment line;
//! - `reordered`: runs of independent top-level definitions (Python functions with no
//!   decorators whose signatures name none of the run, JavaScript function declarations, Java
//!   methods) are reversed, and the first two consecutive declarations of distinct locals
//!   to literal values in a block are swapped.
//!
//! A rewrite is kept only when it differs from the code and parses without error. The
//! transformations are conservative: a function that could observe its own names (`locals`,
//! `eval`, `f"{x=}"`, nested classes, `arguments`) has none of its locals renamed.

use std::collections::BTreeSet;

use passrate_schema::Language;
use tree_sitter::{Node, Parser, Tree};

/// One equivalent rewrite of an implementation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewrite {
    /// `reformatted`, `renamed_locals`, `comments_and_docstrings` or `reordered`.
    pub name: &'static str,
    /// What it changed, for the rule's detail.
    pub what: &'static str,
    pub code: String,
}

/// The code is not parsed above this size (an implementation under test is one function or
/// one class): no rewrites then.
const MAX_BYTES: usize = 256 * 1024;

fn parse(language: Language, code: &str) -> Option<Tree> {
    if code.len() > MAX_BYTES {
        return None;
    }
    let grammar: tree_sitter::Language = match language {
        Language::Python => tree_sitter_python::LANGUAGE.into(),
        Language::Javascript => tree_sitter_javascript::LANGUAGE.into(),
        Language::Java => tree_sitter_java::LANGUAGE.into(),
    };
    let mut parser = Parser::new();
    parser.set_language(&grammar).ok()?;
    parser.parse(code, None)
}

/// The rewrites of `code` (the implementation under test, without the task's preamble, whose
/// names count as used elsewhere). Empty when `code` does not parse cleanly.
pub fn equivalent_rewrites(language: Language, code: &str, preamble: Option<&str>) -> Vec<Rewrite> {
    let Some(tree) = parse(language, code) else {
        return Vec::new();
    };
    if tree.root_node().has_error() {
        return Vec::new();
    }
    let root = tree.root_node();
    let candidates = [
        (
            "reformatted",
            "lines shifted by a comment header and indentation doubled",
            Some(reformatted(language, code, root)),
        ),
        (
            "renamed_locals",
            "local variables renamed",
            renamed_locals(language, code, root, preamble.unwrap_or("")),
        ),
        (
            "comments_and_docstrings",
            "comments and docstrings reworded, a comment line added to each function",
            comments_and_docstrings(language, code, root),
        ),
        (
            "reordered",
            "independent definitions or statements reordered",
            reordered(language, code, root),
        ),
    ];
    candidates
        .into_iter()
        .filter_map(|(name, what, rewritten)| {
            let rewritten = rewritten?;
            let clean = rewritten != code
                && parse(language, &rewritten).is_some_and(|t| !t.root_node().has_error());
            clean.then_some(Rewrite {
                name,
                what,
                code: rewritten,
            })
        })
        .collect()
}

/// Pre-order walk; `visit` returns `false` to skip a node's children. Iterative, so deep
/// nesting cannot overflow the stack.
fn walk<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
    let mut cursor = root.walk();
    let mut descend = visit(cursor.node());
    loop {
        if descend && cursor.goto_first_child() {
            descend = visit(cursor.node());
            continue;
        }
        loop {
            if cursor.node() == root {
                return;
            }
            if cursor.goto_next_sibling() {
                descend = visit(cursor.node());
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

fn text<'c>(code: &'c str, node: Node<'_>) -> &'c str {
    code.get(node.byte_range()).unwrap_or("")
}

/// Applies non-overlapping `(start, end, replacement)` edits; `None` if two overlap.
fn apply(code: &str, mut edits: Vec<(usize, usize, String)>) -> Option<String> {
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = String::with_capacity(code.len() + 64);
    let mut at = 0;
    for (start, end, with) in edits {
        if start < at || end < start {
            return None;
        }
        out.push_str(code.get(at..start)?);
        out.push_str(&with);
        at = end;
    }
    out.push_str(code.get(at..)?);
    Some(out)
}

fn line_comment(language: Language) -> &'static str {
    match language {
        Language::Python => "#",
        Language::Javascript | Language::Java => "//",
    }
}

fn is_string_kind(kind: &str) -> bool {
    matches!(
        kind,
        "string" | "template_string" | "string_literal" | "text_block"
    )
}

fn reformatted(language: Language, code: &str, root: Node<'_>) -> String {
    // Lines that start inside a literal spanning lines keep their text exactly.
    let mut literals = Vec::new();
    walk(root, |n| {
        if is_string_kind(n.kind()) {
            if text(code, n).contains('\n') {
                literals.push(n.byte_range());
            }
            return false;
        }
        true
    });
    let inside = |p: usize| literals.iter().any(|r| r.start < p && p < r.end);
    let mut body = String::with_capacity(code.len() * 2);
    let mut start = 0;
    for line in code.split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if inside(start) || indent == 0 {
            body.push_str(line);
        } else {
            body.push_str(&line[..indent]);
            body.push_str(line);
        }
        start += line.len();
    }
    // The header goes after a shebang or a Python coding declaration, which must stay on
    // the first lines.
    let mut keep = 0;
    for line in body.split_inclusive('\n').take(2) {
        let t = line.trim_start();
        let special = t.starts_with("#!")
            || (language == Language::Python && t.starts_with('#') && t.contains("coding"));
        if !special {
            break;
        }
        keep += line.len();
    }
    let c = line_comment(language);
    format!(
        "{}{c} An equivalent rewrite of the code below.\n{c} Its behaviour is unchanged.\n\n{}",
        &body[..keep],
        &body[keep..]
    )
}

fn is_function(language: Language, kind: &str) -> bool {
    match language {
        Language::Python => kind == "function_definition",
        Language::Javascript => matches!(
            kind,
            "function_declaration"
                | "function_expression"
                | "function"
                | "arrow_function"
                | "method_definition"
                | "generator_function_declaration"
                | "generator_function"
        ),
        Language::Java => matches!(kind, "method_declaration" | "constructor_declaration"),
    }
}

/// Names a function must not have renamed whatever their binding: builtins and globals that
/// a local could shadow in one place and the code read as the global in another.
const PY_BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "bin",
    "bool",
    "bytes",
    "chr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "locals",
    "map",
    "max",
    "min",
    "next",
    "object",
    "oct",
    "ord",
    "pow",
    "print",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
    "self",
    "cls",
];
const JS_GLOBALS: &[&str] = &[
    "Math",
    "Number",
    "String",
    "Object",
    "Array",
    "JSON",
    "console",
    "undefined",
    "NaN",
    "Infinity",
    "parseInt",
    "parseFloat",
    "Set",
    "Map",
    "BigInt",
    "Symbol",
    "Date",
    "RegExp",
    "Error",
    "Promise",
    "isNaN",
    "isFinite",
    "globalThis",
    "require",
    "module",
    "exports",
    "process",
    "Buffer",
    "arguments",
    "eval",
];
/// Identifiers that let a function observe or reach its locals by name.
const PY_INTROSPECTION: &[&str] = &["locals", "vars", "eval", "exec", "globals", "dir"];

/// Identifier nodes of a target (assignment left side, loop variable), through tuple and
/// list patterns but not into attributes or subscripts.
fn py_targets(code: &str, node: Node<'_>, out: &mut BTreeSet<String>) {
    match node.kind() {
        "identifier" => {
            out.insert(text(code, node).to_owned());
        }
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "parenthesized_expression"
        | "list"
        | "tuple"
        | "list_splat_pattern"
        | "list_splat"
        | "as_pattern_target" => {
            let mut c = node.walk();
            for child in node.named_children(&mut c) {
                py_targets(code, child, out);
            }
        }
        _ => {}
    }
}

/// Whether an identifier occurrence is a variable reference (not an attribute, keyword
/// argument, property or method name).
fn is_variable_use(language: Language, node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else {
        return true;
    };
    let field = |name: &str| parent.child_by_field_name(name) == Some(node);
    match (language, parent.kind()) {
        (Language::Python, "attribute") => !field("attribute"),
        (Language::Python, "keyword_argument") => !field("name"),
        (Language::Java, "field_access") => !field("field"),
        (Language::Java, "method_invocation") => !field("name"),
        (Language::Java, "method_declaration") => !field("name"),
        // `Integer::sum`: the name after `::` is a method, whatever locals are called.
        (Language::Java, "method_reference") => {
            node.prev_sibling().is_none_or(|p| p.kind() != "::")
        }
        _ => true,
    }
}

fn renamed_locals(
    language: Language,
    code: &str,
    root: Node<'_>,
    preamble: &str,
) -> Option<String> {
    // Outermost functions: nested ones are renamed with their parent, consistently.
    let mut functions = Vec::new();
    walk(root, |n| {
        if is_function(language, n.kind()) {
            functions.push(n);
            return false;
        }
        true
    });
    let mut all_names = BTreeSet::new();
    let mut unsafe_names = BTreeSet::new();
    walk(root, |n| {
        match n.kind() {
            "identifier" => {
                all_names.insert(text(code, n).to_owned());
            }
            // `{ x }` in an object or a pattern is also a property name.
            "shorthand_property_identifier" | "shorthand_property_identifier_pattern" => {
                unsafe_names.insert(text(code, n).to_owned());
            }
            // Java fields and methods share their names' space with locals (`x` may be
            // `this.x`).
            "field_declaration" | "method_declaration" if language == Language::Java => {
                let name = if n.kind() == "method_declaration" {
                    n.child_by_field_name("name")
                } else {
                    None
                };
                if let Some(name) = name {
                    unsafe_names.insert(text(code, name).to_owned());
                }
                if n.kind() == "field_declaration" {
                    let mut c = n.walk();
                    for d in n.children_by_field_name("declarator", &mut c) {
                        if let Some(name) = d.child_by_field_name("name") {
                            unsafe_names.insert(text(code, name).to_owned());
                        }
                    }
                }
            }
            _ => {}
        }
        true
    });
    // Every word of the preamble counts as used outside.
    let preamble_words: BTreeSet<&str> = preamble
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty())
        .collect();

    let mut edits = Vec::new();
    let mut taken = all_names.clone();
    for f in functions {
        let range = f.byte_range();
        let mut declared = BTreeSet::new();
        let mut excluded = BTreeSet::new();
        let mut skip = false;
        walk(f, |n| {
            let kind = n.kind();
            match (language, kind) {
                (
                    _,
                    "formal_parameters"
                    | "parameters"
                    | "lambda_parameters"
                    | "inferred_parameters",
                ) => {
                    walk(n, |p| {
                        if p.kind() == "identifier" {
                            excluded.insert(text(code, p).to_owned());
                        }
                        true
                    });
                }
                (
                    Language::Python,
                    "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause",
                ) => {
                    if let Some(left) = n.child_by_field_name("left") {
                        py_targets(code, left, &mut declared);
                    }
                }
                (Language::Python, "named_expression") => {
                    if let Some(name) = n.child_by_field_name("name") {
                        py_targets(code, name, &mut declared);
                    }
                }
                (Language::Python, "as_pattern") => {
                    if let Some(alias) = n.child_by_field_name("alias") {
                        py_targets(code, alias, &mut declared);
                    }
                }
                (
                    Language::Python,
                    "global_statement"
                    | "nonlocal_statement"
                    | "import_statement"
                    | "import_from_statement"
                    | "future_import_statement",
                ) => {
                    walk(n, |p| {
                        if p.kind() == "identifier" {
                            excluded.insert(text(code, p).to_owned());
                        }
                        true
                    });
                    return false;
                }
                (Language::Python, "class_definition") => skip = true,
                (Language::Python, "interpolation") => {
                    // `f"{x=}"` prints the expression's text.
                    let t = text(code, n).trim_end_matches('}');
                    let t = t.split(['!', ':']).next().unwrap_or(t);
                    if t.trim_end().ends_with('=') {
                        skip = true;
                    }
                }
                (Language::Python, "identifier") if PY_INTROSPECTION.contains(&text(code, n)) => {
                    skip = true;
                }
                (Language::Javascript, "variable_declarator") => {
                    if let Some(name) = n.child_by_field_name("name") {
                        walk(name, |p| {
                            if p.kind() == "identifier" {
                                declared.insert(text(code, p).to_owned());
                            }
                            true
                        });
                    }
                }
                (Language::Javascript, "catch_clause") => {
                    if let Some(p) = n.child_by_field_name("parameter")
                        && p.kind() == "identifier"
                    {
                        declared.insert(text(code, p).to_owned());
                    }
                }
                (Language::Javascript, "class" | "class_declaration" | "with_statement") => {
                    skip = true
                }
                (Language::Javascript, "identifier") => {
                    if matches!(text(code, n), "eval" | "arguments") {
                        skip = true;
                    }
                }
                (Language::Java, "variable_declarator") => {
                    let local = n
                        .parent()
                        .is_some_and(|p| p.kind() == "local_variable_declaration");
                    if local && let Some(name) = n.child_by_field_name("name") {
                        declared.insert(text(code, name).to_owned());
                    }
                }
                (
                    Language::Java,
                    "enhanced_for_statement" | "catch_formal_parameter" | "resource",
                ) => {
                    if let Some(name) = n.child_by_field_name("name") {
                        declared.insert(text(code, name).to_owned());
                    }
                }
                (Language::Java, "class_body" | "labeled_statement") => skip = true,
                _ => {}
            }
            true
        });
        if skip {
            continue;
        }
        // Used outside this function, or in the preamble: not a local of it alone.
        let mut outside = BTreeSet::new();
        walk(root, |n| {
            if n.byte_range() == range {
                return false;
            }
            if n.kind() == "identifier" {
                outside.insert(text(code, n).to_owned());
            }
            true
        });
        let builtins: &[&str] = match language {
            Language::Python => PY_BUILTINS,
            Language::Javascript => JS_GLOBALS,
            Language::Java => &[],
        };
        let renamable: BTreeSet<String> = declared
            .into_iter()
            .filter(|name| {
                !excluded.contains(name)
                    && !outside.contains(name)
                    && !unsafe_names.contains(name)
                    && !preamble_words.contains(name.as_str())
                    && !builtins.contains(&name.as_str())
                    && !name.starts_with("__")
            })
            .collect();
        if renamable.is_empty() {
            continue;
        }
        let mut fresh = std::collections::BTreeMap::new();
        for name in &renamable {
            let mut candidate = format!("{name}_rw");
            let mut k = 2;
            while taken.contains(&candidate) || preamble_words.contains(candidate.as_str()) {
                candidate = format!("{name}_rw{k}");
                k += 1;
            }
            taken.insert(candidate.clone());
            fresh.insert(name.clone(), candidate);
        }
        walk(f, |n| {
            if n.kind() == "identifier"
                && let Some(new) = fresh.get(text(code, n))
                && is_variable_use(language, n)
            {
                edits.push((n.start_byte(), n.end_byte(), new.clone()));
            }
            true
        });
    }
    apply(code, edits)
}

/// Offset of the start of `node`'s line, when only whitespace precedes it on that line.
fn own_line_start(code: &str, node: Node<'_>) -> Option<usize> {
    let start = node.start_byte();
    let line_start = code[..start].rfind('\n').map_or(0, |i| i + 1);
    code[line_start..start]
        .chars()
        .all(|c| c == ' ' || c == '\t')
        .then_some(line_start)
}

fn comments_and_docstrings(language: Language, code: &str, root: Node<'_>) -> Option<String> {
    let mut edits = Vec::new();
    let c = line_comment(language);
    walk(root, |n| {
        let kind = n.kind();
        if matches!(kind, "comment" | "line_comment" | "block_comment") {
            let t = text(code, n);
            let opener = if t.starts_with("/**") {
                3
            } else if t.starts_with("/*") || t.starts_with("//") {
                2
            } else if t.starts_with('#') && !t.starts_with("#!") && language == Language::Python {
                1
            } else {
                0
            };
            if opener > 0 {
                edits.push((
                    n.start_byte() + opener,
                    n.start_byte() + opener,
                    " Reworded:".to_owned(),
                ));
            }
            return false;
        }
        if is_function(language, kind) {
            let body = n.child_by_field_name("body");
            let first = body.and_then(|b| {
                if language == Language::Python {
                    b.named_child(0)
                } else {
                    // The first statement after `{` (an expression body has none).
                    (b.kind() == "statement_block"
                        || b.kind() == "block"
                        || b.kind() == "constructor_body")
                        .then(|| b.named_child(0))
                        .flatten()
                }
            });
            if let Some(first) = first
                && first.start_position().row > n.start_position().row
                && let Some(line_start) = own_line_start(code, first)
            {
                let indent = &code[line_start..first.start_byte()];
                edits.push((
                    line_start,
                    line_start,
                    format!("{indent}{c} A comment added by an equivalent rewrite.\n"),
                ));
                if language == Language::Python
                    && first.kind() == "expression_statement"
                    && first.named_child_count() == 1
                    && let Some(doc) = first.named_child(0)
                    && doc.kind() == "string"
                {
                    let t = text(code, doc);
                    let prefix = t.len()
                        - t.trim_start_matches(|c: char| c.is_ascii_alphabetic())
                            .len();
                    let p = &t[..prefix];
                    let quotes = &t[prefix..];
                    let open = if quotes.starts_with("\"\"\"") || quotes.starts_with("'''") {
                        3
                    } else {
                        1
                    };
                    if !p.contains(['f', 'F', 'b', 'B']) {
                        let at = doc.start_byte() + prefix + open;
                        edits.push((at, at, "Reworded. ".to_owned()));
                    }
                }
            }
        }
        true
    });
    apply(code, edits)
}

/// The literal kinds a reordered declaration may assign.
fn is_plain_literal(language: Language, node: Node<'_>) -> bool {
    match (language, node.kind()) {
        (Language::Python, "integer" | "float" | "true" | "false" | "none") => true,
        (Language::Python, "string") => {
            let mut c = node.walk();
            node.named_children(&mut c)
                .all(|k| k.kind() != "interpolation")
        }
        (Language::Python, "list" | "dictionary" | "tuple") => node.named_child_count() == 0,
        (Language::Javascript, "number" | "true" | "false" | "null") => true,
        (Language::Javascript, "string") => true,
        (Language::Javascript, "array" | "object") => node.named_child_count() == 0,
        (
            Language::Java,
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "decimal_floating_point_literal"
            | "string_literal"
            | "character_literal"
            | "true"
            | "false"
            | "null_literal",
        ) => !text_has_newline(node),
        _ => false,
    }
}

fn text_has_newline(node: Node<'_>) -> bool {
    node.start_position().row != node.end_position().row
}

/// `name = literal` as one statement: the name declared.
fn literal_declaration<'c>(language: Language, code: &'c str, stmt: Node<'_>) -> Option<&'c str> {
    match language {
        Language::Python => {
            if stmt.kind() != "expression_statement" || stmt.named_child_count() != 1 {
                return None;
            }
            let a = stmt.named_child(0)?;
            if a.kind() != "assignment" || a.child_by_field_name("type").is_some() {
                return None;
            }
            let left = a.child_by_field_name("left")?;
            let right = a.child_by_field_name("right")?;
            (left.kind() == "identifier" && is_plain_literal(language, right))
                .then(|| text(code, left))
        }
        Language::Javascript | Language::Java => {
            let ok = match language {
                Language::Javascript => {
                    matches!(stmt.kind(), "lexical_declaration" | "variable_declaration")
                }
                _ => stmt.kind() == "local_variable_declaration",
            };
            let mut c = stmt.walk();
            let declarators: Vec<_> = stmt
                .named_children(&mut c)
                .filter(|n| n.kind() == "variable_declarator")
                .collect();
            if !ok || declarators.len() != 1 {
                return None;
            }
            let name = declarators[0].child_by_field_name("name")?;
            let value = declarators[0].child_by_field_name("value")?;
            (name.kind() == "identifier" && is_plain_literal(language, value))
                .then(|| text(code, name))
        }
    }
}

/// A top-level definition whose position among its neighbours does not matter.
fn movable_definition(language: Language, code: &str, node: Node<'_>) -> Option<String> {
    match (language, node.kind()) {
        (Language::Python, "function_definition")
        | (Language::Javascript, "function_declaration" | "generator_function_declaration")
        | (Language::Java, "method_declaration") => {
            Some(text(code, node.child_by_field_name("name")?).to_owned())
        }
        _ => None,
    }
}

fn is_comment(kind: &str) -> bool {
    matches!(kind, "comment" | "line_comment" | "block_comment")
}

fn reordered(language: Language, code: &str, root: Node<'_>) -> Option<String> {
    // Statements inside the definitions first, then the definitions themselves (moved
    // whole), each on a fresh parse.
    let swapped = swap_literal_declarations(language, code, root);
    let code = swapped.as_deref().unwrap_or(code);
    let moved = match &swapped {
        Some(c) => {
            let tree = parse(language, c)?;
            reverse_definitions(language, c, tree.root_node())
        }
        None => reverse_definitions(language, code, root),
    };
    moved.or(swapped)
}

fn reverse_definitions(language: Language, code: &str, root: Node<'_>) -> Option<String> {
    let mut edits = Vec::new();
    // Containers of definitions: the module (Python, JavaScript) and class bodies (Java).
    let mut containers = Vec::new();
    walk(root, |n| {
        let container = match language {
            Language::Python | Language::Javascript => {
                n.kind() == "module" || n.kind() == "program"
            }
            Language::Java => n.kind() == "class_body",
        };
        if container {
            containers.push(n);
        }
        true
    });
    for container in containers {
        let mut c = container.walk();
        let children: Vec<Node<'_>> = container.named_children(&mut c).collect();
        // Runs of movable definitions, each with the comments just before it.
        let mut runs: Vec<Vec<(usize, usize, String)>> = vec![Vec::new()];
        let mut pending_comment: Option<usize> = None;
        for child in &children {
            if is_comment(child.kind()) {
                pending_comment.get_or_insert(child.start_byte());
                continue;
            }
            match movable_definition(language, code, *child) {
                Some(name) => {
                    let start = pending_comment.take().unwrap_or(child.start_byte());
                    runs.last_mut()?.push((start, child.end_byte(), name));
                }
                None => {
                    pending_comment = None;
                    runs.push(Vec::new());
                }
            }
        }
        for run in runs.into_iter().filter(|r| r.len() >= 2) {
            // Python evaluates signatures (defaults, annotations) at definition: one naming
            // another definition of the run keeps the run in order.
            if language == Language::Python {
                let names: BTreeSet<&str> = run.iter().map(|r| r.2.as_str()).collect();
                let signature_names = children.iter().any(|def| {
                    run.iter().any(|r| r.1 == def.end_byte())
                        && ["parameters", "return_type"].iter().any(|field| {
                            def.child_by_field_name(field).is_some_and(|sig| {
                                let mut found = false;
                                walk(sig, |p| {
                                    found |=
                                        p.kind() == "identifier" && names.contains(text(code, p));
                                    true
                                });
                                found
                            })
                        })
                });
                if signature_names {
                    continue;
                }
            }
            let texts: Vec<&str> = run.iter().map(|r| &code[r.0..r.1]).collect();
            for (slot, t) in run.iter().zip(texts.iter().rev()) {
                edits.push((slot.0, slot.1, (*t).to_owned()));
            }
        }
    }
    apply(code, edits)
}

/// In each block, the first two consecutive declarations of distinct names to literal
/// values (on lines of their own) change places.
fn swap_literal_declarations(language: Language, code: &str, root: Node<'_>) -> Option<String> {
    let mut edits = Vec::new();
    walk(root, |n| {
        if matches!(n.kind(), "block" | "statement_block" | "constructor_body") {
            let mut c = n.walk();
            let stmts: Vec<Node<'_>> = n
                .named_children(&mut c)
                .filter(|s| !is_comment(s.kind()))
                .collect();
            for pair in stmts.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                if let (Some(x), Some(y)) = (
                    literal_declaration(language, code, a),
                    literal_declaration(language, code, b),
                ) && x != y
                    && a.end_position().row < b.start_position().row
                {
                    edits.push((a.start_byte(), a.end_byte(), text(code, b).to_owned()));
                    edits.push((b.start_byte(), b.end_byte(), text(code, a).to_owned()));
                    break;
                }
            }
        }
        true
    });
    apply(code, edits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(language: Language, code: &str, name: &str) -> Option<String> {
        equivalent_rewrites(language, code, None)
            .into_iter()
            .find(|r| r.name == name)
            .map(|r| r.code)
    }

    const PY: &str = "from typing import List\n\n\ndef close(numbers: List[float], threshold: float) -> bool:\n    \"\"\" Any two closer than threshold?\n    >>> close([1.0, 2.0], 0.5)\n    False\n    \"\"\"\n    found = False\n    count = 0\n    for idx, elem in enumerate(numbers):\n        for idx2, elem2 in enumerate(numbers):\n            if idx != idx2:\n                distance = abs(elem - elem2)  # how far\n                if distance < threshold:\n                    return True\n    text = f\"{threshold}\"\n    return found\n";

    #[test]
    fn python_reformatting_doubles_indentation_but_not_docstrings() {
        let r = rewrite(Language::Python, PY, "reformatted").unwrap();
        assert!(r.starts_with("# An equivalent rewrite"), "{r}");
        assert!(r.contains("\n        found = False\n"), "{r}");
        assert!(r.contains("\n    >>> close([1.0, 2.0], 0.5)\n"), "{r}");
        assert!(
            r.contains("\n                                distance = abs"),
            "{r}"
        );
    }

    #[test]
    fn python_locals_are_renamed_but_not_parameters_builtins_or_attributes() {
        let r = rewrite(Language::Python, PY, "renamed_locals").unwrap();
        for new in [
            "found_rw",
            "count_rw",
            "idx_rw",
            "elem2_rw",
            "distance_rw",
            "text_rw",
        ] {
            assert!(r.contains(new), "{new}: {r}");
        }
        assert!(r.contains("def close(numbers: List[float], threshold: float)"));
        assert!(
            r.contains("enumerate(numbers)") && r.contains("abs(elem_rw - elem2_rw)"),
            "{r}"
        );
        let attrs = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x.total\n    return dict(total=total)\n";
        let r = rewrite(Language::Python, attrs, "renamed_locals").unwrap();
        assert_eq!(
            r,
            "def f(xs):\n    total_rw = 0\n    for x_rw in xs:\n        total_rw += x_rw.total\n    return dict(total=total_rw)\n"
        );
    }

    #[test]
    fn java_method_references_keep_their_method_name() {
        let code = "class Solution {\n    public int addElements(List<Integer> arr, int k) {\n        Optional<Integer> sum = arr.stream().reduce(Integer::sum);\n        return sum.orElse(0);\n    }\n}\n";
        let r = rewrite(Language::Java, code, "renamed_locals").unwrap();
        assert!(
            r.contains("Optional<Integer> sum_rw = arr.stream().reduce(Integer::sum);"),
            "{r}"
        );
        assert!(r.contains("return sum_rw.orElse(0);"), "{r}");
        // A method reference on a local keeps the local's new name.
        let code = "class Solution {\n    int f(List<Integer> xs) {\n        StringBuilder sb = new StringBuilder();\n        xs.forEach(sb::append);\n        return sb.length();\n    }\n}\n";
        let r = rewrite(Language::Java, code, "renamed_locals").unwrap();
        assert!(r.contains("xs.forEach(sb_rw::append);"), "{r}");
    }

    #[test]
    fn names_a_function_could_observe_are_left_alone() {
        for code in [
            "def f(x):\n    y = x\n    return locals()\n",
            "def f(x):\n    y = x\n    return f\"{y=}\"\n",
            "def f(x):\n    y = x\n    class C:\n        z = y\n    return C\n",
            "y = 3\n\ndef f(x):\n    y = x\n    return y\n",
            "def f(x):\n    global y\n    y = x\n    return y\n",
        ] {
            assert_eq!(
                rewrite(Language::Python, code, "renamed_locals"),
                None,
                "{code}"
            );
        }
        // A comprehension variable named like a builtin the function also calls.
        let code = "def f(xs):\n    ys = [max for max in xs]\n    return max(ys)\n";
        let r = rewrite(Language::Python, code, "renamed_locals").unwrap();
        assert_eq!(
            r,
            "def f(xs):\n    ys_rw = [max for max in xs]\n    return max(ys_rw)\n"
        );
        let js = "const f = (xs) => {\n  const { a } = xs;\n  let b = a;\n  return { b };\n}\n";
        assert_eq!(rewrite(Language::Javascript, js, "renamed_locals"), None);
    }

    #[test]
    fn javascript_and_java_locals_are_renamed() {
        let js = "const hasClose = (numbers, threshold) => {\n  for (let i = 0; i < numbers.length; i++) {\n    let distance = Math.abs(numbers[i] - threshold);\n    if (distance < threshold) { return true; }\n  }\n  return false;\n}\n";
        let r = rewrite(Language::Javascript, js, "renamed_locals").unwrap();
        assert!(
            r.contains("let i_rw = 0; i_rw < numbers.length; i_rw++"),
            "{r}"
        );
        assert!(
            r.contains("let distance_rw = Math.abs(numbers[i_rw] - threshold)"),
            "{r}"
        );
        let java = "import java.util.*;\n\nclass Solution {\n    int size;\n    public boolean f(List<Double> numbers, double t) {\n        int size = numbers.size();\n        for (double d : numbers) { double diff = d - t; if (diff < 0) return size > 0; }\n        return numbers.isEmpty();\n    }\n}\n";
        let r = rewrite(Language::Java, java, "renamed_locals").unwrap();
        assert!(
            r.contains("double d_rw : numbers") && r.contains("double diff_rw = d_rw - t"),
            "{r}"
        );
        // A field's name is not renamed: `size` may be `this.size`.
        assert!(r.contains("int size = numbers.size()"), "{r}");
    }

    #[test]
    fn comments_and_docstrings_are_reworded() {
        let r = rewrite(Language::Python, PY, "comments_and_docstrings").unwrap();
        assert!(
            r.contains(
                "    # A comment added by an equivalent rewrite.\n    \"\"\"Reworded.  Any two"
            ),
            "{r}"
        );
        assert!(r.contains("# Reworded: how far"), "{r}");
        let js = "/* Doc. */\nfunction f(x) {\n  // why\n  return x + 1;\n}\n";
        let r = rewrite(Language::Javascript, js, "comments_and_docstrings").unwrap();
        assert_eq!(
            r,
            "/* Reworded: Doc. */\nfunction f(x) {\n  // A comment added by an equivalent rewrite.\n  // Reworded: why\n  return x + 1;\n}\n"
        );
    }

    #[test]
    fn independent_definitions_and_literal_declarations_are_reordered() {
        let py = "def a(x):\n    return b(x)\n\n# helper\ndef b(x):\n    i = 0\n    j = 1\n    return x + i + j\n";
        let r = rewrite(Language::Python, py, "reordered").unwrap();
        assert_eq!(
            r,
            "# helper\ndef b(x):\n    j = 1\n    i = 0\n    return x + i + j\n\ndef a(x):\n    return b(x)\n"
        );
        // A default naming another definition keeps the order.
        let py = "def a(x):\n    return x\n\ndef b(x, f=a):\n    return f(x)\n";
        assert_eq!(rewrite(Language::Python, py, "reordered"), None);
        let java = "class Solution {\n    int f(int x) { return g(x); }\n    int g(int x) {\n        int a = 1;\n        String s = \"s\";\n        return x + a + s.length();\n    }\n}\n";
        let r = rewrite(Language::Java, java, "reordered").unwrap();
        assert!(r.find("int g(").unwrap() < r.find("int f(").unwrap(), "{r}");
        assert!(
            r.find("String s").unwrap() < r.find("int a = 1").unwrap(),
            "{r}"
        );
    }

    #[test]
    fn code_that_does_not_parse_has_no_rewrites() {
        assert!(equivalent_rewrites(Language::Python, "def f(:\n", None).is_empty());
    }
}
