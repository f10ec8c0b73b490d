//! Maintainability of a passed answer: static measures of its code taken on the syntax tree
//! (never by running it), judged against the same measures of the task's reference solution
//! in the same language. The measures are [`CodeMeasures`]; the judgement is the band of
//! [`band`], one upper limit per measure derived from the reference's value.
//!
//! Definitions (Python, JavaScript, Java):
//!
//! * **cyclomatic_complexity** and **max_nesting_depth**: the largest over the code's units,
//!   as [`crate::measure`] defines them. The units are the named functions of
//!   [`measure::measure`] plus one more, the code outside every named function (imports,
//!   class bodies, field initialisers, script code, anonymous functions written there),
//!   measured the same way. Code with no decision point has complexity 1; empty code has
//!   complexity 1 and nesting 0.
//! * **statements**: in the whole code, every simple statement (expression statements, which
//!   include Python assignments and calls; JavaScript and Java assignments and calls;
//!   `return`, `raise`/`throw`, `break`, `continue`, `pass`, `yield` statements, `assert`,
//!   `del`, `global`/`nonlocal`; Python imports, JavaScript imports and exports that declare
//!   nothing themselves, Java `import`/`package`; local variable declarations — one per
//!   declaration, however many names it declares —, class fields, `super(…)`/`this(…)`
//!   calls) and every compound-statement header (`if`, each `elif`/`else if`, `for`, `while`,
//!   `do`, `try`, `with`, `switch`/`match` — a Java switch expression wherever it stands —,
//!   `synchronized`, and function, method, constructor and class definitions). Not counted:
//!   expressions (a lambda's body is an expression; a statement inside an anonymous function
//!   is counted), blocks, `else`/`except`/`catch`/`finally`/`case` clauses, labels,
//!   decorators, empty statements, comments, Python docstrings (a string statement first in a
//!   module, class or function body), and a declaration or expression standing in a `for`
//!   header (`for (let i = 0; …)` is one statement).
//! * **duplicated_blocks**: the number of [`measure::Duplicate`]s in the code.
//! * **short_names**: distinct names of one alphabetic character (so never `_` or `$`)
//!   bound by an assignment or a variable declaration anywhere in the code: Python `=` and
//!   `:=` targets, `with … as x`, `import … as x`; JavaScript declarators and `=` targets;
//!   Java declarators (locals and fields), try-with-resources variables and `=` targets;
//!   names inside tuple, list, array and object patterns included. Not counted: loop headers
//!   (`for i in …`, `for (let i = 0; …; i++)`, `for (int i …)`, `for (x : xs)`),
//!   comprehension and generator clauses, lambda and arrow-function parameters, `except … as
//!   e` and `catch (e)` variables, augmented assignments (`x += 1` rebinds a name bound
//!   elsewhere), attribute and index targets (`a.x = …`, `a[i] = …`), and names bound to a
//!   function (a named function of [`crate::measure`], a Python or Java lambda assigned to a
//!   name: function names are often imposed by the task). Parameters of named functions are never
//!   counted, not even where they are reassigned: the signature is imposed by the task, so a
//!   parameter name is a choice of the task, not of the answer. Names are compared as text
//!   over the whole code, not per scope.
//! * **lint_findings**: the number of findings of ruff's default rule set (that of the ruff
//!   found, see [`lint_python`]) on Python code; `None` for JavaScript and Java, and when no
//!   linting was asked for or no ruff is installed. Either both sides carry it or neither,
//!   always from the same ruff executable: the default rule set changes between ruff
//!   releases, so counts compare only within one.
//!
//! Code with syntax errors is measured on tree-sitter's error-tolerant tree; only code too
//! large or too slow to parse is refused ([`ParseError`]).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use passrate_schema::{CodeMeasures, Language, MaintainabilityCheck};

use crate::measure;
use crate::syntax::{self, ParseError};

