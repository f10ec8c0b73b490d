//! Declared types: what a task's signature says its entry point returns, read from Python
//! type hints, Java types and JSDoc `@return {…}`, and the preparation of a task's tests
//! for one language (expected values conformed to that declaration, the language's
//! equality policy) on the host, once per evaluation, before any comparison.
//!
//! A reference's result type can be an accident (HumanEval/147 returns `False` for a count,
//! MBPP/126 returns `n / i` floats for a sum of divisors); the declaration is the task's
//! contract, so expected values are conformed to it. Actual values are never touched: they
//! are compared as the harness decoded them (exact built-in types), so `True` for `1`, `"5"`
//! for `5` and subclasses keep failing.

use passrate_schema::{Comparator, Expected, Language, Task, TestCase, TestForm, Value, Variant};

use crate::compare;
use crate::judge::Planned;

/// A declared type, reduced to what comparison needs. `Unknown` when nothing is declared or
/// the declaration names a type values are not conformed to (`Object`, `Any`, a class).
#[derive(Clone, Debug, PartialEq)]
pub enum Declared {
    Unknown,
    Int,
    Float,
    /// JavaScript's `number`: an int or a float.
    Number,
    Bool,
    Str,
    /// Any sequence of one element type (Python lists and `Tuple[T, ...]`, Java lists and
    /// arrays, JavaScript arrays).
    Seq(Box<Declared>),
    /// A tuple with one declared type per position.
    Tuple(Vec<Declared>),
    Set(Box<Declared>),
    Map(Box<Declared>, Box<Declared>),
    /// `Optional[T]`, `T | None`, Java's `Optional<T>`, JSDoc `?T`: null or a `T`.
    Optional(Box<Declared>),
}

impl Declared {
    pub fn is_known(&self) -> bool {
        *self != Declared::Unknown
    }
}

/// Parses a Python type hint (`List[float]`, `Optional[int]`, `tuple[int, ...]`, `int | None`).
pub fn parse_python(text: &str) -> Declared {
    parse(text, Language::Python)
}

/// Parses a Java type (`int`, `List<Integer>`, `double[]`, `Map<String, Integer>`).
pub fn parse_java(text: &str) -> Declared {
    parse(text, Language::Java)
}

/// Parses a JSDoc type expression, the text between the braces of `@return {…}`
/// (`number`, `Array<number>`, `string[]`, `?boolean`).
pub fn parse_jsdoc(text: &str) -> Declared {
    parse(text, Language::Javascript)
}

fn parse(text: &str, language: Language) -> Declared {
    let tokens = tokenize(text);
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
        language,
    };
    let ty = p.union();
    // Anything left over means the text was not one type expression.
    if p.at == tokens.len() {
        ty
    } else {
        Declared::Unknown
    }
}

fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' || c == '$' {
            word.push(c);
        } else {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            if chars[i..].starts_with(&['.', '.', '.']) {
                out.push("...".to_owned());
                i += 3;
                continue;
            }
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
        }
        i += 1;
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

