//! Warm slots: a long-lived jail whose namespaces and root are built once, with a Python
//! fork server (zygote.py) that has already imported what harnesses use. Each execution
//! still gets a fresh cgroup leaf, fresh mount, IPC and cgroup namespaces, a fresh /tmp and
//! /dev/shm, uid 1000, rlimits, no_new_privs and the seccomp filter (applied by the zygote's
//! child before any candidate code runs), and everything it started is killed through its
//! cgroup before the next execution. Any infrastructure error retires the slot.

use std::ffi::CString;
use std::io;
use std::os::fd::RawFd;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::api::{ExecRequest, Limits, Program};
use crate::cgroup::{ExecCgroup, Layout};
use crate::jail::{self, HolderFds, IoFds};
use crate::mounts::{self, RootSpec};
use crate::runtimes::{self, CLEAN_ENV, Runtimes};
use crate::sys::{self, close, cvt, write_all};
use crate::wire::{self, JailResponse};

const ZYGOTE_SOURCE: &[u8] = include_bytes!("zygote.py");
const ZYGOTE_PATH: &str = "run/passrate-zygote.py";
const MSG_READY: u32 = 4;
/// Message kinds to the fork server (see zygote.py).
const MSG_PREPARE: u32 = 1;
const MSG_EXEC: u32 = 2;
const MSG_TRUSTED: u32 = 3;

/// Bytes that travel as text or hex (`wire::bytes`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Blob(#[serde(with = "crate::wire::bytes")] pub Vec<u8>);

/// One execution for a warm slot, with the trusted bytecode the slot has not been given yet
/// (`Sandbox::trust_python_bytecode`): the host's own programs, never a candidate's file.
/// `trusted_files` lists `(file index, blob index)`: that file's contents were left out
/// because they are exactly the bytes of the slot's blob of that index (in the order the
/// slot received them, this frame's included). The slot passes the reference on: the fork
/// server holds every blob, in the same order, and writes those bytes.
#[derive(Debug, Serialize)]
pub struct SlotExecRef<'a> {
    pub exec: &'a ExecRequest,
    pub trusted: &'a [Blob],
    pub trusted_files: &'a [(usize, usize)],
}

/// [`SlotExecRef`] as the slot reads it.
#[derive(Debug, Deserialize)]
pub struct SlotExec {
    pub exec: ExecRequest,
    #[serde(default)]
    pub trusted: Vec<Blob>,
    #[serde(default)]
    pub trusted_files: Vec<(usize, usize)>,
}

/// `exec` with the contents of the files in `refs` (`(file index, blob index)`) left empty,
/// for a [`SlotExecRef`].
pub fn without_contents(exec: &ExecRequest, refs: &[(usize, usize)]) -> ExecRequest {
    let mut copy = exec.clone();
    for &(i, _) in refs {
        if let Some(f) = copy.files.get_mut(i) {
            f.contents = Vec::new();
        }
    }
    copy
}

/// Checks that each reference (`(file index, blob index)`) names a file whose contents
/// [`without_contents`] left out and one of the `held` blobs the slot has sent on.
fn check_references(
    exec: &ExecRequest,
    refs: &[(usize, usize)],
    held: usize,
) -> Result<(), String> {
    for (n, &(i, k)) in refs.iter().enumerate() {
        let resolvable = k < held
            && exec.files.get(i).is_some_and(|f| f.contents.is_empty())
            && !refs[..n].iter().any(|&(j, _)| j == i);
        if !resolvable {
            return Err(format!(
                "the host referred to trusted bytes {k} for file {i}, which this slot cannot resolve"
            ));
        }
    }
    Ok(())
}

