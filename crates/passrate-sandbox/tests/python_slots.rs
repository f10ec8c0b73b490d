//! What a warm Python slot's fork server gives each execution: the request's input files at
//! their relative paths, owned by the candidate's uid, as are their direct parent
//! directories (as on the cold path, `mounts::write_inputs`).

mod common;

use passrate_sandbox::{ExecStatus, InputFile};

#[test]
fn a_warm_python_execution_gets_nested_input_files_owned_by_the_candidate() {
    let jail = common::jail();
    let code = r#"
import os
for p in ("pkg/sub/mod.py", "data//x.txt", "top.txt"):
    st = os.stat(p)
    print(p, open(p).read(), st.st_uid, oct(st.st_mode & 0o777))
print("dirs", os.stat("pkg/sub").st_uid, os.stat("data").st_uid)
"#;
    let mut req = common::python_request(code);
    for (path, body) in [
        ("pkg/sub/mod.py", "m"),
        ("data//x.txt", "x"),
        ("top.txt", "t"),
    ] {
        req.files.push(InputFile {
            path: path.into(),
            contents: body.as_bytes().to_vec(),
            executable: false,
        });
    }
    // The first execution and a later one (a spare forked while the first ran).
    for _ in 0..2 {
        let out = jail.run(&req);
        assert_eq!(
            out.status,
            ExecStatus::Ok,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            common::stdout(&out),
            "pkg/sub/mod.py m 1000 0o644\ndata//x.txt x 1000 0o644\ntop.txt t 1000 0o644\n\
             dirs 1000 1000\n"
        );
    }
}
