-- pgTAP: consumer-group administration (queen.list_consumer_groups, lagging_consumer_groups,
-- consumer_group_detail, delete_consumer_group, set_subscription_start, seek_consumer_group,
-- seek_partition_to_end) and pop's work list after a seek.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(54);
\ir support/segment_helpers.psql

-- cursor_seq, pending and lease of (queue, partition, group); null = no cursor row
CREATE FUNCTION pg_temp.cursor(p_queue text, p_partition text, p_group text)
RETURNS TABLE (cursor_seq bigint, pending bool, lease_id uuid)
LANGUAGE sql AS $$
  SELECT c.cursor_seq, c.pending, c.lease_id
    FROM queen.consumers c JOIN queen.partitions p ON p.id = c.partition_id JOIN queen.queues q ON q.id = p.queue_id
   WHERE q.name = p_queue AND p.name = p_partition AND c.consumer_group = p_group
$$;
CREATE FUNCTION pg_temp.popped(p_queue text, p_group text, p_auto_ack bool DEFAULT false) RETURNS text[]
LANGUAGE sql AS $$
  SELECT coalesce(array_agg(transaction_id ORDER BY partition_name, created_at), '{}')
    FROM queen.pop_messages(p_queue, NULL, p_group, 100, 10, p_auto_ack, NULL, NULL, NULL, NULL, '')
$$;
-- the work-list invariant over every cursor row
CREATE FUNCTION pg_temp.violations() RETURNS bigint
LANGUAGE sql AS $$
  SELECT count(*) FROM queen.consumers c
   WHERE NOT c.pending
     AND EXISTS (SELECT 1 FROM queen.stored_messages m WHERE m.partition_id = c.partition_id AND m.seq > c.cursor_seq)
$$;

-- t_cg: Default holds m1, m2, m3 created at t0 + 1 h, + 2 h, + 3 h; p2 holds x1 at t0 + 1 h.
SELECT count(*) FROM queen.push_messages('[
  {"queue": "t_cg", "transactionId": "m1"}, {"queue": "t_cg", "transactionId": "m2"},
  {"queue": "t_cg", "transactionId": "m3"}, {"queue": "t_cg", "partition": "p2", "transactionId": "x1"},
  {"queue": "t_cg_other", "transactionId": "o1"}]', NULL, '');
SELECT pg_temp.split_queue_segments('t_cg'), pg_temp.split_queue_segments('t_cg_other');
UPDATE queen.segments s SET created_at = '2020-01-01T00:00:00Z'::timestamptz + x.hours * interval '1 hour'
  FROM (VALUES ('m1', 1), ('m2', 2), ('m3', 3), ('x1', 1), ('o1', 1)) x(txid, hours)
 WHERE x.txid = ANY (s.transaction_ids);
UPDATE queen.partitions p SET last_message_at = (SELECT max(m.created_at) FROM queen.stored_messages m WHERE m.partition_id = p.id)
 WHERE p.queue_id IN (SELECT id FROM queen.queues WHERE name IN ('t_cg', 't_cg_other'));

-- group g consumes everything (autoAck), group h joins "new" and holds a lease on nothing yet
SELECT is(pg_temp.popped('t_cg', 'g', true), ARRAY['m1', 'm2', 'm3', 'x1'], 'setup: g consumes the queue');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_cg', NULL, 'h', 100, 10, false, 'new', NULL, NULL, NULL, '')), 0::bigint, 'setup: h joins now and sees nothing');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_cg_other', NULL, NULL, 10, 1, false, NULL, NULL, NULL, NULL, '')), 1::bigint, 'setup: queue mode leases o1');

-- listing
SELECT is((SELECT e FROM jsonb_array_elements(queen.list_consumer_groups('', '2020-01-01T05:00:00Z')) e
            WHERE e ->> 'name' = 'g' AND e ->> 'queueName' = 't_cg'),
          '{"name": "g", "queueName": "t_cg", "topics": ["t_cg"], "members": 2, "partitionsWithLag": 0, "totalLag": 0,
            "maxTimeLag": 0, "state": "Stable", "subscriptionMode": "all", "subscriptionTimestamp": null,
            "subscriptionCreatedAt": null}'::jsonb,
          'list: one object per (group, queue), camelCase, no lag once consumed');
SELECT is((SELECT e - 'subscriptionTimestamp' - 'subscriptionCreatedAt' FROM jsonb_array_elements(queen.list_consumer_groups('', '2020-01-01T05:00:00Z')) e
            WHERE e ->> 'name' = 'h'),
          '{"name": "h", "queueName": "t_cg", "topics": ["t_cg"], "members": 2, "partitionsWithLag": 0, "totalLag": 0,
            "maxTimeLag": 0, "state": "Dead", "subscriptionMode": "new"}'::jsonb,
          'list: a group that never consumed is Dead; its subscription mode is shown');
SELECT ok((SELECT (e ->> 'subscriptionTimestamp') ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'
             FROM jsonb_array_elements(queen.list_consumer_groups('')) e WHERE e ->> 'name' = 'h'),
          'list: timestamps in millisecond ISO-8601 with Z');