/// How the host asks the jail process to become a warm slot.
#[derive(Debug, Serialize, Deserialize)]
pub struct SlotRequest {
    pub runtimes: Runtimes,
    pub cgroups: Layout,
    pub uid_base: u32,
    pub ro_binds: Vec<PathBuf>,
    pub root_mountpoint: PathBuf,
    /// Modules the fork server imports once (e.g. `json`, `math`).
    pub preload: Vec<String>,
    /// The CPU this slot, its fork server and every execution it forks run on
    /// (`SandboxConfig::pin_slots`); `None` leaves them to the scheduler.
    #[serde(default)]
    pub cpu: Option<usize>,
}

/// Whether a request can be served by a warm slot's fork server.
pub fn fork_servable(req: &ExecRequest) -> bool {
    req.steps.len() == 1 && matches!(req.steps[0], Program::Python { .. })
}

/// Entry of the jail process in slot mode: set up, answer "ready", then serve executions
/// until the host closes the pipe.
pub fn serve(req: SlotRequest) -> ! {
    let mut slot = match Slot::start(&req) {
        Ok(slot) => slot,
        Err(e) => {
            let _ = wire::write_frame(io::stdout().lock(), &Err::<(), String>(e));
            std::process::exit(1);
        }
    };
    if wire::write_frame(io::stdout().lock(), &Ok::<(), String>(())).is_err() {
        std::process::exit(1);
    }
    // How many trusted blobs the host sent (and this slot passed on to the fork server), in
    // order: `trusted_files` refers to them by index.
    let mut held = 0;
    loop {
        let SlotExec {
            exec,
            trusted,
            trusted_files,
        } = match wire::read_frame(io::stdin().lock()) {
            Ok(frame) => frame,
            Err(_) => slot.exit(0),
        };
        held += trusted.len();
        if let Err(e) = check_references(&exec, &trusted_files, held) {
            let _ = wire::write_frame(io::stdout().lock(), &JailResponse::Err(e));
            slot.exit(2);
        }
        for blob in &trusted {
            // Before the execution's message: the spare forked at its hand-over has it.
            let head = header(blob.0.len(), MSG_TRUSTED, 0, 0, 0);
            if write_all(slot.sock, &head)
                .and_then(|()| write_all(slot.sock, &blob.0))
                .is_err()
            {
                slot.exit(2);
            }
        }
        let response = slot.execute(&exec, &trusted_files);
        let failed = response.is_err();
        if wire::write_frame(io::stdout().lock(), &response).is_err() || failed {
            // Everything below dies with us (parent-death signals, then the pid namespace).
            slot.exit(if failed { 2 } else { 1 });
        }
        // After the response: the leaf is already empty and its figures read, and removing
        // it (or creating one) can wait behind another process's cgroup join.
        slot.tidy(&exec.limits);
    }
}

/// Suffix of a slot's prepared leaf: created ahead of its execution, alive with its slot.
pub const NEXT_SUFFIX: &str = "-next";

struct Slot {
    sock: RawFd,
    status: RawFd,
    seq: u32,
    layout: Layout,
    slot_pid: u32,
    /// The next execution's fresh leaf, with the limits written into it; the fork server's
    /// spare child has joined it (or is joining) and nothing else ever ran in it.
    next: Option<(ExecCgroup, u64, u32)>,
    /// The leaf after that: created, its procs files open, no process in it yet. It is
    /// handed to the spare forked at the next hand-over, so no leaf is created on the
    /// critical path.
    after: Option<(ExecCgroup, u64, u32, Vec<RawFd>)>,
    /// The finished execution's leaf (empty), removed after the response.
    done: Option<ExecCgroup>,
}

fn filter_bytes() -> String {
    let mut hex = String::new();
    for ins in crate::seccomp::deny_list_program() {
        let mut b = Vec::with_capacity(8);
        b.extend_from_slice(&ins.code.to_le_bytes());
        b.push(ins.jt);
        b.push(ins.jf);
        b.extend_from_slice(&ins.k.to_le_bytes());
        for byte in b {
            hex.push_str(&format!("{byte:02x}"));
        }
    }
    hex
}

fn socketpair() -> io::Result<(RawFd, RawFd)> {
    let mut fds = [0; 2];
    cvt(unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    })?;
    Ok((fds[0], fds[1]))
}

