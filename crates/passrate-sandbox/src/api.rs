//! The public request/outcome types of the sandbox. Host-side callers (the runner, the CLI)
//! build an [`ExecRequest`] and get back an [`ExecOutcome`] or a [`SandboxError`].

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Resource limits of one execution. Every field is enforced by the jail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// CPU time of the whole jail (all processes), from the cgroup. Killed at the limit.
    pub cpu_ms: u64,
    /// Wall-clock time from exec to exit. Killed at the limit.
    pub wall_ms: u64,
    /// Memory of the whole jail (cgroup, no swap).
    pub memory_bytes: u64,
    /// Heap of the runtime's main process (Python RLIMIT_DATA, Node --max-old-space-size,
    /// Java -Xmx). Not applied to `exec` programs.
    pub heap_bytes: u64,
    /// Processes and threads in the jail (cgroup pids).
    pub pids: u32,
    /// Size of the fresh tmpfs work dir (`/tmp`, the working directory).
    pub workdir_bytes: u64,
    /// Bytes kept per output stream (stdout, stderr, channel); more kills the jail.
    pub output_bytes: u64,
    /// CPU budget of each step before the last (compilation); the last step gets `cpu_ms`.
    pub setup_cpu_ms: u64,
}

impl Default for Limits {
    /// The product defaults of DESIGN.md section 5.
    fn default() -> Self {
        Limits {
            cpu_ms: 2_000,
            wall_ms: 2_000 * 2 + 3_000,
            memory_bytes: 256 << 20,
            heap_bytes: 30 << 20,
            pids: 64,
            workdir_bytes: 16 << 20,
            output_bytes: 1 << 20,
            setup_cpu_ms: 10_000,
        }
    }
}

/// The ranges [`Limits::check`] accepts. The bounds are far beyond any real execution; they
/// exist so that every conversion the jail makes (milliseconds to microseconds, a
/// compilation's wall time from its CPU budget, MiB to bytes in callers) stays exact instead
/// of wrapping into a tiny limit.
impl Limits {
    /// A day of CPU time.
    pub const MAX_CPU_MS: u64 = 86_400_000;
    /// Three days of wall time (room for the usual "twice the CPU plus a margin").
    pub const MAX_WALL_MS: u64 = 3 * 86_400_000;
    /// 1 TiB, for the memory, heap, work dir and output caps alike.
    pub const MAX_BYTES: u64 = 1 << 40;
    /// The kernel's `PID_MAX_LIMIT`.
    pub const MAX_PIDS: u32 = 4_194_304;
    /// Less memory than this cannot start any runtime.
    pub const MIN_MEMORY_BYTES: u64 = 8 << 20;

    /// Checks every field against its range, naming the first one outside it.
    pub fn check(&self) -> Result<(), LimitError> {
        let fields = [
            ("cpu_ms", self.cpu_ms, 1, Self::MAX_CPU_MS),
            ("wall_ms", self.wall_ms, 1, Self::MAX_WALL_MS),
            (
                "memory_bytes",
                self.memory_bytes,
                Self::MIN_MEMORY_BYTES,
                Self::MAX_BYTES,
            ),
            ("heap_bytes", self.heap_bytes, 0, Self::MAX_BYTES),
            ("pids", u64::from(self.pids), 1, u64::from(Self::MAX_PIDS)),
            ("workdir_bytes", self.workdir_bytes, 1, Self::MAX_BYTES),
            ("output_bytes", self.output_bytes, 0, Self::MAX_BYTES),
            ("setup_cpu_ms", self.setup_cpu_ms, 0, Self::MAX_CPU_MS),
        ];
        for (field, value, min, max) in fields {
            if !(min..=max).contains(&value) {
                return Err(LimitError {
                    field,
                    value,
                    min,
                    max,
                });
            }
        }
        Ok(())
    }
}

/// A limit outside the range the sandbox can enforce exactly.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("limit `{field}` = {value} is out of range (allowed: {min}..={max})")]
pub struct LimitError {
    pub field: &'static str,
    pub value: u64,
    pub min: u64,
    pub max: u64,
}

