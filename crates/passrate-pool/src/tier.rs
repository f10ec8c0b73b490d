//! Tiers from intake factors, and the deterministic counters that measure the factors.
//!
//! # The rule (a function of [`IntakeFactors`] only)
//!
//! ```text
//! points = condition_points(conditions) + 2 × (solution_space − 1) + edge_points(edge_cases)
//!   condition_points: 0–3 → 0, 4–7 → 1, 8–12 → 2, ≥13 → 3
//!   edge_points:      0–1 → 0, 2–3 → 1, ≥4 → 2
//! tier 1 if points = 0, tier 2 if points ≤ 2, tier 3 otherwise
//! ```
//!
//! The thresholds were chosen once, from the distribution of the factors over the imported
//! datasets (never from model results), so the pool can supply the sample's 40/40/20 split.
//!
//! # Counting (on the reference solution, comments and string literals removed)
//!
//! * `conditions`: decision points — `if`, `elif`, `else if`, `while`, `for`, `case`,
//!   `catch`/`except`, the ternary `?`, and each `and`/`or`/`&&`/`||`, plus the loop exits
//!   `break`, `continue` and every `return` after the first.
//! * `solution_space`: 3 if the solution nests loops three deep, or combines recursion with a
//!   loop, or defines three or more functions/methods; 2 if it nests two loops, has two or
//!   more loops, recurses, or defines two functions; 1 otherwise (a formula or one pass).
//! * `edge_cases`: distinct edge-case cues stated in the prompt (see [`EDGE_CUES`]).

use passrate_schema::{IntakeFactors, Language, Tier};

/// The tier a task gets from its factors. Nothing else goes in.
pub fn tier_for(factors: &IntakeFactors) -> Tier {
    let condition_points = match factors.conditions {
        0..=3 => 0,
        4..=7 => 1,
        8..=12 => 2,
        _ => 3,
    };
    let space_points = 2 * u32::from(factors.solution_space.clamp(1, 3) - 1);
    let edge_points = match factors.edge_cases {
        0..=1 => 0,
        2..=3 => 1,
        _ => 2,
    };
    match condition_points + space_points + edge_points {
        0 => Tier::One,
        1..=2 => Tier::Two,
        _ => Tier::Three,
    }
}

/// Phrases that state an edge case explicitly. Each matching cue counts once.
pub const EDGE_CUES: &[&[&str]] = &[
    &["empty"],
    &["negative"],
    &["zero", " 0 "],
    &["none", "null"],
    &[
        "if there is no",
        "if there are no",
        "does not exist",
        "doesn't exist",
        "not found",
    ],
    &["return -1", "returns -1", "return none", "return null"],
    &["invalid", "not valid"],
    &["duplicate"],
    &["tie", "same "],
    &["at least", "at most"],
    &[
        "case-insensitive",
        "case insensitive",
        "uppercase",
        "lowercase",
    ],
    &["overflow", "out of range", "out of bounds"],
    &["otherwise"],
    &["whitespace", "spaces"],
    &["single", "only one"],
];

/// Counts the edge-case cues present in a prompt (case-insensitive).
pub fn count_edge_cases(prompt: &str) -> u32 {
    let text = format!(" {} ", prompt.to_lowercase());
    EDGE_CUES
        .iter()
        .filter(|alternatives| alternatives.iter().any(|cue| text.contains(cue)))
        .count() as u32
}

/// Measures the conditions and solution-space class of a reference solution.
pub fn measure_code(language: Language, code: &str) -> (u32, u8) {
    let stripped = strip_comments_and_strings(language, code);
    let mut conditions = 0u32;
    let mut returns = 0u32;
    let mut loops = 0u32;
    let mut functions: Vec<String> = Vec::new();
    for line in stripped.lines() {
        let words = words(line);
        for (i, w) in words.iter().enumerate() {
            match w.as_str() {
                "if" => {
                    // `else if` counts once (as the `if`).
                    conditions += 1;
                }
                "elif" | "case" | "catch" | "except" | "and" | "or" | "break" | "continue" => {
                    conditions += 1
                }
                "while" | "for" => {
                    conditions += 1;
                    loops += 1;
                }
                "return" => returns += 1,
                "def" | "function" => {
                    if let Some(name) = words.get(i + 1) {
                        functions.push(name.clone());
                    }
                }
                _ => {}
            }
        }
        conditions += line.matches("&&").count() as u32 + line.matches("||").count() as u32;
        conditions += ternaries(language, line);
        if language == Language::Java
            && let Some(name) = java_method_name(line)
        {
            functions.push(name);
        }
    }
    conditions += returns.saturating_sub(1);
    let depth = loop_nesting(language, &stripped);
    let recursive = functions.iter().any(|f| {
        let needle = format!("{f}(");
        stripped.matches(needle.as_str()).count() >= 2
    });
    let space = if depth >= 3 || (recursive && loops > 0) || functions.len() >= 3 {
        3
    } else if depth == 2 || loops >= 2 || recursive || functions.len() == 2 {
        2
    } else {
        1
    };
    (conditions, space)
}

