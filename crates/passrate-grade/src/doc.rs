//! The documentation grader. An answer passes when
//!
//! * `doc.code_changed`: its code, comments, docstrings and imports left out, has the same
//!   syntax tree as the given code (both through the extractor, so the same items count);
//! * `doc.missing`: the entry point has a doc comment (Python docstring, `/** */` before a
//!   JavaScript or Java declaration);
//! * `doc.param_undocumented` / `doc.return_undocumented`: every parameter is documented by
//!   name, and the return value when the function returns one (see [`documents_param`]);
//! * `doc.no_example`: the doc holds at least one usage example in the stated form: Python
//!   doctest `>>> call` followed by the result line(s) (none: `None`); JavaScript and Java an
//!   `@example` block of `call => result` lines;
//! * `doc.example_unparsable`: every example's call and result are literals
//!   ([`passrate_extract::literal`]);
//! * `doc.example_not_entry_point`: every example calls the entry point;
//! * `doc.example_wrong`: every example, run in the sandbox against the task's *reference*
//!   (one execution for all of them), returns what the doc claims under the task's
//!   comparator (JavaScript: numbers by value). Only the parsed literal arguments enter the
//!   sandbox; the answer's code never runs.

use std::collections::BTreeMap;

use passrate_extract::literal::{self, LiteralCall};
use passrate_extract::{ExtractRequest, structure};
use passrate_runner::RunnerError;
use passrate_schema::{Category, Comparator, Language, RuleFailure, Task, Value, Verdict};

use crate::{Execute, GradeError};

/// One usage example as the doc writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    /// The call, as written (continuation lines joined).
    pub call: String,
    /// The claimed result, as written (Python: empty when no output line follows).
    pub result: String,
}

/// Why an example cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unparsable {
    pub text: String,
    pub why: String,
}

/// The examples of a doc in the stated form of `language`; lines of an `@example` block
/// that are not `call => result` are returned as unparsable.
pub fn examples(language: Language, doc: &str) -> (Vec<Example>, Vec<Unparsable>) {
    match language {
        Language::Python => (doctest_examples(doc), Vec::new()),
        Language::Javascript | Language::Java => example_blocks(doc),
    }
}

fn doctest_examples(doc: &str) -> Vec<Example> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(first) = lines[i].trim_start().strip_prefix(">>>") else {
            i += 1;
            continue;
        };
        let mut call = first.trim().to_owned();
        i += 1;
        while i < lines.len() {
            let t = lines[i].trim_start();
            match t.strip_prefix("...") {
                Some(more) if !t.starts_with("....") => {
                    call.push('\n');
                    call.push_str(more.strip_prefix(' ').unwrap_or(more));
                    i += 1;
                }
                _ => break,
            }
        }
        let mut result = Vec::new();
        while i < lines.len() {
            let t = lines[i].trim();
            if t.is_empty() || t.starts_with(">>>") {
                break;
            }
            result.push(t);
            i += 1;
        }
        out.push(Example {
            call,
            result: result.join("\n"),
        });
    }
    out
}

/// Lines that only frame an example block (Markdown fences, `<pre>`, `{@code`).
fn is_frame(line: &str) -> bool {
    line.starts_with("```")
        || matches!(
            line,
            "<pre>" | "</pre>" | "<pre>{@code" | "{@code" | "}</pre>" | "}" | "<caption>"
        )
}

fn example_blocks(doc: &str) -> (Vec<Example>, Vec<Unparsable>) {
    let mut examples = Vec::new();
    let mut bad = Vec::new();
    let mut inside = false;
    for line in doc.lines() {
        let t = line.trim();
        let body = if let Some(rest) = t.strip_prefix("@example") {
            inside = true;
            rest.trim()
        } else if t.starts_with('@') {
            inside = false;
            continue;
        } else if inside {
            t
        } else {
            continue;
        };
        if body.is_empty() || is_frame(body) || body.starts_with("<caption>") {
            continue;
        }
        // `call // => result` is the JSDoc habit for the same thing.
        let body = body.replacen("// =>", "=>", 1);
        match split_arrow(&body) {
            Some((call, result)) if !call.trim().is_empty() && !result.trim().is_empty() => {
                examples.push(Example {
                    call: call.trim().trim_end_matches(';').trim().to_owned(),
                    result: result.trim().trim_end_matches(';').trim().to_owned(),
                })
            }
            _ => bad.push(Unparsable {
                text: body.to_owned(),
                why: "not of the form `call => result`".to_owned(),
            }),
        }
    }
    (examples, bad)
}

