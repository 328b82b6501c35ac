-- pgTAP: queen_internal.schedule_messages (push items carrying deliverAt become timers).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(27);

-- result shape: the same columns as push_messages
SELECT is(pg_get_function_result('queen_internal.schedule_messages(jsonb, text, text)'::regprocedure),
          pg_get_function_result('queen.push_messages(jsonb, text, text)'::regprocedure),
          'schedule_messages answers with exactly the columns of push_messages');

CREATE TEMP TABLE r1 AS
SELECT * FROM queen_internal.schedule_messages(jsonb_build_array(
  jsonb_build_object('queue', 'tq-sched', 'partition', 'p1', 'payload', jsonb_build_object('n', 1),
                     'transactionId', 'tx-1', 'deliverAt', '2999-01-01T00:00:00Z',
                     'traceId', '0f8fad5b-d9cb-469f-a165-70867728950e', 'encrypted', true,
                     'namespace', 'ns', 'task', 'tk'),
  jsonb_build_object('queue', 'tq-sched', 'partition', 'p1', 'transactionId', 'tx-1', 'deliverAt', 32503680000000),
  jsonb_build_object('queue', 'tq-sched', 'deliverAt', '32503680000000'),
  jsonb_build_object('queue', 'tq-sched', 'partition', 'p1', 'transactionId', 'tx-2', 'deliverAt', 32503680000000,
                     'payload', 'null'::jsonb)
), 'producer-1');

SELECT results_eq('SELECT idx, status FROM r1 ORDER BY idx',
                  $$VALUES (0, 'queued'), (1, 'duplicate'), (2, 'queued'), (3, 'queued')$$,
                  'new keys are queued, a repeat within the call is a duplicate');
SELECT is((SELECT message_id FROM r1 WHERE idx = 1), (SELECT message_id FROM r1 WHERE idx = 0),
          'the in-call duplicate answers the winner''s message id');
SELECT is((SELECT count(DISTINCT message_id)::int FROM r1), 3, 'each queued item has its own message id');
SELECT ok((SELECT bool_and(substr(message_id::text, 15, 1) = '7') FROM r1), 'message ids are UUIDv7');
SELECT ok((SELECT transaction_id ~ '^[0-9a-f-]{36}$' FROM r1 WHERE idx = 2), 'an absent transactionId is minted');
SELECT is((SELECT partition_name FROM r1 WHERE idx = 2), 'Default', 'an absent partition is Default');
SELECT is((SELECT count(*)::int FROM r1 WHERE partition_id IS NOT NULL), 0, 'partition_id is null while the partition does not exist');
SELECT is((SELECT count(*)::int FROM queen.queues WHERE name = 'tq-sched'), 0, 'scheduling does not create the queue (the fire does)');

SELECT results_eq(
  $$SELECT queue_name::text, partition_name::text, namespace, task, transaction_id, payload, trace_id, producer_sub, is_encrypted,
           deliver_at, claimed_by
      FROM queen.timers WHERE transaction_id = 'tx-1'$$,
  $$VALUES ('tq-sched', 'p1', 'ns', 'tk', 'tx-1', '{"n": 1}'::jsonb, '0f8fad5b-d9cb-469f-a165-70867728950e'::uuid,
            'producer-1', true, '2999-01-01T00:00:00Z'::timestamptz, NULL::text)$$,
  'the timer row keeps every field of the item');
SELECT is((SELECT message_id FROM queen.timers WHERE transaction_id = 'tx-1'), (SELECT message_id FROM r1 WHERE idx = 0),
          'the timer holds the message id given to the producer');
SELECT is((SELECT payload FROM queen.timers WHERE transaction_id = 'tx-2'), 'null'::jsonb, 'a JSON null payload stays null');
SELECT is((SELECT deliver_at FROM queen.timers WHERE transaction_id = 'tx-2'), '3000-01-01T00:00:00Z'::timestamptz,
          'deliverAt as epoch milliseconds (number)');
SELECT is((SELECT deliver_at FROM queen.timers WHERE transaction_id = (SELECT transaction_id FROM r1 WHERE idx = 2)),
          '3000-01-01T00:00:00Z'::timestamptz, 'deliverAt as epoch milliseconds (digit string)');

