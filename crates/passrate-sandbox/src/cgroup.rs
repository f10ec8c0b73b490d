//! cgroup v1 and v2 behind one interface, resolved per role so hybrid hosts work too.
//!
//! Each execution gets fresh leaf cgroups named `<jail pid>-<sequence>` under a `passrate`
//! directory in every hierarchy it uses. Roles and where they are served from:
//! - memory limit (no swap) and OOM detection: v2 `memory.*` when the v2 tree has the memory
//!   controller, else v1 `memory`;
//! - process limit: v2 `pids.max`, else v1 `pids`;
//! - CPU time: v2 `cpu.stat` (present even without the cpu controller), else v1 `cpuacct`;
//! - kill: v2 `cgroup.kill`, else v1 `freezer` (freeze, SIGKILL everything, thaw).
//!
//! On a pure v2 host everything comes from v2; on this project's CI machine (v1 controllers
//! plus an empty v2 tree) memory and pids come from v1 and CPU and kill from v2.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::api::SandboxError;

/// Which cgroup versions the sandbox may use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CgroupPreference {
    /// Prefer v2 for each role, fall back to v1.
    #[default]
    Auto,
    /// Only v1 hierarchies.
    V1,
    /// Only the v2 hierarchy.
    V2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Version {
    V1,
    V2,
}

/// A `passrate` directory in one hierarchy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Base {
    pub version: Version,
    pub dir: PathBuf,
}

/// Where each role is served from, resolved once by [`Layout::detect`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    pub memory: Base,
    pub pids: Base,
    pub cpu: Base,
    pub kill: Base,
    /// v1 memory: the hierarchy accounts swap (`memory.memsw.*` exist in every directory).
    pub v1_memsw: bool,
}

/// Default name of the directory holding passrate's leaves in each hierarchy.
pub const DEFAULT_GROUP: &str = "passrate";

struct Mounts {
    v2: Option<PathBuf>,
    v1: Vec<(PathBuf, Vec<String>)>,
}

fn read_mounts() -> io::Result<Mounts> {
    let text = fs_err::read_to_string("/proc/self/mounts")?;
    let mut mounts = Mounts {
        v2: None,
        v1: Vec::new(),
    };
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 4 {
            continue;
        }
        let mountpoint = PathBuf::from(fields[1].replace("\\040", " "));
        match fields[2] {
            "cgroup2" if mounts.v2.is_none() => mounts.v2 = Some(mountpoint),
            "cgroup" => {
                let opts = fields[3].split(',').map(str::to_owned).collect();
                mounts.v1.push((mountpoint, opts));
            }
            _ => {}
        }
    }
    Ok(mounts)
}

fn unavailable(what: impl Into<String>, hint: impl Into<String>) -> SandboxError {
    SandboxError::Unavailable {
        what: what.into(),
        hint: hint.into(),
    }
}

fn ensure_dir(dir: &Path) -> Result<(), SandboxError> {
    match fs_err::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(unavailable(
            format!("cannot create the cgroup directory {}: {e}", dir.display()),
            "run passrate as root, or delegate a writable cgroup subtree to it (systemd: \
             `Delegate=yes`) and point PASSRATE_CGROUP_ROOT at it",
        )),
    }
}