/// Splits at the first `=>` outside strings and brackets.
fn split_arrow(line: &str) -> Option<(&str, &str)> {
    let bytes = line.as_bytes();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) => {
                if b == b'\\' {
                    i += 1;
                } else if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'"' | b'\'' | b'`' => quote = Some(b),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b'=' if depth == 0 && bytes.get(i + 1) == Some(&b'>') => {
                    return Some((&line[..i], &line[i + 2..]));
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// Whether the doc documents parameter `name`:
/// * Python: Sphinx `:param name:` (also `:param type name:`, `:arg`, `:keyword`), or an
///   entry `name:`, `name (type):`, `name : type` or a bare `name` line inside a Google
///   (`Args:`, `Arguments:`, `Parameters:`) or NumPy (`Parameters` over a `---` line) section;
/// * JavaScript: `@param name`, `@param {T} name`, `@param {T} [name=default]` (also `@arg`,
///   `@argument`);
/// * Java: `@param name`.
pub fn documents_param(language: Language, doc: &str, name: &str) -> bool {
    match language {
        Language::Python => python_sections(doc).params.iter().any(|p| p == name),
        Language::Javascript | Language::Java => doc.lines().any(|line| {
            let t = line.trim();
            let Some(rest) = ["@param", "@argument", "@arg"]
                .iter()
                .find_map(|tag| t.strip_prefix(tag))
                .filter(|r| r.starts_with(char::is_whitespace))
            else {
                return false;
            };
            let mut rest = rest.trim_start();
            if language == Language::Javascript && rest.starts_with('{') {
                let mut depth = 0;
                let mut end = None;
                for (i, c) in rest.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = Some(i + 1);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                match end {
                    Some(e) => rest = rest[e..].trim_start(),
                    None => return false,
                }
            }
            let token = rest.split_whitespace().next().unwrap_or("");
            let token = token.trim_start_matches('[').trim_start_matches("...");
            let token = token
                .split(['=', ']', '.', ','])
                .next()
                .unwrap_or("")
                .trim_end_matches(':');
            token == name
        }),
    }
}

/// Whether the doc documents the return value: Python `:return:`/`:returns:` or a
/// `Returns:`/`Yields:` (Google) or `Returns` over `---` (NumPy) section with content;
/// JavaScript `@returns`/`@return`; Java `@return`.
pub fn documents_return(language: Language, doc: &str) -> bool {
    match language {
        Language::Python => python_sections(doc).returns,
        Language::Javascript | Language::Java => doc.lines().any(|line| {
            let t = line.trim();
            let tags: &[&str] = if language == Language::Javascript {
                &["@returns", "@return"]
            } else {
                &["@return"]
            };
            tags.iter().any(|tag| {
                t.strip_prefix(tag)
                    .is_some_and(|r| r.is_empty() || r.starts_with(char::is_whitespace))
            })
        }),
    }
}

#[derive(Default)]
struct PythonSections {
    params: Vec<String>,
    returns: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Params,
    Returns,
    Other,
}

fn section_of(word: &str) -> Option<Section> {
    match word.to_ascii_lowercase().as_str() {
        "args" | "arguments" | "parameters" | "params" | "keyword args" | "keyword arguments"
        | "other parameters" => Some(Section::Params),
        "returns" | "return" | "yields" => Some(Section::Returns),
        "raises" | "examples" | "example" | "notes" | "note" | "see also" | "references"
        | "attributes" | "warns" | "warnings" | "todo" => Some(Section::Other),
        _ => None,
    }
}

fn python_sections(doc: &str) -> PythonSections {
    let lines: Vec<&str> = doc.lines().collect();
    let mut out = PythonSections::default();
    let mut section = Section::None;
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        i += 1;
        // Sphinx fields, anywhere.
        if let Some(field) = t.strip_prefix(':') {
            let head = field.split(':').next().unwrap_or("");
            let mut words = head.split_whitespace();
            match words.next() {
                Some("param" | "parameter" | "arg" | "argument" | "key" | "keyword") => {
                    if let Some(name) = head.split_whitespace().last() {
                        out.params.push(name.trim_start_matches('*').to_owned());
                    }
                }
                Some("return" | "returns") => out.returns = true,
                _ => {}
            }
            continue;
        }
        // NumPy: a header over a line of dashes.
        let underlined = lines
            .get(i)
            .map(|n| n.trim())
            .is_some_and(|n| n.len() >= 3 && n.chars().all(|c| c == '-' || c == '='));
        if underlined && let Some(s) = section_of(t) {
            section = s;
            i += 1;
            continue;
        }
        // Google: `Args:`, `Returns: text`.
        if let Some((head, rest)) = t.split_once(':')
            && let Some(s) = section_of(head.trim())
        {
            section = s;
            if s == Section::Returns && !rest.trim().is_empty() {
                out.returns = true;
            }
            continue;
        }
        if t.is_empty() || t.starts_with(">>>") {
            if t.starts_with(">>>") {
                section = Section::None;
            }
            continue;
        }
        match section {
            Section::Params => {
                let head = t.split(':').next().unwrap_or("");
                let head = head.split('(').next().unwrap_or("");
                for name in head.split(',') {
                    let name = name.trim().trim_start_matches('*');
                    if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                        out.params.push(name.to_owned());
                    }
                }
            }
            Section::Returns => out.returns = true,
            Section::None | Section::Other => {}
        }
    }
    out
}

