-- pgTAP: the stream procedures (stream_register_query, stream_state_get, stream_cycle)
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(68);

-- ------------------------------------------------------------ registration
CREATE TEMP TABLE reg AS SELECT queen.stream_register_query(
  '{"name": "counts", "source_queue": "t_st_src", "sink_queue": "t_st_sink", "config_hash": "h1"}', '') AS v;
SELECT is((SELECT v - 'query_id' FROM reg),
          '{"success": true, "name": "counts", "config_hash": "h1", "fresh": true, "reset": false}'::jsonb, 'a new query is fresh');
SELECT ok((SELECT (v ->> 'query_id')::uuid IS NOT NULL FROM reg), 'with a server-made id');
CREATE FUNCTION pg_temp.qid() RETURNS text LANGUAGE sql AS $$ SELECT v ->> 'query_id' FROM reg $$;
SELECT is(queen.stream_register_query('{"name": "counts", "source_queue": "t_st_src2", "config_hash": "h1", "reset": true}', '') - 'query_id',
          '{"success": true, "name": "counts", "config_hash": "h1", "fresh": false, "reset": false}'::jsonb,
          'same hash: not fresh, reset:true ignored');
SELECT is((SELECT source_queue || '/' || coalesce(sink_queue, '-') FROM queen.stream_queries WHERE id = pg_temp.qid()::uuid),
          't_st_src2/-', '... the queue names are updated');
SELECT is(queen.stream_register_query('{"name": "counts", "source_queue": "t_st_src", "sink_queue": "t_st_sink", "config_hash": "h1"}', '') ->> 'query_id',
          pg_temp.qid(), 'the same id every time');
SELECT is(queen.stream_register_query('{"name": "counts", "source_queue": "t_st_src", "config_hash": "h2"}', ''),
          jsonb_build_object('success', false, 'query_id', pg_temp.qid(), 'name', 'counts', 'error',
            'config_hash mismatch: operator chain changed for queryId ''counts''. Pass reset:true to wipe existing state, or use a new queryId.'),
          'another hash without reset: mismatch');
SELECT is((SELECT config_hash FROM queen.stream_queries WHERE id = pg_temp.qid()::uuid), 'h1', '... and nothing changed');
SELECT isnt(queen.stream_register_query('{"name": "counts", "source_queue": "t_st_src", "config_hash": "h9"}', 'acme') ->> 'query_id',
            pg_temp.qid(), 'another tenant has its own query of the same name');
SELECT throws_ok($$SELECT queen.stream_register_query('{"source_queue": "s", "config_hash": "h"}', '')$$, '22023', 'name is required', 'name is required');
SELECT throws_ok($$SELECT queen.stream_register_query('{"name": "n", "config_hash": "h"}', '')$$, '22023', 'source_queue is required', 'source_queue is required');
SELECT throws_ok($$SELECT queen.stream_register_query('{"name": "n", "source_queue": "s", "config_hash": ""}', '')$$, '22023', 'config_hash is required', 'config_hash is required');

-- ------------------------------------------------------------------- cycle
SELECT queen.configure_queue('t_st_src', NULL, NULL, '{"leaseTime": 60}', '');
SELECT count(*) FROM queen.push_messages('[{"queue": "t_st_src", "transactionId": "m1", "payload": {"n": 1}},
  {"queue": "t_st_src", "transactionId": "m2", "payload": {"n": 2}}, {"queue": "t_st_src", "transactionId": "m3", "payload": {"n": 3}},
  {"queue": "t_st_src", "transactionId": "m4", "payload": {"n": 4}}]', NULL, '');
CREATE TEMP TABLE popped AS SELECT * FROM queen.pop_messages('t_st_src', NULL, 'streams.counts', 2, 1, false, NULL, NULL, NULL, NULL, '');
CREATE FUNCTION pg_temp.pid() RETURNS text LANGUAGE sql AS $$ SELECT partition_id::text FROM popped LIMIT 1 $$;
CREATE FUNCTION pg_temp.lease() RETURNS text LANGUAGE sql AS $$ SELECT lease_id::text FROM popped LIMIT 1 $$;
CREATE FUNCTION pg_temp.cycle(p_extra jsonb, p_tenant text DEFAULT '') RETURNS jsonb LANGUAGE sql AS $$
  SELECT queen.stream_cycle(jsonb_build_object('query_id', pg_temp.qid(), 'partition_id', pg_temp.pid(),
                                               'consumer_group', 'streams.counts') || p_extra, 'alice', p_tenant)
