-- Verify queen:tenant_usage on pg
BEGIN;
SELECT tenant, stripe, kv_keys, kv_bytes, traces, trace_bytes, queues, partitions, consumer_groups
  FROM queen.tenant_usage WHERE false;
SELECT max_kv_keys, max_kv_bytes, max_traces, max_trace_bytes, max_dead_letters, max_queues, max_partitions,
       max_consumer_groups FROM queen.tenant_quotas WHERE false;
SELECT counted_bytes FROM queen.kv WHERE false;
SELECT counted_bytes FROM queen.message_traces WHERE false;
SELECT has_function_privilege('queen.tenant_usage_of(text)', 'execute');
SELECT has_function_privilege('queen.add_tenant_usage(text, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bool)', 'execute');
SELECT has_function_privilege('queen.tenant_quota_state(text)', 'execute');
SELECT has_function_privilege('queen.set_tenant_quota(text, bigint, double precision, int, bigint, bigint, bigint, bigint, bigint, bigint, bigint, bigint)', 'execute');
ROLLBACK;
