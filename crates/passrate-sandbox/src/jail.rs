//! The jail process: started once per execution by the host library (as `passrate-jail` or
//! `passrate __jail`), single-threaded, so forking and namespace set-up are sound.
//!
//! Process tree (host view):
//! ```text
//! jail (host root: cgroups, uid maps, I/O, limits)
//!  └─ ns-holder (unshare user+mount+pid+net+ipc+uts; waits)
//!      └─ init = pid 1 of the new pid namespace (joins the exec cgroup, builds the root)
//!          └─ one child per step: setsid, rlimits, uid 1000, no_new_privs, seccomp, exec
//! ```
//! Killing init tears the whole pid namespace down; the cgroup kill is a second guarantee.
//! The jail watches its stdin: when the host dies the pipe closes and the jail kills
//! everything (PR_SET_PDEATHSIG is not used here because it follows the host *thread*).

use std::ffi::CString;
use std::io::{self, Read};
use std::os::fd::RawFd;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::api::{ExecOutcome, ExecRequest, ExecStatus, Limits};
use crate::cgroup::ExecCgroup;
use crate::mounts::{self, COMPILER_UID, JAIL_UID, RootSpec};
use crate::runtimes::{self, CLEAN_ENV};
use crate::sys::{self, close, write_all};
use crate::wire::{self, JailRequest, JailResponse};

/// Entry point of the jail process. Reads one request on stdin, answers on stdout, exits.
pub fn jail_main() -> ! {
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let request: Result<wire::Start, _> = wire::read_frame(io::stdin().lock());
    let response: JailResponse = match request {
        Ok(wire::Start::Exec(req)) => run(&req),
        Ok(wire::Start::Slot(req)) => crate::slot::serve(req),
        Ok(wire::Start::Javac(req)) => crate::javac::serve(req),
        Ok(wire::Start::Prestart(req)) => prestart(&req),
        Err(e) => Err(format!("failed to read the jail request: {e}")),
    };
    let code = match wire::write_frame(io::stdout().lock(), &response) {
        Ok(()) => 0,
        Err(_) => 1,
    };
    std::process::exit(code)
}

fn run(req: &JailRequest) -> JailResponse {
    let name = format!("{}-{}", std::process::id(), unique_suffix());
    let limits = &req.exec.limits;
    let cg = ExecCgroup::create(&req.cgroups, &name, limits.memory_bytes, limits.pids)
        .map_err(|e| format!("failed to create the execution cgroup {name}: {e}"))?;
    let result = run_in_cgroup(req, &cg, false);
    cg.kill_all();
    let _ = cg.remove();
    result
}

/// A pre-started execution (`ExecRequest::prestart`): the jail is built and the program
/// started with only the pre-start files, "ready" goes to the host once the program says it
/// is ready, then the hand-over (the full request) is read from stdin and run like a fresh
/// execution, measured from the hand-over. Used exactly once.
fn prestart(req: &JailRequest) -> JailResponse {
    let name = format!(
        "{}-{}{PRESTART_SUFFIX}",
        std::process::id(),
        unique_suffix()
    );
    let limits = &req.exec.limits;
    let cg = ExecCgroup::create(&req.cgroups, &name, limits.memory_bytes, limits.pids)
        .map_err(|e| format!("failed to create the execution cgroup {name}: {e}"));
    let result = match &cg {
        Ok(cg) => run_in_cgroup(req, cg, true),
        Err(e) => Err(e.clone()),
    };
    if let Ok(cg) = cg {
        cg.kill_all();
        let _ = cg.remove();
    }
    result
}

/// Suffix of the cgroup leaves of pre-started jails (alive while their jail process is).
pub const PRESTART_SUFFIX: &str = "-prestart";

