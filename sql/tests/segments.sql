-- pgTAP: the log engine's store (queen.segments): append_segment, segment_duplicates, segment_messages.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(37);

SELECT queen.configure_queue('t_seg', NULL, NULL, '{}', '');
CREATE TEMP TABLE part AS
  WITH p AS (INSERT INTO queen.partitions (queue_id, name) SELECT q.id, 'P' FROM queen.queues q WHERE q.tenant = '' AND q.name = 't_seg'
             RETURNING id, queue_id)
  SELECT id, queue_id FROM p;
INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, pending) SELECT id, 'g', queue_id, false FROM part;
CREATE FUNCTION pg_temp.pid() RETURNS uuid LANGUAGE sql AS 'SELECT id FROM part';
CREATE FUNCTION pg_temp.ids(n int) RETURNS uuid[] LANGUAGE sql AS 'SELECT array_agg(queen_internal.uuid_v7()) FROM generate_series(1, n)';
CREATE FUNCTION pg_temp.append(p_txns text[], p_after bigint DEFAULT NULL, p_since timestamptz DEFAULT '-infinity',
                               p_traces uuid[] DEFAULT NULL, p_encrypted boolean[] DEFAULT NULL,
                               p_at timestamptz DEFAULT clock_timestamp())
  RETURNS record LANGUAGE sql AS $$
  SELECT queen_internal.append_segment(pg_temp.pid(), p_at, 'sub-1', pg_temp.ids(cardinality(p_txns)), p_txns,
           ARRAY(SELECT format('{"t": %s}', to_jsonb(t)) FROM unnest(p_txns) t), p_traces, p_encrypted, p_after, p_since)
$$;
CREATE TEMP TABLE r (step int, base_seq bigint, end_seq bigint, duplicate_idx int[], duplicate_ids uuid[]);
CREATE FUNCTION pg_temp.step(p_step int, p_txns text[], p_after bigint DEFAULT NULL, p_since timestamptz DEFAULT '-infinity',
                             p_traces uuid[] DEFAULT NULL, p_encrypted boolean[] DEFAULT NULL,
                             p_at timestamptz DEFAULT clock_timestamp())
  RETURNS void LANGUAGE sql AS $$
  INSERT INTO r SELECT p_step, x.* FROM pg_temp.append(p_txns, p_after, p_since, p_traces, p_encrypted, p_at)
    AS x(base_seq bigint, end_seq bigint, duplicate_idx int[], duplicate_ids uuid[])
$$;
CREATE FUNCTION pg_temp.stored() RETURNS text[] LANGUAGE sql AS $$
  SELECT array_agg(m.transaction_id || '@' || m.seq ORDER BY m.seq) FROM queen_internal.segment_messages(pg_temp.pid(), 0, 1000) m
$$;

-- 1. A first segment: seqs from 1, one row, the partition advanced, its cursor rows pending.
SELECT pg_temp.step(1, ARRAY['a', 'b', 'c'], p_traces => ARRAY['00000000-0000-7000-8000-000000000001'::uuid, NULL, NULL],
                    p_encrypted => ARRAY[false, true, false]);
SELECT is((SELECT (base_seq, end_seq, duplicate_idx, duplicate_ids)::text FROM r WHERE step = 1), '(1,3,{},{})', 'a segment of 3: seqs 1..3, no duplicate');
SELECT is((SELECT count(*) FROM queen.segments WHERE partition_id = pg_temp.pid()), 1::bigint, 'one row for three messages');
SELECT is((SELECT last_seq FROM queen.partitions WHERE id = pg_temp.pid()), 3::bigint, 'last_seq advanced to the segment''s end');
SELECT is((SELECT last_message_at FROM queen.partitions WHERE id = pg_temp.pid()), (SELECT created_at FROM queen.segments WHERE partition_id = pg_temp.pid()),
          'last_message_at is the segment''s created_at');
SELECT is((SELECT pending FROM queen.consumers WHERE partition_id = pg_temp.pid()), true, 'the partition''s cursor row became pending');
SELECT is(pg_temp.stored(), ARRAY['a@1', 'b@2', 'c@3'], 'segment_messages reads them in seq order');
SELECT is((SELECT array_agg(m.payload::jsonb ->> 't' ORDER BY m.seq) FROM queen_internal.segment_messages(pg_temp.pid(), 0, 10) m),
          ARRAY['a', 'b', 'c'], 'payloads read back as the JSON text stored');
SELECT is((SELECT array_agg(m.trace_id::text ORDER BY m.seq) FROM queen_internal.segment_messages(pg_temp.pid(), 0, 10) m),
          ARRAY['00000000-0000-7000-8000-000000000001', NULL, NULL], 'trace ids per message');
