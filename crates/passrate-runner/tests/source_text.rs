//! The Python harness reads a candidate's file as UTF-8 text with universal newlines, what
//! `open(path, encoding="utf-8").read()` gives: Windows and old-Mac line endings, inside
//! strings too, and non-ASCII literals reach the candidate's code unchanged.

mod common;

use common::{assert_passes, call, int, task, variant};
use passrate_schema::{Language, Value};

#[test]
fn python_candidates_with_crlf_or_cr_line_endings_and_non_ascii_text_load_as_written() {
    // A triple-quoted string spanning a CRLF, and a lone CR ending a line: the source's
    // newlines become "\n" in the string, as in any Python file.
    let code = "def f(k):\r\n    s = '''caf\u{e9}\r\nna\u{ef}ve'''\r    return s if k == 0 else len(s)\r\n";
    let t = task(
        "source/newlines",
        vec![(Language::Python, variant("f", None, code))],
        vec![
            call(vec![int(0)], Value::Str("caf\u{e9}\nna\u{ef}ve".into())),
            call(vec![int(1)], int(10)),
        ],
    );
    assert_passes(&t, Language::Python, code);
}
