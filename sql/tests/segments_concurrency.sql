-- pgTAP: append_segment under real concurrency. Two extra sessions (dblink 'a' and 'b') append to one partition
-- they committed; this session only observes, and deletes what they wrote at the end.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT plan(8);

\set queue_prefix t_segc_
\ir support/dblink_sessions.psql

SELECT dblink_exec('a', format('INSERT INTO queen.partitions (queue_id, name) SELECT id, ''P'' FROM queen.queues WHERE tenant = '''' AND name = %L', q)) FROM t;
CREATE TEMP TABLE part AS SELECT p.id FROM queen.partitions p JOIN queen.queues qq ON qq.id = p.queue_id WHERE qq.name = (SELECT q FROM t) AND p.name = 'P';
-- the append call text for a session: one message per transaction id
CREATE FUNCTION pg_temp.append_sql(p_txns text[]) RETURNS text LANGUAGE sql AS $$
  SELECT format('SELECT (x).base_seq, (x).end_seq, (x).duplicate_idx::text, (x).duplicate_ids::text FROM (SELECT queen_internal.append_segment(%L, clock_timestamp(), NULL, '
                '(SELECT array_agg(queen_internal.uuid_v7()) FROM generate_series(1, %s)), %L, %L, NULL, NULL, NULL, ''-infinity'') AS x) s',
                (SELECT id FROM part), cardinality(p_txns), p_txns, ARRAY(SELECT '{}' FROM unnest(p_txns)))
$$;

-- a appends and holds its transaction open; b, sharing one transaction id, waits for the partition lock, then
-- finds a's committed copy and stores only the rest, after a's segment
SELECT dblink_exec('a', 'BEGIN');
CREATE TEMP TABLE ra AS SELECT * FROM dblink('a', pg_temp.append_sql(ARRAY['same', 'only-a']))
  AS x(base_seq bigint, end_seq bigint, duplicate_idx text, duplicate_ids text);
SELECT is((SELECT (base_seq, end_seq, duplicate_idx)::text FROM ra), '(1,2,{})', 'a stored seqs 1..2 (not committed yet)');
SELECT dblink_send_query('b', pg_temp.append_sql(ARRAY['only-b', 'same']));
SELECT is(pg_temp.waits_for_a_lock('b'), true, 'b waits for the partition lock a holds');
SELECT dblink_exec('a', 'COMMIT');
CREATE TEMP TABLE rb AS SELECT * FROM dblink_get_result('b') AS x(base_seq bigint, end_seq bigint, duplicate_idx text, duplicate_ids text);
SELECT is((SELECT count(*) FROM dblink_get_result('b') AS x(base_seq bigint, end_seq bigint, duplicate_idx text, duplicate_ids text)), 0::bigint,
          'b has no further results');
SELECT is((SELECT (base_seq, end_seq, duplicate_idx)::text FROM rb), '(3,3,{2})', 'b: the shared key is a duplicate, only-b takes seq 3');
SELECT is((SELECT duplicate_ids FROM rb),
          (SELECT format('{%s}', message_id) FROM queen_internal.segment_messages((SELECT id FROM part), 0, 10) WHERE transaction_id = 'same'),
          'b names a''s message');
SELECT is((SELECT array_agg(m.transaction_id || '@' || m.seq ORDER BY m.seq) FROM queen_internal.segment_messages((SELECT id FROM part), 0, 10) m),
          ARRAY['same@1', 'only-a@2', 'only-b@3'], 'one copy of the shared key, seqs without a gap in commit order');

-- a rolled-back append leaves no hole: the next one takes the seq it had
SELECT dblink_exec('a', 'BEGIN');
SELECT * FROM dblink('a', pg_temp.append_sql(ARRAY['rolled-back'])) AS x(base_seq bigint, end_seq bigint, duplicate_idx text, duplicate_ids text);
SELECT dblink_exec('a', 'ROLLBACK');
SELECT is((SELECT (base_seq, end_seq)::text FROM dblink('b', pg_temp.append_sql(ARRAY['after']))
             AS x(base_seq bigint, end_seq bigint, duplicate_idx text, duplicate_ids text)), '(4,4)', 'after a rollback the next segment takes seq 4');
SELECT is((SELECT array_agg(m.transaction_id ORDER BY m.seq) FROM queen_internal.segment_messages((SELECT id FROM part), 0, 10) m),
          ARRAY['same', 'only-a', 'only-b', 'after'], 'the rolled-back message is nowhere');

-- clean up what the other sessions committed
SELECT dblink_exec('a', format('DELETE FROM queen.segments WHERE partition_id = %L', (SELECT id FROM part)));
SELECT * FROM t, dblink('a', format('SELECT queen.delete_queue(%L, '''')::text', q)) AS x(deleted text);
SELECT dblink_disconnect('a');
SELECT dblink_disconnect('b');

SELECT * FROM finish();
ROLLBACK;
