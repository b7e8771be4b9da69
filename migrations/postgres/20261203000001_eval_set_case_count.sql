-- How many cases an evalset has, recounted by every write of its cases, so a case list's
-- unfiltered total and the evalsets page read one row rather than counting every case.
ALTER TABLE eval_sets ADD COLUMN case_count BIGINT NOT NULL DEFAULT 0;
UPDATE eval_sets SET case_count =
    (SELECT COUNT(*) FROM eval_cases c WHERE c.eval_set_row = eval_sets.id);
