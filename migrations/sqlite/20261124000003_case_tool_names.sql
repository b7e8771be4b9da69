-- The names of the tools a case calls, space-separated, so the case list can filter by tool
-- name without parsing every case. Written with each case; filled in here for existing ones.
ALTER TABLE eval_cases ADD COLUMN tool_names TEXT NOT NULL DEFAULT '';

UPDATE eval_cases SET tool_names = COALESCE((
    SELECT group_concat(t.value, ' ') FROM json_tree(eval_cases.case_json) t
    -- Some SQLite versions quote these keys in paths ("tool_uses"[0]), some do not.
    WHERE t.key = 'name' AND (t.path LIKE '%tool_uses%[%]' OR t.path LIKE '%function_call%')
), '');
