//! The extraction pipeline: candidates from the answer, the entry point's block, helpers from
//! other blocks, pruning of script code, and the compliance rules with their reasons.

use std::collections::{HashMap, HashSet};

use passrate_schema::{Category, Language, Reason};

use crate::continuation::{self, Target};
use crate::items::{self, FnInfo, Item, ItemKind};
use crate::markdown::{self, Block, Tag};
use crate::syntax;
use crate::text;
use crate::{EXTRACTOR_VERSION, ExtractRequest, Extraction, Origin};

/// A piece of the answer that may hold the code.
#[derive(Clone, Debug)]
struct Candidate {
    text: String,
    origin: Origin,
}

/// A candidate parsed in the task's language.
struct Parsed {
    source: String,
    items: Vec<Item>,
    has_error: bool,
    first_error: Option<(usize, usize)>,
    origin: Origin,
}

/// What the compliance rules concluded about one candidate.
struct Outcome {
    code: String,
    reason: Option<Reason>,
    detail: Option<String>,
    notes: Vec<String>,
    origin: Origin,
}

impl Outcome {
    fn fail(reason: Reason, detail: String, origin: Origin) -> Outcome {
        Outcome {
            code: String::new(),
            reason: Some(reason),
            detail: Some(detail),
            notes: Vec::new(),
            origin,
        }
    }

    /// Higher is closer to compliant; used to report the most informative failure.
    fn rank(&self) -> u8 {
        match self.reason {
            None => 10,
            Some(Reason::SignatureMismatch) => 8,
            Some(Reason::ClassInsteadOfFunction) => 7,
            Some(Reason::SyntaxError) => 6,
            Some(Reason::MissingEntryPoint) => 5,
            Some(Reason::ScriptWithoutFunction) => 4,
            Some(Reason::WrongLanguage) => 3,
            _ => 1,
        }
    }
}

/// What kind of answer the category asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Function,
    Class,
    Tests,
}

fn shape(req: &ExtractRequest) -> Shape {
    if req.category == Category::UnitTestWriting {
        Shape::Tests
    } else if req.language != Language::Java && req.class_name.is_some() {
        Shape::Class
    } else {
        Shape::Function
    }
}

/// Runs the whole pipeline.
pub fn extract(req: &ExtractRequest, raw: &[u8]) -> Extraction {
    let decoded = text::decode(raw);
    let (answer, echoed) = text::strip_echo(&decoded);
    let prompt = req.prompt.as_deref().filter(|p| !p.trim().is_empty());
    // Completion-style answers continue the prompt (HumanEval, MBXP): when the answer does
    // not even name the entry point as a declaration, judge prompt + answer first, which also
    // spares parsing a bare function body (error recovery is the costly part of parsing).
    let mut continuation = None;
    if let Some(prompt) = prompt
        && !declares_entry(req, answer)
    {
        let attempt = judge_continuation(req, prompt, answer);
        if attempt.as_ref().is_some_and(|a| a.reason.is_none()) {
            continuation = attempt;
        }
    }
    let mut outcome = match continuation {
        Some(done) => done,
        None => {
            let mut outcome = extract_text(req, answer);
            // prompt + a fenced answer holds the fence lines: its syntax error says nothing
            // about the fenced code, whose own failure (a missing or misnamed entry point)
            // is the answer's.
            let fenced = outcome.origin == Origin::Fenced;
            if outcome.reason.is_some()
                && let Some(prompt) = prompt
                && let Some(attempt) = judge_continuation(req, prompt, answer)
                && attempt.rank() > outcome.rank()
                && (attempt.reason.is_none() || !fenced)
            {
                outcome = attempt;
            }
            outcome
        }
    };
    if echoed {
        outcome
            .notes
            .push("cut the echoed prompt before the response marker".into());
    }
    Extraction {
        raw: decoded,
        compliant: outcome.reason.is_none(),
        code: outcome.code,
        reason: outcome.reason,
        detail: outcome.detail,
        notes: outcome.notes,
        origin: outcome.origin,
        extractor_version: EXTRACTOR_VERSION,
    }
}

/// Whether `answer` textually declares the entry point (`def f(`, `function f(`, `f(` …).
fn declares_entry(req: &ExtractRequest, answer: &str) -> bool {
    let ep = req.entry_point.as_str();
    if ep.is_empty() {
        return true;
    }
    let name = req
        .class_name
        .as_deref()
        .filter(|_| shape(req) == Shape::Class)
        .unwrap_or(ep);
    answer.match_indices(name).any(|(at, _)| {
        let after = answer[at + name.len()..].trim_start_matches(' ');
        let before = answer[..at].trim_end_matches(' ');
        (after.starts_with('(') || after.starts_with(':') || after.starts_with('='))
            && (before.ends_with("def")
                || before.ends_with("function")
                || before.ends_with("class")
                || before.ends_with("const")
                || before.ends_with("let")
                || before.ends_with("var")
                || before.ends_with('>')
                || before.ends_with(']')
                || before.ends_with(|c: char| c.is_alphanumeric()))
    })
}

