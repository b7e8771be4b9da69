-- The case list's orders, so a page of a large evalset is read from an index rather than by
-- sorting every case (file order and eval id have theirs already).
CREATE INDEX eval_cases_by_turns ON eval_cases (eval_set_row, turn_count, position);
CREATE INDEX eval_cases_by_tool_calls ON eval_cases (eval_set_row, tool_call_count, position);
CREATE INDEX eval_cases_by_updated ON eval_cases (eval_set_row, updated_at, position);