pub(crate) fn unique_suffix() -> u64 {
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// Everything a step child needs, allocated before forking.
struct PreparedStep {
    exe: CString,
    argv: Vec<CString>,
    data_limit: Option<u64>,
    cpu_budget_ms: u64,
}

struct Pipes {
    to_parent: (RawFd, RawFd),
    from_parent: (RawFd, RawFd),
    status: (RawFd, RawFd),
    stdin: (RawFd, RawFd),
    stdout: (RawFd, RawFd),
    stderr: (RawFd, RawFd),
    chan_in: (RawFd, RawFd),
    chan_out: (RawFd, RawFd),
}

pub(crate) const MSG_INIT_PID: u32 = 0;
pub(crate) const MSG_STEP_START: u32 = 1;
pub(crate) const MSG_STEP_END: u32 = 2;
pub(crate) const MSG_SETUP_ERROR: u32 = 3;

pub(crate) fn send(fd: RawFd, kind: u32, step: u32, value: i32) {
    let mut rec = [0u8; 12];
    rec[..4].copy_from_slice(&kind.to_le_bytes());
    rec[4..8].copy_from_slice(&step.to_le_bytes());
    rec[8..].copy_from_slice(&value.to_le_bytes());
    let _ = write_all(fd, &rec);
}

pub(crate) fn send_error(fd: RawFd, message: &str) {
    let bytes = message.as_bytes();
    let len = bytes.len().min(4096);
    send(fd, MSG_SETUP_ERROR, 0, len as i32);
    let _ = write_all(fd, &bytes[..len]);
}

/// Mode of a pipe the candidate only reads (stdin, the request): reopening it through
/// /proc/self/fd for writing fails.
pub(crate) const CHILD_READ_END: libc::mode_t = 0o444;
/// Mode of a pipe the candidate only writes (stdout, stderr, the result channel): reopening
/// it through /proc/self/fd for reading, which would give the read end, fails.
pub(crate) const CHILD_WRITE_END: libc::mode_t = 0o222;
fn run_in_cgroup(req: &JailRequest, cg: &ExecCgroup, prestart: bool) -> JailResponse {
    let limits = &req.exec.limits;
    if req.exec.steps.is_empty() {
        return Err("the request has no steps".into());
    }
    if prestart && req.exec.steps.len() != 1 {
        return Err("only single-step executions can be pre-started".into());
    }
    let last = req.exec.steps.len() - 1;
    let mut steps = Vec::new();
    for (i, program) in req.exec.steps.iter().enumerate() {
        let cmd = runtimes::command_line(program, limits, &req.runtimes)?;
        steps.push(PreparedStep {
            exe: CString::new(cmd.exe.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?,
            argv: cmd
                .argv
                .into_iter()
                .map(|a| CString::new(a).map_err(|e| e.to_string()))
                .collect::<Result<_, _>>()?,
            data_limit: cmd.data_limit,
            cpu_budget_ms: if prestart {
                // Lowered at the hand-over (only root of the host could raise it then).
                limits.cpu_ms.max(PRESTART_CPU_BACKSTOP_MS)
            } else if i == last {
                limits.cpu_ms
            } else {
                limits.setup_cpu_ms
            },
        });
    }
    let mut env: Vec<CString> = CLEAN_ENV
        .iter()
        .map(|e| CString::new(*e).expect("static"))
        .collect();
    if prestart {
        env.push(CString::new("PASSRATE_PRESTARTED=1").expect("static"));
    }
    let filter = crate::seccomp::deny_list_program();
    let procs_fds = cg.open_procs_fds()?;
    if let Err(e) = fs_err::create_dir_all(&req.root_mountpoint) {
        return Err(format!("failed to create the jail mount point: {e}"));
    }
    let p = || sys::pipe().map_err(|e| format!("failed to create a pipe: {e}"));
    let pipes = Pipes {
        to_parent: p()?,
        from_parent: p()?,
        status: p()?,
        stdin: p()?,
        stdout: p()?,
        stderr: p()?,
        chan_in: p()?,
        chan_out: p()?,
    };

    // The candidate may reopen its descriptors through /proc/self/fd (Java has no other way
    // to open fd 3); that checks the pipe inode's mode for "others" (its owner, host root, is
    // unmapped in the jail). Each pipe opens only in the direction the jail gave it: the
    // write end's pipe reopened for reading would let the candidate drain the harness's
    // frames before the host reads them.
    for fd in [pipes.stdin.0, pipes.chan_in.0] {
        unsafe { libc::fchmod(fd, CHILD_READ_END) };
    }
    for fd in [pipes.stdout.1, pipes.stderr.1, pipes.chan_out.1] {
        unsafe { libc::fchmod(fd, CHILD_WRITE_END) };
    }
    let holder = unsafe { libc::fork() };
    if holder < 0 {
        return Err(format!("fork failed: {}", io::Error::last_os_error()));
    }
    if holder == 0 {
        let supervisor_ends = [
            pipes.to_parent.0,
            pipes.from_parent.1,
            pipes.status.0,
            pipes.stdin.1,
            pipes.stdout.0,
            pipes.stderr.0,
            pipes.chan_in.1,
            pipes.chan_out.0,
        ];
        let fds = HolderFds {
            to_parent: pipes.to_parent.1,
            from_parent: pipes.from_parent.0,
            status: pipes.status.1,
        };
        namespace_holder(&supervisor_ends, fds, || {
            init_main(req, &pipes, &procs_fds, &steps, &env, &filter, prestart)
        });
    }
    for fd in procs_fds {
        close(fd);
    }
    // Child-side ends belong to the jail's processes only.
    for fd in [
        pipes.to_parent.1,
        pipes.from_parent.0,
        pipes.status.1,
        pipes.stdin.0,
        pipes.stdout.1,
        pipes.stderr.1,
        pipes.chan_in.0,
        pipes.chan_out.1,
    ] {
        close(fd);
    }
    let io = IoFds {
        status: pipes.status.0,
        stdout: pipes.stdout.0,
        stderr: pipes.stderr.0,
        chan_out: pipes.chan_out.0,
        stdin: pipes.stdin.1,
        chan_in: pipes.chan_in.1,
    };
    let released = release_holder(
        req.uid_base,
        holder,
        pipes.to_parent.0,
        pipes.from_parent.1,
        pipes.status.0,
    );
    let result = match released {
        Err(e) => Err(e),
        Ok(()) if !prestart => supervise(&req.exec, cg, &io, last, None, false),
        Ok(()) => match hand_over(req, cg, &pipes) {
            Ok(exec) => supervise(&exec, cg, &io, last, None, true),
            Err(e) => Err(e),
        },
    };
    // Whatever happened, nothing of the jail may outlive this function. The cgroup kill
    // misses processes that have not joined the leaf yet (the host went away while a
    // pre-start was still setting up): killing the holder as well takes init with it (its
    // parent-death signal) and with init the whole pid namespace, so the wait below ends.
    // (Callers kill the leaf once more after this returns, for anything that joined late.)
    cg.kill_all();
    unsafe { libc::kill(holder, libc::SIGKILL) };
    let mut status = 0;
    unsafe { libc::waitpid(holder, &mut status, 0) };
    // The child-side ends were closed before supervising, and supervise closed the input
    // feeds; closing any of them again could close a reused descriptor.
    for fd in [
        pipes.status.0,
        pipes.stdout.0,
        pipes.stderr.0,
        pipes.chan_out.0,
        pipes.to_parent.0,
        pipes.from_parent.1,
    ] {
        close(fd);
    }
    result
}

/// The pre-start phase on the jail side: waits for the program's ready byte, tells the host,
/// reads the hand-over request, has init write its other files, and resets the peak memory,
/// so that what is measured from here on is the candidate's part.
fn hand_over(req: &JailRequest, cg: &ExecCgroup, pipes: &Pipes) -> Result<ExecRequest, String> {
    let died = || {
        read_setup_error(pipes.status.0)
            .unwrap_or_else(|| "the pre-started program exited before it was ready".into())
    };
    // Ready = one '\n' on the channel; EOF means it died. The host may give up on us.
    let mut fds = [
        libc::pollfd {
            fd: pipes.chan_out.0,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, PRESTART_READY_MS) };
    if n == 0 {
        return Err("the pre-started program was not ready in time".into());
    }
    if fds[0].revents == 0 {
        return Err("the host went away during the pre-start".into());
    }
    let mut byte = [0u8; 1];
    match sys::read_exact(pipes.chan_out.0, &mut byte) {
        Ok(true) if byte == *b"\n" => {}
        Ok(true) => return Err("the pre-started program wrote before its hand-over".into()),
        _ => return Err(died()),
    }
    wire::write_frame(io::stdout().lock(), &Ok::<(), String>(()))
        .map_err(|e| format!("failed to report the pre-start: {e}"))?;
    let exec: ExecRequest = wire::read_frame(io::stdin().lock())
        .map_err(|e| format!("no hand-over for the pre-started jail: {e}"))?;
    let (l, t) = (&exec.limits, &req.exec.limits);
    if exec.steps != req.exec.steps
        || (l.memory_bytes, l.heap_bytes, l.pids, l.workdir_bytes)
            != (t.memory_bytes, t.heap_bytes, t.pids, t.workdir_bytes)
    {
        return Err("the hand-over does not match the pre-started program".into());
    }
    let preloaded = req.exec.prestart.as_deref().unwrap_or_default();
    let files: Vec<crate::api::InputFile> = exec
        .files
        .iter()
        .filter(|f| !preloaded.contains(&f.path))
        .cloned()
        .collect();
    {
        let to_init = std::mem::ManuallyDrop::new(unsafe {
            <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(pipes.from_parent.1)
        });
        wire::write_frame(&*to_init, &(exec.limits.cpu_ms, files))
            .map_err(|e| format!("failed to hand the input files to the jail: {e}"))?;
    }
    match sys::read_exact(pipes.to_parent.0, &mut byte) {
        Ok(true) => {}
        _ => return Err(died()),
    }
    cg.reset_peak_memory();
    Ok(exec)
}

/// The RLIMIT_CPU a pre-started program starts with, before its hand-over sets the real one.
const PRESTART_CPU_BACKSTOP_MS: u64 = 600_000;

/// How long a pre-started program may take to become ready.
const PRESTART_READY_MS: i32 = 30_000;

pub(crate) fn rearm_parent_death(expected_parent: libc::pid_t) {
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() != expected_parent {
            libc::_exit(1);
        }
    }
}

/// The descriptors a namespace holder uses to talk to the jail process.
pub(crate) struct HolderFds {
    /// Written once the namespaces exist ("u").
    pub to_parent: RawFd,
    /// Read until the uid/gid maps are written ("m").
    pub from_parent: RawFd,
    /// Set-up errors and the init's pid.
    pub status: RawFd,
}

/// The first child: creates the namespaces, waits for its uid/gid maps, forks `init`,
/// waits for it. `supervisor_ends` are closed first: the holder and everything below it
/// must hold none of the jail process's descriptors.
pub(crate) fn namespace_holder(
    supervisor_ends: &[RawFd],
    fds: HolderFds,
    init: impl FnOnce(),
) -> ! {
    let jail_pid = unsafe { libc::getppid() };
    rearm_parent_death(jail_pid);
    for &fd in supervisor_ends {
        close(fd);
    }
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
    for std_fd in 0..3 {
        unsafe { libc::dup2(null, std_fd) };
    }
    close(null);
    let flags = libc::CLONE_NEWUSER
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWNET
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS;
    let fail = |what: &str| -> ! {
        send_error(
            fds.status,
            &format!("{what}: {}", io::Error::last_os_error()),
        );
        unsafe { libc::_exit(1) }
    };
    if unsafe { libc::unshare(flags) } != 0 {
        fail("unshare of the jail namespaces failed");
    }
    let _ = write_all(fds.to_parent, b"u");
    let mut ok = [0u8; 1];
    if !matches!(sys::read_exact(fds.from_parent, &mut ok), Ok(true)) {
        unsafe { libc::_exit(1) };
    }
    // Until now our credentials were unmapped in the new namespace (files could not be
    // created: EOVERFLOW); become the namespace's root explicitly.
    if unsafe { libc::setresgid(0, 0, 0) } != 0 || unsafe { libc::setresuid(0, 0, 0) } != 0 {
        fail("failed to become root in the user namespace");
    }
    // unshare(CLONE_NEWUSER) and setresuid each cleared the parent-death signal: arm it
    // again, then make sure the jail did not die in between.
    rearm_parent_death(jail_pid);
    let init_pid = unsafe { libc::fork() };
    if init_pid < 0 {
        fail("fork of the jail init failed");
    }
    if init_pid == 0 {
        // `init` never returns; exiting here is only a guard.
        init();
        unsafe { libc::_exit(1) };
    }
    send(fds.status, MSG_INIT_PID, 0, init_pid);
    sys::close_fds_from(0, &[fds.status]);
    let mut status = 0;
    unsafe { libc::waitpid(init_pid, &mut status, 0) };
    unsafe { libc::_exit(0) }
}

/// Pid 1 of the jail: joins the cgroup, builds the filesystem, runs the steps in order.
fn init_main(
    req: &JailRequest,
    pipes: &Pipes,
    procs_fds: &[RawFd],
    steps: &[PreparedStep],
    env: &[CString],
    filter: &[libc::sock_filter],
    prestart: bool,
) -> ! {
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    let status_fd = pipes.status.1;
    let fail = |what: String| -> ! {
        send_error(status_fd, &what);
        unsafe { libc::_exit(1) }
    };
    for &fd in procs_fds {
        if let Err(e) = write_all(fd, b"0") {
            fail(format!("failed to join the execution cgroup: {e}"));
        }
        close(fd);
    }
    // The cgroup namespace is rooted at the execution's leaf: /proc/self/cgroup shows "/".
    if unsafe { libc::unshare(libc::CLONE_NEWCGROUP) } != 0 {
        fail(format!(
            "unshare(CLONE_NEWCGROUP) failed: {}",
            io::Error::last_os_error()
        ));
    }
    let mut binds = req.runtimes.extra_binds();
    binds.extend(req.ro_binds.iter().cloned());
    let spec = RootSpec {
        mountpoint: &req.root_mountpoint,
        ro_binds: &binds,
        workdir_bytes: req.exec.limits.workdir_bytes,
        extra_files: &[],
    };
    if let Err(e) = mounts::build_root(&spec) {
        fail(format!("failed to build the jail filesystem: {e}"));
    }
    if let Err(e) = mounts::write_inputs(&req.exec.files) {
        fail(format!("failed to write the input files: {e}"));
    }
    let hostname = b"sandbox";
    unsafe { libc::sethostname(hostname.as_ptr().cast(), hostname.len()) };

    let last = steps.len() - 1;
    for (i, step) in steps.iter().enumerate() {
        send(status_fd, MSG_STEP_START, i as u32, 0);
        let child = unsafe { libc::fork() };
        if child < 0 {
            fail(format!(
                "fork of step {i} failed: {}",
                io::Error::last_os_error()
            ));
        }
        if child == 0 {
            exec_step(step, i == last, pipes, &req.exec.limits, env, filter);
        }
        if prestart {
            // The hand-over: the other input files, written before the program gets its
            // request (it reads nothing else before). The ack tells the jail to feed it.
            let from_jail = std::mem::ManuallyDrop::new(unsafe {
                <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(pipes.from_parent.0)
            });
            let (cpu_ms, files): (u64, Vec<crate::api::InputFile>) =
                match wire::read_frame(&*from_jail) {
                    Ok(handover) => handover,
                    Err(_) => unsafe { libc::_exit(1) },
                };
            // The RLIMIT_CPU backstop counts from the process start: lower it (it started
            // high) to what the program used so far plus this execution's budget.
            let mut clock: libc::clockid_t = 0;
            let mut used: libc::timespec = unsafe { std::mem::zeroed() };
            unsafe {
                libc::clock_getcpuclockid(child, &mut clock);
                libc::clock_gettime(clock, &mut used);
            }
            let soft = used.tv_sec as u64 + 1 + cpu_ms.div_ceil(1000) + 1;
            let lim = libc::rlimit {
                rlim_cur: soft,
                rlim_max: soft + 1,
            };
            if unsafe { libc::prlimit(child, libc::RLIMIT_CPU, &lim, std::ptr::null_mut()) } != 0 {
                fail(format!(
                    "failed to set the CPU backstop: {}",
                    io::Error::last_os_error()
                ));
            }
            if let Err(e) = mounts::write_inputs(&files) {
                fail(format!("failed to write the input files: {e}"));
            }
            if write_all(pipes.to_parent.1, b"f").is_err() {
                unsafe { libc::_exit(1) };
            }
        }
        let mut status = 0;
        loop {
            let r = unsafe { libc::waitpid(-1, &mut status, 0) };
            if r == child
                || (r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR))
            {
                break;
            }
        }
        // Daemons and stragglers of this step die before the next step (or the report).
        unsafe { libc::kill(-1, libc::SIGKILL) };
        let mut other = 0;
        while unsafe { libc::waitpid(-1, &mut other, 0) } > 0 {}
        send(status_fd, MSG_STEP_END, i as u32, status);
        if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
            break;
        }
    }
    unsafe { libc::_exit(0) }
}