/// Whether an example's call names the entry point: `f(…)` in every language, and in Java
/// also `Solution.f(…)`, `s.f(…)` or `new Solution().f(…)` (a method call on the task's
/// class; any receiver name, since only the arguments are used).
fn calls_entry_point(language: Language, call: &LiteralCall, entry: &str) -> bool {
    if call.callee != entry {
        return false;
    }
    match (&call.receiver, language) {
        (None, _) => true,
        (Some(r), Language::Java) => {
            r.chars().all(|c| c.is_alphanumeric() || c == '_')
                || (r.starts_with("new ") && r.ends_with("()"))
        }
        (Some(_), _) => false,
    }
}

fn rule(failed: &mut Vec<RuleFailure>, rule: &str, detail: String) {
    failed.push(RuleFailure {
        rule: format!("doc.{rule}"),
        detail,
    });
}

fn short(text: &str) -> String {
    let one_line = text.replace('\n', " ");
    if one_line.chars().count() > 120 {
        format!("{}…", one_line.chars().take(120).collect::<String>())
    } else {
        one_line
    }
}

/// Grades a documentation answer (see the module docs for the rules).
pub fn grade(
    runner: &dyn Execute,
    task: &Task,
    language: Language,
    code: &str,
) -> Result<Verdict, GradeError> {
    let task_error = |why: String| GradeError::Task {
        task: task.id.clone(),
        language,
        why,
    };
    let variant = task
        .variants
        .get(&language)
        .ok_or_else(|| task_error("no variant".to_owned()))?;
    let given = variant
        .given_code
        .as_deref()
        .ok_or_else(|| task_error("no given code".to_owned()))?;
    let entry = variant.entry_point.as_str();
    // The given code through the extractor, so the same items (entry point, the helpers and
    // imports it uses) are compared on both sides.
    let request = ExtractRequest {
        category: Category::FunctionCompletion,
        ..ExtractRequest::for_variant(language, task.category, variant)
    };
    let given = passrate_extract::extract(&request, given.as_bytes()).code;
    let given_print = structure::program_fingerprint(language, &given)
        .ok_or_else(|| task_error("the given code does not parse".to_owned()))?;
    let facts = structure::function_facts(language, &given, entry)
        .ok_or_else(|| task_error(format!("the given code does not define `{entry}`")))?;

    let mut failed = Vec::new();
    let mut metrics = BTreeMap::new();
    if structure::program_fingerprint(language, code).as_ref() != Some(&given_print) {
        rule(
            &mut failed,
            "code_changed",
            "the code differs from the given code (comments, docs and imports aside)".to_owned(),
        );
    }
    let mut results: Vec<Option<String>> = Vec::new();
    match structure::doc_comment(language, code, entry) {
        None => rule(
            &mut failed,
            "missing",
            format!("`{entry}` has no doc comment"),
        ),
        Some(doc) => {
            let mut documented = 0u64;
            for name in &facts.params {
                if documents_param(language, &doc, name) {
                    documented += 1;
                } else {
                    rule(
                        &mut failed,
                        "param_undocumented",
                        format!("parameter `{name}` is not documented"),
                    );
                }
            }
            metrics.insert("params".to_owned(), facts.params.len() as u64);
            metrics.insert("params_documented".to_owned(), documented);
            if facts.returns_value && !documents_return(language, &doc) {
                rule(
                    &mut failed,
                    "return_undocumented",
                    "the return value is not documented".to_owned(),
                );
            }
            let (found, bad) = examples(language, &doc);
            metrics.insert("examples".to_owned(), (found.len() + bad.len()) as u64);
            if found.is_empty() && bad.is_empty() {
                rule(
                    &mut failed,
                    "no_example",
                    match language {
                        Language::Python => "the doc has no `>>>` example".to_owned(),
                        _ => "the doc has no `@example` block of `call => result` lines".to_owned(),
                    },
                );
            }
            for b in &bad {
                rule(
                    &mut failed,
                    "example_unparsable",
                    format!("`{}`: {}", short(&b.text), b.why),
                );
            }
            let mut calls = Vec::new();
            let mut claims = Vec::new();
            for ex in &found {
                let call = match literal::parse_call(language, &ex.call) {
                    Ok(c) => c,
                    Err(e) => {
                        let rule_name = if matches!(e, literal::LiteralError::NotACall(_)) {
                            "example_not_entry_point"
                        } else {
                            "example_unparsable"
                        };
                        rule(
                            &mut failed,
                            rule_name,
                            format!("`{}`: {e}", short(&ex.call)),
                        );
                        continue;
                    }
                };
                if !calls_entry_point(language, &call, entry) {
                    rule(
                        &mut failed,
                        "example_not_entry_point",
                        format!("`{}` does not call `{entry}`", short(&ex.call)),
                    );
                    continue;
                }
                let claimed = if language == Language::Python && ex.result.is_empty() {
                    Ok(Value::Null)
                } else {
                    literal::parse_value(language, &ex.result)
                };
                match claimed {
                    Ok(v) => {
                        calls.push(call.args);
                        claims.push((ex, v));
                    }
                    Err(e) => rule(
                        &mut failed,
                        "example_unparsable",
                        format!("result of `{}`: {e}", short(&ex.call)),
                    ),
                }
            }
            if !calls.is_empty() {
                results = run_examples(runner, task, language, &calls, &claims)?;
            }
        }
    }
    let correct = results.iter().filter(|r| r.is_none()).count() as u64;
    for wrong in results.into_iter().flatten() {
        rule(&mut failed, "example_wrong", wrong);
    }
    metrics.insert("examples_correct".to_owned(), correct);
    Ok(crate::graded_verdict(
        task,
        language,
        "documentation",
        failed,
        metrics,
        None,
    ))
}

