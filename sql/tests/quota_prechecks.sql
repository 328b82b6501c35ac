-- pgTAP: every storage quota the database enforces is checked before the row is written (quota_prechecks,
-- apply_stream_state_ops): a write refused with QQ429 inserts and updates no tuple of its table, writes no
-- TOAST chunk and grows no relation. The counts are this transaction's (pg_stat_get_xact_tuples_*), which
-- include what a rolled-back subtransaction attempted: that is how a row written and then refused shows.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(36);

-- Tuples inserted or updated in the table and in its TOAST relation by this transaction, and their sizes.
CREATE FUNCTION pg_temp.written(p_rel regclass) RETURNS text LANGUAGE sql AS $$
  SELECT format('%s tuples, %s TOAST chunks, %s bytes',
                pg_stat_get_xact_tuples_inserted(c.oid) + pg_stat_get_xact_tuples_updated(c.oid),
                CASE WHEN c.reltoastrelid = 0 THEN 0 ELSE pg_stat_get_xact_tuples_inserted(c.reltoastrelid) END,
                pg_relation_size(c.oid)
                + CASE WHEN c.reltoastrelid = 0 THEN 0 ELSE pg_relation_size(c.reltoastrelid) END)
    FROM pg_class c WHERE c.oid = p_rel
$$;
-- An incompressible JSON string of about p_kib KiB (pglz would shrink a repeated one to nothing).
CREATE FUNCTION pg_temp.noise(p_kib int) RETURNS jsonb LANGUAGE sql AS $$
  SELECT to_jsonb(string_agg(md5(i::text || random()::text), '')) FROM generate_series(1, p_kib * 32) i
$$;
CREATE TEMP TABLE seen (rel regclass PRIMARY KEY, before text);
CREATE FUNCTION pg_temp.mark(VARIADIC p_rels regclass[]) RETURNS void LANGUAGE sql AS $$
  DELETE FROM seen;
  INSERT INTO seen SELECT r, pg_temp.written(r) FROM unnest(p_rels) r;
$$;
-- The relations marked whose counts moved since the mark ('' = none).
CREATE FUNCTION pg_temp.moved() RETURNS text LANGUAGE sql AS $$
  SELECT coalesce(string_agg(format('%s: %s -> %s', rel, before, pg_temp.written(rel)), '; ' ORDER BY rel::text), '')
    FROM seen WHERE pg_temp.written(rel) IS DISTINCT FROM before
$$;

-- ------------------------------------------------------------------- KV
SELECT queen.kv_set('k1', pg_temp.noise(64), NULL, 'qp_acme');
SELECT queen.kv_set('k2', '1', NULL, 'qp_acme');
SET LOCAL queen.tenant_max_kv_keys = '2';
SELECT set_config('queen.tenant_max_kv_bytes', (SELECT kv_bytes + 1000 FROM queen.tenant_usage_of('qp_acme'))::text, true);

SELECT pg_temp.mark('queen.kv', 'queen.tenant_usage');
SELECT throws_ok($$SELECT queen.kv_set('k3', '1', NULL, 'qp_acme')$$, 'QQ429',
                 'KV keys quota of tenant qp_acme reached (2 kv keys, QUEEN_TENANT_MAX_KV_KEYS)',
                 'a new key past the keys quota: QQ429 with the message as before');
SELECT is(pg_temp.moved(), '', '... and nothing was written: no KV tuple, no usage row');

SET LOCAL queen.tenant_max_kv_keys = '0';
SELECT pg_temp.mark('queen.kv', 'queen.tenant_usage');
SELECT throws_ok($$SELECT queen.kv_set('k3', pg_temp.noise(256), NULL, 'qp_acme')$$, 'QQ429',
                 format('KV bytes quota of tenant qp_acme reached (%s bytes, QUEEN_TENANT_MAX_KV_BYTES)',
                        current_setting('queen.tenant_max_kv_bytes')),
                 'a new 256 KiB value past the bytes quota: QQ429');
SELECT is(pg_temp.moved(), '', '... no KV tuple, no TOAST chunk, no relation growth');

SELECT pg_temp.mark('queen.kv', 'queen.tenant_usage');
SELECT throws_ok($$SELECT queen.kv_set('k1', pg_temp.noise(256), NULL, 'qp_acme')$$, 'QQ429', NULL,
                 'replacing a value with a larger one past the bytes quota (ON CONFLICT DO UPDATE): QQ429');
SELECT is(pg_temp.moved(), '', '... no new tuple version, no TOAST chunk');
SELECT is((SELECT octet_length(value::text) FROM queen.kv WHERE tenant = 'qp_acme' AND key = 'k1'), 64 * 1024 + 2,
          '... and the old value is intact');

SELECT lives_ok($$SELECT queen.kv_set('k1', pg_temp.noise(60), NULL, 'qp_acme')$$,
                'replacing a value with a smaller one at the quota works');
SELECT lives_ok($$SELECT queen.kv_set('k2', to_jsonb(repeat('y', 200)), NULL, 'qp_acme')$$,
                'growing a value by what the smaller one gave back works (growth is new minus old)');