/// Judges prompt + answer, or `None` when the answer adds no code of its own to the prompt's
/// entry point (prose, a refusal, nothing at all): the prompt alone is often a valid
/// definition, and must not be taken for the model's answer.
fn judge_continuation(req: &ExtractRequest, prompt: &str, answer: &str) -> Option<Outcome> {
    let continued = if answer.starts_with(prompt) {
        answer.to_owned()
    } else {
        format!("{prompt}{answer}")
    };
    let tree = syntax::parse(req.language, &continued).ok()?;
    let target = match shape(req) {
        Shape::Tests => Target::Anywhere,
        Shape::Class => Target::Class(req.class_name.as_deref().unwrap_or(&req.entry_point)),
        Shape::Function => Target::Function(&req.entry_point),
    };
    if !continuation::adds_code(req.language, target, &tree, &continued, prompt.len()) {
        return None;
    }
    let parsed = parsed(req, &tree, continued, Origin::PromptContinuation);
    Some(judge(req, &[parsed], 0))
}

/// Whether unfenced text mixes prose into its lines (then parsing it whole is wasted work:
/// the code regions are parsed instead).
fn has_prose_lines(text: &str, language: Language) -> bool {
    text.lines()
        .filter(|l| !l.starts_with([' ', '\t']))
        .any(|l| markdown::is_prose_line(l, language))
}

fn extract_text(req: &ExtractRequest, answer: &str) -> Outcome {
    if answer.trim().is_empty() {
        return Outcome::fail(Reason::NoCode, "the answer is empty".into(), Origin::None);
    }
    let blocks = markdown::fenced_blocks(answer);
    let mut outcome = judge_answer(req, answer, &blocks);
    if blocks.last().is_some_and(|b| !b.terminated) {
        outcome
            .notes
            .push("the last code fence is not closed".into());
    }
    outcome
}

fn judge_answer(req: &ExtractRequest, answer: &str, blocks: &[Block]) -> Outcome {
    let (primary, secondary) = split_blocks(req.language, blocks);

    let mut tiers: Vec<Vec<Candidate>> = Vec::new();
    if blocks.is_empty() {
        if !has_prose_lines(answer, req.language) {
            tiers.push(vec![Candidate {
                text: answer.to_owned(),
                origin: Origin::WholeAnswer,
            }]);
        }
        tiers.push(regions(answer, req.language));
    } else {
        tiers.push(primary);
        tiers.push(secondary);
        tiers.push(regions(&markdown::unfenced_text(answer), req.language));
    }

    let mut best: Option<Outcome> = None;
    let mut too_large = None;
    for tier in tiers {
        let mut parsed = Vec::new();
        for cand in tier {
            match parse_candidate(req, cand) {
                Ok(p) => parsed.push(p),
                Err(e) => too_large = Some(e.to_string()),
            }
        }
        if parsed.is_empty() {
            continue;
        }
        let outcome = judge_tier(req, &parsed);
        if outcome.reason.is_none() {
            return outcome;
        }
        if best.as_ref().is_none_or(|b| outcome.rank() > b.rank()) {
            best = Some(outcome);
        }
    }

    // Nothing in the task's language defines the entry point: was it answered in another?
    // A syntax error may just be another language seen through the task's grammar.
    let found_entry = best.as_ref().is_some_and(|b| b.rank() >= 7);
    if !found_entry && let Some((lang, why)) = crate::detect::foreign_language(req, answer, blocks)
    {
        return Outcome::fail(
            Reason::WrongLanguage,
            format!(
                "the answer is written in {lang}, not {} ({why})",
                req.language
            ),
            Origin::None,
        );
    }
    match best {
        Some(b) => b,
        None => match too_large {
            Some(why) => Outcome::fail(Reason::NoCode, why, Origin::None),
            None => Outcome::fail(
                Reason::NoCode,
                format!("no {} code found in the answer", req.language),
                Origin::None,
            ),
        },
    }
}

