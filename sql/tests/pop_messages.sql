-- pgTAP: queen.pop_messages
-- Everything runs in one transaction, so now() is fixed: leases, retryDelay,
-- windowBuffer and delayedProcessing are tested by popping at a later instant
-- (p_now); message ages that order partitions or precede a subscription's start
-- are set on their segments (pg_temp.age).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(71);
-- Section 13 counts the functions a pop calls. PL/pgSQL compiles a simple expression once per transaction, and
-- whether its function calls are counted is decided then: so counting is on before the first pop.
SET LOCAL track_functions = 'all';

\ir support/pop_helpers.psql
-- move a queue's messages (and partitions' last_message_at) p_age into the past
CREATE FUNCTION pg_temp.age(p_queue text, p_age interval) RETURNS void
LANGUAGE sql AS $$
  UPDATE queen.segments m SET created_at = m.created_at - p_age
    FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
   WHERE p.id = m.partition_id AND q.name = p_queue;
  UPDATE queen.partitions p SET last_message_at = p.last_message_at - p_age
    FROM queen.queues q WHERE q.id = p.queue_id AND q.name = p_queue;
$$;

-- created_at of message p_txid of queue p_queue
CREATE FUNCTION pg_temp.newest(p_queue text, p_txid text) RETURNS timestamptz
LANGUAGE sql AS $$
  SELECT m.created_at FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
    JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = p_queue AND m.transaction_id = p_txid
$$;

-- 1. queue mode: one lease per (partition, group), batch limit, order
SELECT queen.configure_queue('t_pop', NULL, NULL, '{"leaseTime": 30, "retryDelay": 0}', '');
SELECT pg_temp.push('t_pop', 'Default', 3, 'a');
CREATE TEMP TABLE p1 AS SELECT * FROM queen.pop_messages('t_pop', NULL, NULL, 2, 1, false, NULL, NULL, NULL, NULL, '');
SELECT is((SELECT array_agg(transaction_id ORDER BY created_at, transaction_id) FROM p1), ARRAY['a1', 'a2'], 'queue mode returns the oldest messages, batch-limited');
SELECT is((SELECT count(DISTINCT lease_id) FROM p1), 1::bigint, 'all rows share one lease id');
SELECT ok((SELECT bool_and(lease_id IS NOT NULL) FROM p1), 'a lease id is returned');
SELECT is((SELECT payload::jsonb FROM p1 WHERE transaction_id = 'a1'), '{"i": 1}'::jsonb, 'payload returned (its JSON text)');
SELECT is((SELECT array_agg(DISTINCT queue_name || '/' || partition_name) FROM p1), ARRAY['t_pop/Default'], 'queue and partition names returned');
SELECT is((SELECT retry_count FROM p1 LIMIT 1), 0, 'retry_count 0 on a first delivery');
SELECT is((SELECT row(lease_id, lease_count, lease_acked, lease_max_seq, cursor_seq)::text FROM queen.consumers
            WHERE consumer_group = '__QUEUE_MODE__' AND partition_id = (SELECT partition_id FROM p1 LIMIT 1)),
          row((SELECT lease_id FROM p1 LIMIT 1), 2, 0, 2::bigint, 0::bigint)::text, 'the consumer row records lease, n = 2, k = 0, max seq, cursor unchanged');
SELECT is((SELECT lease_expires_at FROM queen.consumers WHERE consumer_group = '__QUEUE_MODE__' AND partition_id = (SELECT partition_id FROM p1 LIMIT 1)),
          now() + interval '30 seconds', 'lease expires after leaseTime');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_pop', NULL, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'a held lease blocks the group on that partition');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_pop', NULL, '__QUEUE_MODE__', 10, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint, '__QUEUE_MODE__ is queue mode');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_pop', NULL, '', 10, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'an empty group is queue mode');

-- 2. consumer groups fan out
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM queen.pop_messages('t_pop', NULL, 'g1', 10, 1, false, NULL, NULL, NULL, NULL, '')), ARRAY['a1', 'a2', 'a3'],
          'a named group has its own cursor and lease (fan-out)');
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM queen.pop_messages('t_pop', NULL, 'g2', 10, 1, false, NULL, NULL, NULL, NULL, '')), ARRAY['a1', 'a2', 'a3'],
          'a second group also receives everything');