$$;
CREATE FUNCTION pg_temp.consumer() RETURNS queen.consumers LANGUAGE sql AS $$
  SELECT * FROM queen.consumers WHERE partition_id = pg_temp.pid()::uuid AND consumer_group = 'streams.counts'
$$;
CREATE FUNCTION pg_temp.state() RETURNS jsonb LANGUAGE sql AS $$
  SELECT coalesce(jsonb_object_agg(key, value ORDER BY key), '{}') FROM queen.stream_state WHERE query_id = pg_temp.qid()::uuid
$$;
SELECT is((SELECT count(*) FROM popped), 2::bigint, 'two messages leased');

CREATE TEMP TABLE c1 AS SELECT pg_temp.cycle(jsonb_build_object(
  'state_ops', '[{"type": "upsert", "key": "tumb:60\u001fA", "value": {"acc": 1, "windowEnd": 1000}},
                 {"type": "upsert", "key": "tumb:60\u001fB", "value": {"acc": 2, "windowEnd": 3000}},
                 {"type": "upsert", "key": "gone", "value": 1}, {"type": "delete", "key": "gone"},
                 {"type": "delete", "key": "never"}, {"type": "upsert", "key": "t%_x"}]'::jsonb,
  'push_items', '[{"queue": "t_st_sink", "partition": "cust-1", "payload": {"count": 1}, "traceId": "7a4c9d42-3f5e-4b1a-9c2d-0e8f7a6b5c4d"},
                  {"queue": "t_st_sink", "partition": "cust-1", "payload": {"count": 2}}]'::jsonb,
  'ack', jsonb_build_object('transactionId', 'm2', 'leaseId', pg_temp.lease(), 'status', 'completed', 'count', 2))) AS v;
SELECT is((SELECT v -> 'success' FROM c1), 'true'::jsonb, 'a cycle commits');
SELECT is((SELECT v ->> 'queueName' FROM c1), 't_st_src', 'queueName: the source queue');
SELECT is((SELECT v -> 'state_ops_applied' FROM c1), '6'::jsonb, 'every op counts, a delete of a missing key too');
SELECT is((SELECT v -> 'ack_result' FROM c1), '{"success": true, "count": 2, "lease_released": true, "dlq": false}'::jsonb, 'the ack result');
SELECT is((SELECT jsonb_path_query_array(v, '$.push_results[*].status') FROM c1), '["queued", "queued"]'::jsonb, 'both items queued');
SELECT is((SELECT v -> 'push_results' -> 0 ->> 'trace_id' FROM c1), '7a4c9d42-3f5e-4b1a-9c2d-0e8f7a6b5c4d', 'the trace id echoed');
SELECT is(pg_temp.state(), jsonb_build_object('t%_x', '{}'::jsonb, E'tumb:60\u001fA', '{"acc": 1, "windowEnd": 1000}'::jsonb,
                                              E'tumb:60\u001fB', '{"acc": 2, "windowEnd": 3000}'::jsonb),
          'state: upserts stored (no value: {}), upsert then delete leaves nothing');
SELECT is((SELECT array_agg(m.payload ->> 'count' ORDER BY m.seq) FROM queen.stored_messages m JOIN queen.partitions p ON p.id = m.partition_id
            JOIN queen.queues q ON q.id = p.queue_id WHERE q.name = 't_st_sink' AND m.producer_sub = 'alice'),
          ARRAY['1', '2'], 'the sink holds the pushes in order, stamped with the producer');
SELECT is((SELECT cursor_seq FROM pg_temp.consumer()), 2::bigint, 'the source cursor moved to the acked message');
SELECT is((SELECT lease_id FROM pg_temp.consumer()), NULL, 'the lease is released');

-- a retried (or stale) cycle fails on its lease and changes nothing
CREATE TEMP TABLE c2 AS SELECT pg_temp.cycle(jsonb_build_object(
  'state_ops', '[{"type": "upsert", "key": "tumb:60\u001fA", "value": {"acc": 99}}]'::jsonb,
  'push_items', '[{"queue": "t_st_sink", "partition": "cust-1", "payload": {"count": 99}}]'::jsonb,
  'ack', jsonb_build_object('transactionId', 'm2', 'leaseId', pg_temp.lease(), 'count', 2))) AS v;