struct Parser<'a> {
    tokens: &'a [String],
    at: usize,
    language: Language,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn eat(&mut self, token: &str) -> bool {
        if self.peek() == Some(token) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// `A | B | …`: null members make the rest optional; `int | float` is a number;
    /// anything else mixed is unknown.
    fn union(&mut self) -> Declared {
        let mut members = vec![self.term()];
        while self.eat("|") {
            members.push(self.term());
        }
        union_of(members)
    }

    fn term(&mut self) -> Declared {
        if self.language == Language::Javascript && self.eat("?") {
            return Declared::Optional(Box::new(self.term()));
        }
        if self.language == Language::Javascript && self.eat("(") {
            let inner = self.union();
            self.eat(")");
            return self.array_suffix(inner);
        }
        let Some(mut name) = self.peek().map(str::to_owned) else {
            return Declared::Unknown;
        };
        self.at += 1;
        // Qualified names: `typing.List`, `java.util.List`.
        while self.peek() == Some(".")
            && self
                .tokens
                .get(self.at + 1)
                .is_some_and(|t| t.chars().all(|c| c.is_alphanumeric() || c == '_'))
        {
            self.at += 1;
            name = self.tokens[self.at].clone();
            self.at += 1;
        }
        let (open, close) = match self.language {
            Language::Python => ("[", "]"),
            _ => ("<", ">"),
        };
        let mut args = Vec::new();
        if self.eat(open) {
            loop {
                if self.eat("...") {
                    args.push(None);
                } else {
                    args.push(Some(self.union()));
                }
                if !self.eat(",") {
                    break;
                }
            }
            if !self.eat(close) {
                self.at = self.tokens.len() + 1;
                return Declared::Unknown;
            }
        }
        let ty = self.named(&name, args);
        self.array_suffix(ty)
    }

    /// Java's and JSDoc's `T[]`, any number of times.
    fn array_suffix(&mut self, mut ty: Declared) -> Declared {
        while self.language != Language::Python
            && self.peek() == Some("[")
            && self.tokens.get(self.at + 1).map(String::as_str) == Some("]")
        {
            self.at += 2;
            ty = Declared::Seq(Box::new(ty));
        }
        ty
    }

    fn named(&self, name: &str, args: Vec<Option<Declared>>) -> Declared {
        let arg =
            |k: usize| -> Declared { args.get(k).cloned().flatten().unwrap_or(Declared::Unknown) };
        let one = || Box::new(arg(0));
        match self.language {
            Language::Python => match name {
                "int" => Declared::Int,
                "float" => Declared::Float,
                "bool" => Declared::Bool,
                "str" => Declared::Str,
                "List" | "list" | "Sequence" | "MutableSequence" => Declared::Seq(one()),
                "Set" | "set" | "FrozenSet" | "frozenset" | "AbstractSet" => Declared::Set(one()),
                "Dict" | "dict" | "Mapping" | "MutableMapping" => {
                    Declared::Map(Box::new(arg(0)), Box::new(arg(1)))
                }
                "Tuple" | "tuple" => {
                    if args.len() == 2 && args[1].is_none() {
                        Declared::Seq(one())
                    } else if args.is_empty() {
                        Declared::Seq(Box::new(Declared::Unknown))
                    } else {
                        Declared::Tuple(
                            args.into_iter()
                                .map(|a| a.unwrap_or(Declared::Unknown))
                                .collect(),
                        )
                    }
                }
                "Optional" => Declared::Optional(one()),
                "Union" => union_of(
                    args.into_iter()
                        .map(|a| a.unwrap_or(Declared::Unknown))
                        .collect(),
                ),
                "None" | "NoneType" => Declared::Optional(Box::new(Declared::Unknown)),
                _ => Declared::Unknown,
            },
            Language::Java => match name {
                "int" | "Integer" | "long" | "Long" | "short" | "Short" | "byte" | "Byte"
                | "BigInteger" => Declared::Int,
                "double" | "Double" | "float" | "Float" => Declared::Float,
                "boolean" | "Boolean" => Declared::Bool,
                "String" | "char" | "Character" => Declared::Str,
                "List" | "ArrayList" | "LinkedList" | "Collection" => Declared::Seq(one()),
                "Set" | "HashSet" | "TreeSet" | "LinkedHashSet" => Declared::Set(one()),
                "Map" | "HashMap" | "TreeMap" | "LinkedHashMap" => {
                    Declared::Map(Box::new(arg(0)), Box::new(arg(1)))
                }
                "Optional" => Declared::Optional(one()),
                _ => Declared::Unknown,
            },
            Language::Javascript => match name {
                "number" | "Number" => Declared::Number,
                "bigint" | "BigInt" => Declared::Int,
                "boolean" | "Boolean" => Declared::Bool,
                "string" | "String" => Declared::Str,
                "Array" => Declared::Seq(one()),
                "null" | "undefined" => Declared::Optional(Box::new(Declared::Unknown)),
                _ => Declared::Unknown,
            },
        }
    }
}

fn union_of(members: Vec<Declared>) -> Declared {
    let nullable = members
        .iter()
        .any(|m| *m == Declared::Optional(Box::new(Declared::Unknown)));
    let rest: Vec<Declared> = members
        .into_iter()
        .filter(|m| *m != Declared::Optional(Box::new(Declared::Unknown)))
        .collect();
    let inner = match rest.as_slice() {
        [] => Declared::Unknown,
        [one] => one.clone(),
        many if many
            .iter()
            .all(|m| matches!(m, Declared::Int | Declared::Float | Declared::Number)) =>
        {
            Declared::Number
        }
        _ => Declared::Unknown,
    };
    if nullable {
        Declared::Optional(Box::new(inner))
    } else {
        inner
    }
}