SELECT is((SELECT count(*) FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
            WHERE q.name = 't_pop' AND c.lease_id IS NOT NULL), 3::bigint, 'three groups, three leases, one per group');

-- 3. lease expiry frees the partition (not a failure); retryDelay gates it
SELECT is((SELECT count(*) FROM queen.pop_messages('t_pop', NULL, NULL, 10, p_now => now() + interval '29.999 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '')), 0::bigint,
          'the lease holds until leaseTime has passed');
CREATE TEMP TABLE p2 AS SELECT * FROM queen.pop_messages('t_pop', NULL, NULL, 10, p_now => now() + interval '30 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '');
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM p2), ARRAY['a1', 'a2', 'a3'], 'after expiry the batch is redelivered');
SELECT isnt((SELECT lease_id FROM p2 LIMIT 1), (SELECT lease_id FROM p1 LIMIT 1), 'with a new lease id');
SELECT is((SELECT retry_count FROM p2 LIMIT 1), 0, 'expiry does not count as a retry');
SELECT queen.configure_queue('t_delay', NULL, NULL, '{"retryDelay": 5000}', '');
SELECT pg_temp.push('t_delay', 'Default', 1, 'd');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_delay', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '')), 1::bigint, 'first delivery');
-- leaseTime 300 s: the lease expires at now + 300 s, retryDelay gates it 5 s more
SELECT is((SELECT count(*) FROM queen.pop_messages('t_delay', NULL, NULL, 1, p_now => now() + interval '302 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '')), 0::bigint,
          'an expired lease stays blocked until retryDelay passed');
CREATE TEMP TABLE d2 AS SELECT * FROM queen.pop_messages('t_delay', NULL, NULL, 1, p_now => now() + interval '305 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '');
SELECT is((SELECT count(*) FROM d2), 1::bigint, '... and is redelivered after it');
-- a failed ack at now + 306 s gates the partition (available_at) until now + 311 s
SELECT count(*) FROM queen.ack_messages((SELECT jsonb_agg(jsonb_build_object('transactionId', transaction_id, 'partitionId', partition_id,
                                                                            'leaseId', lease_id, 'status', 'failed')) FROM d2),
                                        NULL, p_now => now() + interval '306 seconds', p_tenant => '');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_delay', NULL, NULL, 1, p_now => now() + interval '310.999 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '')), 0::bigint,
          'available_at in the future blocks the claim');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_delay', NULL, NULL, 1, p_now => now() + interval '311 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '')), 1::bigint,
          'available_at reached: claimable');

-- 4. specific partition, unknown names
SELECT pg_temp.push('t_pop', 'p2', 2, 'b');
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM queen.pop_messages('t_pop', 'p2', 'g3', 10, 1, false, NULL, NULL, NULL, NULL, '')), ARRAY['b1', 'b2'],
          'the specific route reads only the named partition');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_pop', 'nope', 'g4', 10, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'unknown partition: nothing');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_nope', NULL, 'g4', 10, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'unknown queue: nothing');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_pop', 'p2', 'g3', 10, 5, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'p_partitions is 1 on the specific route (p2 is leased)');

-- 5. wildcard prefers the partition whose oldest deliverable message is oldest
SELECT queen.configure_queue('t_wild', NULL, NULL, '{}', '');
SELECT pg_temp.push('t_wild', 'young', 2, 'y');
SELECT pg_temp.push('t_wild', 'old', 2, 'o');
UPDATE queen.segments m SET created_at = m.created_at - interval '1 hour' FROM queen.partitions p
 WHERE p.id = m.partition_id AND p.name = 'old' AND p.queue_id = (SELECT id FROM queen.queues WHERE name = 't_wild');
SELECT is((SELECT array_agg(DISTINCT partition_name) FROM queen.pop_messages('t_wild', NULL, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '')), ARRAY['old'],
          'the partition with the oldest waiting message is claimed first');
SELECT is((SELECT array_agg(DISTINCT partition_name) FROM queen.pop_messages('t_wild', NULL, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '')), ARRAY['young'],
          'the next pop takes the next free partition');

-- 5b. a group's first pop creates cursor rows for every partition (pop never looks for partitions without one)
SELECT is((SELECT count(*) FROM queen.pop_messages('t_wild', NULL, 'g_rr', 1, 1, true, NULL, NULL, NULL, NULL, '')), 1::bigint, 'a new group pops one message');
SELECT is((SELECT count(*) FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id
            WHERE p.queue_id = (SELECT id FROM queen.queues WHERE name = 't_wild') AND c.consumer_group = 'g_rr'), 3::bigint,
          'its first pop created cursor rows on both partitions with messages and on the empty Default');
