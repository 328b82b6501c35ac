-- pgTAP: the steps of queen.ack_messages (release 1.1.0): queen_internal.ack_item_error and ack_item_action, the
-- judgement of one item, and release_ack_batch, alone; apply_acks answers in lock order (ack_messages in request order); and the two
-- judgement helpers are inlined, so an item costs no function call.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(35);

CREATE TEMP TABLE l AS SELECT gen_random_uuid() AS held, gen_random_uuid() AS failed, gen_random_uuid() AS other;

-- ack_item_error(seq, status, lease_text, lease_given, start_lease_id, start_failed_lease_id)
SELECT is(queen_internal.ack_item_error(NULL, 'bogus', NULL, NULL, NULL, NULL), 'Message not found',
          'no message: Message not found, before the status is looked at');
SELECT is(queen_internal.ack_item_error(5, 'bogus', NULL, NULL, NULL, NULL), 'Invalid status', 'an unknown status');
SELECT is(queen_internal.ack_item_error(5, s, NULL, NULL, held, failed), NULL, 'no lease given: ' || s || ' is valid')
  FROM l, unnest(ARRAY['completed', 'success', 'failed', 'dlq', 'retry']) s;
SELECT is(queen_internal.ack_item_error(5, 'completed', held::text, held, held, failed), NULL, 'the lease held at request start') FROM l;
SELECT is(queen_internal.ack_item_error(5, 'completed', other::text, other, held, failed), 'Invalid or expired lease',
          'another lease') FROM l;
SELECT is(queen_internal.ack_item_error(5, 'completed', held::text, held, NULL, NULL), 'Invalid or expired lease',
          'a lease that has expired (start lease null)') FROM l;
SELECT is(queen_internal.ack_item_error(5, 'completed', 'not-a-uuid', NULL, held, failed), 'Invalid or expired lease',
          'a lease id that is not a uuid') FROM l;
SELECT is(queen_internal.ack_item_error(5, s, failed::text, failed, held, failed), NULL,
          s || ' may name the lease a failure released') FROM l, unnest(ARRAY['failed', 'retry']) s;
SELECT is(queen_internal.ack_item_error(5, s, failed::text, failed, held, failed), 'Invalid or expired lease',
          s || ' may not') FROM l, unnest(ARRAY['completed', 'dlq']) s;

-- ack_item_action(status, seq, cursor_seq, retry_count, retry_limit, failed_here, lease_given, start_lease_id,
--                 start_failed_lease_id)
SELECT is(queen_internal.ack_item_action('retry', 5, 4, 0, 3, false, held, held, NULL), 'give back',
          'retry of an unconsumed message gives the batch back') FROM l;
SELECT is(queen_internal.ack_item_action('retry', 5, 5, 0, 3, false, held, held, NULL), 'none', 'retry of a consumed one: nothing') FROM l;
SELECT is(queen_internal.ack_item_action('failed', 5, 5, 0, 3, false, held, held, NULL), 'none', 'failed of a consumed one: nothing') FROM l;
SELECT is(queen_internal.ack_item_action('failed', 5, 4, 0, 3, false, held, held, NULL), 'fail', 'the first failure of a batch') FROM l;
SELECT is(queen_internal.ack_item_action('failed', 5, 4, 0, 3, true, held, held, NULL), 'none',
          'a second failure in the same request spends no retry') FROM l;
SELECT is(queen_internal.ack_item_action('failed', 5, 4, 1, 3, false, failed, held, failed), 'none',
          'a failure naming the lease a failure already released: no-op') FROM l;
SELECT is(queen_internal.ack_item_action('failed', 5, 4, 1, 3, false, held, held, held), 'fail',
          '... unless that lease is still the one held') FROM l;
SELECT is(queen_internal.ack_item_action('failed', 5, 4, 3, 3, false, held, held, NULL), 'consume',
          'retries exhausted: consumed (and dead-lettered)') FROM l;
SELECT is(queen_internal.ack_item_action('failed', 5, 4, 0, NULL, false, NULL, NULL, NULL), 'consume',
          'no retry limit known: as exhausted, as release 1.0.0');
SELECT is(queen_internal.ack_item_action(s, 5, 4, 0, 3, false, held, held, NULL), 'consume', s || ' consumes')
  FROM l, unnest(ARRAY['completed', 'success', 'dlq']) s;