impl Slot {
    fn start(req: &SlotRequest) -> Result<Slot, String> {
        // Before anything is forked: the fork server and its children inherit it.
        if let Some(cpu) = req.cpu {
            sys::pin_to_cpu(cpu)
                .map_err(|e| format!("failed to pin the slot to CPU {cpu}: {e}"))?;
        }
        let python = req
            .runtimes
            .python
            .as_ref()
            .ok_or("python3 is not installed on this host")?;
        let exe =
            CString::new(python.path.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        let argv: Vec<CString> = std::iter::once(python.path.display().to_string())
            .chain(runtimes::python_flags(python))
            .chain([format!("/{ZYGOTE_PATH}")])
            .map(|a| CString::new(a).expect("no NUL"))
            .collect();
        let mut env: Vec<CString> = CLEAN_ENV
            .iter()
            .map(|e| CString::new(*e).expect("static"))
            .collect();
        env.push(CString::new(format!("PASSRATE_SECCOMP={}", filter_bytes())).expect("hex"));
        // Every library symbol bound at start-up: lazily bound, each child's first call of
        // a function (setresuid, setsid, ...) wrote its GOT entry (a page copy) and read the
        // symbol tables (~9 page faults per execution, net). The fork server removes it from its
        // environment, so children never see it.
        env.push(CString::new("LD_BIND_NOW=1").expect("static"));
        env.push(
            CString::new(format!("PASSRATE_PRELOAD={}", req.preload.join(",")))
                .map_err(|e| e.to_string())?,
        );
        fs_err::create_dir_all(&req.root_mountpoint)
            .map_err(|e| format!("failed to create the jail mount point: {e}"))?;
        let p = || sys::pipe().map_err(|e| format!("failed to create a pipe: {e}"));
        let (to_parent, from_parent, status) = (p()?, p()?, p()?);
        let (sup, zyg) =
            socketpair().map_err(|e| format!("failed to create the fork server socket: {e}"))?;

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
            jail::namespace_holder(&[to_parent.0, from_parent.1, status.0, sup], fds, || {
                slot_init(req, zyg, status.1, &exe, &argv, &env)
            });
        }
        for fd in [to_parent.1, from_parent.0, status.1, zyg] {
            close(fd);
        }
        jail::release_holder(req.uid_base, holder, to_parent.0, from_parent.1, status.0)?;
        close(to_parent.0);
        close(from_parent.1);
        // The zygote says READY once its imports are done.
        let mut rec = [0u8; 12];
        match sys::read_exact(sup, &mut rec) {
            Ok(true) if u32::from_le_bytes(rec[0..4].try_into().expect("4")) == MSG_READY => {}
            _ => {
                let detail = read_text(status.0);
                return Err(format!("the Python fork server did not start: {detail}"));
            }
        }
        let mut slot = Slot {
            sock: sup,
            status: status.0,
            seq: 0,
            layout: req.cgroups.clone(),
            slot_pid: std::process::id(),
            next: None,
            after: None,
            done: None,
        };
        let defaults = Limits::default();
        let (cg, memory, pids, fds) = slot.prepare_leaf(defaults.memory_bytes, defaults.pids)?;
        slot.next = Some((cg, memory, pids));
        let header = header(0, MSG_PREPARE, 0, fds.len(), defaults.workdir_bytes);
        let sent = send_with_fds(slot.sock, &header, &fds);
        for fd in fds {
            close(fd);
        }
        sent.map_err(|e| format!("failed to prepare the fork server: {e}"))?;
        slot.after = Some(slot.prepare_leaf(defaults.memory_bytes, defaults.pids)?);
        Ok(slot)
    }