/// Blocks that may hold code in the task's language (tagged with it, or untagged), then
/// blocks with tags that are not a programming language we know (`text`, `output`, …).
fn split_blocks(language: Language, blocks: &[Block]) -> (Vec<Candidate>, Vec<Candidate>) {
    let mut primary = Vec::new();
    let mut secondary = Vec::new();
    for b in blocks {
        let cand = Candidate {
            text: b.text.clone(),
            origin: Origin::Fenced,
        };
        match &b.tag {
            Tag::None => primary.push(cand),
            Tag::Lang(l) if *l == language => primary.push(cand),
            Tag::Lang(_) => {}
            Tag::Other(t) if is_foreign_tag(t) => {}
            Tag::Other(_) => secondary.push(cand),
        }
    }
    (primary, secondary)
}

/// Tags that name a programming language other than ours: their blocks are never our code.
pub fn is_foreign_tag(tag: &str) -> bool {
    matches!(
        tag,
        "typescript"
            | "ts"
            | "tsx"
            | "c"
            | "cpp"
            | "c++"
            | "csharp"
            | "cs"
            | "go"
            | "golang"
            | "rust"
            | "rs"
            | "kotlin"
            | "kt"
            | "scala"
            | "ruby"
            | "rb"
            | "php"
            | "swift"
            | "perl"
            | "r"
            | "lua"
            | "haskell"
            | "sql"
            | "bash"
            | "sh"
            | "shell"
            | "console"
            | "zsh"
            | "powershell"
            | "cmd"
            | "bat"
            | "html"
            | "css"
            | "json"
            | "yaml"
            | "yml"
            | "xml"
            | "toml"
            | "dart"
            | "julia"
            | "matlab"
            | "objective-c"
            | "groovy"
    )
}

fn regions(text: &str, language: Language) -> Vec<Candidate> {
    markdown::code_regions(text, language)
        .into_iter()
        .map(|text| Candidate {
            text,
            origin: Origin::Unfenced,
        })
        .collect()
}

fn parse_candidate(req: &ExtractRequest, cand: Candidate) -> Result<Parsed, syntax::ParseError> {
    if cand.text.len() > syntax::MAX_PARSE_BYTES {
        return Err(syntax::ParseError::TooLarge(cand.text.len()));
    }
    let source = if req.language == Language::Python && cand.origin != Origin::PromptContinuation {
        text::dedent(&cand.text)
    } else {
        cand.text
    };
    let tree = syntax::parse(req.language, &source)?;
    Ok(parsed(req, &tree, source, cand.origin))
}

fn parsed(
    req: &ExtractRequest,
    tree: &tree_sitter::Tree,
    source: String,
    origin: Origin,
) -> Parsed {
    let root = tree.root_node();
    Parsed {
        has_error: root.has_error(),
        first_error: syntax::first_error(root),
        items: items::items(req.language, tree, &source),
        source,
        origin,
    }
}

/// Picks the candidate that defines the entry point (the last clean one) and judges it with
/// the other candidates as a source of helpers.
fn judge_tier(req: &ExtractRequest, parsed: &[Parsed]) -> Outcome {
    let mut best: Option<Outcome> = None;
    for i in 0..parsed.len() {
        let outcome = judge(req, parsed, i);
        if best.as_ref().is_none_or(|b| outcome.rank() >= b.rank()) {
            best = Some(outcome);
        }
    }
    best.unwrap_or_else(|| Outcome::fail(Reason::NoCode, "no candidate code".into(), Origin::None))
}

/// Alias chains longer than this are not followed (`a = b`, `b = c`, … or a cycle).
const MAX_ALIAS_HOPS: usize = 8;

/// The item of candidate `main` that binds `ep` to a function, with that function: the last
/// function named `ep` or alias `ep = f` (as the last binding is the one a load leaves), else
/// an export of a function under the name `ep`. `Err` when the binding is an alias or export
/// of a name the answer does not define as a function.
fn binding<'a>(
    all: &'a [Parsed],
    main: usize,
    ep: &str,
) -> Option<Result<(usize, &'a FnInfo), String>> {
    let items = &all[main].items;
    let declared = items.iter().enumerate().rev().find_map(|(idx, i)| {
        if let Some(f) = i.function.as_ref().filter(|f| f.name == ep)
            && i.kind == ItemKind::Function
        {
            return Some((idx, Ok(f)));
        }
        let (_, target) = i
            .aliases
            .iter()
            .rev()
            .find(|(name, target)| name == ep && target != ep)?;
        Some((idx, resolve(all, main, target).ok_or(target)))
    });
    let found = declared.or_else(|| {
        // An export becomes a declaration of `ep`: only when nothing else declares the name.
        if items.iter().any(|i| i.names.iter().any(|n| n == ep)) {
            return None;
        }
        items.iter().enumerate().rev().find_map(|(idx, i)| {
            let export = i.exports.iter().rev().find(|e| e.name == ep)?;
            let resolved = match (&export.function, &export.target) {
                (Some(f), _) => Ok(f),
                (None, Some(target)) => resolve(all, main, target).ok_or(target),
                (None, None) => return None,
            };
            Some((idx, resolved))
        })
    })?;
    Some(match found {
        (idx, Ok(f)) => Ok((idx, f)),
        (_, Err(target)) => Err(format!(
            "`{ep}` is bound to `{target}`, which is not a function the answer defines"
        )),
    })
}

