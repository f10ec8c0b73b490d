//! Maintainability measures on hand-written answers with known properties, in the three
//! languages (one task: the sum of the even numbers of a list), ruff on Python, and every
//! reference solution of the bundled pool within the band of itself.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use passrate_extract::maintain::{
    code_measures, lint_python, locate_ruff, maintainability, outside_band, ruff_findings,
    short_names,
};
use passrate_schema::{CodeMeasures, Language};

fn measures(language: Language, code: &str) -> CodeMeasures {
    code_measures(language, code).expect("parses")
}

/// `[cyclomatic_complexity, max_nesting_depth, statements, duplicated_blocks, short_names]`.
fn values(m: &CodeMeasures) -> [u32; 5] {
    [
        m.cyclomatic_complexity,
        m.max_nesting_depth,
        m.statements,
        m.duplicated_blocks,
        m.short_names,
    ]
}

const STRUCTURE: [&str; 4] = [
    "cyclomatic_complexity",
    "max_nesting_depth",
    "statements",
    "duplicated_blocks",
];

// ---------------------------------------------------------------- the sum of even numbers

const PY_REFERENCE: &str = r#"def sum_even(numbers):
    """Return the sum of the even numbers."""
    total = 0
    # only the even ones
    for n in numbers:
        if n % 2 == 0:
            total += n
    return total
"#;

const PY_REFERENCE_BARE: &str = "def sum_even(numbers):
    total = 0
    for n in numbers:
        if n % 2 == 0:
            total += n
    return total
";

const PY_TWIN: &str = "def sum_even(numbers):
    evens = [value for value in numbers if value % 2 == 0]
    return sum(evens)
";

const PY_TANGLED: &str = r#"def sum_even(numbers):
    total = 0
    if numbers is not None:
        for n in numbers:
            if n is not None:
                if n % 2 == 0:
                    if n > 0:
                        x = n
                        total = total + x
                        print_debug = False
                        if print_debug:
                            print("added", x, "total", total)
                    elif n < 0:
                        x = n
                        total = total + x
                        print_debug = False
                        if print_debug:
                            print("added", x, "total", total)
                    else:
                        total = total + 0
    return total
"#;

const JS_REFERENCE: &str = "/**
 * Sum of the even numbers.
 * @param {number[]} numbers
 */
function sumEven(numbers) {
  let total = 0;
  for (const n of numbers) {
    // only the even ones
    if (n % 2 === 0) {
      total += n;
    }
  }
  return total;
}
";

const JS_REFERENCE_BARE: &str = "function sumEven(numbers) {
  let total = 0;
  for (const n of numbers) {
    if (n % 2 === 0) {
      total += n;
    }
  }
  return total;
}
";

const JS_TWIN: &str = "const sumEven = (numbers) =>
  numbers.filter((value) => value % 2 === 0).reduce((acc, value) => acc + value, 0);
";

const JS_TANGLED: &str = r#"function sumEven(numbers) {
  let total = 0;
  if (numbers !== null) {
    for (let i = 0; i < numbers.length; i++) {
      const value = numbers[i];
      if (value !== undefined) {
        if (value % 2 === 0) {
          if (value > 0) {
            const x = value;
            total = total + x;
            const debug = false;
            if (debug) {
              console.log("added", x, "total", total);
            }
          } else if (value < 0) {
            const x = value;
            total = total + x;
            const debug = false;
            if (debug) {
              console.log("added", x, "total", total);
            }
          } else {
            total = total + 0;
          }
        }
      }
    }
  }
  return total;
}
"#;

const JAVA_REFERENCE: &str = "import java.util.List;

class Solution {
    /**
     * Sum of the even numbers.
     */
    public int sumEven(List<Integer> numbers) {
        int total = 0;
        for (int n : numbers) {
            // only the even ones
            if (n % 2 == 0) {
                total += n; /* accumulate */
            }
        }
        return total;
    }
}
";

const JAVA_REFERENCE_BARE: &str = "import java.util.List;
class Solution {
    public int sumEven(List<Integer> numbers) {
        int total = 0;
        for (int n : numbers) {
            if (n % 2 == 0) {
                total += n;
            }
        }
        return total;
    }
}
";