SET LOCAL queen.tenant_max_kv_keys = '3';
SELECT lives_ok($$SELECT queen.kv_set('k3', '1', NULL, 'qp_acme')$$, 'a new key up to the quota works');
SELECT is((SELECT row(kv_keys, kv_bytes)::text FROM queen.tenant_usage_of('qp_acme')),
          (SELECT row(count(*), sum(counted_bytes))::text FROM queen.kv WHERE tenant = 'qp_acme'),
          'usage stays exact: the keys and bytes stored');
SELECT lives_ok($$SELECT queen.kv_set('k3', '2', NULL, 'qp_acme')$$, 'replacing a key at the keys quota works');
RESET queen.tenant_max_kv_keys;
RESET queen.tenant_max_kv_bytes;

-- --------------------------------------------------------------- traces
SELECT count(*) FROM queen.push_messages('[{"queue": "qp_q", "transactionId": "m1"}]', NULL, 'qp_acme');
CREATE TEMP TABLE pid AS SELECT p.id FROM queen.partitions p JOIN queen.queues q ON q.id = p.queue_id
                          WHERE q.name = 'qp_q' AND q.tenant = 'qp_acme';
CREATE FUNCTION pg_temp.trace(p_data jsonb) RETURNS uuid LANGUAGE sql AS $$
  SELECT queen.record_trace((SELECT id FROM pid), 'm1', p_data, p_tenant => 'qp_acme', p_trace_names => '{}',
                            p_event_type => 'info', p_consumer_group => '__QUEUE_MODE__', p_worker_id => NULL)
$$;
SELECT pg_temp.trace('{"step": 1}');
SET LOCAL queen.tenant_max_traces = '1';
SELECT pg_temp.mark('queen.message_traces', 'queen.tenant_usage');
SELECT throws_ok($$SELECT pg_temp.trace('{"step": 2}')$$, 'QQ429',
                 'traces quota of tenant qp_acme reached (1 traces, QUEEN_TENANT_MAX_TRACES)', 'a trace past the traces quota');
SELECT is(pg_temp.moved(), '', '... writes nothing');
RESET queen.tenant_max_traces;
SELECT set_config('queen.tenant_max_trace_bytes', (SELECT trace_bytes + 1000 FROM queen.tenant_usage_of('qp_acme'))::text, true);
SELECT pg_temp.mark('queen.message_traces', 'queen.tenant_usage');
SELECT throws_ok($$SELECT pg_temp.trace(jsonb_build_object('blob', pg_temp.noise(60)))$$, 'QQ429',
                 format('trace bytes quota of tenant qp_acme reached (%s bytes, QUEEN_TENANT_MAX_TRACE_BYTES)',
                        current_setting('queen.tenant_max_trace_bytes')),
                 'a 60 KiB trace past the trace bytes quota');
SELECT is(pg_temp.moved(), '', '... no trace tuple, no TOAST chunk, no relation growth');
SELECT lives_ok($$SELECT pg_temp.trace('{"step": 3}')$$, 'a small trace within the bytes quota works');
RESET queen.tenant_max_trace_bytes;

-- ------------------------------------------------ queues, partitions, groups
SET LOCAL queen.tenant_max_queues = '1';
SELECT pg_temp.mark('queen.queues', 'queen.partitions', 'queen.tenant_usage');
SELECT throws_ok($$SELECT queen.configure_queue('qp_q2', NULL, NULL, '{}', 'qp_acme')$$, 'QQ429',
                 'queues quota of tenant qp_acme reached (1 queues, QUEEN_TENANT_MAX_QUEUES)', 'configure of a new queue past the quota');
SELECT throws_ok($$SELECT count(*) FROM queen.push_messages('[{"queue": "qp_q2"}]', NULL, 'qp_acme')$$, 'QQ429',
                 'queues quota of tenant qp_acme reached (1 queues, QUEEN_TENANT_MAX_QUEUES)', 'a push creating a queue past the quota');
SELECT is(pg_temp.moved(), '', '... neither wrote a queue or partition row');
SELECT lives_ok($$SELECT queen.configure_queue('qp_q', NULL, NULL, '{"leaseTime": 30}', 'qp_acme')$$,
                'configure of an existing queue at the quota works (its INSERT ... ON CONFLICT creates nothing)');

SET LOCAL queen.tenant_max_partitions = '2';
SELECT count(*) FROM queen.push_messages('[{"queue": "qp_q", "partition": "p2"}]', NULL, 'qp_acme');
SELECT pg_temp.mark('queen.partitions', 'queen.stored_messages', 'queen.consumers', 'queen.tenant_usage');
SELECT throws_ok($$SELECT count(*) FROM queen.push_messages('[{"queue": "qp_q", "partition": "p3", "payload": {"n": 3}}]', NULL, 'qp_acme')$$,
                 'QQ429', 'partitions quota of tenant qp_acme reached (2 partitions, QUEEN_TENANT_MAX_PARTITIONS)',
                 'a push creating a partition past the quota');
