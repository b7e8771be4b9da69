-- Users, their API tokens and browser sessions, and failed logins: what a team server's auth
-- reads on every request, kept in the store so every process serving it agrees.
-- Secrets are never stored: a password as its argon2id hash, a token or session as SHA-256.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT NOT NULL UNIQUE,
    role          TEXT NOT NULL,
    password_hash TEXT,
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT NOT NULL,
    user_row     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    last_used_at TEXT,
    revoked_at   TEXT
);

-- A name is taken while its token is live; a revoked token's name may be used again.
CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens (name) WHERE revoked_at IS NULL;

CREATE TABLE login_sessions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_row   INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    expires_at REAL NOT NULL
);

CREATE TABLE failed_logins (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    user_name TEXT NOT NULL,
    address   TEXT NOT NULL,
    failed_at REAL NOT NULL
);

CREATE INDEX failed_logins_by_user ON failed_logins (user_name, failed_at);
CREATE INDEX failed_logins_by_address ON failed_logins (address, failed_at);

-- Who saved each version of a case (NULL: saved without a login, or from a file).
ALTER TABLE eval_cases ADD COLUMN saved_by TEXT;
ALTER TABLE eval_case_versions ADD COLUMN saved_by TEXT;
ALTER TABLE deleted_eval_cases ADD COLUMN saved_by TEXT;
