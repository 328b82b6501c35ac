-- pgTAP: the statistics history (reconcile_stats minute rows, record_broker_minute,
-- prune_stats_history, refresh_stats) and the status/resources/analytics views.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(39);

-- First (this transaction takes the lock itself once it refreshes): while another session holds the statistics lock, a refresh is skipped and a reconciler batch yields.
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT dblink_connect('holder', format('host=127.0.0.1 port=%s user=%s dbname=%s', current_setting('port'), current_user, current_database()));
SELECT dblink_exec('holder', 'BEGIN');
SELECT * FROM dblink('holder', 'SELECT pg_advisory_xact_lock(queen_internal.stats_work_lock_key())::text') AS x(v text);
SELECT is(queen.refresh_stats(), '{"skipped": true, "reason": "another_instance_running"}'::jsonb,
          'refresh_stats is skipped while another writer holds the statistics lock');
SELECT is(queen.reconcile_stats(10, 0), 0, 'a reconciler batch yields to the lock holder');
SELECT dblink_exec('holder', 'ROLLBACK');
SELECT dblink_disconnect('holder');

DELETE FROM queen.queue_stats;
DELETE FROM queen.broker_stats_minutes;
DELETE FROM queen.queues;

-- Tenant '' has queue sv-a (ns n1, task t1) with 6 messages on p1 and p2;
-- tenant 'other' has sv-b with 4 messages.
SELECT count(*) FROM queen.configure_queue('sv-a', 'n1', 't1', '{}', '');
SELECT count(*) FROM queen.push_messages(
  (SELECT jsonb_agg(jsonb_build_object('queue', 'sv-a', 'partition', 'p' || (i % 2 + 1), 'transactionId', 'a' || i))
     FROM generate_series(1, 6) i), '', NULL);
SELECT count(*) FROM queen.push_messages(
  (SELECT jsonb_agg(jsonb_build_object('queue', 'sv-b', 'transactionId', 'b' || i)) FROM generate_series(1, 4) i),
  NULL, 'other');
-- Queue mode consumes 2 (auto-ack) and leases 1 on sv-a.
SELECT count(*) FROM queen.pop_messages('sv-a', 'p1', NULL, 2, 1, true, NULL, NULL, NULL, NULL, '');
SELECT count(*) FROM queen.pop_messages('sv-a', 'p2', NULL, 1, 1, false, NULL, NULL, NULL, NULL, '');

SELECT is(queen.refresh_stats() - 'durationMs',
          '{"skipped": false, "complete": true, "queuesRefreshed": 2}'::jsonb,
          'refresh_stats refreshes every queue and says so');
SELECT results_eq(
  $$SELECT pushed, popped, acked, pending, processing FROM queen.queue_stats_minutes h
      JOIN queen.queues q ON q.id = h.queue_id WHERE q.name = 'sv-a'$$,
  $$VALUES (6::bigint, 3::bigint, 2::bigint, 4::bigint, 1::bigint)$$,
  'the first refresh of a queue counts everything since its creation into the minute row');

-- Two more pushes: the next refresh adds the delta to the same minute.
SELECT count(*) FROM queen.push_messages('[{"queue": "sv-a", "partition": "p1", "transactionId": "a7"},
                                           {"queue": "sv-a", "partition": "p1", "transactionId": "a8"}]', '', NULL);
SELECT is((queen.refresh_stats()->>'queuesRefreshed')::int, 2, 'a second refresh');
SELECT is((SELECT sum(pushed) FROM queen.queue_stats_minutes h JOIN queen.queues q ON q.id = h.queue_id
            WHERE q.name = 'sv-a'), 8::numeric, 'deltas of a later refresh are added, not recounted');
SELECT is((SELECT consumed FROM queen.queue_stats s JOIN queen.queues q ON q.id = s.queue_id WHERE q.name = 'sv-a'),
          2::bigint, 'queue_stats.consumed sums the cursors');

SELECT throws_ok('SELECT queen.refresh_stats(0)', '22023', NULL, 'refresh_stats refuses max queues < 1');
SELECT throws_ok('SELECT queen.reconcile_stats(0)', '22023', NULL, 'reconcile_stats refuses limit < 1');

-- Broker minutes: counters add up, gauges are replaced.
SELECT queen.record_broker_minute('b1', '{"requests": 3, "pushRequests": 1, "pushMessages": 8, "poolSize": 4, "poolInUse": 1, "hostname": "h1", "port": 6632}');
SELECT queen.record_broker_minute('b1', '{"requests": 2, "poolSize": 4, "poolInUse": 3, "hostname": "h1", "port": 6632}');
SELECT results_eq($$SELECT requests, pool_in_use, push_messages FROM queen.broker_stats_minutes WHERE server_id = 'b1'$$,
                  $$VALUES (5::bigint, 3, 8::bigint)$$, 'record_broker_minute adds counters and replaces gauges');
