-- A running run's case runs wait in batches for workers: a batch is a range of the eval set's
-- cases (every repetition of each), held while a worker runs it by that worker's boot id
-- until an expiry it renews. A batch is deleted in the transaction that stores its last case
-- run, and the run is finished in the one that deletes its last batch. A worker that dies
-- only stops renewing: another claims its batches once their leases have ended.
CREATE TABLE run_batches (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    run_row          INTEGER NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    first_case       INTEGER NOT NULL,
    end_case         INTEGER NOT NULL,
    lease_owner      TEXT,
    lease_expires_at REAL
);

CREATE INDEX run_batches_by_run ON run_batches (run_row, id);

-- A run was held whole by one process before; the runs it held have no batches to resume
-- from, and resuming one queues its cases again.
UPDATE eval_runs SET status = 'interrupted' WHERE status = 'running';
ALTER TABLE eval_runs DROP COLUMN lease_owner;
ALTER TABLE eval_runs DROP COLUMN lease_expires_at;
