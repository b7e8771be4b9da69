-- Every earlier state of a case: each save keeps the version it replaces, so the case page can
-- list them, show what changed and restore one (a restore is a new version). Export writes only
-- the current case.
CREATE TABLE eval_case_versions (
    id         INTEGER PRIMARY KEY,
    case_row   INTEGER NOT NULL REFERENCES eval_cases (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    case_json  TEXT NOT NULL,
    -- When this version was saved (the case's updated_at while it was current).
    saved_at   TEXT NOT NULL,
    UNIQUE (case_row, version)
);
