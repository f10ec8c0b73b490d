//! Literal calls and values written in source form, as documentation examples give them
//! (`f(1, [2, 3])`, `hasCloseElements(Arrays.asList(1.0, 2.0), 0.5)`, `{'a': 1}`), turned
//! into typed [`Value`]s with tree-sitter. Only literals are accepted: a name, an operator
//! other than unary minus, or any other call is refused, so nothing but data comes out.

use passrate_schema::{Integer, Language, Value};
use tree_sitter::Node;

use crate::syntax::{self, text};

/// A call `callee(args…)` with literal arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct LiteralCall {
    /// The called function's name (for `Solution.f(…)` / `new Solution().f(…)`, `f`).
    pub callee: String,
    /// The receiver as written, when the call is a method call (`Solution`, `s`,
    /// `new Solution()`); Python and JavaScript examples must call the function bare.
    pub receiver: Option<String>,
    pub args: Vec<Value>,
}

/// Why a call or value is not a literal one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LiteralError {
    #[error("not a call expression: `{0}`")]
    NotACall(String),
    #[error("`{0}` is not a literal")]
    NotALiteral(String),
    #[error("cannot parse `{0}`")]
    Syntax(String),
}

/// The single expression `source` parses to, as a node of `tree`.
fn expression<'t>(
    language: Language,
    tree: &'t tree_sitter::Tree,
    wrapped: &str,
) -> Result<Node<'t>, LiteralError> {
    let root = tree.root_node();
    if root.has_error() {
        return Err(LiteralError::Syntax(wrapped.to_owned()));
    }
    let found = match language {
        Language::Python | Language::Javascript => {
            let mut c = root.walk();
            let statements: Vec<Node<'t>> = root
                .named_children(&mut c)
                .filter(|n| !syntax::is_comment(*n))
                .collect();
            match statements.as_slice() {
                [s] if s.kind() == "expression_statement" && s.named_child_count() == 1 => {
                    s.named_child(0)
                }
                _ => None,
            }
        }
        Language::Java => {
            // `class X { Object x = <expr>; }`: the declarator's value.
            let mut found = None;
            syntax::walk(root, |n| {
                if found.is_none() && n.kind() == "variable_declarator" {
                    found = n.child_by_field_name("value");
                }
                found.is_none()
            });
            found
        }
    };
    found.ok_or_else(|| LiteralError::Syntax(wrapped.to_owned()))
}

fn wrap(language: Language, source: &str) -> String {
    match language {
        Language::Python => source.trim().to_owned(),
        // Parenthesised so that `{…}` is an object, not a block.
        Language::Javascript => format!("({});", source.trim()),
        Language::Java => format!("class PassrateExample {{ Object x = {}; }}", source.trim()),
    }
}

