//! Language detection, for answers written in a language other than the task's.

use passrate_schema::Language;

use crate::ExtractRequest;
use crate::items::{self, ItemKind};
use crate::markdown::{self, Block, Tag};
use crate::syntax;

/// Fence tags of programming languages we cannot run: code under them is another language.
fn is_programming_tag(tag: &str) -> bool {
    crate::engine::is_foreign_tag(tag)
        && !matches!(
            tag,
            "bash"
                | "sh"
                | "shell"
                | "console"
                | "zsh"
                | "powershell"
                | "cmd"
                | "bat"
                | "json"
                | "yaml"
                | "yml"
                | "xml"
                | "toml"
                | "html"
                | "css"
                | "sql"
        )
}

/// Names compared across naming conventions: `has_close_elements` ~ `hasCloseElements`.
fn loose_name(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// What `text` defines when parsed as `language`: (clean parse, defines anything, defines a
/// function or method loosely named `entry`).
fn defines(language: Language, text: &str, entry: &str) -> (bool, bool, bool) {
    let Ok(tree) = syntax::parse(language, text) else {
        return (false, false, false);
    };
    let items = items::items(language, &tree, text);
    let wanted = loose_name(entry);
    let mut any = false;
    let mut named = false;
    for item in &items {
        if item.has_error {
            continue;
        }
        let fns = item.function.iter().chain(&item.methods);
        for f in fns {
            any = true;
            named |= !wanted.is_empty() && loose_name(&f.name) == wanted;
        }
        if item.kind == ItemKind::Class {
            any = true;
        }
    }
    (!tree.root_node().has_error(), any, named)
}

/// The language the answer is written in, when it is not the task's and the answer holds no
/// code in the task's language; with a short reason.
pub fn foreign_language(
    req: &ExtractRequest,
    answer: &str,
    blocks: &[Block],
) -> Option<(String, String)> {
    for b in blocks {
        if b.text.trim().is_empty() {
            continue;
        }
        match &b.tag {
            Tag::Lang(l) if *l != req.language => {
                return Some((l.to_string(), format!("code block tagged `{l}`")));
            }
            Tag::Other(t) if is_programming_tag(t) => {
                return Some((t.clone(), format!("code block tagged `{t}`")));
            }
            _ => {}
        }
    }
    let untagged: Vec<&str> = if blocks.is_empty() {
        vec![answer]
    } else {
        blocks
            .iter()
            .filter(|b| b.tag == Tag::None)
            .map(|b| b.text.as_str())
            .collect()
    };
    for other in Language::ALL {
        if other == req.language {
            continue;
        }
        for text in &untagged {
            let (clean, any, named) = defines(other, text, &req.entry_point);
            if clean && (named || any) {
                return Some((
                    other.to_string(),
                    "it parses as such and defines functions".into(),
                ));
            }
        }
        // Beyond this size no region is worth the scan: the answer is junk or a data dump.
        if answer.len() > 4 * syntax::MAX_PARSE_BYTES {
            continue;
        }
        let prose = if blocks.is_empty() {
            answer.to_owned()
        } else {
            markdown::unfenced_text(answer)
        };
        for region in markdown::code_regions(&prose, other) {
            let (clean, _, named) = defines(other, &region, &req.entry_point);
            if clean && named {
                return Some((
                    other.to_string(),
                    "unfenced code defines the entry point".into(),
                ));
            }
        }
    }
    None
}

/// Which of the three languages `code` is written in: the one whose grammar parses it
/// without error and finds definitions in it (the first such, Python, JavaScript, Java).
pub fn detect_language(code: &str) -> Option<Language> {
    Language::ALL.into_iter().find(|l| {
        let (clean, any, _) = defines(*l, code, "");
        clean && any
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_language() {
        assert_eq!(
            detect_language("def f(x):\n    return x\n"),
            Some(Language::Python)
        );
        assert_eq!(
            detect_language("function f(x) { return x; }"),
            Some(Language::Javascript)
        );
        assert_eq!(
            detect_language("class A { public static int f(int x) { return x; } }"),
            Some(Language::Java)
        );
        assert_eq!(detect_language("just some words here"), None);
    }

    #[test]
    fn loose_names_ignore_case_and_underscores() {
        assert_eq!(
            loose_name("has_close_elements"),
            loose_name("hasCloseElements")
        );
    }
}
