//! The real sandbox for the engine's tests: the jail launcher built beside the test binary,
//! and a runner on it with its own cgroup group and uid range.

use std::path::PathBuf;

use passrate_runner::{Runner, RunnerOptions};
use passrate_sandbox::{Launcher, Sandbox, SandboxConfig};

/// The jail launcher beside the test binary's target directory, built on demand.
pub fn jail() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable");
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>")
        .to_path_buf();
    let jail = dir.join("passrate-jail");
    if !jail.is_file() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let status = std::process::Command::new(cargo)
            .args(["build", "-p", "passrate-sandbox", "--bin", "passrate-jail"])
            .status()
            .expect("cargo build of passrate-jail");
        assert!(status.success(), "building passrate-jail failed");
    }
    jail
}

/// A one-slot runner whose sandbox starts jails through `launcher`, in cgroup group `group`,
/// with uids from `uid_base` (offset by the process id, so concurrent test binaries differ).
pub fn runner_with(launcher: PathBuf, group: &str, uid_base: u32) -> Runner {
    let id = std::process::id() % 50_000;
    let config = SandboxConfig {
        launcher: Launcher::Program(launcher, Vec::new()),
        slots: 1,
        uid_base: uid_base + id * 4_000,
        cgroup_group: group.to_owned(),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::new(config).expect("this machine must be able to sandbox");
    Runner::new(sandbox, RunnerOptions::default())
}
