-- Infrastructure faults of units: a unit whose every attempt within one invocation ended in a
-- sandbox or model API error. A unit's row in unit_results is final; a unit with only faults
-- has no result yet, and a resumed run retries it. One row per failed invocation; append-only.
CREATE TABLE unit_faults (
    run_id         TEXT NOT NULL REFERENCES runs (run_id),
    model          TEXT NOT NULL,
    task           TEXT NOT NULL,
    sample_index   BIGINT NOT NULL,
    attempt        BIGINT NOT NULL,
    task_version   BIGINT NOT NULL,
    language       TEXT NOT NULL,
    category       TEXT NOT NULL,
    tier           BIGINT NOT NULL,
    raw_answer     TEXT,
    extracted_code TEXT,
    verdict_json   TEXT NOT NULL,
    reason         TEXT NOT NULL,
    generation_ms  BIGINT NOT NULL,
    execution_ms   BIGINT NOT NULL,
    usage_json     TEXT,
    completed_at   TEXT NOT NULL,
    PRIMARY KEY (run_id, model, task, sample_index, attempt)
);

CREATE TRIGGER unit_faults_append_only BEFORE UPDATE OR DELETE ON unit_faults
    FOR EACH ROW EXECUTE FUNCTION passrate_append_only();
CREATE TRIGGER unit_faults_no_truncate BEFORE TRUNCATE ON unit_faults
    FOR EACH STATEMENT EXECUTE FUNCTION passrate_append_only();
