# passrate's Python fork server: pid 2 of a warm sandbox slot, running as the slot's user
# namespace root. It imports what harnesses use once, then serves executions with one
# child each. A child is forked one execution ahead (the "spare"): while the current
# execution runs, it joins the cgroup leaf the supervisor created for the next execution
# (writing cgroup.procs waits for an RCU grace period, ~10 ms on a loaded host, too slow for
# the critical path), then unshares its own mount/IPC/cgroup namespaces and mounts a fresh
# /tmp and /dev/shm. Nothing else happens in it until its execution arrives; then, before
# any candidate code runs, it writes the inputs and drops to uid 1000 with rlimits,
# no_new_privs and the seccomp filter. A spare serves exactly one execution and exits, so a
# prepared namespace or tmpfs is never reused. The zygote itself never runs candidate code
# (it does not even parse the request: it forwards the body to the spare).
# Protocol (fd 3, a unix stream socket):
#   supervisor -> zygote: header <length u32, kind u32, seq u32, next u32, workdir u64>, the
#     descriptors attached (SCM_RIGHTS), then `length` bytes of JSON:
#     PREPARE: `next` cgroup.procs descriptors of the first spare's leaf (no body);
#     EXEC: the execution's five stdio/channel descriptors, then `next` descriptors of the
#     leaf for the spare that serves the following execution (`workdir`: its /tmp size).
#     Its body: <json length u32>, the JSON request, then the files' contents back to back
#     (their sizes are in the JSON). A file with `"trusted": k` has no contents in the body:
#     its bytes are those of the k-th TRUSTED message this process received.
#     TRUSTED: the body is the bytecode (.pyc) of the host's own trusted program (never a
#     candidate's file); the zygote loads it once, and a child whose script has exactly these
#     bytes runs the loaded code instead of unmarshalling it again (no descriptors). The
#     zygote also runs it once as module `__passrate_prepare__`: a program that defines a
#     callable `__passrate_main__` there has done its set-up (imports, definitions: nothing
#     of any request) in the zygote, and such a child only calls `__passrate_main__()`.
#   zygote -> supervisor: 12-byte records <kind u32, seq u32, value i32> (+ text for errors)
import ctypes
import fcntl
import gc
import importlib.util
import json
import marshal
import os
import resource
import signal
import socket
import _socket
import struct
import sys
import traceback

READY, STEP_START, STEP_END, SETUP_ERROR = 4, 1, 2, 3
PREPARE, EXEC, TRUSTED = 1, 2, 3
MAX_TRUSTED = 4
HEADER = struct.Struct("<IIIIQ")
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWCGROUP = 0x00020000, 0x08000000, 0x02000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 2, 4, 8, 32
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 4, 38, 22
SECCOMP_MODE_FILTER = 2
JAIL_UID = 1000
MAGIC = importlib.util.MAGIC_NUMBER
WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
# (bytes, code, module, main) of the host's trusted bytecode, loaded in the zygote (TRUSTED
# messages); `main` is the program's prepared entry (`__passrate_main__`) or None.
LOADED = []
# The bytes of every TRUSTED message, in the order received (loaded or not): a request's
# file refers to them by index instead of carrying them (see child()).
TRUSTED_BYTES = []
PREPARE_NAME = "__passrate_prepare__"
# Compiled (not run) by main() before the first fork; see there.
WARM_UP_SOURCE = """
from typing import List


def warm_up(xs: List[int], k: float = 0.5) -> str:
    total = 0
    for i, x in enumerate(xs):
        if x % 2 == 0 and i != k:
            total += x ** 2
        elif not x:
            continue
    return f"{total!r}:{[y for y in xs if y]}" + str({"a": (1, 2.5, None, True)})
"""

for name in os.environ.pop("PASSRATE_PRELOAD", "").split(","):
    if name:
        try:
            __import__(name)
        except Exception:
            pass
SECCOMP = bytes.fromhex(os.environ.pop("PASSRATE_SECCOMP"))
# Only for this process's own start-up (the jail sets it): children get the plain
# environment. (unsetenv: it was read once, when the loader started.)
os.environ.pop("LD_BIND_NOW", None)
# Every execution starts from the same `random` state, as string hashing is the same in
# every jail (PYTHONHASHSEED=0): children do not reseed it (see fork()).
if "random" in sys.modules:
    sys.modules["random"].seed(0)

