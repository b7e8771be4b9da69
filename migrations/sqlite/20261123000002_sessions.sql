-- Chat sessions with an agent, and their turns. A turn keeps the agent's events in order as JSON
-- (crate::agent::AgentEvent), so "Add current session" can rebuild exactly what the agent did.

CREATE TABLE sessions (
    id         TEXT PRIMARY KEY NOT NULL,
    app_name   TEXT NOT NULL REFERENCES apps (name) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    title      TEXT NOT NULL DEFAULT '',
    state_json TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE INDEX sessions_by_owner ON sessions (app_name, user_id, updated_at);

CREATE TABLE session_turns (
    id                INTEGER PRIMARY KEY,
    session_id        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    position          INTEGER NOT NULL,
    invocation_id     TEXT NOT NULL,
    -- The agent that answered (the app's name).
    author            TEXT NOT NULL,
    user_message      TEXT NOT NULL,
    events_json       TEXT NOT NULL,
    -- Seconds since the epoch when the message arrived, and how long the turn took.
    started_at        REAL NOT NULL,
    latency_ms        INTEGER NOT NULL,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    UNIQUE (session_id, position)
);
