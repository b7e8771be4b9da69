-- Evaluation runs and their results, written case by case as each case run finishes, so a crash
-- loses only the cases in flight. A run whose process is gone while it says `running` is marked
-- `interrupted` and can be resumed: the cases already stored are not run again.

CREATE TABLE eval_runs (
    id            INTEGER PRIMARY KEY,
    -- ADK's eval_set_result_id: {app}_{eval_set_id}_{creation timestamp}.
    result_id     TEXT NOT NULL UNIQUE,
    app_name      TEXT NOT NULL,
    eval_set_id   TEXT NOT NULL,
    -- The agent profile that ran the cases.
    agent         TEXT NOT NULL,
    -- running | finished | interrupted | cancelled
    status        TEXT NOT NULL,
    -- The eval set as it was run (ADK JSON, only the selected cases) and the eval config
    -- ({"criteria": ...}), so results and resumes do not depend on later edits.
    expected_json TEXT NOT NULL,
    config_json   TEXT NOT NULL,
    num_runs      INTEGER NOT NULL,
    -- Case runs planned: cases × num_runs.
    total         INTEGER NOT NULL,
    -- The process running it; a `running` row whose process is gone was interrupted.
    pid           INTEGER NOT NULL,
    created_at    REAL NOT NULL,
    finished_at   REAL
);

CREATE INDEX eval_runs_by_set ON eval_runs (app_name, eval_set_id, created_at);

CREATE TABLE eval_run_cases (
    run_row      INTEGER NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    -- Which repetition (0-based) and which case of expected_json (its position).
    run_index    INTEGER NOT NULL,
    case_index   INTEGER NOT NULL,
    eval_id      TEXT NOT NULL,
    -- ADK's EvalStatus number of the case run.
    status       INTEGER NOT NULL,
    -- The agent's error when it could not finish the case.
    error        TEXT,
    -- Per metric of the run's config, the scores its invocations got: what case summaries
    -- (pooled over runs, pass@k) need, without reading result_json.
    scores_json  TEXT NOT NULL,
    -- ADK's EvalCaseResult.
    result_json  TEXT NOT NULL,
    PRIMARY KEY (run_row, run_index, case_index)
);