const JAVA_TWIN: &str = "import java.util.List;

class Solution {
    public int sumEven(List<Integer> numbers) {
        return numbers.stream().filter(value -> value % 2 == 0).mapToInt(Integer::intValue).sum();
    }
}
";

const JAVA_TANGLED: &str = r#"import java.util.List;

class Solution {
    public int sumEven(List<Integer> numbers) {
        int total = 0;
        if (numbers != null) {
            for (int i = 0; i < numbers.size(); i++) {
                Integer value = numbers.get(i);
                if (value != null) {
                    if (value % 2 == 0) {
                        if (value > 0) {
                            int x = value;
                            total = total + x;
                            boolean debug = false;
                            if (debug) {
                                System.out.println("added " + x + " total " + total);
                            }
                        } else if (value < 0) {
                            int x = value;
                            total = total + x;
                            boolean debug = false;
                            if (debug) {
                                System.out.println("added " + x + " total " + total);
                            }
                        } else {
                            total = total + 0;
                        }
                    }
                }
            }
        }
        return total;
    }
}
"#;

struct Case {
    language: Language,
    reference: &'static str,
    reference_bare: &'static str,
    twin: &'static str,
    tangled: &'static str,
    /// Expected `values` of the reference, the twin and the tangled answer.
    expected: [[u32; 5]; 3],
}

const CASES: [Case; 3] = [
    Case {
        language: Language::Python,
        reference: PY_REFERENCE,
        reference_bare: PY_REFERENCE_BARE,
        twin: PY_TWIN,
        tangled: PY_TANGLED,
        // Reference: 1 + for + if; def, =, for, if, +=, return (docstring and comment not).
        // Twin: 1 + comprehension for + if clause; def, =, return.
        // Tangled: 1 + 6 ifs + for + elif; 6 levels; 20 statements; two 3-statement
        // windows of the copied branch; `x`.
        expected: [[3, 2, 6, 0, 0], [3, 0, 3, 0, 0], [9, 6, 20, 2, 1]],
    },
    Case {
        language: Language::Javascript,
        reference: JS_REFERENCE,
        reference_bare: JS_REFERENCE_BARE,
        twin: JS_TWIN,
        tangled: JS_TANGLED,
        // Twin: one `const` declaration of a function. Tangled: the copied `if (debug) {…}`
        // (23 tokens) is a duplicate on its own beside the two windows; `i` sits in a loop
        // header, `value` is long, `x` counts.
        expected: [[3, 2, 6, 0, 0], [1, 0, 1, 0, 0], [9, 6, 21, 3, 1]],
    },
    Case {
        language: Language::Java,
        reference: JAVA_REFERENCE,
        reference_bare: JAVA_REFERENCE_BARE,
        twin: JAVA_TWIN,
        tangled: JAVA_TANGLED,
        // Reference: import, class, method, declaration, for, if, +=, return.
        expected: [[3, 2, 8, 0, 0], [1, 0, 4, 0, 0], [9, 6, 23, 3, 1]],
    },
];

#[test]
fn reference_twin_and_tangled_answer_measure_as_expected_in_each_language() {
    for case in &CASES {
        let lang = case.language;
        let got = [case.reference, case.twin, case.tangled].map(|c| values(&measures(lang, c)));
        assert_eq!(got, case.expected, "{lang}: reference, twin, tangled");
    }
}

#[test]
fn the_reference_is_within_the_band_of_itself() {
    for case in &CASES {
        let check = maintainability(case.language, case.reference, case.reference, false)
            .expect("measures");
        assert_eq!(check.candidate, check.reference);
        assert!(
            check.within_band(),
            "{}: {:?}",
            case.language,
            check.outside_band
        );
        assert_eq!(check.candidate.lint_findings, None);
    }
}

#[test]
fn a_clean_twin_is_within_the_band() {
    for case in &CASES {
        let check =
            maintainability(case.language, case.twin, case.reference, false).expect("measures");
        assert_eq!(
            check.outside_band,
            Vec::<String>::new(),
            "{}",
            case.language
        );
        assert_eq!(values(&check.candidate), case.expected[1]);
        assert_eq!(values(&check.reference), case.expected[0]);
    }
}

