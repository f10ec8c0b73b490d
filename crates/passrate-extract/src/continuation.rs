//! Whether a completion-style answer continues the task's prompt with code of its own.
//!
//! A Python completion prompt (signature and docstring) is already a valid function, and a
//! class skeleton a valid class: prompt + anything that does not break the parse would define
//! the entry point, so a refusal or an explanation would count as a compliant answer made of
//! the prompt alone. A continuation is therefore judged only when the answer adds at least
//! one statement inside the entry point's body (what CodeGen-style models write). A
//! "statement" the parser made out of a prose line it could not place (`I cannot …` read as
//! an identifier or a declaration next to a syntax error) does not count. Prose elsewhere,
//! such as an explanation after a completed body, is left to the rules that drop script
//! code and broken items, as for any other answer.

use std::ops::Range;

use passrate_schema::Language;
use tree_sitter::{Node, Tree};

use crate::markdown;
use crate::syntax;

/// The definition the answer's statements must land in.
#[derive(Clone, Copy, Debug)]
pub enum Target<'a> {
    /// A function or method with this name.
    Function(&'a str),
    /// A class with this name (class-level tasks fill in its methods).
    Class(&'a str),
    /// Anywhere after the prompt (answers that are not one definition, such as tests).
    Anywhere,
}

/// Whether `source`, parsed as `tree`, whose first `prompt_len` bytes are the prompt, holds
/// code of the answer's own: a statement that starts after the prompt inside `target` and
/// is not a prose line the grammar could not place.
pub fn adds_code(
    language: Language,
    target: Target<'_>,
    tree: &Tree,
    source: &str,
    prompt_len: usize,
) -> bool {
    let root = tree.root_node();
    let scan = Scan {
        language,
        source,
        from: prompt_len,
        errors: error_ranges(root, prompt_len),
    };
    let mut found = false;
    match target {
        Target::Anywhere => found = scan.has_statement(root),
        Target::Function(_) | Target::Class(_) => syntax::walk(root, |node| {
            if found || node.end_byte() <= prompt_len {
                return false;
            }
            if defines(language, target, node, source) && scan.has_statement(node) {
                found = true;
                return false;
            }
            true
        }),
    }
    found
}

/// Whether `node` is the definition `target` names.
fn defines(language: Language, target: Target<'_>, node: Node<'_>, source: &str) -> bool {
    let (wanted, kinds): (&str, &[&str]) = match (target, language) {
        (Target::Anywhere, _) => return false,
        (Target::Function(name), Language::Python) => (name, &["function_definition"]),
        (Target::Function(name), Language::Javascript) => (
            name,
            &[
                "function_declaration",
                "generator_function_declaration",
                "function_expression",
                "method_definition",
                // `const f = (x) => { … }`: the declarator holds the name and the body.
                "variable_declarator",
            ],
        ),
        (Target::Function(name), Language::Java) => {
            (name, &["method_declaration", "constructor_declaration"])
        }
        (Target::Class(name), Language::Python) => (name, &["class_definition"]),
        (Target::Class(name), Language::Javascript) => (name, &["class_declaration", "class"]),
        (Target::Class(name), Language::Java) => (name, &["class_declaration"]),
    };
    kinds.contains(&node.kind())
        && node
            .child_by_field_name("name")
            .is_some_and(|n| syntax::text(n, source) == wanted)
}

/// The continued source with the answer's syntax errors.
struct Scan<'s> {
    language: Language,
    source: &'s str,
    /// Where the answer starts.
    from: usize,
    /// Error and missing nodes that end in the answer.
    errors: Vec<Range<usize>>,
}

impl Scan<'_> {
    /// Whether a statement of the answer's own starts under `node`.
    fn has_statement(&self, node: Node<'_>) -> bool {
        let mut found = false;
        syntax::walk(node, |n| {
            if found || n.end_byte() <= self.from {
                return false;
            }
            if n.start_byte() >= self.from && is_statement(self.language, n) {
                if self.is_misread_prose(n) {
                    return false;
                }
                found = true;
                return false;
            }
            true
        });
        found
    }

    /// Whether the statement's first line reads as prose and overlaps a syntax error: the
    /// parser's recovery made a statement out of words. Prose-looking lines that parse, such
    /// as `x and y or z`, are code.
    fn is_misread_prose(&self, n: Node<'_>) -> bool {
        let start = self.source[..n.start_byte()]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let end = self.source[start..]
            .find('\n')
            .map_or(self.source.len(), |i| start + i);
        let line = &self.source[start..end];
        markdown::is_prose_line(line.trim(), self.language)
            && self.errors.iter().any(|e| e.start < end && start < e.end)
    }
}

