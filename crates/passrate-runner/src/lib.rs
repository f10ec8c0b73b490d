//! passrate-runner
