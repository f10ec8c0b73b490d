//! Language adapters: the embedded harness sources and how each language's execution is laid
//! out in the sandbox (files, compile step, run step).

use passrate_sandbox::{InputFile, Program};
use passrate_schema::Language;

/// The Python harness (run as `python3 -I -B`).
pub const PYTHON_HARNESS: &str = include_str!("../harness/harness.py");
/// The Node.js harness (CommonJS; loads CommonJS and ESM candidates).
pub const NODE_HARNESS: &str = include_str!("../harness/harness.js");
/// The Java harness (compiled beside the candidate with `javac -proc:none`).
pub const JAVA_HARNESS: &str = include_str!("../harness/PassrateHarness.java");

/// The classes of the Java harness's class-data archive (see the file's header).
pub(crate) const JAVA_HARNESS_CLASS_LIST: &str =
    include_str!("../harness/PassrateHarness.classlist");

const PY_HARNESS_FILE: &str = "passrate_harness.py";
/// The same harness as bytecode (a `.pyc` runpy and `python3 file` both load as is).
const PY_HARNESS_PYC: &str = "passrate_harness.pyc";
const JS_HARNESS_FILE: &str = "passrate_harness.cjs";
const JAVA_HARNESS_FILE: &str = "PassrateHarness.java";
const JAVA_HARNESS_CLASS: &str = "PassrateHarness";

/// The files and steps of one execution, before limits and the request are attached.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub files: Vec<InputFile>,
    pub steps: Vec<Program>,
    /// The candidate's file name, as the harness is told.
    pub candidate_file: String,
    /// Steps before the run step (Java's compile).
    pub compile_steps: usize,
    /// The class the harness loads (Java: always set; others: sequence tests' class).
    pub class: Option<String>,
    /// The files the run step reads before its request (the harness): the sandbox may start
    /// it ahead of time with only these (`ExecRequest::prestart`).
    pub prestart: Option<Vec<String>>,
}

pub(crate) fn file(path: &str, contents: &str) -> InputFile {
    InputFile {
        path: path.to_owned(),
        contents: contents.as_bytes().to_vec(),
        executable: false,
    }
}

/// Lays out an execution of `source` (candidate or reference) with an optional check file.
pub(crate) fn layout(
    language: Language,
    source: &str,
    class: Option<&str>,
    check: Option<&str>,
) -> Layout {
    python_layout_with(language, source, class, check, None)
}

/// [`layout`], with the Python harness as the bytecode of [`python_harness_build`] when given
/// (compiling the harness's source took ~2.5 ms of every execution's CPU).
pub(crate) fn python_layout_with(
    language: Language,
    source: &str,
    class: Option<&str>,
    check: Option<&str>,
    pyc: Option<&[u8]>,
) -> Layout {
    match language {
        Language::Python => {
            let (harness, script) = match pyc {
                Some(bytes) => (
                    InputFile {
                        path: PY_HARNESS_PYC.to_owned(),
                        contents: bytes.to_vec(),
                        executable: false,
                    },
                    PY_HARNESS_PYC,
                ),
                None => (file(PY_HARNESS_FILE, PYTHON_HARNESS), PY_HARNESS_FILE),
            };
            let mut files = vec![harness, file("solution.py", source)];
            if let Some(check) = check {
                files.push(file("check.py", check));
            }
            Layout {
                files,
                steps: vec![Program::Python {
                    script: script.to_owned(),
                    args: Vec::new(),
                }],
                candidate_file: "solution.py".to_owned(),
                compile_steps: 0,
                class: class.map(str::to_owned),
                prestart: None,
            }
        }
        Language::Javascript => {
            let mut files = vec![
                file(JS_HARNESS_FILE, NODE_HARNESS),
                file("solution.js", source),
            ];
            if let Some(check) = check {
                files.push(file("check.js", check));
            }
            Layout {
                files,
                steps: vec![Program::Node {
                    script: JS_HARNESS_FILE.to_owned(),
                    args: Vec::new(),
                }],
                candidate_file: "solution.js".to_owned(),
                compile_steps: 0,
                class: class.map(str::to_owned),
                prestart: Some(vec![JS_HARNESS_FILE.to_owned()]),
            }
        }
        Language::Java => java_layout(source, class, None),
    }
}