/// What to run. Interpreters are the host's real binaries, resolved once at start (never a
/// pyenv shim), with a clean environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Program {
    /// `python3 -I -B SCRIPT ARGS…` (SCRIPT relative to the work dir).
    Python { script: String, args: Vec<String> },
    /// `node SCRIPT ARGS…`.
    Node { script: String, args: Vec<String> },
    /// `javac -proc:none -d . SOURCES…` (compile errors are a non-zero exit).
    Javac {
        sources: Vec<String>,
        /// Compile against the installed Java class-data archive's JAR (first on the class
        /// path, as in a run of one of its main classes): the trusted classes are then not
        /// compiled again. An execution error when no archive is installed.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        archive: bool,
    },
    /// `java -cp . MAIN_CLASS ARGS…`.
    Java {
        main_class: String,
        args: Vec<String>,
    },
    /// Any executable visible inside the jail (absolute path) or in the work dir (relative).
    Exec { path: String, args: Vec<String> },
}

/// A file written into the work dir before the first step runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// Relative path inside the work dir (no `..`, not absolute).
    pub path: String,
    #[serde(with = "crate::wire::bytes")]
    pub contents: Vec<u8>,
    #[serde(default)]
    pub executable: bool,
}

/// One execution: files into a fresh work dir, then `steps` in order in the same jail; the
/// first step that does not exit 0 ends the execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecRequest {
    pub steps: Vec<Program>,
    #[serde(default)]
    pub files: Vec<InputFile>,
    /// Standard input of the last step.
    #[serde(default, with = "crate::wire::bytes")]
    pub stdin: Vec<u8>,
    /// Readable on fd 3 by the last step: the runner's request channel (test inputs).
    #[serde(default, with = "crate::wire::bytes")]
    pub channel_input: Vec<u8>,
    pub limits: Limits,
    /// Opt-in to pre-started execution of a single-step Node or Java run: the input files
    /// named here are all the program reads before it has read its whole channel input
    /// (fd 3). The sandbox may then start the program ahead of time in a fresh jail holding
    /// only these files, and at hand-over write the other files and feed stdin and fd 3.
    /// The program must write one `\n` on fd 4 once it is ready when `PASSRATE_PRESTARTED`
    /// is set in its environment (the sandbox strips it). CPU time and wall time are
    /// measured from the hand-over.
    #[serde(default)]
    pub prestart: Option<Vec<String>>,
    /// Per-item CPU budgets of the last step, counted between the frames it writes on fd 4.
    /// Without them only `limits.cpu_ms` stops a loop, however many items it would skip.
    #[serde(default)]
    pub frame_budgets: Option<FrameBudgets>,
}

/// CPU budgets between the frames of the last step's result channel (fd 4), so that a
/// program stuck in one item of a batch (a test case) is stopped at that item's budget
/// instead of the execution's whole CPU limit.
///
/// A frame is an ASCII header line whose last space-separated word is a decimal length,
/// then that many bytes, then `\n` (the runner's framing). After the first `skip` frames,
/// `cpu_us[i]` bounds the jail's CPU from the moment frame `skip + i - 1` is seen until
/// frame `skip + i` arrives; past the last budget `then_each_us` bounds every further frame
/// the same way, or, without it, only `limits.cpu_ms` applies. Exceeding
/// a budget kills the jail with [`ExecStatus::Timeout`]. The jail samples CPU every few
/// milliseconds, so a budget is honoured to within that: callers pass a budget with slack
/// over the figure that decides the verdict. A channel that stops looking like frames
/// (too long a header, no length) ends the per-frame checks: the overall limit remains.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameBudgets {
    /// Frames before the first budget starts (e.g. a greeting and a "loaded" frame, whose
    /// CPU the start-up allowance of `limits.cpu_ms` covers).
    pub skip: u32,
    pub cpu_us: Vec<u64>,
    /// The budget of each frame after those of `cpu_us`, when the number of items is not
    /// known in advance (a test suite's discovered tests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then_each_us: Option<u64>,
}

impl ExecRequest {
    /// A single-step request with default limits.
    pub fn single(program: Program) -> ExecRequest {
        ExecRequest {
            steps: vec![program],
            files: Vec::new(),
            stdin: Vec::new(),
            channel_input: Vec::new(),
            limits: Limits::default(),
            prestart: None,
            frame_budgets: None,
        }
    }
}

/// How an execution ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExecStatus {
    /// Every step exited 0.
    Ok,
    /// A step exited non-zero or died from a signal it caused (segfault, abort).
    RuntimeError,
    /// CPU or wall-clock limit reached; the jail was killed.
    Timeout,
    /// The cgroup memory limit was reached (OOM kill), or the runtime reported its heap limit.
    MemoryLimit,
    /// An output stream exceeded its cap; the jail was killed.
    OutputLimit,
}