fn set_rlimit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) {
    let lim = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    unsafe { libc::setrlimit(resource, &lim) };
}

/// A step's process: from init's child to the candidate program. Never returns.
fn exec_step(
    step: &PreparedStep,
    is_last: bool,
    pipes: &Pipes,
    limits: &Limits,
    env: &[CString],
    filter: &[libc::sock_filter],
) -> ! {
    let die = |msg: &[u8]| -> ! {
        let _ = write_all(2, msg);
        unsafe { libc::_exit(127) }
    };
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        libc::setsid();
    }
    // Move the sources out of the way first so no dup2 clobbers another source.
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    let stdin_src = if is_last { pipes.stdin.0 } else { null };
    let mut targets: Vec<(RawFd, RawFd)> =
        vec![(stdin_src, 0), (pipes.stdout.1, 1), (pipes.stderr.1, 2)];
    if is_last {
        targets.push((pipes.chan_in.0, 3));
        targets.push((pipes.chan_out.1, 4));
    }
    let mut high = Vec::with_capacity(targets.len());
    for &(src, dst) in &targets {
        let h = unsafe { libc::fcntl(src, libc::F_DUPFD_CLOEXEC, 100) };
        if h < 0 {
            die(b"passrate-jail: fcntl failed\n");
        }
        high.push((h, dst));
    }
    for &(h, dst) in &high {
        if unsafe { libc::dup2(h, dst) } < 0 {
            die(b"passrate-jail: dup2 failed\n");
        }
    }
    sys::close_fds_from(if is_last { 5 } else { 3 }, &[]);

    let file_limit = limits.workdir_bytes;
    set_rlimit(libc::RLIMIT_CORE, 0, 0);
    set_rlimit(libc::RLIMIT_NOFILE, 1024, 1024);
    set_rlimit(libc::RLIMIT_FSIZE, file_limit, file_limit);
    // Backstop only: the cgroup CPU clock is authoritative and kills first.
    let cpu_s = step.cpu_budget_ms.div_ceil(1000) + 1;
    set_rlimit(libc::RLIMIT_CPU, cpu_s, cpu_s + 1);
    if let Some(data) = step.data_limit {
        set_rlimit(libc::RLIMIT_DATA, data, data);
    }
    unsafe {
        if libc::setresgid(JAIL_UID, JAIL_UID, JAIL_UID) != 0
            || libc::setresuid(JAIL_UID, JAIL_UID, JAIL_UID) != 0
        {
            die(b"passrate-jail: failed to drop to the sandbox user\n");
        }
        // Dropping to the sandbox user cleared the parent-death signal set above.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            die(b"passrate-jail: no_new_privs failed\n");
        }
        libc::chdir(c"/tmp".as_ptr());
    }
    if crate::seccomp::install(filter).is_err() {
        die(b"passrate-jail: seccomp failed\n");
    }
    let err = sys::execve(&step.exe, &step.argv, env);
    let _ = write_all(
        2,
        format!(
            "passrate-jail: cannot execute {}: {err}\n",
            step.exe.to_string_lossy()
        )
        .as_bytes(),
    );
    unsafe { libc::_exit(127) }
}

