-- How a run's agent got its tool results: `live` (the tools ran) or `replay` (calls answered
-- from each case's recording), and under replay what an unmatched call got (`live` or `error`).
-- Stored so a resumed run goes on as it started. Runs from before ran their tools live.
ALTER TABLE eval_runs ADD COLUMN tool_execution TEXT NOT NULL DEFAULT 'live';
ALTER TABLE eval_runs ADD COLUMN replay_miss TEXT NOT NULL DEFAULT 'live';
