//! The host side: probes the machine once, then runs each execution by starting the
//! single-threaded jail process and exchanging one frame each way with it.

use std::path::{Component, Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, RwLock};

use crate::api::{ExecOutcome, ExecRequest, ExecStatus, Program, SandboxError};
use crate::cgroup::{CgroupPreference, Layout};
use crate::java_archive::{JavaArchive, JavaArchiveSpec};
use crate::runtimes::Runtimes;
use crate::wire::{self, JailRequest, JailResponse, Start};

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
    /// Serve single-step Python executions from warm slots with a pre-imported fork server
    /// (same isolation per execution; ~10× less start-up). Off: every execution is a fresh jail.
    pub fork_server: bool,
    /// Modules the Python fork server imports once.
    pub python_preload: Vec<String>,
    /// Pin each warm Python slot (its jail, fork server and every execution forked from it)
    /// to one CPU of those this process may use, one slot per CPU, when there are at least
    /// as many CPUs as slots (`PASSRATE_PIN_SLOTS=0` turns it off). A fork server's
    /// children then never change page tables that another CPU has cached (no TLB-flush
    /// interrupts); the Python bench runs ~7 % faster (BENCHMARKS.md, `--no-pin`).
    pub pin_slots: bool,
    /// Compile Java in warm, sandboxed compiler JVMs (`javac -proc:none` semantics), then
    /// run in a fresh jail. Off: `javac` runs cold inside each execution's jail.
    pub java_compile_server: bool,
    /// Compilations a compiler JVM serves before it is replaced: a backstop only. Each
    /// replacement pays the JVM's start and its JIT warm-up again (a new server's first 50
    /// compilations cost ~4× a warm one's CPU, and it is still getting cheaper at 500), so
    /// the working bound on the server's caches is `javac_recycle_memory_bytes`.
    pub javac_recycle_after: u32,
    /// A compiler JVM whose cgroup is charged more than this after a compilation is replaced
    /// (bounds its caches by what they cost; the server's own limit is 768 MiB, and a warm
    /// one levels off near 170 MiB).
    pub javac_recycle_memory_bytes: u64,
    /// Bytes of warm-compiler results kept for reuse by byte-identical sources (0: none);
    /// see `javac_cache.rs` for why that is sound.
    pub javac_cache_bytes: usize,
    /// Let the warm compiler reuse javac's compiler state between compilations where that is
    /// checked to give what a fresh compilation gives (`JavacServer.java`; the argument is in
    /// AGENTS.md). Off: a fresh javac task per compilation.
    pub javac_reuse_context: bool,
    /// Pre-started jails kept ready per kind of execution that opts in
    /// (`ExecRequest::prestart`); 0 runs those in fresh jails started on demand.
    pub prestarted: usize,
}

/// How many trusted bytecode files ([`Sandbox::trust_python_bytecode`]) are kept.
pub const MAX_TRUSTED_PYTHON: usize = 4;

/// Modules harnesses and typical candidates import; importing them once in the fork server
/// saves every execution their import time.
pub const DEFAULT_PYTHON_PRELOAD: &[&str] = &[
    "json",
    "math",
    "re",
    "collections",
    "itertools",
    "functools",
    "heapq",
    "bisect",
    "string",
    "typing",
    "copy",
    "struct",
    "hashlib",
    "fractions",
    "decimal",
    "statistics",
    "random",
    "operator",
    "traceback",
    "io",
    "time",
    "datetime",
    "array",
    "cmath",
    "unicodedata",
];

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
            fork_server: true,
            python_preload: DEFAULT_PYTHON_PRELOAD
                .iter()
                .map(|m| m.to_string())
                .collect(),
            pin_slots: std::env::var_os("PASSRATE_PIN_SLOTS").is_none_or(|v| v != "0"),
            java_compile_server: true,
            javac_recycle_after: 20_000,
            javac_recycle_memory_bytes: 384 << 20,
            javac_cache_bytes: 32 << 20,
            javac_reuse_context: true,
            prestarted: std::thread::available_parallelism().map_or(2, |n| n.get()),
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

/// How many live warm slots are pinned to each CPU.
struct CpuSpread {
    live: Arc<Mutex<std::collections::HashMap<usize, usize>>>,
    /// Where this sandbox starts counting among the allowed CPUs, so that independent
    /// sandboxes on one host (test processes, two evaluations) do not all put their first
    /// slot on the same CPU (they usually differ; nothing coordinates them).
    offset: usize,
}

impl CpuSpread {
    fn new() -> CpuSpread {
        static SANDBOXES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let nth = SANDBOXES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        CpuSpread {
            live: Arc::default(),
            offset: std::process::id() as usize + nth,
        }
    }