/// The function `name` refers to in candidate `main` (or, as for helpers, in the other
/// candidates of the same origin), through aliases.
fn resolve<'a>(all: &'a [Parsed], main: usize, name: &str) -> Option<&'a FnInfo> {
    let mut name = name;
    for _ in 0..MAX_ALIAS_HOPS {
        let blocks = std::iter::once(main).chain(
            (0..all.len())
                .rev()
                .filter(|b| *b != main && all[*b].origin == all[main].origin),
        );
        let mut next = None;
        for b in blocks {
            let found = all[b].items.iter().rev().find_map(|i| {
                if i.has_error {
                    return None;
                }
                if let Some(f) = i.function.as_ref().filter(|f| f.name == name)
                    && i.kind == ItemKind::Function
                {
                    return Some(Ok(f));
                }
                i.aliases
                    .iter()
                    .rev()
                    .find(|(n, t)| n == name && t != name)
                    .map(|(_, t)| Err(t.as_str()))
            });
            match found {
                Some(Ok(f)) => return Some(f),
                Some(Err(target)) => {
                    next = Some(target);
                    break;
                }
                None => {}
            }
        }
        name = next?;
    }
    None
}

/// Where the entry point is in a candidate.
enum Found<'a> {
    /// Item index; for classes also the method.
    Item(usize, Option<&'a FnInfo>),
    Missing(Reason, String),
}

/// Prose seen through a grammar is one big syntax error; it is not code at all.
fn is_prose(req: &ExtractRequest, p: &Parsed) -> bool {
    p.has_error
        && p.origin == Origin::WholeAnswer
        && !p
            .source
            .lines()
            .any(|l| markdown::is_code_start(l, req.language))
}

