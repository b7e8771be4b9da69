-- Who made a run: `evalstudio`, or `adk` for a run that `adk eval` or `adk web` wrote into a
-- folder's eval history (read from its file, shown read-only).
ALTER TABLE eval_runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'evalstudio';
