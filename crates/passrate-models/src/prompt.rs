//! Prompt templates per task category, and the prompt a task renders to.
//!
//! A template is text with `{{placeholder}}`s and optional sections `{{#name}}…{{/name}}`,
//! rendered only when `name` has a non-empty value. Values are inserted once and never
//! re-scanned, so a task text containing `{{` is safe. Placeholders:
//!
//! | placeholder | value |
//! | --- | --- |
//! | `prompt` | the variant's prompt (what the model is shown) |
//! | `given_code` | the code to work on (bug fixing, documentation, unit tests, refactoring, translation source) |
//! | `language` / `fence` | `Python`, `JavaScript`, `Java` / `python`, `javascript`, `java` |
//! | `source_language` / `source_fence` | translation: the language of `given_code` |
//! | `entry_point`, `class_name` | what the tests call |
//! | `symptom` | bug fixing: the failure symptom, if the task gives one |
//! | `doc_style` | `a docstring`, `a JSDoc comment`, `a Javadoc comment`, with the tags and the example form the documentation grader reads |
//! | `targets` | refactoring: the structural targets, e.g. `nesting depth at most 2, …` |
//! | `test_form` | unit tests: the test form the grader runs and how tests reach the code |
//! | `category` | e.g. `bug_fixing` |

use std::collections::BTreeMap;

use passrate_schema::{Category, Language, Task};
use serde::{Deserialize, Serialize};

const PLACEHOLDERS: [&str; 13] = [
    "prompt",
    "given_code",
    "test_form",
    "language",
    "fence",
    "source_language",
    "source_fence",
    "entry_point",
    "class_name",
    "symptom",
    "doc_style",
    "category",
    "targets",
];

/// What is sent to the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    pub user: String,
}

impl Prompt {
    /// blake3 of the system and user text (length-prefixed so the split is unambiguous),
    /// as 64 hex digits.
    pub fn hash(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"passrate-prompt-v1");
        match &self.system {
            Some(system) => {
                hasher.update(&[1]);
                hasher.update(&(system.len() as u64).to_le_bytes());
                hasher.update(system.as_bytes());
            }
            None => {
                hasher.update(&[0]);
            }
        }
        hasher.update(&(self.user.len() as u64).to_le_bytes());
        hasher.update(self.user.as_bytes());
        hasher.finalize().to_hex().to_string()
    }
}

/// Why a task cannot be rendered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    #[error("the task has no {0} variant")]
    NoVariant(Language),
    #[error("the {category} template uses {{{{{placeholder}}}}}, which this task does not provide")]
    MissingValue {
        category: Category,
        placeholder: &'static str,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Value(&'static str),
    Section(&'static str, Vec<Piece>),
}

/// A parsed template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    source: String,
    pieces: Vec<Piece>,
}

impl Template {
    /// Parses `text`; the error names the unknown placeholder or the unclosed section.
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut stack: Vec<(&'static str, Vec<Piece>)> = Vec::new();
        let mut pieces = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find("{{") {
            if start > 0 {
                pieces.push(Piece::Text(rest[..start].to_string()));
            }
            let after = &rest[start + 2..];
            let end = after
                .find("}}")
                .ok_or_else(|| format!("unclosed `{{{{` in template near `{}`", snippet(after)))?;
            let tag = after[..end].trim();
            rest = &after[end + 2..];
            let (kind, name) = match tag.chars().next() {
                Some('#') => ('#', tag[1..].trim()),
                Some('/') => ('/', tag[1..].trim()),
                _ => (' ', tag),
            };
            let name = PLACEHOLDERS
                .iter()
                .find(|p| **p == name)
                .copied()
                .ok_or_else(|| {
                    format!(
                        "unknown placeholder `{{{{{tag}}}}}`; known: {}",
                        PLACEHOLDERS.join(", ")
                    )
                })?;
            match kind {
                '#' => stack.push((name, std::mem::take(&mut pieces))),
                '/' => {
                    let (open, outer) = stack
                        .pop()
                        .filter(|(open, _)| *open == name)
                        .ok_or_else(|| format!("`{{{{/{name}}}}}` closes no open section"))?;
                    let body = std::mem::replace(&mut pieces, outer);
                    pieces.push(Piece::Section(open, body));
                }
                _ => pieces.push(Piece::Value(name)),
            }
        }
        if let Some((open, _)) = stack.last() {
            return Err(format!("section `{{{{#{open}}}}}` is never closed"));
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_string()));
        }
        Ok(Template {
            source: text.to_string(),
            pieces,
        })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    fn render(
        &self,
        category: Category,
        values: &BTreeMap<&'static str, String>,
    ) -> Result<String, PromptError> {
        let mut out = String::new();
        render_pieces(&self.pieces, category, values, &mut out)?;
        Ok(out)
    }
}

