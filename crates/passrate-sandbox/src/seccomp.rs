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

/// What the filter does with a call whose number needs a check.
#[derive(Clone, Copy)]
enum Rule {
    /// Fails with EPERM.
    Deny,
    /// Fails with ENOSYS (clone3: its flags are in memory the filter cannot read, so libc
    /// falls back to clone).
    NoSys,
    /// clone: EPERM when the flags (argument 0) ask for a namespace.
    CloneFlags,
    /// ioctl: EPERM for the requests (argument 1) that inject terminal input.
    TerminalIoctl,
    /// socket: EAFNOSUPPORT for the families (argument 0) that reach past the network
    /// namespace (packet and VM sockets).
    SocketFamily,
}

fn rules() -> Vec<(u32, Rule)> {
    let mut rules: Vec<(u32, Rule)> = DENIED.iter().map(|&nr| (nr as u32, Rule::Deny)).collect();
    rules.extend([
        (libc::SYS_clone3 as u32, Rule::NoSys),
        (libc::SYS_clone as u32, Rule::CloneFlags),
        (libc::SYS_ioctl as u32, Rule::TerminalIoctl),
        (libc::SYS_socket as u32, Rule::SocketFamily),
    ]);
    rules.sort_by_key(|&(nr, _)| nr);
    rules
}

/// The instructions after a matching `JEQ nr`: they decide, never fall through.
fn rule_code(rule: Rule) -> Vec<libc::sock_filter> {
    let errno = |e: i32| stmt(RET_K, SECCOMP_RET_ERRNO | (e as u32 & 0xffff));
    let allow = stmt(RET_K, SECCOMP_RET_ALLOW);
    // Fails with `e` when argument `arg` is `a` or `b`.
    let refuse_either = |arg: u32, a: u32, b: u32, e: i32| {
        vec![
            stmt(LD_W_ABS, off_arg_low(arg)),
            jump(JEQ_K, a, 1, 0),
            jump(JEQ_K, b, 0, 1),
            errno(e),
            allow,
        ]
    };
    match rule {
        Rule::Deny => vec![errno(libc::EPERM)],
        Rule::NoSys => vec![errno(libc::ENOSYS)],
        Rule::CloneFlags => vec![
            stmt(LD_W_ABS, off_arg_low(0)),
            jump(JSET_K, CLONE_NAMESPACE_FLAGS, 0, 1),
            errno(libc::EPERM),
            allow,
        ],
        Rule::TerminalIoctl => refuse_either(1, TIOCSTI, TIOCLINUX, libc::EPERM),
        Rule::SocketFamily => refuse_either(0, AF_PACKET, AF_VSOCK, libc::EAFNOSUPPORT),
    }
}

/// Code for `rules` (sorted by number) with the number in A: a binary search down to runs of
/// at most `LINEAR` rules, checked one by one; a number in no rule is allowed.
fn search(rules: &[(u32, Rule)]) -> Vec<libc::sock_filter> {
    const LINEAR: usize = 4;
    if rules.len() <= LINEAR {
        let mut code = Vec::new();
        for &(nr, rule) in rules {
            let body = rule_code(rule);
            code.push(jump(JEQ_K, nr, 0, body.len() as u8));
            code.extend(body);
        }
        code.push(stmt(RET_K, SECCOMP_RET_ALLOW));
        return code;
    }
    let (below, from) = rules.split_at(rules.len() / 2);
    let left = search(below);
    let right = search(from);
    let over_left = u8::try_from(left.len()).expect("a subtree fits a short jump");
    let mut code = vec![jump(JGE_K, from[0].0, over_left, 0)];
    code.extend(left);
    code.extend(right);
    code
}