SELECT is((SELECT array_agg(partition_name) FROM queen.pop_messages('t_wild', NULL, 'g_rr', 1, 1, true, NULL, NULL, NULL, NULL, '')), ARRAY['old'],
          'the oldest waiting message wins again');
SELECT is((SELECT array_agg(partition_name) FROM queen.pop_messages('t_wild', NULL, 'g_rr', 1, 1, true, NULL, NULL, NULL, NULL, '')), ARRAY['young'],
          'then the other partition');

-- 6. several partitions in one call: one lease id, a global batch budget
SELECT queen.configure_queue('t_multi', NULL, NULL, '{}', '');
SELECT pg_temp.push('t_multi', 'A', 2, 'ma');
SELECT pg_temp.push('t_multi', 'B', 2, 'mb');
SELECT pg_temp.push('t_multi', 'C', 2, 'mc');
UPDATE queen.segments m SET created_at = m.created_at - CASE p.name WHEN 'A' THEN interval '3 hours' WHEN 'B' THEN interval '2 hours' ELSE interval '1 hour' END
  FROM queen.partitions p WHERE p.id = m.partition_id AND p.queue_id = (SELECT id FROM queen.queues WHERE name = 't_multi');
CREATE TEMP TABLE p3 AS SELECT * FROM queen.pop_messages('t_multi', NULL, NULL, 3, 2, false, NULL, NULL, NULL, NULL, '');
SELECT is((SELECT array_agg(transaction_id) FROM p3), ARRAY['ma1', 'ma2', 'mb1'], 'budget spent partition by partition in claim order, then seq');
SELECT is((SELECT count(DISTINCT lease_id) FROM p3), 1::bigint, 'one lease id across partitions');
SELECT is((SELECT array_agg(p.name || ':' || c.lease_count ORDER BY p.name) FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id
            WHERE c.lease_id = (SELECT lease_id FROM p3 LIMIT 1)), ARRAY['A:2', 'B:1'], 'each claimed partition records its own n');
SELECT is((SELECT array_agg(transaction_id) FROM queen.pop_messages('t_multi', NULL, NULL, 10, 5, false, NULL, NULL, NULL, NULL, '')), ARRAY['mc1', 'mc2'], 'the remaining free partition');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_multi', NULL, NULL, 10, 5, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'all partitions leased: nothing');

-- 7. delayedProcessing and windowBuffer
SELECT queen.configure_queue('t_delayed', NULL, NULL, '{"delayedProcessing": 60}', '');
SELECT pg_temp.push('t_delayed', 'Default', 2, 'dp');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_delayed', NULL, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'delayedProcessing: too young, nothing');
SELECT pg_temp.push('t_delayed', 'Default', 1, 'dp_late');
SELECT is((SELECT array_agg(transaction_id) FROM queen.pop_messages('t_delayed', NULL, NULL, 10,
                                                                    p_now => pg_temp.newest('t_delayed', 'dp1') + interval '60 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '')),
          ARRAY['dp1', 'dp2'], 'only messages old enough are returned');
SELECT queen.configure_queue('t_window', NULL, NULL, '{"windowBuffer": 30}', '');
SELECT pg_temp.push('t_window', 'Default', 2, 'w');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_window', NULL, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'windowBuffer: partition still receiving, nothing');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_window', NULL, NULL, 10,
                                                   p_now => pg_temp.newest('t_window', 'w2') + interval '29.999 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '')), 0::bigint,
          'windowBuffer: not quiet for the whole window yet');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_window', NULL, NULL, 10,
                                                   p_now => pg_temp.newest('t_window', 'w2') + interval '30 seconds', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL, p_tenant => '')), 2::bigint,
          'quiet for the window: the whole backlog at once');

