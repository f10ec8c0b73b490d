//! passrate-sandbox: runs untrusted programs in a Linux jail (user, mount, pid, net, ipc,
//! uts and cgroup namespaces; read-only root; cgroup limits; seccomp), fast.
//!
//! Host side: [`Sandbox::new`] probes the host once (user namespaces, cgroup v1/v2, runtimes)
//! and refuses to start when something is missing — there is no unsandboxed fallback.
//! [`Sandbox::execute`] is blocking and thread-safe; concurrency is bounded by the slot count.
//! The jail itself is a separate single-threaded process (`passrate-jail`, or `passrate
//! __jail`), so nothing ever forks from a multi-threaded (tokio) process. See AGENTS.md.

pub mod api;
pub mod cgroup;
mod host;
mod jail;
pub mod java_archive;
mod javac;
mod javac_cache;
mod mounts;
pub mod runtimes;
pub mod seccomp;
mod slot;
mod sys;
mod wire;

pub use api::*;
pub use cgroup::CgroupPreference;
pub use host::{
    DEFAULT_PYTHON_PRELOAD, Launcher, MAX_TRUSTED_PYTHON, Sandbox, SandboxConfig,
    check_user_namespaces,
};
pub use jail::jail_main;
pub use java_archive::{JavaArchive, JavaArchiveSpec};