    /// Creates a fresh leaf with these limits (the latest request's: the next one usually
    /// has the same) and opens its procs files for a spare child.
    #[allow(clippy::type_complexity)]
    fn prepare_leaf(
        &mut self,
        memory_bytes: u64,
        pids: u32,
    ) -> Result<(ExecCgroup, u64, u32, Vec<RawFd>), String> {
        let name = format!("{}-{}{NEXT_SUFFIX}", self.slot_pid, jail::unique_suffix());
        let cg = ExecCgroup::create(&self.layout, &name, memory_bytes, pids)
            .map_err(|e| format!("failed to create the execution cgroup {name}: {e}"))?;
        match cg.open_procs_fds() {
            Ok(fds) => Ok((cg, memory_bytes, pids, fds)),
            Err(e) => {
                let _ = cg.remove();
                Err(e)
            }
        }
    }

    /// Between executions: removes the finished (empty) leaf and creates the one after next.
    /// A failure to create it is reported by the next execution, which tries again.
    fn tidy(&mut self, limits: &Limits) {
        if let Some(cg) = self.done.take() {
            cg.kill_all();
            let _ = cg.remove();
        }
        if self.after.is_none() {
            self.after = self.prepare_leaf(limits.memory_bytes, limits.pids).ok();
        }
    }

    /// Ends the slot jail process, removing the prepared leaves first (the spare dies).
    fn exit(&mut self, code: i32) -> ! {
        if let Some((cg, _, _)) = self.next.take() {
            cg.kill_all();
            let _ = cg.remove();
        }
        if let Some((cg, _, _, fds)) = self.after.take() {
            fds.into_iter().for_each(close);
            let _ = cg.remove();
        }
        if let Some(cg) = self.done.take() {
            cg.kill_all();
            let _ = cg.remove();
        }
        std::process::exit(code)
    }

    fn execute(&mut self, exec: &ExecRequest, trusted_files: &[(usize, usize)]) -> JailResponse {
        let Some(Program::Python { script, args }) =
            exec.steps.first().filter(|_| fork_servable(exec))
        else {
            return Err("a warm slot only serves single-step Python executions".into());
        };
        self.seq = self.seq.wrapping_add(1);
        let limits = &exec.limits;
        let (cg, memory, pids) = self
            .next
            .take()
            .ok_or("the slot has no prepared cgroup leaf")?;
        if (memory, pids) != (limits.memory_bytes, limits.pids)
            && let Err(e) = cg.set_limits(limits.memory_bytes, limits.pids)
        {
            cg.kill_all();
            let _ = cg.remove();
            return Err(format!("failed to set the execution's cgroup limits: {e}"));
        }
        let after = match self.after.take() {
            Some(after) => Ok(after),
            None => self.prepare_leaf(limits.memory_bytes, limits.pids),
        };
        let result = match after {
            Ok((after, memory, pids, fds)) => {
                self.next = Some((after, memory, pids));
                self.execute_in(exec, trusted_files, script, args, &cg, fds)
            }
            Err(e) => Err(e),
        };
        // Nothing of it may outlive the response; the empty leaf is removed after it.
        cg.kill_all();
        self.done = Some(cg);
        result
    }