/// A capped output stream.
struct Capture {
    fd: RawFd,
    data: Vec<u8>,
    open: bool,
}

impl Capture {
    /// Reads what is available (until a short read: the pipe is drained for now, and poll
    /// reports the rest). Returns true when the cap was exceeded.
    fn pump(&mut self, cap: usize, buf: &mut [u8]) -> bool {
        loop {
            let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                let n = n as usize;
                let room = cap.saturating_sub(self.data.len());
                self.data.extend_from_slice(&buf[..n.min(room)]);
                if n > room {
                    return true;
                }
                if n < buf.len() {
                    return false;
                }
            } else if n == 0 {
                self.open = false;
                return false;
            } else {
                return false;
            }
        }
    }
}

struct Feed<'a> {
    fd: RawFd,
    data: &'a [u8],
}

impl Feed<'_> {
    fn push(&mut self) {
        while !self.data.is_empty() {
            let n = unsafe { libc::write(self.fd, self.data.as_ptr().cast(), self.data.len()) };
            if n <= 0 {
                if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::WouldBlock {
                    return;
                }
                self.data = &[];
                break;
            }
            self.data = &self.data[n as usize..];
        }
        close(self.fd);
        self.fd = -1;
    }
}

/// Per-frame CPU budgets of the last step ([`crate::api::FrameBudgets`]): counts the frames
/// complete in the channel capture and says when the CPU since the current budget started
/// exceeds it.
struct FrameWatch<'a> {
    budgets: &'a crate::api::FrameBudgets,
    /// Offset of the next frame's header in the channel data.
    parsed: usize,
    frames: u32,
    /// The channel stopped looking like frames: only the overall limit applies.
    broken: bool,
    /// (frames seen, cgroup CPU) when the current budget started counting.
    anchor: Option<(u32, u64)>,
}