#[test]
fn a_nested_copy_pasted_answer_is_outside_the_band_on_its_structure() {
    for case in &CASES {
        let check =
            maintainability(case.language, case.tangled, case.reference, false).expect("measures");
        assert_eq!(check.outside_band, STRUCTURE, "{}", case.language);
        assert!(!check.within_band());
        // The band is one-sided: simpler than the reference is never outside it.
        assert_eq!(
            outside_band(&check.reference, &check.candidate),
            Vec::<String>::new()
        );
    }
}

#[test]
fn docstrings_and_comments_change_no_measure() {
    for case in &CASES {
        assert_eq!(
            measures(case.language, case.reference),
            measures(case.language, case.reference_bare),
            "{}",
            case.language
        );
    }
}

// ---------------------------------------------------------------- statements

#[test]
fn statements_are_counted_exactly_in_python() {
    let code = r#""""Module docstring."""
import os
from typing import List

# a comment
class Box:
    """Class docstring."""
    size = 0

    @staticmethod
    def grow(self, by):
        """Method docstring."""
        if by > 0:
            self.size += by
        elif by < 0:
            raise ValueError("negative")
        else:
            pass
        for k in range(by):
            while k:
                k -= 1
                break
        try:
            with open(os.devnull) as handle:
                handle.read()
        except OSError as error:
            return None
        finally:
            del by
        return [v for v in range(3)] or (lambda: 0)()
"#;
    // import, from-import, class, `size =`, def (decorator not), if, `+=`, elif, raise,
    // pass, for, while, `-=`, break, try, with, call, return, del, return.
    assert_eq!(measures(Language::Python, code).statements, 20);
    assert_eq!(
        measures(Language::Python, "\"\"\"Only a docstring.\"\"\"\n").statements,
        0
    );
    assert_eq!(measures(Language::Python, "x = 1; y = 2\n").statements, 2);
}

#[test]
fn statements_are_counted_exactly_in_javascript() {
    let code = r#"// comment
import { a } from "./a.js";
/** doc */
class Box {
  size = 0;
  grow(by) {
    if (by > 0) {
      this.size += by;
    } else if (by < 0) {
      throw new Error("negative");
    } else {
      ;
    }
    for (let k = 0; k < by; k++) {
      continue;
    }
    switch (by) {
      case 1:
        break;
      default:
        return 1;
    }
    const f = (x) => { return x; };
    return f(by);
  }
}
export { Box };
export function g() {}
"#;
    // import, class, field, method, if, `+=`, else-if, throw (empty statement not), for
    // (its `let` not), continue, switch, break, return, const, the arrow's return, return,
    // export list, function (its `export` not).
    assert_eq!(measures(Language::Javascript, code).statements, 18);
}

#[test]
fn statements_are_counted_exactly_in_java() {
    let code = r#"package demo;

import java.util.List;

/** Doc. */
class Box {
    // comment
    private int size = 0;

    Box() {
        super();
    }

    int grow(int by) {
        if (by > 0) {
            size += by;
        } else if (by < 0) {
            throw new IllegalArgumentException("negative");
        }
        for (int k = 0; k < by; k++) {
            continue;
        }
        for (int v : List.of(1, 2)) {
            size = v;
        }
        int r = switch (by) {
            case 1 -> 2;
            default -> 3;
        };
        try {
            r++;
        } catch (RuntimeException e) {
            return -1;
        }
        return r;
    }
}
"#;
    // package, import, class, field, constructor, super(), method, if, `+=`, else-if, throw,
    // for (its `int k` not), continue, enhanced for, `=`, declaration, switch, the two
    // rule bodies, try, `++`, return, return.
    assert_eq!(measures(Language::Java, code).statements, 23);
}

// ---------------------------------------------------------------- short names