/// Complexity may exceed the reference's by half of it (integer division), and by at least
/// this much: one or two extra guards (an input check, an early return) are a matter of style
/// on a simple function, not a maintenance cost.
pub const COMPLEXITY_MIN_SLACK: u32 = 2;
/// Complexity may exceed the reference's by `reference / COMPLEXITY_SLACK_DIVISOR`: on a
/// complex task there are more legitimate ways to split the cases.
pub const COMPLEXITY_SLACK_DIVISOR: u32 = 2;
/// One more level of nesting than the reference (a loop inside a guard) is a different
/// structure, not a worse one; two more is arrow code.
pub const NESTING_SLACK: u32 = 1;
/// Statements may reach `STATEMENTS_FACTOR × reference + STATEMENTS_SLACK`: an explicit
/// loop instead of a one-line comprehension or library call easily doubles a short
/// reference, plus a few imports and guards; beyond that the answer is bloated.
pub const STATEMENTS_FACTOR: u32 = 2;
/// See [`STATEMENTS_FACTOR`].
pub const STATEMENTS_SLACK: u32 = 4;
/// Copies beyond the reference's own: a copied block is never a matter of style.
pub const DUPLICATED_SLACK: u32 = 0;
/// One one-letter name more than the reference (an `n = len(xs)`) is convention; more is
/// unreadable code.
pub const SHORT_NAMES_SLACK: u32 = 1;
/// Lint findings beyond the reference's (both sides linted by the same ruff): a couple of
/// style findings are noise, more is careless code.
pub const LINT_SLACK: u32 = 2;

/// Environment variable naming the ruff executable (a path); when unset or empty, `ruff` is
/// looked up on `PATH`.
pub const RUFF_ENV: &str = "PASSRATE_RUFF";
/// Wall-clock limit of one ruff run; ruff takes milliseconds on an answer.
pub const RUFF_TIMEOUT: Duration = Duration::from_secs(10);