/// Runs the examples' calls against the reference and says, per example, what is wrong
/// with it (`None`: correct).
fn run_examples(
    runner: &dyn Execute,
    task: &Task,
    language: Language,
    calls: &[Vec<Value>],
    claims: &[(&Example, Value)],
) -> Result<Vec<Option<String>>, GradeError> {
    let variant = &task.variants[&language];
    let reference = match &variant.preamble {
        Some(p) => format!("{p}\n{}", variant.reference_solution),
        None => variant.reference_solution.clone(),
    };
    let outcomes = match runner.run_calls(
        language,
        &reference,
        &variant.entry_point,
        variant.class_name.as_deref(),
        calls,
    ) {
        Ok(o) => o,
        // The reference could not complete the examples' calls (too large, too slow): the
        // examples are not usable, which is the answer's doing.
        Err(RunnerError::Reference { reason, detail }) => {
            return Ok(claims
                .iter()
                .map(|(ex, _)| {
                    Some(format!(
                        "`{}`: the reference did not complete the examples ({reason}: {})",
                        short(&ex.call),
                        short(&detail)
                    ))
                })
                .collect());
        }
        Err(e) => return Err(e.into()),
    };
    let mut comparator: Comparator = task.comparator.clone();
    if language == Language::Javascript {
        comparator.numeric = true;
    }
    Ok(claims
        .iter()
        .zip(outcomes)
        .map(|((ex, claimed), outcome)| match outcome {
            Ok(actual) if passrate_runner::compare::matches(claimed, &actual, &comparator) => None,
            Ok(actual) => Some(format!(
                "`{}` returns {}, the doc claims {}",
                short(&ex.call),
                short(&actual.to_string()),
                short(&claimed.to_string())
            )),
            Err(e) => Some(format!(
                "`{}` raises {}: {}, the doc claims {}",
                short(&ex.call),
                e.kind,
                short(&e.message),
                short(&claimed.to_string())
            )),
        })
        .collect())
}