SELECT is((SELECT v ->> 'error' FROM c2), 'Invalid or expired lease', 'a retried cycle fails on its lease');
SELECT is((SELECT v -> 'success' FROM c2), 'false'::jsonb, '... success false');
SELECT is((SELECT pg_temp.state() -> E'tumb:60\u001fA'), '{"acc": 1, "windowEnd": 1000}'::jsonb, '... the state is unchanged');
SELECT is((SELECT count(*) FROM queen.stored_messages m WHERE m.payload ->> 'count' = '99'), 0::bigint, '... nothing pushed');

-- a gate's partial ack keeps the lease
DROP TABLE popped;
CREATE TEMP TABLE popped AS SELECT * FROM queen.pop_messages('t_st_src', NULL, 'streams.counts', 2, 1, false, NULL, NULL, NULL, NULL, '');
SELECT is((SELECT array_agg(transaction_id ORDER BY message_id) FROM popped), ARRAY['m3', 'm4'], 'the next batch');
CREATE TEMP TABLE c3 AS SELECT pg_temp.cycle(jsonb_build_object('release_lease', false,
  'state_ops', '[{"type": "upsert", "key": "gate", "value": {"tokens": 0}}]'::jsonb,
  'push_items', '[{"queue": "t_st_sink", "payload": {"allowed": "m3"}}]'::jsonb,
  'ack', jsonb_build_object('transactionId', 'm3', 'leaseId', pg_temp.lease(), 'count', 1))) AS v;
SELECT is((SELECT v -> 'ack_result' FROM c3), '{"success": true, "count": 1, "lease_released": false, "dlq": false}'::jsonb, 'partial ack: lease kept');
SELECT is((SELECT (cursor_seq, lease_id::text) FROM pg_temp.consumer()), (3::bigint, pg_temp.lease()), '... cursor at m3, the lease still held');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_st_src', NULL, 'streams.counts', 2, 1, false, NULL, NULL, NULL, NULL, '')), 0::bigint,
          '... so pops skip the partition');
SELECT is((SELECT count(*) FROM queen.pop_messages('t_st_src', NULL, 'streams.counts', 2, 1, false, NULL, NULL, NULL, NULL, '',
                                                   now() + interval '61 seconds')), 1::bigint,
          '... until the lease expires: then the rest of the batch comes back');

-- checks that fail roll everything back
SELECT is(pg_temp.cycle('{"state_ops": [{"type": "upsert", "key": "x"}, {"type": "merge", "key": "y"}]}') ->> 'error',
          'Unknown state_op type: merge', 'an unknown op type fails the cycle');
SELECT is(pg_temp.cycle('{"state_ops": [{"type": "upsert", "key": ""}]}') ->> 'error',
          'state_op key must be a string of 1 to 1024 bytes', 'an empty key fails the cycle');
SELECT is(pg_temp.cycle(jsonb_build_object('state_ops', '[{"type": "upsert", "key": "x"}]'::jsonb,
                                           'ack', '{"transactionId": "m4", "status": "retry"}'::jsonb)) ->> 'error',
          'Unknown ack.status: retry', 'retry is not an ack status of a cycle');
SELECT is(pg_temp.cycle('{"ack": {"transactionId": "nope"}}') ->> 'error', 'Message not found', 'an unknown message fails the cycle');
SELECT is(pg_temp.state() -> 'x', NULL, 'none of them stored anything');
SELECT is(queen.stream_cycle(jsonb_build_object('query_id', 'nope', 'partition_id', pg_temp.pid()), NULL, '') ->> 'error',
          'query_id must be a UUID', 'a query id that is not a UUID');
SELECT is(queen.stream_cycle(jsonb_build_object('query_id', gen_random_uuid(), 'partition_id', pg_temp.pid()), NULL, '') ->> 'error',
          'Unknown query_id (register the query first)', 'an unregistered query');
SELECT is(pg_temp.cycle('{"state_ops": [{"type": "upsert", "key": "x"}]}', 'acme') ->> 'error',
          'Unknown query_id (register the query first)', 'another tenant''s query does not exist for it');
SELECT is(pg_temp.cycle('{"state_ops": null, "push_items": null, "ack": null}') -> 'success', 'true'::jsonb, 'null lists are empty lists');

