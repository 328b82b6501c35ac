-- Revert queen:jobs from pg

BEGIN;

DROP FUNCTION queen.finish_job_cycle(text, text, jsonb);
DROP FUNCTION queen.try_begin_job_cycle(text, bigint, text, timestamptz);
DROP FUNCTION queen.job_runs_kept();
DROP FUNCTION queen.job_cycle(bigint, timestamptz);
DROP FUNCTION queen.job_lock_key(text);
DROP TABLE queen.job_runs;

COMMIT;
