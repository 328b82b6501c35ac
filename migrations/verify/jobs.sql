-- Verify queen:jobs on pg

BEGIN;

SELECT job, cycle, server_id, started_at, finished_at, result FROM queen.job_runs WHERE false;
SELECT has_function_privilege('queen_internal.job_lock_key(text)', 'execute');
SELECT has_function_privilege('queen_internal.job_cycle(bigint, timestamptz)', 'execute');
SELECT has_function_privilege('queen.try_begin_job_cycle(text, bigint, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.finish_job_cycle(text, text, jsonb)', 'execute');

ROLLBACK;
