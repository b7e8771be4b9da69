-- Spans an agent's OpenTelemetry exporter sent (the [otlp] receiver): a row per span, its
-- resource's and its own attributes as JSON, found by trace, by session and by time.
CREATE TABLE trace_spans (
    id              BIGSERIAL PRIMARY KEY,
    trace_id        TEXT NOT NULL,
    span_id         TEXT NOT NULL,
    parent_span_id  TEXT,
    name            TEXT NOT NULL,
    kind            TEXT NOT NULL,
    start_unix_nano BIGINT NOT NULL,
    end_unix_nano   BIGINT NOT NULL,
    status          TEXT NOT NULL,
    status_message  TEXT,
    service_name    TEXT,
    session_id      TEXT,
    -- the agent that made it (gen_ai.agent.name): a session's app is its first span's
    agent_name      TEXT,
    scope           TEXT,
    attributes_json TEXT NOT NULL,
    events_json     TEXT NOT NULL,
    resource_json   TEXT NOT NULL,
    received_at     DOUBLE PRECISION NOT NULL,
    UNIQUE (trace_id, span_id)
);
CREATE INDEX trace_spans_by_session ON trace_spans (session_id, start_unix_nano) WHERE session_id IS NOT NULL;
CREATE INDEX trace_spans_by_start ON trace_spans (start_unix_nano);
CREATE INDEX trace_spans_by_trace ON trace_spans (trace_id, start_unix_nano);
CREATE INDEX trace_spans_by_arrival ON trace_spans (received_at);

-- A row per recorded session, recomputed from its traces' spans whenever spans of them arrive,
-- so the Traces list reads a page of sessions whatever the number of spans.
CREATE TABLE trace_sessions (
    session_id        TEXT PRIMARY KEY,
    app               TEXT NOT NULL,
    started_unix_nano BIGINT NOT NULL,
    ended_unix_nano   BIGINT NOT NULL,
    turns             BIGINT NOT NULL,
    tool_calls        BIGINT NOT NULL,
    errors            BIGINT NOT NULL
);
CREATE INDEX trace_sessions_by_app ON trace_sessions (app, started_unix_nano);
CREATE INDEX trace_sessions_by_start ON trace_sessions (started_unix_nano);
