//! passrate-extract
