-- Apps (agent profiles, ADK's "app_name"), their eval sets and the eval cases in them.
-- Timestamps are ISO 8601 UTC text written by SQLite itself.

CREATE TABLE apps (
    name       TEXT PRIMARY KEY NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE eval_sets (
    id                 INTEGER PRIMARY KEY,
    app_name           TEXT NOT NULL REFERENCES apps (name) ON DELETE CASCADE,
    eval_set_id        TEXT NOT NULL,
    name               TEXT,
    description        TEXT,
    creation_timestamp REAL NOT NULL DEFAULT 0,
    -- Top-level keys of the imported file that ADK does not define, as a JSON object.
    extra_json         TEXT NOT NULL DEFAULT '{}',
    created_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (app_name, eval_set_id)
);

CREATE TABLE eval_cases (
    id                 INTEGER PRIMARY KEY,
    eval_set_row       INTEGER NOT NULL REFERENCES eval_sets (id) ON DELETE CASCADE,
    -- Order of the case in the file; export writes cases in this order.
    position           INTEGER NOT NULL,
    eval_id            TEXT NOT NULL,
    -- The whole ADK case as canonical JSON, so nothing the file said is lost.
    case_json          TEXT NOT NULL,
    -- Derived from case_json for listing without parsing it.
    turn_count         INTEGER NOT NULL,
    tool_call_count    INTEGER NOT NULL,
    first_user_message TEXT NOT NULL,
    -- Bumped on every write; a PUT that names an older version is refused.
    version            INTEGER NOT NULL DEFAULT 1,
    created_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (eval_set_row, eval_id)
);

CREATE INDEX eval_cases_by_position ON eval_cases (eval_set_row, position);
