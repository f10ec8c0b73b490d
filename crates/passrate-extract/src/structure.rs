//! Structure for the category graders: a function's doc comment, code without comments, and
//! a fingerprint of a function's syntax tree that ignores comments, docstrings and layout.

use passrate_schema::Language;
use tree_sitter::Node;

use crate::items;
use crate::syntax::{self, ParseError, text};

/// A stable digest of a function's syntax tree with comments and docstrings left out.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fingerprint {
    /// blake3 of the normalised node sequence, hex.
    pub hash: String,
    /// Nodes that went into the hash.
    pub nodes: usize,
}

fn is_function_node(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "function_declaration"
            | "generator_function_declaration"
            | "method_definition"
            | "method_declaration"
            | "variable_declarator"
    )
}

/// The first function, method or function-valued declarator named `name`, or, when there is
/// none, the function a top-level alias `name = other` (Python) or `const name = other`
/// (JavaScript) names: extraction accepts such an entry point, so its graders see through it.
pub(crate) fn find_function<'t>(root: Node<'t>, source: &str, name: &str) -> Option<Node<'t>> {
    let mut name = name;
    for _ in 0..8 {
        if let Some(found) = find_named_function(root, source, name) {
            return Some(found);
        }
        name = top_level_alias(root, source, name)?;
    }
    None
}

