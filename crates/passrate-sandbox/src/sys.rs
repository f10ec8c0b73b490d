//! Thin wrappers over the raw system calls the jail uses, turning -1/errno into io::Error.
//! Kept free of allocation where they run between clone/fork and exec.

use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;

pub fn cvt(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

pub fn cvt_long(ret: libc::c_long) -> io::Result<libc::c_long> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// A pipe whose ends are close-on-exec; `(read, write)`.
pub fn pipe() -> io::Result<(RawFd, RawFd)> {
    let mut fds = [0; 2];
    cvt(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    Ok((fds[0], fds[1]))
}

pub fn close(fd: RawFd) {
    if fd >= 0 {
        unsafe { libc::close(fd) };
    }
}

pub fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    let flags = cvt(unsafe { libc::fcntl(fd, libc::F_GETFL) })?;
    cvt(unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) })?;
    Ok(())
}

pub fn write_all(fd: RawFd, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        let n = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
        if n < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        data = &data[n as usize..];
    }
    Ok(())
}

/// Reads exactly `buf.len()` bytes; `Ok(false)` on EOF before the first byte.
pub fn read_exact(fd: RawFd, buf: &mut [u8]) -> io::Result<bool> {
    let mut done = 0;
    while done < buf.len() {
        let n = unsafe { libc::read(fd, buf[done..].as_mut_ptr().cast(), buf.len() - done) };
        if n < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        if n == 0 {
            if done == 0 {
                return Ok(false);
            }
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        done += n as usize;
    }
    Ok(true)
}

pub fn mount(
    source: Option<&CStr>,
    target: &CStr,
    fstype: Option<&CStr>,
    flags: libc::c_ulong,
    data: Option<&CStr>,
) -> io::Result<()> {
    let p = |s: Option<&CStr>| s.map_or(std::ptr::null(), |s| s.as_ptr());
    cvt(unsafe { libc::mount(p(source), target.as_ptr(), p(fstype), flags, p(data).cast()) })?;
    Ok(())
}

/// Writes a whole small file at an absolute path (used for /proc and cgroup control files).
pub fn write_file(path: &CStr, data: &[u8]) -> io::Result<()> {
    let fd = cvt(unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) })?;
    let result = write_all(fd, data);
    close(fd);
    result
}

/// Closes every descriptor from `first` upwards except those in `keep`.
pub fn close_fds_from(first: RawFd, keep: &[RawFd]) {
    let mut start = first as libc::c_uint;
    let mut sorted = [0 as libc::c_uint; 8];
    let mut n = 0;
    for &k in keep.iter().filter(|&&k| k >= first) {
        if n < sorted.len() {
            sorted[n] = k as libc::c_uint;
            n += 1;
        }
    }
    sorted[..n].sort_unstable();
    for &k in &sorted[..n] {
        if k > start {
            unsafe { libc::syscall(libc::SYS_close_range, start, k - 1, 0) };
        }
        start = k + 1;
    }
    unsafe { libc::syscall(libc::SYS_close_range, start, libc::c_uint::MAX, 0) };
}

/// Replaces the process image; returns only on failure. Builds the NULL-terminated pointer
/// arrays here so the three jail modes share one exec path.
pub fn execve(exe: &CStr, argv: &[std::ffi::CString], env: &[std::ffi::CString]) -> io::Error {
    let mut argv_p: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_p.push(std::ptr::null());
    let mut env_p: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
    env_p.push(std::ptr::null());
    unsafe { libc::execve(exe.as_ptr(), argv_p.as_ptr(), env_p.as_ptr()) };
    io::Error::last_os_error()
}

/// The CPUs the calling thread may run on (`sched_getaffinity`), in increasing order.
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    cvt(unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) })?;
    Ok((0..libc::CPU_SETSIZE as usize)
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}

/// Restricts the calling thread, and every process it starts from now on, to one CPU.
pub fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut set) };
    cvt(unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) })?;
    Ok(())
}
