-- An evalset's tag (its ETag): new random text at every write of the evalset, never repeated,
-- even when an evalset is deleted and made again under its id. A pull records it; a push
-- must still match it (a server copy changed since is refused).
ALTER TABLE eval_sets ADD COLUMN tag TEXT NOT NULL DEFAULT '';
UPDATE eval_sets SET tag = md5(random()::text || id::text);

-- What this database pulled from other servers: the tag of each evalset as pulled (or pushed).
CREATE TABLE pulled_eval_sets (
    server      TEXT NOT NULL,
    app_name    TEXT NOT NULL,
    eval_set_id TEXT NOT NULL,
    tag         TEXT NOT NULL,
    PRIMARY KEY (server, app_name, eval_set_id)
);