fn controllers(file: &Path) -> Vec<String> {
    fs_err::read_to_string(file)
        .map(|s| s.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Where each role would be served from, or why it cannot be: [`Layout::survey`]'s answer,
/// which `passrate sandbox check` prints in full instead of stopping at the first gap.
#[derive(Debug)]
pub struct Survey {
    pub memory: Result<Base, SandboxError>,
    pub pids: Result<Base, SandboxError>,
    pub cpu: Result<Base, SandboxError>,
    pub kill: Result<Base, SandboxError>,
    pub v1_memsw: bool,
}

impl Survey {
    /// The layout when every role is served, else the first role's refusal.
    pub fn into_layout(self) -> Result<Layout, SandboxError> {
        Ok(Layout {
            memory: self.memory?,
            pids: self.pids?,
            cpu: self.cpu?,
            kill: self.kill?,
            v1_memsw: self.v1_memsw,
        })
    }
}

impl Layout {
    /// Finds the hierarchies, creates the `passrate` base directories, enables v2 controllers
    /// where possible, and says precisely what is missing when a role cannot be served.
    pub fn detect(
        preference: CgroupPreference,
        v2_root_override: Option<&Path>,
        group: &str,
    ) -> Result<Layout, SandboxError> {
        Self::survey(preference, v2_root_override, group)?.into_layout()
    }

    /// [`detect`](Self::detect), with every role's answer. Fails only when the hierarchies
    /// cannot be read or a base directory cannot be created.
    pub fn survey(
        preference: CgroupPreference,
        v2_root_override: Option<&Path>,
        group: &str,
    ) -> Result<Survey, SandboxError> {
        let mounts = read_mounts().map_err(|e| {
            unavailable(format!("cannot read /proc/self/mounts: {e}"), "mount /proc")
        })?;
        let v2_root = match (preference, v2_root_override) {
            (CgroupPreference::V1, _) => None,
            (_, Some(root)) => Some(root.to_path_buf()),
            (_, None) => mounts.v2.clone(),
        };

        let mut v2_base = None;
        let (mut v2_memory, mut v2_pids) = (false, false);
        // Why a v2 controller could not be enabled, added to the refusal of its role.
        let mut v2_enable_error = None;
        if let Some(root) = &v2_root {
            let base = root.join(group);
            ensure_dir(&base)?;
            let available = controllers(&root.join("cgroup.controllers"));
            let wanted: Vec<&str> = ["memory", "pids", "cpu"]
                .into_iter()
                .filter(|c| available.iter().any(|a| a == c))
                .collect();
            if !wanted.is_empty() {
                let enable = wanted
                    .iter()
                    .map(|c| format!("+{c}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                // A delegated root may already have them enabled (then this changes nothing);
                // when it cannot, the role's refusal below says why.
                v2_enable_error = enable_in_root(root, &enable).err();
                let _ = fs_err::write(base.join("cgroup.subtree_control"), &enable);
            }
            let enabled = controllers(&base.join("cgroup.subtree_control"));
            v2_memory = enabled.iter().any(|c| c == "memory");
            v2_pids = enabled.iter().any(|c| c == "pids");
            v2_base = Some(base);
        }

        let v1_for = |controller: &str| -> Option<PathBuf> {
            if preference == CgroupPreference::V2 {
                return None;
            }
            mounts
                .v1
                .iter()
                .find(|(_, opts)| opts.iter().any(|o| o == controller))
                .map(|(mountpoint, _)| mountpoint.join(group))
        };

        let pick = |role: &str, v2_ok: bool, v1_controller: &str| -> Result<Base, SandboxError> {
            if v2_ok && let Some(dir) = &v2_base {
                return Ok(Base {
                    version: Version::V2,
                    dir: dir.clone(),
                });
            }
            if let Some(dir) = v1_for(v1_controller) {
                ensure_dir(&dir)?;
                return Ok(Base {
                    version: Version::V1,
                    dir,
                });
            }
            let why = v2_enable_error
                .as_deref()
                .map(|e| format!("; {e}"))
                .unwrap_or_default();
            Err(unavailable(
                format!(
                    "no cgroup hierarchy can serve the {role} role (cgroup v2 without the `{v1_controller}` controller enabled, and no v1 `{v1_controller}` hierarchy){why}"
                ),
                format!(
                    "on cgroup v2, enable it: `echo +{v1_controller} > /sys/fs/cgroup/cgroup.subtree_control` (or delegate a subtree with it); on v1, mount the `{v1_controller}` controller"
                ),
            ))
        };

        let has_v2 = v2_base.is_some();
        let memory = pick("memory limit", v2_memory, "memory");
        let v1_memory = memory.as_ref().ok().filter(|m| m.version == Version::V1);
        let v1_memsw =
            v1_memory.is_some_and(|m| m.dir.join("memory.memsw.limit_in_bytes").exists());
        if let Some(memory) = v1_memory {
            // A v1 memory cgroup starts with its parent's swappiness: set once here, not
            // in every leaf (best effort, as before).
            let _ = fs_err::write(memory.dir.join("memory.swappiness"), "0");
        }
        Ok(Survey {
            memory,
            pids: pick("process limit", v2_pids, "pids"),
            cpu: pick("CPU accounting", has_v2, "cpuacct"),
            kill: pick(
                "kill",
                has_v2
                    && v2_base
                        .as_ref()
                        .is_some_and(|b| b.join("cgroup.kill").exists() || has_kill_file(b)),
                "freezer",
            ),
            v1_memsw,
        })
    }

    /// Distinct base directories, each hierarchy once.
    pub fn bases(&self) -> Vec<&Base> {
        let mut out: Vec<&Base> = Vec::new();
        for b in [&self.memory, &self.pids, &self.cpu, &self.kill] {
            if !out.iter().any(|o| o.dir == b.dir) {
                out.push(b);
            }
        }
        out
    }

    /// CPU time of everything that has run in this group's leaves since the group was made,
    /// removed leaves included (the controllers account hierarchically), in microseconds.
    /// Every sandbox with the same group name adds to it.
    pub fn group_cpu_us(&self) -> io::Result<u64> {
        read_cpu_us(&self.cpu.dir, self.cpu.version)
    }

    /// Kills and removes leaf cgroups whose jail process no longer exists (left by a crashed
    /// supervisor). Returns how many were removed.
    pub fn clean_leftovers(&self) -> usize {
        let mut removed = 0;
        for base in self.bases() {
            let Ok(entries) = fs_err::read_dir(&base.dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(pid) = name.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
                    continue;
                };
                if Path::new(&format!("/proc/{pid}")).exists() {
                    continue;
                }
                let leaf = ExecCgroup::existing(self, &name);
                leaf.kill_all();
                if leaf.remove().is_ok() {
                    removed += 1;
                }
            }
        }
        removed
    }
}

/// The leaf, directly under a delegated v2 root, that passrate moves its own process into
/// when that process sits in the root itself (see [`enable_in_root`]).
pub const SUPERVISOR_LEAF: &str = "passrate-supervisor";

/// Enables `enable` (`+memory +pids +cpu`) for the children of the v2 `root`.
///
/// cgroup v2's "no internal processes" rule: a cgroup other than the hierarchy's root cannot
/// enable controllers for its children while processes live in it (EBUSY). Under systemd
/// with `Delegate=yes`, the service's (or `systemd-run --scope`'s) own process starts in the
/// delegated cgroup that becomes passrate's root. As systemd's delegation rules ask, this
/// process then moves itself (every thread: v2 `cgroup.procs` moves whole processes) into a
/// leaf of its own, [`SUPERVISOR_LEAF`], and enables again. Other processes in the root are
/// not moved: they are not passrate's to place, and the error names them.
fn enable_in_root(root: &Path, enable: &str) -> Result<(), String> {
    let control = root.join("cgroup.subtree_control");
    let first = match fs_err::write(&control, enable) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    // fs_err keeps the error's kind, not its raw errno.
    let busy = first.kind() == io::ErrorKind::ResourceBusy;
    let me = std::process::id().to_string();
    let in_root = || -> Vec<String> {
        fs_err::read_to_string(root.join("cgroup.procs"))
            .map(|t| t.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    };
    if busy && in_root().contains(&me) {
        let leaf = root.join(SUPERVISOR_LEAF);
        match fs_err::create_dir(&leaf) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e.to_string()),
            _ => {}
        }
        fs_err::write(leaf.join("cgroup.procs"), &me).map_err(|e| {
            format!(
                "cannot move this process out of the delegated cgroup {} into {}: {e}",
                root.display(),
                leaf.display()
            )
        })?;
        match fs_err::write(&control, enable) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() != io::ErrorKind::ResourceBusy => {
                return Err(format!("cannot enable controllers: {e}"));
            }
            Err(_) => {}
        }
    } else if !busy {
        return Err(format!("cannot enable controllers: {first}"));
    }
    Err(format!(
        "{} holds processes ({}), and a non-root cgroup v2 with processes cannot enable \
         controllers for its children: move them into a leaf cgroup, or start passrate alone \
         in its delegated cgroup (systemd: `Delegate=yes`)",
        root.display(),
        in_root().join(" ")
    ))
}

/// A v2 `cgroup.kill` exists in children even when the base (created by us) lacks it on
/// some kernels' roots; probe with a throwaway child.
fn has_kill_file(base: &Path) -> bool {
    let probe = base.join(format!("probe-{}", std::process::id()));
    if fs_err::create_dir(&probe).is_err() {
        return false;
    }
    let ok = probe.join("cgroup.kill").exists();
    let _ = fs_err::remove_dir(&probe);
    ok
}

fn read_cpu_us(dir: &Path, version: Version) -> io::Result<u64> {
    match version {
        Version::V2 => {
            let stat = read_small(&dir.join("cpu.stat"))?;
            stat.lines()
                .find_map(|l| l.strip_prefix("usage_usec "))
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| io::Error::other("cpu.stat has no usage_usec"))
        }
        Version::V1 => {
            let ns: u64 = read_small(&dir.join("cpuacct.usage"))?
                .trim()
                .parse()
                .map_err(|_| io::Error::other("unreadable cpuacct.usage"))?;
            Ok(ns / 1000)
        }
    }
}

