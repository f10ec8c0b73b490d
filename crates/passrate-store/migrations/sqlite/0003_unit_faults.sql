-- Infrastructure faults of units: a unit whose every attempt within one invocation ended in a
-- sandbox or model API error. A unit's row in unit_results is final; a unit with only faults
-- has no result yet, and a resumed run retries it. One row per failed invocation; append-only.
CREATE TABLE unit_faults (
    run_id         TEXT NOT NULL REFERENCES runs (run_id),
    model          TEXT NOT NULL,
    task           TEXT NOT NULL,
    sample_index   INTEGER NOT NULL,
    attempt        INTEGER NOT NULL,
    task_version   INTEGER NOT NULL,
    language       TEXT NOT NULL,
    category       TEXT NOT NULL,
    tier           INTEGER NOT NULL,
    raw_answer     TEXT,
    extracted_code TEXT,
    verdict_json   TEXT NOT NULL,
    reason         TEXT NOT NULL,
    generation_ms  INTEGER NOT NULL,
    execution_ms   INTEGER NOT NULL,
    usage_json     TEXT,
    completed_at   TEXT NOT NULL,
    PRIMARY KEY (run_id, model, task, sample_index, attempt)
);

CREATE TRIGGER unit_faults_no_update BEFORE UPDATE ON unit_faults
BEGIN SELECT RAISE(ABORT, 'unit_faults is append-only: UPDATE is not allowed'); END;
CREATE TRIGGER unit_faults_no_delete BEFORE DELETE ON unit_faults
BEGIN SELECT RAISE(ABORT, 'unit_faults is append-only: DELETE is not allowed'); END;
