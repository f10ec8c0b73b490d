//! What the sandbox's Java compile paths emit: string concatenation as StringBuilder calls
//! (`-XDstringConcat=inline`), never invokedynamic, whose first bootstrap costs each
//! short-lived JVM tens of ms. Checked on both paths: the warm compiler and a javac step.

mod common;

use passrate_sandbox::{ExecRequest, ExecStatus, InputFile, Program};

fn request() -> ExecRequest {
    let mut req = ExecRequest::single(Program::Javac {
        sources: vec!["Concat.java".into()],
        archive: false,
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

/// A Java program that prints the VM's info string, which says "sharing" when the JVM mapped
/// a class-data-sharing archive (the JDK's default one, `-Xshare:auto`).
fn vm_info_request() -> ExecRequest {
    let mut req = ExecRequest::single(Program::Javac {
        sources: vec!["Info.java".into()],
        archive: false,
    });
    req.steps.push(Program::Java {
        main_class: "Info".into(),
        args: vec![],
    });
    req.files.push(InputFile {
        path: "Info.java".into(),
        contents: b"public class Info { public static void main(String[] a) { System.out.println(System.getProperty(\"java.vm.info\")); } }".to_vec(),
        executable: false,
    });
    req
}

#[test]
fn java_in_the_jail_starts_from_a_class_data_sharing_archive() {
    // Mapping the archive can fail silently (the JVM then loads every class from the
    // modules file, ~2x slower to start); inside the jail it must not.
    let j = common::jail();
    let warm = j.run(&vm_info_request());
    let fresh = j
        .sandbox
        .execute_fresh_jail(&vm_info_request())
        .expect("the sandbox itself must not fail");
    j.assert_nothing_survives();
    for out in [&warm, &fresh] {
        assert_eq!(out.status, ExecStatus::Ok, "{out:?}");
        assert!(common::stdout(out).contains("sharing"), "{out:?}");
    }
}
