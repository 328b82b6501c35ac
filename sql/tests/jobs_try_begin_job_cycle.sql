-- pgTAP: single-runner job election (queen.try_begin_job_cycle / finish_job_cycle / job_cycle).
-- A second session (dblink) plays the other broker holding the election lock.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(18);

-- cycle numbering
SELECT is(queen_internal.job_cycle(1000, 'epoch'::timestamptz + interval '5.999 s'), 5::bigint, 'cycle = floor(epoch_ms / cycle_ms)');
SELECT is(queen_internal.job_cycle(1000, 'epoch'::timestamptz + interval '6 s'), 6::bigint, 'a cycle starts exactly at its boundary');
SELECT is(queen_internal.job_cycle(60000, '2025-01-01T00:01:30Z'), 28928161::bigint, 'minute cycles of a real date');
SELECT throws_ok($$SELECT queen_internal.job_cycle(0)$$, '22023', NULL, 'a cycle length below 1 ms is rejected');

-- A job name unique to this run, and a day-long cycle so no boundary is crossed mid-test.
CREATE TEMP TABLE t_job AS SELECT 'pgtap-job-' || md5(random()::text) AS name, 86400000::bigint AS cycle_ms;

-- Another broker holds the election lock at this moment: we skip the cycle.
SELECT dblink_connect('other', format('host=127.0.0.1 port=%s user=%s dbname=%s',
                                      current_setting('port'), current_user, current_database()));
SELECT dblink_exec('other', 'BEGIN');
SELECT * FROM dblink('other', format('SELECT pg_advisory_xact_lock(queen_internal.job_lock_key(%L))::text', (SELECT name FROM t_job)))
  AS t(ignored text);
SELECT is(queen.try_begin_job_cycle((SELECT name FROM t_job), (SELECT cycle_ms FROM t_job), 'broker-a'), false,
          'a broker that cannot take the lock skips the cycle');
SELECT is((SELECT count(*)::int FROM queen.job_runs WHERE job = (SELECT name FROM t_job)), 0, '... and records nothing');
SELECT dblink_exec('other', 'ROLLBACK');

-- Lock free: exactly one broker is elected for the cycle.
SELECT is(queen.try_begin_job_cycle((SELECT name FROM t_job), (SELECT cycle_ms FROM t_job), 'broker-a'), true,
          'the first broker to try is elected');
SELECT is(queen.try_begin_job_cycle((SELECT name FROM t_job), (SELECT cycle_ms FROM t_job), 'broker-b'), false,
          'a second broker in the same cycle is not');
SELECT is(queen.try_begin_job_cycle((SELECT name FROM t_job), (SELECT cycle_ms FROM t_job), 'broker-a'), false,
          'nor is the winner again in the same cycle');
SELECT results_eq(format('SELECT server_id, cycle FROM queen.job_runs WHERE job = %L', (SELECT name FROM t_job)),
                  format('VALUES (%L, queen_internal.job_cycle(%s))', 'broker-a', (SELECT cycle_ms FROM t_job)),
                  'the run is recorded once with its cycle and broker');

-- Another job is elected independently.
SELECT is(queen.try_begin_job_cycle((SELECT name FROM t_job) || '-other', (SELECT cycle_ms FROM t_job), 'broker-b'), true,
          'jobs are elected independently of each other');

-- A run committed by another session counts too (the other broker arrives later in the cycle).
SELECT is((SELECT ok FROM dblink('other', format('SELECT queen.try_begin_job_cycle(%L, 86400000, %L)',
                                                   (SELECT name FROM t_job) || '-committed', 'broker-b')) AS t(ok boolean)),
          true, 'the other broker runs a cycle and commits it');
SELECT is(queen.try_begin_job_cycle((SELECT name FROM t_job) || '-committed', (SELECT cycle_ms FROM t_job), 'broker-a'), false,
          'a broker arriving later in that cycle skips it');
SELECT dblink_exec('other', format('DELETE FROM queen.job_runs WHERE job = %L', (SELECT name FROM t_job) || '-committed'));
SELECT dblink_disconnect('other');

-- finish
SELECT is(queen.finish_job_cycle((SELECT name FROM t_job), 'broker-a', '{"deleted": 3}'), true, 'the winner finishes its run');
SELECT is((SELECT result FROM queen.job_runs WHERE job = (SELECT name FROM t_job)), '{"deleted": 3}'::jsonb, 'the result is recorded');
SELECT is(queen.finish_job_cycle((SELECT name FROM t_job), 'broker-b', NULL), false, 'a broker that did not run it cannot finish it');

-- The next cycle (a day later: p_now) elects again.
SELECT is(queen.try_begin_job_cycle((SELECT name FROM t_job), (SELECT cycle_ms FROM t_job), 'broker-b',
                                    clock_timestamp() + interval '1 day'), true, 'the next cycle elects a runner again');
SELECT is((SELECT array_agg(server_id ORDER BY cycle) FROM queen.job_runs WHERE job = (SELECT name FROM t_job)),
          ARRAY['broker-a', 'broker-b'], '... recorded as a run of its own');

SELECT * FROM finish();
ROLLBACK;