SELECT is(pg_temp.moved(), '', '... writes no partition, message or cursor row');
SELECT lives_ok($$SELECT count(*) FROM queen.push_messages('[{"queue": "qp_q", "partition": "p2"}]', NULL, 'qp_acme')$$,
                'a push to an existing partition at the quota works');
SET LOCAL queen.tenant_max_partitions = '3';
SELECT throws_ok($$SELECT count(*) FROM queen.push_messages('[{"queue": "qp_q", "partition": "p4"}, {"queue": "qp_q", "partition": "p5"}]', NULL, 'qp_acme')$$,
                 'QQ429', 'partitions quota of tenant qp_acme reached (3 partitions, QUEEN_TENANT_MAX_PARTITIONS)',
                 'a statement creating two partitions with one left is still refused (the AFTER check counts the statement)');
SELECT is((SELECT partitions FROM queen.tenant_usage_of('qp_acme')), 2::bigint, '... and the usage is unchanged');
RESET queen.tenant_max_partitions;

SET LOCAL queen.tenant_max_consumer_groups = '1';
SELECT count(*) FROM queen.pop_messages('qp_q', NULL, 'g1', 1, p_tenant => 'qp_acme', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL);
SELECT pg_temp.mark('queen.consumer_groups', 'queen.consumers', 'queen.tenant_usage');
SELECT throws_ok($$SELECT count(*) FROM queen.pop_messages('qp_q', NULL, 'g2', 1, p_tenant => 'qp_acme', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL)$$,
                 'QQ429', 'consumer groups quota of tenant qp_acme reached (1 consumer groups, QUEEN_TENANT_MAX_CONSUMER_GROUPS)',
                 'a pop registering a group past the quota');
SELECT is(pg_temp.moved(), '', '... writes no group or cursor row');
SELECT lives_ok($$SELECT count(*) FROM queen.pop_messages('qp_q', NULL, 'g1', 1, p_tenant => 'qp_acme', p_partitions => 1, p_auto_ack => false, p_subscription_mode => NULL, p_subscription_from => NULL, p_namespace => NULL, p_task => NULL)$$,
                'the registered group pops on at the quota');
RESET queen.tenant_max_queues;
RESET queen.tenant_max_consumer_groups;

-- --------------------------------------------------------- stream state
CREATE TEMP TABLE reg AS SELECT queen.stream_register_query(
  '{"name": "qp_counts", "source_queue": "qp_src", "config_hash": "h1"}', 'qp_acme') ->> 'query_id' AS id;
CREATE FUNCTION pg_temp.cycle(p_extra jsonb) RETURNS jsonb LANGUAGE sql AS $$
  SELECT queen.stream_cycle(jsonb_build_object('query_id', (SELECT id FROM reg),
                                               'partition_id', '0190a5d2-0000-7000-8000-000000000001') || p_extra,
                            NULL, 'qp_acme')
$$;
SELECT is(pg_temp.cycle(jsonb_build_object('state_ops', jsonb_build_array(
            jsonb_build_object('type', 'upsert', 'key', 'a', 'value', jsonb_build_object('blob', pg_temp.noise(16)))))) ->> 'success',
          'true', 'a cycle stores state');
SELECT set_config('queen.tenant_max_stream_state_bytes', (SELECT state_bytes + 1000 FROM queen.stream_usage_of('qp_acme'))::text, true);
SELECT pg_temp.mark('queen.stream_state', 'queen.stream_cycle_keys', 'queen.stream_usage');
SELECT throws_ok(format($$SELECT pg_temp.cycle(%L)$$, jsonb_build_object('idempotency_key', 'c2', 'state_ops', jsonb_build_array(
                   jsonb_build_object('type', 'upsert', 'key', 'b', 'value', jsonb_build_object('blob', pg_temp.noise(64)))))),
                 'QQ429', format('stream state bytes quota of tenant qp_acme reached (%s bytes, QUEEN_TENANT_MAX_STREAM_STATE_BYTES)',
                                 current_setting('queen.tenant_max_stream_state_bytes')),
                 'a cycle whose state would pass the quota');
SELECT is(pg_temp.moved(), '', '... writes no state row, TOAST chunk or idempotency key');
SELECT is(pg_temp.cycle('{"idempotency_key": "c3", "state_ops": [{"type": "upsert", "key": "a", "value": 1}]}') ->> 'success',
          'true', 'a cycle shrinking the state at the quota works');
SELECT is(pg_temp.cycle('{"idempotency_key": "c3", "state_ops": [{"type": "upsert", "key": "a", "value": 2}]}') ->> 'replayed',
          'true', '... and its key is remembered: the same key again is replayed');
SELECT is((SELECT value FROM queen.stream_state WHERE query_id = (SELECT id FROM reg)::uuid AND key = 'a'), '1'::jsonb,
          '... changing nothing');
SELECT is((SELECT (state_keys, state_bytes) FROM queen.stream_usage_of('qp_acme')),
          (SELECT (count(*), sum(counted_bytes)::bigint) FROM queen.stream_state WHERE tenant = 'qp_acme'),
          'stream usage stays exact');

SELECT * FROM finish();
ROLLBACK;
