-- Revert queen:jobs from pg

BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)

DROP FUNCTION queen.finish_job_cycle(text, text, jsonb);
DROP FUNCTION queen.try_begin_job_cycle(text, bigint, text, timestamptz);
DROP FUNCTION queen_internal.job_runs_kept();
DROP FUNCTION queen_internal.job_cycle(bigint, timestamptz);
DROP FUNCTION queen_internal.job_lock_key(text);
DROP TABLE queen.job_runs;

COMMIT;
