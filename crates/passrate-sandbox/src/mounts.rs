//! The jail's filesystem: a tmpfs root holding read-only binds of what the runtimes need, a
//! minimal generated /etc, a minimal /dev, /proc of the jail's own pid namespace (hidepid=2),
//! and a fresh size-capped tmpfs at /tmp that is the work dir. Runs inside the new user and
//! mount namespaces, as the namespace's root, before the first step.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::sys::{cvt, mount};

/// The sandbox user inside the jail.
pub const JAIL_UID: u32 = 1000;
/// The warm Java compiler's user inside its jail (never the candidate's).
pub const COMPILER_UID: u32 = 2000;

fn c(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).expect("no NUL in paths")
}

fn cs(s: &str) -> CString {
    CString::new(s).expect("no NUL")
}

fn ctx(what: String) -> impl FnOnce(io::Error) -> io::Error {
    move |e| io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// Flags of an existing mount that a bind remount inside a user namespace must keep
/// (the kernel locks them; dropping one is EPERM).
fn locked_flags(path: &CString) -> io::Result<libc::c_ulong> {
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    cvt(unsafe { libc::statvfs(path.as_ptr(), &mut st) })?;
    let mut flags = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ] {
        if st.f_flag & st_flag != 0 {
            flags |= ms_flag;
        }
    }
    Ok(flags)
}

/// Recursive read-only bind of `src` at `dst` (which must exist).
fn bind_ro(src: &Path, dst: &Path, nodev: bool) -> io::Result<()> {
    let (csrc, cdst) = (c(src), c(dst));
    mount(Some(&csrc), &cdst, None, libc::MS_BIND | libc::MS_REC, None)
        .map_err(ctx(format!("failed to bind {}", src.display())))?;
    let mut flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID;
    if nodev {
        flags |= libc::MS_NODEV;
    }
    flags |= locked_flags(&cdst)?;
    mount(None, &cdst, None, flags, None)
        .map_err(ctx(format!("failed to make {} read-only", dst.display())))
}

fn mkdir_p(path: &Path) -> io::Result<()> {
    std::fs::create_dir_all(path).map_err(ctx(format!("failed to create {}", path.display())))
}

fn touch(path: &Path) -> io::Result<()> {
    fs_err::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map(drop)
}

/// Mirrors a host path into the new root: symlinks are recreated, directories and files
/// bound read-only. Missing host paths are skipped.
fn mirror(root: &Path, host: &Path) -> io::Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(host) else {
        return Ok(());
    };
    let inside = root.join(host.strip_prefix("/").unwrap_or(host));
    if let Some(parent) = inside.parent() {
        mkdir_p(parent)?;
    }
    if meta.file_type().is_symlink() {
        let target = fs_err::read_link(host)?;
        if std::fs::symlink_metadata(&inside).is_err() {
            std::os::unix::fs::symlink(target, &inside)?;
        }
        return Ok(());
    }
    if meta.is_dir() {
        mkdir_p(&inside)?;
    } else {
        touch(&inside)?;
    }
    bind_ro(host, &inside, true)
}

/// What the root is built from.
pub struct RootSpec<'a> {
    /// Host directory used as the mount point of the new root (only inside our namespace).
    pub mountpoint: &'a Path,
    /// Extra host paths bound read-only at the same path (runtimes outside /usr, harness dirs).
    pub ro_binds: &'a [PathBuf],
    pub workdir_bytes: u64,
    /// Files placed in the (afterwards read-only) root, e.g. the fork server's source.
    pub extra_files: &'a [(&'a str, &'a [u8])],
}

