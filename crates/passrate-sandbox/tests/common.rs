//! Shared helpers for the sandbox's integration tests: a sandbox per test with its own uid
//! range, and host-side checks that nothing of a jail survives.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use passrate_sandbox::{
    CgroupPreference, ExecOutcome, ExecRequest, InputFile, Launcher, Program, Sandbox,
    SandboxConfig,
};

static NEXT: AtomicU32 = AtomicU32::new(0);

pub struct Jail {
    pub sandbox: Sandbox,
    pub uid_base: u32,
    pub group: String,
    // Declared after `sandbox`, so dropped after it: only then are the group's leaves gone
    // and the group itself removable.
    _group_dirs: RemoveGroupDirs,
}

/// Removes a test sandbox's (by then empty) cgroup group directories when dropped.
struct RemoveGroupDirs(Vec<PathBuf>);

impl Drop for RemoveGroupDirs {
    fn drop(&mut self) {
        for base in &self.0 {
            let _ = std::fs::remove_dir(base);
        }
    }
}

/// The group directories the sandbox resolved, in every hierarchy it uses. Taken from the
/// sandbox's own layout rather than from fixed paths, so that on a pure cgroup v2 host
/// (`/sys/fs/cgroup/<group>`, or a delegated `PASSRATE_CGROUP_ROOT`) leftovers are checked too.
fn cgroup_bases(sandbox: &Sandbox) -> Vec<PathBuf> {
    sandbox
        .cgroup_layout()
        .bases()
        .into_iter()
        .map(|b| b.dir.clone())
        .collect()
}

/// Distinct per test process and per sandbox, so concurrent tests never share a uid and a
/// survivor can be attributed to its test.
fn unique_uid_base() -> u32 {
    let n = NEXT.fetch_add(1, Ordering::SeqCst) % 8;
    100_000_000 + ((std::process::id() % 100_000) * 8 + n) * 4_000
}

pub fn jail_with(prefs: CgroupPreference, slots: usize) -> Jail {
    let uid_base = unique_uid_base();
    jail_in_group(prefs, slots, uid_base, format!("passrate-test-{uid_base}"))
}

pub fn jail_in_group(prefs: CgroupPreference, slots: usize, uid_base: u32, group: String) -> Jail {
    jail_configured(prefs, slots, uid_base, group, |_| {})
}

/// A test sandbox with some settings changed by `configure`.
pub fn jail_configured(
    prefs: CgroupPreference,
    slots: usize,
    uid_base: u32,
    group: String,
    configure: impl FnOnce(&mut SandboxConfig),
) -> Jail {
    let mut config = SandboxConfig {
        launcher: Launcher::Program(PathBuf::from(env!("CARGO_BIN_EXE_passrate-jail")), vec![]),
        slots,
        cgroups: prefs,
        uid_base,
        cgroup_group: group.clone(),
        ..SandboxConfig::default()
    };
    configure(&mut config);
    let sandbox = Sandbox::new(config).expect("this machine must be able to sandbox");
    let group_dirs = RemoveGroupDirs(cgroup_bases(&sandbox));
    Jail {
        sandbox,
        uid_base,
        _group_dirs: group_dirs,
        group,
    }
}

/// A test sandbox (two slots) with some settings changed by `configure`.
pub fn jail_with_config(configure: impl FnOnce(&mut SandboxConfig)) -> Jail {
    let uid_base = unique_uid_base();
    let group = format!("passrate-test-{uid_base}");
    jail_configured(CgroupPreference::Auto, 2, uid_base, group, configure)
}

pub fn jail() -> Jail {
    jail_with(CgroupPreference::Auto, 2)
}

