//! passrate-models