fn unwrap_parens(mut node: Node<'_>) -> Node<'_> {
    while node.kind() == "parenthesized_expression" && node.named_child_count() == 1 {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// Parses `source` as one call of a function with literal arguments.
pub fn parse_call(language: Language, source: &str) -> Result<LiteralCall, LiteralError> {
    let wrapped = wrap(language, source);
    let tree = syntax::parse(language, &wrapped)
        .map_err(|_| LiteralError::Syntax(source.trim().to_owned()))?;
    let node = unwrap_parens(expression(language, &tree, source.trim())?);
    let code = wrapped.as_str();
    let (callee, receiver, args) = match (language, node.kind()) {
        (Language::Python, "call") | (Language::Javascript, "call_expression") => {
            let function = node
                .child_by_field_name("function")
                .ok_or_else(|| LiteralError::NotACall(source.trim().to_owned()))?;
            let (callee, receiver) = match function.kind() {
                "identifier" => (text(function, code).to_owned(), None),
                "attribute" | "member_expression" => {
                    let name = function
                        .child_by_field_name("attribute")
                        .or_else(|| function.child_by_field_name("property"))
                        .map(|n| text(n, code).to_owned())
                        .unwrap_or_default();
                    let object = function
                        .child_by_field_name("object")
                        .map(|n| text(n, code).to_owned());
                    (name, object)
                }
                _ => (text(function, code).to_owned(), Some(String::new())),
            };
            (callee, receiver, node.child_by_field_name("arguments"))
        }
        (Language::Java, "method_invocation") => {
            let name = node
                .child_by_field_name("name")
                .map(|n| text(n, code).to_owned())
                .unwrap_or_default();
            let receiver = node
                .child_by_field_name("object")
                .map(|n| text(n, code).to_owned());
            (name, receiver, node.child_by_field_name("arguments"))
        }
        _ => return Err(LiteralError::NotACall(source.trim().to_owned())),
    };
    let args = match args {
        Some(list) => arguments(language, list, code)?,
        None => Vec::new(),
    };
    Ok(LiteralCall {
        callee,
        receiver,
        args,
    })
}

/// Parses `source` as one literal value.
pub fn parse_value(language: Language, source: &str) -> Result<Value, LiteralError> {
    let wrapped = wrap(language, source);
    let tree = syntax::parse(language, &wrapped)
        .map_err(|_| LiteralError::Syntax(source.trim().to_owned()))?;
    let node = expression(language, &tree, source.trim())?;
    value(language, node, &wrapped)
}

fn arguments(language: Language, list: Node<'_>, code: &str) -> Result<Vec<Value>, LiteralError> {
    let mut c = list.walk();
    list.named_children(&mut c)
        .filter(|n| !syntax::is_comment(*n))
        .map(|n| value(language, n, code))
        .collect()
}

fn not_literal(node: Node<'_>, code: &str) -> LiteralError {
    LiteralError::NotALiteral(text(node, code).to_owned())
}

fn value(language: Language, node: Node<'_>, code: &str) -> Result<Value, LiteralError> {
    let node = unwrap_parens(node);
    let t = text(node, code);
    let items = |n: Node<'_>| -> Result<Vec<Value>, LiteralError> {
        let mut c = n.walk();
        n.named_children(&mut c)
            .filter(|x| !syntax::is_comment(*x))
            .map(|x| value(language, x, code))
            .collect()
    };
    match (language, node.kind()) {
        (Language::Python, "true") | (Language::Javascript | Language::Java, "true") => {
            Ok(Value::Bool(true))
        }
        (_, "false") => Ok(Value::Bool(false)),
        (Language::Python, "none") | (Language::Javascript, "null" | "undefined") => {
            Ok(Value::Null)
        }
        (Language::Java, "null_literal") => Ok(Value::Null),
        (Language::Python, "integer") => integer(t).ok_or_else(|| not_literal(node, code)),
        (Language::Python, "float") => float(t).ok_or_else(|| not_literal(node, code)),
        (Language::Javascript, "number") => {
            let plain = t.replace('_', "");
            if plain.bytes().all(|b| b.is_ascii_digit()) {
                integer(&plain).ok_or_else(|| not_literal(node, code))
            } else {
                float(&plain).ok_or_else(|| not_literal(node, code))
            }
        }
        (Language::Java, "decimal_integer_literal") => {
            integer(t.trim_end_matches(['l', 'L'])).ok_or_else(|| not_literal(node, code))
        }
        (Language::Java, "decimal_floating_point_literal") => {
            float(t.trim_end_matches(['f', 'F', 'd', 'D'])).ok_or_else(|| not_literal(node, code))
        }
        (Language::Python, "string") | (Language::Javascript, "string") => {
            string(language, t).ok_or_else(|| not_literal(node, code))
        }
        (Language::Javascript, "template_string") => {
            let mut c = node.walk();
            if node
                .named_children(&mut c)
                .any(|n| n.kind() == "template_substitution")
            {
                return Err(not_literal(node, code));
            }
            unescape(t.get(1..t.len().saturating_sub(1)).unwrap_or(""))
                .map(Value::Str)
                .ok_or_else(|| not_literal(node, code))
        }
        (Language::Java, "string_literal" | "character_literal") => {
            if t.starts_with("\"\"\"") {
                return Err(not_literal(node, code));
            }
            string(language, t).ok_or_else(|| not_literal(node, code))
        }
        (Language::Python, "concatenated_string") => {
            let mut out = String::new();
            for part in items(node)? {
                match part {
                    Value::Str(s) => out.push_str(&s),
                    _ => return Err(not_literal(node, code)),
                }
            }
            Ok(Value::Str(out))
        }
        (Language::Python, "unary_operator")
        | (Language::Javascript | Language::Java, "unary_expression") => {
            let operator = node
                .child_by_field_name("operator")
                .map(|o| text(o, code))
                .unwrap_or("");
            let operand = node
                .child_by_field_name("argument")
                .or_else(|| node.child_by_field_name("operand"))
                .ok_or_else(|| not_literal(node, code))?;
            match (operator, value(language, operand, code)?) {
                ("-", Value::Int(i)) => {
                    integer(&format!("-{}", i.as_str())).ok_or_else(|| not_literal(node, code))
                }
                ("-", Value::Float(x)) => Ok(Value::Float(-x)),
                ("+", v @ (Value::Int(_) | Value::Float(_))) => Ok(v),
                _ => Err(not_literal(node, code)),
            }
        }
        (Language::Python, "list") | (Language::Javascript, "array") => {
            Ok(Value::List(items(node)?))
        }
        (Language::Python, "tuple") => Ok(Value::Tuple(items(node)?)),
        (Language::Python, "set") => Ok(Value::Set(items(node)?)),
        (Language::Python, "dictionary") | (Language::Javascript, "object") => {
            let mut c = node.walk();
            let mut entries = Vec::new();
            for pair in node.named_children(&mut c) {
                if syntax::is_comment(pair) {
                    continue;
                }
                if pair.kind() != "pair" {
                    return Err(not_literal(pair, code));
                }
                let key = pair
                    .child_by_field_name("key")
                    .ok_or_else(|| not_literal(pair, code))?;
                let val = pair
                    .child_by_field_name("value")
                    .ok_or_else(|| not_literal(pair, code))?;
                let key = match (language, key.kind()) {
                    // JavaScript object keys are strings, however they are written.
                    (Language::Javascript, "property_identifier") => {
                        Value::Str(text(key, code).to_owned())
                    }
                    (Language::Javascript, "number") => Value::Str(text(key, code).to_owned()),
                    _ => value(language, key, code)?,
                };
                entries.push((key, value(language, val, code)?));
            }
            Ok(Value::Map(entries))
        }
        (Language::Java, "array_creation_expression") => {
            let init = node
                .child_by_field_name("value")
                .ok_or_else(|| not_literal(node, code))?;
            Ok(Value::List(items(init)?))
        }
        (Language::Java, "array_initializer") => Ok(Value::List(items(node)?)),
        (Language::Java, "method_invocation") => {
            let object = node
                .child_by_field_name("object")
                .map(|o| text(o, code))
                .unwrap_or("");
            let name = node
                .child_by_field_name("name")
                .map(|n| text(n, code))
                .unwrap_or("");
            let args = node
                .child_by_field_name("arguments")
                .map(|a| arguments(language, a, code))
                .transpose()?
                .unwrap_or_default();
            match (object, name) {
                ("Arrays", "asList") | ("List", "of") => Ok(Value::List(args)),
                ("Set", "of") => Ok(Value::Set(args)),
                ("Map", "of") if args.len() % 2 == 0 => {
                    let mut it = args.into_iter();
                    let mut entries = Vec::new();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        entries.push((k, v));
                    }
                    Ok(Value::Map(entries))
                }
                ("Optional", "of") if args.len() == 1 => {
                    Ok(args.into_iter().next().unwrap_or(Value::Null))
                }
                ("Optional", "empty") if args.is_empty() => Ok(Value::Null),
                _ => Err(not_literal(node, code)),
            }
        }
        (Language::Java, "object_creation_expression") => {
            // `new ArrayList<>(Arrays.asList(…))`, `new ArrayList<>()`.
            let ty = node
                .child_by_field_name("type")
                .map(|n| text(n, code))
                .unwrap_or("");
            let base = ty.split('<').next().unwrap_or("").trim();
            let args = node
                .child_by_field_name("arguments")
                .map(|a| arguments(language, a, code))
                .transpose()?
                .unwrap_or_default();
            let list_like = matches!(base, "ArrayList" | "LinkedList");
            let set_like = matches!(base, "HashSet" | "TreeSet" | "LinkedHashSet");
            match args.as_slice() {
                [] if list_like => Ok(Value::List(Vec::new())),
                [] if set_like => Ok(Value::Set(Vec::new())),
                [Value::List(xs)] if list_like => Ok(Value::List(xs.clone())),
                [Value::List(xs) | Value::Set(xs)] if set_like => Ok(Value::Set(xs.clone())),
                _ => Err(not_literal(node, code)),
            }
        }
        _ => Err(not_literal(node, code)),
    }
}

fn integer(t: &str) -> Option<Value> {
    let plain = t.replace('_', "");
    Integer::parse(&plain).map(Value::Int)
}

fn float(t: &str) -> Option<Value> {
    let plain = t.replace('_', "");
    plain.parse::<f64>().ok().map(Value::Float)
}

/// A quoted string literal's value (Python prefixes `r`/`u` allowed; bytes and f-strings
/// are not literals of a value the harnesses share).
fn string(language: Language, t: &str) -> Option<Value> {
    let mut raw = false;
    let mut rest = t;
    if language == Language::Python {
        let prefix_len = t.find(['\'', '"'])?;
        let prefix = t[..prefix_len].to_ascii_lowercase();
        match prefix.as_str() {
            "" | "u" => {}
            "r" => raw = true,
            _ => return None,
        }
        rest = &t[prefix_len..];
    }
    let quote = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|q| rest.starts_with(q) && rest.len() >= 2 * q.len() && rest.ends_with(q))?;
    let inner = &rest[quote.len()..rest.len() - quote.len()];
    if raw {
        return Some(Value::Str(inner.to_owned()));
    }
    unescape(inner).map(Value::Str)
}

