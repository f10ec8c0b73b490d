//! The warm Java compiler: a jail in "javac slot" mode runs one long-lived JVM with
//! `JavacServer` (uid `COMPILER_UID` = 2000, never the candidate's 1000; no_new_privs, seccomp,
//! its own cgroup leaf with memory, pids and CPU accounting) and feeds it one compilation after
//! another. Annotation processing is off (`-proc:none`), so no code from a source runs at
//! compile time; sources and classes never touch a disk. A compilation over its CPU budget
//! kills the server (the host starts a new one), and the host retires a server whose memory
//! grew past a bound (or, as a backstop, after many compilations) to bound its caches. Retiring
//! is not free: a new server pays its JIT warm-up again (see
//! `SandboxConfig::javac_recycle_after`). Between compilations the server reuses javac's
//! compiler state where its checks find that sound, and compiles fresh otherwise
//! (`JavacServer.java`; AGENTS.md, "Warm javac reuse").

use std::ffi::CString;
use std::io::{self, Read, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::api::InputFile;
use crate::cgroup::{ExecCgroup, Layout};
use crate::jail::{self, HolderFds};
use crate::mounts::{self, COMPILER_UID, RootSpec};
use crate::runtimes::{CLEAN_ENV, Runtimes};
use crate::sys::{self, close, write_all};
use crate::wire;

const SERVER_SOURCE: &[u8] = include_bytes!("JavacServer.java");
const SERVER_PATH: &str = "run/passrate/JavacServer.java";
/// The server's own limits: javac on one source needs far less; this bounds a runaway.
const SERVER_MEMORY: u64 = 768 << 20;
const SERVER_PIDS: u32 = 128;

/// Bounds of one compilation's output. The class files are written into the run's work dir
/// (a tmpfs of `Limits::workdir_bytes`, 16 MiB by default, and 4,096 inodes, beside the
/// sources and the harness): a compilation past these is the candidate's compile error, so
/// that writing its classes can never fail the execution as a sandbox fault. The server
/// enforces them as javac writes (`JavacServer.java`), and `within_bounds` checks again here.
pub const MAX_CLASS_FILES: usize = 1_000;
/// Longest class file name (the last path component), in bytes: the kernel's `NAME_MAX`.
pub const MAX_CLASS_NAME_BYTES: usize = 255;
/// All the class files together, in bytes: half the default work dir.
pub const MAX_CLASS_BYTES: u64 = 8 << 20;

#[derive(Debug, Serialize, Deserialize)]
pub struct JavacSlotRequest {
    pub runtimes: Runtimes,
    pub cgroups: Layout,
    pub uid_base: u32,
    pub ro_binds: Vec<PathBuf>,
    pub root_mountpoint: PathBuf,
    /// Reuse javac's compiler state where checked sound (`JavacServer.java`); off: the server
    /// gives every request a fresh task.
    #[serde(default = "yes")]
    pub reuse_context: bool,
}

fn yes() -> bool {
    true
}

/// The JDK-internal packages `JavacServer` uses to reuse compiler state (`JavacTaskPool`, the
/// symbol table it checks, the result of a call) and the one field it resets by reflection.
const JDK_INTERNALS: &[&str] = &[
    "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
    "--add-exports=jdk.compiler/com.sun.tools.javac.code=ALL-UNNAMED",
    "--add-exports=jdk.compiler/com.sun.tools.javac.main=ALL-UNNAMED",
    "--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
    "--add-opens=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
];

/// One compilation.
#[derive(Debug, Serialize, Deserialize)]
pub struct CompileRequest {
    pub sources: Vec<InputFile>,
    /// javac's class path (the class-data archive's JAR, bound read-only into the server's
    /// jail); `None`: the server's default, its empty work dir.
    #[serde(default)]
    pub class_path: Option<String>,
    pub cpu_ms: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompileOutcome {
    pub ok: bool,
    pub timed_out: bool,
    pub diagnostics: String,
    /// Class files, with paths relative to the class path root.
    pub classes: Vec<InputFile>,
    pub cpu_us: u64,
    pub wall_us: u64,
    /// Memory charged to the server's cgroup after this compilation (for the host's
    /// recycle decision); `None` if unreadable.
    pub server_memory_bytes: Option<u64>,
    /// Compiled in javac state reused from an earlier compilation (`JavacServer.java`).
    #[serde(default)]
    pub reused_context: bool,
}

pub type CompileResponse = Result<CompileOutcome, String>;

/// Entry of the jail process in javac-slot mode.
pub fn serve(req: JavacSlotRequest) -> ! {
    let mut server = match Server::start(&req) {
        Ok(s) => s,
        Err(e) => {
            let _ = wire::write_frame(io::stdout().lock(), &Err::<(), String>(e));
            std::process::exit(1);
        }
    };
    if wire::write_frame(io::stdout().lock(), &Ok::<(), String>(())).is_err() {
        server.shutdown();
        std::process::exit(1);
    }
    while let Ok(request) = wire::read_frame::<_, CompileRequest>(io::stdin().lock()) {
        let response = server.compile(&request);
        let retire = !matches!(&response, Ok(o) if !o.timed_out);
        if wire::write_frame(io::stdout().lock(), &response).is_err() || retire {
            break;
        }
        // The host keeps this slot: a JVM javac crashed in is replaced here, before the
        // next request, so that request never meets its state. A replacement that fails to
        // start ends the slot: the next request sent to it fails as an infrastructure error.
        if server.spent {
            server.stop_for_replacement();
            server = match Server::start(&req) {
                Ok(s) => s,
                Err(_) => std::process::exit(1),
            };
        }
    }
    server.shutdown();
    std::process::exit(0)
}

struct Server {
    cg: ExecCgroup,
    to_server: std::fs::File,
    from_server: RawFd,
    /// The jail's namespace holder (reaped when the server is replaced) and its status pipe.
    holder: libc::pid_t,
    status: RawFd,
    /// The last compilation crashed javac (or exhausted its heap): replace the JVM.
    spent: bool,
}

impl Server {
    fn start(req: &JavacSlotRequest) -> Result<Server, String> {
        let java = req
            .runtimes
            .java
            .as_ref()
            .ok_or("java is not installed on this host")?;
        let exe =
            CString::new(java.path.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        let mut argv: Vec<String> = vec![
            java.path.display().to_string(),
            "-XX:+UseSerialGC".into(),
            "-XX:-UsePerfData".into(),
            "-Xshare:auto".into(),
            "-Xmx256m".into(),
            "-XX:ActiveProcessorCount=1".into(),
            // C1 only, as the run JVMs: C2's background compilation of javac's hot code
            // cost more CPU than it saved. One server, the same 1,688 compilations side by
            // side with one with C2: 25.2 s of CPU in all against 35.9 s (per compilation
            // 13 ms against 9 ms once warm, but C2's own work outside the requests was 11 s).
            "-XX:TieredStopAtLevel=1".into(),
        ];
        argv.extend(JDK_INTERNALS.iter().map(|a| a.to_string()));
        argv.push(format!("/{SERVER_PATH}"));
        if !req.reuse_context {
            argv.push("fresh".into());
        }
        let argv: Vec<CString> = argv
            .into_iter()
            .map(|a| CString::new(a).expect("no NUL"))
            .collect();
        let env: Vec<CString> = CLEAN_ENV
            .iter()
            .map(|e| CString::new(*e).expect("static"))
            .collect();
        let filter = crate::seccomp::deny_list_program();
        let name = format!("{}-javac", std::process::id());
        let cg = ExecCgroup::create(&req.cgroups, &name, SERVER_MEMORY, SERVER_PIDS)
            .map_err(|e| format!("failed to create the compiler's cgroup: {e}"))?;
        let procs_fds = cg.open_procs_fds()?;
        fs_err::create_dir_all(&req.root_mountpoint)
            .map_err(|e| format!("failed to create the jail mount point: {e}"))?;
        let p = || sys::pipe().map_err(|e| format!("failed to create a pipe: {e}"));
        let (to_parent, from_parent, status, requests, responses) = (p()?, p()?, p()?, p()?, p()?);
        let holder = unsafe { libc::fork() };
        if holder < 0 {
            return Err(format!("fork failed: {}", io::Error::last_os_error()));
        }
        if holder == 0 {
            let fds = HolderFds {
                to_parent: to_parent.1,
                from_parent: from_parent.0,
                status: status.1,
            };
            let ends = [
                to_parent.0,
                from_parent.1,
                status.0,
                requests.1,
                responses.0,
            ];
            jail::namespace_holder(&ends, fds, || {
                server_init(
                    req,
                    &procs_fds,
                    requests.0,
                    responses.1,
                    status.1,
                    &exe,
                    &argv,
                    &env,
                    &filter,
                )
            });
        }
        for fd in [
            to_parent.1,
            from_parent.0,
            status.1,
            requests.0,
            responses.1,
        ] {
            close(fd);
        }
        for fd in procs_fds {
            close(fd);
        }
        let released =
            jail::release_holder(req.uid_base, holder, to_parent.0, from_parent.1, status.0);
        close(to_parent.0);
        close(from_parent.1);
        released?;
        let mut server = Server {
            cg,
            to_server: unsafe { std::fs::File::from_raw_fd(requests.1) },
            from_server: responses.0,
            holder,
            status: status.0,
            spent: false,
        };
        // Start-up compiles this server from source: a generous, one-time budget.
        let mut reader = DeadlineReader {
            fd: server.from_server,
            cg: &server.cg,
            cpu0: server.cg.cpu_us().unwrap_or(0),
            budget_us: 60_000_000,
            wall_limit: Duration::from_secs(120),
            start: Instant::now(),
            timed_out: false,
        };
        let mut ready = [0u8; 1];
        if reader.read_exact(&mut ready).is_err() || ready[0] != 42 {
            server.shutdown();
            return Err("the Java compile server did not start".into());
        }
        Ok(server)
    }

    fn compile(&mut self, req: &CompileRequest) -> CompileResponse {
        let mut msg = Vec::new();
        msg.extend_from_slice(&(req.sources.len() as u32).to_be_bytes());
        // Java's modified UTF-8 (`readUTF`): a u16 length, then bytes; a path has no NUL.
        let class_path = req.class_path.as_deref().unwrap_or("");
        if class_path.len() > u16::MAX as usize || class_path.contains('\0') {
            return Err("bad class path".into());
        }
        msg.extend_from_slice(&(class_path.len() as u16).to_be_bytes());
        msg.extend_from_slice(class_path.as_bytes());
        for bound in [
            MAX_CLASS_FILES as u32,
            MAX_CLASS_NAME_BYTES as u32,
            MAX_CLASS_BYTES as u32,
        ] {
            msg.extend_from_slice(&bound.to_be_bytes());
        }
        for s in &req.sources {
            let name = s.path.as_bytes();
            if name.len() > u16::MAX as usize {
                return Err("source name too long".into());
            }
            msg.extend_from_slice(&(name.len() as u16).to_be_bytes());
            msg.extend_from_slice(name);
            msg.extend_from_slice(&(s.contents.len() as u32).to_be_bytes());
            msg.extend_from_slice(&s.contents);
        }
        let cpu0 = self.cg.cpu_us().unwrap_or(0);
        let start = Instant::now();
        self.to_server
            .write_all(&msg)
            .and_then(|()| self.to_server.flush())
            .map_err(|e| format!("the compile server is gone: {e}"))?;
        let budget_us = req.cpu_ms * 1000;
        let mut reader = DeadlineReader {
            fd: self.from_server,
            cg: &self.cg,
            cpu0,
            budget_us,
            wall_limit: Duration::from_millis(req.cpu_ms * 3 + 5_000),
            start,
            timed_out: false,
        };
        let parsed = read_response(&mut reader);
        let timed_out = reader.timed_out;
        let cpu_us = self.cg.cpu_us().unwrap_or(cpu0).saturating_sub(cpu0);
        let wall_us = start.elapsed().as_micros() as u64;
        let server_memory_bytes = self.cg.current_memory();
        match parsed {
            Ok(response) => {
                self.spent = response.spent;
                let (ok, diagnostics, classes) = match within_bounds(&response.classes) {
                    Err(why) if response.ok => (false, why, Vec::new()),
                    // The prefix keeps it out of the outcome cache (`javac_cache::storable`):
                    // a crash may depend on the JVM's state, not only on the sources.
                    _ if response.spent => (
                        false,
                        format!("javac crashed: {}", response.diagnostics),
                        Vec::new(),
                    ),
                    _ => (response.ok, response.diagnostics, response.classes),
                };
                Ok(CompileOutcome {
                    ok,
                    timed_out: false,
                    diagnostics,
                    classes,
                    cpu_us,
                    wall_us,
                    server_memory_bytes,
                    reused_context: response.reused,
                })
            }
            Err(_) if timed_out => Ok(CompileOutcome {
                ok: false,
                timed_out: true,
                diagnostics: "compilation exceeded its CPU budget".into(),
                classes: Vec::new(),
                cpu_us,
                wall_us,
                server_memory_bytes,
                reused_context: false,
            }),
            Err(e) => Err(format!("the compile server failed: {e}")),
        }
    }

    fn shutdown(&mut self) {
        self.cg.kill_all();
        let _ = self.cg.remove();
    }

    /// Shuts the server down for good within a jail process that goes on: its jail's
    /// descriptors are closed and its namespace holder (which ends with the jail's init) reaped.
    fn stop_for_replacement(&mut self) {
        self.shutdown();
        close(self.from_server);
        close(self.status);
        let mut st = 0;
        while unsafe { libc::waitpid(self.holder, &mut st, 0) } < 0
            && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
        {}
    }
}

/// Reads the server's response while enforcing the compilation's CPU and wall budgets.
struct DeadlineReader<'a> {
    fd: RawFd,
    cg: &'a ExecCgroup,
    cpu0: u64,
    budget_us: u64,
    wall_limit: Duration,
    start: Instant,
    timed_out: bool,
}

impl Read for DeadlineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut p = libc::pollfd {
                fd: self.fd,
                events: libc::POLLIN,
                revents: 0,
            };
            unsafe { libc::poll(&mut p, 1, 10) };
            if p.revents != 0 {
                let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
                if n < 0 {
                    return Err(io::Error::last_os_error());
                }
                return Ok(n as usize);
            }
            let used = self
                .cg
                .cpu_us()
                .unwrap_or(self.cpu0)
                .saturating_sub(self.cpu0);
            if used > self.budget_us || self.start.elapsed() > self.wall_limit {
                self.timed_out = true;
                self.cg.kill_all();
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "compilation over budget",
                ));
            }
        }
    }
}

fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_be_bytes(b))
}

/// Upper bound on anything the server sends back (diagnostics, one class).
const MAX_BLOB: u32 = 64 << 20;

fn read_blob(r: &mut impl Read, len: u32) -> io::Result<Vec<u8>> {
    if len > MAX_BLOB {
        return Err(io::Error::other("oversized compile server message"));
    }
    let mut v = vec![0u8; len as usize];
    r.read_exact(&mut v)?;
    Ok(v)
}

/// Whether a compilation's class files fit the bounds its run's work dir can hold; the
/// reason, as the candidate's compile error, if not.
pub fn within_bounds(classes: &[InputFile]) -> Result<(), String> {
    if classes.len() > MAX_CLASS_FILES {
        return Err(format!(
            "error: the compilation produced {} class files, more than the limit of {MAX_CLASS_FILES}",
            classes.len()
        ));
    }
    for c in classes {
        let name = c.path.rsplit('/').next().unwrap_or(&c.path);
        if name.len() > MAX_CLASS_NAME_BYTES {
            return Err(format!(
                "error: class file name of {} bytes, over the limit of {MAX_CLASS_NAME_BYTES}: {}…",
                name.len(),
                &name[..name.floor_char_boundary(60)]
            ));
        }
    }
    let total: u64 = classes.iter().map(|c| c.contents.len() as u64).sum();
    if total > MAX_CLASS_BYTES {
        return Err(format!(
            "error: the class files take {total} bytes, over the limit of {MAX_CLASS_BYTES} bytes in all"
        ));
    }
    Ok(())
}