fn locate<'a>(req: &ExtractRequest, all: &'a [Parsed], main: usize) -> Found<'a> {
    let p = &all[main];
    if is_prose(req, p) {
        return nothing_defined(req, p);
    }
    let ep = req.entry_point.as_str();
    let items = &p.items;
    let defines = |k: ItemKind| items.iter().any(|i| i.kind == k);
    // The entry point is probably inside the text the parser gave up on.
    let mentions_entry = || {
        let keyword = match req.language {
            Language::Python => "def ",
            Language::Javascript => "function ",
            Language::Java => " ",
        };
        let decl = format!("{keyword}{ep}(");
        let decl_spaced = format!("{keyword}{ep} (");
        !ep.is_empty()
            && p.has_error
            && items.iter().any(|i| {
                i.kind == ItemKind::Error && {
                    let t = &p.source[i.range.clone()];
                    t.contains(&decl) || t.contains(&decl_spaced)
                }
            })
    };
    match (shape(req), req.language) {
        (Shape::Class, _) => {
            let class = req.class_name.as_deref().unwrap_or(ep);
            if let Some(idx) = items
                .iter()
                .rposition(|i| i.kind == ItemKind::Class && i.names.iter().any(|n| n == class))
            {
                let item = &items[idx];
                if ep.is_empty() || ep == class {
                    return Found::Item(idx, None);
                }
                return match item.methods.iter().rev().find(|m| m.name == ep) {
                    Some(m) => Found::Item(idx, Some(m)),
                    None => Found::Missing(
                        Reason::MissingEntryPoint,
                        format!("class `{class}` has no method `{ep}`"),
                    ),
                };
            }
            let header = [
                format!("class {class}:"),
                format!("class {class}("),
                format!("class {class} {{"),
            ];
            if items.iter().any(|i| {
                i.kind == ItemKind::Error
                    && header
                        .iter()
                        .any(|h| p.source[i.range.clone()].contains(h.as_str()))
            }) {
                return Found::Missing(Reason::SyntaxError, syntax_detail(p));
            }
            if defines(ItemKind::Function) || defines(ItemKind::Class) {
                return Found::Missing(
                    Reason::MissingEntryPoint,
                    format!("no class `{class}` is defined"),
                );
            }
            nothing_defined(req, p)
        }
        (_, Language::Java) => {
            let wanted = req.class_name.as_deref();
            let mut elsewhere = None;
            for (idx, item) in items.iter().enumerate().rev() {
                if item.kind != ItemKind::Class {
                    continue;
                }
                let Some(m) = item.methods.iter().rev().find(|m| m.name == ep) else {
                    continue;
                };
                match wanted {
                    Some(w) if !item.names.iter().any(|n| n == w) => {
                        elsewhere = Some(item.names.first().cloned().unwrap_or_default());
                    }
                    _ => return Found::Item(idx, Some(m)),
                }
            }
            if let Some(other) = elsewhere {
                return Found::Missing(
                    Reason::MissingEntryPoint,
                    format!(
                        "method `{ep}` is in class `{other}`, expected class `{}`",
                        wanted.unwrap_or_default()
                    ),
                );
            }
            if let Some(w) = wanted
                && items
                    .iter()
                    .any(|i| i.kind == ItemKind::Class && i.names.iter().any(|n| n == w))
            {
                return Found::Missing(
                    Reason::MissingEntryPoint,
                    format!("class `{w}` has no method `{ep}`"),
                );
            }
            if mentions_entry() {
                return Found::Missing(Reason::SyntaxError, syntax_detail(p));
            }
            if defines(ItemKind::Class) || defines(ItemKind::Function) {
                return Found::Missing(
                    Reason::MissingEntryPoint,
                    format!("no method `{ep}` is defined"),
                );
            }
            nothing_defined(req, p)
        }
        _ => {
            match binding(all, main, ep) {
                Some(Ok((idx, f))) => return Found::Item(idx, Some(f)),
                Some(Err(detail)) => return Found::Missing(Reason::MissingEntryPoint, detail),
                None => {}
            }
            if let Some(class) = items
                .iter()
                .find(|i| i.kind == ItemKind::Class && i.methods.iter().any(|m| m.name == ep))
            {
                return Found::Missing(
                    Reason::ClassInsteadOfFunction,
                    format!(
                        "`{ep}` is a method of class `{}`, not a top-level function",
                        class.names.first().map(String::as_str).unwrap_or("?")
                    ),
                );
            }
            if mentions_entry() {
                return Found::Missing(Reason::SyntaxError, syntax_detail(p));
            }
            if defines(ItemKind::Function) || defines(ItemKind::Class) {
                let names: Vec<&str> = items
                    .iter()
                    .filter(|i| i.kind == ItemKind::Function)
                    .flat_map(|i| i.names.iter().map(String::as_str))
                    .take(5)
                    .collect();
                return Found::Missing(
                    Reason::MissingEntryPoint,
                    if names.is_empty() {
                        format!("no function `{ep}` is defined")
                    } else {
                        format!("no function `{ep}` is defined (found {})", names.join(", "))
                    },
                );
            }
            nothing_defined(req, p)
        }
    }
}

fn nothing_defined(req: &ExtractRequest, p: &Parsed) -> Found<'static> {
    if is_prose(req, p) {
        return Found::Missing(
            Reason::NoCode,
            format!("no {} code found in the answer", req.language),
        );
    }
    let statements = p
        .items
        .iter()
        .filter(|i| matches!(i.kind, ItemKind::Script | ItemKind::Assign | ItemKind::Main))
        .count();
    if p.has_error {
        Found::Missing(Reason::SyntaxError, syntax_detail(p))
    } else if statements > 0 {
        Found::Missing(
            Reason::ScriptWithoutFunction,
            format!("the code is a script of {statements} statement(s) without a function"),
        )
    } else {
        Found::Missing(Reason::NoCode, "the code block holds no statements".into())
    }
}

fn syntax_detail(p: &Parsed) -> String {
    match p.first_error {
        Some((line, col)) => format!("syntax error at line {line}, column {col}"),
        None => "syntax error".into(),
    }
}

/// Judges candidate `main` of `all`, with the others as helper sources.
fn judge(req: &ExtractRequest, all: &[Parsed], main: usize) -> Outcome {
    judge_inner(req, all, main, true)
}