-- 8. subscription modes (named groups only)
SELECT queen.configure_queue('t_sub', NULL, NULL, '{}', '');
SELECT pg_temp.push('t_sub', 'Default', 2, 'old');
SELECT pg_temp.age('t_sub', interval '1 hour');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_sub', NULL, 'g_new', 10, 1, false, 'new', NULL, NULL, NULL, '')), 0::bigint, 'mode new: existing messages are not delivered');
SELECT is((SELECT mode || ' ' || (start_at = now())::text FROM queen.subscriptions WHERE consumer_group = 'g_new'), 'new true',
          'the first pop stores a queue-wide record at now, even with nothing to claim');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_sub', NULL, 'g_newonly', 10, 1, false, 'new-only', NULL, NULL, NULL, '')), 0::bigint, 'new-only behaves like new');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_sub', NULL, 'g_now', 10, 1, false, NULL, 'now', NULL, NULL, '')), 0::bigint, 'subscriptionFrom=now behaves like new');
SELECT pg_temp.push('t_sub', 'Default', 1, 'fresh');
SELECT pg_temp.push('t_sub', 'later', 1, 'fresh_later');
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM queen.pop_messages('t_sub', NULL, 'g_new', 10, 5, false, 'all', NULL, NULL, NULL, '')), ARRAY['fresh1', 'fresh_later1'],
          'the record is sticky: later pops asking for all still start at the join time, also on partitions created later');
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM queen.pop_messages('t_sub', NULL, 'g_all', 10, 5, false, 'all', NULL, NULL, NULL, '')), ARRAY['fresh1', 'fresh_later1', 'old1', 'old2'],
          'mode all: the whole history');
SELECT is((SELECT count(*) FROM queen.subscriptions WHERE consumer_group = 'g_all'), 0::bigint, 'mode all stores no record');
SELECT is((SELECT array_agg(transaction_id ORDER BY transaction_id) FROM queen.pop_messages('t_sub', NULL, 'g_ts', 10, 5, false, NULL, (now() - interval '30 minutes')::text, NULL, NULL, '')),
          ARRAY['fresh1', 'fresh_later1'], 'subscriptionFrom=timestamp: messages created at or after it');
SELECT is((SELECT mode FROM queen.subscriptions WHERE consumer_group = 'g_ts'), 'timestamp', 'a timestamp record is stored');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_sub', NULL, 'g_bad', 10, 5, false, 'new', 'not a time', NULL, NULL, '')), 4::bigint,
          'an unparsable subscriptionFrom wins over the mode and behaves like all');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_sub', NULL, NULL, 10, 5, false, 'new', NULL, NULL, NULL, '')), 4::bigint, 'queue mode ignores subscription parameters');
SELECT is((SELECT array_agg(transaction_id) FROM queen.pop_messages('t_sub', 'later', 'g_part', 10, 1, false, NULL, (now() - interval '30 minutes')::text, NULL, NULL, '')),
          ARRAY['fresh_later1'], 'the specific route works with a timestamp too');
SELECT is((SELECT partition_name FROM queen.subscriptions WHERE consumer_group = 'g_part'), 'later', 'joining through the specific route scopes the record to the partition');

-- 9. autoAck
SELECT queen.configure_queue('t_auto', NULL, NULL, '{}', '');
SELECT pg_temp.push('t_auto', 'Default', 3, 'aa');
CREATE TEMP TABLE p4 AS SELECT * FROM queen.pop_messages('t_auto', NULL, NULL, 2, 1, true, NULL, NULL, NULL, NULL, '');
SELECT is((SELECT count(*) FROM p4 WHERE lease_id IS NULL), 2::bigint, 'autoAck returns messages without a lease id');
SELECT is((SELECT row(c.cursor_seq, c.lease_id IS NULL, c.total_consumed)::text FROM queen.consumers c WHERE c.partition_id = (SELECT partition_id FROM p4 LIMIT 1)),
          '(2,t,2)', 'autoAck moves the cursor, keeps no lease and counts consumption');
SELECT is((SELECT array_agg(transaction_id) FROM queen.pop_messages('t_auto', NULL, NULL, 2, 1, true, NULL, NULL, NULL, NULL, '')), ARRAY['aa3'], 'the next autoAck pop continues after them');

-- 10. namespace/task filter pop, higher priority first
SELECT queen.configure_queue('t_f_low', 'fns', 'job', '{"priority": 1}', '');
SELECT queen.configure_queue('t_f_high', 'fns', 'job', '{"priority": 5}', '');
SELECT queen.configure_queue('t_f_other', 'otherns', 'job', '{"priority": 9}', '');
SELECT pg_temp.push('t_f_low', 'Default', 1, 'fl');
SELECT pg_temp.push('t_f_high', 'Default', 1, 'fh');
SELECT pg_temp.push('t_f_other', 'Default', 1, 'fo');
SELECT pg_temp.age('t_f_low', interval '1 hour');
SELECT is((SELECT array_agg(queue_name) FROM queen.pop_messages(NULL, NULL, 'fg', 10, 1, false, NULL, NULL, 'fns', NULL, '')), ARRAY['t_f_high'],
          'filter pop: higher priority queue first, other namespaces excluded');