    /// Claims the allowed CPU with the fewest live slots (this process's allowed set is read
    /// again at each claim: it may have changed), or none when the sandbox has more slots
    /// than there are CPUs: two slots pinned to one CPU could not be balanced.
    fn claim(&self, slots: usize) -> std::io::Result<Option<CpuClaim>> {
        let allowed = crate::sys::allowed_cpus()?;
        let n = allowed.len();
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        let least_used = (0..n)
            .map(|i| allowed[(i + self.offset) % n])
            .min_by_key(|cpu| live.get(cpu).copied().unwrap_or(0));
        let Some(cpu) = least_used.filter(|_| slots <= n) else {
            return Ok(None);
        };
        *live.entry(cpu).or_default() += 1;
        Ok(Some(CpuClaim {
            live: self.live.clone(),
            cpu,
        }))
    }
}

/// A live slot's CPU, given back when the slot is dropped.
struct CpuClaim {
    live: Arc<Mutex<std::collections::HashMap<usize, usize>>>,
    cpu: usize,
}

impl Drop for CpuClaim {
    fn drop(&mut self) {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = live.get_mut(&self.cpu) {
            *n = n.saturating_sub(1);
        }
    }
}

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
    /// Idle warm slots (at most `slots` exist; one in use per running Python execution).
    warm: Mutex<Vec<WarmSlot>>,
    /// The CPUs warm slots are pinned to (`SandboxConfig::pin_slots`).
    slot_cpus: CpuSpread,
    /// Idle compiler JVMs, with the number of compilations each has served and whether its
    /// jail binds the Java class-data archive (started after the archive was installed).
    javac: Mutex<Vec<(WarmSlot, u32, bool)>>,
    /// Warm-compiler results by their sources.
    javac_cache: crate::javac_cache::CompileCache,
    /// Compilations the warm compilers served in reused javac state (not cache hits).
    javac_reused: std::sync::atomic::AtomicU64,
    /// Pre-started jails, ready for their hand-over, and the starts in flight.
    prestart: Arc<PrestartPool>,
    /// The Java class-data archive, once installed (its directory is removed on drop).
    /// Written once, briefly: executions read it while holding a slot.
    java_archive: RwLock<Option<JavaArchive>>,
    /// Serializes installers; held while building (never `java_archive`'s write lock, which
    /// would block executions holding the slots the installer's check waits for).
    java_archive_install: Mutex<()>,
    /// Trusted Python bytecode (`trust_python_bytecode`), in registration order; each warm
    /// slot is sent the entries it has not had yet with its next execution.
    trusted_python: Mutex<Vec<crate::slot::Blob>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Starts in flight hold no reference to us; wait for them so that every jail (and
        // its cgroup leaf) is gone when the sandbox is.
        self.prestart
            .closed
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let mut state = self
            .prestart
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        while state.starting.values().sum::<usize>() > 0 {
            state = self
                .prestart
                .cond
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
        let ready = std::mem::take(&mut state.ready);
        drop(state);
        drop(ready);
        // No jail of ours is left that binds the archive.
        let archive = self
            .java_archive
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(archive) = archive
            && let Err(e) = fs_err::remove_dir_all(&archive.dir)
        {
            tracing::warn!("failed to remove the Java class-data archive: {e}");
        }
    }
}

/// Pre-started jails by key (the program, its limits and its pre-start files, serialized):
/// each is used for exactly one execution, then replaced in the background.
#[derive(Default)]
struct PrestartPool {
    state: Mutex<PrestartState>,
    cond: Condvar,
    closed: std::sync::atomic::AtomicBool,
}

#[derive(Default)]
struct PrestartState {
    ready: Vec<(String, Prestarted)>,
    starting: std::collections::HashMap<String, usize>,
}

/// An idle pre-started jail. Dropped unused, it is told to go (its stdin closes) and waited
/// for, so it removes its own cgroup leaf.
struct Prestarted {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
}

