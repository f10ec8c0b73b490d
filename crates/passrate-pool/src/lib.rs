//! passrate-pool
