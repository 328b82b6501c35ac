-- pgTAP: queen.analyze_grown_tables (the table_statistics job, docs/timers-kv-jobs.md): a table that has grown
-- past twice the rows its statistics counted is analyzed, and only then.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(10);

SELECT throws_ok('SELECT queen.analyze_grown_tables(0)', '22023', NULL, 'minRows below 1 is refused');

SELECT ok(NOT queen_internal.statistics_outgrown(2999, 1000, 1000), 'below twice the count plus the floor: not due');
SELECT ok(queen_internal.statistics_outgrown(3000, 1000, 1000), 'twice the count plus the floor: due');
SELECT ok(queen_internal.statistics_outgrown(1000, -1, 1000), 'never analyzed (-1): due at the floor');
SELECT ok(NOT queen_internal.statistics_outgrown(999, -1, 1000), 'never analyzed, below the floor: not due');

-- 3,000 partitions (a message each) committed by another session; its exit flushes its counts to the cumulative statistics.
CREATE TEMP TABLE t AS SELECT 't_grown_' || replace(gen_random_uuid()::text, '-', '') AS q;
-- Counted before the push: the other session may flush its counts as soon as its statement ends.
CREATE TEMP TABLE before_live AS SELECT pg_stat_get_live_tuples('queen.partitions'::regclass) AS n;
SELECT dblink_connect('g', format('host=127.0.0.1 port=%s user=%s dbname=%s', current_setting('port'), current_user, current_database()));
SELECT * FROM t, dblink('g', format(
  'SELECT count(*) FROM queen.push_messages((SELECT jsonb_agg(jsonb_build_object(''queue'', %L, ''partition'', ''p'' || i))
                                               FROM generate_series(1, 3000) i), NULL, '''')', q)) AS x(n bigint);
SELECT dblink_disconnect('g');
CREATE FUNCTION pg_temp.live_messages_reach(p_rows bigint) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_deadline timestamptz := clock_timestamp() + interval '10 seconds';
BEGIN
  LOOP
    PERFORM pg_stat_clear_snapshot();
    IF pg_stat_get_live_tuples('queen.partitions'::regclass) >= p_rows THEN RETURN true; END IF;
    IF clock_timestamp() > v_deadline THEN RETURN false; END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
END;
$$;
SELECT ok(pg_temp.live_messages_reach((SELECT n FROM before_live) + 3000), 'the other session''s rows are counted');

-- Statistics as a VACUUM of the emptied table leaves them (autovacuum may not analyze it meanwhile: this
-- transaction's row of pg_class is the one the call reads).
UPDATE pg_class SET reltuples = 0 WHERE oid = 'queen.partitions'::regclass;
SELECT ok(queen.analyze_grown_tables(1000) ? 'queen.partitions', 'the grown table is analyzed');
SELECT cmp_ok((SELECT reltuples FROM pg_class WHERE oid = 'queen.partitions'::regclass), '>=', 3000::real,
              'its statistics now count its rows');
SELECT ok(NOT queen.analyze_grown_tables(1000) ? 'queen.partitions', 'a table counted afresh is not analyzed again');
SELECT is(queen.analyze_grown_tables(1000000000), '[]'::jsonb, 'nothing is due under a floor no table reaches');

SELECT dblink_connect('g', format('host=127.0.0.1 port=%s user=%s dbname=%s', current_setting('port'), current_user, current_database()));
SELECT * FROM t, dblink('g', format('SELECT queen.delete_queue(%L, '''')', q)) AS x(deleted boolean);
SELECT dblink_disconnect('g');

SELECT * FROM finish();
ROLLBACK;