/// Backslash escapes common to the three languages.
fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            '\\' | '\'' | '"' | '`' => out.push(e),
            '\n' => {}
            'x' | 'u' => {
                let n = if e == 'x' { 2 } else { 4 };
                let hex: String = (0..n).filter_map(|_| chars.next()).collect();
                let code = u32::from_str_radix(&hex, 16).ok()?;
                out.push(char::from_u32(code)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// `value` written as a literal of `language` that [`parse_value`] reads back as the same
/// value, or `None` where the language has no such literal (a tuple or set in JavaScript, a
/// tuple in Java, an empty Python set, non-finite floats, integers a JavaScript number or a
/// Java `long` cannot hold, non-string keys of a JavaScript object).
pub fn render(language: Language, value: &Value) -> Option<String> {
    let seq = |items: &[Value], open: &str, close: &str| -> Option<String> {
        let parts: Option<Vec<String>> = items.iter().map(|v| render(language, v)).collect();
        Some(format!("{open}{}{close}", parts?.join(", ")))
    };
    match (language, value) {
        (Language::Python, Value::Null) => Some("None".to_owned()),
        (Language::Javascript | Language::Java, Value::Null) => Some("null".to_owned()),
        (Language::Python, Value::Bool(b)) => Some(if *b { "True" } else { "False" }.to_owned()),
        (_, Value::Bool(b)) => Some(b.to_string()),
        (Language::Python, Value::Int(i)) => Some(i.as_str().to_owned()),
        (Language::Javascript, Value::Int(i)) => {
            let n = i.to_i64()?;
            (n.unsigned_abs() <= (1u64 << 53)).then(|| n.to_string())
        }
        (Language::Java, Value::Int(i)) => {
            let n = i.to_i64()?;
            Some(if i32::try_from(n).is_ok() {
                n.to_string()
            } else {
                format!("{n}L")
            })
        }
        (_, Value::Float(x)) if x.is_finite() => {
            // Rust's shortest round-trip form; always with a `.` or an exponent.
            let t = format!("{x:?}");
            Some(if t.contains(['.', 'e', 'E']) {
                t
            } else {
                format!("{t}.0")
            })
        }
        (_, Value::Float(_)) => None,
        (Language::Python, Value::Str(s)) => Some(quote(s, '\'')),
        (_, Value::Str(s)) => Some(quote(s, '"')),
        (Language::Python, Value::List(items)) | (Language::Javascript, Value::List(items)) => {
            seq(items, "[", "]")
        }
        (Language::Python, Value::Tuple(items)) if items.len() == 1 => {
            Some(format!("({},)", render(language, &items[0])?))
        }
        (Language::Python, Value::Tuple(items)) => seq(items, "(", ")"),
        (Language::Python, Value::Set(items)) if !items.is_empty() => seq(items, "{", "}"),
        (Language::Python, Value::Map(entries)) => {
            let parts: Option<Vec<String>> = entries
                .iter()
                .map(|(k, v)| {
                    Some(format!(
                        "{}: {}",
                        render(language, k)?,
                        render(language, v)?
                    ))
                })
                .collect();
            Some(format!("{{{}}}", parts?.join(", ")))
        }
        (Language::Javascript, Value::Map(entries)) => {
            let parts: Option<Vec<String>> = entries
                .iter()
                .map(|(k, v)| match k {
                    Value::Str(key) => {
                        Some(format!("{}: {}", quote(key, '"'), render(language, v)?))
                    }
                    _ => None,
                })
                .collect();
            Some(format!("{{{}}}", parts?.join(", ")))
        }
        (Language::Java, Value::List(items)) if items.is_empty() => Some("List.of()".to_owned()),
        (Language::Java, Value::List(items)) => seq(items, "Arrays.asList(", ")"),
        (Language::Java, Value::Set(items)) => seq(items, "Set.of(", ")"),
        (Language::Java, Value::Map(entries)) if entries.len() <= 10 => {
            let parts: Option<Vec<String>> = entries
                .iter()
                .map(|(k, v)| {
                    Some(format!(
                        "{}, {}",
                        render(language, k)?,
                        render(language, v)?
                    ))
                })
                .collect();
            Some(format!("Map.of({})", parts?.join(", ")))
        }
        _ => None,
    }
}

/// A string literal in `q` quotes with the escapes [`unescape`] reads.
fn quote(s: &str, q: char) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(xs: &[i64]) -> Value {
        Value::List(xs.iter().map(|x| Value::int(*x)).collect())
    }

    #[test]
    fn python_calls_and_values() {
        let call = parse_call(
            Language::Python,
            "f(1, [2, 3], 'a\\n', (1,), {'k': None}, -2.5, True)",
        )
        .unwrap();
        assert_eq!(call.callee, "f");
        assert_eq!(call.receiver, None);
        assert_eq!(
            call.args,
            vec![
                Value::int(1),
                ints(&[2, 3]),
                Value::str("a\n"),
                Value::Tuple(vec![Value::int(1)]),
                Value::Map(vec![(Value::str("k"), Value::Null)]),
                Value::Float(-2.5),
                Value::Bool(true),
            ]
        );
        assert_eq!(
            parse_value(Language::Python, "{1, 2}").unwrap(),
            Value::Set(vec![Value::int(1), Value::int(2)])
        );
        assert!(matches!(
            parse_call(Language::Python, "f(x)"),
            Err(LiteralError::NotALiteral(_))
        ));
        assert!(matches!(
            parse_call(Language::Python, "f(g(1))"),
            Err(LiteralError::NotALiteral(_))
        ));
        assert!(matches!(
            parse_call(Language::Python, "1 + 2"),
            Err(LiteralError::NotACall(_))
        ));
        assert!(parse_call(Language::Python, "f(1); g(2)").is_err());
        assert_eq!(
            parse_call(Language::Python, "os.system('x')")
                .unwrap()
                .receiver
                .as_deref(),
            Some("os")
        );
    }

    #[test]
    fn javascript_calls_and_values() {
        let call = parse_call(
            Language::Javascript,
            "f([1, 2.5], {a: 1, 'b': [true]}, `x`, null)",
        )
        .unwrap();
        assert_eq!(call.callee, "f");
        assert_eq!(
            call.args,
            vec![
                Value::List(vec![Value::int(1), Value::Float(2.5)]),
                Value::Map(vec![
                    (Value::str("a"), Value::int(1)),
                    (Value::str("b"), Value::List(vec![Value::Bool(true)])),
                ]),
                Value::str("x"),
                Value::Null,
            ]
        );
        assert_eq!(
            parse_value(Language::Javascript, "-3").unwrap(),
            Value::int(-3)
        );
        assert!(parse_value(Language::Javascript, "`${x}`").is_err());
        assert!(parse_call(Language::Javascript, "f(...xs)").is_err());
    }

    #[test]
    fn java_calls_and_values() {
        let call = parse_call(
            Language::Java,
            "hasCloseElements(Arrays.asList(1.0, 2.0), 0.5)",
        )
        .unwrap();
        assert_eq!(call.callee, "hasCloseElements");
        assert_eq!(
            call.args,
            vec![
                Value::List(vec![Value::Float(1.0), Value::Float(2.0)]),
                Value::Float(0.5)
            ]
        );
        let call = parse_call(
            Language::Java,
            "new Solution().f(List.of(), \"a\", 'c', 3L, new int[]{1, 2}, Map.of(\"k\", 1))",
        )
        .unwrap();
        assert_eq!(call.receiver.as_deref(), Some("new Solution()"));
        assert_eq!(
            call.args,
            vec![
                Value::List(vec![]),
                Value::str("a"),
                Value::str("c"),
                Value::int(3),
                ints(&[1, 2]),
                Value::Map(vec![(Value::str("k"), Value::int(1))]),
            ]
        );
        assert_eq!(
            parse_value(Language::Java, "Optional.empty()").unwrap(),
            Value::Null
        );
        assert!(parse_call(Language::Java, "f(System.exit(0))").is_err());
    }

    #[test]
    fn rendered_values_read_back_the_same() {
        let samples = vec![
            Value::Null,
            Value::Bool(false),
            Value::int(-7),
            Value::Int(Integer::parse("123456789012345678901234567890").unwrap()),
            Value::int(1 << 40),
            Value::Float(0.1),
            Value::Float(-2.0),
            Value::Float(1e-7),
            Value::str("it's \"q\"\n\t\\ é"),
            Value::List(vec![]),
            Value::List(vec![Value::int(1), Value::List(vec![Value::str("a")])]),
            Value::Tuple(vec![Value::int(1)]),
            Value::Tuple(vec![Value::int(1), Value::Float(2.5)]),
            Value::Set(vec![Value::int(3)]),
            Value::Map(vec![(
                Value::str("k"),
                Value::List(vec![Value::Bool(true)]),
            )]),
            Value::Map(vec![(Value::int(1), Value::Null)]),
        ];
        let mut rendered = 0;
        for language in Language::ALL {
            for v in &samples {
                let Some(text) = render(language, v) else {
                    continue;
                };
                rendered += 1;
                assert_eq!(
                    parse_value(language, &text).as_ref(),
                    Ok(v),
                    "{language}: {text}"
                );
            }
        }
        assert!(rendered >= 38, "{rendered}");
        assert_eq!(render(Language::Javascript, &Value::Tuple(vec![])), None);
        assert_eq!(render(Language::Java, &Value::Float(f64::NAN)), None);
        assert_eq!(
            render(Language::Java, &Value::int(1 << 40)).unwrap(),
            "1099511627776L"
        );
    }
}