    fn execute_in(
        &mut self,
        exec: &ExecRequest,
        trusted_files: &[(usize, usize)],
        script: &str,
        args: &[String],
        cg: &ExecCgroup,
        next_fds: Vec<RawFd>,
    ) -> JailResponse {
        let limits = &exec.limits;
        let next = next_fds.len();
        let mut child_fds = Vec::with_capacity(5 + next);
        let pipes = (0..5)
            .map(|_| sys::pipe().map_err(|e| format!("failed to create a pipe: {e}")))
            .collect::<Result<Vec<_>, _>>();
        let pipes = match pipes {
            Ok(p) => p,
            Err(e) => {
                next_fds.into_iter().for_each(close);
                return Err(e);
            }
        };
        let (stdin, stdout, stderr, chan_in, chan_out) =
            (pipes[0], pipes[1], pipes[2], pipes[3], pipes[4]);
        for (fd, mode) in [
            (stdin.0, crate::jail::CHILD_READ_END),
            (stdout.1, crate::jail::CHILD_WRITE_END),
            (stderr.1, crate::jail::CHILD_WRITE_END),
            (chan_in.0, crate::jail::CHILD_READ_END),
            (chan_out.1, crate::jail::CHILD_WRITE_END),
        ] {
            // Reopening through /proc/self/fd checks the pipe inode's mode for others (its
            // owner, host root, is unmapped): only in the direction the child was given.
            unsafe { libc::fchmod(fd, mode) };
            child_fds.push(fd);
        }
        child_fds.extend(next_fds);
        // File contents follow the JSON as raw bytes (sizes in the JSON): no hex or
        // escaping of e.g. a .pyc in either direction. A trusted file stays a reference:
        // the fork server has the bytes.
        let mut blob = Vec::new();
        let files: Vec<serde_json::Value> = exec
            .files
            .iter()
            .enumerate()
            .map(
                |(i, f)| match trusted_files.iter().find(|&&(j, _)| j == i) {
                    Some(&(_, k)) => serde_json::json!({
                        "path": f.path,
                        "trusted": k,
                        "executable": f.executable,
                    }),
                    None => {
                        blob.extend_from_slice(&f.contents);
                        serde_json::json!({
                            "path": f.path,
                            "size": f.contents.len(),
                            "executable": f.executable,
                        })
                    }
                },
            )
            .collect();
        let request = serde_json::json!({
            "seq": self.seq,
            "script": script,
            "args": args,
            "files": files,
            "workdir_bytes": limits.workdir_bytes,
            "limits": {
                "cpu_s": limits.cpu_ms.div_ceil(1000) + 1,
                "data": limits.heap_bytes,
            },
        });
        let json = serde_json::to_vec(&request).map_err(|e| e.to_string())?;
        let mut body = Vec::with_capacity(4 + json.len() + blob.len());
        body.extend_from_slice(&(json.len() as u32).to_le_bytes());
        body.extend_from_slice(&json);
        body.extend_from_slice(&blob);
        // The spare for the following execution prepares a work dir of this size.
        let head = header(body.len(), MSG_EXEC, self.seq, next, limits.workdir_bytes);
        let sent =
            send_with_fds(self.sock, &head, &child_fds).and_then(|()| write_all(self.sock, &body));
        for fd in child_fds {
            close(fd);
        }
        if let Err(e) = sent {
            for fd in [stdin.1, stdout.0, stderr.0, chan_in.1, chan_out.0] {
                close(fd);
            }
            return Err(format!(
                "failed to hand the execution to the fork server: {e}"
            ));
        }
        let io = IoFds {
            status: self.sock,
            stdout: stdout.0,
            stderr: stderr.0,
            chan_out: chan_out.0,
            stdin: stdin.1,
            chan_in: chan_in.1,
        };
        let result = jail::supervise(exec, cg, &io, 0, Some(self.seq), false);
        // supervise made the socket non-blocking; the next request is written blocking.
        let flags = unsafe { libc::fcntl(self.sock, libc::F_GETFL) };
        unsafe { libc::fcntl(self.sock, libc::F_SETFL, flags & !libc::O_NONBLOCK) };
        for fd in [stdout.0, stderr.0, chan_out.0] {
            close(fd);
        }
        result.map_err(|e| {
            let more = read_text(self.status);
            if more.is_empty() {
                e
            } else {
                format!("{e}; {more}")
            }
        })
    }
}

/// A message header for the fork server: body length, kind, sequence number, how many of
/// the attached descriptors are the next leaf's, and the next spare's work dir size.
fn header(len: usize, kind: u32, seq: u32, next: usize, workdir_bytes: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(24);
    for v in [len as u32, kind, seq, next as u32] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h.extend_from_slice(&workdir_bytes.to_le_bytes());
    h
}