impl ExecStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ExecStatus::Ok => "ok",
            ExecStatus::RuntimeError => "runtime_error",
            ExecStatus::Timeout => "timeout",
            ExecStatus::MemoryLimit => "memory_limit",
            ExecStatus::OutputLimit => "output_limit",
        }
    }
}

/// The result of an execution that the sandbox ran to the end (whatever the program did).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecOutcome {
    pub status: ExecStatus,
    /// Index of the step that ended the execution (the last one when all succeeded).
    pub step: usize,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// CPU time of the whole jail (all processes, all steps), from the cgroup.
    pub cpu_us: u64,
    pub wall_us: u64,
    pub peak_memory_bytes: Option<u64>,
    #[serde(with = "crate::wire::bytes")]
    pub stdout: Vec<u8>,
    #[serde(with = "crate::wire::bytes")]
    pub stderr: Vec<u8>,
    /// What the last step wrote to fd 4: the runner's result channel.
    #[serde(with = "crate::wire::bytes")]
    pub channel_output: Vec<u8>,
    /// A stream hit its cap (also reflected in `status`).
    pub truncated: bool,
}

/// Infrastructure failures: never the program's fault, never a verdict.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The host cannot sandbox; the message says what is missing and how to enable it.
    #[error("the host cannot run the sandbox: {what}\n  hint: {hint}")]
    Unavailable { what: String, hint: String },
    /// The launcher binary could not be found or started.
    #[error("failed to start the sandbox launcher {path}")]
    Launcher {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The request was malformed (e.g. an input path escaping the work dir).
    #[error("invalid sandbox request: {0}")]
    InvalidRequest(String),
    /// The jail failed while setting up or running (a bug or a host fault).
    #[error("sandbox failure: {0}")]
    Internal(String),
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    #[test]
    fn the_defaults_are_in_range() {
        assert_eq!(Limits::default().check(), Ok(()));
    }

    #[test]
    fn limits_that_would_wrap_are_out_of_range() {
        // 2^63 ms: in microseconds (the jail's CPU comparison) it wraps to a few ms.
        let cpu = Limits {
            cpu_ms: 1 << 63,
            ..Limits::default()
        };
        let err = cpu.check().unwrap_err();
        assert_eq!(err.field, "cpu_ms");
        assert_eq!(
            err.to_string(),
            "limit `cpu_ms` = 9223372036854775808 is out of range (allowed: 1..=86400000)"
        );
        // What `(2^44 + 16) << 20` used to become: 16 MiB. Here: the unwrapped size.
        let memory = Limits {
            memory_bytes: u64::MAX,
            ..Limits::default()
        };
        assert_eq!(memory.check().unwrap_err().field, "memory_bytes");
        let setup = Limits {
            setup_cpu_ms: u64::MAX / 2,
            ..Limits::default()
        };
        assert_eq!(setup.check().unwrap_err().field, "setup_cpu_ms");
    }

    #[test]
    fn the_bounds_are_inclusive_and_the_old_minimums_hold() {
        let top = Limits {
            cpu_ms: Limits::MAX_CPU_MS,
            wall_ms: Limits::MAX_WALL_MS,
            memory_bytes: Limits::MAX_BYTES,
            heap_bytes: Limits::MAX_BYTES,
            pids: Limits::MAX_PIDS,
            workdir_bytes: Limits::MAX_BYTES,
            output_bytes: Limits::MAX_BYTES,
            setup_cpu_ms: Limits::MAX_CPU_MS,
        };
        assert_eq!(top.check(), Ok(()));
        // The jail's largest derived figures stay exact at the bounds.
        assert!(Limits::MAX_CPU_MS.checked_mul(1000).is_some());
        assert!(top.setup_cpu_ms * 2 + 2_000 <= Limits::MAX_WALL_MS);
        for (field, limits) in [
            (
                "cpu_ms",
                Limits {
                    cpu_ms: 0,
                    ..Limits::default()
                },
            ),
            (
                "wall_ms",
                Limits {
                    wall_ms: 0,
                    ..Limits::default()
                },
            ),
            (
                "pids",
                Limits {
                    pids: 0,
                    ..Limits::default()
                },
            ),
            (
                "memory_bytes",
                Limits {
                    memory_bytes: Limits::MIN_MEMORY_BYTES - 1,
                    ..Limits::default()
                },
            ),
            (
                "workdir_bytes",
                Limits {
                    workdir_bytes: 0,
                    ..Limits::default()
                },
            ),
        ] {
            assert_eq!(limits.check().unwrap_err().field, field);
        }
    }
}