-- failed: dead-lettered at once, the lease cleared
DROP TABLE popped;
CREATE TEMP TABLE popped AS SELECT * FROM queen.pop_messages('t_st_src', NULL, 'streams.counts', 2, 1, false, NULL, NULL, NULL, NULL, '',
                                                             now() + interval '122 seconds');
SELECT is(pg_temp.cycle(jsonb_build_object('ack', jsonb_build_object('transactionId', 'm4', 'status', 'failed')), '') -> 'ack_result',
          '{"success": true, "count": 0, "lease_released": true, "dlq": true}'::jsonb, 'failed: dead-lettered, the lease cleared');
SELECT is((SELECT error_message FROM queen.dlq d JOIN queen.stored_messages m ON m.id = d.message_id WHERE m.transaction_id = 'm4'),
          'Streaming cycle reported failure', '... with the default reason');

-- duplicates are not an error
SELECT is(pg_temp.cycle('{"push_items": [{"queue": "t_st_sink", "transactionId": "dup-1"}, {"queue": "t_st_sink", "transactionId": "dup-1"}]}')
            -> 'push_results' -> 1 ->> 'status', 'duplicate', 'a duplicate push is reported, not failed');

-- our extension: an idle flush with an idempotency key pushes once
CREATE TEMP TABLE f1 AS SELECT pg_temp.cycle(jsonb_build_object('idempotency_key', 'flush-1',
  'state_ops', jsonb_build_array(jsonb_build_object('type', 'delete', 'key', E'tumb:60\u001fA')),
  'push_items', '[{"queue": "t_st_sink", "payload": {"flushed": "A"}}]'::jsonb)) AS v;
SELECT is((SELECT v -> 'success' FROM f1), 'true'::jsonb, 'a keyed flush commits');
SELECT is(pg_temp.cycle(jsonb_build_object('idempotency_key', 'flush-1',
  'state_ops', jsonb_build_array(jsonb_build_object('type', 'delete', 'key', E'tumb:60\u001fA')),
  'push_items', '[{"queue": "t_st_sink", "payload": {"flushed": "A"}}]'::jsonb)) - 'query_id' - 'partition_id',
  '{"success": true, "replayed": true, "queueName": "t_st_src", "state_ops_applied": 0, "push_results": [], "ack_result": null}'::jsonb,
  'its retry is answered replayed');
SELECT is((SELECT count(*) FROM queen.stored_messages m WHERE m.payload ->> 'flushed' = 'A'), 1::bigint, '... and pushed nothing again');
SELECT is(pg_temp.cycle('{"idempotency_key": "flush-2", "ack": {"transactionId": "nope"}}') -> 'success', 'false'::jsonb, 'a failed keyed cycle');
SELECT is((SELECT count(*) FROM queen.stream_cycle_keys WHERE idempotency_key = 'flush-2'), 0::bigint, '... does not keep its key');

-- ------------------------------------------------------------------- reads
CREATE FUNCTION pg_temp.read(p_filter jsonb, p_tenant text DEFAULT '') RETURNS jsonb LANGUAGE sql AS $$
  SELECT queen.stream_state_get(jsonb_build_object('query_id', pg_temp.qid(), 'partition_id', pg_temp.pid()) || p_filter, p_tenant)
$$;
SELECT is((SELECT jsonb_path_query_array(pg_temp.read('{}'), '$.rows[*].key')), jsonb_build_array('gate', 't%_x', E'tumb:60\u001fB'),
          'the whole shard, by key');
SELECT ok((SELECT pg_temp.read('{}') -> 'rows' -> 0 ? 'updated_at'), 'rows carry updated_at');
SELECT is((SELECT jsonb_path_query_array(pg_temp.read('{"keys": ["gate", "none"]}'), '$.rows[*].key')), '["gate"]'::jsonb, 'exact keys');
SELECT is((SELECT jsonb_path_query_array(pg_temp.read(jsonb_build_object('key_prefix', E'tumb:60\u001f')), '$.rows[*].key')),
          jsonb_build_array(E'tumb:60\u001fB'), 'a key prefix');
SELECT is((SELECT jsonb_path_query_array(pg_temp.read('{"key_prefix": "t_"}'), '$.rows[*].key')), '[]'::jsonb,
          'a prefix has no wildcards: _ is a character');