/// Sends `data` with `fds` attached (SCM_RIGHTS).
fn send_with_fds(sock: RawFd, data: &[u8], fds: &[RawFd]) -> io::Result<()> {
    let payload = std::mem::size_of_val(fds) as u32;
    let space = unsafe { libc::CMSG_SPACE(payload) } as usize;
    let mut control = vec![0u8; space];
    let mut iov = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space;
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(payload) as usize;
        std::ptr::copy_nonoverlapping(
            fds.as_ptr().cast::<u8>(),
            libc::CMSG_DATA(cmsg),
            payload as usize,
        );
    }
    let n = unsafe { libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    write_all(sock, &data[n as usize..])
}

/// Whatever set-up error text the holder or init left on the status pipe.
fn read_text(fd: RawFd) -> String {
    let _ = sys::set_nonblocking(fd);
    let mut buf = vec![0u8; 8192];
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n <= 12 {
        return String::new();
    }
    String::from_utf8_lossy(&buf[12..n as usize]).into_owned()
}

/// Pid 1 of a slot: builds the root with the fork server's source in it, starts the fork
/// server, reaps orphans, and ends the slot if the fork server dies.
fn slot_init(
    req: &SlotRequest,
    zygote_sock: RawFd,
    status: RawFd,
    exe: &CString,
    argv: &[CString],
    env: &[CString],
) {
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    let mut binds = req.runtimes.extra_binds();
    binds.extend(req.ro_binds.iter().cloned());
    let extra: [(&str, &[u8]); 1] = [(ZYGOTE_PATH, ZYGOTE_SOURCE)];
    let spec = RootSpec {
        mountpoint: &req.root_mountpoint,
        ro_binds: &binds,
        workdir_bytes: 1 << 20,
        extra_files: &extra,
    };
    if let Err(e) = mounts::build_root(&spec) {
        jail::send_error(status, &format!("failed to build the slot filesystem: {e}"));
        unsafe { libc::_exit(1) };
    }
    let hostname = b"sandbox";
    unsafe { libc::sethostname(hostname.as_ptr().cast(), hostname.len()) };
    let zygote = unsafe { libc::fork() };
    if zygote == 0 {
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::dup2(zygote_sock, 3);
            sys::close_fds_from(4, &[status]);
            libc::setsid();
            libc::chdir(c"/tmp".as_ptr());
        }
        let err = sys::execve(exe, argv, env);
        jail::send_error(status, &format!("cannot start the fork server: {err}"));
        unsafe { libc::_exit(127) };
    }
    close(zygote_sock);
    loop {
        let mut st = 0;
        let r = unsafe { libc::waitpid(-1, &mut st, 0) };
        if r == zygote {
            jail::send_error(status, "the Python fork server exited");
            unsafe { libc::_exit(1) };
        }
        if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            unsafe { libc::_exit(1) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::InputFile;

    fn request(files: &[&[u8]]) -> ExecRequest {
        let mut exec = ExecRequest::single(Program::Python {
            script: "main.py".into(),
            args: Vec::new(),
        });
        exec.files = files
            .iter()
            .enumerate()
            .map(|(i, c)| InputFile {
                path: format!("f{i}"),
                contents: c.to_vec(),
                executable: false,
            })
            .collect();
        exec
    }

    #[test]
    fn trusted_file_references_are_checked() {
        let original = request(&[b"one", b"mine", b"zero"]);
        let refs = [(0, 1), (2, 0)];
        let sent = without_contents(&original, &refs);
        assert_eq!(sent.files[0].contents, b"");
        assert_eq!(sent.files[1].contents, b"mine");
        assert_eq!(sent.files[2].contents, b"");
        check_references(&sent, &refs, 2).unwrap();
        // Unknown blob, unknown file, a file that still has contents, or one file twice.
        let sent = without_contents(&original, &refs);
        for bad in [&[(0, 2)][..], &[(3, 0)], &[(1, 0)], &[(0, 1), (0, 0)]] {
            assert!(check_references(&sent, bad, 2).is_err(), "{bad:?}");
        }
    }
}
