//! Stable, serialisable types shared by every passrate crate: typed values and their wire
//! encoding, tasks and tests, verdicts, score records, run events and exit codes.
//!
//! Everything here is data. Behaviour that is not about the shape of the data (comparison,
//! scoring, sampling) lives in the crate responsible for it. Each persisted document carries
//! a `format_version`; bump the matching constant when a change is not backwards compatible.

pub mod exit;
pub mod quality;
pub mod record;
pub mod task;
pub mod value;
pub mod verdict;

pub use quality::*;
pub use record::*;
pub use task::*;
pub use value::{Integer, Value, ValueError};
pub use verdict::*;

/// Version of the task file format (`Task::format_version`).
pub const TASK_FORMAT_VERSION: u32 = 1;
/// Version of the score record format (`ScoreRecord::format_version`). Version 2 added the
/// score on answered tasks, the family count, the drift signals and the rotation; version 3 the
/// quality scores. Older records read with those absent.
pub const RECORD_FORMAT_VERSION: u32 = 3;

/// The documents passrate reads or writes that other tools consume, by the name
/// `passrate schema NAME` uses.
pub const SCHEMA_NAMES: [&str; 6] = [
    "task",
    "verdict",
    "task-outcome",
    "manifest",
    "score-record",
    "run-event",
];

/// The JSON Schema (draft 2020-12) of the document `name` (one of [`SCHEMA_NAMES`]),
/// generated from these types, so it cannot drift from what the code accepts.
pub fn json_schema(name: &str) -> Option<serde_json::Value> {
    let schema = match name {
        "task" => schemars::schema_for!(Task),
        "verdict" => schemars::schema_for!(Verdict),
        "task-outcome" => schemars::schema_for!(TaskOutcome),
        "manifest" => schemars::schema_for!(Manifest),
        "score-record" => schemars::schema_for!(ScoreRecord),
        "run-event" => schemars::schema_for!(RunEvent),
        _ => return None,
    };
    Some(schema.to_value())
}
