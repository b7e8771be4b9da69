-- The case list shows each case's outcome in the latest run and filters on it: look a run's
-- cases up by eval id.
CREATE INDEX eval_run_cases_by_case ON eval_run_cases (run_row, eval_id);