/// Builds the root and pivots into it. Afterwards `/` is read-only and `/tmp` is the work dir.
pub fn build_root(spec: &RootSpec<'_>) -> io::Result<()> {
    let root = spec.mountpoint;
    let croot = c(root);
    // Nothing we mount may propagate back to the host.
    mount(None, &cs("/"), None, libc::MS_REC | libc::MS_PRIVATE, None)
        .map_err(ctx("failed to make / private".into()))?;
    mount(
        Some(&cs("tmpfs")),
        &croot,
        Some(&cs("tmpfs")),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(&cs("size=4m,nr_inodes=4096,mode=0755")),
    )
    .map_err(ctx("failed to mount the root tmpfs".into()))?;

    for top in [
        "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    ] {
        mirror(root, Path::new(top))?;
    }
    // A minimal /etc: what runtimes read, nothing that describes the host.
    mkdir_p(&root.join("etc"))?;
    for entry in [
        "/etc/alternatives",
        "/etc/ld.so.cache",
        "/etc/localtime",
        "/etc/mime.types",
    ] {
        mirror(root, Path::new(entry))?;
    }
    if let Ok(entries) = fs_err::read_dir("/etc") {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("java-") {
                mirror(root, &e.path())?;
            }
        }
    }
    fs_err::write(
        root.join("etc/passwd"),
        format!(
            "root:x:0:0:root:/:/usr/sbin/nologin\nsandbox:x:{JAIL_UID}:{JAIL_UID}:sandbox:/tmp:/usr/sbin/nologin\n"
        ),
    )?;
    fs_err::write(
        root.join("etc/group"),
        format!("root:x:0:\nsandbox:x:{JAIL_UID}:\n"),
    )?;
    fs_err::write(
        root.join("etc/hosts"),
        "127.0.0.1 localhost\n::1 localhost\n",
    )?;
    fs_err::write(root.join("etc/hostname"), "sandbox\n")?;

    // /dev: the harmless character devices, bound from the host (mknod is not allowed in a
    // user namespace), and a size-capped /dev/shm.
    let dev = root.join("dev");
    mkdir_p(&dev)?;
    mount(
        Some(&cs("tmpfs")),
        &c(&dev),
        Some(&cs("tmpfs")),
        libc::MS_NOSUID | libc::MS_NOEXEC,
        Some(&cs("size=64k,nr_inodes=64,mode=0755")),
    )?;
    for node in ["null", "zero", "full", "random", "urandom"] {
        let inside = dev.join(node);
        touch(&inside)?;
        let host = PathBuf::from(format!("/dev/{node}"));
        mount(Some(&c(&host)), &c(&inside), None, libc::MS_BIND, None)
            .map_err(ctx(format!("failed to bind {}", host.display())))?;
    }
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        std::os::unix::fs::symlink(target, dev.join(name))?;
    }
    let shm = dev.join("shm");
    mkdir_p(&shm)?;
    let shm_opts = format!("size={},nr_inodes=256,mode=1777", spec.workdir_bytes);
    mount(
        Some(&cs("tmpfs")),
        &c(&shm),
        Some(&cs("tmpfs")),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        Some(&cs(&shm_opts)),
    )?;

    let proc_dir = root.join("proc");
    mkdir_p(&proc_dir)?;
    mount(
        Some(&cs("proc")),
        &c(&proc_dir),
        Some(&cs("proc")),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        Some(&cs("hidepid=2")),
    )
    .map_err(ctx("failed to mount /proc".into()))?;

    let tmp = root.join("tmp");
    mkdir_p(&tmp)?;
    let tmp_opts = format!(
        "size={},nr_inodes=4096,mode=0755,uid={JAIL_UID},gid={JAIL_UID}",
        spec.workdir_bytes
    );
    mount(
        Some(&cs("tmpfs")),
        &c(&tmp),
        Some(&cs("tmpfs")),
        libc::MS_NOSUID | libc::MS_NODEV,
        Some(&cs(&tmp_opts)),
    )
    .map_err(ctx("failed to mount the work dir".into()))?;

    for extra in spec.ro_binds {
        mirror(root, extra)?;
    }
    for (path, contents) in spec.extra_files {
        let inside = root.join(path);
        if let Some(parent) = inside.parent() {
            mkdir_p(parent)?;
        }
        fs_err::write(&inside, contents)?;
    }

    // pivot_root(".", ".") stacks the old root under the new one; detaching it leaves only
    // the new tree.
    cvt(unsafe { libc::chdir(croot.as_ptr()) })?;
    let dot = cs(".");
    crate::sys::cvt_long(unsafe {
        libc::syscall(libc::SYS_pivot_root, dot.as_ptr(), dot.as_ptr())
    })
    .map_err(ctx("pivot_root failed".into()))?;
    cvt(unsafe { libc::umount2(dot.as_ptr(), libc::MNT_DETACH) })?;
    cvt(unsafe { libc::chdir(cs("/").as_ptr()) })?;
    mount(
        None,
        &cs("/"),
        None,
        libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV,
        None,
    )
    .map_err(ctx("failed to make the root read-only".into()))?;
    Ok(())
}

/// Writes the request's files into the work dir, owned by the sandbox user.
pub fn write_inputs(files: &[crate::api::InputFile]) -> io::Result<()> {
    for file in files {
        let path = Path::new("/tmp").join(&file.path);
        if let Some(parent) = path.parent() {
            mkdir_p(parent)?;
            // Every directory below /tmp on the way, not only the file's own: the candidate
            // owns its work dir's whole tree.
            for dir in parent.ancestors().take_while(|d| *d != Path::new("/tmp")) {
                chown(dir)?;
            }
        }
        fs_err::write(&path, &file.contents)?;
        let mode = if file.executable { 0o755 } else { 0o644 };
        fs_err::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
        chown(&path)?;
    }
    Ok(())
}

fn chown(path: &Path) -> io::Result<()> {
    cvt(unsafe { libc::chown(c(path).as_ptr(), JAIL_UID, JAIL_UID) })?;
    Ok(())
}