#[test]
fn short_names_count_bindings_not_loops_lambdas_catches_or_parameters_in_python() {
    let code = r#"def f(s, k):
    t = 0
    for i in range(len(s)):
        t += i
    g = lambda y: y + 1
    evens = [c for c in s if c]
    a, (b, _) = 1, (2, 3)
    total = sum(e for e in s)
    obj.z = 1
    m[0] = 2
    k = k + 1
    with open("p") as h:
        pass
    import math as q
    if (w := len(s)) > 1:
        pass
    try:
        pass
    except ValueError as e:
        pass
    _ = 0
    return t
"#;
    assert_eq!(
        short_names(Language::Python, code).unwrap(),
        ["a", "b", "h", "q", "t", "w"]
    );
    assert_eq!(measures(Language::Python, code).short_names, 6);
    let loop_only = "def f(xs):\n    for i in xs:\n        print(i)\n";
    assert_eq!(measures(Language::Python, loop_only).short_names, 0);
    let assigned = "def f(xs):\n    x = len(xs)\n    return x\n";
    assert_eq!(measures(Language::Python, assigned).short_names, 1);
    let lambda = "def f(xs):\n    return sorted(xs, key=lambda x: -x)\n";
    assert_eq!(measures(Language::Python, lambda).short_names, 0);
}

#[test]
fn short_names_count_bindings_not_loops_lambdas_catches_or_parameters_in_javascript() {
    let code = r#"function f(s, k) {
  let t = 0;
  for (let i = 0; i < s.length; i++) { t += i; }
  for (const c of s) { t += c; }
  const g = (y) => y + 1;
  const [a, , ...r] = [1, 2, 3];
  const { p, q: w, z = 2 } = { p: 1, q: 2 };
  k = k + 1;
  o.v = 1;
  try { t = g(t); } catch (e) { t = 0; }
  s.forEach((x) => { const u = x; });
  var _ = 0, $ = 1;
  n = 3;
  return t;
}
"#;
    assert_eq!(
        short_names(Language::Javascript, code).unwrap(),
        ["a", "n", "p", "r", "t", "u", "w", "z"]
    );
    let loop_only = "function f(xs) { for (let i = 0; i < xs.length; i++) { log(i); } }";
    assert_eq!(measures(Language::Javascript, loop_only).short_names, 0);
    let assigned = "function f(xs) { const x = xs.length; return x; }";
    assert_eq!(measures(Language::Javascript, assigned).short_names, 1);
    let arrow = "function f(xs) { return xs.map((x) => x * 2); }";
    assert_eq!(measures(Language::Javascript, arrow).short_names, 0);
}

#[test]
fn short_names_count_bindings_not_loops_lambdas_catches_or_parameters_in_java() {
    let code = r#"class Solution {
    int f;
    int sum(int[] s, int k) {
        int t = 0, u;
        for (int i = 0; i < s.length; i++) { t += s[i]; }
        for (int c : s) { t += c; }
        java.util.function.IntUnaryOperator g = y -> y + 1;
        k = k + 1;
        try (java.io.StringReader r = new java.io.StringReader("")) { t++; } catch (Exception e) { t = 0; }
        this.f = t;
        u = 2;
        return t;
    }
}
"#;
    assert_eq!(
        short_names(Language::Java, code).unwrap(),
        ["f", "r", "t", "u"]
    );
    let loop_only =
        "class A { void f(int[] xs) { for (int i = 0; i < xs.length; i++) { g(i); } } }";
    assert_eq!(measures(Language::Java, loop_only).short_names, 0);
    let assigned = "class A { int f(int[] xs) { int x = xs.length; return x; } }";
    assert_eq!(measures(Language::Java, assigned).short_names, 1);
}

// ---------------------------------------------------------------- ruff

/// Whether ruff is there; a missing ruff fails the test unless `PASSRATE_SKIP_RUFF=1`.
fn ruff_available() -> bool {
    match locate_ruff() {
        Ok(Some(_)) => true,
        Ok(None) if std::env::var("PASSRATE_SKIP_RUFF").as_deref() == Ok("1") => {
            eprintln!("ruff not found; skipped because PASSRATE_SKIP_RUFF=1");
            false
        }
        Ok(None) => panic!(
            "ruff not found on PATH (nor PASSRATE_RUFF): install it (`pip install ruff`) \
             or set PASSRATE_SKIP_RUFF=1 to skip the ruff tests"
        ),
        Err(e) => panic!("{e}"),
    }
}

const PY_UNUSED: &str = "import os


