-- Runs, their units of work and the append-only score records (SQLite).
-- Keep column names and meanings identical to migrations/postgres: the store runs the same
-- SQL text on both backends. Integers are INTEGER (i64), reals REAL (f64), JSON is TEXT.

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
    sample_index   INTEGER NOT NULL,
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
    PRIMARY KEY (run_id, model, task, sample_index)
);

-- Append-only: a correction is a new row with record_version + 1.
CREATE TABLE score_records (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    model            TEXT NOT NULL,
    week             TEXT NOT NULL,
    record_version   INTEGER NOT NULL,
    format_version   INTEGER NOT NULL,
    evaluated_at     TEXT NOT NULL,
    run_id           TEXT NOT NULL,
    seed             TEXT NOT NULL,
    pool_version     TEXT NOT NULL,
    passes           INTEGER NOT NULL,
    total            INTEGER NOT NULL,
    score            REAL NOT NULL,
    ci_low           REAL NOT NULL,
    ci_high          REAL NOT NULL,
    compliance_rate  REAL NOT NULL,
    coverage         REAL NOT NULL,
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

CREATE TRIGGER runs_no_update BEFORE UPDATE ON runs
BEGIN SELECT RAISE(ABORT, 'runs is append-only: UPDATE is not allowed'); END;
CREATE TRIGGER runs_no_delete BEFORE DELETE ON runs
BEGIN SELECT RAISE(ABORT, 'runs is append-only: DELETE is not allowed'); END;

CREATE TRIGGER run_finishes_no_update BEFORE UPDATE ON run_finishes
BEGIN SELECT RAISE(ABORT, 'run_finishes is append-only: UPDATE is not allowed'); END;
CREATE TRIGGER run_finishes_no_delete BEFORE DELETE ON run_finishes
BEGIN SELECT RAISE(ABORT, 'run_finishes is append-only: DELETE is not allowed'); END;

CREATE TRIGGER unit_results_no_update BEFORE UPDATE ON unit_results
BEGIN SELECT RAISE(ABORT, 'unit_results is append-only: UPDATE is not allowed'); END;
CREATE TRIGGER unit_results_no_delete BEFORE DELETE ON unit_results
BEGIN SELECT RAISE(ABORT, 'unit_results is append-only: DELETE is not allowed'); END;

CREATE TRIGGER score_records_no_update BEFORE UPDATE ON score_records
BEGIN SELECT RAISE(ABORT, 'score_records is append-only: UPDATE is not allowed'); END;
CREATE TRIGGER score_records_no_delete BEFORE DELETE ON score_records
BEGIN SELECT RAISE(ABORT, 'score_records is append-only: DELETE is not allowed'); END;
