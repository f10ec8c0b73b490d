//! Entry-point signatures read from source text (the `def`/`function`/method header).

use passrate_schema::{Param, Signature};

/// Splits on commas outside brackets and generics.
fn split_top(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        parts.push(current);
    }
    parts.into_iter().map(|p| p.trim().to_owned()).collect()
}

/// The text between the parenthesis after `name` and its match.
fn parenthesised_after<'a>(code: &'a str, name_pattern: &str) -> Option<(&'a str, &'a str)> {
    let start = code.find(name_pattern)? + name_pattern.len();
    let rest = &code[start..];
    let open = rest.find('(')?;
    let mut depth = 0;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let inner = &rest[open + 1..open + i];
                    return Some((inner, &rest[open + i + 1..]));
                }
            }
            _ => {}
        }
    }
    None
}

/// `def name(a: int, b=2) -> str:` in Python source.
pub fn python(code: &str, name: &str) -> Option<Signature> {
    let (inner, after) = parenthesised_after(code, &format!("def {name}"))?;
    let params = split_top(inner)
        .into_iter()
        .filter(|p| p != "self" && p != "*" && p != "/")
        .map(|p| {
            let p = p.split('=').next().unwrap_or("").trim().to_owned();
            match p.split_once(':') {
                Some((n, t)) => Param {
                    name: n.trim().to_owned(),
                    ty: Some(t.trim().to_owned()),
                },
                None => Param { name: p, ty: None },
            }
        })
        .collect();
    let returns = after
        .split(':')
        .next()
        .and_then(|h| h.trim().strip_prefix("->"))
        .map(|r| r.trim().to_owned());
    Some(Signature { params, returns })
}

/// `function name(a, b)` or `const name = (a, b) =>` in JavaScript source.
pub fn javascript(code: &str, name: &str) -> Option<Signature> {
    let inner = parenthesised_after(code, &format!("function {name}"))
        .or_else(|| parenthesised_after(code, &format!("{name} = ")))?
        .0;
    let params = split_top(inner)
        .into_iter()
        .map(|p| Param {
            name: p.split('=').next().unwrap_or("").trim().to_owned(),
            ty: None,
        })
        .collect();
    Some(Signature {
        params,
        returns: None,
    })
}

/// `public static List<Integer> name(List<Integer> a, int b)` in Java source.
pub fn java(code: &str, name: &str) -> Option<Signature> {
    let pattern = format!(" {name}(");
    // The declaration, not a call in the doc comment above it (MBXP prompts show examples
    // like ` * > minCost([[1, 2, 3]], 2, 2)`, Mbjp/1).
    let at = code.match_indices(&pattern).map(|(i, _)| i).find(|&i| {
        let start = code[..i].rfind('\n').map_or(0, |j| j + 1);
        let line = code[start..i].trim_start();
        !(line.starts_with('*') || line.starts_with("/*") || line.starts_with("//"))
    })?;
    let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
    let header = &code[line_start..at];
    let returns = header
        .split_whitespace()
        .filter(|w| !matches!(*w, "public" | "private" | "protected" | "static" | "final"))
        .collect::<Vec<_>>()
        .join(" ");
    let (inner, _) = parenthesised_after(&code[at..], name)?;
    let params = split_top(inner)
        .into_iter()
        .filter_map(|p| {
            let p = p.trim_start_matches("final ").trim();
            let cut = p.rfind(|c: char| c.is_whitespace())?;
            Some(Param {
                name: p[cut + 1..].to_owned(),
                ty: Some(p[..cut].trim().to_owned()),
            })
        })
        .collect();
    Some(Signature {
        params,
        returns: (!returns.is_empty()).then_some(returns),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_signature_skips_calls_in_the_doc_comment() {
        let prompt = "class MinCost {\n    /**\n     * > minCost([[1, 2, 3], [4, 8, 2]], 2, 2)\n     * 8\n     */\n    public static int minCost(List<List<Integer>> cost, int m, int n) {\n";
        let s = java(prompt, "minCost").unwrap();
        let names: Vec<_> = s.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["cost", "m", "n"]);
        assert_eq!(s.params[0].ty.as_deref(), Some("List<List<Integer>>"));
        assert_eq!(s.returns.as_deref(), Some("int"));
    }

    #[test]
    fn python_signature() {
        let s = python(
            "from typing import List\n\ndef has_close(numbers: List[float], t: float = 0.5) -> bool:\n",
            "has_close",
        )
        .unwrap();
        assert_eq!(s.params.len(), 2);
        assert_eq!(s.params[0].name, "numbers");
        assert_eq!(s.params[0].ty.as_deref(), Some("List[float]"));
        assert_eq!(s.params[1].name, "t");
        assert_eq!(s.returns.as_deref(), Some("bool"));
    }

    #[test]
    fn javascript_signatures() {
        let s = javascript(
            "const hasCloseElements = (numbers, threshold) => {\n",
            "hasCloseElements",
        )
        .unwrap();
        assert_eq!(
            s.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["numbers", "threshold"]
        );
        let s = javascript(
            "function similarElements(testtup1, testtup2) {\n",
            "similarElements",
        )
        .unwrap();
        assert_eq!(s.params.len(), 2);
    }

    #[test]
    fn java_signature_with_generics() {
        let s = java(
            "class Solution {\n    public Map<String, Integer> histogram(Map<String, List<Integer>> m, int k) {\n",
            "histogram",
        )
        .unwrap();
        assert_eq!(s.returns.as_deref(), Some("Map<String, Integer>"));
        assert_eq!(
            s.params[0].ty.as_deref(),
            Some("Map<String, List<Integer>>")
        );
        assert_eq!(s.params[1].name, "k");
    }
}