libc = ctypes.CDLL(None, use_errno=True)
# fork(2) called with the GIL held (PyDLL): the child resumes as this process's only
# thread, holding the GIL, with every lock free. os.fork() would also run CPython's
# after-fork handling in each child, ~0.25 ms of CPU and ~60 page copies per execution
# (random's reseed above all; the rest re-creates runtime locks only other threads could
# hold). Sound only while this process is single-threaded: checked once, os.fork otherwise.
_raw_fork = ctypes.PyDLL(None, use_errno=True).fork
_raw_fork.argtypes = []
_raw_fork.restype = ctypes.c_int
SINGLE_THREADED = len(os.listdir("/proc/self/task")) == 1


def fork():
    if not SINGLE_THREADED:
        return os.fork()
    pid = _raw_fork()
    if pid < 0:
        err = ctypes.get_errno()
        raise OSError(err, "fork: %s" % os.strerror(err))
    return pid

libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
# Looked up here, not in each spare: a first `libc.name` makes and caches a function object
# (dlsym, a class instance, a dict insertion), tens of page copies in every child.
libc.unshare.argtypes = [ctypes.c_int]
SIGKILL = int(signal.SIGKILL)


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


FILTER_BUF = ctypes.create_string_buffer(SECCOMP, len(SECCOMP))
FPROG = SockFprog(len(SECCOMP) // 8, ctypes.cast(FILTER_BUF, ctypes.c_void_p))
FPROG_ADDRESS = ctypes.addressof(FPROG)


def check(ret, what):
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, "%s: %s" % (what, os.strerror(err)))


def record(sock, kind, seq, value, text=b""):
    sock.sendall(struct.pack("<IIi", kind, seq, value) + text)


def recv_exact(sock, n):
    data = bytearray(n)
    view = memoryview(data)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:])
        if not k:
            raise EOFError
        got += k
    return data


def mount_work_dirs(size, remount=0):
    check(libc.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV | remount,
                     ("size=%d,nr_inodes=4096,mode=0755,uid=%d,gid=%d" % (size, JAIL_UID, JAIL_UID)).encode()), "mount /tmp")
    check(libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | remount,
                     ("size=%d,nr_inodes=256,mode=1777" % size).encode()), "mount /dev/shm")


def load_trusted(body):
    # Only ever the host's own bytecode (the jail sends what the host registered), so
    # unmarshalling it here is as safe as in a child; the objects are frozen like the rest.
    data = bytes(body)
    TRUSTED_BYTES.append(data)
    if data[:4] != MAGIC or len(LOADED) >= MAX_TRUSTED or any(e[0] == data for e in LOADED):
        return
    try:
        code = marshal.loads(memoryview(data)[16:])
    except Exception:
        return
    # Its set-up runs here once, before any request exists, instead of in every child (the
    # harness's: ~25 page faults and ~0.1 ms of CPU per execution). Trusted code only: no
    # candidate code ever runs in this process, so what the module holds was touched by
    # nothing but the host's program, and each child gets a fresh copy of it. A program
    # without `__passrate_main__`, or whose set-up fails, runs its code in each child.
    module, main = type(sys)(PREPARE_NAME), None
    try:
        exec(code, module.__dict__)
        main = module.__dict__.get("__passrate_main__")
    except Exception:
        pass
    if not callable(main):
        module, main = None, None
    else:
        module.__name__ = "__main__"
    LOADED.append((data, code, module, main))
    # Nothing else in this process writes to stdout or stderr: with nothing buffered, no
    # child repeats the zygote's output, and forks need not flush.
    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()


def run_main(path, data):
    # What runpy.run_path(path, run_name="__main__") does for a plain file, without its
    # importer probing (zipimport opens the file as an archive first) and context managers:
    # ~0.8 ms of CPU per execution. Bytecode is recognised by its magic number, as runpy's
    # read_code does; the module is __main__ in sys.modules while it runs. Bytecode equal to
    # trusted bytecode the zygote loaded runs that code (unmarshalling it: ~0.5 ms), or only
    # its prepared entry when the zygote has run its set-up (see load_trusted).
    if data is None:
        with open(path, "rb") as f:
            data = f.read()
    loaded = next((e for e in LOADED if len(e[0]) == len(data) and e[0] == data), None)
    if loaded is not None and loaded[3] is not None:
        # A prepared trusted program: its module is __main__, its entry does the rest.
        _, _, module, main = loaded
        module.__file__ = path
        sys.modules["__main__"] = module
        main()
        return
    code = loaded[1] if loaded is not None else None
    if code is None:
        if data[:4] == MAGIC:
            code = marshal.loads(memoryview(data)[16:])
        else:
            code = compile(data, path, "exec", dont_inherit=True)
    module = type(sys)("__main__")
    g = module.__dict__
    g.update(__file__=path, __cached__=None, __loader__=None, __package__="", __spec__=None)
    sys.modules["__main__"] = module
    exec(code, g)


