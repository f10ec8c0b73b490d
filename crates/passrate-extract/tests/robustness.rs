//! Never panic, never hang: arbitrary bytes, huge answers, deep nesting, many fences.

use std::time::{Duration, Instant};

use passrate_extract::{ExtractRequest, extract};
use passrate_schema::{Category, Language, Reason};
use proptest::prelude::*;

fn requests() -> Vec<ExtractRequest> {
    let mut out = Vec::new();
    for language in Language::ALL {
        for category in [
            Category::FunctionCompletion,
            Category::UnitTestWriting,
            Category::DocumentationGeneration,
        ] {
            let mut r = ExtractRequest::new(language, "f");
            r.category = category;
            if language == Language::Java {
                r.class_name = Some("Solution".into());
            }
            out.push(r);
        }
    }
    let mut class_task = ExtractRequest::new(Language::Python, "Stack");
    class_task.class_name = Some("Stack".into());
    out.push(class_task);
    let mut completion = ExtractRequest::new(Language::Python, "f");
    completion.prompt = Some("def f(x):\n".into());
    out.push(completion);
    out
}

/// Fragments that steer random answers into the interesting paths.
const FRAGMENTS: [&str; 16] = [
    "```python\n",
    "```\n",
    "~~~\n",
    "````markdown\n",
    "def f(x):\n",
    "    return x\n",
    "class Solution {\n",
    "public static int f(int x) {",
    "}\n",
    "function f(a) {",
    "### Response:",
    "\r\n",
    "\u{0}",
    "\"\"\"",
    "/**",
    "(((((",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..2048)) {
        for req in requests() {
            let e = extract(&req, &raw);
            prop_assert_eq!(e.compliant, e.reason.is_none());
            prop_assert!(e.reason.is_none_or(Reason::is_noncompliant));
        }
    }

    #[test]
    fn arbitrary_fragment_mixes_never_panic(
        parts in proptest::collection::vec((0..FRAGMENTS.len(), "[ -~\n]{0,12}"), 0..40)
    ) {
        let mut raw = String::new();
        for (i, filler) in parts {
            raw.push_str(FRAGMENTS[i]);
            raw.push_str(&filler);
        }
        for req in requests() {
            let e = extract(&req, raw.as_bytes());
            prop_assert_eq!(e.compliant, e.reason.is_none());
        }
    }
}

fn timed(req: &ExtractRequest, raw: &[u8]) -> (passrate_extract::Extraction, Duration) {
    let start = Instant::now();
    let e = extract(req, raw);
    (e, start.elapsed())
}

#[test]
fn ten_megabytes_of_code_are_refused_quickly() {
    let unit = "def g(x):\n    return x + 1\n\n";
    let huge = unit.repeat(10 * 1024 * 1024 / unit.len());
    let (e, took) = timed(&ExtractRequest::new(Language::Python, "f"), huge.as_bytes());
    assert!(!e.compliant);
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn ten_megabytes_of_junk_around_a_small_block_still_extract() {
    let mut raw = vec![0xffu8; 5 * 1024 * 1024];
    raw.extend_from_slice(b"\n```python\ndef f(x):\n    return x\n```\n");
    raw.extend(std::iter::repeat_n(b'z', 5 * 1024 * 1024));
    let (e, took) = timed(&ExtractRequest::new(Language::Python, "f"), &raw);
    assert!(e.compliant, "{:?}", e.detail);
    assert_eq!(e.code, "def f(x):\n    return x\n");
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn many_small_fences_stay_bounded() {
    let raw = "```python\ndef g():\n    pass\n```\ntext\n".repeat(20_000);
    let (e, took) = timed(&ExtractRequest::new(Language::Python, "f"), raw.as_bytes());
    assert_eq!(e.reason, Some(Reason::MissingEntryPoint));
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[test]
fn deeply_nested_code_and_fences_do_not_overflow() {
    for language in Language::ALL {
        let deep = format!(
            "```\n{}\n```\n{}",
            "(".repeat(100_000),
            "````markdown\n".repeat(1_000)
        );
        let e = extract(&ExtractRequest::new(language, "f"), deep.as_bytes());
        assert!(!e.compliant);
        let nested = format!(
            "def f(x):\n    return {}x{}\n",
            "[".repeat(20_000),
            "]".repeat(20_000)
        );
        let e = extract(
            &ExtractRequest::new(Language::Python, "f"),
            nested.as_bytes(),
        );
        assert!(e.compliant, "{:?}", e.detail);
    }
}

#[test]
fn binary_junk_is_no_code() {
    let junk: Vec<u8> = (0..=255u8).cycle().take(64 * 1024).collect();
    let e = extract(&ExtractRequest::new(Language::Python, "f"), &junk);
    assert!(!e.compliant);
}

/// Regression: unbalanced braces left the wrapped method outside the class again, and
/// wrapping recursed until the stack overflowed.
#[test]
fn java_method_wrapping_with_unbalanced_braces_terminates() {
    let mut req = ExtractRequest::new(Language::Java, "f");
    req.class_name = Some("Solution".into());
    let raw = "}\npublic static int f(int x) {}\n}\npublic static int f(int x) {";
    let e = extract(&req, raw.as_bytes());
    assert_eq!(e.compliant, e.reason.is_none());
}
