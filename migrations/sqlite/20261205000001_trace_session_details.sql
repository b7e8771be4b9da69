-- What the Traces list shows and filters on beside the counts: each span's tool (execute_tool's
-- gen_ai.tool.name) and token usage (gen_ai.usage.*), read from its attributes on arrival;
-- each session's token totals, its user (from the log records that name one: ADK puts user.id
-- on its inference log events, not on spans) and when its last span arrived (a session is
-- settled once none has for the receiver's quiet period).
ALTER TABLE trace_spans ADD COLUMN tool_name TEXT;
ALTER TABLE trace_spans ADD COLUMN input_tokens BIGINT;
ALTER TABLE trace_spans ADD COLUMN output_tokens BIGINT;
-- what was said and sent, lowercased, for the text filter (spans stored before: NULL, and the
-- filter reads their attributes instead)
ALTER TABLE trace_spans ADD COLUMN search_text TEXT;
UPDATE trace_spans SET
    tool_name = json_extract(attributes_json, '$."gen_ai.tool.name"'),
    input_tokens = CASE WHEN json_type(attributes_json, '$."gen_ai.usage.input_tokens"') IN ('integer', 'real')
        THEN CAST(json_extract(attributes_json, '$."gen_ai.usage.input_tokens"') AS INTEGER) END,
    output_tokens = CASE WHEN json_type(attributes_json, '$."gen_ai.usage.output_tokens"') IN ('integer', 'real')
        THEN CAST(json_extract(attributes_json, '$."gen_ai.usage.output_tokens"') AS INTEGER) END;
CREATE INDEX trace_spans_by_tool ON trace_spans (tool_name, trace_id) WHERE tool_name IS NOT NULL;

CREATE TABLE trace_users (
    trace_id    TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    received_at REAL NOT NULL
);

ALTER TABLE trace_sessions ADD COLUMN input_tokens BIGINT;
ALTER TABLE trace_sessions ADD COLUMN output_tokens BIGINT;
ALTER TABLE trace_sessions ADD COLUMN user_id TEXT;
ALTER TABLE trace_sessions ADD COLUMN last_received_at REAL NOT NULL DEFAULT 0;
UPDATE trace_sessions SET
    last_received_at = COALESCE(
        (SELECT MAX(s.received_at) FROM trace_spans s WHERE s.session_id = trace_sessions.session_id), 0),
    input_tokens = (SELECT SUM(s.input_tokens) FROM trace_spans s WHERE s.trace_id IN
        (SELECT m.trace_id FROM trace_spans m WHERE m.session_id = trace_sessions.session_id)),
    output_tokens = (SELECT SUM(s.output_tokens) FROM trace_spans s WHERE s.trace_id IN
        (SELECT m.trace_id FROM trace_spans m WHERE m.session_id = trace_sessions.session_id));
