//! Finding code in a markdown-ish answer: fenced blocks, and code-looking regions of prose.

use passrate_schema::Language;

/// Markdown nested in markdown is unwrapped at most this deep.
const MAX_FENCE_DEPTH: usize = 4;

/// What a fence's info string says the block holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tag {
    /// No info string.
    None,
    /// One of the three languages.
    Lang(Language),
    /// A language or format that is not one of ours (`typescript`, `cpp`, `text`, `output`, …).
    Other(String),
}

/// A fenced code block.
#[derive(Clone, Debug)]
pub struct Block {
    pub tag: Tag,
    pub text: String,
    pub terminated: bool,
}

/// Maps a fence info string to a [`Tag`].
pub fn parse_tag(info: &str) -> Tag {
    let word = info
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{' || c == '}')
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .trim_start_matches('.')
        .to_ascii_lowercase();
    if word.is_empty() {
        return Tag::None;
    }
    let lang = match word.as_str() {
        "python" | "py" | "python3" | "py3" | "ipython" | "ipython3" | "python2" => {
            Some(Language::Python)
        }
        "javascript" | "js" | "node" | "nodejs" | "jsx" | "mjs" | "cjs" | "ecmascript" => {
            Some(Language::Javascript)
        }
        "java" => Some(Language::Java),
        _ => None,
    };
    match lang {
        Some(l) => Tag::Lang(l),
        None => Tag::Other(word),
    }
}

/// An opening or closing fence line: (indent, fence char, run length, info string).
fn fence_line(line: &str) -> Option<(usize, u8, usize, &str)> {
    let trimmed = line.trim_start_matches([' ', '\t']);
    let indent = line.len() - trimmed.len();
    let first = *trimmed.as_bytes().first()?;
    if first != b'`' && first != b'~' {
        return None;
    }
    let run = trimmed.bytes().take_while(|b| *b == first).count();
    if run < 3 {
        return None;
    }
    let info = trimmed[run..].trim();
    // CommonMark: a backtick fence's info string cannot contain backticks (that is inline code).
    if first == b'`' && info.contains('`') {
        return None;
    }
    Some((indent, first, run, info))
}

/// Fenced blocks of `text`, in order. Unterminated last blocks run to the end. Blocks tagged
/// as markdown (or untagged blocks that themselves contain fences) are unwrapped.
pub fn fenced_blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    scan(text, 0, &mut out);
    out
}

fn scan(text: &str, depth: usize, out: &mut Vec<Block>) {
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let Some((indent, ch, run, info)) = fence_line(line) else {
            continue;
        };
        let tag = parse_tag(info);
        let mut body = String::new();
        let mut terminated = false;
        for inner in lines.by_ref() {
            if let Some((_, c2, run2, info2)) = fence_line(inner)
                && c2 == ch
                && run2 >= run
                && info2.is_empty()
            {
                terminated = true;
                break;
            }
            // Content lines lose up to the fence's own indentation (list-item fences).
            let cut = inner
                .bytes()
                .take(indent)
                .take_while(|b| *b == b' ' || *b == b'\t')
                .count();
            body.push_str(&inner[cut..]);
        }
        let is_markdown = matches!(&tag, Tag::Other(t) if t == "markdown" || t == "md");
        if depth < MAX_FENCE_DEPTH
            && (is_markdown || tag == Tag::None)
            && body.lines().any(|l| fence_line(l).is_some())
        {
            let before = out.len();
            scan(&body, depth + 1, out);
            if out.len() > before {
                continue;
            }
        }
        out.push(Block {
            tag,
            text: body,
            terminated,
        });
    }
}

/// The text outside fenced blocks (prose, and code written without fences).
pub fn unfenced_text(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let Some((_, ch, run, _)) = fence_line(line) else {
            out.push_str(line);
            continue;
        };
        for inner in lines.by_ref() {
            if let Some((_, c2, run2, info2)) = fence_line(inner)
                && c2 == ch
                && run2 >= run
                && info2.is_empty()
            {
                break;
            }
        }
        out.push('\n');
    }
    out
}

fn keywords(language: Language) -> &'static [&'static str] {
    match language {
        Language::Python => &[
            "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
            "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
            "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
            "with", "yield", "print", "match", "case",
        ],
        Language::Javascript => &[
            "async",
            "await",
            "break",
            "case",
            "catch",
            "class",
            "const",
            "continue",
            "default",
            "delete",
            "do",
            "else",
            "export",
            "extends",
            "finally",
            "for",
            "function",
            "if",
            "import",
            "in",
            "instanceof",
            "let",
            "new",
            "return",
            "switch",
            "throw",
            "try",
            "typeof",
            "var",
            "void",
            "while",
            "yield",
        ],
        Language::Java => &[
            "abstract",
            "assert",
            "boolean",
            "break",
            "byte",
            "case",
            "catch",
            "char",
            "class",
            "continue",
            "default",
            "do",
            "double",
            "else",
            "enum",
            "extends",
            "final",
            "finally",
            "float",
            "for",
            "if",
            "implements",
            "import",
            "int",
            "interface",
            "long",
            "new",
            "package",
            "private",
            "protected",
            "public",
            "return",
            "short",
            "static",
            "super",
            "switch",
            "synchronized",
            "this",
            "throw",
            "throws",
            "try",
            "void",
            "while",
            "var",
            "record",
            "String",
        ],
    }
}

