-- How many of a run's cases have a summary, kept with each write of summaries so a run's page
-- count reads the head row rather than counting every summary.
ALTER TABLE eval_runs ADD COLUMN cases_summarised INTEGER NOT NULL DEFAULT 0;
UPDATE eval_runs SET cases_summarised =
    (SELECT COUNT(*) FROM eval_run_case_summaries s WHERE s.run_row = eval_runs.id);
