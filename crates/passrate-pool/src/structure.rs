//! Structural metrics of a solution, the measure refactoring targets are set in. The
//! refactoring grader should measure candidates with this same function so a target and
//! its check can never disagree.
//!
//! * `max_nesting_depth`: the most control blocks (`if`/`else`/`for`/`while`/`try`/
//!   `catch`/`switch`/`with`/`do`) open at once; by indentation in Python, by braces in
//!   JavaScript and Java (a brace-less body counts one level for its line).
//! * `cyclomatic_complexity`: 1 + decision points (`if`, `elif`, `for`, `while`, `case`,
//!   `catch`/`except`, `and`/`or`/`&&`/`||`, ternary `?`), over the whole code.
//! * `lines`: non-blank lines once comments and docstrings are removed.

use passrate_schema::Language;
use serde::Serialize;

use crate::tier::strip_comments_and_strings;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Metrics {
    pub max_nesting_depth: u32,
    pub cyclomatic_complexity: u32,
    pub lines: u32,
}

const PY_BLOCKS: &[&str] = &[
    "if", "elif", "else", "for", "while", "try", "except", "finally", "with",
];
const C_BLOCKS: &[&str] = &[
    "if", "else", "for", "while", "do", "try", "catch", "finally", "switch",
];

fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

pub fn metrics(language: Language, code: &str) -> Metrics {
    let stripped = strip_comments_and_strings(language, code);
    let mut decisions = 0u32;
    let mut lines = 0u32;
    for line in stripped.lines() {
        let trimmed = line.trim();
        // A line left with only the quotes of a docstring is not code.
        if trimmed.is_empty() || trimmed.chars().all(|c| c == '"' || c == '\'') {
            continue;
        }
        lines += 1;
        for w in words(line) {
            if matches!(
                w,
                "if" | "elif" | "for" | "while" | "case" | "catch" | "except" | "and" | "or"
            ) {
                decisions += 1;
            }
        }
        decisions += (line.matches("&&").count() + line.matches("||").count()) as u32;
        if language != Language::Python {
            decisions += line
                .char_indices()
                .filter(|(i, c)| {
                    *c == '?' && !matches!(line[i + 1..].chars().next(), Some('.') | Some('?'))
                })
                .count() as u32;
        }
    }
    Metrics {
        max_nesting_depth: nesting(language, &stripped),
        cyclomatic_complexity: 1 + decisions,
        lines,
    }
}

fn nesting(language: Language, code: &str) -> u32 {
    let mut max = 0u32;
    if language == Language::Python {
        let mut stack: Vec<usize> = Vec::new();
        for line in code.lines() {
            let trimmed = line.trim_start();
            if trimmed.is_empty() {
                continue;
            }
            let indent = line.len() - trimmed.len();
            while stack.last().is_some_and(|&i| i >= indent) {
                stack.pop();
            }
            let first = words(trimmed).next().unwrap_or("");
            if PY_BLOCKS.contains(&first) && trimmed.trim_end().ends_with(':') {
                stack.push(indent);
                max = max.max(stack.len() as u32);
            } else if PY_BLOCKS.contains(&first) {
                // `if x: return y` on one line.
                max = max.max(stack.len() as u32 + 1);
            }
        }
        return max;
    }
    // Each `{` is a control block if its line (or the previous header) names a control word.
    let mut stack: Vec<bool> = Vec::new();
    let mut pending = false;
    for line in code.lines() {
        let is_control = words(line).any(|w| C_BLOCKS.contains(&w));
        if is_control {
            pending = true;
        }
        let open_controls = stack.iter().filter(|c| **c).count() as u32;
        let mut opened_here = false;
        for c in line.chars() {
            match c {
                '{' => {
                    stack.push(pending);
                    if pending {
                        opened_here = true;
                    }
                    pending = false;
                    max = max.max(stack.iter().filter(|c| **c).count() as u32);
                }
                '}' => {
                    stack.pop();
                }
                _ => {}
            }
        }
        if pending && !opened_here && line.trim_end().ends_with(';') {
            // A brace-less body on the same line as its header.
            max = max.max(open_controls + 1);
            pending = false;
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_metrics() {
        let code = "def f(xs, t):\n    \"\"\"Doc.\n    more\n    \"\"\"\n    for a in xs:\n        for b in xs:\n            if a != b and abs(a - b) < t:\n                return True\n    return False\n";
        let m = metrics(Language::Python, code);
        assert_eq!(m.max_nesting_depth, 3);
        assert_eq!(m.cyclomatic_complexity, 5); // 1 + for + for + if + and
        assert_eq!(m.lines, 6);
    }

    #[test]
    fn java_metrics() {
        let code = "class Solution {\n    public boolean f(List<Double> xs, double t) {\n        for (int i = 0; i < xs.size(); i++) {\n            for (int j = i + 1; j < xs.size(); j++) {\n                if (Math.abs(xs.get(i) - xs.get(j)) < t) return true;\n            }\n        }\n        return false;\n    }\n}";
        let m = metrics(Language::Java, code);
        assert_eq!(m.max_nesting_depth, 3);
        assert_eq!(m.cyclomatic_complexity, 4);
    }

    #[test]
    fn javascript_else_if_chain() {
        let code = "const f = (n) => {\n  if (n > 0) {\n    return 1;\n  } else if (n < 0) {\n    return -1;\n  }\n  return n ? 2 : 0;\n}\n";
        let m = metrics(Language::Javascript, code);
        assert_eq!(m.max_nesting_depth, 1);
        assert_eq!(m.cyclomatic_complexity, 4);
    }
}
