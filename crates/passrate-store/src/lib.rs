//! passrate-store
