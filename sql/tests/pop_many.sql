-- pgTAP: queen.pop_many (pop combining)
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(16);

-- push one message m<i> to each of partitions p1..p<n> of p_queue
CREATE FUNCTION pg_temp.push_spread(p_queue text, p_n int) RETURNS void
LANGUAGE sql AS $$
  SELECT count(*) FROM queen.push_messages(
    (SELECT jsonb_agg(jsonb_build_object('queue', p_queue, 'partition', 'p' || i, 'transactionId', 'm' || i) ORDER BY i)
       FROM generate_series(1, p_n) i), NULL, '')
$$;

-- 1. p_requests bounds
SELECT throws_ok($$SELECT * FROM queen.pop_many(0, 't_many', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '')$$, '22023',
                 'requests must be between 1 and 1000 (got 0)', 'zero requests is a clear 22023');
SELECT throws_ok($$SELECT * FROM queen.pop_many(1001, 't_many', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '')$$, '22023',
                 'requests must be between 1 and 1000 (got 1001)', 'more than 1000 requests is a clear 22023');
SELECT throws_ok($$SELECT * FROM queen.pop_many(NULL, 't_many', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '')$$, '22023',
                 'requests must be between 1 and 1000 (got null)', 'null requests is a clear 22023');
SELECT throws_ok($$SELECT * FROM queen.pop_many(2, 't_many', NULL, NULL, 0, 1, false, NULL, NULL, NULL, NULL, '')$$, '22023', NULL,
                 'pop_messages'' own checks still apply');

-- 2. an empty queue (and an unknown one) answers no rows
SELECT queen.configure_queue('t_many', NULL, NULL, '{"leaseTime": 30}', '');
SELECT is((SELECT count(*) FROM queen.pop_many(5, 't_many', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'an empty queue: no rows');
SELECT is((SELECT count(*) FROM queen.pop_many(5, 't_nowhere', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'an unknown queue: no rows');

-- 3. three requests over five one-message partitions: each its own lease, partition, message
SELECT pg_temp.push_spread('t_many', 5);
CREATE TEMP TABLE r1 AS SELECT * FROM queen.pop_many(3, 't_many', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '');
SELECT is((SELECT array_agg(request_idx ORDER BY request_idx) FROM r1), ARRAY[0, 1, 2], 'one row per request, request_idx 0..2');
SELECT is((SELECT count(DISTINCT lease_id) FROM r1), 3::bigint, 'each request gets its own lease id');
SELECT is((SELECT count(DISTINCT partition_id) FROM r1), 3::bigint, 'a later call never claims a partition an earlier call leased');
SELECT is((SELECT count(DISTINCT transaction_id) FROM r1), 3::bigint, 'no message is handed to two requests');
SELECT is((SELECT count(*) FROM r1 JOIN queen.consumers c ON c.partition_id = r1.partition_id
            AND c.consumer_group = '__QUEUE_MODE__' AND c.lease_id = r1.lease_id), 3::bigint,
          'each returned lease is the one recorded on its partition');

-- 4. more requests than claimable partitions: the rest answer empty
CREATE TEMP TABLE r2 AS SELECT * FROM queen.pop_many(10, 't_many', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '');
SELECT is((SELECT array_agg(request_idx ORDER BY request_idx) FROM r2), ARRAY[0, 1], 'two partitions left: two requests served');
SELECT is((SELECT count(*) FROM (SELECT partition_id FROM r1 UNION SELECT partition_id FROM r2) u), 5::bigint,
          'together the two calls leased all five partitions, none twice');

-- 5. a named group with autoAck: every message once, in order, no lease
SELECT queen.configure_queue('t_many_auto', NULL, NULL, '{}', '');
SELECT count(*) FROM queen.push_messages('[{"queue":"t_many_auto","transactionId":"x1"},{"queue":"t_many_auto","transactionId":"x2"},{"queue":"t_many_auto","transactionId":"x3"}]', NULL, '');
CREATE TEMP TABLE r3 AS SELECT * FROM queen.pop_many(4, 't_many_auto', NULL, 'g', 1, 1, true, NULL, NULL, NULL, NULL, '');
SELECT is((SELECT array_agg(transaction_id ORDER BY request_idx) FROM r3), ARRAY['x1', 'x2', 'x3'],
          'autoAck: the calls deliver the partition''s messages in order, each once');
SELECT ok((SELECT bool_and(lease_id IS NULL) FROM r3), 'autoAck: no lease');

-- 6. one request is pop_messages with request_idx 0
SELECT pg_temp.push_spread('t_many', 1);  -- m1 again is a duplicate: nothing new
SELECT is((SELECT count(*) FROM queen.pop_many(1, 't_many', NULL, 'g2', 10, 10, false, NULL, NULL, NULL, NULL, '')), 5::bigint,
          'a single request pops like pop_messages (a new group over ten partitions sees all five)');

SELECT * FROM finish();
ROLLBACK;