fn is_statement(language: Language, node: Node<'_>) -> bool {
    if !node.is_named() || node.is_error() || node.is_missing() {
        return false;
    }
    let kind = node.kind();
    match kind {
        "expression_statement" => !is_bare_string(node),
        "empty_statement" => false,
        "function_definition" | "class_definition" | "decorated_definition" => {
            language == Language::Python
        }
        // Java's `switch` used as a statement.
        "switch_expression" => language == Language::Java,
        _ => kind.ends_with("_statement") || kind.ends_with("_declaration"),
    }
}

/// A docstring or a directive such as `"use strict"`: text, not code.
fn is_bare_string(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    let mut children = node
        .named_children(&mut cursor)
        .filter(|c| !syntax::is_comment(*c));
    let first = children.next();
    children.next().is_none()
        && first.is_some_and(|c| {
            matches!(
                c.kind(),
                "string" | "concatenated_string" | "template_string"
            )
        })
}

/// Byte ranges of error and missing nodes that end after `from`.
fn error_ranges(root: Node<'_>, from: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    syntax::walk(root, |n| {
        if n.end_byte() < from || !n.has_error() {
            return false;
        }
        if n.is_error() || n.is_missing() {
            // A missing node is zero-width: widen it to the byte it was expected at.
            let r = n.byte_range();
            out.push(r.start..r.end.max(r.start + 1));
            return false;
        }
        true
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(language: Language, target: Target<'_>, prompt: &str, answer: &str) -> bool {
        let source = format!("{prompt}{answer}");
        let tree = syntax::parse(language, &source).unwrap();
        adds_code(language, target, &tree, &source, prompt.len())
    }

    const PY: &str = "def f(x):\n    \"\"\"Doc.\"\"\"\n";

    #[test]
    fn a_body_statement_is_code_and_prose_or_docstrings_are_not() {
        let f = Target::Function("f");
        assert!(check(Language::Python, f, PY, "    return x\n"));
        assert!(!check(Language::Python, f, PY, ""));
        assert!(!check(Language::Python, f, PY, "I cannot help with that."));
        assert!(!check(Language::Python, f, PY, "    \"\"\"More.\"\"\"\n"));
        assert!(!check(Language::Python, f, PY, "    # todo\n"));
        // Code after the function does not fill its body in.
        assert!(!check(Language::Python, f, PY, "print(1)\n"));
    }

    #[test]
    fn prose_after_a_completed_body_leaves_the_body_as_code() {
        // CodeGen-16B on HumanEval/81: a full body, then the start of an unclosed string.
        let answer = "    return x\n\n\"\"\"\nTest your code by using the built-in function on the";
        assert!(check(Language::Python, Target::Function("f"), PY, answer));
    }

    #[test]
    fn prose_inside_strings_and_comments_is_not_prose() {
        let f = Target::Function("f");
        let answer = "    # This is the sum of the list\n    s = \"this is not prose either\"\n    return s\n";
        assert!(check(Language::Python, f, PY, answer));
    }

    #[test]
    fn javascript_and_java_bodies_count_inside_the_entry_point() {
        let js = "function f(x) {\n";
        assert!(check(
            Language::Javascript,
            Target::Function("f"),
            js,
            "  return x;\n}"
        ));
        assert!(!check(
            Language::Javascript,
            Target::Function("f"),
            js,
            "Sorry, I cannot do that."
        ));
        let java = "class F {\n    public static int f(int x) {\n";
        assert!(check(
            Language::Java,
            Target::Function("f"),
            java,
            "        return x;\n    }\n}"
        ));
        assert!(!check(
            Language::Java,
            Target::Function("f"),
            java,
            "I cannot help with that."
        ));
    }
}