/// Why ruff could not lint the code.
#[derive(Debug, thiserror::Error)]
pub enum LintError {
    #[error("failed to find ruff at {} (from {RUFF_ENV})", path.display())]
    NotFound { path: PathBuf },
    #[error("failed to start ruff at {}", path.display())]
    Spawn {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("failed to pass the code to ruff or wait for it")]
    Io(#[source] std::io::Error),
    #[error("failed to lint within {} ms: ruff was killed", .0.as_millis())]
    Timeout(Duration),
    #[error("failed to lint: ruff exited with {status}: {stderr}")]
    Failed { status: String, stderr: String },
    #[error("failed to read ruff's JSON output")]
    Output(#[source] serde_json::Error),
}

/// Why an answer's maintainability could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum MaintainError {
    #[error("failed to measure the {side} code")]
    Measure {
        side: &'static str,
        #[source]
        source: ParseError,
    },
    #[error("failed to locate ruff")]
    Locate(#[source] LintError),
    #[error("failed to lint the {side} code")]
    Lint {
        side: &'static str,
        #[source]
        source: LintError,
    },
}

/// Static measures of `code` (no linter).
pub fn code_measures(language: Language, code: &str) -> Result<CodeMeasures, ParseError> {
    let tree = syntax::parse(language, code)?;
    let root = tree.root_node();
    let measured = measure::measure_tree(language, root, code);
    let top = measure::top_level_metrics(language, root, code);
    Ok(CodeMeasures {
        cyclomatic_complexity: measured
            .max_cyclomatic_complexity()
            .max(top.cyclomatic_complexity),
        max_nesting_depth: measured.max_nesting_depth().max(top.nesting_depth),
        statements: measure::count_statements(language, root),
        duplicated_blocks: u32::try_from(measured.duplicates.len()).unwrap_or(u32::MAX),
        short_names: u32::try_from(measure::short_names(language, root, code).len())
            .unwrap_or(u32::MAX),
        lint_findings: None,
    })
}

/// The names counted in [`CodeMeasures::short_names`], sorted.
pub fn short_names(language: Language, code: &str) -> Result<Vec<String>, ParseError> {
    let tree = syntax::parse(language, code)?;
    Ok(measure::short_names(language, tree.root_node(), code)
        .into_iter()
        .collect())
}

/// The highest value of each measure within the band around `reference`
/// (`lint_findings`: `None` when the reference has none).
pub fn band(reference: &CodeMeasures) -> CodeMeasures {
    let r = reference;
    CodeMeasures {
        cyclomatic_complexity: r.cyclomatic_complexity.saturating_add(
            COMPLEXITY_MIN_SLACK.max(r.cyclomatic_complexity / COMPLEXITY_SLACK_DIVISOR),
        ),
        max_nesting_depth: r.max_nesting_depth.saturating_add(NESTING_SLACK),
        statements: r
            .statements
            .saturating_mul(STATEMENTS_FACTOR)
            .saturating_add(STATEMENTS_SLACK),
        duplicated_blocks: r.duplicated_blocks.saturating_add(DUPLICATED_SLACK),
        short_names: r.short_names.saturating_add(SHORT_NAMES_SLACK),
        lint_findings: r.lint_findings.map(|l| l.saturating_add(LINT_SLACK)),
    }
}

/// Measures outside the band around the reference, by field name, in field order.
/// `lint_findings` is judged only when both sides have it.
pub fn outside_band(candidate: &CodeMeasures, reference: &CodeMeasures) -> Vec<String> {
    let limit = band(reference);
    let c = candidate;
    let lint = match (c.lint_findings, limit.lint_findings) {
        (Some(value), Some(max)) => (value, max),
        _ => (0, 0),
    };
    [
        (
            "cyclomatic_complexity",
            c.cyclomatic_complexity,
            limit.cyclomatic_complexity,
        ),
        (
            "max_nesting_depth",
            c.max_nesting_depth,
            limit.max_nesting_depth,
        ),
        ("statements", c.statements, limit.statements),
        (
            "duplicated_blocks",
            c.duplicated_blocks,
            limit.duplicated_blocks,
        ),
        ("short_names", c.short_names, limit.short_names),
        ("lint_findings", lint.0, lint.1),
    ]
    .into_iter()
    .filter(|&(_, value, max)| value > max)
    .map(|(name, _, _)| name.to_owned())
    .collect()
}

/// Both codes measured (with ruff for Python when `lint` and ruff is available: then both
/// sides get lint findings, else neither) and judged against the band.
pub fn maintainability(
    language: Language,
    candidate: &str,
    reference: &str,
    lint: bool,
) -> Result<MaintainabilityCheck, MaintainError> {
    let mut candidate_measures =
        code_measures(language, candidate).map_err(|source| MaintainError::Measure {
            side: "candidate",
            source,
        })?;
    let mut reference_measures =
        code_measures(language, reference).map_err(|source| MaintainError::Measure {
            side: "reference",
            source,
        })?;
    // Located once: both sides are linted by the same executable, or neither is.
    if lint
        && language == Language::Python
        && let Some(ruff) = locate_ruff().map_err(MaintainError::Locate)?
    {
        let lint = |side, code| {
            run_ruff(&ruff, code)
                .map(|findings| u32::try_from(findings.len()).unwrap_or(u32::MAX))
                .map_err(|source| MaintainError::Lint { side, source })
        };
        candidate_measures.lint_findings = Some(lint("candidate", candidate)?);
        reference_measures.lint_findings = Some(lint("reference", reference)?);
    }
    let outside_band = outside_band(&candidate_measures, &reference_measures);
    Ok(MaintainabilityCheck {
        candidate: candidate_measures,
        reference: reference_measures,
        outside_band,
    })
}

/// The findings of ruff's default rule set on Python `code`, parsed (never executed) by ruff
/// on the host: Ok(None) when no ruff executable is found; Err when ruff ran but failed.
pub fn lint_python(code: &str) -> Result<Option<u32>, LintError> {
    Ok(ruff_findings(code)?.map(|f| u32::try_from(f.len()).unwrap_or(u32::MAX)))
}

/// The rule codes of ruff's findings on Python `code`, in ruff's order (a syntax error is a
/// finding too); `None` when no ruff executable is found.
pub fn ruff_findings(code: &str) -> Result<Option<Vec<String>>, LintError> {
    match locate_ruff()? {
        Some(ruff) => run_ruff(&ruff, code).map(Some),
        None => Ok(None),
    }
}

/// The ruff executable: [`RUFF_ENV`] when set (an error if it names no file), else the first
/// `ruff` on `PATH`, else `None`.
pub fn locate_ruff() -> Result<Option<PathBuf>, LintError> {
    if let Some(path) = std::env::var_os(RUFF_ENV).filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return if is_executable(&path) {
            Ok(Some(path))
        } else {
            Err(LintError::NotFound { path })
        };
    }
    let Some(paths) = std::env::var_os("PATH") else {
        return Ok(None);
    };
    Ok(std::env::split_paths(&paths)
        .map(|dir| dir.join("ruff"))
        .find(|p| is_executable(p)))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Runs ruff on `code` given on stdin: default rules, no configuration file (`--isolated`),
/// no cache, and `src = []` so that no import is taken for first-party because of a directory
/// that happens to exist where ruff runs (import sorting would depend on the working
/// directory). Exit status 0 (no findings) and 1 (findings) are success.
fn run_ruff(ruff: &Path, code: &str) -> Result<Vec<String>, LintError> {
    run_ruff_within(ruff, code, RUFF_TIMEOUT)
}

fn run_ruff_within(ruff: &Path, code: &str, timeout: Duration) -> Result<Vec<String>, LintError> {
    let mut child = Command::new(ruff)
        .args([
            "check",
            "--no-cache",
            "--isolated",
            "--config",
            "src = []",
            "--output-format",
            "json",
            "--stdin-filename",
            "answer.py",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| LintError::Spawn {
            path: ruff.to_owned(),
            source,
        })?;
    // Writer and readers on their own threads: a full pipe must not block the deadline.
    let stdin = child.stdin.take();
    let input = code.as_bytes().to_vec();
    let writer = thread::spawn(move || match stdin {
        Some(mut pipe) => pipe.write_all(&input),
        None => Ok(()),
    });
    let stdout = read_pipe(child.stdout.take());
    let stderr = read_pipe(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
            outcome => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(match outcome {
                    Err(e) => LintError::Io(e),
                    _ => LintError::Timeout(timeout),
                });
            }
        }
    };
    let written = writer
        .join()
        .unwrap_or_else(|_| Err(std::io::Error::other("the stdin writer panicked")));
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    if !matches!(status.code(), Some(0 | 1)) {
        return Err(LintError::Failed {
            status: status.to_string(),
            stderr: String::from_utf8_lossy(&stderr).trim().to_owned(),
        });
    }
    written.map_err(LintError::Io)?;
    let findings: Vec<serde_json::Value> =
        serde_json::from_slice(&stdout).map_err(LintError::Output)?;
    Ok(findings
        .iter()
        .map(|f| {
            f.get("code")
                .and_then(serde_json::Value::as_str)
                // Older ruff reports syntax errors with a null code.
                .unwrap_or("syntax-error")
                .to_owned()
        })
        .collect())
}

fn read_pipe(pipe: Option<impl Read + Send + 'static>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut buf);
        }
        buf
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measures(values: [u32; 5], lint: Option<u32>) -> CodeMeasures {
        CodeMeasures {
            cyclomatic_complexity: values[0],
            max_nesting_depth: values[1],
            statements: values[2],
            duplicated_blocks: values[3],
            short_names: values[4],
            lint_findings: lint,
        }
    }

