-- A running run is held by a lease: the boot id of the process running it (a random id each
-- process draws when it opens the store) and when the lease ends unless that process renews it.
-- The process id it replaces said nothing in a container, where the server is PID 1 after every
-- restart, so a killed run looked alive forever. A `running` row whose lease has ended reads as
-- `interrupted`; rows from before this migration have none and read so at once.
ALTER TABLE eval_runs ADD COLUMN lease_owner TEXT;
ALTER TABLE eval_runs ADD COLUMN lease_expires_at REAL;
ALTER TABLE eval_runs DROP COLUMN pid;
