//! Structural metrics of a solution, the measure refactoring targets are set in. They are
//! [`passrate_extract::measure`]'s, the same the refactoring grader checks answers with, so
//! a target and its check can never disagree: each is the maximum over the code's
//! functions (nesting depth, cyclomatic complexity, lines), plus the number of duplicated
//! blocks. Code that does not parse measures as all zeros.

use passrate_extract::measure;
use passrate_schema::Language;
use serde::Serialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Metrics {
    pub max_nesting_depth: u32,
    pub cyclomatic_complexity: u32,
    pub lines: u32,
    pub duplicated_blocks: u32,
}

pub fn metrics(language: Language, code: &str) -> Metrics {
    match measure::measure(language, code) {
        Ok(m) => Metrics {
            max_nesting_depth: m.max_nesting_depth(),
            cyclomatic_complexity: m.max_cyclomatic_complexity(),
            lines: m.max_function_lines(),
            duplicated_blocks: m.duplicates.len() as u32,
        },
        Err(_) => Metrics::default(),
    }
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
        assert_eq!(m.duplicated_blocks, 0);
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
