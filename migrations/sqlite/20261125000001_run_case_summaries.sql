-- Each case of a run pooled over its repetitions (Evalstudio's CaseSummary as JSON), rewritten in
-- the transaction that stores one of its case runs. A run's page, its results table and the
-- comparison of two runs read a page of these, not every case run's scores.
CREATE TABLE eval_run_case_summaries (
    run_row      INTEGER NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    -- The case's position in the run's stored eval set.
    case_index   INTEGER NOT NULL,
    eval_id      TEXT NOT NULL,
    -- 1 when every repetition finished and the pooled status is PASSED: what a comparison asks.
    passed       INTEGER NOT NULL,
    summary_json TEXT NOT NULL,
    PRIMARY KEY (run_row, case_index)
);
CREATE INDEX eval_run_case_summaries_by_case ON eval_run_case_summaries (run_row, eval_id);
-- A comparison reads every case's outcome: from this index alone, not the summaries.
CREATE INDEX eval_run_case_outcomes ON eval_run_case_summaries (run_row, case_index, eval_id, passed);

-- The eval set as run moves to its own table: in the run's row, its overflow pages were read
-- to reach every column after it, so reading a run's head took time in proportion to its size.
CREATE TABLE eval_run_sets (
    run_row       INTEGER PRIMARY KEY REFERENCES eval_runs (id) ON DELETE CASCADE,
    expected_json TEXT NOT NULL
);
INSERT INTO eval_run_sets (run_row, expected_json) SELECT id, expected_json FROM eval_runs;
ALTER TABLE eval_runs DROP COLUMN expected_json;

-- The format of the run's stored summaries (store::SUMMARY_FORMAT; 0: none yet). A run stored
-- before this table existed, or summarised by a build that summarised differently, has its
-- summaries written again on its next read.
ALTER TABLE eval_runs ADD COLUMN summarised INTEGER NOT NULL DEFAULT 0;
-- Bumped by every write of case runs. stats_json (the per-metric statistics of the run's pages)
-- is a cache, valid while stats_version equals cases_version.
ALTER TABLE eval_runs ADD COLUMN cases_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE eval_runs ADD COLUMN stats_json TEXT;
ALTER TABLE eval_runs ADD COLUMN stats_version INTEGER;

-- Counts over the run's stored case runs, kept by the writes of case runs, so a run's head
-- (lists, progress) is one row read whatever the run's size.
ALTER TABLE eval_runs ADD COLUMN cases_done INTEGER NOT NULL DEFAULT 0;
ALTER TABLE eval_runs ADD COLUMN cases_passed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE eval_runs ADD COLUMN cases_failed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE eval_runs ADD COLUMN cases_errored INTEGER NOT NULL DEFAULT 0;
UPDATE eval_runs SET
    cases_done = (SELECT COUNT(*) FROM eval_run_cases c WHERE c.run_row = eval_runs.id),
    cases_passed = (SELECT COUNT(*) FROM eval_run_cases c
                    WHERE c.run_row = eval_runs.id AND c.error IS NULL AND c.status = 1),
    cases_failed = (SELECT COUNT(*) FROM eval_run_cases c
                    WHERE c.run_row = eval_runs.id AND c.error IS NULL AND c.status <> 1),
    cases_errored = (SELECT COUNT(*) FROM eval_run_cases c
                     WHERE c.run_row = eval_runs.id AND c.error IS NOT NULL);