def make_dirs(parent):
    # Every directory of `parent` below /tmp, owned by the candidate (the whole tree of its
    # work dir is its own, as on the cold path). Nothing of the candidate has run yet, so
    # no component can be a planted link; paths are plain components (Sandbox::validate).
    path = "/tmp"
    for part in parent[5:].split("/"):
        if part:
            path += "/" + part
            try:
                os.mkdir(path, 0o755)
            except FileExistsError:
                continue
            os.chown(path, JAIL_UID, JAIL_UID)


def child(sock, req, blob, fds, prepared_size):
    # Namespaces and work dirs were made fresh by this process when it became the spare.
    size = req["workdir_bytes"]
    if size != prepared_size:
        mount_work_dirs(size, MS_REMOUNT)
    # os.path.join("/tmp", p) without posixpath's Python code. File paths are relative, of
    # plain components (Sandbox::validate; "a//b" names the same file as "a/b"), so a file's
    # directory is what precedes its last "/"; a script may be absolute.
    script = req["script"]
    if not script.startswith("/"):
        script = "/tmp/" + script
    script_data = None
    offset = 0
    for f in req["files"]:
        k = f.get("trusted")
        if k is None:
            data = blob[offset:offset + f["size"]]
            offset += f["size"]
        else:
            # The host's own bytes, already here: not copied through two sockets per
            # execution (the harness .pyc is most of a request's body).
            data = TRUSTED_BYTES[k]
        path = "/tmp/" + f["path"]
        if path == script:
            script_data = bytes(data)
        parent = path[:path.rfind("/")]
        if parent != "/tmp":
            make_dirs(parent)
        # os.open rather than open(): no buffered file object, isatty probe or seek.
        fd = os.open(path, WRITE_FLAGS, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, 0o755 if f.get("executable") else 0o644)
            os.fchown(fd, JAIL_UID, JAIL_UID)
        finally:
            os.close(fd)
    os.setsid()
    # Targets 0-4 may collide with the sources: move the sources high first.
    high = [os.dup(fd) for fd in fds[:5]]
    for target, fd in enumerate(high):
        os.dup2(fd, target)
    keep = sock.fileno()
    os.closerange(5, keep)
    os.closerange(keep + 1, 1 << 16)
    lim = req["limits"]
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_CPU, (lim["cpu_s"], lim["cpu_s"] + 1))
    resource.setrlimit(resource.RLIMIT_DATA, (lim["data"], lim["data"]))
    os.setresgid(JAIL_UID, JAIL_UID, JAIL_UID)
    os.setresuid(JAIL_UID, JAIL_UID, JAIL_UID)
    check(libc.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "pdeathsig")
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    os.chdir("/tmp")
    check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, FPROG_ADDRESS, 0, 0), "seccomp")
    record(sock, STEP_START, req["seq"], 0)
    # From here on the candidate runs: it must not hold the status channel.
    sock.close()
    os.closerange(5, 1 << 16)
    sys.argv = [script] + req["args"]
    code = 0
    try:
        run_main(script, script_data)
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code & 0xFF
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            code = code or 120
    os._exit(code)