-- scheduling the same key again answers duplicate with the timer's id
SELECT results_eq(
  $$SELECT status, message_id FROM queen_internal.schedule_messages('[{"queue": "tq-sched", "partition": "p1", "transactionId": "tx-1", "deliverAt": "2999-06-01T00:00:00Z"}]')$$,
  $$SELECT 'duplicate'::text, message_id FROM r1 WHERE idx = 0$$,
  'scheduling a pending key again is a duplicate of the pending timer');
SELECT is((SELECT deliver_at FROM queen.timers WHERE transaction_id = 'tx-1'), '2999-01-01T00:00:00Z'::timestamptz,
          '... and does not move the timer');

-- a key already stored as a message is a duplicate of that message
CREATE TEMP TABLE pushed AS
SELECT * FROM queen.push_messages('[{"queue": "tq-sched", "partition": "p1", "transactionId": "tx-stored"}]', NULL, '');
SELECT results_eq(
  $$SELECT status, message_id, partition_id FROM queen_internal.schedule_messages('[{"queue": "tq-sched", "partition": "p1", "transactionId": "tx-stored", "deliverAt": "2999-01-01T00:00:00Z"}]')$$,
  $$SELECT 'duplicate'::text, message_id, partition_id FROM pushed$$,
  'a transactionId already stored in the partition is a duplicate of the stored message');
SELECT is((SELECT count(*)::int FROM queen.timers WHERE transaction_id = 'tx-stored'), 0, '... and no timer is created');
SELECT results_eq(
  $$SELECT status, partition_id FROM queen_internal.schedule_messages('[{"queue": "tq-sched", "partition": "p1", "transactionId": "tx-3", "deliverAt": "2999-01-01T00:00:00Z"}]')$$,
  $$SELECT 'queued'::text, partition_id FROM pushed$$,
  'once the partition exists its id is answered');

-- a live dedup tombstone counts like a stored message
INSERT INTO queen.dedup_tombstones (partition_id, transaction_id, message_id, expires_at)
SELECT partition_id, 'tx-tomb', '01900000-0000-7000-8000-000000000001', now() + interval '1 hour' FROM pushed;
SELECT results_eq(
  $$SELECT status, message_id FROM queen_internal.schedule_messages('[{"queue": "tq-sched", "partition": "p1", "transactionId": "tx-tomb", "deliverAt": "2999-01-01T00:00:00Z"}]')$$,
  $$VALUES ('duplicate'::text, '01900000-0000-7000-8000-000000000001'::uuid)$$,
  'a transactionId inside the dedup window is a duplicate');

-- nothing is a message before it fires
SELECT is((SELECT count(*)::int FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
            JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 'tq-sched'), 1,
          'scheduled items are not messages (only the pushed one is)');

-- validation
SELECT throws_ok($$SELECT * FROM queen_internal.schedule_messages('[{"queue": "tq-sched"}]')$$, '22023',
                 'push item 0: deliverAt is required to schedule a message', 'deliverAt is required');
SELECT throws_ok($$SELECT * FROM queen_internal.schedule_messages('[{"queue": "tq-sched", "deliverAt": "2999-01-01T00:00:00Z"}, {"queue": "tq-sched", "deliverAt": "next tuesday"}]')$$,
                 '22023', NULL, 'an unparsable deliverAt is rejected');
SELECT throws_ok($$SELECT * FROM queen_internal.schedule_messages('[{"queue": "tq-sched", "deliverAt": true}]')$$,
                 '22023', NULL, 'a deliverAt of the wrong type is rejected');
SELECT throws_ok($$SELECT * FROM queen_internal.schedule_messages('[{"deliverAt": "2999-01-01T00:00:00Z"}]')$$,
                 '22023', NULL, 'the push item rules apply (queue is required)');
SELECT is((SELECT count(*)::int FROM queen_internal.schedule_messages('[]')), 0, 'an empty array schedules nothing');
SELECT is(queen_internal.push_item_deliver_at('{"deliverAt": "2025-03-04T09:15:26.123+01:00"}'),
          '2025-03-04T08:15:26.123Z'::timestamptz, 'ISO-8601 with an offset');

SELECT * FROM finish();
ROLLBACK;