fn snippet(text: &str) -> String {
    text.chars().take(20).collect()
}

fn render_pieces(
    pieces: &[Piece],
    category: Category,
    values: &BTreeMap<&'static str, String>,
    out: &mut String,
) -> Result<(), PromptError> {
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Value(name) => {
                out.push_str(values.get(name).ok_or(PromptError::MissingValue {
                    category,
                    placeholder: name,
                })?)
            }
            Piece::Section(name, body) => {
                if values.get(name).is_some_and(|v| !v.is_empty()) {
                    render_pieces(body, category, values, out)?;
                }
            }
        }
    }
    Ok(())
}

/// The system prompt and one template per category.
#[derive(Clone, Debug, PartialEq)]
pub struct PromptTemplates {
    pub system: Option<String>,
    pub per_category: BTreeMap<Category, Template>,
}

const DEFAULT_SYSTEM: &str = "You are an expert programmer. Answer with code in a single fenced code block, without explanations.";

const FUNCTION_COMPLETION: &str = "Complete the following {{language}} code. Reply with the complete code of `{{entry_point}}`, signature included{{#class_name}}, inside class `{{class_name}}`{{/class_name}}, in one ```{{fence}} code block.

```{{fence}}
{{prompt}}
```
";

const ALGORITHM: &str = "Solve the following problem in {{language}} by implementing `{{entry_point}}`{{#class_name}} in class `{{class_name}}`{{/class_name}}. The solution must also be efficient on large inputs. Reply with the complete code in one ```{{fence}} code block.

{{prompt}}
";