SELECT is((SELECT array_agg(m.is_encrypted ORDER BY m.seq) FROM queen_internal.segment_messages(pg_temp.pid(), 0, 10) m),
          ARRAY[false, true, false], 'encryption flags per message');
SELECT is((SELECT array_agg(DISTINCT m.producer_sub) FROM queen_internal.segment_messages(pg_temp.pid(), 0, 10) m), ARRAY['sub-1'], 'the producer');
SELECT is((SELECT (trace_ids IS NULL, encrypted IS NULL) FROM queen.segments WHERE partition_id = pg_temp.pid() AND base_seq = 1)::text, '(f,f)',
          'the arrays of traces and flags are kept when one message has one');

-- 2. Without traces or encrypted messages the optional arrays are not stored.
SELECT pg_temp.step(2, ARRAY['d', 'e'], p_traces => ARRAY[NULL, NULL]::uuid[], p_encrypted => ARRAY[false, false]);
SELECT is((SELECT (trace_ids IS NULL, encrypted IS NULL) FROM queen.segments WHERE partition_id = pg_temp.pid() AND base_seq = 4)::text, '(t,t)',
          'all-null traces and all-false flags are stored as null');
SELECT is((SELECT array_agg((m.trace_id IS NULL) AND NOT m.is_encrypted) FROM queen_internal.segment_messages(pg_temp.pid(), 3, 10) m), ARRAY[true, true],
          'and read back as no trace, not encrypted');

-- 3. Duplicates of stored messages are dropped, the others stored without a gap.
SELECT pg_temp.step(3, ARRAY['x', 'b', 'y', 'e']);
SELECT is((SELECT (base_seq, end_seq, duplicate_idx)::text FROM r WHERE step = 3), '(6,7,"{2,4}")', 'b and e are duplicates; x and y take 6 and 7');
SELECT is((SELECT duplicate_ids FROM r WHERE step = 3),
          ARRAY[(SELECT message_id FROM queen_internal.segment_messages(pg_temp.pid(), 0, 10) WHERE transaction_id = 'b'),
                (SELECT message_id FROM queen_internal.segment_messages(pg_temp.pid(), 0, 10) WHERE transaction_id = 'e')],
          'each duplicate names the stored message');
SELECT is(pg_temp.stored(), ARRAY['a@1', 'b@2', 'c@3', 'd@4', 'e@5', 'x@6', 'y@7'], 'no gap, nothing stored twice');

-- 4. All duplicates: nothing written.
SELECT pg_temp.step(4, ARRAY['a', 'y']);
SELECT is((SELECT (base_seq, end_seq, duplicate_idx)::text FROM r WHERE step = 4), '(,,"{1,2}")', 'every message a duplicate: no seqs');
SELECT is((SELECT count(*) FROM queen.segments WHERE partition_id = pg_temp.pid()), 3::bigint, 'and no segment');
SELECT is((SELECT last_seq FROM queen.partitions WHERE id = pg_temp.pid()), 7::bigint, 'last_seq unchanged');

-- 5. The window: a message stored before p_since is not a duplicate any more.
SELECT pg_temp.step(5, ARRAY['a', 'x'], p_since => (SELECT created_at FROM queen.segments WHERE partition_id = pg_temp.pid() AND base_seq = 4));
SELECT is((SELECT (base_seq, end_seq, duplicate_idx)::text FROM r WHERE step = 5), '(8,8,{2})',
          'a, stored before the window, is stored again; x, inside it, is a duplicate');
-- The scan reads the window only: segments before it are not even fetched.
SELECT is((SELECT array_agg(d.idx) FROM queen_internal.segment_duplicates(pg_temp.pid(), ARRAY['a', 'b', 'z'], NULL,
                                                                         (SELECT created_at FROM queen.segments WHERE partition_id = pg_temp.pid() AND base_seq = 8)) d),
          ARRAY[1], 'segment_duplicates: only the window''s copy of a is found');
SELECT is((SELECT (d.seq, d.message_id = (SELECT message_id FROM queen_internal.segment_messages(pg_temp.pid(), 0, 10) WHERE transaction_id = 'b'))::text
             FROM queen_internal.segment_duplicates(pg_temp.pid(), ARRAY['b'], NULL, '-infinity') d), '(2,t)',
          'a key stored twice (before and inside a window) answers its first copy in the window asked');