/// The return type `variant` declares for `entry`: its signature's, else (Python) the hint
/// of `def entry(…) -> T:` or (JavaScript) the `@return {T}` of the JSDoc before `entry`, in
/// its prompt or its reference.
pub fn variant_return(language: Language, variant: &Variant) -> Declared {
    if let Some(ty) = &variant.signature.returns {
        let parsed = parse(ty, language);
        if parsed.is_known() {
            return parsed;
        }
    }
    [&variant.prompt, &variant.reference_solution]
        .into_iter()
        .map(|text| match language {
            Language::Python => python_hint(text, &variant.entry_point),
            Language::Javascript => jsdoc_return(text, &variant.entry_point),
            Language::Java => Declared::Unknown,
        })
        .find(Declared::is_known)
        .unwrap_or(Declared::Unknown)
}

/// `-> T` of `def entry(…) -> T:` in `text`.
fn python_hint(text: &str, entry: &str) -> Declared {
    let needle = format!("def {entry}(");
    let Some(start) = text.find(&needle) else {
        return Declared::Unknown;
    };
    let rest = &text[start + needle.len()..];
    // The parameter list ends at the parenthesis that closes the one opened by `entry(`.
    let mut depth = 1usize;
    let mut close = None;
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(close) = close else {
        return Declared::Unknown;
    };
    let after = rest[close + 1..].trim_start();
    let Some(hint) = after.strip_prefix("->") else {
        return Declared::Unknown;
    };
    let Some(colon) = hint.find(':') else {
        return Declared::Unknown;
    };
    parse_python(hint[..colon].trim())
}

/// The `@return {T}` (or `@returns`) of the last JSDoc comment before `entry` is defined.
fn jsdoc_return(text: &str, entry: &str) -> Declared {
    let defined = [
        format!("function {entry}("),
        format!("const {entry} ="),
        format!("let {entry} ="),
        format!("var {entry} ="),
    ]
    .iter()
    .filter_map(|d| text.find(d.as_str()))
    .min();
    let Some(at) = defined else {
        return Declared::Unknown;
    };
    let before = &text[..at];
    let Some(doc) = before.rfind("/**").map(|s| &before[s..]) else {
        return Declared::Unknown;
    };
    let Some(tag) = doc.find("@return") else {
        return Declared::Unknown;
    };
    let rest = &doc[tag..];
    let (Some(open), Some(close)) = (rest.find('{'), rest.find('}')) else {
        return Declared::Unknown;
    };
    if close < open || rest[..open].contains('\n') {
        return Declared::Unknown;
    }
    parse_jsdoc(&rest[open + 1..close])
}

/// The task's declared return type for `language`: the variant's own declaration, else
/// another variant's (Java's first, being always written, then Python's, then JavaScript's).
/// JavaScript's `number` says nothing of int or float, so it stands only for JavaScript.
pub fn task_return(task: &Task, language: Language) -> Declared {
    if let Some(v) = task.variants.get(&language) {
        let own = variant_return(language, v);
        if own.is_known() {
            return own;
        }
    }
    for other in [Language::Java, Language::Python, Language::Javascript] {
        if other == language {
            continue;
        }
        if let Some(v) = task.variants.get(&other) {
            let theirs = variant_return(other, v);
            if theirs.is_known() && !mentions_number(&theirs) {
                return theirs;
            }
        }
    }
    Declared::Unknown
}

fn mentions_number(d: &Declared) -> bool {
    match d {
        Declared::Number => true,
        Declared::Seq(t) | Declared::Set(t) | Declared::Optional(t) => mentions_number(t),
        Declared::Map(k, v) => mentions_number(k) || mentions_number(v),
        Declared::Tuple(ts) => ts.iter().any(mentions_number),
        _ => false,
    }
}

/// A task's test as one language judges it: expected values conformed to the declared
/// return type, and the comparator under the language's equality.
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    pub index: usize,
    pub test: TestCase,
    pub comparator: Comparator,
    /// The expected value as recorded, when conforming changed it: an answer returning
    /// exactly what the reference returned passes too.
    pub as_recorded: Option<Value>,
}

impl Prepared {
    pub(crate) fn planned(&self) -> Planned<'_> {
        Planned {
            index: self.index,
            test: &self.test,
            comparator: &self.comparator,
            as_recorded: self.as_recorded.as_ref(),
        }
    }
}

