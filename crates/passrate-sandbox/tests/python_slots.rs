//! What a warm Python slot's fork server gives each execution: the request's input files at
//! their relative paths, owned by the candidate's uid, as is every directory on their way
//! (as on the cold path, `mounts::write_inputs`, checked here too).

mod common;

use passrate_sandbox::{ExecRequest, ExecStatus, InputFile, Program};

const NESTED: [(&str, &str); 3] = [
    ("pkg/sub/mod.py", "m"),
    ("data//x.txt", "x"),
    ("top.txt", "t"),
];

fn with_nested_files(mut req: ExecRequest) -> ExecRequest {
    for (path, body) in NESTED {
        req.files.push(InputFile {
            path: path.into(),
            contents: body.as_bytes().to_vec(),
            executable: false,
        });
    }
    req
}

#[test]
fn a_warm_python_execution_gets_nested_input_files_owned_by_the_candidate() {
    let jail = common::jail();
    let code = r#"
import os
for p in ("pkg/sub/mod.py", "data//x.txt", "top.txt"):
    st = os.stat(p)
    print(p, open(p).read(), st.st_uid, oct(st.st_mode & 0o777))
print("dirs", os.stat("pkg/sub").st_uid, os.stat("pkg").st_uid, os.stat("data").st_uid)
"#;
    let req = with_nested_files(common::python_request(code));
    // The first execution and a later one (a spare forked while the first ran).
    for _ in 0..2 {
        assert_prints(
            &jail,
            &req,
            "pkg/sub/mod.py m 1000 0o644\ndata//x.txt x 1000 0o644\ntop.txt t 1000 0o644\n\
             dirs 1000 1000 1000\n",
        );
    }
}

#[test]
fn a_cold_execution_gets_nested_input_files_owned_by_the_candidate() {
    let jail = common::jail();
    let req = with_nested_files(ExecRequest::single(Program::Exec {
        path: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            "cat pkg/sub/mod.py data/x.txt top.txt; echo; stat -c '%n %u' pkg pkg/sub data pkg/sub/mod.py".into(),
        ],
    }));
    assert_prints(
        &jail,
        &req,
        "mxt\npkg 1000\npkg/sub 1000\ndata 1000\npkg/sub/mod.py 1000\n",
    );
}

fn assert_prints(jail: &common::Jail, req: &ExecRequest, expected: &str) {
    let out = jail.run(req);
    assert_eq!(
        out.status,
        ExecStatus::Ok,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(common::stdout(&out), expected);
}