fn judge_inner(req: &ExtractRequest, all: &[Parsed], main: usize, may_wrap: bool) -> Outcome {
    let p = &all[main];
    if shape(req) == Shape::Tests {
        return judge_tests(req, p);
    }
    // Wrapping happens once: unbalanced braces can leave the method outside the class again.
    if req.language == Language::Java
        && may_wrap
        && let Some(wrapped) = wrap_java_methods(req, p)
    {
        let mut outcome = judge_inner(req, std::slice::from_ref(&wrapped), 0, false);
        outcome.notes.push(format!(
            "wrapped the method(s) in class `{}`",
            req.class_name.as_deref().unwrap_or(DEFAULT_JAVA_CLASS)
        ));
        return outcome;
    }
    let (idx, method) = match locate(req, all, main) {
        Found::Item(idx, m) => (idx, m),
        Found::Missing(reason, detail) => return Outcome::fail(reason, detail, p.origin),
    };
    let entry = &p.items[idx];
    let func = method.or(entry.function.as_ref());
    if entry.has_error {
        let mut o = Outcome::fail(Reason::SyntaxError, syntax_detail(p), p.origin);
        o.code = p.source.clone();
        return o;
    }
    let mut notes = Vec::new();
    let code = assemble(req, all, main, idx, &mut notes);
    let mut outcome = Outcome {
        code,
        reason: None,
        detail: None,
        notes,
        origin: p.origin,
    };
    if let Some(f) = func
        && let Some(problem) = check_signature(req, f)
    {
        outcome.reason = Some(Reason::SignatureMismatch);
        outcome.detail = Some(problem);
        return outcome;
    }
    if req.category == Category::DocumentationGeneration {
        let documented = match func {
            Some(f) => f.has_doc,
            None => false,
        };
        if !documented {
            outcome.reason = Some(Reason::MissingEntryPoint);
            outcome.detail = Some(format!(
                "`{}` has no doc comment (a documentation answer must document the entry point)",
                req.entry_point
            ));
        }
    }
    outcome
}

const DEFAULT_JAVA_CLASS: &str = "Solution";

/// Java answers that give only methods: put them into the class the task names.
fn wrap_java_methods(req: &ExtractRequest, p: &Parsed) -> Option<Parsed> {
    let has_loose_entry = p.items.iter().any(|i| {
        i.kind == ItemKind::Function
            && i.function
                .as_ref()
                .is_some_and(|f| f.name == req.entry_point)
    });
    if !has_loose_entry {
        return None;
    }
    let class = req.class_name.as_deref().unwrap_or(DEFAULT_JAVA_CLASS);
    let mut imports = String::new();
    let mut body = String::new();
    for item in &p.items {
        match item.kind {
            ItemKind::Import => {
                imports.push_str(&item.emit(&p.source));
                imports.push('\n');
            }
            ItemKind::Script if p.source[item.range.clone()].starts_with("package ") => {}
            _ => {
                body.push_str(&item.emit(&p.source));
                body.push('\n');
            }
        }
    }
    let source = format!("{imports}\nclass {class} {{\n{body}}}\n");
    let tree = syntax::parse(Language::Java, &source).ok()?;
    let root = tree.root_node();
    Some(Parsed {
        has_error: root.has_error(),
        first_error: syntax::first_error(root),
        items: items::items(Language::Java, &tree, &source),
        source,
        origin: p.origin,
    })
}

