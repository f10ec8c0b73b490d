//! The sandbox on a pure cgroup v2 host, as most users run it: every role from v2, the
//! limits enforced by v2's own files (`memory.max` and `memory.events`, `memory.peak`,
//! `pids.max`, `cpu.stat`, `cgroup.kill`), and a delegated subtree that is not the root.
//!
//! This project's CI host mounts cgroup v1 for memory and pids, so these tests are ignored
//! there; `scripts/test-cgroup-v2.sh` runs them (`--include-ignored`) as root in a User-Mode
//! Linux guest whose only hierarchy is v2. Each starts by checking that it really is on pure
//! v2 and fails otherwise, so running them elsewhere never passes by doing nothing.

mod common;

use std::path::{Path, PathBuf};

use common::stdout;
use passrate_sandbox::cgroup::Version;
use passrate_sandbox::{CgroupPreference, ExecStatus, Sandbox, SandboxConfig, SandboxError};

const WHY: &str = "needs a pure cgroup v2 host: scripts/test-cgroup-v2.sh runs it";

/// The v2 mount point, after checking that no v1 hierarchy exists and that the root offers
/// the memory, pids and cpu controllers.
fn pure_v2() -> PathBuf {
    let mounts = fs_err::read_to_string("/proc/self/mounts").unwrap();
    let fields: Vec<Vec<&str>> = mounts
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert!(
        !fields.iter().any(|f| f.get(2) == Some(&"cgroup")),
        "a cgroup v1 hierarchy is mounted: not a pure v2 host ({WHY})"
    );
    let mount = fields
        .iter()
        .find(|f| f.get(2) == Some(&"cgroup2"))
        .map(|f| PathBuf::from(f[1]))
        .unwrap_or_else(|| panic!("no cgroup v2 hierarchy is mounted ({WHY})"));
    let controllers = fs_err::read_to_string(mount.join("cgroup.controllers")).unwrap();
    for c in ["memory", "pids", "cpu"] {
        assert!(
            controllers.split_whitespace().any(|x| x == c),
            "the v2 root lacks the {c} controller: {controllers}"
        );
    }
    mount
}

fn assert_all_v2(sandbox: &Sandbox) {
    let l = sandbox.cgroup_layout();
    for (role, base) in [
        ("memory", &l.memory),
        ("pids", &l.pids),
        ("cpu", &l.cpu),
        ("kill", &l.kill),
    ] {
        assert_eq!(base.version, Version::V2, "{role} from {base:?}");
    }
}

fn own_cgroup() -> String {
    fs_err::read_to_string("/proc/self/cgroup")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .unwrap()
        .to_owned()
}

#[test]
#[ignore = "needs a pure cgroup v2 host: scripts/test-cgroup-v2.sh runs it"]
fn every_role_comes_from_v2_and_each_execution_gets_its_own_leaf() {
    pure_v2();
    let j = common::jail();
    assert_all_v2(&j.sandbox);
    // 100 ms of CPU: the guest's CPU accounting is tick-granular (10 ms), so a program
    // that only prints can be measured as 0.
    let out = j.python(
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.1:\n    pass\nprint(open('/proc/self/cgroup').read().strip())\n",
    );
    assert_eq!(out.status, ExecStatus::Ok, "{out:?}");
    // The cgroup namespace is rooted at the execution's own leaf.
    assert_eq!(stdout(&out).trim(), "0::/", "{out:?}");
    assert!(
        out.cpu_us >= 50_000,
        "cpu.stat measured too little: {out:?}"
    );
    assert!(out.peak_memory_bytes.is_some_and(|b| b > 0), "{out:?}");
}

#[test]
#[ignore = "needs a pure cgroup v2 host: scripts/test-cgroup-v2.sh runs it"]
fn memory_max_stops_shared_memory_and_memory_events_make_it_memory_limit() {
    pure_v2();
    let j = common::jail();
    // MAP_SHARED pages escape the heap cap (RLIMIT_DATA): only memory.max stops them, with
    // an OOM kill that only memory.events reports.
    let mut req = common::python_request(
        "import mmap\nm = mmap.mmap(-1, 200 << 20)\nfor i in range(0, 200 << 20, 4096):\n    m[i] = 1\nprint('survived')\n",
    );
    req.limits.memory_bytes = 48 << 20;
    // CPU to spare: under User-Mode Linux a page fault is a round trip through the host
    // (5-50 MB touched per CPU second), and the limit must be what ends this.
    req.limits.cpu_ms = 30_000;
    req.limits.wall_ms = 90_000;
    let out = j.run(&req);
    assert_eq!(out.status, ExecStatus::MemoryLimit, "{out:?}");
    assert_eq!(out.signal, Some(libc::SIGKILL), "{out:?}");
    assert!(!stdout(&out).contains("survived"));
    // memory.peak reaches the limit (within a few pages), never above it.
    let peak = out.peak_memory_bytes.expect("memory.peak is read");
    assert!(
        peak > (40 << 20) && peak <= (48 << 20),
        "peak {peak} for a 48 MiB limit"
    );
    // The same slot runs the next execution normally.
    let next = j.python("print('clean')\n");
    assert_eq!(stdout(&next).trim(), "clean", "{next:?}");
}