/// Lays out a Java execution. With `prebuilt` (the harness's class files, compiled once),
/// only the candidate is compiled: javac then checks one small file instead of the harness's
/// ~800 lines each time. The caller decides when prebuilt classes are safe to use
/// ([`may_use_prebuilt`]).
pub(crate) fn java_layout(
    source: &str,
    class: Option<&str>,
    prebuilt: Option<&[InputFile]>,
) -> Layout {
    {
        {
            let (file_name, package) = java_file_name(source);
            let class = class.unwrap_or("Solution");
            let qualified = match package {
                Some(p) => format!("{p}.{class}"),
                None => class.to_owned(),
            };
            // With the harness prebuilt, the run can be pre-started: its JVM needs only the
            // harness's classes until the request (and the candidate's classes) arrive.
            let prestart = prebuilt.map(|classes| classes.iter().map(|f| f.path.clone()).collect());
            let (files, sources) = match prebuilt {
                Some(classes) => {
                    let mut files = vec![file(&file_name, source)];
                    files.extend(classes.iter().cloned());
                    (files, vec![file_name.clone()])
                }
                None => (
                    vec![
                        file(&file_name, source),
                        file(JAVA_HARNESS_FILE, JAVA_HARNESS),
                    ],
                    vec![file_name.clone(), JAVA_HARNESS_FILE.to_owned()],
                ),
            };
            Layout {
                files,
                steps: vec![
                    Program::Javac {
                        sources,
                        archive: false,
                    },
                    Program::Java {
                        main_class: JAVA_HARNESS_CLASS.to_owned(),
                        args: Vec::new(),
                    },
                ],
                candidate_file: file_name,
                compile_steps: 1,
                class: Some(qualified),
                prestart,
            }
        }
    }
}

/// Whether a candidate may be compiled alone beside the prebuilt harness classes. A candidate
/// that names the harness could, compiled alone, emit class files that replace the harness's
/// (compiled together, the duplicate is a compile error), so any mention of the name, and any
/// unicode escape (javac decodes `\u0050` before reading identifiers), keeps the old layout.
pub(crate) fn may_use_prebuilt(source: &str) -> bool {
    !source.contains(JAVA_HARNESS_CLASS) && !source.contains("\\u")
}

/// The request that compiles the harness alone and prints each class file as
/// `name\nhex bytes\n` (od is in every jail; the host decodes it in [`parse_class_dump`]).
pub(crate) fn java_harness_build() -> (Vec<InputFile>, Vec<Program>) {
    (
        vec![file(JAVA_HARNESS_FILE, JAVA_HARNESS)],
        vec![
            Program::Javac {
                sources: vec![JAVA_HARNESS_FILE.to_owned()],
                archive: false,
            },
            Program::Exec {
                path: "/bin/sh".to_owned(),
                args: vec![
                    "-c".to_owned(),
                    "for f in *.class; do echo \"$f\"; od -An -v -tx1 \"$f\" | tr -d ' \\n'; echo; done"
                        .to_owned(),
                ],
            },
        ],
    )
}

/// The request that compiles the Python harness once, in the sandbox's own interpreter (so
/// the bytecode's magic number matches), and prints the `.pyc` as hex on stdout. Only the
/// trusted harness source is involved.
pub(crate) fn python_harness_build() -> (Vec<InputFile>, Vec<Program>) {
    const BUILD: &str = "import importlib.util, marshal, sys\n\
with open('passrate_harness.py', encoding='utf-8') as f:\n    src = f.read()\n\
code = compile(src, 'passrate_harness.py', 'exec', dont_inherit=True)\n\
sys.stdout.write((importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code)).hex())\n";
    (
        vec![
            file(PY_HARNESS_FILE, PYTHON_HARNESS),
            file("passrate_build.py", BUILD),
        ],
        vec![Program::Python {
            script: "passrate_build.py".to_owned(),
            args: Vec::new(),
        }],
    )
}

/// Decodes the hex `.pyc` of [`python_harness_build`]; `None` if anything is off. The header
/// is magic (4 bytes), flags 0 (an unchecked, timestamp-less pyc: runpy ignores the rest).
pub(crate) fn parse_pyc_hex(stdout: &[u8]) -> Option<Vec<u8>> {
    let hex = std::str::from_utf8(stdout).ok()?.trim();
    if !hex.len().is_multiple_of(2) || hex.len() < 34 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    // A CPython magic number ends in \r\n; the 12 header bytes after it are zero.
    (bytes[2..4] == *b"\r\n" && bytes[4..16].iter().all(|&b| b == 0)).then_some(bytes)
}

/// Decodes the dump of [`java_harness_build`]; `None` if anything is off.
pub(crate) fn parse_class_dump(stdout: &[u8]) -> Option<Vec<InputFile>> {
    let text = std::str::from_utf8(stdout).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() || !lines.len().is_multiple_of(2) {
        return None;
    }
    let mut files = Vec::new();
    for pair in lines.chunks(2) {
        let (name, hex) = (pair[0], pair[1]);
        let stem = name.strip_suffix(".class")?;
        if !(stem == JAVA_HARNESS_CLASS || stem.starts_with("PassrateHarness$"))
            || hex.len() % 2 != 0
        {
            return None;
        }
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        if !bytes.starts_with(&[0xca, 0xfe, 0xba, 0xbe]) {
            return None;
        }
        files.push(InputFile {
            path: name.to_owned(),
            contents: bytes,
            executable: false,
        });
    }
    files
        .iter()
        .any(|f| f.path == format!("{JAVA_HARNESS_CLASS}.class"))
        .then_some(files)
}

