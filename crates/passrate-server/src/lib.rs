//! passrate-server