/// Factors for a task: conditions and solution space from `code`, edge cases from `prompt`.
pub fn factors_for(language: Language, code: &str, prompt: &str) -> IntakeFactors {
    let (conditions, solution_space) = measure_code(language, code);
    IntakeFactors {
        conditions,
        solution_space,
        edge_cases: count_edge_cases(prompt),
    }
}

fn words(line: &str) -> Vec<String> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

fn ternaries(language: Language, line: &str) -> u32 {
    if language == Language::Python {
        return 0;
    }
    // `?` followed by `.` is optional chaining, `??` is nullish coalescing; neither branches
    // in the sense counted here (and `??` is counted as one decision below).
    let bytes = line.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'?' {
            let next = bytes.get(i + 1).copied();
            if next == Some(b'?') {
                n += 1;
                i += 2;
                continue;
            }
            if next != Some(b'.') {
                n += 1;
            }
        }
        i += 1;
    }
    n
}

fn java_method_name(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    let starts = ["public ", "private ", "protected ", "static "];
    if !starts.iter().any(|s| trimmed.starts_with(s)) || !trimmed.contains('(') {
        return None;
    }
    if trimmed.contains(" class ") || trimmed.contains('=') {
        return None;
    }
    let before = &trimmed[..trimmed.find('(')?];
    let name = before.split_whitespace().last()?;
    Some(name.to_owned())
}

/// Maximum nesting of loops: by indentation in Python, by braces in JavaScript and Java.
fn loop_nesting(language: Language, code: &str) -> u32 {
    let mut max = 0u32;
    if language == Language::Python {
        // Stack of indentation widths of the enclosing loop headers.
        let mut stack: Vec<usize> = Vec::new();
        for line in code.lines() {
            if line.trim().is_empty() {
                continue;
            }
            let indent = line.len() - line.trim_start().len();
            while stack.last().is_some_and(|&i| i >= indent) {
                stack.pop();
            }
            let first = line.split_whitespace().next().unwrap_or("");
            if first == "for" || first == "while" {
                stack.push(indent);
                max = max.max(stack.len() as u32);
            }
        }
        // Comprehension loops count as nesting inside the statement they appear in.
        for line in code.lines() {
            let w = words(line);
            let fors = w.iter().filter(|x| *x == "for").count() as u32;
            if fors >= 2 {
                max = max.max(fors);
            }
        }
    } else {
        // Brace depth at which each loop body opens; a loop is nested in every open loop.
        let mut depth = 0i64;
        let mut open_loops: Vec<i64> = Vec::new();
        let mut pending_loop = false;
        for line in code.lines() {
            let w = words(line);
            if w.iter().any(|x| x == "for" || x == "while") {
                pending_loop = true;
                max = max.max(open_loops.len() as u32 + 1);
            }
            for c in line.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        if pending_loop {
                            open_loops.push(depth);
                            pending_loop = false;
                        }
                    }
                    '}' => {
                        while open_loops.last().is_some_and(|&d| d >= depth) {
                            open_loops.pop();
                        }
                        depth -= 1;
                    }
                    _ => {}
                }
            }
            // A brace-less loop body is a single statement: it ends with this line.
            if pending_loop && line.trim_end().ends_with(';') {
                pending_loop = false;
            }
        }
    }
    max
}

