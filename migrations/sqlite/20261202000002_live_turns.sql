-- A chat turn under way, held by the process running it (its boot id and a lease it renews),
-- so a session runs one turn at a time whichever server is asked, and its events as they
-- arrive, so a browser on any server follows it. Both go in the write that records the turn.
CREATE TABLE live_turns (
    session_id       TEXT PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    invocation_id    TEXT NOT NULL,
    user_message     TEXT NOT NULL,
    lease_owner      TEXT NOT NULL,
    lease_expires_at REAL NOT NULL,
    stop_requested   BOOLEAN NOT NULL DEFAULT FALSE
);

CREATE TABLE live_turn_events (
    session_id TEXT NOT NULL REFERENCES live_turns (session_id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    event_json TEXT NOT NULL,
    PRIMARY KEY (session_id, position)
);
