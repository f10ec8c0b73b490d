//! Issue 21, point 7, through the binary: prose is `no_code` in every language, also when the
//! task's prompt is a function on its own, and `check` judges an answer as `run` does (with
//! the prompt a completion-style answer continues).

mod common;

use std::io::Write;

use anyhow::Context;
use common::passrate;

const PROSE: &str = "I cannot help with that.\n";

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> anyhow::Result<std::path::PathBuf> {
    let path = dir.path().join(name);
    let mut f = fs_err::File::create(&path)?;
    f.write_all(text.as_bytes())?;
    Ok(path)
}

/// `passrate check --json` on `answer`; the verdict's JSON.
fn check(task: &str, lang: &str, answer: &str) -> anyhow::Result<serde_json::Value> {
    let dir = tempfile::tempdir()?;
    let file = write(&dir, "answer.txt", answer)?;
    let out = passrate()
        .args(["check", "--task", task, "--lang", lang, "--json"])
        .arg(&file)
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "check {task} {lang} exited {:?}: {}{stdout}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).with_context(|| format!("check printed {stdout}"))
}

#[test]
fn prose_is_no_code_even_when_the_prompt_is_a_function() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let prompt = write(
        &dir,
        "p.py",
        "def add(a, b):\n    \"\"\"Return the sum of a and b.\"\"\"\n",
    )?;
    let answer = write(&dir, "answer.txt", PROSE)?;
    let out = passrate()
        .args([
            "extract",
            "--lang",
            "python",
            "--entry-point",
            "add",
            "--json",
        ])
        .arg("--prompt")
        .arg(&prompt)
        .arg(&answer)
        .output()?;
    assert!(out.status.success(), "{out:?}");
    let e: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(e["compliant"], false, "{e}");
    assert_eq!(e["reason"], "no_code", "{e}");
    Ok(())
}

/// `check` used to judge without the prompt (`run` with it), so a body continuation failed in
/// `check` and passed in `run`; with the prompt, prose must still be `no_code`.
#[test]
fn check_judges_with_the_prompt_so_bodies_pass_and_prose_is_no_code() -> anyhow::Result<()> {
    // What a completion-style model (CodeGen, the MBXP samples) writes: only the body.
    let bodies = [
        (
            "humaneval/0",
            "python",
            "    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n            if abs(a - b) < threshold:\n                return True\n    return False\n",
        ),
        (
            "mbpp/105",
            "javascript",
            "    return lst.filter((x) => x === true).length;\n}\n",
        ),
        (
            "mbpp/105",
            "java",
            "        int n = 0;\n        for (Boolean b : lst) {\n            if (b) {\n                n++;\n            }\n        }\n        return n;\n    }\n}\n",
        ),
    ];
    for (task, lang, body) in bodies {
        let v = check(task, lang, body)?;
        assert_eq!(v["verdict"], "pass", "{task} {lang}: {v}");
        let v = check(task, lang, PROSE)?;
        assert_eq!(v["reason"], "no_code", "{task} {lang}: {v}");
        assert_eq!(v["verdict"], "fail", "{task} {lang}: {v}");
    }
    Ok(())
}
