-- Response cache for the model adapters (SQLite). Unlike the tables of 0001 this is a cache:
-- a refresh replaces an entry.
CREATE TABLE response_cache (
    cache_key  TEXT PRIMARY KEY NOT NULL,
    value_json TEXT NOT NULL,
    stored_at  TEXT NOT NULL
);