/// A longer line is not a frame header.
const MAX_FRAME_HEADER: usize = 256;

impl<'a> FrameWatch<'a> {
    fn new(budgets: &'a crate::api::FrameBudgets) -> FrameWatch<'a> {
        FrameWatch {
            budgets,
            parsed: 0,
            frames: 0,
            broken: false,
            anchor: None,
        }
    }

    /// Counts the frames completed in `data` (the whole channel capture so far).
    fn advance(&mut self, data: &[u8]) {
        while !self.broken {
            let rest = &data[self.parsed..];
            let Some(nl) = rest.iter().take(MAX_FRAME_HEADER).position(|&b| b == b'\n') else {
                self.broken = rest.len() >= MAX_FRAME_HEADER;
                return;
            };
            let len = std::str::from_utf8(&rest[..nl])
                .ok()
                .and_then(|h| h.rsplit(' ').next())
                .and_then(|w| w.parse::<usize>().ok());
            let Some(end) = len.and_then(|l| (nl + 2).checked_add(l)) else {
                self.broken = true;
                return;
            };
            if rest.len() < end {
                return;
            }
            self.parsed += end;
            self.frames += 1;
        }
    }

    /// Whether the item being worked on has used more CPU than its budget, given the
    /// cgroup's CPU now. A budget counts from the first sample after its frame arrived.
    fn over_budget(&mut self, cpu_now: u64) -> bool {
        if self.broken {
            return false;
        }
        let seen = self.frames;
        let Some(budget) = seen.checked_sub(self.budgets.skip).and_then(|i| {
            self.budgets
                .cpu_us
                .get(i as usize)
                .or(self.budgets.then_each_us.as_ref())
        }) else {
            return false;
        };
        match self.anchor {
            Some((frames, cpu)) if frames == seen => cpu_now.saturating_sub(cpu) > *budget,
            _ => {
                self.anchor = Some((seen, cpu_now));
                false
            }
        }
    }
}

/// Gives the namespace holder its uid/gid maps once it has unshared, then releases it.
pub(crate) fn release_holder(
    uid_base: u32,
    holder: libc::pid_t,
    to_parent: RawFd,
    from_parent: RawFd,
    status: RawFd,
) -> Result<(), String> {
    let mut byte = [0u8; 1];
    match sys::read_exact(to_parent, &mut byte) {
        Ok(true) => {}
        _ => {
            return Err(read_setup_error(status)
                .unwrap_or_else(|| "the jail namespace holder died during set-up".into()));
        }
    }
    let proc_dir = format!("/proc/{holder}");
    // The compiler's uid is mapped too, so a warm compiler never shares the candidate's.
    let map = format!(
        "0 {uid_base} 1\n{JAIL_UID} {} 1\n{COMPILER_UID} {} 1\n",
        uid_base + JAIL_UID,
        uid_base + COMPILER_UID
    );
    for (file, content) in [
        ("setgroups", "deny"),
        ("uid_map", map.as_str()),
        ("gid_map", map.as_str()),
    ] {
        let path = CString::new(format!("{proc_dir}/{file}")).expect("no NUL");
        sys::write_file(&path, content.as_bytes())
            .map_err(|e| format!("failed to write {proc_dir}/{file}: {e}"))?;
    }
    write_all(from_parent, b"m").map_err(|e| format!("failed to release the jail: {e}"))
}

/// The supervisor's ends of one execution's descriptors.
pub(crate) struct IoFds {
    pub status: RawFd,
    pub stdout: RawFd,
    pub stderr: RawFd,
    pub chan_out: RawFd,
    pub stdin: RawFd,
    pub chan_in: RawFd,
}

/// Runs the I/O and limit loop of one execution (it closes `io.stdin` and `io.chan_in`;
/// the caller closes the rest) until every step has ended and every
/// output is closed. `slot_seq` is set for warm-slot executions: status records then carry
/// the execution's sequence number instead of a step index, stale records are ignored, and
/// the jail is killed through its cgroup only (the slot's init must survive).
pub(crate) fn supervise(
    exec: &crate::api::ExecRequest,
    cg: &ExecCgroup,
    io: &IoFds,
    last: usize,
    slot_seq: Option<u32>,
    handed_over: bool,
) -> JailResponse {
    let limits = &exec.limits;
    for fd in [
        io.status,
        io.stdout,
        io.stderr,
        io.chan_out,
        io.stdin,
        io.chan_in,
    ] {
        let _ = sys::set_nonblocking(fd);
    }
    let cap = limits.output_bytes as usize;
    let mut outs = [
        Capture {
            fd: io.stdout,
            data: Vec::new(),
            open: true,
        },
        Capture {
            fd: io.stderr,
            data: Vec::new(),
            open: true,
        },
        Capture {
            fd: io.chan_out,
            data: Vec::new(),
            open: true,
        },
    ];
    let mut feeds = [
        Feed {
            fd: io.stdin,
            data: &exec.stdin,
        },
        Feed {
            fd: io.chan_in,
            data: &exec.channel_input,
        },
    ];
    for f in &mut feeds {
        f.push();
    }

    let mut status_buf: Vec<u8> = Vec::new();
    let mut status_open = true;
    let mut init_pid: Option<libc::pid_t> = None;
    let mut current: Option<(usize, Instant, u64)> = None; // step, wall start, cpu start
    if handed_over {
        // A pre-started step: its start-up is not the candidate's; time runs from now.
        current = Some((last, Instant::now(), cg.cpu_us().unwrap_or(0)));
    }
    let mut ended: Option<(usize, i32)> = None;
    let mut cpu_total = 0u64;
    let mut wall_total = Duration::ZERO;
    let mut killed_for: Option<ExecStatus> = None;
    let mut host_gone = false;
    let mut last_cpu_check = Instant::now();
    let mut frame_watch = exec.frame_budgets.as_ref().map(FrameWatch::new);
    // One read buffer for the outputs, allocated (and zeroed) once per execution.
    let mut read_buf = vec![0u8; 65536];
    // After a small read, outputs are not watched for OUTPUT_COALESCE: a harness writes a
    // frame per test, and waking for each cost more CPU than reading them together.
    let mut outputs_quiet_until: Option<Instant> = None;

    let kill = |init_pid: Option<libc::pid_t>| {
        if let Some(pid) = init_pid {
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        cg.kill_all();
    };

    loop {
        if !status_open && outs.iter().all(|o| !o.open) {
            break;
        }
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(8);
        if status_open {
            fds.push(libc::pollfd {
                fd: io.status,
                events: libc::POLLIN,
                revents: 0,
            });
        }
        let quiet = status_open && outputs_quiet_until.is_some_and(|t| Instant::now() < t);
        for o in outs.iter().filter(|o| o.open && !quiet) {
            fds.push(libc::pollfd {
                fd: o.fd,
                events: libc::POLLIN,
                revents: 0,
            });
        }
        for f in feeds.iter().filter(|f| f.fd >= 0) {
            fds.push(libc::pollfd {
                fd: f.fd,
                events: libc::POLLOUT,
                revents: 0,
            });
        }
        if !host_gone {
            fds.push(libc::pollfd {
                fd: 0,
                events: libc::POLLIN,
                revents: 0,
            });
        }
        let timeout = if quiet { OUTPUT_COALESCE_MS } else { 5 };
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) };
        // Only descriptors poll reported are read or written: no EAGAIN round trips.
        let ready = |fd: RawFd| fds.iter().any(|p| p.fd == fd && p.revents != 0);

        let mut read = 0;
        for o in outs.iter_mut() {
            if o.open && ready(o.fd) {
                let before = o.data.len();
                if o.pump(cap, &mut read_buf) && killed_for.is_none() {
                    killed_for = Some(ExecStatus::OutputLimit);
                    kill(init_pid);
                }
                read += (o.data.len() - before).max(1);
            }
        }
        // A flood is read at once (its writer would block on a full pipe).
        outputs_quiet_until = (read > 0 && read < OUTPUT_COALESCE_BYTES && status_open)
            .then(|| Instant::now() + Duration::from_millis(OUTPUT_COALESCE_MS as u64));
        if let Some(w) = frame_watch.as_mut()
            && ready(io.chan_out)
        {
            w.advance(&outs[2].data);
        }
        for f in feeds.iter_mut().filter(|f| f.fd >= 0 && ready(f.fd)) {
            f.push();
        }
        // The host sends nothing mid-execution: only its EOF (or an error) wakes fd 0.
        if !host_gone && ready(0) {
            let mut b = [0u8; 1];
            let n = unsafe {
                libc::recv(
                    0,
                    b.as_mut_ptr().cast(),
                    1,
                    libc::MSG_PEEK | libc::MSG_DONTWAIT,
                )
            };
            let eof = if n < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ENOTSOCK)
            {
                // A pipe: only EOF can be read here, the host sends nothing mid-execution.
                unsafe { libc::read(0, b.as_mut_ptr().cast(), 0) };
                let mut p = libc::pollfd {
                    fd: 0,
                    events: libc::POLLIN,
                    revents: 0,
                };
                unsafe { libc::poll(&mut p, 1, 0) };
                p.revents & libc::POLLHUP != 0
            } else {
                n == 0
            };
            if eof {
                host_gone = true;
                killed_for.get_or_insert(ExecStatus::Timeout);
                kill(init_pid);
            }
        }
        if status_open && ready(io.status) {
            let mut buf = [0u8; 4096];
            loop {
                let n = unsafe { libc::read(io.status, buf.as_mut_ptr().cast(), buf.len()) };
                if n > 0 {
                    status_buf.extend_from_slice(&buf[..n as usize]);
                    if (n as usize) < buf.len() {
                        break;
                    }
                } else {
                    if n == 0 {
                        status_open = false;
                    }
                    break;
                }
            }
            while status_buf.len() >= 12 {
                let kind = u32::from_le_bytes(status_buf[0..4].try_into().expect("4"));
                let mut step = u32::from_le_bytes(status_buf[4..8].try_into().expect("4")) as usize;
                let value = i32::from_le_bytes(status_buf[8..12].try_into().expect("4"));
                let stale = slot_seq.is_some_and(|seq| step != seq as usize);
                if slot_seq.is_some() {
                    step = 0;
                }
                if kind == MSG_SETUP_ERROR {
                    let len = value.max(0) as usize;
                    if status_buf.len() < 12 + len {
                        if status_open {
                            break;
                        }
                        return Err("the jail reported a truncated set-up error".into());
                    }
                    let msg = String::from_utf8_lossy(&status_buf[12..12 + len]).into_owned();
                    status_buf.drain(..12 + len);
                    if stale {
                        continue;
                    }
                    kill(init_pid);
                    return Err(msg);
                }
                status_buf.drain(..12);
                if stale {
                    continue;
                }
                match kind {
                    MSG_INIT_PID => init_pid = Some(value),
                    MSG_STEP_START if handed_over => {}
                    MSG_STEP_START => {
                        current = Some((step, Instant::now(), cg.cpu_us().unwrap_or(0)))
                    }
                    MSG_STEP_END => {
                        if let Some((_, start, cpu0)) = current.take() {
                            wall_total += start.elapsed();
                            cpu_total += cg.cpu_us().unwrap_or(cpu0).saturating_sub(cpu0);
                        }
                        ended = Some((step, value));
                        // What the step wrote last is read now, not after a quiet period.
                        outputs_quiet_until = None;
                        if slot_seq.is_some() {
                            // The slot's status channel stays open; the candidate's
                            // stragglers die now so that its outputs close.
                            status_open = false;
                            cg.kill_all();
                        }
                    }
                    _ => return Err(format!("unknown jail status message {kind}")),
                }
            }
        }
        if let Some((step, start, cpu0)) = current
            && killed_for.is_none()
        {
            let (cpu_budget, wall_budget) = if step == last {
                (limits.cpu_ms, limits.wall_ms)
            } else {
                (limits.setup_cpu_ms, limits.setup_cpu_ms * 2 + 2_000)
            };
            // Reading cpu.stat costs several syscalls; a harness that writes one frame per
            // test wakes this loop per test, so the CPU limit is checked at most every 2 ms
            // (the poll timeout is 5 ms; RLIMIT_CPU is the backstop).
            let check_cpu = last_cpu_check.elapsed() >= Duration::from_millis(2);
            let cpu_now = if check_cpu {
                last_cpu_check = Instant::now();
                Some(cg.cpu_us().unwrap_or(cpu0))
            } else {
                None
            };
            let cpu_used = cpu_now.map_or(0, |c| c.saturating_sub(cpu0));
            // A test stuck past its own budget (when the caller gave per-frame budgets).
            let item_over = step == last
                && cpu_now
                    .is_some_and(|now| frame_watch.as_mut().is_some_and(|w| w.over_budget(now)));
            if cpu_used > cpu_budget * 1000
                || item_over
                || start.elapsed() > Duration::from_millis(wall_budget)
            {
                killed_for = Some(ExecStatus::Timeout);
                kill(init_pid);
            }
        }
    }
    if let Some((_, start, cpu0)) = current.take() {
        wall_total += start.elapsed();
        cpu_total += cg.cpu_us().unwrap_or(cpu0).saturating_sub(cpu0);
    }
    let peak_memory_bytes = cg.peak_memory();
    let oom = cg.oom_killed();
    for f in feeds.iter().filter(|f| f.fd >= 0) {
        close(f.fd);
    }
    let [stdout, stderr, channel] = outs.map(|o| o.data);

    let (step, wait_status) = match ended {
        Some(e) => e,
        None if killed_for.is_some() || oom => {
            (current.map(|c| c.0).unwrap_or(last), libc::SIGKILL)
        }
        None => {
            return Err(read_setup_error(io.status)
                .unwrap_or_else(|| "the jail init died before reporting".into()));
        }
    };
    let exited = libc::WIFEXITED(wait_status);
    let exit_code = exited.then(|| libc::WEXITSTATUS(wait_status));
    let signal = libc::WIFSIGNALED(wait_status).then(|| libc::WTERMSIG(wait_status));
    let status = if let Some(reason) = killed_for {
        reason
    } else if oom {
        ExecStatus::MemoryLimit
    } else if exit_code == Some(0) && step == last {
        ExecStatus::Ok
    } else if matches!(signal, Some(libc::SIGXCPU)) {
        ExecStatus::Timeout
    } else if reports_heap_exhaustion(&stderr) {
        ExecStatus::MemoryLimit
    } else {
        ExecStatus::RuntimeError
    };
    let truncated = killed_for == Some(ExecStatus::OutputLimit);
    Ok(ExecOutcome {
        status,
        step,
        exit_code,
        signal,
        cpu_us: cpu_total,
        wall_us: wall_total.as_micros() as u64,
        peak_memory_bytes,
        stdout,
        stderr,
        channel_output: channel,
        truncated,
    })
}

