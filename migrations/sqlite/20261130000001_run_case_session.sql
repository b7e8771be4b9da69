-- The inference session of each case run (ADK's EvalCaseResult.session_id, empty when the
-- actual invocations were given), so the session an eval ran can be read back by its id as
-- `adk web` serves it.
ALTER TABLE eval_run_cases ADD COLUMN session_id TEXT NOT NULL DEFAULT '';
UPDATE eval_run_cases SET session_id = COALESCE(json_extract(result_json, '$.session_id'), '');
CREATE INDEX eval_run_cases_by_session ON eval_run_cases (session_id) WHERE session_id <> '';