def sum_even(numbers):
    unused = 1
    return sum(n for n in numbers if n % 2 == 0)
";

#[test]
fn ruff_finds_an_unused_import_and_an_unused_variable() {
    if !ruff_available() {
        return;
    }
    assert_eq!(
        ruff_findings(PY_UNUSED).unwrap(),
        Some(vec!["F401".to_owned(), "F841".to_owned()])
    );
    assert_eq!(lint_python(PY_UNUSED).unwrap(), Some(2));
    assert_eq!(lint_python(PY_REFERENCE).unwrap(), Some(0));
    assert_eq!(lint_python(PY_TWIN).unwrap(), Some(0));
}

#[test]
fn with_ruff_both_sides_are_linted_and_lint_leaves_the_band_past_two_more() {
    if !ruff_available() {
        return;
    }
    let check = maintainability(Language::Python, PY_UNUSED, PY_REFERENCE, true).unwrap();
    assert_eq!(check.candidate.lint_findings, Some(2));
    assert_eq!(check.reference.lint_findings, Some(0));
    assert!(check.within_band(), "{:?}", check.outside_band);
    let sloppy = "import os
import re
import sys


def sum_even(numbers):
    return sum(n for n in numbers if n % 2 == 0)
";
    let check = maintainability(Language::Python, sloppy, PY_REFERENCE, true).unwrap();
    assert_eq!(check.candidate.lint_findings, Some(3));
    assert_eq!(check.outside_band, ["lint_findings"]);
    // No lint asked for, or not Python: neither side has lint findings.
    let check = maintainability(Language::Python, sloppy, PY_REFERENCE, false).unwrap();
    assert_eq!(
        (check.candidate.lint_findings, check.reference.lint_findings),
        (None, None)
    );
    assert!(check.within_band());
    let check = maintainability(Language::Javascript, JS_TWIN, JS_REFERENCE, true).unwrap();
    assert_eq!(
        (check.candidate.lint_findings, check.reference.lint_findings),
        (None, None)
    );
}

// ---------------------------------------------------------------- the bundled pool

fn pool_tasks(dir: &Path) -> anyhow::Result<Vec<serde_json::Value>> {
    let mut tasks = Vec::new();
    let mut files: Vec<_> = fs_err::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    for path in files {
        if !path.to_string_lossy().ends_with(".jsonl.gz") {
            continue;
        }
        let bytes = fs_err::read(&path)?;
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .with_context(|| format!("failed to decompress {}", path.display()))?;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            tasks.push(serde_json::from_str(line).context("failed to parse a task")?);
        }
    }
    Ok(tasks)
}

#[test]
fn every_pool_reference_is_measured_and_within_the_band_of_itself() -> anyhow::Result<()> {
    let started = Instant::now();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pool/tasks");
    let tasks = pool_tasks(&dir)?;
    assert!(tasks.len() > 1000, "{} tasks", tasks.len());
    let mut seen = BTreeSet::new();
    let mut per_language = [0usize; 3];
    for task in &tasks {
        let id = task["id"].as_str().unwrap_or("?");
        let Some(variants) = task["variants"].as_object() else {
            anyhow::bail!("{id}: no variants");
        };
        for (name, variant) in variants {
            let language = Language::parse(name).with_context(|| format!("{id}: {name}"))?;
            let reference = variant["reference_solution"]
                .as_str()
                .with_context(|| format!("{id} {name}: no reference solution"))?;
            if !seen.insert((language, reference)) {
                continue;
            }
            per_language[Language::ALL
                .iter()
                .position(|&l| l == language)
                .unwrap_or(0)] += 1;
            code_measures(language, reference).with_context(|| format!("{id} {name}"))?;
            let check = maintainability(language, reference, reference, false)
                .with_context(|| format!("{id} {name}"))?;
            assert!(check.within_band(), "{id} {name}: {:?}", check.outside_band);
        }
    }
    // Every language is represented.
    assert!(per_language.iter().all(|&n| n > 100), "{per_language:?}");
    eprintln!(
        "{} distinct references {per_language:?} in {:?}",
        seen.len(),
        started.elapsed()
    );
    Ok(())
}