/// How long outputs go unwatched after a small read (see `supervise`): frames reach the
/// supervisor at most this much later; the step's end is always seen at once.
const OUTPUT_COALESCE_MS: i32 = 1;
/// Reads of at least this many bytes are not followed by a quiet period.
const OUTPUT_COALESCE_BYTES: usize = 16 << 10;

/// The runtimes' own words for "the heap limit was reached".
fn reports_heap_exhaustion(stderr: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stderr);
    let last_line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    last_line.starts_with("MemoryError")
        || text.contains("JavaScript heap out of memory")
        || text.contains("java.lang.OutOfMemoryError")
}

fn read_setup_error(fd: RawFd) -> Option<String> {
    let _ = sys::set_nonblocking(fd);
    let mut buf = Vec::new();
    let mut file = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(libc::dup(fd)) };
    let _ = file.read_to_end(&mut buf);
    let mut i = 0;
    while i + 12 <= buf.len() {
        let kind = u32::from_le_bytes(buf[i..i + 4].try_into().ok()?);
        let value = i32::from_le_bytes(buf[i + 8..i + 12].try_into().ok()?);
        i += 12;
        if kind == MSG_SETUP_ERROR {
            let len = (value.max(0) as usize).min(buf.len() - i);
            return Some(String::from_utf8_lossy(&buf[i..i + len]).into_owned());
        }
    }
    None
}