/// The tests of `task` that apply to `language`, prepared for comparison. A `call` test's
/// expected value is conformed to the task's declared return type; a `sequence` test's steps
/// call other methods, whose types are not declared here, and keep their values.
pub(crate) fn prepare(task: &Task, language: Language) -> Vec<Prepared> {
    let returns = task_return(task, language);
    task.tests_for(language)
        .map(|(index, test)| {
            let mut test = test.clone();
            let mut as_recorded = None;
            if let TestForm::Call {
                expected: Expected::Returns(value),
                ..
            } = &mut test.form
            {
                let conformed = compare::conform(value, &returns);
                if conformed != *value {
                    as_recorded = Some(std::mem::replace(value, conformed));
                }
            }
            Prepared {
                index,
                comparator: compare::for_language(task.comparator_for(&test), language),
                test,
                as_recorded,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(t: Declared) -> Declared {
        Declared::Seq(Box::new(t))
    }

    #[test]
    fn python_hints() {
        assert_eq!(parse_python("int"), Declared::Int);
        assert_eq!(parse_python("List[float]"), seq(Declared::Float));
        assert_eq!(parse_python("typing.List[int]"), seq(Declared::Int));
        assert_eq!(parse_python("list[list[int]]"), seq(seq(Declared::Int)));
        assert_eq!(
            parse_python("Tuple[int, str]"),
            Declared::Tuple(vec![Declared::Int, Declared::Str])
        );
        assert_eq!(parse_python("Tuple[float, ...]"), seq(Declared::Float));
        assert_eq!(
            parse_python("Optional[int]"),
            Declared::Optional(Box::new(Declared::Int))
        );
        assert_eq!(
            parse_python("int | None"),
            Declared::Optional(Box::new(Declared::Int))
        );
        assert_eq!(parse_python("Union[int, float]"), Declared::Number);
        assert_eq!(parse_python("Union[int, str]"), Declared::Unknown);
        assert_eq!(
            parse_python("Dict[str, int]"),
            Declared::Map(Box::new(Declared::Str), Box::new(Declared::Int))
        );
        assert_eq!(parse_python("Any"), Declared::Unknown);
        assert_eq!(parse_python("List[int"), Declared::Unknown);
        assert_eq!(parse_python("int int"), Declared::Unknown);
    }

    #[test]
    fn java_types() {
        assert_eq!(parse_java("int"), Declared::Int);
        assert_eq!(parse_java("Double"), Declared::Float);
        assert_eq!(parse_java("boolean"), Declared::Bool);
        assert_eq!(parse_java("List<Integer>"), seq(Declared::Int));
        assert_eq!(parse_java("java.util.List<Double>"), seq(Declared::Float));
        assert_eq!(parse_java("int[]"), seq(Declared::Int));
        assert_eq!(parse_java("double[][]"), seq(seq(Declared::Float)));
        assert_eq!(
            parse_java("HashMap<String, Integer>"),
            Declared::Map(Box::new(Declared::Str), Box::new(Declared::Int))
        );
        assert_eq!(
            parse_java("Optional<Integer>"),
            Declared::Optional(Box::new(Declared::Int))
        );
        assert_eq!(parse_java("List<Object>"), seq(Declared::Unknown));
        assert_eq!(parse_java("Object"), Declared::Unknown);
    }

    #[test]
    fn jsdoc_types() {
        assert_eq!(parse_jsdoc("number"), Declared::Number);
        assert_eq!(parse_jsdoc("number[]"), seq(Declared::Number));
        assert_eq!(parse_jsdoc("Array<boolean>"), seq(Declared::Bool));
        assert_eq!(
            parse_jsdoc("?string"),
            Declared::Optional(Box::new(Declared::Str))
        );
        assert_eq!(
            parse_jsdoc("number|null"),
            Declared::Optional(Box::new(Declared::Number))
        );
        assert_eq!(parse_jsdoc("*"), Declared::Unknown);
    }

    fn variant(returns: Option<&str>, prompt: &str) -> Variant {
        Variant {
            prompt: prompt.to_owned(),
            entry_point: "f".to_owned(),
            class_name: None,
            signature: passrate_schema::Signature {
                params: Vec::new(),
                returns: returns.map(str::to_owned),
            },
            reference_solution: String::new(),
            given_code: None,
            faulty_variants: Vec::new(),
            preamble: None,
        }
    }

    fn task_with(variants: Vec<(Language, Variant)>, tests: Vec<TestCase>) -> Task {
        let json = serde_json::json!({
            "format_version": passrate_schema::TASK_FORMAT_VERSION,
            "id": "t/1", "version": 1, "category": "function_completion", "tier": 1,
            "factors": {"conditions": 1, "solution_space": 1, "edge_cases": 0},
            "source": {"dataset": "test", "upstream_id": "1", "license": "MIT"},
            "variants": {}, "tests": [],
        });
        let mut task: Task = serde_json::from_value(json).expect("a task");
        task.variants = variants.into_iter().collect();
        task.tests = tests;
        task
    }

    #[test]
    fn a_variant_without_a_declaration_takes_another_variants() {
        let task = task_with(
            vec![
                (Language::Python, variant(None, "def f(n):\n    pass\n")),
                (Language::Java, variant(Some("int"), "")),
                (
                    Language::Javascript,
                    variant(None, "/** @return {number} */\nfunction f(n) {\n"),
                ),
            ],
            Vec::new(),
        );
        assert_eq!(task_return(&task, Language::Python), Declared::Int);
        assert_eq!(task_return(&task, Language::Java), Declared::Int);
        assert_eq!(task_return(&task, Language::Javascript), Declared::Number);
        // A language's own declaration wins over another's.
        let task = task_with(
            vec![
                (Language::Python, variant(Some("float"), "")),
                (Language::Java, variant(Some("int"), "")),
            ],
            Vec::new(),
        );
        assert_eq!(task_return(&task, Language::Python), Declared::Float);
        // JavaScript's number does not say int or float: it declares nothing for the others.
        let task = task_with(
            vec![
                (Language::Python, variant(None, "")),
                (
                    Language::Javascript,
                    variant(None, "/** @returns {number} */\nconst f = (n) => n;\n"),
                ),
            ],
            Vec::new(),
        );
        assert_eq!(task_return(&task, Language::Python), Declared::Unknown);
    }

    #[test]
    fn prepared_tests_keep_the_recorded_value_when_conforming_changes_it() {
        let call = |expected: Value| TestCase {
            visibility: passrate_schema::Visibility::Hidden,
            form: TestForm::Call {
                args: Vec::new(),
                expected: Expected::Returns(expected),
            },
            comparator: None,
            languages: Vec::new(),
        };
        let task = task_with(
            vec![
                (Language::Python, variant(None, "")),
                (Language::Java, variant(Some("int"), "")),
            ],
            vec![call(Value::Bool(false)), call(Value::int(4))],
        );
        let prepared = prepare(&task, Language::Python);
        let expected = |p: &Prepared| match &p.test.form {
            TestForm::Call {
                expected: Expected::Returns(v),
                ..
            } => v.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(expected(&prepared[0]), Value::int(0));
        assert_eq!(prepared[0].as_recorded, Some(Value::Bool(false)));
        assert_eq!(expected(&prepared[1]), Value::int(4));
        assert_eq!(prepared[1].as_recorded, None);
        assert!(prepared[0].comparator.numeric);
        assert!(!prepare(&task, Language::Java)[0].comparator.numeric);
    }

    #[test]
    fn declarations_are_found_in_prompts() {
        let prompt = "from typing import List\n\ndef mean(xs: List[float], k: Dict[str, int]) -> float:\n    \"\"\"...\"\"\"\n";
        assert_eq!(python_hint(prompt, "mean"), Declared::Float);
        assert_eq!(
            python_hint("def mean(xs):\n    pass\n", "mean"),
            Declared::Unknown
        );
        assert_eq!(
            python_hint("def other(x) -> int:\n    pass\n", "mean"),
            Declared::Unknown
        );
        let js = "/**\n * Sum.\n * @param {number[]} xs\n * @returns {number} the sum\n */\nconst total = (xs) => {\n";
        assert_eq!(jsdoc_return(js, "total"), Declared::Number);
        let js = "/** @return {boolean} */\nfunction ok(x) {\n";
        assert_eq!(jsdoc_return(js, "ok"), Declared::Bool);
        assert_eq!(jsdoc_return("function ok(x) {\n", "ok"), Declared::Unknown);
    }
}
