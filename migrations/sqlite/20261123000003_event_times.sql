-- When each of a turn's events happened: milliseconds after the turn started, one per event in
-- events_json. Turns recorded before this column existed have '[]' (no per-event times).
ALTER TABLE session_turns ADD COLUMN event_offsets_json TEXT NOT NULL DEFAULT '[]';
