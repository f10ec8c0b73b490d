//! passrate-sandbox