-- 6. A caller's vouch: p_after_seq at last_seq skips the scan; below it only the newer segments are read.
SELECT pg_temp.step(6, ARRAY['y'], p_after => 8);
SELECT is((SELECT (base_seq, end_seq, duplicate_idx)::text FROM r WHERE step = 6), '(9,9,{})',
          'vouched up to last_seq, the call is trusted: no scan, y stored (the caller answers for its vouch)');
SELECT is((SELECT array_agg(d.idx) FROM queen_internal.segment_duplicates(pg_temp.pid(), ARRAY['c', 'y', 'x'], 7, '-infinity') d), ARRAY[2],
          'after seq 7 only y (seq 9) is found, not c or x');

-- 7. Reading from the middle of a segment, and p_max across segments.
SELECT is((SELECT array_agg(m.transaction_id || '@' || m.seq ORDER BY m.seq) FROM queen_internal.segment_messages(pg_temp.pid(), 1, 3) m),
          ARRAY['b@2', 'c@3', 'd@4'], 'from inside the first segment, three messages across two segments');
SELECT is((SELECT array_agg(m.seq ORDER BY m.seq) FROM queen_internal.segment_messages(pg_temp.pid(), 7, 100) m), ARRAY[8, 9]::bigint[],
          'after 7: the last two');
SELECT is((SELECT count(*) FROM queen_internal.segment_messages(pg_temp.pid(), 9, 100)), 0::bigint, 'after the last: nothing');

-- 8. A message deleted on its own (null payload and transaction id) is neither delivered nor remembered; a segment
--    emptied by retention (null payloads) is not delivered but its transaction ids still dedup.
UPDATE queen.segments SET payloads[2] = NULL, transaction_ids[2] = NULL WHERE partition_id = pg_temp.pid() AND base_seq = 1;
UPDATE queen.segments SET payloads = NULL WHERE partition_id = pg_temp.pid() AND base_seq = 4;
SELECT is(pg_temp.stored(), ARRAY['a@1', 'c@3', 'x@6', 'y@7', 'a@8', 'y@9'], 'the deleted message and the emptied segment are skipped');
SELECT is((SELECT array_agg(m.seq ORDER BY m.seq) FROM queen_internal.segment_messages(pg_temp.pid(), 1, 2) m), ARRAY[3, 6]::bigint[],
          'p_max counts delivered messages');
SELECT is((SELECT array_agg(d.idx ORDER BY d.idx) FROM queen_internal.segment_duplicates(pg_temp.pid(), ARRAY['b', 'd', 'e'], NULL, '-infinity') d),
          ARRAY[2, 3], 'the deleted b is forgotten; d and e of the emptied segment are remembered');
SELECT is((SELECT (base_seq, duplicate_idx)::text FROM pg_temp.append(ARRAY['b', 'd'])
             AS x(base_seq bigint, end_seq bigint, duplicate_idx int[], duplicate_ids uuid[])), '(10,{2})', 'so b is stored again, d is not');

-- 9. Refusals: nothing is written.
SELECT throws_ok($$SELECT pg_temp.append(ARRAY['k', 'k'])$$, '22023', 'append_segment: the transaction ids of one segment must be distinct',
                 'transaction ids repeated inside one segment are refused');
SELECT throws_ok($$SELECT queen_internal.append_segment(pg_temp.pid(), now(), NULL, pg_temp.ids(2), ARRAY['k1', 'k2'], ARRAY['1'], NULL, NULL, NULL, '-infinity')$$,
                 '22023', NULL, 'arrays of different lengths are refused');
SELECT throws_ok($$SELECT queen_internal.append_segment(pg_temp.pid(), now(), NULL, '{}', '{}', '{}', NULL, NULL, NULL, '-infinity')$$,
                 '22023', NULL, 'an empty segment is refused');
SELECT throws_ok($$SELECT queen_internal.append_segment(gen_random_uuid(), now(), NULL, pg_temp.ids(1), ARRAY['k1'], ARRAY['1'], NULL, NULL, NULL, '-infinity')$$,
                 '22023', NULL, 'an unknown partition is refused');
SELECT is((SELECT last_seq FROM queen.partitions WHERE id = pg_temp.pid()), 10::bigint, 'the refusals wrote nothing');
SELECT throws_ok($$INSERT INTO queen.segments (partition_id, base_seq, end_seq, created_at, message_ids, transaction_ids, payloads)
                   VALUES (pg_temp.pid(), 100, 101, now(), pg_temp.ids(2), ARRAY['k1'], ARRAY['1', '2'])$$,
                 '23514', NULL, 'the table refuses a segment whose arrays do not match its seq range');

SELECT * FROM finish();
ROLLBACK;