#[test]
#[ignore = "needs a pure cgroup v2 host: scripts/test-cgroup-v2.sh runs it"]
fn pids_max_caps_the_processes_of_an_execution() {
    pure_v2();
    let j = common::jail();
    let mut req = common::python_request(
        "import os, time\nn = 0\nfor _ in range(40):\n    try:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        n += 1\n    except OSError:\n        break\nprint(n)\n",
    );
    req.limits.pids = 12;
    let out = j.run(&req);
    assert_eq!(out.status, ExecStatus::Ok, "{out:?}");
    let forked: u32 = stdout(&out).trim().parse().unwrap();
    // The candidate itself counts: at most 11 children, and the limit was reached.
    assert!(
        (1..12).contains(&forked),
        "forked {forked} under pids.max 12"
    );
    // assert_nothing_survives (in run) checked that cgroup.kill took the sleepers.
}

#[test]
#[ignore = "needs a pure cgroup v2 host: scripts/test-cgroup-v2.sh runs it"]
fn cpu_time_comes_from_cpu_stat_and_cgroup_kill_takes_setsid_daemons() {
    pure_v2();
    let j = common::jail();
    // The v2 counterpart of `daemons_die_under_cgroup_v1_kill_too` (security.rs).
    let mut req = common::python_request(
        "import os, time\nfor _ in range(3):\n    if os.fork() == 0:\n        os.setsid(); time.sleep(60)\nwhile True:\n    pass\n",
    );
    req.limits.cpu_ms = 300;
    let out = j.run(&req);
    assert_eq!(out.status, ExecStatus::Timeout, "{out:?}");
    assert!(out.cpu_us >= 300_000, "cpu.stat must measure: {out:?}");
}

/// Removes the test's delegated subtree, moving this process back to `back_to` first.
struct Delegated {
    dir: PathBuf,
    back_to: PathBuf,
}

impl Drop for Delegated {
    fn drop(&mut self) {
        let _ = fs_err::write(
            self.back_to.join("cgroup.procs"),
            std::process::id().to_string(),
        );
        for sub in [
            passrate_sandbox::cgroup::SUPERVISOR_LEAF,
            "passrate-delegated",
            "",
        ] {
            let _ = std::fs::remove_dir(self.dir.join(sub));
        }
    }
}

/// Makes `<mount>/passrate-test-delegated-<pid>`, as systemd makes a unit's cgroup with
/// `Delegate=yes`: the controllers available in it, none enabled for its children.
fn delegated(mount: &Path) -> Delegated {
    let dir = mount.join(format!("passrate-test-delegated-{}", std::process::id()));
    fs_err::create_dir(&dir).unwrap();
    Delegated {
        dir,
        back_to: mount.join(own_cgroup().trim_start_matches('/')),
    }
}

#[test]
#[ignore = "needs a pure cgroup v2 host: scripts/test-cgroup-v2.sh runs it"]
fn a_delegated_subtree_holding_the_supervisor_itself_is_used() {
    // Regression: under systemd `Delegate=yes` (or `systemd-run --scope -p Delegate=yes`)
    // passrate's own process starts inside the delegated cgroup, and v2's "no internal
    // processes" rule then refused to enable controllers there (EBUSY): the sandbox refused
    // to start ("no cgroup hierarchy can serve the memory limit role").
    let mount = pure_v2();
    let d = delegated(&mount);
    fs_err::write(d.dir.join("cgroup.procs"), std::process::id().to_string()).unwrap();
    let dir = d.dir.clone();
    let j = common::jail_with_config(|c| c.cgroup_v2_root = Some(dir.clone()));
    assert_all_v2(&j.sandbox);
    assert!(
        j.sandbox.cgroup_layout().memory.dir.starts_with(&d.dir),
        "{:?} is not in the delegated subtree",
        j.sandbox.cgroup_layout()
    );
    // This process moved itself into a leaf of the delegated cgroup.
    assert!(
        own_cgroup().ends_with(&format!(
            "/passrate-test-delegated-{}/{}",
            std::process::id(),
            passrate_sandbox::cgroup::SUPERVISOR_LEAF
        )),
        "{}",
        own_cgroup()
    );
    let mut req = common::python_request(
        "import mmap\nm = mmap.mmap(-1, 200 << 20)\nfor i in range(0, 200 << 20, 4096):\n    m[i] = 1\n",
    );
    req.limits.memory_bytes = 32 << 20;
    // CPU to spare, as in memory_max_stops_shared_memory_and_memory_events_make_it_memory_limit.
    req.limits.cpu_ms = 30_000;
    req.limits.wall_ms = 90_000;
    let out = j.run(&req);
    assert_eq!(out.status, ExecStatus::MemoryLimit, "{out:?}");
    let ok = j.python("print(6 * 7)\n");
    assert_eq!(stdout(&ok).trim(), "42", "{ok:?}");
    drop(j);
}

#[test]
#[ignore = "needs a pure cgroup v2 host: scripts/test-cgroup-v2.sh runs it"]
fn a_delegated_subtree_holding_other_processes_is_refused_naming_them() {
    // passrate moves only itself: another process left in the delegated cgroup keeps the
    // controllers off, and the refusal says which process and what to do.
    let mount = pure_v2();
    let d = delegated(&mount);
    let mut sleeper = std::process::Command::new("/bin/sleep")
        .arg("30")
        .spawn()
        .unwrap();
    fs_err::write(d.dir.join("cgroup.procs"), sleeper.id().to_string()).unwrap();
    let result = Sandbox::new(SandboxConfig {
        cgroups: CgroupPreference::V2,
        cgroup_v2_root: Some(d.dir.clone()),
        cgroup_group: "passrate-delegated".into(),
        ..SandboxConfig::default()
    });
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    match result {
        Err(SandboxError::Unavailable { what, .. }) => {
            assert!(what.contains("holds processes"), "{what}");
            assert!(what.contains(&sleeper.id().to_string()), "{what}");
            assert!(what.contains("Delegate=yes"), "{what}");
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
}