def recv_with_fds(sock, size, max_fds):
    # socket.recv_fds without its array and loop: what the fork server and each spare run
    # after a fork is copied page by page, so they run as little Python as they can.
    data, anc, _, _ = sock.recvmsg(size, socket.CMSG_SPACE(max_fds * 4))
    fds = []
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.extend(struct.unpack("%di" % (len(payload) // 4), payload[:len(payload) // 4 * 4]))
    return data, fds


def recv_message(sock):
    head, fds = recv_with_fds(sock, HEADER.size, 64)
    if not head:
        raise EOFError
    head += recv_exact(sock, HEADER.size - len(head))
    length, kind, seq, nnext, workdir = HEADER.unpack(head)
    return kind, seq, nnext, workdir, recv_exact(sock, length), fds


def fork_spare(sock, procs_fds, workdir):
    # Returns (pid, socket to it, how many TRUSTED_BYTES it has). The spare joins the leaf,
    # unshares, mounts its work dirs, says "J", waits for its execution (or EOF: not needed),
    # then becomes that execution's child. What it receives: <body length u32, count u32>,
    # `count` times <length u32> and trusted bytes it lacks, then the body (main()).
    ours, theirs = _socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = fork()
    if pid == 0:
        seq = 0
        try:
            ours.close()
            libc.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
            for fd in procs_fds:
                os.write(fd, b"0")
                os.close(fd)
            # After joining, so that the cgroup namespace is rooted at the leaf.
            check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWCGROUP), "unshare")
            mount_work_dirs(workdir)
            theirs.sendall(b"J")
            head, fds = recv_with_fds(theirs, 8, 8)
            if not head:
                raise EOFError
            head += recv_exact(theirs, 8 - len(head))
            size, missing = struct.unpack("<II", head)
            # Trusted bytes that reached the fork server after this spare was forked.
            for _ in range(missing):
                (n,) = struct.unpack("<I", recv_exact(theirs, 4))
                TRUSTED_BYTES.append(bytes(recv_exact(theirs, n)))
            body = recv_exact(theirs, size)
            theirs.close()
            (n,) = struct.unpack_from("<I", body)
            req = json.loads(body[4:4 + n])
            seq = req["seq"]
            child(sock, req, memoryview(body)[4 + n:], fds, workdir)
        except EOFError:
            os._exit(0)
        except BaseException as e:
            msg = ("passrate fork server: %s" % e).encode()[:4096]
            try:
                record(sock, SETUP_ERROR, seq, len(msg), msg)
            finally:
                os._exit(1)
    theirs.close()
    for fd in procs_fds:
        os.close(fd)
    return pid, ours, len(TRUSTED_BYTES)


def main():
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    # Children dup2 their pipes onto 0-4: keep the channel far above them.
    moved = fcntl.fcntl(3, fcntl.F_DUPFD_CLOEXEC, 100)
    os.close(3)
    sock = socket.socket(fileno=moved)
    # Every child decodes JSON (its request; the harness its input): decoding here first
    # lets CPython 3.11 quicken json's Python code once, instead of warming it up (writing
    # to its code objects: page copies) again in each child.
    for _ in range(16):
        json.loads('{"a": [1, 2.5, "x", null, true, {"b": [], "c": -1e300}]}')
    # Every child compiles source (a harness its candidate). A process's first compile()
    # builds the AST types (compile() checks whether its argument is an AST object first):
    # ~1.2 ms of CPU and ~190 page faults when each child paid it, outside the sandbox.
    # Only this fixed text is compiled here, never a request's.
    compile(WARM_UP_SOURCE, "<passrate warm-up>", "exec", dont_inherit=True)
    # Objects of the zygote are never collected in a child: a collection there would touch
    # (and copy) every page the zygote shares with it.
    gc.collect()
    gc.freeze()
    sys.stdout.flush()
    sys.stderr.flush()
    record(sock, READY, 0, 0)
    spare = None
    while True:
        try:
            kind, seq, nnext, workdir, body, fds = recv_message(sock)
        except EOFError:
            return
        if kind == TRUSTED:
            for fd in fds:
                os.close(fd)
            load_trusted(body)
            continue
        if kind == PREPARE:
            if spare is None:
                spare = fork_spare(sock, fds, workdir)
            else:
                for fd in fds:
                    os.close(fd)
            continue
        own, nxt = fds[:5], fds[5:5 + nnext]
        pid, to_spare, known = spare if spare is not None else (None, None, 0)
        spare = None
        joined = to_spare is not None and to_spare.recv(1) == b"J"
        if joined:
            # Buffers, one sendmsg: no copy of the body (every page the zygote writes after a
            # fork is a page copied).
            parts = [struct.pack("<II", len(body), len(TRUSTED_BYTES) - known)]
            for data in TRUSTED_BYTES[known:]:
                parts += [struct.pack("<I", len(data)), data]
            parts.append(body)
            to_spare.sendmsg(parts, [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("%di" % len(own), *own))])
        if to_spare is not None:
            to_spare.close()
        for fd in own:
            os.close(fd)
        # The next execution's child joins its leaf while this one runs.
        if nxt:
            spare = fork_spare(sock, nxt, workdir)
        if not joined:
            if pid is not None:
                os.waitpid(pid, 0)
            msg = b"passrate fork server: the pre-forked child did not join its cgroup"
            record(sock, SETUP_ERROR, seq, len(msg), msg)
            continue
        _, status = os.waitpid(pid, 0)
        record(sock, STEP_END, seq, status)

main()