-- release_ack_batch(c, failed, available_at): the cursor row with its lease released
CREATE TEMP TABLE cur AS
  SELECT jsonb_populate_record(NULL::queen.consumers,
                               jsonb_build_object('cursor_seq', 4, 'lease_id', l.held, 'lease_expires_at', '2030-01-01',
                                                  'retry_count', 1, 'failed_lease_id', l.failed, 'lease_acked', 2)) AS c,
         jsonb_populate_record(NULL::queen.consumers,
                               jsonb_build_object('cursor_seq', 4, 'retry_count', 1, 'failed_lease_id', l.failed)) AS c_free
    FROM l;
SELECT is((SELECT row((r).cursor_seq, (r).lease_id, (r).lease_expires_at, (r).retry_count, (r).failed_lease_id,
                      (r).available_at, (r).lease_acked)::text
             FROM (SELECT queen_internal.release_ack_batch(c, false, '2031-01-01') AS r FROM cur) x),
          '(4,,,1,' || (SELECT failed FROM l) || ',,2)', 'give back: only the lease goes');
SELECT is((SELECT row((r).cursor_seq, (r).lease_id, (r).lease_expires_at, (r).retry_count, (r).failed_lease_id,
                      (r).available_at = '2031-01-01', (r).lease_acked)::text
             FROM (SELECT queen_internal.release_ack_batch(c, true, '2031-01-01') AS r FROM cur) x),
          '(4,,,2,' || (SELECT held FROM l) || ',t,2)',
          'a first failure: the lease goes and is remembered as failed, a retry is spent, the retryDelay gate set');
SELECT is((SELECT row((r).lease_id, (r).retry_count, (r).failed_lease_id, (r).available_at = '2031-01-01')::text
             FROM (SELECT queen_internal.release_ack_batch(c_free, true, '2031-01-01') AS r
                     FROM cur) x),
          '(,2,' || (SELECT failed FROM l) || ',t)', 'a failure without a lease still spends a retry and sets the gate');
SELECT is((SELECT queen_internal.release_ack_batch(c_free, false, NULL)::text = c_free::text
             FROM cur), true, 'give back without a lease: unchanged');

-- apply_acks: one row per item in lock order (partition, seq); ack_messages answers in request order.
SELECT count(*) FROM queen.push_messages('[{"queue": "t_ack_steps", "transactionId": "s1", "payload": {}},
                                           {"queue": "t_ack_steps", "transactionId": "s2", "payload": {}}]', NULL, '');
CREATE TEMP TABLE popped AS SELECT * FROM queen.pop_messages('t_ack_steps', NULL, NULL, 2, 1, false, NULL, NULL, NULL, NULL, '');
CREATE TEMP TABLE acks AS
  SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id, 'leaseId', lease_id)
                   ORDER BY transaction_id DESC) AS a
    FROM popped;
SET LOCAL track_functions = 'all';
CREATE TEMP TABLE calls_before AS SELECT funcname, calls FROM pg_stat_xact_user_functions WHERE schemaname = 'queen_internal';
SAVEPOINT steps;
SELECT is(ARRAY(SELECT idx || ':' || transaction_id || ':' || success
                  FROM queen_internal.apply_acks((SELECT a FROM acks), '__QUEUE_MODE__', '', now())),
          ARRAY['1:s1:true', '0:s2:true'], 'apply_acks answers in lock order');
ROLLBACK TO SAVEPOINT steps;
SELECT is(ARRAY(SELECT idx || ':' || transaction_id || ':' || success || ':' || lease_released
                  FROM queen.ack_messages((SELECT a FROM acks), NULL, '')),
          ARRAY['0:s2:true:true', '1:s1:true:false'], 'ack_messages answers in request order');
SELECT ok((SELECT calls FROM pg_stat_xact_user_functions WHERE schemaname = 'queen_internal' AND funcname = 'apply_acks') > 0,
          'calls of helpers are counted here (apply_acks is one)');
SELECT is(ARRAY(SELECT s.funcname::text FROM pg_stat_xact_user_functions s
                 WHERE s.schemaname = 'queen_internal' AND s.funcname IN ('ack_item_error', 'ack_item_action', 'uuid_or_null')
                   AND s.calls > coalesce((SELECT b.calls FROM calls_before b WHERE b.funcname = s.funcname), 0)),
          '{}'::text[], 'the judgement of an item is inlined: no call of ack_item_error, ack_item_action or uuid_or_null');

SELECT * FROM finish();
ROLLBACK;
