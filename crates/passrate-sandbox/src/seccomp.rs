//! The seccomp deny-list applied to every sandboxed program, as a hand-assembled classic BPF
//! program. Hand-written rather than generated so the x32 guard and the argument checks
//! (clone namespace flags, TIOCSTI, socket families) are explicit and reviewable.
//!
//! Policy: anything but native x86-64 (i386 via int 0x80, x32 via the 0x40000000 bit) kills
//! the process; the listed calls fail with EPERM; `clone3` fails with ENOSYS so libc falls
//! back to `clone`, whose flags the filter can inspect; everything else is allowed.

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH_NATIVE: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH_NATIVE: u32 = 0xC000_00B7;

const X32_SYSCALL_BIT: u32 = 0x4000_0000;

const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const fn off_arg_low(i: u32) -> u32 {
    16 + 8 * i
}

const SECCOMP_RET_KILL_PROCESS: u32 = 0x8000_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;

const CLONE_NAMESPACE_FLAGS: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;

const TIOCSTI: u32 = 0x5412;
const TIOCLINUX: u32 = 0x541C;
const AF_PACKET: u32 = 17;
const AF_VSOCK: u32 = 40;

/// System calls that fail with EPERM inside the jail.
const DENIED: &[libc::c_long] = &[
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_pidfd_getfd,
    libc::SYS_kcmp,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_reboot,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_syslog,
    libc::SYS_quotactl,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_lookup_dcookie,
    libc::SYS_fanotify_init,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_modify_ldt,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_uselib,
    libc::SYS_move_pages,
    libc::SYS_migrate_pages,
];

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
const JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
const JSET_K: u16 = (libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K) as u16;
const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

/// The assembled filter. Every jump is short (0 or 1), so the program cannot mis-link.
pub fn deny_list_program() -> Vec<libc::sock_filter> {
    let errno = |e: i32| stmt(RET_K, SECCOMP_RET_ERRNO | (e as u32 & 0xffff));
    let mut p = vec![
        stmt(LD_W_ABS, OFF_ARCH),
        jump(JEQ_K, AUDIT_ARCH_NATIVE, 1, 0),
        stmt(RET_K, SECCOMP_RET_KILL_PROCESS),
        stmt(LD_W_ABS, OFF_NR),
        jump(JGE_K, X32_SYSCALL_BIT, 0, 1),
        stmt(RET_K, SECCOMP_RET_KILL_PROCESS),
    ];
    for &nr in DENIED {
        p.push(jump(JEQ_K, nr as u32, 0, 1));
        p.push(errno(libc::EPERM));
    }
    // clone3 takes its flags in memory the filter cannot read: make libc fall back to clone.
    p.push(jump(JEQ_K, libc::SYS_clone3 as u32, 0, 1));
    p.push(errno(libc::ENOSYS));
    // clone: refuse namespace flags (A is reloaded with nr after each argument check).
    p.extend([
        jump(JEQ_K, libc::SYS_clone as u32, 0, 4),
        stmt(LD_W_ABS, off_arg_low(0)),
        jump(JSET_K, CLONE_NAMESPACE_FLAGS, 0, 1),
        errno(libc::EPERM),
        stmt(LD_W_ABS, OFF_NR),
    ]);
    // ioctl: no injecting input into a terminal.
    p.extend([
        jump(JEQ_K, libc::SYS_ioctl as u32, 0, 6),
        stmt(LD_W_ABS, off_arg_low(1)),
        jump(JEQ_K, TIOCSTI, 0, 1),
        errno(libc::EPERM),
        jump(JEQ_K, TIOCLINUX, 0, 1),
        errno(libc::EPERM),
        stmt(LD_W_ABS, OFF_NR),
    ]);
    // socket: no packet sockets, no VM sockets (the only families that reach past the netns).
    p.extend([
        jump(JEQ_K, libc::SYS_socket as u32, 0, 6),
        stmt(LD_W_ABS, off_arg_low(0)),
        jump(JEQ_K, AF_PACKET, 0, 1),
        errno(libc::EAFNOSUPPORT),
        jump(JEQ_K, AF_VSOCK, 0, 1),
        errno(libc::EAFNOSUPPORT),
        stmt(LD_W_ABS, OFF_NR),
    ]);
    p.push(stmt(RET_K, SECCOMP_RET_ALLOW));
    p
}

/// Installs `program` for the calling thread. Requires no_new_privs (set just before).
/// Async-signal-safe: called between fork and exec.
pub fn install(program: &[libc::sock_filter]) -> std::io::Result<()> {
    let prog = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_ptr() as *mut libc::sock_filter,
    };
    crate::sys::cvt(unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER as libc::c_ulong,
            &prog as *const libc::sock_fprog as libc::c_ulong,
        )
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jumps_stay_inside_the_program() {
        let p = deny_list_program();
        assert!(p.len() < 256);
        for (i, ins) in p.iter().enumerate() {
            if ins.code & 0x07 == libc::BPF_JMP as u16 {
                assert!(
                    i + 1 + (ins.jt.max(ins.jf) as usize) < p.len(),
                    "jump at {i}"
                );
            }
        }
        assert_eq!(p.last().unwrap().k, SECCOMP_RET_ALLOW);
    }
}