/// The reference (or any documented code) with its first example's claimed result changed
/// to a different value: a known-bad answer for intake. `None` if the doc has no usable
/// example or the result's text cannot be located.
pub fn with_wrong_example(language: Language, code: &str, entry: &str) -> Option<String> {
    let doc = structure::doc_comment(language, code, entry)?;
    let (found, _) = examples(language, &doc);
    for ex in found {
        if ex.result.is_empty() || ex.result.contains('\n') {
            continue;
        }
        let Ok(claimed) = literal::parse_value(language, &ex.result) else {
            continue;
        };
        let Some(other) = perturb(&claimed).and_then(|v| literal::render(language, &v)) else {
            continue;
        };
        // The example's own call (not the same text in the description), and the claim
        // after its (last) line, never inside the call.
        let last = ex.call.lines().last().unwrap_or("");
        let first = ex.call.lines().next().unwrap_or("");
        let Some(call_at) = code.match_indices(first).map(|(i, _)| i).find(|&i| {
            let line_start = code[..i].rfind('\n').map_or(0, |j| j + 1);
            let line_end = code[i..].find('\n').map_or(code.len(), |j| i + j);
            match language {
                Language::Python => code[line_start..i].trim_end().ends_with(">>>"),
                _ => code[i + first.len()..line_end].contains("=>"),
            }
        }) else {
            continue;
        };
        let call_end = call_at + code[call_at..].find(last)? + last.len();
        let result_at = call_end + code[call_end..].find(&ex.result)?;
        return Some(format!(
            "{}{}{}",
            &code[..result_at],
            other,
            &code[result_at + ex.result.len()..]
        ));
    }
    None
}

