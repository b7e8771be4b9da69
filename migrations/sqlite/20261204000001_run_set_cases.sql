-- A run's eval set, a row per case: a worker reads the cases of each batch it claims, so no
-- process holds a whole set while it runs (issue 25). eval_run_sets keeps the set's own fields.
CREATE TABLE eval_run_set_cases (
    run_row    INTEGER NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    case_index INTEGER NOT NULL,
    case_json  TEXT NOT NULL,
    PRIMARY KEY (run_row, case_index)
);
INSERT INTO eval_run_set_cases (run_row, case_index, case_json)
    SELECT s.run_row, CAST(c.key AS INTEGER), c.value
    FROM eval_run_sets s, json_each(s.expected_json, '$.eval_cases') c;
ALTER TABLE eval_run_sets RENAME COLUMN expected_json TO header_json;
UPDATE eval_run_sets SET header_json = json_set(header_json, '$.eval_cases', json('[]'));
