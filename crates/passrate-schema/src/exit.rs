//! Process exit codes of the `passrate` binary. Every top-level error maps to one of these.

/// The command did what was asked (a verdict reached, a run finished, whatever it scored).
pub const OK: i32 = 0;
/// Something unexpected failed inside passrate.
pub const INTERNAL: i32 = 1;
/// The command line was malformed (clap uses the same code).
pub const USAGE: i32 = 2;
/// Input data (a task file, a models file, a candidate) was invalid.
pub const BAD_INPUT: i32 = 3;
/// The host cannot sandbox (user namespaces off, cgroups not writable, runtime missing).
pub const SANDBOX_UNAVAILABLE: i32 = 4;
/// The sandbox failed while running something (infrastructure, not the program's fault).
pub const SANDBOX_ERROR: i32 = 5;
/// The store (SQLite/PostgreSQL) failed.
pub const STORE_ERROR: i32 = 6;
/// A model API failed after all retries.
pub const MODEL_API_ERROR: i32 = 7;
/// Pool validation rejected one or more tasks.
pub const VALIDATION_FAILED: i32 = 8;
