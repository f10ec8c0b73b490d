//! Decoding raw response bytes into normalised text, and cutting off echoed prompts.

/// Markers after which chat and instruction models put their answer when they echo the
/// prompt (Alpaca/WizardCoder/CodeLlama `### Response:`, Llama `[/INST]`, ChatML, …).
const RESPONSE_MARKERS: [&str; 8] = [
    "### Response:",
    "### Response",
    "[/INST]",
    "<|im_start|>assistant",
    "<|assistant|>",
    "### Assistant:",
    "@@ Response",
    "<start_of_turn>model",
];

/// Turns raw bytes into text: invalid UTF-8 becomes U+FFFD, a leading BOM is dropped, CRLF
/// and lone CR become LF, NUL bytes are removed (no grammar accepts them and they confuse
/// line handling).
pub fn decode(raw: &[u8]) -> String {
    let lossy = String::from_utf8_lossy(raw);
    let text = lossy.strip_prefix('\u{feff}').unwrap_or(&lossy);
    let needs_work = memchr::memchr2(b'\r', 0, text.as_bytes()).is_some();
    if !needs_work {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('\n');
            }
            '\0' => {}
            _ => out.push(c),
        }
    }
    out
}

/// The part of `text` after the last echoed-prompt marker, if there is one.
///
/// The last marker wins: an echoed few-shot prompt can contain earlier responses.
pub fn strip_echo(text: &str) -> (&str, bool) {
    let mut best: Option<usize> = None;
    for marker in RESPONSE_MARKERS {
        if let Some(pos) = text.rfind(marker) {
            let end = pos + marker.len();
            if best.is_none_or(|b| end > b) {
                best = Some(end);
            }
        }
    }
    match best {
        Some(end) => (text[end..].trim_start_matches([':', ' ']), true),
        None => (text, false),
    }
}

/// Removes the indentation common to all non-blank lines (like Python's `textwrap.dedent`).
pub fn dedent(text: &str) -> String {
    let common = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    if common == 0 {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let cut = line
            .bytes()
            .take(common)
            .take_while(|b| *b == b' ' || *b == b'\t')
            .count();
        out.push_str(&line[cut..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_normalises_line_endings_and_bad_bytes() {
        assert_eq!(decode(b"a\r\nb\rc\n"), "a\nb\nc\n");
        assert_eq!(decode(b"\xef\xbb\xbfx\x00y\xff"), "xy\u{fffd}");
    }

    #[test]
    fn strip_echo_takes_text_after_the_last_marker() {
        let (rest, echoed) = strip_echo("### Instruction:\nq\n### Response: a\n### Response:b");
        assert!(echoed);
        assert_eq!(rest, "b");
        assert_eq!(strip_echo("plain"), ("plain", false));
    }

    #[test]
    fn dedent_removes_common_indentation() {
        assert_eq!(dedent("  a\n\n    b\n"), "a\n\n  b\n");
    }
}
