-- pgTAP: storage quotas per tenant (queen.tenant_usage and its triggers, queen_internal.tenant_quota_limit,
-- QQ429): usage follows inserts, replacements and deletes (give-back), a statement past a quota
-- stores nothing, and a DBA's override wins over the session's default.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(28);

CREATE FUNCTION pg_temp.usage(p_tenant text) RETURNS text LANGUAGE sql AS $$
  SELECT row(kv_keys, kv_bytes, traces, trace_bytes, queues, partitions, consumer_groups)::text
    FROM queen.tenant_usage_of(p_tenant)
$$;

-- KV: keys and bytes (key + value as written)
SELECT queen.kv_set('k1', '"aaaaaaaaaa"', NULL, 'tu_acme');
SELECT is((SELECT row(kv_keys, kv_bytes)::text FROM queen.tenant_usage_of('tu_acme')),
          (SELECT row(1, octet_length(key) + pg_column_size(value))::text FROM queen.kv WHERE tenant = 'tu_acme'),
          'a new key counts one key and its key and value bytes');
SELECT queen.kv_set('k1', '"a"', NULL, 'tu_acme');
SELECT is((SELECT row(kv_keys, kv_bytes)::text FROM queen.tenant_usage_of('tu_acme')),
          (SELECT row(1, octet_length(key) + pg_column_size(value))::text FROM queen.kv WHERE tenant = 'tu_acme'),
          'replacing a value counts the new bytes instead of the old, still one key');
SELECT queen.kv_set('k2', '{"x": [1, 2, 3]}', NULL, 'tu_acme');
SELECT queen.kv_set('k2', '1', NULL, 'tu_other');
SELECT is((SELECT kv_keys FROM queen.tenant_usage_of('tu_acme')), 2::bigint, 'two keys of acme');
SELECT is((SELECT kv_keys FROM queen.tenant_usage_of('tu_other')), 1::bigint, 'another tenant counts its own');
SELECT is((SELECT kv_bytes FROM queen.tenant_usage_of('tu_acme')),
          (SELECT sum(counted_bytes)::bigint FROM queen.kv WHERE tenant = 'tu_acme'), 'usage is the sum of counted_bytes');
SELECT queen.kv_delete('k2', 'tu_acme');
SELECT is((SELECT row(kv_keys, kv_bytes)::text FROM queen.tenant_usage_of('tu_acme')),
          (SELECT row(1, octet_length(key) + pg_column_size(value))::text FROM queen.kv WHERE tenant = 'tu_acme'), 'kv_delete gives the key back');
SELECT queen.kv_set('k3', '"expiring"', 0, 'tu_acme');
SELECT is((SELECT kv_keys FROM queen.tenant_usage_of('tu_acme')), 2::bigint, 'an expired key counts until pruned');
SELECT cmp_ok(queen.kv_prune_expired(1000), '>=', 1, 'the pruner deletes it');
SELECT is((SELECT kv_keys FROM queen.tenant_usage_of('tu_acme')), 1::bigint, 'TTL pruning gives the key back');

-- KV quotas from the session (what a broker connection carries)
SET LOCAL queen.tenant_max_kv_keys = '2';
SELECT lives_ok($$SELECT queen.kv_set('k4', '1', NULL, 'tu_acme')$$, 'up to the keys quota');
SELECT throws_ok($$SELECT queen.kv_set('k5', '1', NULL, 'tu_acme')$$, 'QQ429',
                 'KV keys quota of tenant tu_acme reached (2 kv keys, QUEEN_TENANT_MAX_KV_KEYS)',
                 'a key past the quota is QQ429 naming the quota and its variable');
SELECT is((SELECT count(*)::int FROM queen.kv WHERE tenant = 'tu_acme' AND key = 'k5'), 0, 'and is not stored');
SELECT lives_ok($$SELECT queen.kv_set('k4', '2', NULL, 'tu_acme')$$, 'replacing a key at the keys quota works');
SET LOCAL queen.tenant_max_kv_bytes = '100';
SELECT throws_ok($$SELECT queen.kv_set('k4', to_jsonb(repeat('x', 200)), NULL, 'tu_acme')$$, 'QQ429', NULL,
                 'a value that takes the tenant past its bytes quota is refused');
SELECT is((SELECT value FROM queen.kv_get('k4', 'tu_acme')), '2'::jsonb, 'the stored value is intact');
SELECT lives_ok($$SELECT queen.kv_delete('k4', 'tu_acme')$$, 'giving back never fails, whatever the quota');

-- Overrides: applied when the session turns them on; 0 = unlimited
SELECT queen.set_tenant_quota('tu_acme', p_max_kv_keys => 0);
SET LOCAL queen.tenant_quota_overrides = 'on';
SELECT lives_ok($$SELECT queen.kv_set('k6', '1', NULL, 'tu_acme'), queen.kv_set('k7', '1', NULL, 'tu_acme')$$,
                'an override of 0 lifts the default');
