//! What the sandbox's Java compile paths emit: string concatenation as StringBuilder calls
//! (`-XDstringConcat=inline`), never invokedynamic, whose first bootstrap costs each
//! short-lived JVM tens of ms. Checked on both paths: the warm compiler and a javac step.

mod common;

use passrate_sandbox::{ExecRequest, ExecStatus, InputFile, Program};

fn request() -> ExecRequest {
    let mut req = ExecRequest::single(Program::Javac {
        sources: vec!["Concat.java".into()],
    });
    req.steps.push(Program::Exec {
        path: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            "has() { grep -q \"$1\" Concat.class && echo yes || echo no; }; \
             echo indy=$(has makeConcatWithConstants) builder=$(has java/lang/StringBuilder)"
                .into(),
        ],
    });
    req.files.push(InputFile {
        path: "Concat.java".into(),
        contents: b"class Concat { static String f(int x) { return \"x=\" + x; } }".to_vec(),
        executable: false,
    });
    req
}

fn assert_inline(out: &passrate_sandbox::ExecOutcome) {
    assert_eq!(out.status, ExecStatus::Ok, "{out:?}");
    assert_eq!(common::stdout(out).trim(), "indy=no builder=yes", "{out:?}");
}

#[test]
fn the_warm_compiler_emits_no_invokedynamic_string_concatenation() {
    let j = common::jail();
    assert_inline(&j.run(&request()));
}

#[test]
fn a_javac_step_emits_no_invokedynamic_string_concatenation() {
    let j = common::jail();
    let out = j
        .sandbox
        .execute_fresh_jail(&request())
        .expect("the sandbox itself must not fail");
    j.assert_nothing_survives();
    assert_inline(&out);
}
