//! The host side: probes the machine once, then runs each execution by starting the
//! single-threaded jail process and exchanging one frame each way with it.

use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};

use crate::api::{ExecOutcome, ExecRequest, Program, SandboxError};
use crate::cgroup::{CgroupPreference, Layout};
use crate::runtimes::Runtimes;
use crate::wire::{self, JailRequest, JailResponse};

/// How to start the jail process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Launcher {
    /// `PASSRATE_JAIL` if set; else `passrate-jail` beside the current executable (or one
    /// directory up, for test binaries in `target/*/deps`); else the current executable with
    /// `__jail` when it is the `passrate` binary.
    Auto,
    /// An explicit program and its leading arguments.
    Program(PathBuf, Vec<String>),
}

#[derive(Clone, Debug)]
pub struct SandboxConfig {
    pub launcher: Launcher,
    /// Executions that may run at once (default: one per core).
    pub slots: usize,
    pub cgroups: CgroupPreference,
    /// A delegated cgroup v2 directory to use instead of the v2 mount point
    /// (`PASSRATE_CGROUP_ROOT`).
    pub cgroup_v2_root: Option<PathBuf>,
    /// Host uid/gid the jail's root maps to; the sandbox user is this + 1000.
    pub uid_base: u32,
    /// Extra host paths bound read-only into every jail (e.g. a node_modules directory).
    pub ro_binds: Vec<PathBuf>,
    /// Name of the cgroup directory holding this sandbox's leaves in every hierarchy; two
    /// independent sandboxes on one host use different names.
    pub cgroup_group: String,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            launcher: Launcher::Auto,
            slots: std::thread::available_parallelism().map_or(2, |n| n.get()),
            cgroups: CgroupPreference::Auto,
            cgroup_v2_root: std::env::var_os("PASSRATE_CGROUP_ROOT").map(PathBuf::from),
            uid_base: 200_000,
            ro_binds: Vec::new(),
            cgroup_group: crate::cgroup::DEFAULT_GROUP.to_owned(),
        }
    }
}

struct Slots {
    free: Mutex<usize>,
    cond: Condvar,
}

impl Slots {
    fn acquire(&self) -> SlotGuard<'_> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.cond.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        SlotGuard(self)
    }
}

struct SlotGuard<'a>(&'a Slots);

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.cond.notify_one();
    }
}

struct Inner {
    config: SandboxConfig,
    layout: Layout,
    runtimes: Runtimes,
    launcher: (PathBuf, Vec<String>),
    slots: Slots,
}

/// A handle to the sandbox. Cheap to clone; `execute` may be called from many threads.
#[derive(Clone)]
pub struct Sandbox {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("layout", &self.inner.layout)
            .field("slots", &self.inner.config.slots)
            .finish()
    }
}

fn unavailable(what: impl Into<String>, hint: impl Into<String>) -> SandboxError {
    SandboxError::Unavailable {
        what: what.into(),
        hint: hint.into(),
    }
}

fn check_user_namespaces() -> Result<(), SandboxError> {
    if !Path::new("/proc/self/ns/user").exists() {
        return Err(unavailable(
            "the kernel has no user namespaces (CONFIG_USER_NS)",
            "use a kernel built with user namespace support",
        ));
    }
    let read = |p: &str| fs_err::read_to_string(p).ok().map(|s| s.trim().to_owned());
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        return Err(unavailable(
            "user namespaces are disabled (user.max_user_namespaces = 0)",
            "sysctl -w user.max_user_namespaces=15000",
        ));
    }
    if unsafe { libc::geteuid() } != 0 {
        return Err(unavailable(
            "passrate's sandbox must start as root (it creates cgroups and maps a range of uids)",
            "run as root, e.g. in a dedicated VM or container with CAP_SYS_ADMIN",
        ));
    }
    Ok(())
}

fn locate_launcher(launcher: &Launcher) -> Result<(PathBuf, Vec<String>), SandboxError> {
    if let Launcher::Program(p, args) = launcher {
        return Ok((p.clone(), args.clone()));
    }
    if let Some(p) = std::env::var_os("PASSRATE_JAIL") {
        return Ok((PathBuf::from(p), Vec::new()));
    }
    let exe = std::env::current_exe().map_err(|e| SandboxError::Launcher {
        path: "current executable".into(),
        source: e,
    })?;
    if exe.file_stem().is_some_and(|s| s == "passrate") {
        return Ok((exe, vec!["__jail".to_owned()]));
    }
    let mut dir = exe.parent();
    for _ in 0..2 {
        let Some(d) = dir else { break };
        let candidate = d.join("passrate-jail");
        if candidate.is_file() {
            return Ok((candidate, Vec::new()));
        }
        dir = d.parent();
    }
    Err(unavailable(
        format!(
            "cannot find the passrate-jail launcher beside {}",
            exe.display()
        ),
        "build it (`cargo build --bins`) or set PASSRATE_JAIL to its path",
    ))
}