SELECT is(queen_internal.tenant_quota_limit('tu_acme', 'kv_bytes'), 100::bigint, 'a quota without override keeps the default');
RESET queen.tenant_max_kv_keys;
RESET queen.tenant_max_kv_bytes;

-- Traces: rows and bytes; removed with their message
SELECT count(*) FROM queen.push_messages('[{"queue": "tu_q", "transactionId": "m1"}, {"queue": "tu_q", "transactionId": "m2"}]',
                                         NULL, 'tu_acme');
CREATE TEMP TABLE pid AS SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                          WHERE q.name = 'tu_q' AND q.tenant = 'tu_acme';
SELECT queen.record_trace((SELECT id FROM pid), 'm1', '{"step": 1}', p_tenant => 'tu_acme', p_trace_names => '{}', p_event_type => 'info', p_consumer_group => '__QUEUE_MODE__', p_worker_id => NULL);
SELECT queen.record_trace((SELECT id FROM pid), 'm2', '{"step": 2}', p_tenant => 'tu_acme', p_trace_names => '{}', p_event_type => 'info', p_consumer_group => '__QUEUE_MODE__', p_worker_id => NULL);
SELECT is((SELECT row(traces, trace_bytes)::text FROM queen.tenant_usage_of('tu_acme')),
          (SELECT row(2, sum(pg_column_size(data))::bigint)::text FROM queen.message_traces WHERE tenant = 'tu_acme'), 'two traces and their bytes');
SET LOCAL queen.tenant_max_traces = '2';
SELECT throws_ok($$SELECT queen.record_trace((SELECT id FROM pid), 'm1', '{}', p_tenant => 'tu_acme', p_trace_names => '{}', p_event_type => 'info', p_consumer_group => '__QUEUE_MODE__', p_worker_id => NULL)$$, 'QQ429',
                 'traces quota of tenant tu_acme reached (2 traces, QUEEN_TENANT_MAX_TRACES)', 'a trace past the quota');
SELECT queen.delete_message((SELECT id FROM pid), 'm1', 'tu_acme');
SELECT is((SELECT traces FROM queen.tenant_usage_of('tu_acme')), 1::bigint, 'deleting a message gives its traces back');
RESET queen.tenant_max_traces;

-- Queues, partitions, registered consumer groups
SELECT is((SELECT row(queues, partitions)::text FROM queen.tenant_usage_of('tu_acme')), '(1,1)', 'a push created a queue and a partition');
SET LOCAL queen.tenant_max_partitions = '2';
SELECT count(*) FROM queen.push_messages('[{"queue": "tu_q", "partition": "p2"}]', NULL, 'tu_acme');
SELECT throws_ok($$SELECT count(*) FROM queen.push_messages('[{"queue": "tu_q", "partition": "p3"}]', NULL, 'tu_acme')$$,
                 'QQ429', 'partitions quota of tenant tu_acme reached (2 partitions, QUEEN_TENANT_MAX_PARTITIONS)',
                 'a push that would create a partition past the quota stores nothing');
SELECT lives_ok($$SELECT count(*) FROM queen.push_messages('[{"queue": "tu_q", "partition": "p2"}]', NULL, 'tu_acme')$$,
                'pushes to existing partitions go on');
SET LOCAL queen.tenant_max_queues = '1';
SELECT throws_ok($$SELECT queen.configure_queue('tu_q2', NULL, NULL, '{}', 'tu_acme')$$, 'QQ429', NULL,
                 'a queue past the queues quota');
SET LOCAL queen.tenant_max_consumer_groups = '1';
SELECT count(*) FROM queen.pop_messages('tu_q', NULL, 'g1', 1, p_tenant => 'tu_acme', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL);
SELECT throws_ok($$SELECT count(*) FROM queen.pop_messages('tu_q', NULL, 'g2', 1, p_tenant => 'tu_acme', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL)$$, 'QQ429', NULL,
                 'a consumer group past the quota');
SELECT queen.delete_consumer_group('g1', 'tu_q', true, 'tu_acme');
SELECT is((SELECT consumer_groups FROM queen.tenant_usage_of('tu_acme')), 0::bigint, 'deleting a group gives it back');
SELECT queen.delete_queue('tu_q', 'tu_acme');
SELECT is(pg_temp.usage('tu_acme'), '(3,' || (SELECT sum(counted_bytes) FROM queen.kv WHERE tenant = 'tu_acme') || ',0,0,0,0,0)',
          'deleting the queue gives back the queue, its partitions, groups and traces; KV stays');

SELECT * FROM finish();
ROLLBACK;
