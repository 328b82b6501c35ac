-- Verify queen:streams on pg
BEGIN;
SELECT id, tenant, name, source_queue, sink_queue, config_hash, created_at, updated_at FROM queen.stream_queries WHERE false;
SELECT query_id, partition_id, key, value, tenant, counted_bytes, updated_at FROM queen.stream_state WHERE false;
SELECT query_id, partition_id, idempotency_key, committed_at FROM queen.stream_cycle_keys WHERE false;
SELECT tenant, stripe, state_keys, state_bytes FROM queen.stream_usage WHERE false;
SELECT has_function_privilege('queen.stream_register_query(jsonb, text)', 'execute');
SELECT has_function_privilege('queen.stream_state_get(jsonb, text)', 'execute');
SELECT has_function_privilege('queen.stream_cycle(jsonb, text, text, timestamptz)', 'execute');
SELECT has_function_privilege('queen.stream_usage_of(text)', 'execute');
SELECT has_function_privilege('queen_internal.apply_stream_state_ops(queen.stream_queries, uuid, jsonb, timestamptz)', 'execute');
SELECT has_function_privilege('queen_internal.stream_ack(jsonb, uuid, text, bool, timestamptz, text)', 'execute');
ROLLBACK;