/// The assembled filter: the architecture and x32 guards, then a binary search over the
/// numbers with rules (at most 14 instructions for any call; a linear list ran ~57 for each
/// allowed one). Its length costs at every execution: installing a filter, the kernel runs
/// it for every system call number to find the calls it always allows (interrupts off).
pub fn deny_list_program() -> Vec<libc::sock_filter> {
    let mut p = vec![
        stmt(LD_W_ABS, OFF_ARCH),
        jump(JEQ_K, AUDIT_ARCH_NATIVE, 1, 0),
        stmt(RET_K, SECCOMP_RET_KILL_PROCESS),
        stmt(LD_W_ABS, OFF_NR),
        jump(JGE_K, X32_SYSCALL_BIT, 0, 1),
        stmt(RET_K, SECCOMP_RET_KILL_PROCESS),
    ];
    p.extend(search(&rules()));
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

/// Whether the kernel can filter system calls with seccomp (`CONFIG_SECCOMP_FILTER`), without
/// installing anything: `passrate sandbox check` reports it before a jail proves it.
pub fn kernel_supports_filters() -> Result<(), String> {
    // PR_GET_SECCOMP fails with EINVAL on a kernel built without seccomp.
    if unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } < 0 {
        return Err(format!(
            "the kernel has no seccomp (prctl(PR_GET_SECCOMP): {})",
            std::io::Error::last_os_error()
        ));
    }
    // Lists the filter return actions only when filters are built in.
    match fs_err::read_to_string("/proc/sys/kernel/seccomp/actions_avail") {
        Ok(actions) if actions.contains("errno") && actions.contains("kill_process") => Ok(()),
        Ok(actions) => Err(format!(
            "seccomp filters lack the actions passrate uses (available: {})",
            actions.trim()
        )),
        Err(e) => Err(format!("the kernel has no seccomp filters ({e})")),
    }
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

    /// Runs `p` on one call the way the kernel does, for the instructions the filter uses:
    /// the verdict and how many instructions ran.
    fn run(p: &[libc::sock_filter], arch: u32, nr: u32, args: [u32; 2]) -> (u32, usize) {
        let load = |off: u32| match off {
            OFF_NR => nr,
            OFF_ARCH => arch,
            o if o == off_arg_low(0) => args[0],
            o if o == off_arg_low(1) => args[1],
            o => panic!("load of offset {o}"),
        };
        let (mut pc, mut a) = (0usize, 0u32);
        for ran in 1.. {
            let ins = p[pc];
            pc += 1;
            let taken = match ins.code {
                LD_W_ABS => {
                    a = load(ins.k);
                    continue;
                }
                RET_K => return (ins.k, ran),
                JEQ_K => a == ins.k,
                JGE_K => a >= ins.k,
                JSET_K => a & ins.k != 0,
                code => panic!("instruction {code:#x}"),
            };
            pc += usize::from(if taken { ins.jt } else { ins.jf });
        }
        unreachable!()
    }

    /// The policy in the module's comment, written plainly.
    fn policy(arch: u32, nr: u32, args: [u32; 2]) -> u32 {
        let errno = |e: i32| SECCOMP_RET_ERRNO | e as u32;
        let nr_is = |n: libc::c_long| nr == n as u32;
        let namespace_clone = nr_is(libc::SYS_clone) && args[0] & CLONE_NAMESPACE_FLAGS != 0;
        let terminal_input = nr_is(libc::SYS_ioctl) && (args[1] == TIOCSTI || args[1] == TIOCLINUX);
        if arch != AUDIT_ARCH_NATIVE || nr >= X32_SYSCALL_BIT {
            SECCOMP_RET_KILL_PROCESS
        } else if DENIED.iter().any(|&d| nr_is(d)) || namespace_clone || terminal_input {
            errno(libc::EPERM)
        } else if nr_is(libc::SYS_clone3) {
            errno(libc::ENOSYS)
        } else if nr_is(libc::SYS_socket) && (args[0] == AF_PACKET || args[0] == AF_VSOCK) {
            errno(libc::EAFNOSUPPORT)
        } else {
            SECCOMP_RET_ALLOW
        }
    }

    #[test]
    fn the_program_decides_every_call_as_the_policy_says() {
        let p = deny_list_program();
        let mut arg_values = vec![
            0,
            1,
            TIOCSTI,
            TIOCLINUX,
            AF_PACKET,
            AF_VSOCK,
            2,
            10,
            u32::MAX,
        ];
        arg_values.extend((0..32).map(|bit| 1u32 << bit));
        let mut numbers: Vec<u32> = (0..1024).collect();
        numbers.extend([
            X32_SYSCALL_BIT - 1,
            X32_SYSCALL_BIT,
            X32_SYSCALL_BIT + 59,
            u32::MAX,
        ]);
        let mut checked = 0;
        for arch in [AUDIT_ARCH_NATIVE, 0x4000_0003, 0] {
            for &nr in &numbers {
                for &a0 in &arg_values {
                    for &a1 in &arg_values {
                        let args = [a0, a1];
                        assert_eq!(
                            run(&p, arch, nr, args).0,
                            policy(arch, nr, args),
                            "arch {arch:#x}, nr {nr}, args {args:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1_000_000);
        // The search is what makes the filter short to run (14 instructions at most; the
        // linear list ran ~57 for every allowed call).
        let longest = (numbers.iter())
            .map(|&nr| run(&p, AUDIT_ARCH_NATIVE, nr, [0, 0]).1)
            .max()
            .unwrap();
        assert!(longest <= 16, "a call runs {longest} instructions");
    }
}