SELECT is((SELECT e - 'subscriptionTimestamp' - 'subscriptionCreatedAt' FROM jsonb_array_elements(queen.list_consumer_groups('', '2020-01-01T05:00:00Z')) e
            WHERE e ->> 'name' = '__QUEUE_MODE__'),
          '{"name": "__QUEUE_MODE__", "queueName": "t_cg_other", "topics": ["t_cg_other"], "members": 1,
            "partitionsWithLag": 1, "totalLag": 1, "maxTimeLag": 14400, "state": "Dead", "subscriptionMode": "all"}'::jsonb,
          'list: queue mode appears as __QUEUE_MODE__ with its lag');
SELECT is(queen.list_consumer_groups('another-tenant'), '[]'::jsonb, 'list: another tenant sees none of it');

-- lagging
SELECT is((SELECT jsonb_agg(e - 'worker_id') FROM jsonb_array_elements(queen.lagging_consumer_groups(3600, '', '2020-01-01T05:00:00Z')) e),
          jsonb_build_array(jsonb_build_object(
            'consumer_group', '__QUEUE_MODE__', 'queue_name', 't_cg_other', 'partition_name', 'Default',
            'partition_id', (SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_cg_other'),
            'offset_lag', 1, 'time_lag_seconds', 14400, 'lag_hours', 4.00,
            'oldest_unconsumed_at', '2020-01-01T01:00:00.000Z', 'last_consumed_at', NULL)),
          'lagging: snake_case rows of partitions whose oldest unconsumed message is old enough ');
SELECT is(queen.lagging_consumer_groups(20000, '', '2020-01-01T05:00:00Z'), '[]'::jsonb, 'lagging: minLagSeconds filters');
SELECT is((SELECT e ->> 'worker_id' IS NOT NULL FROM jsonb_array_elements(queen.lagging_consumer_groups(0, '')) e
            WHERE e ->> 'queue_name' = 't_cg_other'), true, 'lagging: a live lease is the worker');
SELECT throws_ok($$SELECT queen.lagging_consumer_groups(-1, '')$$, '22023', NULL, 'lagging: negative minimum is 22023');

-- detail
SELECT is(((queen.consumer_group_detail('g', '', '2020-01-01T05:00:00Z') #> '{t_cg,partitions,0}'::text[]) - 'lastConsumedAt'::text),
          '{"partition": "Default", "workerId": null, "totalConsumed": 3, "offsetLag": 0, "timeLagSeconds": 0, "leaseActive": false}'::jsonb,
          'detail: object keyed by queue, one entry per partition');
SELECT is((SELECT array_agg(k) FROM jsonb_object_keys(queen.consumer_group_detail('g', '')) k), ARRAY['t_cg'], 'detail: only the queues of the group');
SELECT is(queen.consumer_group_detail('nobody', ''), '{}'::jsonb, 'detail: unknown group is {}');
SELECT is(queen.consumer_group_detail('g', 'another-tenant'), '{}'::jsonb, 'detail: another tenant sees {}');

-- seek backwards to a timestamp: the cursor goes to the last message at or before it, pending, next pop sees the rest
SELECT is(queen.seek_consumer_group('g', 't_cg', false, '2020-01-01T01:00:00Z', ''), 2, 'seek: both partitions of the group move');
SELECT is((SELECT row(cursor_seq, pending, lease_id)::text FROM pg_temp.cursor('t_cg', 'Default', 'g')), '(1,t,)',
          'seek: cursor on the last message created at or before the timestamp, pending');
SELECT is((SELECT cursor_seq FROM pg_temp.cursor('t_cg', 'p2', 'g')), 1::bigint, 'seek: inclusive bound (x1 is at the timestamp)');
SELECT is(pg_temp.violations(), 0::bigint, 'seek: the work-list invariant holds');
SELECT is(pg_temp.popped('t_cg', 'g'), ARRAY['m2', 'm3'], 'seek: the very next pop returns the re-exposed messages');
SELECT isnt((SELECT lease_id FROM pg_temp.cursor('t_cg', 'Default', 'g')), NULL, 'setup: g holds a lease again');
SELECT is(queen.seek_consumer_group('g', 't_cg', false, '2019-01-01T00:00:00Z', ''), 2, 'seek before every message');
SELECT is((SELECT row(cursor_seq, pending, lease_id)::text FROM pg_temp.cursor('t_cg', 'Default', 'g')), '(0,t,)',
          'seek: nothing consumed, lease dropped');
SELECT is(pg_temp.popped('t_cg', 'g', true), ARRAY['m1', 'm2', 'm3', 'x1'], 'seek: everything is delivered again');

-- seek to the end: cursor at last_seq, lease dropped, settled
SELECT is(cardinality(pg_temp.popped('t_cg', 'h')), 0, 'h has nothing');
SELECT is(queen.seek_consumer_group('g', 't_cg', false, '2019-01-01T00:00:00Z', ''), 2, 'seek back once more');
SELECT is(cardinality(pg_temp.popped('t_cg', 'g')), 4, 'g leases the messages again');
SELECT is(queen.seek_consumer_group('g', 't_cg', true, NULL, ''), 2, 'seek to end');
SELECT is((SELECT row(cursor_seq, pending, lease_id)::text FROM pg_temp.cursor('t_cg', 'Default', 'g')), '(3,f,)',
          'seek to end: cursor on the newest message, no lease, settled');
SELECT is(cardinality(pg_temp.popped('t_cg', 'g')), 0, 'seek to end: nothing left to pop');
SELECT is(queen.seek_consumer_group('g', 't_nope', true, NULL, ''), 0, 'seek: unknown queue moves nothing');
SELECT is(queen.seek_consumer_group('g', 't_cg', true, NULL, 'another-tenant'), 0, 'seek: another tenant''s queue does not exist');
SELECT throws_ok($$SELECT queen.seek_consumer_group('g', 't_cg', false, NULL, '')$$, '22023',
                 'Must specify either ''toEnd'': true or ''timestamp''', 'seek: neither toEnd nor timestamp is 22023');

-- seek one partition to its end
SELECT is(queen.seek_consumer_group('g', 't_cg', false, '2019-01-01T00:00:00Z', ''), 2, 'seek back before the partition seek');
SELECT is((SELECT row(partition_found, cursor_moved_to)::text FROM queen.seek_partition_to_end('g', 't_cg', 'p2', '')),
          (SELECT row(true, '2020-01-01T01:00:00Z'::timestamptz)::text), 'partition seek: found, cursor on the newest message');
SELECT is((SELECT row(cursor_seq, pending)::text FROM pg_temp.cursor('t_cg', 'p2', 'g')), '(1,f)', 'partition seek: settled');
SELECT is(pg_temp.popped('t_cg', 'g', true), ARRAY['m1', 'm2', 'm3'], 'partition seek: the other partition is untouched');
SELECT is((SELECT row(partition_found, cursor_moved_to)::text FROM queen.seek_partition_to_end('g', 't_cg', 'nope', '')), '(f,)',
          'partition seek: unknown partition');
SELECT is((SELECT partition_found FROM queen.seek_partition_to_end('fresh', 't_cg', 'Default', '')), true,
          'partition seek: a group without a cursor there gets one');
SELECT is((SELECT cursor_seq FROM pg_temp.cursor('t_cg', 'Default', 'fresh')), 3::bigint, 'partition seek: at the end');

-- subscription start
SELECT is(queen.set_subscription_start('h', '2020-01-01T02:30:00Z', ''), 1, 'subscription: the group''s record is rewritten');
SELECT is((SELECT row(mode, start_at)::text FROM queen.subscriptions WHERE consumer_group = 'h'),
          (SELECT row('timestamp', '2020-01-01T02:30:00Z'::timestamptz)::text), 'subscription: mode timestamp at the new start');
SELECT is(queen.set_subscription_start('h', now(), 'another-tenant'), 0, 'subscription: another tenant updates nothing');

-- delete: cursors, registration and (with metadata) subscription records; a re-created group starts fresh
SELECT is(queen_internal.lock_group_queues(ARRAY(SELECT id FROM queen.queues WHERE name IN ('t_cg', 't_cg_other')), 'g'),
          ARRAY(SELECT id FROM queen.queues WHERE name = 't_cg'), 'delete locks only the queues the group is on');
SELECT is(queen.delete_consumer_group('h', 't_cg', false, ''), 2, 'delete per queue: cursor rows removed');
SELECT is((SELECT count(*) FROM queen.consumer_groups g JOIN queen.queues q ON q.id = g.queue_id WHERE q.name = 't_cg' AND g.consumer_group = 'h')
          + (SELECT count(*) FROM queen.consumers WHERE consumer_group = 'h'), 0::bigint, 'delete: registration and cursors gone');
SELECT is(pg_temp.popped('t_cg', 'h'), ARRAY['m3'], 'delete without metadata: the re-created group starts at its kept subscription');
SELECT is(queen.delete_consumer_group('h', NULL, true, ''), 2, 'delete everywhere');
SELECT is((SELECT count(*) FROM queen.subscriptions WHERE consumer_group = 'h'), 0::bigint, 'delete with metadata: records gone');
SELECT is(pg_temp.popped('t_cg', 'h'), ARRAY['m1', 'm2', 'm3', 'x1'], 'a re-created group starts fresh (whole history)');
SELECT is(queen.delete_consumer_group('nobody', NULL, true, ''), 0, 'delete: unknown group removes nothing');
SELECT is(queen.delete_consumer_group('g', NULL, true, 'another-tenant'), 0, 'delete: another tenant removes nothing');
SELECT throws_ok($$SELECT queen.delete_consumer_group('', NULL, true, '')$$, '22023', NULL, 'delete: empty group is 22023');

SELECT * FROM finish();
ROLLBACK;