SELECT is((SELECT array_agg(queue_name) FROM queen.pop_messages(NULL, NULL, 'fg', 10, 5, false, NULL, NULL, 'fns', 'job', '')), ARRAY['t_f_low'],
          'namespace + task filter, next queue');
SELECT is((SELECT array_agg(queue_name ORDER BY queue_name) FROM queen.pop_messages(NULL, NULL, 'fg2', 10, 5, false, NULL, NULL, NULL, 'job', '')),
          ARRAY['t_f_high', 't_f_low', 't_f_other'], 'task-only filter spans namespaces');
SELECT is((SELECT count(*) FROM queen.pop_messages(NULL, NULL, 'fg3', 10, 1, false, NULL, NULL, 'nothing-here', NULL, '')), 0::bigint, 'no matching queue: nothing');

-- 11. pop maintenance
SELECT queen.set_system_flag('pop_maintenance', true);
SELECT pg_temp.push('t_auto', 'Default', 1, 'pm');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_auto', NULL, 'g_pm', 10, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint, 'pop maintenance: nothing is handed out');
SELECT queen.set_system_flag('pop_maintenance', false);
SELECT is((SELECT count(*) FROM queen.pop_messages('t_auto', NULL, 'g_pm', 10, 1, false, NULL, NULL, NULL, NULL, '')), 4::bigint, 'maintenance off: served again (aa1-3 and pm1)');

-- 12. validation
SELECT throws_ok($$SELECT * FROM queen.pop_messages('t_pop', NULL, NULL, 0, 1, false, NULL, NULL, NULL, NULL, '')$$, '22023', NULL, 'batch < 1 is 22023');
SELECT throws_ok($$SELECT * FROM queen.pop_messages('t_pop', NULL, NULL, 1, 0, false, NULL, NULL, NULL, NULL, '')$$, '22023', NULL, 'partitions < 1 is 22023');
SELECT throws_ok($$SELECT * FROM queen.pop_messages(NULL, NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '')$$, '22023', 'queue or namespace/task is required', 'no queue and no filter is 22023');

-- 13. What a pop runs: the PL/pgSQL functions a steady-state pop calls (queue mode already registered, a free
--     partition to lease from), and how often. Release 1.1.0 folded the queue lookup, the pop maintenance flag,
--     the registration probe and the read-and-lease statement into pop_messages; a call added to this path
--     shows here.
SELECT queen.configure_queue('t_calls', NULL, NULL, '{}', '');
SELECT pg_temp.push('t_calls', 'c1', 2, 'calls-a');
SELECT pg_temp.push('t_calls', 'c2', 2, 'calls-b');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_calls', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '')), 1::bigint,
          'a first pop registers queue mode and leases one message');
CREATE TEMP TABLE pop_calls_before AS
  SELECT schemaname, funcname, calls FROM pg_stat_xact_user_functions WHERE schemaname IN ('queen', 'queen_internal');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_calls', NULL, NULL, 1, 1, false, NULL, NULL, NULL, NULL, '')), 1::bigint,
          'a steady-state pop leases a message of the other partition');
SELECT is(ARRAY(SELECT s.schemaname || '.' || s.funcname || ' x' || (s.calls - coalesce(b.calls, 0))
                  FROM pg_stat_xact_user_functions s
                  LEFT JOIN pop_calls_before b ON b.schemaname = s.schemaname AND b.funcname = s.funcname
                 WHERE s.schemaname IN ('queen', 'queen_internal') AND s.calls > coalesce(b.calls, 0)
                 ORDER BY 1),
          ARRAY['queen.pop_messages x1', 'queen_internal.check_at_least x2',
                'queen_internal.pop_candidates x1', 'queen_internal.pop_claim_partitions x1', 'queen_internal.segment_head x1',
                'queen_internal.segment_messages x1', 'queen_internal.tenant_arg x1'],
          'a steady-state pop calls these functions, each this often');

SELECT * FROM finish();
ROLLBACK;