SELECT throws_ok($$SELECT queen.record_broker_minute('', '{}')$$, '22023', NULL, 'a server id is required');
SELECT throws_ok($$SELECT queen.record_broker_minute('b1', '[]')$$, '22023', NULL, 'figures must be an object');

-- Resources.
SELECT is(queen.resources_overview('')->'messages',
          '{"total": 8, "pending": 6, "processing": 1, "completed": 2, "failed": 0, "deadLetter": 0}'::jsonb,
          'overview: the tenant''s counters only');
SELECT is((queen.resources_overview('')->>'queues')::int, 1, 'overview: another tenant''s queue is not counted');
SELECT is((queen.resources_overview('other')->>'queues')::int, 1, 'overview of the other tenant');
SELECT ok(queen.resources_overview('') ?& ARRAY['partitions', 'namespaces', 'tasks', 'lag', 'throughput', 'timestamp', 'statsAge'],
          'overview: every documented key');
SELECT is(jsonb_array_length(queen.resources_queues('', '{}')->'queues'), 1, 'queues: the tenant''s only');
SELECT is(queen.resources_queues('', '{"search": "SV-"}')->'queues'->0->'messages',
          '{"total": 8, "pending": 6, "processing": 1}'::jsonb, 'queues: search is a case-insensitive substring');
SELECT is(jsonb_array_length(queen.resources_queues('', '{"search": "zzz"}')->'queues'), 0, 'queues: search filters');
SELECT is(jsonb_array_length(queen.resources_queues('', '{"limit": 1, "offset": 1}')->'queues'), 0, 'queues: paged');
SELECT is(queen.resources_queue('', '{"queue": "sv-a"}')->'totals'->>'total', '8', 'queue detail: live totals');
SELECT is(jsonb_array_length(queen.resources_queue('', '{"queue": "sv-a"}')->'partitions'), 3, 'queue detail: every partition (Default, p1, p2)');
SELECT is(queen.resources_queue('', '{"queue": "sv-b"}'), NULL, 'queue detail: another tenant''s queue does not exist');
SELECT is(queen.resources_queue('', '{"queue": "sv-a", "limit": 2, "offset": 1}')->'partitions'->0->>'name', 'p1',
          'queue detail: a page of partitions by name');
SELECT is(queen.resources_queue('', '{"queue": "sv-a", "limit": 2, "offset": 1}')->'totals'->>'total', '8',
          'queue detail: totals cover the whole queue, not the page');
SELECT is(queen.status_queue('', '{"queue": "sv-a", "limit": 1, "offset": 0}')->'pagination',
          '{"limit": 1, "offset": 0, "total": 3}'::jsonb, 'status/queue: pagination over the partitions');
SELECT is(queen.resources_namespaces('')->'namespaces'->0->>'namespace', 'n1', 'namespaces');
SELECT is(queen.resources_tasks('')->'tasks'->0->'messages', '{"total": 8, "pending": 6}'::jsonb, 'tasks');

-- Status.
SELECT ok(queen.status_overview('', '{}') ?& ARRAY['timeRange', 'bucketMinutes', 'pointCount', 'throughput', 'queues',
          'messages', 'leases', 'deadLetterQueue', 'workers', 'errors', 'statsAge'], 'status: every documented key');
SELECT is((SELECT sum((p->>'pushed')::int) FROM jsonb_array_elements(queen.status_overview('', '{}')->'throughput') p),
          8::bigint, 'status: the throughput series holds the pushes of the hour');
SELECT is(queen.status_overview('', '{}')->'leases'->>'partitionsWithLeases', '1', 'status: live leases');
SELECT throws_ok($$SELECT queen.status_overview('', '{"fromMs": 2000, "toMs": 1000}')$$, '22023', NULL,
                 'status: from after to is refused');
SELECT is(queen.status_queues('', '{}')->'pagination', '{"limit": 100, "offset": 0, "total": 1}'::jsonb, 'status/queues');
SELECT is(queen.status_queue('', '{"queue": "sv-a"}')->'queue'->'config'->>'leaseTime', '300', 'status/queue: config');
SELECT is(queen.status_queue('other', '{"queue": "sv-a"}'), NULL, 'status/queue: unknown for another tenant');
SELECT is((SELECT array_agg(m->>'status' ORDER BY m->>'transactionId')
             FROM jsonb_array_elements(queen.status_queue_messages('', '{"queue": "sv-a", "limit": 3}')->'messages') m),
          ARRAY['pending', 'pending', 'pending'], 'status/queue/messages: the newest three, pending');
SELECT is(queen.status_analytics('', '{"interval": "minute"}')->'totals'->>'pushed', '8', 'status/analytics totals');
SELECT is(jsonb_array_length(queen.analytics_system_metrics('', '{}')->'replicas'), 1, 'system-metrics: one broker');

-- Pruning: rows older than the kept hours go.
UPDATE queen.broker_stats_minutes SET minute = minute - interval '3 hours';
SELECT is(queen.prune_stats_history(2), 1, 'prune_stats_history deletes rows past the kept hours');

SELECT * FROM finish();
ROLLBACK;