SELECT is((SELECT jsonb_path_query_array(pg_temp.read('{"key_prefix": "t%"}'), '$.rows[*].key')), '["t%_x"]'::jsonb, '... and so is %');
SELECT is((SELECT jsonb_path_query_array(pg_temp.read('{"ripe_at_or_before": 2999}'), '$.rows[*].key')), '[]'::jsonb,
          'ripe_at_or_before: windowEnd after it is not ripe');
SELECT is((SELECT jsonb_path_query_array(pg_temp.read('{"ripe_at_or_before": 3000}'), '$.rows[*].key')), jsonb_build_array(E'tumb:60\u001fB'),
          '... at or before it is (rows without a numeric windowEnd never are)');
SELECT is((SELECT jsonb_path_query_array(pg_temp.read('{"ripe_at_or_before": "3000"}'), '$.rows[*].key')), jsonb_build_array('gate', 't%_x', E'tumb:60\u001fB'),
          '... a string is no filter');
SELECT is(pg_temp.read('{}', 'acme'), '{"success": true, "rows": []}'::jsonb, 'another tenant reads nothing');
SELECT is(queen.stream_state_get(jsonb_build_object('query_id', pg_temp.qid(), 'partition_id', 'x'), '') ->> 'error',
          'partition_id must be a UUID', 'a partition id that is not a UUID');

-- --------------------------------------------------------- bounds and quota
SET LOCAL queen.stream_max_state_ops = 2;
SELECT throws_ok($$SELECT pg_temp.cycle('{"state_ops": [{"type": "delete", "key": "a"}, {"type": "delete", "key": "b"}, {"type": "delete", "key": "c"}]}')$$,
                 '22023', 'state_ops (3) exceeds the limit of 2 (QUEEN_STREAM_MAX_STATE_OPS)', 'state ops per cycle are bounded');
SET LOCAL queen.stream_max_push_items = 1;
SELECT throws_ok($$SELECT pg_temp.cycle('{"push_items": [{"queue": "t_st_sink"}, {"queue": "t_st_sink"}]}')$$,
                 '22023', 'push_items (2) exceeds the limit of 1 (QUEEN_STREAM_MAX_PUSH_ITEMS)', 'pushes per cycle are bounded');
SET LOCAL queen.stream_max_value_bytes = 10;
SELECT throws_ok($$SELECT pg_temp.cycle('{"state_ops": [{"type": "upsert", "key": "big", "value": {"text": "0123456789"}}]}')$$,
                 '22023', 'state value of key big (22 bytes) exceeds the limit of 10 (QUEEN_STREAM_MAX_VALUE_BYTES)', 'state values are bounded');
SET LOCAL queen.stream_max_read_keys = 2;
SELECT throws_ok($$SELECT pg_temp.read('{}')$$, '22023', 'state rows read (3) exceeds the limit of 2 (QUEEN_STREAM_MAX_READ_KEYS)',
                 'rows per read are bounded');
RESET queen.stream_max_value_bytes;
SELECT is((SELECT state_keys FROM queen.stream_usage_of('')), 3::bigint, 'usage counts the stored keys');
SET LOCAL queen.tenant_max_stream_state_bytes = 100;
SELECT throws_ok($$SELECT pg_temp.cycle('{"state_ops": [{"type": "upsert", "key": "big", "value": {"text": "01234567890123456789012345678901234567890123456789"}}]}')$$,
                 'QQ429', 'stream state bytes quota of the default tenant reached (100 bytes, QUEEN_TENANT_MAX_STREAM_STATE_BYTES)',
                 'stored state is bounded per tenant');
RESET queen.tenant_max_stream_state_bytes;

-- a reset wipes the state, keeps the id, gives the usage back
SELECT is(queen.stream_register_query('{"name": "counts", "source_queue": "t_st_src", "config_hash": "h2", "reset": true}', '') - 'query_id',
          '{"success": true, "name": "counts", "config_hash": "h2", "fresh": false, "reset": true}'::jsonb, 'another hash with reset');
SELECT is(pg_temp.state(), '{}'::jsonb, '... wipes the state');
SELECT is((SELECT (state_keys, state_bytes) FROM queen.stream_usage_of('')), (0::bigint, 0::bigint), '... and gives its usage back');

SELECT * FROM finish();
ROLLBACK;
