-- What a run is called where people read it: an optional label the user gives (at start or
-- later), and whether it ran the whole evalset or only some of its cases (a re-run of the failed
-- or selected ones), which lists mark. Runs from before ran the whole set.
ALTER TABLE eval_runs ADD COLUMN label TEXT;
ALTER TABLE eval_runs ADD COLUMN whole_set INTEGER NOT NULL DEFAULT 1;
