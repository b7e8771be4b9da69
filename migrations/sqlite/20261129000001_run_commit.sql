-- Folder mode: the agents folder's git commit when the run started, and whether its tree had
-- changes then, so a regression points at a commit. NULL when the folder is not in git (or the
-- run was not made on a folder).
ALTER TABLE eval_runs ADD COLUMN git_commit TEXT;
ALTER TABLE eval_runs ADD COLUMN git_dirty INTEGER;