impl Jail {
    /// Names of the live warm compilers' cgroup leaves (`<jail pid>-javac`), sorted.
    pub fn compiler_leaves(&self) -> Vec<String> {
        let dir = &self.sandbox.cgroup_layout().pids.dir;
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("the sandbox's cgroup group exists")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with("-javac"))
            .collect();
        names.sort();
        names
    }

    pub fn run(&self, req: &ExecRequest) -> ExecOutcome {
        let out = self
            .sandbox
            .execute(req)
            .expect("the sandbox itself must not fail");
        self.assert_nothing_survives();
        out
    }

    pub fn python(&self, code: &str) -> ExecOutcome {
        self.run(&python_request(code))
    }

    pub fn node(&self, code: &str) -> ExecOutcome {
        let mut req = ExecRequest::single(Program::Node {
            script: "main.js".into(),
            args: vec![],
        });
        req.files.push(InputFile {
            path: "main.js".into(),
            contents: code.as_bytes().to_vec(),
            executable: false,
        });
        self.run(&req)
    }

    pub fn java(&self, class: &str, code: &str) -> ExecOutcome {
        let file = format!("{class}.java");
        let mut req = ExecRequest::single(Program::Javac {
            sources: vec![file.clone()],
            archive: false,
        });
        req.steps.push(Program::Java {
            main_class: class.into(),
            args: vec![],
        });
        req.files.push(InputFile {
            path: file,
            contents: code.as_bytes().to_vec(),
            executable: false,
        });
        self.run(&req)
    }

    pub fn sh(&self, script: &str) -> ExecOutcome {
        self.run(&ExecRequest::single(Program::Exec {
            path: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
        }))
    }

    /// No process runs as the candidate's uid once an execution has returned, and no
    /// execution cgroup is left behind. (Warm slots keep their holder, init and fork server
    /// running as the namespace's root uid between executions, by design.)
    pub fn assert_nothing_survives(&self) {
        let uids = [self.uid_base + 1000];
        // Idle pre-started jails run the harness as the candidate's uid, by design, in
        // their own "-prestart" leaf; nothing of a finished execution may.
        let survivors: Vec<String> = processes_with_uids(&uids)
            .into_iter()
            .filter(|p| !in_idle_prestart_leaf(p))
            .collect();
        assert!(
            survivors.is_empty(),
            "processes survived the jail: {survivors:?}"
        );
        // Per live slot: how many prepared leaves were seen.
        let mut next_leaves = std::collections::HashMap::<String, usize>::new();
        for base in cgroup_bases(&self.sandbox) {
            let base = base.display().to_string();
            let Ok(entries) = std::fs::read_dir(&base) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                // A warm compiler's leaf lives as long as its jail process does.
                let compiler_alive = name
                    .strip_suffix("-javac")
                    .is_some_and(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists());
                // So does an idle pre-started jail's leaf (`<jail pid>-<nanos>-prestart`).
                let prestart_alive = name.ends_with("-prestart")
                    && name
                        .split('-')
                        .next()
                        .is_some_and(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists());
                // And a warm slot's prepared leaves (`<slot pid>-<nanos>-next`): the one its
                // spare joined and the one after it, at most two per slot.
                let next_of_live_slot = name.ends_with("-next")
                    && name.split('-').next().is_some_and(|pid| {
                        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                            return false;
                        }
                        let seen = next_leaves.entry(format!("{base}/{pid}")).or_default();
                        *seen += 1;
                        *seen <= 2
                    });
                if e.path().is_dir() && !compiler_alive && !prestart_alive && !next_of_live_slot {
                    panic!("cgroup {base}/{name} outlived its jail");
                }
            }
        }
    }
}

/// Whether a process ("pid comm" from [`processes_with_uids`]) sits in the leaf of a
/// pre-started jail whose jail process is alive (that is, one not handed over yet or
/// still running its execution).
fn in_idle_prestart_leaf(process: &str) -> bool {
    let pid = process.split_whitespace().next().unwrap_or("");
    let Ok(cgroups) = fs_err::read_to_string(format!("/proc/{pid}/cgroup")) else {
        return false;
    };
    cgroups.lines().any(|l| {
        let leaf = l.rsplit('/').next().unwrap_or("");
        leaf.ends_with("-prestart")
            && leaf
                .split('-')
                .next()
                .is_some_and(|jail| std::path::Path::new(&format!("/proc/{jail}")).exists())
    })
}

pub fn python_request(code: &str) -> ExecRequest {
    let mut req = ExecRequest::single(Program::Python {
        script: "main.py".into(),
        args: vec![],
    });
    req.files.push(InputFile {
        path: "main.py".into(),
        contents: code.as_bytes().to_vec(),
        executable: false,
    });
    req
}

pub fn processes_with_uids(uids: &[u32]) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(status) = fs_err::read_to_string(format!("/proc/{name}/status")) else {
            continue;
        };
        // A zombie has already died (and left its cgroup); only its parent has yet to reap it.
        if status
            .lines()
            .any(|l| l.starts_with("State:") && l.contains('Z'))
        {
            continue;
        }
        let uid_line = status.lines().find(|l| l.starts_with("Uid:")).unwrap_or("");
        let real: Option<u32> = uid_line
            .split_whitespace()
            .nth(1)
            .and_then(|u| u.parse().ok());
        if real.is_some_and(|u| uids.contains(&u)) {
            let comm = status.lines().next().unwrap_or("").to_owned();
            found.push(format!("{name} {comm}"));
        }
    }
    found
}

pub fn stdout(out: &ExecOutcome) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}
