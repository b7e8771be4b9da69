-- Deleted cases wait here, history included, so a delete can be undone; the server purges those
-- deleted more than a day ago when it starts. An eval run is unaffected: it keeps the evalset as
-- it was when it started.
CREATE TABLE deleted_eval_cases (
    id            INTEGER PRIMARY KEY,
    eval_set_row  INTEGER NOT NULL REFERENCES eval_sets (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,
    eval_id       TEXT NOT NULL,
    case_json     TEXT NOT NULL,
    version       INTEGER NOT NULL,
    created_at    TEXT NOT NULL,
    -- The case's earlier versions: a JSON list of {version, case_json, saved_at}.
    versions_json TEXT NOT NULL,
    deleted_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE INDEX deleted_eval_cases_by_set ON deleted_eval_cases (eval_set_row, eval_id);