/// A value of the same shape that no comparator takes for `v`.
fn perturb(v: &Value) -> Option<Value> {
    Some(match v {
        Value::Null => Value::int(1),
        Value::Bool(b) => Value::Bool(!b),
        Value::Int(i) => Value::Int(passrate_schema::Integer::parse(&format!(
            "{}7",
            i.as_str()
        ))?),
        Value::Float(x) if x.is_finite() => Value::Float(x * 2.0 + 1000.5),
        Value::Float(_) => Value::Float(0.5),
        Value::Str(s) => Value::Str(format!("{s}?")),
        Value::List(items) => {
            let mut items = items.clone();
            items.push(items.first().cloned().unwrap_or(Value::int(0)));
            Value::List(items)
        }
        Value::Tuple(items) => {
            let mut items = items.clone();
            items.push(items.first().cloned().unwrap_or(Value::int(0)));
            Value::Tuple(items)
        }
        Value::Set(items) => {
            let mut items = items.clone();
            items.push(Value::str("passrate-not-a-member"));
            Value::Set(items)
        }
        Value::Map(entries) => {
            let mut entries = entries.clone();
            entries.push((Value::str("passrate-not-a-key"), Value::int(0)));
            Value::Map(entries)
        }
        Value::Opaque(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doctest_examples_are_read() {
        let doc = "Sum.\n\n>>> f([1, 2],\n...   3)\n6\n>>> f([], 0)\n\n>>> g(1)\n'a'\n'b'\n";
        let found = doctest_examples(doc);
        assert_eq!(
            found,
            vec![
                Example {
                    call: "f([1, 2],\n  3)".into(),
                    result: "6".into()
                },
                Example {
                    call: "f([], 0)".into(),
                    result: "".into()
                },
                Example {
                    call: "g(1)".into(),
                    result: "'a'\n'b'".into()
                },
            ]
        );
    }

    #[test]
    fn example_blocks_are_read() {
        let doc = "Adds.\n@param a one\n@example\nadd(1, 2) => 3\nadd(\"=>\", [1]) // => \"x\"\n```js\nnot an example\n```\n@returns the sum\nignored => 1";
        let (found, bad) = example_blocks(doc);
        assert_eq!(
            found,
            vec![
                Example {
                    call: "add(1, 2)".into(),
                    result: "3".into()
                },
                Example {
                    call: "add(\"=>\", [1])".into(),
                    result: "\"x\"".into()
                },
            ]
        );
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].text, "not an example");
    }

    #[test]
    fn python_param_styles() {
        let google = "Do.\n\nArgs:\n    numbers (List[float]): the list\n    threshold: how close\n        more text: with colon\n\nReturns:\n    bool: whether\n";
        let numpy = "Do.\n\nParameters\n----------\nnumbers : list of float\n    the list\nthreshold\n\nReturns\n-------\nbool\n";
        let sphinx = "Do.\n\n:param numbers: the list\n:param float threshold: how close\n:returns: whether\n";
        for doc in [google, numpy, sphinx] {
            assert!(documents_param(Language::Python, doc, "numbers"), "{doc}");
            assert!(documents_param(Language::Python, doc, "threshold"), "{doc}");
            assert!(!documents_param(Language::Python, doc, "other"), "{doc}");
            assert!(documents_return(Language::Python, doc), "{doc}");
        }
        let prose = "Return whether numbers are closer than threshold.\n>>> f([1.0], 0.5)\nFalse";
        assert!(!documents_param(Language::Python, prose, "numbers"));
        assert!(!documents_return(Language::Python, prose));
        assert!(!documents_return(Language::Python, "Do.\n\nReturns:\n"));
    }

    #[test]
    fn jsdoc_and_javadoc_tags() {
        let js = "Do.\n@param {number[]} numbers the list\n@param [threshold=0.5] how close\n@param {...*} ...rest more\n@returns {boolean} whether";
        for name in ["numbers", "threshold", "rest"] {
            assert!(documents_param(Language::Javascript, js, name), "{name}");
        }
        assert!(!documents_param(Language::Javascript, js, "boolean"));
        assert!(documents_return(Language::Javascript, js));
        let java = "Do.\n@param numbers the list\n@return whether";
        assert!(documents_param(Language::Java, java, "numbers"));
        assert!(!documents_param(Language::Java, java, "threshold"));
        assert!(documents_return(Language::Java, java));
        assert!(!documents_return(Language::Java, "Do.\n@returns whether"));
        assert!(!documents_param(
            Language::Java,
            "@parameter numbers x",
            "numbers"
        ));
    }

    #[test]
    fn wrong_example_changes_only_the_claim() {
        let code =
            "def f(a):\n    \"\"\"Twice.\n\n    >>> f(2)\n    4\n    \"\"\"\n    return 2 * a\n";
        let bad = with_wrong_example(Language::Python, code, "f").unwrap();
        assert_eq!(bad, code.replace("    4\n", "    47\n"));
        let js = "/**\n * @example\n * f([1]) => [1, 1]\n */\nconst f = (a) => a.concat(a);\n";
        let bad = with_wrong_example(Language::Javascript, js, "f").unwrap();
        assert!(bad.contains("f([1]) => [1, 1, 1]"), "{bad}");
        // A claim that also appears among the arguments.
        let java = "class Solution {\n    /**\n     * @example\n     * f(true) => true\n     */\n    public boolean f(boolean b) { return b; }\n}\n";
        let bad = with_wrong_example(Language::Java, java, "f").unwrap();
        assert!(bad.contains("f(true) => false"), "{bad}");
        // The same call in the description is not the example (HumanEval/63).
        let code = "def f(n):\n    \"\"\"f(0) == 0 and f(1) == 0.\n\n    >>> f(0)\n    0\n    \"\"\"\n    return 0\n";
        let bad = with_wrong_example(Language::Python, code, "f").unwrap();
        assert_eq!(bad, code.replace("    0\n", "    7\n"));
    }
}
