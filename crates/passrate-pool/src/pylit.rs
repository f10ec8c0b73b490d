//! A parser for Python literal expressions (what `ast.literal_eval` accepts, plus `inf`,
//! `nan`, `float('…')`, `set()` and `math.inf`), producing typed values. Datasets that give
//! their inputs as Python source (EvalPlus `inputs = […]`) keep their tuples and sets this
//! way, which JSON would lose.

use passrate_schema::{Integer, Value};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid Python literal at byte {at}: {message}")]
pub struct LiteralError {
    pub at: usize,
    pub message: String,
}

/// Parses one literal expression; trailing whitespace and comments are allowed.
pub fn parse(text: &str) -> Result<Value, LiteralError> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
        depth: 0,
    };
    let v = p.expr()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("unexpected text after the literal"));
    }
    Ok(v)
}

/// Parses the literal starting at `text[start..]`, returning it and the byte offset after it.
pub fn parse_prefix(text: &str, start: usize) -> Result<(Value, usize), LiteralError> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: start,
        depth: 0,
    };
    let v = p.expr()?;
    Ok((v, p.i))
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, message: &str) -> LiteralError {
        LiteralError {
            at: self.i,
            message: message.to_owned(),
        }
    }

    fn ws(&mut self) {
        while self.i < self.s.len() {
            match self.s[self.i] {
                b' ' | b'\t' | b'\n' | b'\r' => self.i += 1,
                b'\\' if self.s.get(self.i + 1) == Some(&b'\n') => self.i += 2,
                b'#' => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self) -> Result<Value, LiteralError> {
        self.depth += 1;
        if self.depth > 150 {
            return Err(self.err("nested too deeply"));
        }
        let v = self.unary();
        self.depth -= 1;
        let mut v = v?;
        // Implicit concatenation of adjacent string literals.
        loop {
            self.ws();
            let save = self.i;
            match (&v, self.peek_string()) {
                (Value::Str(a), true) => {
                    let b = self.atom()?;
                    match b {
                        Value::Str(b) => v = Value::Str(format!("{a}{b}")),
                        _ => {
                            self.i = save;
                            break;
                        }
                    }
                }
                _ => break,
            }
        }
        Ok(v)
    }

    fn peek_string(&self) -> bool {
        let mut j = self.i;
        while j < self.s.len() && matches!(self.s[j], b'r' | b'R' | b'u' | b'U') && j - self.i < 2 {
            j += 1;
        }
        matches!(self.s.get(j), Some(b'"') | Some(b'\''))
    }

    fn unary(&mut self) -> Result<Value, LiteralError> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'-') => {
                self.i += 1;
                let v = self.unary()?;
                negate(v).ok_or_else(|| self.err("unary minus on a non-number"))
            }
            Some(b'+') => {
                self.i += 1;
                let v = self.unary()?;
                match v {
                    Value::Int(_) | Value::Float(_) => Ok(v),
                    _ => Err(self.err("unary plus on a non-number")),
                }
            }
            _ => self.atom(),
        }
    }

    fn seq(&mut self, close: u8) -> Result<(Vec<Value>, bool), LiteralError> {
        let mut items = Vec::new();
        let mut trailing_comma = false;
        loop {
            if self.eat(close) {
                return Ok((items, trailing_comma));
            }
            items.push(self.expr()?);
            trailing_comma = false;
            if self.eat(b',') {
                trailing_comma = true;
                continue;
            }
            if self.eat(close) {
                return Ok((items, trailing_comma));
            }
            return Err(self.err("expected `,` or a closing bracket"));
        }
    }

    fn atom(&mut self) -> Result<Value, LiteralError> {
        self.ws();
        let Some(&c) = self.s.get(self.i) else {
            return Err(self.err("unexpected end of input"));
        };
        match c {
            b'[' => {
                self.i += 1;
                Ok(Value::List(self.seq(b']')?.0))
            }
            b'(' => {
                self.i += 1;
                let (items, trailing) = self.seq(b')')?;
                if items.len() == 1 && !trailing {
                    Ok(items.into_iter().next().expect("one item"))
                } else {
                    Ok(Value::Tuple(items))
                }
            }
            b'{' => {
                self.i += 1;
                if self.eat(b'}') {
                    return Ok(Value::Map(Vec::new()));
                }
                let first = self.expr()?;
                if self.eat(b':') {
                    let mut pairs = vec![(first, self.expr()?)];
                    loop {
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.err("expected `,` or `}` in a dict"));
                        }
                        if self.eat(b'}') {
                            break;
                        }
                        let k = self.expr()?;
                        if !self.eat(b':') {
                            return Err(self.err("expected `:` in a dict"));
                        }
                        pairs.push((k, self.expr()?));
                    }
                    // A later duplicate key replaces the earlier value, as in Python.
                    let mut unique: Vec<(Value, Value)> = Vec::with_capacity(pairs.len());
                    for (k, v) in pairs {
                        if let Some(slot) = unique.iter_mut().find(|(uk, _)| *uk == k) {
                            slot.1 = v;
                        } else {
                            unique.push((k, v));
                        }
                    }
                    Ok(Value::Map(unique))
                } else {
                    let mut items = vec![first];
                    if self.eat(b',') {
                        items.extend(self.seq(b'}')?.0);
                    } else if !self.eat(b'}') {
                        return Err(self.err("expected `,` or `}` in a set"));
                    }
                    let mut unique: Vec<Value> = Vec::with_capacity(items.len());
                    for item in items {
                        if !unique.contains(&item) {
                            unique.push(item);
                        }
                    }
                    Ok(Value::Set(unique))
                }
            }
            b'"' | b'\'' => self.string(false),
            b'0'..=b'9' | b'.' => self.number(),
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.i;
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.')
                {
                    self.i += 1;
                }
                let word = &self.text[start..self.i];
                if matches!(self.s.get(self.i), Some(b'"') | Some(b'\''))
                    && matches!(word, "r" | "R" | "u" | "U")
                {
                    return self.string(word.eq_ignore_ascii_case("r"));
                }
                match word {
                    "None" => Ok(Value::Null),
                    "True" => Ok(Value::Bool(true)),
                    "False" => Ok(Value::Bool(false)),
                    "inf" | "math.inf" | "np.inf" => Ok(Value::Float(f64::INFINITY)),
                    "nan" | "math.nan" | "np.nan" => Ok(Value::Float(f64::NAN)),
                    "float" | "set" | "tuple" | "list" | "dict" | "frozenset" => self.call(word),
                    _ => Err(LiteralError {
                        at: start,
                        message: format!("`{word}` is not a literal"),
                    }),
                }
            }
            _ => Err(self.err("unexpected character")),
        }
    }

    fn call(&mut self, name: &str) -> Result<Value, LiteralError> {
        if !self.eat(b'(') {
            return Err(self.err("expected `(`"));
        }
        let (args, _) = self.seq(b')')?;
        let items = |v: Option<Value>| -> Option<Vec<Value>> {
            match v {
                None => Some(Vec::new()),
                Some(Value::List(x) | Value::Tuple(x) | Value::Set(x)) => Some(x),
                Some(Value::Str(s)) => Some(s.chars().map(|c| Value::Str(c.into())).collect()),
                _ => None,
            }
        };
        if args.len() > 1 {
            return Err(self.err("constructor with more than one argument"));
        }
        let arg = args.into_iter().next();
        let bad = || self.err(&format!("unsupported {name}(…) argument"));
        match name {
            "float" => match arg {
                Some(Value::Str(s)) => match s.trim().to_ascii_lowercase().as_str() {
                    "inf" | "+inf" | "infinity" => Ok(Value::Float(f64::INFINITY)),
                    "-inf" | "-infinity" => Ok(Value::Float(f64::NEG_INFINITY)),
                    "nan" => Ok(Value::Float(f64::NAN)),
                    other => other.parse().map(Value::Float).map_err(|_| bad()),
                },
                Some(Value::Int(i)) => Ok(Value::Float(i.to_f64())),
                Some(Value::Float(f)) => Ok(Value::Float(f)),
                None => Ok(Value::Float(0.0)),
                _ => Err(bad()),
            },
            "set" | "frozenset" => {
                let mut unique = Vec::new();
                for item in items(arg).ok_or_else(bad)? {
                    if !unique.contains(&item) {
                        unique.push(item);
                    }
                }
                Ok(Value::Set(unique))
            }
            "tuple" => Ok(Value::Tuple(items(arg).ok_or_else(bad)?)),
            "list" => Ok(Value::List(items(arg).ok_or_else(bad)?)),
            "dict" => match arg {
                None => Ok(Value::Map(Vec::new())),
                Some(Value::Map(m)) => Ok(Value::Map(m)),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }

    fn number(&mut self) -> Result<Value, LiteralError> {
        let start = self.i;
        let s = self.s;
        if s[self.i] == b'0'
            && matches!(
                s.get(self.i + 1),
                Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B')
            )
        {
            let radix = match s[self.i + 1] {
                b'x' | b'X' => 16,
                b'o' | b'O' => 8,
                _ => 2,
            };
            self.i += 2;
            let digits_start = self.i;
            while self.i < s.len() && (s[self.i].is_ascii_alphanumeric() || s[self.i] == b'_') {
                self.i += 1;
            }
            let digits: String = self.text[digits_start..self.i].replace('_', "");
            let n = i128::from_str_radix(&digits, radix).map_err(|_| self.err("bad integer"))?;
            return Ok(Value::Int(Integer::parse(&n.to_string()).expect("decimal")));
        }
        let mut is_float = false;
        while self.i < s.len() {
            match s[self.i] {
                b'0'..=b'9' | b'_' => self.i += 1,
                b'.' => {
                    is_float = true;
                    self.i += 1;
                }
                b'e' | b'E' => {
                    is_float = true;
                    self.i += 1;
                    if matches!(s.get(self.i), Some(b'+' | b'-')) {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
        if matches!(s.get(self.i), Some(b'j' | b'J')) {
            return Err(self.err("complex numbers are not supported"));
        }
        let text = self.text[start..self.i].replace('_', "");
        if is_float {
            text.parse::<f64>()
                .map(Value::Float)
                .map_err(|_| self.err("bad float"))
        } else {
            Integer::parse(&text)
                .map(Value::Int)
                .ok_or_else(|| self.err("bad integer"))
        }
    }

    fn string(&mut self, raw: bool) -> Result<Value, LiteralError> {
        let quote = self.s[self.i];
        let triple =
            self.s.get(self.i + 1) == Some(&quote) && self.s.get(self.i + 2) == Some(&quote);
        self.i += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return Err(self.err("unterminated string"));
            };
            if c == quote {
                if !triple {
                    self.i += 1;
                    break;
                }
                if self.s.get(self.i + 1) == Some(&quote) && self.s.get(self.i + 2) == Some(&quote)
                {
                    self.i += 3;
                    break;
                }
            }
            if c == b'\n' && !triple {
                return Err(self.err("newline in a string"));
            }
            if c == b'\\' && !raw {
                self.i += 1;
                let Some(&e) = self.s.get(self.i) else {
                    return Err(self.err("unterminated escape"));
                };
                self.i += 1;
                match e {
                    b'\n' => {}
                    b'n' => out.push('\n'),
                    b't' => out.push('\t'),
                    b'r' => out.push('\r'),
                    b'0'..=b'7' => {
                        let mut n = u32::from(e - b'0');
                        for _ in 0..2 {
                            match self.s.get(self.i) {
                                Some(d @ b'0'..=b'7') => {
                                    n = n * 8 + u32::from(d - b'0');
                                    self.i += 1;
                                }
                                _ => break,
                            }
                        }
                        out.push(char::from_u32(n).ok_or_else(|| self.err("bad octal escape"))?);
                    }
                    b'a' => out.push('\x07'),
                    b'b' => out.push('\x08'),
                    b'f' => out.push('\x0c'),
                    b'v' => out.push('\x0b'),
                    b'x' | b'u' | b'U' => {
                        let len = match e {
                            b'x' => 2,
                            b'u' => 4,
                            _ => 8,
                        };
                        let hex = self
                            .text
                            .get(self.i..self.i + len)
                            .ok_or_else(|| self.err("short escape"))?;
                        let n = u32::from_str_radix(hex, 16).map_err(|_| self.err("bad escape"))?;
                        out.push(char::from_u32(n).ok_or_else(|| self.err("bad code point"))?);
                        self.i += len;
                    }
                    b'\\' | b'\'' | b'"' => out.push(e as char),
                    other => {
                        out.push('\\');
                        self.i -= 1;
                        let _ = other;
                    }
                }
                continue;
            }
            // Copy one whole UTF-8 character.
            let ch = self.text[self.i..].chars().next().expect("in bounds");
            out.push(ch);
            self.i += ch.len_utf8();
        }
        Ok(Value::Str(out))
    }
}

fn negate(v: Value) -> Option<Value> {
    match v {
        Value::Int(i) => {
            let text = i.as_str();
            let negated = match text.strip_prefix('-') {
                Some(rest) => rest.to_owned(),
                None => format!("-{text}"),
            };
            Integer::parse(&negated).map(Value::Int)
        }
        Value::Float(f) => Some(Value::Float(-f)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_python_types() {
        let v = parse("[(1, 2), {'a': -1.5}, {3}, set(), None, True, 'x\\ny', (5,), ()]").unwrap();
        assert_eq!(
            v,
            Value::List(vec![
                Value::Tuple(vec![Value::int(1), Value::int(2)]),
                Value::Map(vec![(Value::str("a"), Value::Float(-1.5))]),
                Value::Set(vec![Value::int(3)]),
                Value::Set(vec![]),
                Value::Null,
                Value::Bool(true),
                Value::str("x\ny"),
                Value::Tuple(vec![Value::int(5)]),
                Value::Tuple(vec![]),
            ])
        );
    }

    #[test]
    fn big_ints_and_special_floats() {
        assert_eq!(
            parse("123456789012345678901234567890").unwrap(),
            Value::Int(Integer::parse("123456789012345678901234567890").unwrap())
        );
        assert_eq!(parse("-inf").unwrap(), Value::Float(f64::NEG_INFINITY));
        assert_eq!(parse("float('inf')").unwrap(), Value::Float(f64::INFINITY));
        assert!(matches!(parse("nan").unwrap(), Value::Float(f) if f.is_nan()));
        assert_eq!(parse("1e-3").unwrap(), Value::Float(0.001));
        assert_eq!(parse("0x1F").unwrap(), Value::int(31));
    }

    #[test]
    fn strings_with_escapes_and_prefixes() {
        assert_eq!(parse(r#"'it\'s'"#).unwrap(), Value::str("it's"));
        assert_eq!(parse(r#"r'\d+'"#).unwrap(), Value::str("\\d+"));
        assert_eq!(parse(r#""\x41\u00e9""#).unwrap(), Value::str("Aé"));
        assert_eq!(parse("'''a\nb'''").unwrap(), Value::str("a\nb"));
        assert_eq!(parse("'a' 'b'").unwrap(), Value::str("ab"));
    }

    #[test]
    fn rejects_non_literals() {
        assert!(parse("foo(1)").is_err());
        assert!(parse("[1, 2").is_err());
        assert!(parse("1 + 2").is_err());
        assert!(parse("3j").is_err());
    }
}