/// The leaf cgroups of one execution.
#[derive(Debug)]
pub struct ExecCgroup {
    layout: Layout,
    name: String,
    /// Found empty by [`kill_all`](Self::kill_all). It stays empty: only processes in a leaf
    /// add to it (by forking), and nothing in a jail can open a `cgroup.procs` file to join
    /// one (its descriptors, opened by the jail as host root, go to the one process that
    /// joins before anything of the execution runs).
    emptied: std::cell::Cell<bool>,
    /// v2: a descriptor of the memory leaf's `memory.peak` through which the peak was reset
    /// ([`reset_peak_memory`](Self::reset_peak_memory)); the reset holds for reads through
    /// this descriptor only.
    peak_fd: std::cell::Cell<Option<std::os::fd::RawFd>>,
}

impl Drop for ExecCgroup {
    fn drop(&mut self) {
        if let Some(fd) = self.peak_fd.take() {
            crate::sys::close(fd);
        }
    }
}

fn leaf(base: &Base, name: &str) -> PathBuf {
    base.dir.join(name)
}

/// Reads a small cgroup file with open, read and close only: `fs::read_to_string` also
/// stats the file and seeks, and the jail reads several of these per execution (`cpu.stat`
/// every few milliseconds while a step runs).
fn read_small(path: &Path) -> io::Result<String> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
    let fd =
        crate::sys::cvt(unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) })?;
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let result = loop {
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            break Err(e);
        }
        data.extend_from_slice(&buf[..n as usize]);
        // kernfs returns the whole generated text up to the buffer's size: a short read is
        // the end (one read instead of a second one returning 0).
        if (n as usize) < buf.len() {
            break Ok(());
        }
    };
    crate::sys::close(fd);
    result?;
    String::from_utf8(data).map_err(io::Error::other)
}