/// Builds the final code: the entry point's item, the imports, and every definition it
/// reaches by name (from its own block first, then from the other blocks). Script code
/// (calls, prints, `__main__` blocks, example usage) is dropped.
fn assemble(
    req: &ExtractRequest,
    all: &[Parsed],
    main: usize,
    entry: usize,
    notes: &mut Vec<String>,
) -> String {
    let mut definers: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for (b, p) in all.iter().enumerate() {
        if b != main && all[b].origin != all[main].origin {
            continue;
        }
        for (i, item) in p.items.iter().enumerate() {
            if item.has_error
                || !matches!(
                    item.kind,
                    ItemKind::Function | ItemKind::Class | ItemKind::Assign
                )
            {
                continue;
            }
            for n in &item.names {
                definers.entry(n.as_str()).or_default().push((b, i));
            }
        }
    }
    let mut keep: HashSet<(usize, usize)> = HashSet::new();
    keep.insert((main, entry));
    let entry_item = &all[main].items[entry];
    let mut resolved: HashSet<&str> = HashSet::new();
    for n in &entry_item.names {
        resolved.insert(n.as_str());
    }
    // An export that binds the entry point is emitted as a declaration of it, so the
    // harness finds the name whatever module system it loads the code with.
    let export = entry_item
        .exports
        .iter()
        .rev()
        .find(|e| e.name == req.entry_point)
        .filter(|_| !entry_item.names.contains(&req.entry_point));
    let mut work: Vec<&str> = match export {
        Some(e) => {
            resolved.insert(e.name.as_str());
            e.refs.iter().map(String::as_str).collect()
        }
        None => entry_item.refs.iter().map(String::as_str).collect(),
    };
    while let Some(name) = work.pop() {
        if !resolved.insert(name) {
            continue;
        }
        let Some(defs) = definers.get(name) else {
            continue;
        };
        // Definitions in the entry point's own block win over those in other blocks.
        let local: Vec<(usize, usize)> = defs.iter().copied().filter(|(b, _)| *b == main).collect();
        let chosen = if local.is_empty() {
            defs.iter()
                .copied()
                .filter(|(b, _)| *b == defs[defs.len() - 1].0)
                .collect()
        } else {
            local
        };
        for key in chosen {
            if keep.insert(key) {
                work.extend(all[key.0].items[key.1].refs.iter().map(String::as_str));
            }
        }
    }
    let used: HashSet<&str> = keep
        .iter()
        .filter(|key| export.is_none() || **key != (main, entry))
        .flat_map(|(b, i)| all[*b].items[*i].refs.iter().map(String::as_str))
        .chain(
            export
                .iter()
                .flat_map(|e| e.refs.iter().map(String::as_str)),
        )
        .collect();
    // Imports: all of the main block's, and those of other blocks that bind a used name.
    let mut import_keys = Vec::new();
    for (b, p) in all.iter().enumerate() {
        for (i, item) in p.items.iter().enumerate() {
            if item.kind != ItemKind::Import || item.has_error {
                continue;
            }
            if b == main || item.names.iter().any(|n| used.contains(n.as_str())) {
                import_keys.push((b, i));
            }
        }
    }
    let mut seen_imports = HashSet::new();
    let mut out = String::new();
    for (b, i) in import_keys {
        let t = all[b].items[i].emit(&all[b].source);
        if seen_imports.insert(t.clone()) {
            out.push_str(&t);
            out.push('\n');
        }
    }
    let mut order: Vec<(usize, usize)> = keep.into_iter().collect();
    // Helpers from other blocks first (they may be base classes), then the main block.
    order.sort_by_key(|(b, i)| (*b == main, *b, *i));
    let mut dropped = 0usize;
    for (i, item) in all[main].items.iter().enumerate() {
        if !order.contains(&(main, i)) && !matches!(item.kind, ItemKind::Import | ItemKind::Comment)
        {
            dropped += 1;
        }
    }
    let helpers = order.iter().filter(|(b, _)| *b != main).count();
    let initializers: usize = order
        .iter()
        .map(|(b, i)| all[*b].items[*i].dropped_initializers)
        .sum();
    for (b, i) in order {
        if !out.is_empty() {
            out.push('\n');
        }
        match export {
            Some(e) if (b, i) == (main, entry) => {
                let value = all[b].source.get(e.value.clone()).unwrap_or_default();
                out.push_str(&format!("const {} = {value};", e.name));
                notes.push(format!("declared the exported `{}` as a constant", e.name));
            }
            _ => out.push_str(&all[b].items[i].emit(&all[b].source)),
        }
        out.push('\n');
    }
    if initializers > 0 {
        notes.push(format!(
            "dropped {initializers} static initializer(s) that touch no static field"
        ));
    }
    if dropped > 0 {
        notes.push(format!(
            "dropped {dropped} top-level item(s) the entry point does not use"
        ));
    }
    if helpers > 0 {
        notes.push(format!(
            "took {helpers} helper definition(s) from other code blocks"
        ));
    }
    if req.language == Language::Java && all[main].items.iter().any(|i| !i.cuts.is_empty()) {
        notes.push("removed `public` from top-level classes".into());
    }
    out
}

/// Checks the entry point's parameters (and, for Java, types) against the task's signature.
fn check_signature(req: &ExtractRequest, f: &FnInfo) -> Option<String> {
    let sig = req.signature.as_ref()?;
    let wanted = sig.params.len();
    let p = &f.params;
    let total = p.required + p.optional;
    if p.required_keyword > 0 {
        return Some(format!(
            "`{}` has {} required keyword-only parameter(s); the tests call it with {wanted} positional argument(s)",
            f.name, p.required_keyword
        ));
    }
    if wanted < p.required || (wanted > total && !p.variadic) {
        return Some(format!(
            "`{}` takes {}{} parameter(s), the task passes {wanted}",
            f.name,
            if p.optional > 0 {
                format!("{}..{}", p.required, total)
            } else {
                p.required.to_string()
            },
            if p.variadic { "+" } else { "" }
        ));
    }
    if req.language == Language::Java {
        for (i, (param, got)) in sig.params.iter().zip(&p.types).enumerate() {
            if let (Some(want), Some(got)) = (&param.ty, got)
                && normalise_java_type(want) != normalise_java_type(got)
            {
                return Some(format!(
                    "parameter {} of `{}` is `{got}`, the task declares `{want}`",
                    i + 1,
                    f.name
                ));
            }
        }
        if let (Some(want), Some(got)) = (&sig.returns, &f.returns)
            && normalise_java_type(want) != normalise_java_type(got)
        {
            return Some(format!(
                "`{}` returns `{got}`, the task declares `{want}`",
                f.name
            ));
        }
    }
    None
}

