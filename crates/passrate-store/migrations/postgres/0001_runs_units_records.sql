-- Runs, their units of work and the append-only score records (PostgreSQL).
-- Keep column names and meanings identical to migrations/sqlite: the store runs the same
-- SQL text on both backends. Integers are BIGINT (i64), reals DOUBLE PRECISION (f64), JSON is
-- TEXT so both backends return the exact text that was written.

CREATE TABLE runs (
    run_id        TEXT PRIMARY KEY NOT NULL,
    week          TEXT NOT NULL,
    seed          TEXT NOT NULL,
    pool_version  TEXT NOT NULL,
    manifest_json TEXT NOT NULL,
    config_json   TEXT NOT NULL,
    started_at    TEXT NOT NULL
);
CREATE INDEX runs_by_week ON runs (week, started_at);

-- A run's completion is a fact appended once, not a column updated later.
CREATE TABLE run_finishes (
    run_id      TEXT PRIMARY KEY NOT NULL REFERENCES runs (run_id),
    finished_at TEXT NOT NULL
);

-- One row per unit of work; the primary key is the unit key, so inserts are idempotent.
CREATE TABLE unit_results (
    run_id         TEXT NOT NULL REFERENCES runs (run_id),
    model          TEXT NOT NULL,
    task           TEXT NOT NULL,
    sample_index   BIGINT NOT NULL,
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
    PRIMARY KEY (run_id, model, task, sample_index)
);

-- Append-only: a correction is a new row with record_version + 1.
CREATE TABLE score_records (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    model            TEXT NOT NULL,
    week             TEXT NOT NULL,
    record_version   BIGINT NOT NULL,
    format_version   BIGINT NOT NULL,
    evaluated_at     TEXT NOT NULL,
    run_id           TEXT NOT NULL,
    seed             TEXT NOT NULL,
    pool_version     TEXT NOT NULL,
    passes           BIGINT NOT NULL,
    total            BIGINT NOT NULL,
    score            DOUBLE PRECISION NOT NULL,
    ci_low           DOUBLE PRECISION NOT NULL,
    ci_high          DOUBLE PRECISION NOT NULL,
    compliance_rate  DOUBLE PRECISION NOT NULL,
    coverage         DOUBLE PRECISION NOT NULL,
    by_category_json TEXT NOT NULL,
    by_tier_json     TEXT NOT NULL,
    provenance_json  TEXT NOT NULL,
    passrate_version TEXT NOT NULL,
    -- Set for "the score of this run for this model" so a resumed run does not append twice;
    -- NULL for deliberate corrections (NULLs never collide under UNIQUE).
    idempotency_key  TEXT UNIQUE,
    record_json      TEXT NOT NULL,
    recorded_at      TEXT NOT NULL,
    UNIQUE (model, week, record_version)
);
CREATE INDEX score_records_by_week ON score_records (week, model, record_version);

CREATE FUNCTION passrate_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER runs_append_only BEFORE UPDATE OR DELETE ON runs
    FOR EACH ROW EXECUTE FUNCTION passrate_append_only();
CREATE TRIGGER runs_no_truncate BEFORE TRUNCATE ON runs
    FOR EACH STATEMENT EXECUTE FUNCTION passrate_append_only();

CREATE TRIGGER run_finishes_append_only BEFORE UPDATE OR DELETE ON run_finishes
    FOR EACH ROW EXECUTE FUNCTION passrate_append_only();
CREATE TRIGGER run_finishes_no_truncate BEFORE TRUNCATE ON run_finishes
    FOR EACH STATEMENT EXECUTE FUNCTION passrate_append_only();

CREATE TRIGGER unit_results_append_only BEFORE UPDATE OR DELETE ON unit_results
    FOR EACH ROW EXECUTE FUNCTION passrate_append_only();
CREATE TRIGGER unit_results_no_truncate BEFORE TRUNCATE ON unit_results
    FOR EACH STATEMENT EXECUTE FUNCTION passrate_append_only();

CREATE TRIGGER score_records_append_only BEFORE UPDATE OR DELETE ON score_records
    FOR EACH ROW EXECUTE FUNCTION passrate_append_only();
CREATE TRIGGER score_records_no_truncate BEFORE TRUNCATE ON score_records
    FOR EACH STATEMENT EXECUTE FUNCTION passrate_append_only();