/// Where the jail's root is mounted (inside its own mount namespace only).
pub fn default_root_mountpoint() -> &'static Path {
    Path::new("/tmp/.passrate-jail-root")
}

#[cfg(test)]
mod frame_watch_tests {
    use super::FrameWatch;
    use crate::api::FrameBudgets;

    fn frame(body: &str) -> Vec<u8> {
        format!("PASSRATE n {} {}\n{body}\n", 0, body.len()).into_bytes()
    }

    #[test]
    fn frames_are_counted_across_partial_reads() {
        let budgets = FrameBudgets {
            skip: 0,
            cpu_us: vec![],
            then_each_us: None,
        };
        let mut w = FrameWatch::new(&budgets);
        let mut data = Vec::new();
        let all: Vec<u8> = [frame("{\"hello\":1}"), frame("{}"), frame("x\ny")].concat();
        for chunk in all.chunks(3) {
            data.extend_from_slice(chunk);
            w.advance(&data);
        }
        assert_eq!(w.frames, 3);
        assert!(!w.broken);
    }

    #[test]
    fn budgets_start_again_at_each_frame_after_the_skipped_ones() {
        let budgets = FrameBudgets {
            skip: 1,
            cpu_us: vec![100, 50],
            then_each_us: None,
        };
        let mut w = FrameWatch::new(&budgets);
        // Before the skipped frame: no budget.
        assert!(!w.over_budget(0));
        assert!(!w.over_budget(1_000_000));
        let mut data = frame("hello");
        w.advance(&data);
        // Budget 0 counts from the first sample after it: 1,000,000.
        assert!(!w.over_budget(1_000_000));
        assert!(!w.over_budget(1_000_100));
        assert!(w.over_budget(1_000_101));
        data.extend(frame("test 0"));
        w.advance(&data);
        assert!(!w.over_budget(2_000_000));
        assert!(w.over_budget(2_000_051));
        // Past the last budget only the overall limit applies.
        data.extend(frame("test 1"));
        w.advance(&data);
        assert!(!w.over_budget(9_000_000));
        assert!(!w.over_budget(99_000_000));
    }