/// A Java source file must be named after its public top-level type, if it has one.
pub(crate) fn java_file_name(source: &str) -> (String, Option<String>) {
    let mut package = None;
    let mut public = None;
    let mut depth = 0i32;
    for line in strip_java_comments(source).lines() {
        let trimmed = line.trim_start();
        if depth == 0 {
            if let Some(rest) = trimmed.strip_prefix("package ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '.' || *c == '_')
                    .collect();
                if !name.is_empty() {
                    package = Some(name);
                }
            }
            if public.is_none() {
                public = public_type_name(trimmed);
            }
        }
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
        }
    }
    let name = public.unwrap_or_else(|| "Solution".to_owned());
    (format!("{name}.java"), package)
}

fn public_type_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    if words.next()? != "public" {
        return None;
    }
    while let Some(w) = words.next() {
        match w {
            "final" | "abstract" | "static" | "sealed" | "strictfp" => continue,
            "class" | "interface" | "enum" | "record" => {
                let name: String = words
                    .next()?
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                    .collect();
                return (!name.is_empty()).then_some(name);
            }
            _ => return None,
        }
    }
    None
}

/// Removes comments and string contents so that braces and keywords inside them do not count.
pub(crate) fn strip_java_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            '"' | '\'' => {
                let quote = c;
                out.push(quote);
                let mut escaped = false;
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == quote {
                        break;
                    }
                }
                out.push(quote);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Names the harness splices into code (JavaScript) or looks up must be plain identifiers.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn only_a_well_formed_pyc_dump_is_accepted() {
        let good = format!("a70d0d0a{}e3", "00".repeat(12));
        assert_eq!(parse_pyc_hex(good.as_bytes()).map(|b| b.len()), Some(17));
        assert!(parse_pyc_hex(b"").is_none());
        assert!(parse_pyc_hex(format!("a70d0d0b{}e3", "00".repeat(12)).as_bytes()).is_none());
        assert!(parse_pyc_hex(format!("a70d0d0a{}e3", "01".repeat(12)).as_bytes()).is_none());
        assert!(parse_pyc_hex(b"a70d0d0a000000000000000000000000000000000zz").is_none());
    }

    #[test]
    fn java_files_are_named_after_their_public_class() {
        assert_eq!(java_file_name("class Solution {}").0, "Solution.java");
        assert_eq!(
            java_file_name(
                "import java.util.*;\npublic final class Main {\n public class Inner {}\n}"
            )
            .0,
            "Main.java"
        );
        let (name, package) =
            java_file_name("// public class Fake {}\npackage a.b;\npublic class X {}");
        assert_eq!(name, "X.java");
        assert_eq!(package.as_deref(), Some("a.b"));
        assert_eq!(
            java_file_name("class A { String s = \"public class B {\"; }").0,
            "Solution.java"
        );
    }

    #[test]
    fn prebuilt_harness_is_refused_to_candidates_that_could_name_it() {
        assert!(may_use_prebuilt("class Solution { int f() { return 1; } }"));
        assert!(!may_use_prebuilt("class PassrateHarness {}"));
        assert!(!may_use_prebuilt(
            "class Solution {} class PassrateHarness$Enc {}"
        ));
        assert!(!may_use_prebuilt("class \\u0050assrateHarness {}"));
    }

    #[test]
    fn class_dumps_decode_only_harness_class_files() {
        let good = b"PassrateHarness.class\ncafebabe00\nPassrateHarness$Enc.class\ncafebabe01\n";
        let files = parse_class_dump(good).expect("decodes");
        assert_eq!(files.len(), 2);
        assert_eq!(files[0].contents, vec![0xca, 0xfe, 0xba, 0xbe, 0x00]);
        assert!(parse_class_dump(b"Other.class\ncafebabe\n").is_none());
        assert!(parse_class_dump(b"PassrateHarness.class\ncafeba\n").is_none());
        assert!(parse_class_dump(b"PassrateHarness.class\ncafebabe0\n").is_none());
        assert!(parse_class_dump(b"PassrateHarness$A.class\ncafebabe\n").is_none());
        assert!(parse_class_dump(b"").is_none());
    }

    /// A candidate taking every parameter kind the harness decodes into (and nothing else:
    /// what its own code loads is not the harness's).
    const CLASS_LIST_CANDIDATE: &str = "import java.util.*;\n\
        class Solution {\n\
          public static Object f(List<Integer> a, Map<String, Long> b, Set<String> c, \
        TreeSet<Integer> d, TreeMap<String, Double> e, long[] g, Optional<Integer> h, \
        String i, boolean j, double k, Object l) { return a; }\n\
        }\n";
    const CLASS_LIST_REQUEST: &str = r#"{"nonce":"n","mode":"call","entry":"f","class":"Solution","file":"Solution.java","tests":[{"args":[[{"int":"1"}],{"map":[["x",{"int":"2"}]]},{"set":["y"]},{"set":[{"int":"3"}]},{"map":[["z",{"float":1.5}]]},[{"int":"4"}],null,"s",true,{"float":"nan"},{"tuple":[{"int":"5"}]}]},{"args":["x",null,null,null,null,null,null,null,false,{"int":"1"},null]}]}"#;

    /// Whether `java` on PATH is JDK 17, whose class lists are committed (the class-list
    /// tests skip other JDKs, saying so).
    pub(crate) fn java_17_here() -> bool {
        let Ok(version) = std::process::Command::new("java").arg("-version").output() else {
            eprintln!("no java: skipped");
            return false;
        };
        let is_17 = String::from_utf8_lossy(&version.stderr).contains("version \"17.");
        if !is_17 {
            eprintln!("not JDK 17: skipped");
        }
        is_17
    }

    /// `java` with the runs' options running `main_class` in `dir` as the sandbox does
    /// (request on fd 3 from `request.json`, frames on fd 4 to `frames`), dumping the classes
    /// it loads to `dump`: how the class-list tests see what a run loads.
    pub(crate) fn class_list_run(
        dir: &std::path::Path,
        class_path: &str,
        main_class: &str,
        dump: &std::path::Path,
    ) -> std::process::Command {
        let mut java = std::process::Command::new("/bin/sh");
        java.current_dir(dir)
            .arg("-c")
            .arg(r#"exec "$@" 3<request.json 4>frames"#)
            .arg("sh")
            .arg("java")
            .args(passrate_sandbox::runtimes::java_run_options(30))
            .arg(format!("-XX:DumpLoadedClassList={}", dump.display()))
            .args(["-cp", class_path, main_class]);
        java
    }

    /// The archive's class list covers what harness runs load (its header says how it is
    /// made): a JDK class missing from it is parsed from the runtime image at every run. The
    /// list is JDK 17's; other JDKs skip the check.
    #[test]
    fn the_java_class_list_covers_harness_runs() {
        use std::process::Command;
        if !java_17_here() {
            return;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        fs_err::write(d.join(JAVA_HARNESS_FILE), JAVA_HARNESS).expect("write");
        fs_err::write(d.join("Solution.java"), CLASS_LIST_CANDIDATE).expect("write");
        fs_err::write(d.join("request.json"), CLASS_LIST_REQUEST).expect("write");
        let javac = Command::new("javac")
            .current_dir(d)
            .args(passrate_sandbox::runtimes::javac_options())
            .args(["-d", ".", JAVA_HARNESS_FILE, "Solution.java"])
            .output()
            .expect("javac runs");
        assert!(javac.status.success(), "{javac:?}");
        let listed: std::collections::HashSet<&str> = JAVA_HARNESS_CLASS_LIST
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with('@'))
            .collect();
        let mut missing = Vec::new();
        for prestarted in [false, true] {
            let dump = d.join(format!("run-{prestarted}.lst"));
            let mut java = class_list_run(d, ".", JAVA_HARNESS_CLASS, &dump);
            if prestarted {
                java.env("PASSRATE_PRESTARTED", "1");
            }
            let out = java.output().expect("java runs");
            assert!(out.status.success(), "{out:?}");
            let frames = fs_err::read_to_string(d.join("frames")).expect("frames");
            // Both tests ran: the decoded call, and arguments that do not decode.
            assert!(
                frames.contains(r#"{"test":1,"result":{"error""#),
                "{frames}"
            );
            for line in fs_err::read_to_string(&dump).expect("class list").lines() {
                let name = line.split(' ').next().unwrap_or_default();
                if line.starts_with('@')
                    || line.starts_with('#')
                    || name.starts_with("Solution")
                    || name.starts_with(JAVA_HARNESS_CLASS)
                    || listed.contains(name)
                    || missing.contains(&name.to_owned())
                {
                    continue;
                }
                missing.push(name.to_owned());
            }
        }
        assert!(
            missing.is_empty(),
            "harness runs load JDK classes PassrateHarness.classlist lacks (regenerate it as \
             its header says): {missing:?}"
        );
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("has_close_elements"));
        assert!(is_identifier("$x1"));
        assert!(!is_identifier("1x"));
        assert!(!is_identifier("a; process.exit()"));
        assert!(!is_identifier(""));
    }
}