const BUG_FIXING: &str = "The following {{language}} code has a bug in `{{entry_point}}`.{{#symptom}} Symptom: {{symptom}}{{/symptom}}
{{#prompt}}
{{prompt}}
{{/prompt}}
```{{fence}}
{{given_code}}
```

Fix the bug. Reply with the complete corrected code in one ```{{fence}} code block.
";

const TRANSLATION: &str = "Translate the following {{source_language}} code to {{language}}. The {{language}} version must define `{{entry_point}}`{{#class_name}} in class `{{class_name}}`{{/class_name}} and behave identically.
{{#prompt}}
{{prompt}}
{{/prompt}}
```{{source_fence}}
{{given_code}}
```

Reply with the complete {{language}} code in one ```{{fence}} code block.
";

const DOCUMENTATION: &str = "Document the following {{language}} code: give `{{entry_point}}` {{doc_style}} that describes what it does, every parameter and the return value, with a usage example. Do not change the code itself.
{{#prompt}}
{{prompt}}
{{/prompt}}
```{{fence}}
{{given_code}}
```

Reply with the complete documented code in one ```{{fence}} code block.
";

const UNIT_TESTS: &str = "Write unit tests in {{language}} for `{{entry_point}}` below. The tests must all pass on this implementation and fail on an incorrect one, by checking what it returns. {{test_form}} Do not repeat the implementation in your answer.
{{#prompt}}
{{prompt}}
{{/prompt}}
```{{fence}}
{{given_code}}
```

Reply with only the test code in one ```{{fence}} code block.
";

const REFACTORING: &str = "Refactor the following {{language}} code without changing its behaviour; `{{entry_point}}` must keep its name and signature.{{#targets}} Every function must meet these targets, measured on the syntax tree: {{targets}}.{{/targets}}
{{#prompt}}
{{prompt}}
{{/prompt}}
```{{fence}}
{{given_code}}
```

Reply with the complete refactored code in one ```{{fence}} code block.
";

impl PromptTemplates {
    /// The built-in templates (the defaults a `models.toml` overrides per category).
    pub fn builtin() -> PromptTemplates {
        let per_category = Category::ALL
            .into_iter()
            .map(|category| {
                let text = match category {
                    Category::FunctionCompletion => FUNCTION_COMPLETION,
                    Category::AlgorithmImplementation => ALGORITHM,
                    Category::BugFixing => BUG_FIXING,
                    Category::CodeTranslation => TRANSLATION,
                    Category::DocumentationGeneration => DOCUMENTATION,
                    Category::UnitTestWriting => UNIT_TESTS,
                    Category::Refactoring => REFACTORING,
                };
                let template = Template::parse(text).expect("built-in templates are valid");
                (category, template)
            })
            .collect();
        PromptTemplates {
            system: Some(DEFAULT_SYSTEM.to_string()),
            per_category,
        }
    }

    /// The prompt for `task` posed in `language`.
    pub fn render(&self, task: &Task, language: Language) -> Result<Prompt, PromptError> {
        let variant = task
            .variants
            .get(&language)
            .ok_or(PromptError::NoVariant(language))?;
        let mut values: BTreeMap<&'static str, String> = BTreeMap::new();
        values.insert("prompt", variant.prompt.trim_end().to_string());
        values.insert("language", display_name(language).to_string());
        values.insert("fence", language.as_str().to_string());
        values.insert("entry_point", variant.entry_point.clone());
        values.insert("category", task.category.as_str().to_string());
        values.insert(
            "doc_style",
            match language {
                Language::Python => "a docstring (every parameter under `Args:`, the return value under `Returns:`, and doctest examples: `>>> call` lines with literal arguments, each followed by its result)",
                Language::Javascript => "a JSDoc comment (`@param` for every parameter, `@returns`, and an `@example` block of `call => result` lines with literal arguments)",
                Language::Java => "a Javadoc comment (`@param` for every parameter, `@return`, and an `@example` block of `call => result` lines with literal arguments)",
            }
            .to_string(),
        );
        if let Some(class_name) = &variant.class_name {
            values.insert("class_name", class_name.clone());
        }
        values.insert(
            "test_form",
            test_form(
                language,
                &variant.entry_point,
                variant.class_name.as_deref().unwrap_or("Solution"),
            ),
        );
        if let Some(code) = &variant.given_code {
            values.insert("given_code", code.trim_end().to_string());
        }
        if let Some(symptom) = &task.category_data.symptom {
            values.insert("symptom", symptom.clone());
        }
        if let Some(targets) = &task.category_data.refactor {
            let mut parts = Vec::new();
            if let Some(n) = targets.max_nesting_depth {
                parts.push(format!("nesting depth at most {n}"));
            }
            if let Some(n) = targets.max_cyclomatic_complexity {
                parts.push(format!("cyclomatic complexity at most {n}"));
            }
            if let Some(n) = targets.max_function_lines {
                parts.push(format!("at most {n} lines per function"));
            }
            if targets.no_duplicated_blocks {
                parts.push("no duplicated blocks".to_owned());
            }
            if !targets.required_helpers.is_empty() {
                parts.push(format!(
                    "helper functions named {}",
                    targets
                        .required_helpers
                        .iter()
                        .map(|h| format!("`{h}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            values.insert("targets", parts.join(", "));
        }
        if let Some(source) = task.category_data.translate_from {
            values.insert("source_language", display_name(source).to_string());
            values.insert("source_fence", source.as_str().to_string());
        }
        let template = self
            .per_category
            .get(&task.category)
            .expect("every category has a template");
        Ok(Prompt {
            system: self.system.clone(),
            user: template.render(task.category, &values)?,
        })
    }
}

/// The form the unit-test grader runs (see the README's "Graders: unit-test writing"), and
/// how the tests reach the code under test.
fn test_form(language: Language, entry: &str, class: &str) -> String {
    match language {
        Language::Python => format!(
            "Write test functions named `test_*` at module level (or `unittest.TestCase` methods) that use `assert`; `pytest.raises`, `pytest.approx` and `pytest.mark.parametrize` are available, fixtures are not. The code under test is module `solution`: `from solution import {entry}`."
        ),
        Language::Javascript => format!(
            "Use `node:test` and `node:assert`: `const test = require('node:test');`, `const assert = require('node:assert');`, then `test('name', () => {{ ... }})` (or `describe`/`it`). The code under test is `./solution.js`: `const {{ {entry} }} = require('./solution.js');`. `console.assert` does not fail a test."
        ),
        Language::Java => format!(
            "Write a class with static no-argument methods whose names start with `test` (or JUnit-style `@Test` methods; `org.junit.Test`, `org.junit.jupiter.api.Test` and their assertions are available) that throw `AssertionError` when a check fails (`assert` is enabled). The code under test is class `{class}` in the default package: `new {class}().{entry}(...)`; do not declare `{class}` yourself and do not write a `main` method."
        ),
    }
}

fn display_name(language: Language) -> &'static str {
    match language {
        Language::Python => "Python",
        Language::Javascript => "JavaScript",
        Language::Java => "Java",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use passrate_schema::{
        CategoryData, IntakeFactors, Signature, Source, TASK_FORMAT_VERSION, Tier, Variant,
    };

    pub(crate) fn task(category: Category, given_code: Option<&str>) -> Task {
        let variant = Variant {
            prompt: "def add(a, b):\n    \"\"\"Add {{two}} numbers.\"\"\"\n".into(),
            entry_point: "add".into(),
            class_name: None,
            signature: Signature {
                params: vec![],
                returns: None,
            },
            reference_solution: "def add(a, b):\n    return a + b\n".into(),
            given_code: given_code.map(str::to_string),
            faulty_variants: vec![],
            preamble: None,
        };
        Task {
            format_version: TASK_FORMAT_VERSION,
            id: "humaneval/0".into(),
            version: 1,
            category,
            tier: Tier::One,
            factors: IntakeFactors {
                conditions: 1,
                solution_space: 1,
                edge_cases: 0,
            },
            source: Source {
                dataset: "humaneval".into(),
                upstream_id: "HumanEval/0".into(),
                license: "MIT".into(),
            },
            variants: [(Language::Python, variant)].into_iter().collect(),
            tests: vec![],
            comparator: Default::default(),
            category_data: CategoryData::default(),
            limits: Default::default(),
            calibration: Default::default(),
        }
    }

    #[test]
    fn every_category_renders_with_its_inputs() {
        let templates = PromptTemplates::builtin();
        for category in Category::ALL {
            let mut t = task(category, Some("def add(a, b):\n    return a - b\n"));
            t.category_data.translate_from = Some(Language::Java);
            t.category_data.symptom = Some("add(1, 2) returns -1".into());
            let prompt = templates.render(&t, Language::Python).unwrap();
            assert!(prompt.user.contains("`add`"), "{category}: {}", prompt.user);
            if category == Category::FunctionCompletion
                || category == Category::AlgorithmImplementation
            {
                assert!(
                    prompt.user.contains("Add {{two}} numbers."),
                    "{}",
                    prompt.user
                );
            } else {
                assert!(prompt.user.contains("return a - b"), "{category}");
            }
            assert!(!prompt.user.contains("{{#"), "{category}");
        }
        let t = task(Category::BugFixing, Some("x"));
        let with = templates.render(&t, Language::Python).unwrap().user;
        assert!(!with.contains("Symptom"), "{with}");
    }

    #[test]
    fn unit_test_prompts_state_the_test_form_and_how_to_reach_the_code() {
        let templates = PromptTemplates::builtin();
        let mut t = task(
            Category::UnitTestWriting,
            Some("def add(a, b):\n    return a + b\n"),
        );
        let python = t.variants[&Language::Python].clone();
        let mut js = python.clone();
        js.entry_point = "addNumbers".into();
        let mut java = python.clone();
        java.entry_point = "addNumbers".into();
        java.class_name = Some("Solution".into());
        t.variants.insert(Language::Javascript, js);
        t.variants.insert(Language::Java, java);
        let user = |l| templates.render(&t, l).unwrap().user;
        let py = user(Language::Python);
        assert!(
            py.contains("`test_*`") && py.contains("from solution import add"),
            "{py}"
        );
        let js = user(Language::Javascript);
        assert!(
            js.contains("node:test") && js.contains("require('./solution.js')"),
            "{js}"
        );
        assert!(js.contains("const { addNumbers }"), "{js}");
        let java = user(Language::Java);
        assert!(
            java.contains("`@Test`") && java.contains("new Solution().addNumbers(...)"),
            "{java}"
        );
    }

    #[test]
    fn translation_without_a_source_language_is_an_error() {
        let templates = PromptTemplates::builtin();
        let t = task(Category::CodeTranslation, Some("int add(int a, int b)"));
        assert_eq!(
            templates.render(&t, Language::Python),
            Err(PromptError::MissingValue {
                category: Category::CodeTranslation,
                placeholder: "source_language"
            })
        );
        assert_eq!(
            templates.render(&t, Language::Java),
            Err(PromptError::NoVariant(Language::Java))
        );
    }

    #[test]
    fn templates_reject_unknown_and_unbalanced_tags() {
        assert!(Template::parse("{{nope}}").unwrap_err().contains("nope"));
        assert!(
            Template::parse("{{#symptom}}x")
                .unwrap_err()
                .contains("never closed")
        );
        assert!(
            Template::parse("{{/symptom}}")
                .unwrap_err()
                .contains("closes no")
        );
        assert!(
            Template::parse("{{prompt")
                .unwrap_err()
                .contains("unclosed")
        );
        let t = Template::parse("a{{ prompt }}b{{#symptom}}[{{symptom}}]{{/symptom}}").unwrap();
        let mut values = BTreeMap::new();
        values.insert("prompt", "{{symptom}}".to_string());
        assert_eq!(
            t.render(Category::BugFixing, &values).unwrap(),
            "a{{symptom}}b"
        );
        values.insert("symptom", "s".to_string());
        assert_eq!(
            t.render(Category::BugFixing, &values).unwrap(),
            "a{{symptom}}b[s]"
        );
    }

    #[test]
    fn the_hash_separates_system_and_user() {
        let a = Prompt {
            system: Some("ab".into()),
            user: "c".into(),
        };
        let b = Prompt {
            system: Some("a".into()),
            user: "bc".into(),
        };
        let c = Prompt {
            system: None,
            user: "abc".into(),
        };
        assert_ne!(a.hash(), b.hash());
        assert_ne!(a.hash(), c.hash());
        assert_eq!(a.hash(), a.clone().hash());
        assert_eq!(a.hash().len(), 64);
    }
}
