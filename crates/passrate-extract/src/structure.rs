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

/// The first function, method or function-valued declarator named `name`.
pub(crate) fn find_function<'t>(root: Node<'t>, source: &str, name: &str) -> Option<Node<'t>> {
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
    let mut hasher = blake3::Hasher::new();
    let mut nodes = 0usize;
    syntax::walk(func, |n| {
        if syntax::is_comment(n) || (language == Language::Python && is_docstring(n)) {
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
    Some(Fingerprint {
        hash: hasher.finalize().to_hex().to_string(),
        nodes,
    })
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