/// Whether a line reads like English rather than code: it starts with at least three plain
/// words (after an optional list bullet), the first of which is not a keyword.
pub fn is_prose_line(line: &str, language: Language) -> bool {
    let mut t = line.trim();
    for bullet in ["- ", "* ", "+ ", "> ", "**"] {
        if let Some(rest) = t.strip_prefix(bullet) {
            t = rest.trim_start();
        }
    }
    if t.len() > 2
        && t.as_bytes()[0].is_ascii_digit()
        && let Some(rest) = t
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .strip_prefix(". ")
    {
        t = rest;
    }
    if language != Language::Python && t.starts_with("# ") {
        return true;
    }
    let plain = |w: &str| {
        let core = w.trim_end_matches([',', '.', ':', ';', '!', '?', ')']);
        !core.is_empty()
            && core
                .chars()
                .all(|c| c.is_alphabetic() || c == '\'' || c == '’' || c == '-' || c == '`')
            && core.chars().next().is_some_and(char::is_alphabetic)
    };
    let mut words = t.split_whitespace();
    let Some(first) = words.next() else {
        return false;
    };
    if keywords(language).contains(&first) || !plain(first) {
        return false;
    }
    match (words.next(), words.next()) {
        (Some(a), Some(b)) => plain(a) && plain(b),
        // A lone heading word such as "Output:" or "Explanation:".
        (None, _) => first.ends_with(':') && first.len() > 2,
        (Some(_), None) => false,
    }
}

/// Whether a line can start a code region in `language`.
pub fn is_code_start(line: &str, language: Language) -> bool {
    let t = line.trim_start();
    match language {
        Language::Python => {
            t.starts_with("def ")
                || t.starts_with("async def ")
                || t.starts_with("class ")
                || t.starts_with("import ")
                || (t.starts_with("from ") && t.contains(" import "))
                || (t.starts_with('@') && t[1..].starts_with(|c: char| c.is_alphabetic()))
                || t.starts_with("if __name__")
        }
        Language::Javascript => [
            "function ",
            "function*",
            "async function",
            "const ",
            "let ",
            "var ",
            "class ",
        ]
        .iter()
        .chain(
            [
                "import ",
                "export ",
                "module.exports",
                "'use strict'",
                "\"use strict\"",
            ]
            .iter(),
        )
        .any(|p| t.starts_with(p)),
        Language::Java => {
            let starts = [
                "import ",
                "package ",
                "public ",
                "private ",
                "protected ",
                "class ",
                "static ",
                "final ",
                "abstract ",
                "interface ",
                "enum ",
                "record ",
            ]
            .iter()
            .any(|p| t.starts_with(p))
                || (t.starts_with('@') && t[1..].starts_with(|c: char| c.is_alphabetic()));
            starts || looks_like_java_method_header(t)
        }
    }
}

fn looks_like_java_method_header(t: &str) -> bool {
    let t = t.trim_end();
    let Some(paren) = t.find('(') else {
        return false;
    };
    (t.ends_with('{') || t.ends_with(')'))
        && t[..paren].split_whitespace().count() >= 2
        && !t.contains('=')
        && !t.starts_with("return")
}

/// Code-looking regions of unfenced text for `language`: each starts at a line that can start
/// code and ends before the first prose line at or left of the region's indentation.
pub fn code_regions(text: &str, language: Language) -> Vec<String> {
    let mut regions = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for line in text.split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if let Some((start_indent, body)) = current.as_mut() {
            let blank = line.trim().is_empty();
            let ends = !blank
                && indent <= *start_indent
                && (is_prose_line(line, language) || fence_line(line).is_some());
            if !ends {
                body.push_str(line);
                continue;
            }
            if let Some((_, body)) = current.take() {
                regions.push(body);
            }
        }
        if is_code_start(line, language) {
            current = Some((indent, line.to_owned()));
        }
    }
    if let Some((_, body)) = current {
        regions.push(body);
    }
    regions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_tagged_untagged_tilde_and_unterminated_fences() {
        let text = "a\n```python\nx = 1\n```\nb\n~~~\ny\n~~~\n```js\nz";
        let blocks = fenced_blocks(text);
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[0].tag, Tag::Lang(Language::Python));
        assert_eq!(blocks[0].text, "x = 1\n");
        assert_eq!(blocks[1].tag, Tag::None);
        assert_eq!(blocks[2].tag, Tag::Lang(Language::Javascript));
        assert!(!blocks[2].terminated);
    }

    #[test]
    fn longer_outer_fence_keeps_inner_fences_and_markdown_is_unwrapped() {
        let text = "````markdown\nText\n```python\ndef f():\n    pass\n```\n````\n";
        let blocks = fenced_blocks(text);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].text, "def f():\n    pass\n");
    }

    #[test]
    fn indented_fences_lose_their_indentation() {
        let blocks = fenced_blocks("1. Code:\n   ```python\n   def f():\n       pass\n   ```\n");
        assert_eq!(blocks[0].text, "def f():\n    pass\n");
    }

    #[test]
    fn prose_lines_are_told_from_code() {
        assert!(is_prose_line(
            "This function returns the sum.",
            Language::Python
        ));
        assert!(is_prose_line(
            "- The filter method filters things",
            Language::Python
        ));
        assert!(is_prose_line("Output:", Language::Python));
        assert!(!is_prose_line("return a + b", Language::Python));
        assert!(!is_prose_line("int foo(int x) {", Language::Java));
        assert!(!is_prose_line("x = 1", Language::Python));
    }

    #[test]
    fn regions_stop_at_prose() {
        let text = "Here is the code:\ndef f(x):\n    return x\n\nThis returns x unchanged.\n";
        let regions = code_regions(text, Language::Python);
        assert_eq!(regions, vec!["def f(x):\n    return x\n\n".to_owned()]);
    }
}
