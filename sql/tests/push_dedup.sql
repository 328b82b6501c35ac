-- pgTAP: queen.push_with_dedup's p_dedup (a caller answering for a partition up to a seq) and queen.dedup_keys.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(16);

CREATE FUNCTION pg_temp.push(p_txids text[], p_dedup jsonb DEFAULT NULL) RETURNS text[] LANGUAGE sql AS $$
  SELECT array_agg(r.status || coalesce('@' || r.seq, '') ORDER BY r.idx)
    FROM queen.push_with_dedup((SELECT jsonb_agg(jsonb_build_object('queue', 't_dd', 'partition', 'P', 'transactionId', t))
                                FROM unnest(p_txids) t), NULL, '', p_dedup) r
$$;
SELECT is(pg_temp.push(ARRAY['a', 'b']), ARRAY['queued@1', 'queued@2'], 'a queued item answers its seq');
CREATE TEMP TABLE part AS SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                           WHERE q.name = 't_dd' AND p.name = 'P';
CREATE FUNCTION pg_temp.after(p_seq bigint, p_window_ms bigint DEFAULT 86400000) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('windowMs', p_window_ms, 'after', jsonb_build_object((SELECT id FROM part)::text, p_seq))
$$;

SELECT is(pg_temp.push(ARRAY['b', 'c'], pg_temp.after(1)), ARRAY['duplicate', 'queued@3'],
          'answered for up to seq 1: seq 2 is still read, b is a duplicate');
SELECT is(pg_temp.push(ARRAY['a', 'd'], pg_temp.after(3)), ARRAY['queued@4', 'queued@5'],
          'answered for up to the last seq: nothing is read, the caller''s word stands (a was its to know)');
SELECT is(pg_temp.push(ARRAY['d', 'e']), ARRAY['duplicate', 'queued@6'], 'without p_dedup the whole window is read');
SELECT is(pg_temp.push(ARRAY['b'], '{"windowMs": 0}'), ARRAY['queued@7'], 'a window of 0: nothing is a duplicate any more');
SELECT is(pg_temp.push(ARRAY['f'], jsonb_build_object('after', jsonb_build_object(gen_random_uuid()::text, 99))), ARRAY['queued@8'],
          'a seq for another partition is ignored');
SELECT is((SELECT status FROM queen.push_with_dedup('[{"queue": "t_dd", "partition": "P", "transactionId": "g", "deliverAt": "2999-01-01T00:00:00Z"}]',
                                                   NULL, '', pg_temp.after(8))), 'queued', 'a timer has no seq');
SELECT is((SELECT seq FROM queen.push_messages('[{"queue": "t_dd", "partition": "P", "transactionId": "h", "deliverAt": "2999-01-01T00:00:00Z"}]',
                                                NULL, '')), NULL::bigint, '... as the row of push_messages says');

-- dedup_keys: what a broker loads to answer for a partition
SELECT is((SELECT array_agg(k.transaction_id || '@' || k.seq ORDER BY k.seq) FROM queen.dedup_keys((SELECT id FROM part), NULL, 86400000, 100, '') k),
          ARRAY['a@1', 'b@2', 'c@3', 'a@4', 'd@5', 'e@6', 'b@7', 'f@8'], 'the whole window');
SELECT is((SELECT array_agg(k.seq ORDER BY k.seq) FROM queen.dedup_keys((SELECT id FROM part), 6, 86400000, 100, '') k),
          ARRAY[7, 8]::bigint[], 'after a seq');
SELECT is((SELECT count(*) FROM queen.dedup_keys((SELECT id FROM part), NULL, 86400000, 3, '')), 3::bigint, 'at most the limit');
SELECT is((SELECT count(*) FROM queen.dedup_keys((SELECT id FROM part), NULL, 0, 100, '')), 0::bigint, 'a window of 0 holds nothing');
SELECT is((SELECT count(*) FROM queen.dedup_keys((SELECT id FROM part), NULL, 86400000, 100, 'acme')), 0::bigint,
          'another tenant''s partition holds nothing for it');
SELECT throws_ok($$SELECT * FROM queen.dedup_keys((SELECT id FROM part), NULL, 86400000, 0, '')$$, '22023', NULL, 'a limit below 1 is refused');

-- Without windowMs the session's queen.dedup_window_ms decides (a broker sets it from QUEEN_DEDUP_WINDOW_MS), so
-- push_messages (the spool's replay), transactions and timers use the broker's window too.
SET LOCAL queen.dedup_window_ms = '0';
SELECT is((SELECT status FROM queen.push_messages('[{"queue": "t_dd", "partition": "P", "transactionId": "c"}]', NULL, '')),
          'queued', 'a session window of 0: push_messages stores c again');
RESET queen.dedup_window_ms;
SELECT is((SELECT status FROM queen.push_messages('[{"queue": "t_dd", "partition": "P", "transactionId": "c"}]', NULL, '')),
          'duplicate', 'without the setting the window is 24 hours');
SELECT * FROM finish();
ROLLBACK;
