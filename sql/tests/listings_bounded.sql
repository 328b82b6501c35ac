-- pgTAP: listings do work proportional to their limit (list_messages reads about
-- limit rows per partition, not the window), partition_seq_at, and traces_by_name
-- carries a message's payload once per page within the byte budget.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(14);
\ir support/segment_helpers.psql

-- 20,000 messages in one partition, 30 more over three others
SELECT count(*) FROM queen.push_messages(
  (SELECT jsonb_agg(jsonb_build_object('queue', 't_lb', 'transactionId', 'm' || i, 'payload', jsonb_build_object('i', i)))
     FROM generate_series(1, 10000) i), NULL, '');
SELECT count(*) FROM queen.push_messages(
  (SELECT jsonb_agg(jsonb_build_object('queue', 't_lb', 'transactionId', 'n' || i, 'payload', jsonb_build_object('i', i)))
     FROM generate_series(1, 10000) i), NULL, '');
SELECT count(*) FROM queen.push_messages(
  (SELECT jsonb_agg(jsonb_build_object('queue', 't_lb', 'partition', 'p' || (i % 3), 'transactionId', 'x' || i))
     FROM generate_series(1, 30) i), NULL, '');
CREATE TEMP TABLE big AS
  SELECT p.id, p.last_seq FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.name = 't_lb' AND p.name = 'Default';

-- partition_seq_at: bisection over seq, gaps included
SELECT pg_temp.split_segments(id) FROM big;
UPDATE queen.segments s SET created_at = '2020-01-01'::timestamptz + s.base_seq * interval '1 second' FROM big WHERE s.partition_id = big.id;
DELETE FROM queen.segments s USING big WHERE s.partition_id = big.id AND s.base_seq BETWEEN 100 AND 5000;
SELECT is(queen_internal.partition_seq_at(big.id, big.last_seq, '2020-01-01'::timestamptz + interval '7000 seconds'), 7000::bigint,
          'the last seq created at or before the instant') FROM big;
SELECT is(queen_internal.partition_seq_at(big.id, big.last_seq, '2020-01-01'::timestamptz + interval '4000 seconds'), 99::bigint,
          'an instant inside a gap: the last seq before it') FROM big;
SELECT is(queen_internal.partition_seq_at(big.id, big.last_seq, '2019-01-01'), 0::bigint, 'before every message: 0') FROM big;
SELECT is(queen_internal.partition_seq_at(big.id, big.last_seq, '2030-01-01'), big.last_seq, 'after every message: last_seq') FROM big;
-- back to "now" for the listing's default window, in seq order
UPDATE queen.segments s SET created_at = now() - interval '30 minutes' + s.base_seq * interval '1 millisecond' FROM big WHERE s.partition_id = big.id;
-- the other partitions' messages newer than all of those (clock_timestamp() at push could pass the window's end)
SELECT pg_temp.split_segments(p.id) FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id AND q.name = 't_lb'
 WHERE p.id <> (SELECT id FROM big);
UPDATE queen.segments s SET created_at = now() - interval '10 minutes' + s.base_seq * interval '1 millisecond'
  FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id AND q.name = 't_lb'
 WHERE s.partition_id = p.id AND p.id <> (SELECT id FROM big);
UPDATE queen.partitions p SET last_message_at = (SELECT max(m.created_at) FROM queen.stored_messages m WHERE m.partition_id = p.id)
  FROM queen.queues q WHERE q.id = p.queue_id AND q.name = 't_lb';

-- rows read by one listing of 10: the segments table's statistics of this transaction
CREATE FUNCTION pg_temp.messages_rows_read() RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0) FROM pg_stat_xact_user_tables
   WHERE schemaname = 'queen' AND relname = 'segments'
$$;
-- (one listing first: the counters of earlier statements can land late)
SELECT length(queen.list_messages('t_lb', p_limit => 10, p_partition => NULL, p_namespace => NULL, p_task => NULL, p_status => NULL, p_from => NULL, p_to => NULL, p_offset => 0, p_tenant => '')::text) > 0;
CREATE TEMP TABLE reads AS SELECT pg_temp.messages_rows_read() AS before;
CREATE TEMP TABLE page AS SELECT queen.list_messages('t_lb', p_limit => 10, p_partition => NULL, p_namespace => NULL, p_task => NULL, p_status => NULL, p_from => NULL, p_to => NULL, p_offset => 0, p_tenant => '') AS r;
SELECT cmp_ok(pg_temp.messages_rows_read() - (SELECT before FROM reads), '<', 200::bigint,
              'a listing of 10 reads about 10 rows per partition, not the 15,000 of the window');
SELECT is((SELECT array_agg(m ->> 'transactionId') FROM page, jsonb_array_elements(page.r -> 'messages') m),
          (SELECT array_agg(x.transaction_id) FROM (
             SELECT m.transaction_id FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
               JOIN queen.queues q ON q.id = p.queue_id AND q.name = 't_lb'
              ORDER BY m.created_at DESC, m.id DESC LIMIT 10) x),
          'the newest 10 over every partition, as a full sort would give');
