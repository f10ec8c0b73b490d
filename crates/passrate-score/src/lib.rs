//! passrate-score