    #[test]
    fn band_limits_follow_the_documented_formulas() {
        assert_eq!(
            band(&measures([3, 2, 6, 0, 0], Some(1))),
            measures([5, 3, 16, 0, 1], Some(3))
        );
        // Half of a complex reference's complexity exceeds the minimum slack.
        assert_eq!(
            band(&measures([10, 0, 0, 2, 3], None)),
            measures([15, 1, 4, 2, 4], None)
        );
        assert_eq!(band(&measures([u32::MAX; 5], None)).statements, u32::MAX);
    }

    #[test]
    fn each_measure_leaves_the_band_one_past_its_limit() {
        let reference = measures([3, 2, 6, 0, 0], Some(1));
        assert!(outside_band(&reference, &reference).is_empty());
        assert!(outside_band(&measures([5, 3, 16, 0, 1], Some(3)), &reference).is_empty());
        assert_eq!(
            outside_band(&measures([6, 4, 17, 1, 2], Some(4)), &reference),
            [
                "cyclomatic_complexity",
                "max_nesting_depth",
                "statements",
                "duplicated_blocks",
                "short_names",
                "lint_findings"
            ]
        );
        // Lint is judged only when both sides were linted.
        assert!(
            outside_band(
                &measures([3, 2, 6, 0, 0], Some(50)),
                &measures([3, 2, 6, 0, 0], None)
            )
            .is_empty()
        );
        assert!(outside_band(&measures([3, 2, 6, 0, 0], None), &reference).is_empty());
    }

