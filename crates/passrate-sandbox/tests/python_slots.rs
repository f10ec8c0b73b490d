//! What a warm Python slot's fork server gives each execution: the request's input files at
//! their relative paths, owned by the candidate's uid, as is every directory on their way
//! (as on the cold path, `mounts::write_inputs`, checked here too); and the CPU each slot's
//! executions run on.

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

/// CPUs the Python code in a warm execution may run on, as it sees them, from two executions
/// in flight at once (so in two different slots).
fn cpus_of_two_concurrent_executions(jail: &common::Jail) -> Vec<Vec<usize>> {
    // Each sleeps long enough for the other to have started by then: neither slot is free
    // for the other's request.
    let code = "import os, time\nprint(sorted(os.sched_getaffinity(0)))\ntime.sleep(1)\n";
    let outs: Vec<_> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|_| scope.spawn(|| jail.sandbox.execute(&common::python_request(code))))
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("no panic"))
            .collect()
    });
    jail.assert_nothing_survives();
    outs.into_iter()
        .map(|out| {
            let out = out.expect("the sandbox itself must not fail");
            assert_eq!(
                out.status,
                ExecStatus::Ok,
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = common::stdout(&out);
            let list = text.trim().trim_start_matches('[').trim_end_matches(']');
            list.split(", ")
                .map(|c| c.parse().expect("a CPU number"))
                .collect()
        })
        .collect()
}

/// The CPUs this test process may use, read from procfs: independently of the code under
/// test (the sandbox's `sched_getaffinity`).
fn allowed_cpus() -> Vec<usize> {
    let status = fs_err::read_to_string("/proc/self/status").expect("procfs");
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("Cpus_allowed_list");
    list.trim()
        .split(',')
        .flat_map(|range| {
            let (a, b) = range.split_once('-').unwrap_or((range, range));
            a.parse::<usize>().expect("a CPU")..=b.parse::<usize>().expect("a CPU")
        })
        .collect()
}

#[test]
fn each_warm_slot_runs_its_executions_on_one_cpu_of_its_own() {
    // Explicitly: the default follows PASSRATE_PIN_SLOTS.
    let jail = common::jail_with_config(|c| c.pin_slots = true);
    let allowed = allowed_cpus();
    let cpus = cpus_of_two_concurrent_executions(&jail);
    for set in &cpus {
        assert_eq!(set.len(), 1, "pinned to one CPU: {cpus:?}");
        assert!(allowed.contains(&set[0]), "{cpus:?} not within {allowed:?}");
    }
    if allowed.len() > 1 {
        assert_ne!(
            cpus[0], cpus[1],
            "two slots share a CPU while another is free"
        );
    }
}

#[test]
fn warm_slots_are_not_pinned_when_turned_off_or_outnumbering_the_cpus() {
    let allowed = allowed_cpus();
    let off = common::jail_with_config(|c| c.pin_slots = false);
    let more_slots = common::jail_with_config(|c| {
        c.slots = allowed.len() + 1;
        c.pin_slots = true;
    });
    for jail in [off, more_slots] {
        assert_eq!(
            cpus_of_two_concurrent_executions(&jail),
            [allowed.clone(), allowed.clone()]
        );
    }
}