fn validate(request: &ExecRequest) -> Result<(), SandboxError> {
    if request.steps.is_empty() {
        return Err(SandboxError::InvalidRequest("no steps to run".into()));
    }
    for file in &request.files {
        let path = Path::new(&file.path);
        let ok =
            !file.path.is_empty() && path.components().all(|c| matches!(c, Component::Normal(_)));
        if !ok {
            return Err(SandboxError::InvalidRequest(format!(
                "input file path {:?} must be relative and stay inside the work dir",
                file.path
            )));
        }
    }
    let l = &request.limits;
    if l.cpu_ms == 0
        || l.wall_ms == 0
        || l.memory_bytes < (8 << 20)
        || l.pids == 0
        || l.workdir_bytes == 0
    {
        return Err(SandboxError::InvalidRequest(format!(
            "limits out of range: {l:?}"
        )));
    }
    Ok(())
}

impl Sandbox {
    /// Probes the host and prepares the cgroup hierarchies. Fails, naming what is missing,
    /// when this host cannot sandbox; there is no unsandboxed fallback.
    pub fn new(config: SandboxConfig) -> Result<Sandbox, SandboxError> {
        check_user_namespaces()?;
        let layout = Layout::detect(
            config.cgroups,
            config.cgroup_v2_root.as_deref(),
            &config.cgroup_group,
        )?;
        layout.clean_leftovers();
        let runtimes = Runtimes::resolve();
        let launcher = locate_launcher(&config.launcher)?;
        let slots = Slots {
            free: Mutex::new(config.slots.max(1)),
            cond: Condvar::new(),
        };
        let sandbox = Sandbox {
            inner: Arc::new(Inner {
                config,
                layout,
                runtimes,
                launcher,
                slots,
            }),
        };
        // A real execution is the only honest probe of namespaces, mounts and seccomp.
        let probe = sandbox.execute(&ExecRequest::single(Program::Exec {
            path: "/bin/true".into(),
            args: vec![],
        }))?;
        if probe.status != crate::api::ExecStatus::Ok {
            return Err(SandboxError::Internal(format!(
                "the start-up probe (/bin/true in a jail) ended {:?}: {}",
                probe.status,
                String::from_utf8_lossy(&probe.stderr)
            )));
        }
        Ok(sandbox)
    }

    pub fn runtimes(&self) -> &Runtimes {
        &self.inner.runtimes
    }

    pub fn cgroup_layout(&self) -> &Layout {
        &self.inner.layout
    }

    pub fn slots(&self) -> usize {
        self.inner.config.slots.max(1)
    }

    /// Runs one execution in a fresh jail. Blocks until it ends; at most `slots` run at once.
    pub fn execute(&self, request: &ExecRequest) -> Result<ExecOutcome, SandboxError> {
        validate(request)?;
        let _slot = self.inner.slots.acquire();
        let inner = &self.inner;
        let jail_request = JailRequest {
            exec: request.clone(),
            runtimes: inner.runtimes.clone(),
            cgroups: inner.layout.clone(),
            uid_base: inner.config.uid_base,
            ro_binds: inner.config.ro_binds.clone(),
            root_mountpoint: crate::jail::default_root_mountpoint().to_path_buf(),
        };
        let (program, args) = &inner.launcher;
        let mut child = Command::new(program)
            .args(args)
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| SandboxError::Launcher {
                path: program.clone(),
                source,
            })?;
        // The jail treats the closing of its stdin as our death, so keep it open until the
        // response has been read.
        let stdin = child.stdin.take().expect("piped");
        let mut stdout = child.stdout.take().expect("piped");
        let written = wire::write_frame(&stdin, &jail_request);
        let response: std::io::Result<JailResponse> = match written {
            Ok(()) => wire::read_frame(&mut stdout),
            Err(e) => Err(e),
        };
        drop(stdin);
        let status = child.wait();
        match response {
            Ok(Ok(outcome)) => Ok(outcome),
            Ok(Err(message)) => Err(SandboxError::Internal(message)),
            Err(e) => Err(SandboxError::Internal(format!(
                "the jail process failed ({status:?}): {e}"
            ))),
        }
    }
}