/// Removes comments and the contents of string literals, keeping line structure.
pub fn strip_comments_and_strings(language: Language, code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match language {
            Language::Python if c == '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            Language::Javascript | Language::Java if c == '/' && next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            Language::Javascript | Language::Java if c == '/' && next == Some('*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    if chars[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
                i += 2;
                continue;
            }
            _ => {}
        }
        let is_quote = c == '"' || c == '\'' || (c == '`' && language == Language::Javascript);
        if is_quote {
            let triple = language == Language::Python
                && next == Some(c)
                && chars.get(i + 2).copied() == Some(c);
            let width = if triple { 3 } else { 1 };
            out.push(c);
            out.push(c);
            i += width;
            while i < chars.len() {
                if chars[i] == '\\' {
                    i += 2;
                    continue;
                }
                if chars[i] == c
                    && (!triple || (chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c)))
                {
                    i += width;
                    break;
                }
                if chars[i] == '\n' {
                    out.push('\n');
                    if !triple && c != '`' {
                        // An unterminated single-line string ends at the line end.
                        i += 1;
                        break;
                    }
                }
                i += 1;
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_python_conditions_and_nesting() {
        let code = "def f(xs, t):\n    # if in a comment\n    for i, a in enumerate(xs):\n        for j, b in enumerate(xs):\n            if i != j and abs(a - b) < t:\n                return True\n    return False\n";
        let (conditions, space) = measure_code(Language::Python, code);
        // for, for, if, and, second return
        assert_eq!(conditions, 5);
        assert_eq!(space, 2);
    }

    #[test]
    fn strings_do_not_count() {
        let code = "def f():\n    return 'if x and y or z while for'\n";
        assert_eq!(measure_code(Language::Python, code), (0, 1));
        let js = "const f = (x) => {\n  return \"if (a && b)\"; // if\n}\n";
        assert_eq!(measure_code(Language::Javascript, js), (0, 1));
    }

    #[test]
    fn counts_java_braces_and_ternaries() {
        let code = "class Solution {\n    public int f(int n) {\n        int s = 0;\n        for (int i = 0; i < n; i++) {\n            for (int j = 0; j < i; j++) {\n                while (j > 3) { j--; }\n            }\n        }\n        return n > 0 ? s : -s;\n    }\n}";
        let (conditions, space) = measure_code(Language::Java, code);
        assert_eq!(conditions, 4); // for, for, while, ?
        assert_eq!(space, 3); // three loops deep
    }

    #[test]
    fn recursion_is_a_larger_space() {
        let code =
            "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n";
        assert_eq!(measure_code(Language::Python, code), (2, 2));
    }

    #[test]
    fn edge_cues_count_once_each() {
        // empty (once), none, "return none"
        assert_eq!(
            count_edge_cases("If the list is empty, return None. Empty!"),
            3
        );
        assert_eq!(count_edge_cases("Add two numbers."), 0);
    }

    #[test]
    fn rule_examples() {
        let f = |conditions, solution_space, edge_cases| IntakeFactors {
            conditions,
            solution_space,
            edge_cases,
        };
        assert_eq!(tier_for(&f(2, 1, 1)), Tier::One);
        assert_eq!(tier_for(&f(5, 1, 0)), Tier::Two);
        assert_eq!(tier_for(&f(5, 1, 2)), Tier::Two);
        assert_eq!(tier_for(&f(3, 2, 0)), Tier::Two);
        assert_eq!(tier_for(&f(5, 2, 0)), Tier::Three);
        assert_eq!(tier_for(&f(0, 3, 0)), Tier::Three);
    }

    proptest! {
        // More of any factor never makes a task easier.
        #[test]
        fn tier_is_monotone(c in 0u32..40, s in 1u8..=3, e in 0u32..10, dc in 0u32..10, ds in 0u8..=2, de in 0u32..5) {
            let a = IntakeFactors { conditions: c, solution_space: s, edge_cases: e };
            let b = IntakeFactors { conditions: c + dc, solution_space: (s + ds).min(3), edge_cases: e + de };
            prop_assert!(tier_for(&a) <= tier_for(&b));
        }

        #[test]
        fn measuring_is_deterministic(code in "[a-z(){}:\n ]{0,200}") {
            for lang in Language::ALL {
                prop_assert_eq!(measure_code(lang, &code), measure_code(lang, &code));
            }
        }
    }
}