impl ExecCgroup {
    fn existing(layout: &Layout, name: &str) -> ExecCgroup {
        ExecCgroup {
            layout: layout.clone(),
            name: name.to_owned(),
            emptied: std::cell::Cell::new(false),
            peak_fd: std::cell::Cell::new(None),
        }
    }

    /// Creates the leaves and writes the limits.
    pub fn create(
        layout: &Layout,
        name: &str,
        memory_bytes: u64,
        pids: u32,
    ) -> io::Result<ExecCgroup> {
        let cg = ExecCgroup::existing(layout, name);
        for base in layout.bases() {
            fs_err::create_dir(leaf(base, name))?;
        }
        cg.set_limits(memory_bytes, pids)?;
        Ok(cg)
    }

    /// Writes the memory (no swap) and process limits.
    pub fn set_limits(&self, memory_bytes: u64, pids: u32) -> io::Result<()> {
        let (layout, name) = (&self.layout, self.name.as_str());
        let mem = leaf(&layout.memory, name);
        match layout.memory.version {
            Version::V2 => {
                fs_err::write(mem.join("memory.max"), memory_bytes.to_string())?;
                if mem.join("memory.swap.max").exists() {
                    fs_err::write(mem.join("memory.swap.max"), "0")?;
                }
                let _ = fs_err::write(mem.join("memory.oom.group"), "1");
            }
            Version::V1 => {
                let value = memory_bytes.to_string();
                let limit = mem.join("memory.limit_in_bytes");
                let memsw = mem.join("memory.memsw.limit_in_bytes");
                if layout.v1_memsw {
                    // memsw may never be below the limit: lowering both (a prepared leaf
                    // given a smaller limit) must go memsw first, raising limit first.
                    if fs_err::write(&limit, &value).is_err() {
                        fs_err::write(&memsw, &value)?;
                        fs_err::write(&limit, &value)?;
                    }
                    fs_err::write(&memsw, &value)?;
                } else {
                    fs_err::write(&limit, &value)?;
                }
            }
        }
        fs_err::write(leaf(&layout.pids, name).join("pids.max"), pids.to_string())?;
        Ok(())
    }

