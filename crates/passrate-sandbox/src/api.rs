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