/// The target of the last top-level alias of `name`.
fn top_level_alias<'s>(root: Node<'_>, source: &'s str, name: &str) -> Option<&'s str> {
    let mut target = None;
    let mut c = root.walk();
    for statement in root.named_children(&mut c) {
        let pairs: Vec<(Node<'_>, Node<'_>)> = match statement.kind() {
            "expression_statement" => statement
                .named_child(0)
                .filter(|a| a.kind() == "assignment")
                .and_then(|a| {
                    Some((
                        a.child_by_field_name("left")?,
                        a.child_by_field_name("right")?,
                    ))
                })
                .into_iter()
                .collect(),
            "lexical_declaration" | "variable_declaration" => {
                let mut dc = statement.walk();
                statement
                    .named_children(&mut dc)
                    .filter_map(|d| {
                        Some((
                            d.child_by_field_name("name")?,
                            d.child_by_field_name("value")?,
                        ))
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        for (left, right) in pairs {
            if left.kind() == "identifier"
                && right.kind() == "identifier"
                && text(left, source) == name
                && text(right, source) != name
            {
                target = Some(text(right, source));
            }
        }
    }
    target
}

fn find_named_function<'t>(root: Node<'t>, source: &str, name: &str) -> Option<Node<'t>> {
    let mut found = None;
    syntax::walk(root, |n| {
        if found.is_some() {
            return false;
        }
        let function_valued = n.kind() != "variable_declarator"
            || n.child_by_field_name("value").is_some_and(|v| {
                matches!(
                    v.kind(),
                    "arrow_function" | "function_expression" | "function"
                )
            });
        if is_function_node(n.kind())
            && function_valued
            && n.child_by_field_name("name")
                .is_some_and(|id| text(id, source) == name)
        {
            found = Some(n);
            return false;
        }
        true
    });
    found
}

/// Whether `node` is a Python docstring (the first statement of a module, class or function
/// body, and a bare string).
fn is_docstring(node: Node<'_>) -> bool {
    node.kind() == "expression_statement"
        && node
            .parent()
            .and_then(|p| items::python_docstring(p))
            .is_some_and(|d| d == node)
}

/// The doc comment of the function `name`: its docstring (Python) or the `/** */` comment
/// right before it (JSDoc, Javadoc), without the comment syntax.
pub fn doc_comment(language: Language, code: &str, name: &str) -> Option<String> {
    let tree = syntax::parse(language, code).ok()?;
    let func = find_function(tree.root_node(), code, name)?;
    match language {
        Language::Python => {
            let body = func.child_by_field_name("body")?;
            let doc = items::python_docstring(body)?;
            Some(clean_python_string(text(doc, code)))
        }
        Language::Javascript | Language::Java => {
            // The comment sits before the outermost node that starts the declaration.
            let mut anchor = func;
            while let Some(parent) = anchor.parent() {
                if matches!(
                    parent.kind(),
                    "lexical_declaration" | "variable_declaration" | "export_statement"
                ) {
                    anchor = parent;
                } else {
                    break;
                }
            }
            let comment = items::doc_comment_before(anchor, code)?;
            Some(clean_block_comment(text(comment, code)))
        }
    }
}

fn clean_python_string(s: &str) -> String {
    let s = s.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
    let quote = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|q| s.starts_with(q) && s.len() >= 2 * q.len() && s.ends_with(q));
    let inner = match quote {
        Some(q) => &s[q.len()..s.len() - q.len()],
        None => s,
    };
    // Like Python's `inspect.cleandoc`: the first line as is, the rest dedented together.
    let (first, rest) = inner.split_once('\n').unwrap_or((inner, ""));
    let rest = crate::text::dedent(rest);
    format!("{}\n{}", first.trim(), rest).trim().to_owned()
}

fn clean_block_comment(s: &str) -> String {
    let inner = s.trim_start_matches("/**").trim_end_matches("*/");
    inner
        .lines()
        .map(|l| {
            let t = l.trim_start();
            t.strip_prefix("* ")
                .or_else(|| t.strip_prefix('*'))
                .unwrap_or(t)
                .trim_end()
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// `code` with comments and (Python) docstrings removed. A docstring that is a body's only
/// statement becomes `pass` so the result still parses.
pub fn strip_comments(language: Language, code: &str) -> Result<String, ParseError> {
    let tree = syntax::parse(language, code)?;
    let mut cuts: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    syntax::walk(tree.root_node(), |n| {
        if syntax::is_comment(n) {
            cuts.push((n.byte_range(), ""));
            return false;
        }
        if language == Language::Python && is_docstring(n) {
            let only = n.parent().is_some_and(|p| {
                let mut c = p.walk();
                p.named_children(&mut c)
                    .filter(|s| !syntax::is_comment(*s))
                    .count()
                    == 1
            });
            let is_module = n.parent().is_some_and(|p| p.kind() == "module");
            cuts.push((n.byte_range(), if only && !is_module { "pass" } else { "" }));
            return false;
        }
        true
    });
    let mut out = String::with_capacity(code.len());
    let mut at = 0;
    for (range, replacement) in cuts {
        out.push_str(code.get(at..range.start).unwrap_or(""));
        out.push_str(replacement);
        at = range.end;
    }
    out.push_str(code.get(at..).unwrap_or(""));
    // Lines emptied by a cut go, trailing blanks go.
    let mut cleaned = String::with_capacity(out.len());
    for line in out.lines() {
        let t = line.trim_end();
        if t.is_empty() {
            if !cleaned.is_empty() && !cleaned.ends_with("\n\n") {
                cleaned.push('\n');
            }
            continue;
        }
        cleaned.push_str(t);
        cleaned.push('\n');
    }
    Ok(cleaned)
}

/// Fingerprint of the function `name` in `code`: node kinds and leaf texts in pre-order,
/// without comments and docstrings, so re-formatting and documenting leave it unchanged.
pub fn fingerprint(language: Language, code: &str, name: &str) -> Option<Fingerprint> {
    let tree = syntax::parse(language, code).ok()?;
    let func = find_function(tree.root_node(), code, name)?;
    Some(digest(language, func, code, false))
}

/// `code` with `doc` attached to the function `name` as its doc comment: a `"""` docstring
/// as the first statement of a Python body, a `/** … */` block on the lines before a
/// JavaScript or Java declaration, indented like the code. `None` if the function is not
/// found, already documented, or written so that a doc cannot go on its own lines (a
/// one-line `def`, a declaration that does not start its line), or if `doc` would end the
/// comment early.
pub fn insert_doc(language: Language, code: &str, name: &str, doc: &str) -> Option<String> {
    if doc_comment(language, code, name).is_some() {
        return None;
    }
    let tree = syntax::parse(language, code).ok()?;
    let func = find_function(tree.root_node(), code, name)?;
    let line_start = |byte: usize| code[..byte].rfind('\n').map_or(0, |i| i + 1);
    match language {
        Language::Python => {
            if doc.contains("\"\"\"") || doc.ends_with('"') || doc.ends_with('\\') {
                return None;
            }
            // Raw, so that a backslash in the doc is the doc's text, as graders read it.
            let prefix = if doc.contains('\\') { "r" } else { "" };
            let body = func.child_by_field_name("body")?;
            if body.start_position().row == func.start_position().row {
                return None;
            }
            let first = body.named_child(0)?;
            let at = line_start(first.start_byte());
            let indent = &code[at..first.start_byte()];
            if !indent.chars().all(|c| c == ' ' || c == '\t') {
                return None;
            }
            // Right after the header line, so blank lines stay below the docstring.
            let header_end = code[..body.start_byte()].rfind('\n').map_or(at, |i| i + 1);
            let header_end = header_end.min(at);
            let mut text = format!("{indent}{prefix}\"\"\"");
            for (i, line) in doc.lines().enumerate() {
                if i > 0 {
                    text.push('\n');
                    if !line.trim().is_empty() {
                        text.push_str(indent);
                    }
                }
                text.push_str(line.trim_end());
            }
            if doc.lines().count() > 1 {
                text.push('\n');
                text.push_str(indent);
            }
            text.push_str("\"\"\"\n");
            Some(format!(
                "{}{}{}",
                &code[..header_end],
                text,
                &code[header_end..]
            ))
        }
        Language::Javascript | Language::Java => {
            if doc.contains("*/") {
                return None;
            }
            let mut anchor = func;
            while let Some(parent) = anchor.parent() {
                if matches!(
                    parent.kind(),
                    "lexical_declaration" | "variable_declaration" | "export_statement"
                ) {
                    anchor = parent;
                } else {
                    break;
                }
            }
            let at = line_start(anchor.start_byte());
            let indent = &code[at..anchor.start_byte()];
            if !indent.chars().all(|c| c == ' ' || c == '\t') {
                return None;
            }
            let mut text = format!("{indent}/**\n");
            for line in doc.lines() {
                if line.trim().is_empty() {
                    text.push_str(&format!("{indent} *\n"));
                } else {
                    text.push_str(&format!("{indent} * {}\n", line.trim_end()));
                }
            }
            text.push_str(&format!("{indent} */\n"));
            Some(format!("{}{}{}", &code[..at], text, &code[at..]))
        }
    }
}

/// Whether `node` is an import statement (left out of [`program_fingerprint`]: imports do
/// not change what a function does, and extraction may drop unused ones).
fn is_import(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "import_statement"
            | "import_from_statement"
            | "future_import_statement"
            | "import_declaration"
    )
}

/// Fingerprint of the whole program with comments, docstrings and imports left out: two
/// programs that differ only in documentation and layout have the same one.
pub fn program_fingerprint(language: Language, code: &str) -> Option<Fingerprint> {
    let tree = syntax::parse(language, code).ok()?;
    if tree.root_node().has_error() {
        return None;
    }
    Some(digest(language, tree.root_node(), code, true))
}

fn digest(language: Language, root: Node<'_>, code: &str, skip_imports: bool) -> Fingerprint {
    let mut hasher = blake3::Hasher::new();
    let mut nodes = 0usize;
    syntax::walk(root, |n| {
        if syntax::is_comment(n)
            || (language == Language::Python && is_docstring(n))
            || (skip_imports && is_import(n))
        {
            return false;
        }
        nodes += 1;
        hasher.update(&n.kind_id().to_le_bytes());
        if n.child_count() == 0 {
            let t = text(n, code);
            hasher.update(&(t.len() as u64).to_le_bytes());
            hasher.update(t.as_bytes());
        }
        hasher.update(&[u8::from(n.child_count() > 0)]);
        true
    });
    Fingerprint {
        hash: hasher.finalize().to_hex().to_string(),
        nodes,
    }
}

/// What documentation rules need to know about a function's declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionFacts {
    /// Parameter names in order (Python `self`/`cls` left out; JavaScript destructuring
    /// patterns, which have no name, left out).
    pub params: Vec<String>,
    /// Declared parameter types, where written (always for Java).
    pub param_types: Vec<Option<String>>,
    /// Whether it returns a value: Java's return type is not `void`; Python and JavaScript
    /// have a `return <expression>` in their own body (nested functions do not count) or are
    /// an arrow function with an expression body.
    pub returns_value: bool,
}

/// Facts about the function `name` in `code`.
pub fn function_facts(language: Language, code: &str, name: &str) -> Option<FunctionFacts> {
    let tree = syntax::parse(language, code).ok()?;
    let decl = find_function(tree.root_node(), code, name)?;
    // A JavaScript declarator's function is its value.
    let func = if decl.kind() == "variable_declarator" {
        decl.child_by_field_name("value")?
    } else {
        decl
    };
    let mut params = Vec::new();
    let mut param_types = Vec::new();
    let list = func
        .child_by_field_name("parameters")
        .or_else(|| func.child_by_field_name("parameter"));
    if let Some(list) = list {
        if list.kind() == "identifier" {
            // `x => …`
            params.push(text(list, code).to_owned());
            param_types.push(None);
        }
        let mut c = list.walk();
        for p in list.named_children(&mut c) {
            if syntax::is_comment(p) {
                continue;
            }
            let (pname, ty) = param_name(language, p, code);
            if let Some(pname) = pname {
                if language == Language::Python && (pname == "self" || pname == "cls") {
                    continue;
                }
                params.push(pname);
                param_types.push(ty);
            }
        }
    }
    let returns_value = match language {
        Language::Java => func
            .child_by_field_name("type")
            .is_some_and(|t| text(t, code) != "void"),
        _ => {
            let body = func.child_by_field_name("body");
            match body {
                Some(b) if func.kind() == "arrow_function" && b.kind() != "statement_block" => true,
                Some(b) => has_value_return(b),
                None => false,
            }
        }
    };
    Some(FunctionFacts {
        params,
        param_types,
        returns_value,
    })
}

fn param_name(language: Language, p: Node<'_>, code: &str) -> (Option<String>, Option<String>) {
    let ty = p
        .child_by_field_name("type")
        .map(|t| text(t, code).to_owned());
    let name = match (language, p.kind()) {
        (_, "identifier") => Some(text(p, code).to_owned()),
        (Language::Python, "typed_parameter") => {
            // The name is the first named child (`x`, `*args`, `**kw`).
            p.named_child(0).and_then(|n| splat_name(n, code))
        }
        (Language::Python, "default_parameter" | "typed_default_parameter") => p
            .child_by_field_name("name")
            .map(|n| text(n, code).to_owned()),
        (Language::Python, "list_splat_pattern" | "dictionary_splat_pattern") => {
            splat_name(p, code)
        }
        (Language::Javascript, "assignment_pattern") => p
            .child_by_field_name("left")
            .filter(|l| l.kind() == "identifier")
            .map(|l| text(l, code).to_owned()),
        (Language::Javascript, "rest_pattern") => p
            .named_child(0)
            .filter(|l| l.kind() == "identifier")
            .map(|l| text(l, code).to_owned()),
        (Language::Java, "formal_parameter" | "spread_parameter") => {
            let mut found = p
                .child_by_field_name("name")
                .map(|n| text(n, code).to_owned());
            if found.is_none() {
                // `String... xs`: the declarator holds the name.
                syntax::walk(p, |n| {
                    if found.is_none() && n.kind() == "variable_declarator" {
                        found = n
                            .child_by_field_name("name")
                            .map(|x| text(x, code).to_owned());
                    }
                    found.is_none()
                });
            }
            let ty = ty.or_else(|| {
                let mut c = p.walk();
                p.named_children(&mut c)
                    .find(|t| t.kind() != "modifiers" && t.kind() != "variable_declarator")
                    .map(|t| text(t, code).to_owned())
            });
            return (found, ty);
        }
        _ => None,
    };
    (name, ty)
}

fn splat_name(n: Node<'_>, code: &str) -> Option<String> {
    match n.kind() {
        "identifier" => Some(text(n, code).to_owned()),
        "list_splat_pattern" | "dictionary_splat_pattern" => n
            .named_child(0)
            .filter(|x| x.kind() == "identifier")
            .map(|x| text(x, code).to_owned()),
        _ => None,
    }
}

/// Whether `body` has a `return <expression>` outside nested functions and classes.
fn has_value_return(body: Node<'_>) -> bool {
    let mut found = false;
    syntax::walk(body, |n| {
        if found {
            return false;
        }
        if n != body && is_nested_scope(n.kind()) {
            return false;
        }
        if n.kind() == "return_statement" && n.named_child_count() > 0 {
            let mut c = n.walk();
            found = n.named_children(&mut c).any(|x| !syntax::is_comment(x));
        }
        true
    });
    found
}

fn is_nested_scope(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "lambda"
            | "class_definition"
            | "function_declaration"
            | "function_expression"
            | "function"
            | "generator_function"
            | "generator_function_declaration"
            | "arrow_function"
            | "method_definition"
            | "class_declaration"
            | "class"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_docstring_is_extracted_and_ignored_by_the_fingerprint() {
        let plain = "def f(a, b):\n    return a + b\n";
        let documented = "def f(a, b):\n    \"\"\"Add.\n\n    :param a: one\n    \"\"\"\n    # sum\n    return a+b\n";
        assert_eq!(
            doc_comment(Language::Python, documented, "f").unwrap(),
            "Add.\n\n:param a: one"
        );
        assert_eq!(doc_comment(Language::Python, plain, "f"), None);
        assert_eq!(
            fingerprint(Language::Python, plain, "f"),
            fingerprint(Language::Python, documented, "f")
        );
        let changed = "def f(a, b):\n    return a - b\n";
        assert_ne!(
            fingerprint(Language::Python, plain, "f"),
            fingerprint(Language::Python, changed, "f")
        );
    }

    #[test]
    fn jsdoc_and_javadoc_are_extracted() {
        let js = "/**\n * Adds.\n * @param {number} a\n */\nconst add = (a, b) => a + b;\n";
        assert_eq!(
            doc_comment(Language::Javascript, js, "add").unwrap(),
            "Adds.\n@param {number} a"
        );
        let java =
            "class S {\n  /** Adds. */\n  public int add(int a, int b) { return a + b; }\n}\n";
        assert_eq!(doc_comment(Language::Java, java, "add").unwrap(), "Adds.");
        let bare = "class S {\n  // not doc\n  public int add(int a, int b) { return a + b; }\n}\n";
        assert_eq!(doc_comment(Language::Java, bare, "add"), None);
    }

    #[test]
    fn program_fingerprint_ignores_docs_imports_and_layout_only() {
        let given = "from typing import List\n\ndef f(a: List[int]) -> int:\n    return sum(a)\n";
        let documented = "def f(a: List[int]) -> int:\n    \"\"\"Sum.\n\n    >>> f([1])\n    1\n    \"\"\"\n    return sum(a)  # all\n";
        let fp = |c| program_fingerprint(Language::Python, c).unwrap();
        assert_eq!(fp(given), fp(documented));
        let extra = format!("{documented}\ndef g():\n    return 1\n");
        assert_ne!(fp(given), fp(&extra));
        assert_ne!(
            fp(given),
            fp("def f(a: List[int]) -> int:\n    return sum(a) + 0\n")
        );
    }

    #[test]
    fn function_facts_in_three_languages() {
        let py = "def f(self, a, b: int = 2, *args, c=1, **kw):\n    def g():\n        return 1\n    print(a)\n";
        let facts = function_facts(Language::Python, py, "f").unwrap();
        assert_eq!(facts.params, ["a", "b", "args", "c", "kw"]);
        assert!(
            !facts.returns_value,
            "a nested function's return is not f's"
        );
        let py = "def f(a):\n    if a:\n        return a * 2\n    return\n";
        assert!(
            function_facts(Language::Python, py, "f")
                .unwrap()
                .returns_value
        );
        let js = "const f = (xs, t = 1, ...rest) => xs.length;\nfunction g({a}, b) { xs.forEach(x => { return x; }); }\n";
        let facts = function_facts(Language::Javascript, js, "f").unwrap();
        assert_eq!(facts.params, ["xs", "t", "rest"]);
        assert!(facts.returns_value);
        let facts = function_facts(Language::Javascript, js, "g").unwrap();
        assert_eq!(facts.params, ["b"]);
        assert!(!facts.returns_value);
        let java = "class S {\n  public List<Integer> f(List<Integer> xs, final int k) { return xs; }\n  void g(String... s) { }\n}\n";
        let facts = function_facts(Language::Java, java, "f").unwrap();
        assert_eq!(facts.params, ["xs", "k"]);
        assert_eq!(
            facts.param_types,
            [Some("List<Integer>".to_owned()), Some("int".to_owned())]
        );
        assert!(facts.returns_value);
        let facts = function_facts(Language::Java, java, "g").unwrap();
        assert_eq!(facts.params, ["s"]);
        assert!(!facts.returns_value);
    }

    #[test]
    fn inserted_docs_are_found_and_leave_the_code_unchanged() {
        let doc = "Adds.\n\nArgs:\n    a: one\n\n>>> f(1, 2)\n3";
        let cases = [
            (
                Language::Python,
                "from typing import List\n\n\ndef f(a, b):\n\n    c = a + b\n    return c\n",
            ),
            (
                Language::Javascript,
                "\nconst f = (a, b) => {\n  return a + b;\n}\n",
            ),
            (
                Language::Java,
                "import java.util.*;\n\nclass Solution {\n    public int f(int a, int b) {\n        return a + b;\n    }\n}\n",
            ),
        ];
        for (language, code) in cases {
            let documented = insert_doc(language, code, "f", doc).unwrap();
            assert_eq!(
                doc_comment(language, &documented, "f").as_deref(),
                Some(doc),
                "{language}:\n{documented}"
            );
            assert_eq!(
                program_fingerprint(language, code),
                program_fingerprint(language, &documented)
            );
            assert_eq!(insert_doc(language, &documented, "f", doc), None);
        }
        assert_eq!(
            insert_doc(Language::Python, "def f(): return 1\n", "f", doc),
            None
        );
        assert_eq!(
            insert_doc(
                Language::Java,
                "class S { int f() { return 1; } }",
                "f",
                "x */ y"
            ),
            None
        );
    }

    #[test]
    fn graders_see_through_an_entry_point_alias() {
        let py = "def _impl(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b\n\nadd = _impl\n";
        let facts = function_facts(Language::Python, py, "add").unwrap();
        assert_eq!(facts.params, ["a", "b"]);
        assert_eq!(
            doc_comment(Language::Python, py, "add").as_deref(),
            Some("Add.")
        );
        let js = "function impl(xs, k) { return xs[k]; }\nconst step = impl;\nconst pick = step;\n";
        let facts = function_facts(Language::Javascript, js, "pick").unwrap();
        assert_eq!(facts.params, ["xs", "k"]);
        assert!(facts.returns_value);
        let dangling = "const pick = impl;\n";
        assert_eq!(function_facts(Language::Javascript, dangling, "pick"), None);
        let cycle = "a = b\nb = a\n";
        assert_eq!(function_facts(Language::Python, cycle, "a"), None);
    }

    #[test]
    fn strip_comments_keeps_code_parsable() {
        let code = "def f():\n    \"\"\"Only a docstring.\"\"\"\n\n# note\ndef g():\n    return 1  # one\n";
        let stripped = strip_comments(Language::Python, code).unwrap();
        assert_eq!(stripped, "def f():\n    pass\n\ndef g():\n    return 1\n");
        let js = "// a\nfunction f() { /* b */ return 1; }\n";
        assert_eq!(
            strip_comments(Language::Javascript, js).unwrap(),
            "function f() {  return 1; }\n"
        );
    }
}