/// The server's answer to one request.
struct Response {
    ok: bool,
    reused: bool,
    /// javac crashed or ran out of memory: the JVM is replaced before the next request.
    spent: bool,
    diagnostics: String,
    classes: Vec<InputFile>,
}

fn read_response(r: &mut impl Read) -> io::Result<Response> {
    let mut ok = [0u8; 3];
    r.read_exact(&mut ok)?;
    let len = read_u32(r)?;
    let diagnostics = String::from_utf8_lossy(&read_blob(r, len)?).into_owned();
    let count = read_u32(r)?;
    let mut classes = Vec::new();
    for _ in 0..count {
        let mut n = [0u8; 2];
        r.read_exact(&mut n)?;
        let name =
            String::from_utf8_lossy(&read_blob(r, u16::from_be_bytes(n) as u32)?).into_owned();
        let len = read_u32(r)?;
        classes.push(InputFile {
            path: name,
            contents: read_blob(r, len)?,
            executable: false,
        });
    }
    Ok(Response {
        ok: ok[0] == 1,
        reused: ok[1] == 1,
        spent: ok[2] == 1,
        diagnostics,
        classes,
    })
}

/// Pid 1 of the compiler's jail: builds the root (with the server's source), starts the JVM
/// as the sandbox user under the seccomp filter, and ends when it does.
#[allow(clippy::too_many_arguments)]
fn server_init(
    req: &JavacSlotRequest,
    procs_fds: &[RawFd],
    requests: RawFd,
    responses: RawFd,
    status: RawFd,
    exe: &CString,
    argv: &[CString],
    env: &[CString],
    filter: &[libc::sock_filter],
) {
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    for &fd in procs_fds {
        if write_all(fd, b"0").is_err() {
            jail::send_error(status, "failed to join the compiler's cgroup");
            unsafe { libc::_exit(1) };
        }
        close(fd);
    }
    let mut binds = req.runtimes.extra_binds();
    binds.extend(req.ro_binds.iter().cloned());
    let extra: [(&str, &[u8]); 1] = [(SERVER_PATH, SERVER_SOURCE)];
    let spec = RootSpec {
        mountpoint: &req.root_mountpoint,
        ro_binds: &binds,
        workdir_bytes: 16 << 20,
        extra_files: &extra,
    };
    if let Err(e) = mounts::build_root(&spec) {
        jail::send_error(
            status,
            &format!("failed to build the compiler's filesystem: {e}"),
        );
        unsafe { libc::_exit(1) };
    }
    let server = unsafe { libc::fork() };
    if server == 0 {
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::setsid();
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
            libc::dup2(requests, 0);
            libc::dup2(responses, 1);
            libc::dup2(null, 2);
            sys::close_fds_from(3, &[]);
            let lim = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &lim);
            if libc::setresgid(COMPILER_UID, COMPILER_UID, COMPILER_UID) != 0
                || libc::setresuid(COMPILER_UID, COMPILER_UID, COMPILER_UID) != 0
            {
                libc::_exit(126);
            }
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            libc::chdir(c"/tmp".as_ptr());
        }
        if crate::seccomp::install(filter).is_err() {
            unsafe { libc::_exit(126) };
        }
        // Only reached when exec failed; 127 is the conventional "could not execute".
        let _ = sys::execve(exe, argv, env);
        unsafe { libc::_exit(127) };
    }
    close(requests);
    close(responses);
    loop {
        let mut st = 0;
        let r = unsafe { libc::waitpid(-1, &mut st, 0) };
        if r == server || (r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR))
        {
            unsafe { libc::_exit(0) };
        }
    }
}