SELECT is((SELECT array_agg(m ->> 'transactionId') FROM jsonb_array_elements(queen.list_messages('t_lb', p_limit => 3, p_offset => 2, p_partition => NULL, p_namespace => NULL, p_task => NULL, p_status => NULL, p_from => NULL, p_to => NULL, p_tenant => '') -> 'messages') m),
          (SELECT array_agg(x.transaction_id) FROM (
             SELECT m.transaction_id FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
               JOIN queen.queues q ON q.id = p.queue_id AND q.name = 't_lb'
              ORDER BY m.created_at DESC, m.id DESC LIMIT 3 OFFSET 2) x),
          'offset pages the merged order');
SELECT is((SELECT array_agg(m ->> 'transactionId') FROM jsonb_array_elements(queen.list_messages('t_lb', 'Default',
             p_to => (SELECT created_at FROM queen.stored_messages WHERE transaction_id = 'n5000' AND partition_id = (SELECT id FROM big)),
             p_limit => 2, p_namespace => NULL, p_task => NULL, p_status => NULL, p_from => NULL, p_offset => 0, p_tenant => '') -> 'messages') m),
          ARRAY['n5000', 'n4999'], 'a past p_to starts the page at that instant');

-- status filters: a queue-mode cursor at seq 12000 (completed below), a dead letter above
INSERT INTO queen.consumers (partition_id, consumer_group, queue_id, cursor_seq)
SELECT big.id, '__QUEUE_MODE__', p.queue_id, 12000 FROM big JOIN queen.partitions p ON p.id = big.id
ON CONFLICT ON CONSTRAINT consumers_pkey DO UPDATE SET cursor_seq = 12000;
SELECT queen.dead_letter_message(big.id, 'n3000', '__QUEUE_MODE__', 'boom', '') FROM big;
SELECT length(queen.list_messages('t_lb', p_limit => 10, p_partition => NULL, p_namespace => NULL, p_task => NULL, p_status => NULL, p_from => NULL, p_to => NULL, p_offset => 0, p_tenant => '')::text) > 0;
CREATE TEMP TABLE reads2 AS SELECT pg_temp.messages_rows_read() AS before;
SELECT is((SELECT array_agg(m ->> 'transactionId') FROM jsonb_array_elements(queen.list_messages('t_lb', 'Default', p_status => 'completed', p_limit => 2, p_namespace => NULL, p_task => NULL, p_from => NULL, p_to => NULL, p_offset => 0, p_tenant => '') -> 'messages') m),
          ARRAY['n2000', 'n1999'], 'completed: at or below the cursor, newest first');
SELECT cmp_ok(pg_temp.messages_rows_read() - (SELECT before FROM reads2), '<', 200::bigint,
              'a status filter starts at the cursor instead of scanning the pending rows');
SELECT is((SELECT array_agg(m ->> 'transactionId') FROM jsonb_array_elements(queen.list_messages('t_lb', 'Default', p_status => 'dead_letter', p_namespace => NULL, p_task => NULL, p_from => NULL, p_to => NULL, p_limit => 200, p_offset => 0, p_tenant => '') -> 'messages') m),
          ARRAY['n3000'], 'dead_letter: from the DLQ entries');
SELECT is((SELECT array_agg(m ->> 'transactionId') FROM jsonb_array_elements(queen.list_messages('t_lb', 'Default', p_status => 'pending', p_limit => 1, p_namespace => NULL, p_task => NULL, p_from => NULL, p_to => NULL, p_offset => 0, p_tenant => '') -> 'messages') m),
          ARRAY['n10000'], 'pending: above the cursor');

-- traces_by_name: three traces of one message, one of another
SELECT queen.record_trace(m.partition_id, m.transaction_id, jsonb_build_object('k', g), ARRAY['flow'], 'info', '__QUEUE_MODE__', NULL, '')
  FROM queen.stored_messages m, generate_series(1, 3) g WHERE m.partition_id = (SELECT id FROM big) AND m.transaction_id = 'n10000';
SELECT queen.record_trace(m.partition_id, m.transaction_id, '{"k": 9}', ARRAY['flow'], 'info', '__QUEUE_MODE__', NULL, '')
  FROM queen.stored_messages m WHERE m.partition_id = (SELECT id FROM big) AND m.transaction_id = 'n9999';
SELECT is((SELECT array_agg((t ->> 'transaction_id') || '=' || coalesce(t -> 'message_payload' ->> 'i', 'omitted'))
             FROM jsonb_array_elements(queen.traces_by_name('flow', 100, 0, '') -> 'traces') t),
          ARRAY['n9999=9999', 'n10000=10000', 'n10000=omitted', 'n10000=omitted'],
          'a message''s payload is on one trace of the page (its newest)');
SELECT is((SELECT count(*) FROM jsonb_array_elements(queen.traces_by_name('flow', p_max_payload_bytes => 0, p_limit => 100, p_offset => 0, p_tenant => '') -> 'traces') t
            WHERE (t ->> 'payloadOmitted')::bool AND t -> 'message_payload' = 'null'::jsonb), 4::bigint,
          'budget 0: every payload omitted and marked');

SELECT * FROM finish();
ROLLBACK;