impl Drop for Prestarted {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// Keys of the pre-start pool kept at once (a new key evicts the oldest).
const PRESTART_KEYS: usize = 4;

/// The pool key of a request that may be pre-started, or `None`.
fn prestart_key(request: &ExecRequest) -> Option<String> {
    let names = request.prestart.as_ref()?;
    if request.steps.len() != 1
        || !matches!(
            request.steps[0],
            Program::Node { .. } | Program::Java { .. }
        )
    {
        return None;
    }
    let mut files = Vec::new();
    for name in names {
        files.push(request.files.iter().find(|f| &f.path == name)?);
    }
    // What is fixed when the program starts; CPU, wall and output limits apply from the
    // hand-over (the jail takes them from the hand-over request).
    let l = &request.limits;
    let fixed = (l.memory_bytes, l.heap_bytes, l.pids, l.workdir_bytes);
    serde_json::to_string(&(&request.steps, fixed, names, files)).ok()
}

/// The template a pre-started jail is started from: only the pre-start files, no inputs.
fn prestart_template(request: &ExecRequest) -> ExecRequest {
    let names = request.prestart.as_deref().unwrap_or_default();
    ExecRequest {
        steps: request.steps.clone(),
        files: request
            .files
            .iter()
            .filter(|f| names.contains(&f.path))
            .cloned()
            .collect(),
        stdin: Vec::new(),
        channel_input: Vec::new(),
        limits: request.limits.clone(),
        prestart: request.prestart.clone(),
        frame_budgets: None,
    }
}

/// A jail process in slot mode and the pipes to it.
struct WarmSlot {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    /// How many of `Inner::trusted_python` this (Python) slot has been sent.
    trusted_sent: usize,
    /// The CPU a Python slot is pinned to, while it lives.
    cpu: Option<CpuClaim>,
}

impl WarmSlot {
    fn stdin(&self) -> &ChildStdin {
        self.stdin.as_ref().expect("open until dropped")
    }
}

impl Drop for WarmSlot {
    fn drop(&mut self) {
        // Closing its stdin ends the slot, which then removes its prepared cgroup leaf;
        // one that does not go within a second is killed (its leaves are then removed at
        // the next start).
        drop(self.stdin.take());
        for _ in 0..1000 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether a compiler JVM that has served `served` compilations, the last one `outcome`,
/// stays in service. A timed-out compilation killed its server; it is not reused.
fn keep_compiler(
    config: &SandboxConfig,
    served: u32,
    outcome: &crate::javac::CompileOutcome,
) -> bool {
    !outcome.timed_out
        && served < config.javac_recycle_after
        && outcome
            .server_memory_bytes
            .is_none_or(|m| m <= config.javac_recycle_memory_bytes)
}

/// Starts a jail in pre-start mode and waits for its "ready"; `None` if it failed (the
/// execution that would have used it runs in a fresh jail instead, which reports errors).
fn start_prestarted(launcher: &(PathBuf, Vec<String>), request: JailRequest) -> Option<Prestarted> {
    let (program, args) = launcher;
    let mut child = Command::new(program)
        .args(args)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .ok()?;
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let mut jail = Prestarted {
        child,
        stdin: Some(stdin),
        stdout,
    };
    let ready: std::io::Result<Result<(), String>> =
        match wire::write_frame(jail.stdin.as_ref().expect("set"), &Start::Prestart(request)) {
            Ok(()) => wire::read_frame(&mut jail.stdout),
            Err(e) => Err(e),
        };
    match ready {
        Ok(Ok(())) => Some(jail),
        Ok(Err(message)) => {
            tracing::warn!("a pre-started jail failed to start: {message}");
            None
        }
        Err(e) => {
            tracing::warn!("a pre-started jail failed to start: {e}");
            None
        }
    }
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

/// Whether this host lets passrate create user namespaces, as root: the first thing
/// [`Sandbox::new`] checks (`passrate sandbox check` reports it on its own).
pub fn check_user_namespaces() -> Result<(), SandboxError> {
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
    request
        .limits
        .check()
        .map_err(|e| SandboxError::InvalidRequest(e.to_string()))
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
        crate::java_archive::clean_leftovers();
        let runtimes = Runtimes::resolve();
        let launcher = locate_launcher(&config.launcher)?;
        let slots = Slots {
            free: Mutex::new(config.slots.max(1)),
            cond: Condvar::new(),
        };
        let (warm, javac) = (Mutex::new(Vec::new()), Mutex::new(Vec::new()));
        let javac_cache = crate::javac_cache::CompileCache::new(config.javac_cache_bytes);
        let prestart = Arc::new(PrestartPool::default());
        let sandbox = Sandbox {
            inner: Arc::new(Inner {
                config,
                layout,
                runtimes,
                launcher,
                slots,
                warm,
                slot_cpus: CpuSpread::new(),
                javac,
                javac_cache,
                javac_reused: std::sync::atomic::AtomicU64::new(0),
                prestart,
                java_archive: RwLock::new(None),
                java_archive_install: Mutex::new(()),
                trusted_python: Mutex::new(Vec::new()),
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

    /// The runtimes as executions see them: with the Java class-data archive once installed.
    fn run_runtimes(&self) -> Runtimes {
        let mut runtimes = self.inner.runtimes.clone();
        runtimes.java_archive = self.java_archive();
        runtimes
    }

    /// The installed Java class-data archive, if any.
    pub fn java_archive(&self) -> Option<JavaArchive> {
        self.inner
            .java_archive
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Builds a Java application class-data archive from trusted inputs (never candidate
    /// input) and, once a JVM in a jail has mapped it with the runs' flags, makes every later
    /// run of one of its main classes use it (see `java_archive`). Once per sandbox. On error
    /// nothing changes: runs go on without it (slower, same verdicts); the caller reports it.
    pub fn install_java_archive(
        &self,
        spec: &JavaArchiveSpec,
    ) -> Result<JavaArchive, SandboxError> {
        let _installing = self
            .inner
            .java_archive_install
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if self.java_archive().is_some() {
            return Err(SandboxError::InvalidRequest(
                "a Java class-data archive is already installed".into(),
            ));
        }
        let heap_mib = (crate::api::Limits::default().heap_bytes >> 20).max(1);
        let dir = crate::java_archive::new_dir(&self.inner.config.cgroup_group);
        let built = crate::java_archive::build(spec, &self.inner.runtimes, heap_mib, &dir)
            .and_then(|archive| {
                self.check_java_archive(&archive, heap_mib)?;
                Ok(archive)
            });
        match built {
            Ok(archive) => {
                *self
                    .inner
                    .java_archive
                    .write()
                    .unwrap_or_else(|e| e.into_inner()) = Some(archive.clone());
                Ok(archive)
            }
            Err(message) => {
                let _ = fs_err::remove_dir_all(&dir);
                Err(SandboxError::Internal(format!(
                    "failed to build the Java class-data archive: {message}"
                )))
            }
        }
    }

    /// A JVM with the runs' flags must map the archive inside a jail (`-Xshare:on`).
    fn check_java_archive(&self, archive: &JavaArchive, heap_mib: u64) -> Result<(), String> {
        let mut runtimes = self.inner.runtimes.clone();
        runtimes.java_archive = Some(archive.clone());
        let (path, args) = crate::java_archive::check_command(archive, &runtimes, heap_mib)
            .ok_or("java is not installed on this host")?;
        let request = ExecRequest::single(Program::Exec { path, args });
        let _slot = self.inner.slots.acquire();
        let outcome = self
            .execute_fresh_with(&request, runtimes)
            .map_err(|e| e.to_string())?;
        if outcome.status == ExecStatus::Ok {
            Ok(())
        } else {
            Err(format!(
                "a JVM in a jail did not map it ({:?}): {}",
                outcome.status,
                String::from_utf8_lossy(&outcome.stderr).trim()
            ))
        }
    }

    /// Registers bytecode (a `.pyc`: magic number, 12 header bytes, marshalled code) of the
    /// caller's own trusted program, e.g. its harness, never a file of a candidate. Warm
    /// Python slots then load it once in the fork server, and an execution whose script file
    /// has exactly these bytes runs the loaded code instead of unmarshalling it again (about
    /// 0.5 ms of CPU and 200 page copies per execution for a 20 KB harness). Anything else
    /// runs as before; at most [`MAX_TRUSTED_PYTHON`] are kept.
    pub fn trust_python_bytecode(&self, pyc: Vec<u8>) {
        let mut trusted = self
            .inner
            .trusted_python
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let blob = crate::slot::Blob(pyc);
        if trusted.len() < MAX_TRUSTED_PYTHON && !trusted.contains(&blob) {
            trusted.push(blob);
        }
    }

    /// How many compilations the warm compilers have served in javac state reused from an
    /// earlier compilation (`SandboxConfig::javac_reuse_context`); cache hits not counted.
    pub fn javac_reused_compilations(&self) -> u64 {
        self.inner
            .javac_reused
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn cgroup_layout(&self) -> &Layout {
        &self.inner.layout
    }

    /// Idle pre-started jails, ready for a hand-over (all kinds).
    pub fn prestarted_ready(&self) -> usize {
        let state = self
            .inner
            .prestart
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        state.ready.len()
    }

    /// Idle pre-started jails that could serve `request` (for a `[javac, java]` request, its
    /// run step after the warm compiler).
    pub fn prestarted_ready_for(&self, request: &ExecRequest) -> usize {
        let mut run = request.clone();
        if run.steps.len() > 1 && matches!(run.steps[0], Program::Javac { .. }) {
            run.steps.remove(0);
        }
        let Some(key) = prestart_key(&run) else {
            return 0;
        };
        let state = self
            .inner
            .prestart
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        state.ready.iter().filter(|(k, _)| *k == key).count()
    }

    pub fn slots(&self) -> usize {
        self.inner.config.slots.max(1)
    }

    /// Runs one execution: single-step Python in a warm slot (when the fork server is on),
    /// everything else in a fresh jail. Blocks until it ends; at most `slots` run at once.
    pub fn execute(&self, request: &ExecRequest) -> Result<ExecOutcome, SandboxError> {
        validate(request)?;
        let _slot = self.inner.slots.acquire();
        if self.inner.config.fork_server && crate::slot::fork_servable(request) {
            return self.execute_warm(request);
        }
        if self.inner.config.prestarted > 0
            && let Some(key) = prestart_key(request)
        {
            return self.execute_prestarted(request, key);
        }
        if let Some(Program::Javac { sources, archive }) = request.steps.first()
            && self.inner.config.java_compile_server
            && request.steps.len() > 1
        {
            return self.execute_with_warm_javac(request, sources, *archive);
        }
        self.execute_fresh(request)
    }

    /// Compiles the first step's sources in a warm compiler, then runs the remaining steps
    /// in a fresh jail with the class files added. Reported as the same two-step execution.
    fn execute_with_warm_javac(
        &self,
        request: &ExecRequest,
        sources: &[String],
        archive: bool,
    ) -> Result<ExecOutcome, SandboxError> {
        let class_path = if archive {
            let archive = self.java_archive().ok_or_else(|| {
                SandboxError::InvalidRequest(
                    "javac against the class-data archive, but none is installed".into(),
                )
            })?;
            Some(archive.jar().display().to_string())
        } else {
            None
        };
        let mut files = Vec::with_capacity(sources.len());
        for source in sources {
            let file = request
                .files
                .iter()
                .find(|f| &f.path == source)
                .ok_or_else(|| {
                    SandboxError::InvalidRequest(format!(
                        "javac source {source:?} is not among the input files"
                    ))
                })?;
            files.push(file.clone());
        }
        let compiled = self.compile_warm(files, class_path, request.limits.setup_cpu_ms)?;
        if !compiled.ok {
            return Ok(ExecOutcome {
                status: if compiled.timed_out {
                    ExecStatus::Timeout
                } else {
                    ExecStatus::RuntimeError
                },
                step: 0,
                exit_code: (!compiled.timed_out).then_some(1),
                signal: None,
                cpu_us: compiled.cpu_us,
                wall_us: compiled.wall_us,
                peak_memory_bytes: None,
                stdout: Vec::new(),
                stderr: compiled.diagnostics.into_bytes(),
                channel_output: Vec::new(),
                truncated: false,
            });
        }
        let mut run = request.clone();
        run.steps.remove(0);
        run.files.extend(compiled.classes);
        let mut outcome = match prestart_key(&run) {
            Some(key) if self.inner.config.prestarted > 0 => self.execute_prestarted(&run, key)?,
            _ => self.execute_fresh(&run)?,
        };
        outcome.step += 1;
        outcome.cpu_us += compiled.cpu_us;
        outcome.wall_us += compiled.wall_us;
        Ok(outcome)
    }

    fn compile_warm(
        &self,
        sources: Vec<crate::api::InputFile>,
        class_path: Option<String>,
        cpu_ms: u64,
    ) -> Result<crate::javac::CompileOutcome, SandboxError> {
        let inner = &self.inner;
        if let Some(hit) = inner
            .javac_cache
            .get(&sources, class_path.as_deref(), cpu_ms)
        {
            return Ok(hit);
        }
        let idle = inner.javac.lock().unwrap_or_else(|e| e.into_inner()).pop();
        // A server started before the archive was installed cannot read its JAR: retire it
        // (dropping it kills it) rather than compile without the class path.
        let idle = idle.filter(|(_, _, binds)| *binds || class_path.is_none());
        let (mut slot, served, binds_archive) = match idle {
            Some(s) => s,
            None => {
                // The runs' runtimes: the jail then binds the archive, once installed.
                let runtimes = self.run_runtimes();
                let binds_archive = runtimes.java_archive.is_some();
                let request = crate::javac::JavacSlotRequest {
                    runtimes,
                    cgroups: inner.layout.clone(),
                    uid_base: inner.config.uid_base,
                    ro_binds: inner.config.ro_binds.clone(),
                    root_mountpoint: crate::jail::default_root_mountpoint().to_path_buf(),
                    reuse_context: inner.config.javac_reuse_context,
                };
                (
                    self.start_slot_process(Start::Javac(request), "a Java compile server")?,
                    0,
                    binds_archive,
                )
            }
        };
        let request = crate::javac::CompileRequest {
            sources,
            class_path,
            cpu_ms,
        };
        let response: std::io::Result<crate::javac::CompileResponse> =
            match wire::write_frame(slot.stdin(), &request) {
                Ok(()) => wire::read_frame(&mut slot.stdout),
                Err(e) => Err(e),
            };
        match response {
            Ok(Ok(outcome)) => {
                if outcome.reused_context {
                    inner
                        .javac_reused
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                inner
                    .javac_cache
                    .put(&request.sources, request.class_path.as_deref(), &outcome);
                if keep_compiler(&inner.config, served + 1, &outcome) {
                    inner.javac.lock().unwrap_or_else(|e| e.into_inner()).push((
                        slot,
                        served + 1,
                        binds_archive,
                    ));
                }
                Ok(outcome)
            }
            Ok(Err(message)) => Err(SandboxError::Internal(message)),
            Err(e) => Err(SandboxError::Internal(format!(
                "the Java compile server failed: {e}"
            ))),
        }
    }

    /// Runs one execution in a fresh jail (never a warm slot), e.g. to measure or to compare.
    pub fn execute_fresh_jail(&self, request: &ExecRequest) -> Result<ExecOutcome, SandboxError> {
        validate(request)?;
        let _slot = self.inner.slots.acquire();
        self.execute_fresh(request)
    }

    fn spawn_launcher(&self) -> Result<(Child, ChildStdin, ChildStdout), SandboxError> {
        let (program, args) = &self.inner.launcher;
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
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        Ok((child, stdin, stdout))
    }

    fn execute_fresh(&self, request: &ExecRequest) -> Result<ExecOutcome, SandboxError> {
        self.execute_fresh_with(request, self.run_runtimes())
    }

    fn execute_fresh_with(
        &self,
        request: &ExecRequest,
        runtimes: Runtimes,
    ) -> Result<ExecOutcome, SandboxError> {
        let inner = &self.inner;
        let jail_request = JailRequest {
            exec: request.clone(),
            runtimes,
            cgroups: inner.layout.clone(),
            uid_base: inner.config.uid_base,
            ro_binds: inner.config.ro_binds.clone(),
            root_mountpoint: crate::jail::default_root_mountpoint().to_path_buf(),
        };
        let (mut child, stdin, mut stdout) = self.spawn_launcher()?;
        // The jail treats the closing of its stdin as our death, so keep it open until the
        // response has been read.
        let response: std::io::Result<JailResponse> =
            match wire::write_frame(&stdin, &Start::Exec(jail_request)) {
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

    /// Runs `request` in a pre-started jail of its kind when one is ready (else in a fresh
    /// jail), and starts a replacement in the background either way.
    fn execute_prestarted(
        &self,
        request: &ExecRequest,
        key: String,
    ) -> Result<ExecOutcome, SandboxError> {
        let taken = {
            let mut state = self
                .inner
                .prestart
                .state
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let taken = state
                .ready
                .iter()
                .position(|(k, _)| *k == key)
                .map(|i| state.ready.remove(i).1);
            let have = state.ready.iter().filter(|(k, _)| *k == key).count()
                + state.starting.get(&key).copied().unwrap_or(0);
            let refill = self.inner.config.prestarted.saturating_sub(have);
            if refill > 0 {
                *state.starting.entry(key.clone()).or_default() += refill;
                for _ in 0..refill {
                    self.refill_in_background(key.clone(), prestart_template(request));
                }
            }
            taken
        };
        let Some(mut jail) = taken else {
            return self.execute_fresh(request);
        };
        let stdin = jail.stdin.as_ref().expect("open until dropped");
        if wire::write_frame(stdin, request).is_err() {
            // It died idle (before any of this request ran): not the program's doing.
            drop(jail);
            return self.execute_fresh(request);
        }
        let response: std::io::Result<JailResponse> = wire::read_frame(&mut jail.stdout);
        drop(jail);
        match response {
            Ok(Ok(outcome)) => Ok(outcome),
            Ok(Err(message)) => Err(SandboxError::Internal(message)),
            Err(e) => Err(SandboxError::Internal(format!(
                "the pre-started jail failed: {e}"
            ))),
        }
    }

    /// Starts one pre-started jail on a background thread and adds it to the pool. The
    /// thread holds no reference to the sandbox while starting; a sandbox dropped meanwhile
    /// waits for it (see `Drop for Inner`), and the new jail is then shut down unused.
    fn refill_in_background(&self, key: String, template: ExecRequest) {
        let pool = Arc::clone(&self.inner.prestart);
        let jail_request = self.jail_request(&template);
        let launcher = self.inner.launcher.clone();
        let spawned = std::thread::Builder::new()
            .name("passrate-prestart".into())
            .spawn({
                let pool = Arc::clone(&pool);
                let key = key.clone();
                move || {
                    let closed = || pool.closed.load(std::sync::atomic::Ordering::SeqCst);
                    let mut started = if closed() {
                        None
                    } else {
                        start_prestarted(&launcher, jail_request)
                    };
                    if closed() {
                        // Shut down before the count drops: the sandbox's drop waits for it.
                        started = None;
                    }
                    let mut state = pool.state.lock().unwrap_or_else(|e| e.into_inner());
                    if let Some(n) = state.starting.get_mut(&key) {
                        *n = n.saturating_sub(1);
                    }
                    let mut evicted = Vec::new();
                    if let Some(jail) = started {
                        if !state.ready.iter().any(|(k, _)| *k == key) {
                            let mut keys: Vec<String> = Vec::new();
                            for (k, _) in &state.ready {
                                if !keys.contains(k) {
                                    keys.push(k.clone());
                                }
                            }
                            if keys.len() >= PRESTART_KEYS {
                                let oldest = keys[0].clone();
                                let (gone, kept) = std::mem::take(&mut state.ready)
                                    .into_iter()
                                    .partition(|(k, _)| *k == oldest);
                                state.ready = kept;
                                evicted = gone;
                            }
                        }
                        state.ready.push((key, jail));
                    }
                    drop(state);
                    pool.cond.notify_all();
                    // Shut down outside the lock: each waits for its jail to clean up.
                    drop(evicted);
                }
            });
        if spawned.is_err() {
            let mut state = pool.state.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(n) = state.starting.get_mut(&key) {
                *n = n.saturating_sub(1);
            }
            pool.cond.notify_all();
        }
    }

    fn jail_request(&self, exec: &ExecRequest) -> JailRequest {
        let inner = &self.inner;
        JailRequest {
            exec: exec.clone(),
            runtimes: self.run_runtimes(),
            cgroups: inner.layout.clone(),
            uid_base: inner.config.uid_base,
            ro_binds: inner.config.ro_binds.clone(),
            root_mountpoint: crate::jail::default_root_mountpoint().to_path_buf(),
        }
    }

    fn start_warm_slot(&self) -> Result<WarmSlot, SandboxError> {
        let inner = &self.inner;
        // Pinning places; it isolates nothing: a host whose CPUs cannot be read (e.g. more
        // than `CPU_SETSIZE` of them) runs its slots unpinned, and says so.
        let cpu = if inner.config.pin_slots {
            inner.slot_cpus.claim(self.slots()).unwrap_or_else(|e| {
                tracing::warn!(
                    "warm Python slot left unpinned: cannot read the CPUs this process may use: {e}"
                );
                None
            })
        } else {
            None
        };
        let request = crate::slot::SlotRequest {
            runtimes: inner.runtimes.clone(),
            cgroups: inner.layout.clone(),
            uid_base: inner.config.uid_base,
            ro_binds: inner.config.ro_binds.clone(),
            root_mountpoint: crate::jail::default_root_mountpoint().to_path_buf(),
            preload: inner.config.python_preload.clone(),
            cpu: cpu.as_ref().map(|c| c.cpu),
        };
        let mut slot = self.start_slot_process(Start::Slot(request), "a warm slot")?;
        slot.cpu = cpu;
        Ok(slot)
    }

    /// Starts a long-lived jail process and waits for its "ready".
    fn start_slot_process(&self, start: Start, what: &str) -> Result<WarmSlot, SandboxError> {
        let (child, stdin, mut stdout) = self.spawn_launcher()?;
        let ready: std::io::Result<Result<(), String>> = match wire::write_frame(&stdin, &start) {
            Ok(()) => wire::read_frame(&mut stdout),
            Err(e) => Err(e),
        };
        let slot = WarmSlot {
            child,
            stdin: Some(stdin),
            stdout,
            trusted_sent: 0,
            cpu: None,
        };
        match ready {
            Ok(Ok(())) => Ok(slot),
            Ok(Err(message)) => Err(SandboxError::Internal(format!(
                "failed to start {what}: {message}"
            ))),
            Err(e) => Err(SandboxError::Internal(format!(
                "failed to start {what}: {e}"
            ))),
        }
    }

    fn execute_warm(&self, request: &ExecRequest) -> Result<ExecOutcome, SandboxError> {
        let idle = self
            .inner
            .warm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop();
        let mut slot = match idle {
            Some(slot) => slot,
            None => self.start_warm_slot()?,
        };
        let (trusted, trusted_files) = {
            let all = self
                .inner
                .trusted_python
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let new = all.get(slot.trusted_sent..).unwrap_or_default().to_vec();
            slot.trusted_sent += new.len();
            // A file whose bytes equal a blob the slot holds (with this frame) travels as
            // the blob's index: hex-encoding the harness's .pyc in JSON and decoding it in
            // the jail cost ~0.2 ms of CPU per execution. The jail puts the same bytes back.
            let held = &all[..slot.trusted_sent.min(all.len())];
            let refs: Vec<(usize, usize)> = request
                .files
                .iter()
                .enumerate()
                .filter(|(_, f)| !f.contents.is_empty())
                .filter_map(|(i, f)| held.iter().position(|b| b.0 == f.contents).map(|k| (i, k)))
                .collect();
            (new, refs)
        };
        let stripped;
        let exec = if trusted_files.is_empty() {
            request
        } else {
            stripped = crate::slot::without_contents(request, &trusted_files);
            &stripped
        };
        let frame = crate::slot::SlotExecRef {
            exec,
            trusted: &trusted,
            trusted_files: &trusted_files,
        };
        let response: std::io::Result<JailResponse> = match wire::write_frame(slot.stdin(), &frame)
        {
            Ok(()) => wire::read_frame(&mut slot.stdout),
            Err(e) => Err(e),
        };
        match response {
            Ok(Ok(outcome)) => {
                self.inner
                    .warm
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(slot);
                Ok(outcome)
            }
            // The slot is suspect after any infrastructure error: it is dropped (killed).
            Ok(Err(message)) => Err(SandboxError::Internal(message)),
            Err(e) => Err(SandboxError::Internal(format!("the warm slot failed: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::javac::CompileOutcome;

    fn compiled(server_memory_bytes: Option<u64>, timed_out: bool) -> CompileOutcome {
        CompileOutcome {
            ok: !timed_out,
            timed_out,
            diagnostics: String::new(),
            classes: Vec::new(),
            cpu_us: 20_000,
            wall_us: 20_000,
            server_memory_bytes,
            reused_context: false,
        }
    }

    #[test]
    fn slot_cpus_are_spread_and_a_gone_slots_cpu_is_the_next_ones() {
        let allowed = crate::sys::allowed_cpus().expect("sched_getaffinity");
        let spread = CpuSpread::new();
        let slots = allowed.len();
        let mut claims: Vec<CpuClaim> = allowed
            .iter()
            .map(|_| spread.claim(slots).expect("allowed CPUs").expect("a CPU"))
            .collect();
        let mut cpus: Vec<usize> = claims.iter().map(|c| c.cpu).collect();
        cpus.sort_unstable();
        assert_eq!(cpus, allowed, "one slot per allowed CPU");
        // The last one claimed: with every count equal, the next claim would be the first.
        let gone = claims.pop().expect("at least one CPU").cpu;
        let next = spread.claim(slots).expect("allowed CPUs").expect("a CPU");
        assert_eq!(next.cpu, gone);
        // More slots than CPUs: none is pinned.
        assert!(spread.claim(slots + 1).expect("allowed CPUs").is_none());
    }

    #[test]
    fn a_warm_compiler_serves_on_past_a_few_hundred_compilations() {
        // Its JIT warm-up is still paying off at 500 compilations: replacing it there (the
        // old count) paid the warm-up again several times per pool import.
        let config = SandboxConfig::default();
        let warm = compiled(Some(170 << 20), false);
        assert!(keep_compiler(&config, 500, &warm));
        assert!(keep_compiler(&config, 5_000, &warm));
        assert!(keep_compiler(&config, 5_000, &compiled(None, false)));
    }

    #[test]
    fn a_compiler_is_retired_past_its_memory_bound_its_count_or_a_timeout() {
        let config = SandboxConfig::default();
        let bound = config.javac_recycle_memory_bytes;
        assert!(keep_compiler(&config, 10, &compiled(Some(bound), false)));
        assert!(!keep_compiler(
            &config,
            10,
            &compiled(Some(bound + 1), false)
        ));
        assert!(!keep_compiler(
            &config,
            config.javac_recycle_after,
            &compiled(Some(1 << 20), false)
        ));
        assert!(!keep_compiler(&config, 10, &compiled(Some(1 << 20), true)));
    }
}
