//! Tree-sitter parsing with bounded cost, and small helpers over syntax trees.

use std::cell::RefCell;
use std::collections::HashSet;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use passrate_schema::Language;
use tree_sitter::{Node, ParseOptions, Parser, Tree};

/// Candidates larger than this are not parsed (an answer is a function or a class, not a
/// code base); it bounds the work a 10 MB answer can cause.
pub const MAX_PARSE_BYTES: usize = 512 * 1024;

/// Wall-clock guard of one parse, checked by tree-sitter's progress callback. The byte cap
/// is what bounds the work; this is far above any real parse (about 1 ms per 10 KB) so
/// that machine load cannot change a verdict, and only stops a pathological hang.
pub const PARSE_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a text could not be parsed at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("code of {0} bytes exceeds the parse limit of {MAX_PARSE_BYTES} bytes")]
    TooLarge(usize),
    #[error("parsing took longer than {} ms", PARSE_TIMEOUT.as_millis())]
    Timeout,
    #[error("failed to load the {0} grammar")]
    Grammar(Language),
}

thread_local! {
    // One parser per language per thread: creating one and loading a grammar costs more
    // than parsing a typical answer.
    static PARSERS: RefCell<[Option<Parser>; 3]> = const { RefCell::new([None, None, None]) };
}

fn grammar(language: Language) -> tree_sitter::Language {
    match language {
        Language::Python => tree_sitter_python::LANGUAGE.into(),
        Language::Javascript => tree_sitter_javascript::LANGUAGE.into(),
        Language::Java => tree_sitter_java::LANGUAGE.into(),
    }
}

fn slot(language: Language) -> usize {
    match language {
        Language::Python => 0,
        Language::Javascript => 1,
        Language::Java => 2,
    }
}

/// Parses `text` as `language`, within [`MAX_PARSE_BYTES`] and [`PARSE_TIMEOUT`].
pub fn parse(language: Language, text: &str) -> Result<Tree, ParseError> {
    if text.len() > MAX_PARSE_BYTES {
        return Err(ParseError::TooLarge(text.len()));
    }
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let entry = &mut parsers[slot(language)];
        if entry.is_none() {
            let mut parser = Parser::new();
            if parser.set_language(&grammar(language)).is_err() {
                return Err(ParseError::Grammar(language));
            }
            *entry = Some(parser);
        }
        let Some(parser) = entry.as_mut() else {
            return Err(ParseError::Grammar(language));
        };
        let bytes = text.as_bytes();
        let deadline = Instant::now() + PARSE_TIMEOUT;
        let mut progress = |_: &tree_sitter::ParseState| {
            if Instant::now() > deadline {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut progress);
        let tree = parser.parse_with_options(
            &mut |offset, _| &bytes[offset.min(bytes.len())..],
            None,
            Some(options),
        );
        // A cancelled parse leaves state behind; the next parse must start clean.
        parser.reset();
        tree.ok_or(ParseError::Timeout)
    })
}

/// The text of a node (empty if the range is not on char boundaries, which cannot happen
/// for trees parsed from a `str`).
pub fn text<'a>(node: Node<'_>, source: &'a str) -> &'a str {
    source.get(node.byte_range()).unwrap_or("")
}

/// Calls `visit` on every node under `root` (pre-order), iteratively so that deeply nested
/// code cannot overflow the stack. `visit` returns `false` to skip a node's children.
pub fn walk<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
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

/// 1-based line and column of the first syntax error under `root`, if any.
pub fn first_error(root: Node<'_>) -> Option<(usize, usize)> {
    if !root.has_error() {
        return None;
    }
    let mut found = None;
    walk(root, |node| {
        if found.is_some() {
            return false;
        }
        if node.is_error() || node.is_missing() {
            let p = node.start_position();
            found = Some((p.row + 1, p.column + 1));
            return false;
        }
        node.has_error()
    });
    found.or_else(|| {
        let p = root.start_position();
        Some((p.row + 1, p.column + 1))
    })
}

/// Identifier-like names used under `node` (identifiers and type identifiers).
pub fn referenced_names(node: Node<'_>, source: &str, into: &mut HashSet<String>) {
    walk(node, |n| {
        if n.child_count() == 0 {
            let kind = n.kind();
            if kind == "identifier" || kind == "type_identifier" {
                let t = text(n, source);
                if !into.contains(t) {
                    into.insert(t.to_owned());
                }
            }
        }
        true
    });
}

/// Whether a node is a comment in any of the three grammars.
pub fn is_comment(node: Node<'_>) -> bool {
    matches!(node.kind(), "comment" | "line_comment" | "block_comment")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_language_and_locates_errors() {
        let tree = parse(Language::Python, "def f(x):\n    return x\n").unwrap();
        assert!(!tree.root_node().has_error());
        let tree = parse(Language::Javascript, "function f(x) { return x; }").unwrap();
        assert!(!tree.root_node().has_error());
        let tree = parse(Language::Java, "class A { int f(int x) { return x; } }").unwrap();
        assert!(!tree.root_node().has_error());
        let tree = parse(Language::Python, "def f(x):\n    return (x\n").unwrap();
        assert!(first_error(tree.root_node()).is_some());
    }

    #[test]
    fn oversized_input_is_refused() {
        let big = "x = 1\n".repeat(MAX_PARSE_BYTES / 6 + 1);
        assert_eq!(
            parse(Language::Python, &big).unwrap_err(),
            ParseError::TooLarge(big.len())
        );
    }

    #[test]
    fn walk_survives_deep_nesting() {
        let deep = format!("x = {}1{}\n", "[".repeat(20_000), "]".repeat(20_000));
        let tree = parse(Language::Python, &deep).unwrap();
        let mut count = 0usize;
        walk(tree.root_node(), |_| {
            count += 1;
            true
        });
        assert!(count > 20_000);
    }
}