    #[test]
    fn names_in_outside_band_are_the_serialized_field_names() {
        let all = outside_band(
            &measures([99, 99, 99, 99, 99], Some(99)),
            &measures([0; 5], Some(0)),
        );
        let json = serde_json::to_value(measures([0; 5], Some(0))).unwrap();
        let fields: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(all.iter().collect::<Vec<_>>(), fields);
    }

    /// A stand-in for ruff: a shell script with `body`.
    fn fake_ruff(name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("passrate-maintain-{}", std::process::id()));
        fs_err::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        fs_err::write(&path, format!("#!/bin/sh\ncat >/dev/null\n{body}\n")).unwrap();
        fs_err::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn ruff_failures_are_errors_that_say_what_failed() {
        let json = fake_ruff(
            "json",
            "echo '[{\"code\": \"F401\"}, {\"code\": null}]'; exit 1",
        );
        assert_eq!(
            run_ruff(&json, "import os\n").unwrap(),
            ["F401", "syntax-error"]
        );
        let crash = fake_ruff("crash", "echo 'bad flag' >&2; exit 2");
        let e = run_ruff(&crash, "x = 1\n").unwrap_err();
        assert!(matches!(e, LintError::Failed { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "failed to lint: ruff exited with exit status: 2: bad flag"
        );
        let garbage = fake_ruff("garbage", "echo 'not json'");
        assert!(matches!(
            run_ruff(&garbage, "").unwrap_err(),
            LintError::Output(_)
        ));
        let slow = fake_ruff("slow", "exec sleep 5");
        let started = Instant::now();
        let e = run_ruff_within(&slow, "", Duration::from_millis(200)).unwrap_err();
        assert!(matches!(e, LintError::Timeout(_)), "{e:?}");
        assert!(started.elapsed() < Duration::from_secs(4));
        let missing = Path::new("/nonexistent/ruff");
        assert!(matches!(
            run_ruff(missing, "").unwrap_err(),
            LintError::Spawn { .. }
        ));
        fs_err::remove_dir_all(json.parent().unwrap()).unwrap();
    }

    #[test]
    fn deep_code_is_measured_without_recursion() {
        let deep = format!("x = {}1{}\n", "[".repeat(20_000), "]".repeat(20_000));
        let m = code_measures(Language::Python, &deep).unwrap();
        assert_eq!((m.statements, m.short_names), (1, 1));
        let nested = format!("{}a = 1;{}", "{".repeat(1_000), "}".repeat(1_000));
        assert_eq!(
            code_measures(Language::Javascript, &nested)
                .unwrap()
                .statements,
            1
        );
    }

    #[test]
    fn top_level_code_is_a_unit_of_its_own() {
        let script =
            "xs = [1, 2]\nfor v in xs:\n    if v:\n        if v > 1:\n            print(v)\n";
        let m = code_measures(Language::Python, script).unwrap();
        assert_eq!((m.cyclomatic_complexity, m.max_nesting_depth), (4, 3));
        let empty = code_measures(Language::Python, "").unwrap();
        assert_eq!(empty, measures([1, 0, 0, 0, 0], None));
    }
}