/// Drops whitespace and package qualifiers: `java.util.List< Integer >` → `List<Integer>`.
pub fn normalise_java_type(ty: &str) -> String {
    let compact: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = String::with_capacity(compact.len());
    let mut segment = String::new();
    for c in compact.chars() {
        if c.is_alphanumeric() || c == '_' || c == '$' {
            segment.push(c);
        } else if c == '.' && segment.starts_with(|s: char| s.is_lowercase()) {
            segment.clear();
        } else {
            out.push_str(&segment);
            segment.clear();
            out.push(c);
        }
    }
    out.push_str(&segment);
    out
}

/// Unit-test answers: at least one test; the answer's own copy of the code under test is
/// removed so the tests run against the reference and its faulty variants.
fn judge_tests(req: &ExtractRequest, p: &Parsed) -> Outcome {
    let ep = req.entry_point.as_str();
    let is_test_fn = |f: &FnInfo| match req.language {
        Language::Python => f.name.starts_with("test"),
        Language::Javascript => false,
        Language::Java => f.name.starts_with("test") && f.is_static,
    };
    let java_test_annotated = |item: &Item| {
        req.language == Language::Java && p.source[item.range.clone()].contains("@Test")
    };
    let mut tests = 0usize;
    let mut out = String::new();
    let mut removed = Vec::new();
    for item in &p.items {
        if item.has_error
            || matches!(
                item.kind,
                ItemKind::Error | ItemKind::Main | ItemKind::Comment
            )
        {
            continue;
        }
        let is_under_test = match (req.language, item.kind) {
            (Language::Java, ItemKind::Class) => {
                req.class_name
                    .as_deref()
                    .is_some_and(|c| item.names.iter().any(|n| n == c))
                    && !item.methods.iter().any(is_test_fn)
                    && !java_test_annotated(item)
            }
            (_, ItemKind::Function) => item.names.iter().any(|n| n == ep),
            // `add = my_add` defines the entry point as much as `def add` does.
            (_, ItemKind::Assign) => item.aliases.iter().any(|(n, _)| n == ep),
            _ => false,
        };
        if is_under_test {
            removed.push(item.names.join(", "));
            continue;
        }
        let count = item.function.iter().filter(|f| is_test_fn(f)).count()
            + item.methods.iter().filter(|f| is_test_fn(f)).count()
            + usize::from(item.is_test_call)
            + usize::from(item.kind == ItemKind::Class && java_test_annotated(item));
        tests += count;
        let keep = match (req.language, item.kind) {
            // Python scripts would run (or `unittest.main()` exit) at import time.
            (Language::Python, ItemKind::Script) => false,
            (Language::Java, ItemKind::Script) => false,
            _ => true,
        };
        if keep {
            out.push_str(&item.emit(&p.source));
            out.push('\n');
        }
    }
    let mut notes = Vec::new();
    if !removed.is_empty() {
        notes.push(format!(
            "removed the answer's own definition of `{}` (tests run against the task's code)",
            removed.join("`, `")
        ));
    }
    if tests == 0 {
        let what = match req.language {
            Language::Python => "no `test_*` functions",
            Language::Javascript => "no `test(...)`/`it(...)` calls",
            Language::Java => "no static `test*` methods",
        };
        let reason = if p.has_error {
            Reason::SyntaxError
        } else {
            Reason::MissingEntryPoint
        };
        let detail = if p.has_error {
            format!("{} ({what})", syntax_detail(p))
        } else {
            format!("the answer has {what}")
        };
        let mut o = Outcome::fail(reason, detail, p.origin);
        o.code = out;
        o.notes = notes;
        return o;
    }
    Outcome {
        code: out,
        reason: None,
        detail: None,
        notes,
        origin: p.origin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_types_are_compared_without_qualifiers_and_spaces() {
        assert_eq!(
            normalise_java_type("java.util.List< Integer >"),
            "List<Integer>"
        );
        assert_eq!(normalise_java_type("int [ ]"), "int[]");
        assert_eq!(
            normalise_java_type("Map<String, java.lang.Integer>"),
            "Map<String,Integer>"
        );
    }
}