    #[test]
    fn frames_past_the_list_take_the_each_budget() {
        let budgets = FrameBudgets {
            skip: 1,
            cpu_us: vec![100],
            then_each_us: Some(30),
        };
        let mut w = FrameWatch::new(&budgets);
        let mut data = frame("hello");
        w.advance(&data);
        assert!(!w.over_budget(0));
        assert!(w.over_budget(101));
        for (k, start) in [(1, 1_000), (2, 2_000), (7, 9_000)] {
            data.extend(frame(&format!("test {k}")));
            w.advance(&data);
            assert!(!w.over_budget(start));
            assert!(!w.over_budget(start + 30));
            assert!(w.over_budget(start + 31), "frame {k}");
        }
    }

    #[test]
    fn a_channel_that_is_not_frames_ends_the_per_frame_checks() {
        let budgets = FrameBudgets {
            skip: 0,
            cpu_us: vec![1, 1, 1],
            then_each_us: None,
        };
        let mut w = FrameWatch::new(&budgets);
        w.advance(b"no length here\n");
        assert!(w.broken);
        assert!(!w.over_budget(0));
        assert!(!w.over_budget(1_000_000));
        let mut w = FrameWatch::new(&budgets);
        w.advance(&vec![b'x'; 300]);
        assert!(w.broken);
        // A declared length past the address space is not a frame; a long one still arriving is.
        let mut w = FrameWatch::new(&budgets);
        w.advance(format!("H {}\n", usize::MAX).as_bytes());
        assert!(w.broken);
        let mut w = FrameWatch::new(&budgets);
        w.advance(b"H 100\nabc");
        assert!(!w.broken);
        assert_eq!(w.frames, 0);
    }
}