    /// The `cgroup.procs` files a process writes "0" to in order to join every leaf.
    pub fn procs_files(&self) -> Vec<PathBuf> {
        self.layout
            .bases()
            .into_iter()
            .map(|b| leaf(b, &self.name).join("cgroup.procs"))
            .collect()
    }

    /// Opens every leaf's `cgroup.procs` for writing, as host root: a process inside the
    /// jail then joins by writing "0" (v1 and v2 check the opener's credentials, not the
    /// writer's). The descriptors are close-on-exec.
    pub fn open_procs_fds(&self) -> Result<Vec<std::os::fd::RawFd>, String> {
        let mut fds = Vec::new();
        for file in self.procs_files() {
            let opened = std::ffi::CString::new(file.as_os_str().as_encoded_bytes())
                .map_err(|e| e.to_string())
                .and_then(|path| {
                    crate::sys::cvt(unsafe {
                        libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC)
                    })
                    .map_err(|e| format!("failed to open {}: {e}", file.display()))
                });
            match opened {
                Ok(fd) => fds.push(fd),
                Err(e) => {
                    fds.into_iter().for_each(crate::sys::close);
                    return Err(e);
                }
            }
        }
        Ok(fds)
    }

    /// CPU time used by everything that ran in the leaf, in microseconds.
    pub fn cpu_us(&self) -> io::Result<u64> {
        read_cpu_us(&leaf(&self.layout.cpu, &self.name), self.layout.cpu.version)
    }

    /// Memory charged to the leaf now (v2 `memory.current`, v1 `memory.usage_in_bytes`).
    pub fn current_memory(&self) -> Option<u64> {
        let dir = leaf(&self.layout.memory, &self.name);
        let file = match self.layout.memory.version {
            Version::V2 => dir.join("memory.current"),
            Version::V1 => dir.join("memory.usage_in_bytes"),
        };
        fs_err::read_to_string(file).ok()?.trim().parse().ok()
    }

    pub fn peak_memory(&self) -> Option<u64> {
        if let Some(fd) = self.peak_fd.get() {
            let mut buf = [0u8; 64];
            let n = unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
            if n > 0 {
                return std::str::from_utf8(&buf[..n as usize])
                    .ok()?
                    .trim()
                    .parse()
                    .ok();
            }
        }
        let dir = leaf(&self.layout.memory, &self.name);
        let file = match self.layout.memory.version {
            Version::V2 => dir.join("memory.peak"),
            Version::V1 => dir.join("memory.max_usage_in_bytes"),
        };
        read_small(&file).ok()?.trim().parse().ok()
    }

    /// Makes the peak memory count from now (a pre-started program's hand-over). v1 resets
    /// `memory.max_usage_in_bytes` to the current usage. v2's `memory.peak` (Linux 6.12+)
    /// resets per descriptor: a write through a descriptor makes reads through that same
    /// descriptor count from the current usage, so the descriptor is kept for
    /// [`peak_memory`](Self::peak_memory). On older v2 kernels the write fails and the peak
    /// includes the program's start-up (reported as measured).
    pub fn reset_peak_memory(&self) {
        let dir = leaf(&self.layout.memory, &self.name);
        match self.layout.memory.version {
            Version::V1 => {
                let _ = fs_err::write(dir.join("memory.max_usage_in_bytes"), "0");
            }
            Version::V2 => {
                use std::os::unix::ffi::OsStrExt;
                let Ok(path) =
                    std::ffi::CString::new(dir.join("memory.peak").as_os_str().as_bytes())
                else {
                    return;
                };
                let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
                if fd < 0 {
                    return;
                }
                let reset = b"reset\n";
                if unsafe { libc::write(fd, reset.as_ptr().cast(), reset.len()) } < 0 {
                    crate::sys::close(fd);
                    return;
                }
                if let Some(old) = self.peak_fd.replace(Some(fd)) {
                    crate::sys::close(old);
                }
            }
        }
    }

    /// Whether the kernel OOM-killed something in the leaf.
    pub fn oom_killed(&self) -> bool {
        let dir = leaf(&self.layout.memory, &self.name);
        let file = match self.layout.memory.version {
            Version::V2 => dir.join("memory.events"),
            Version::V1 => dir.join("memory.oom_control"),
        };
        let Ok(text) = read_small(&file) else {
            return false;
        };
        text.lines()
            .filter_map(|l| l.strip_prefix("oom_kill "))
            .any(|n| n.trim().parse::<u64>().is_ok_and(|n| n > 0))
    }

    fn procs(&self) -> Vec<i32> {
        let mut pids = Vec::new();
        for file in self.procs_files() {
            if let Ok(text) = read_small(&file) {
                pids.extend(text.lines().filter_map(|l| l.trim().parse::<i32>().ok()));
            }
        }
        pids.sort_unstable();
        pids.dedup();
        pids
    }

    pub fn is_empty(&self) -> bool {
        self.procs().is_empty()
    }

    /// v2: whether `cgroup.events` of the kill leaf `dir` still says `populated 1`.
    fn v2_populated(&self, dir: &Path) -> bool {
        self.layout.kill.version == Version::V2
            && read_small(&dir.join("cgroup.events"))
                .is_ok_and(|t| t.lines().any(|l| l.trim() == "populated 1"))
    }

    /// Kills every process in the leaf and waits (bounded) until none is left. Once the leaf
    /// was found empty this reads nothing: an execution calls it up to three times.
    pub fn kill_all(&self) {
        if self.emptied.get() {
            return;
        }
        let dir = leaf(&self.layout.kill, &self.name);
        for _ in 0..200 {
            // v2's `cgroup.procs` stops listing a process once all its threads are exiting,
            // while it may still be tearing down its memory (seen in the pure v2 guest of
            // scripts/test-cgroup-v2.sh: a fork-bomb child still in /proc after the leaf
            // read empty). `populated 0` in `cgroup.events` comes only after every task has
            // left the cgroup, so v2 waits for that too.
            if self.is_empty() && !self.v2_populated(&dir) {
                self.emptied.set(true);
                return;
            }
            match self.layout.kill.version {
                Version::V2 => {
                    let _ = fs_err::write(dir.join("cgroup.kill"), "1");
                }
                Version::V1 => {
                    // Frozen processes cannot fork between our listing and our kill.
                    let state = dir.join("freezer.state");
                    let _ = fs_err::write(&state, "FROZEN");
                    for pid in self.procs() {
                        unsafe { libc::kill(pid, libc::SIGKILL) };
                    }
                    let _ = fs_err::write(&state, "THAWED");
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Removes the leaves (after [`kill_all`](Self::kill_all)); retries briefly on EBUSY while
    /// the kernel finishes tearing processes down.
    pub fn remove(&self) -> io::Result<()> {
        let mut last = Ok(());
        for base in self.layout.bases() {
            // A leaf already gone is NotFound below (no stat before each rmdir).
            let dir = leaf(base, &self.name);
            last = Ok(());
            for _ in 0..500 {
                match std::fs::remove_dir(&dir) {
                    Ok(()) => {
                        last = Ok(());
                        break;
                    }
                    Err(e) if e.kind() == io::ErrorKind::NotFound => break,
                    Err(e) => {
                        last = Err(e);
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                }
            }
        }
        last
    }
}
