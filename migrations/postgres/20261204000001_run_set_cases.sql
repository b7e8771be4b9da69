-- A run's eval set, a row per case: a worker reads the cases of each batch it claims, so no
-- process holds a whole set while it runs (issue 25). eval_run_sets keeps the set's own fields.
CREATE TABLE eval_run_set_cases (
    run_row    BIGINT NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    case_index BIGINT NOT NULL,
    case_json  TEXT NOT NULL,
    PRIMARY KEY (run_row, case_index)
);
-- json, not jsonb, keeps each case's text as it was written.
INSERT INTO eval_run_set_cases (run_row, case_index, case_json)
    SELECT s.run_row, c.ordinality - 1, c.value::text
    FROM eval_run_sets s,
         json_array_elements(s.expected_json::json -> 'eval_cases') WITH ORDINALITY AS c (value, ordinality);
ALTER TABLE eval_run_sets RENAME COLUMN expected_json TO header_json;
UPDATE eval_run_sets SET header_json = (header_json::jsonb || '{"eval_cases": []}'::jsonb)::text;
