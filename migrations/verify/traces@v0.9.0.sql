-- Verify queen:traces on pg
SELECT id, partition_id, transaction_id, tenant, consumer_group, event_type, data, trace_names, worker_id, created_at
  FROM queen.message_traces WHERE false;
SELECT has_function_privilege('queen.record_trace(uuid, text, jsonb, text[], text, text, text, text)', 'execute');
SELECT has_function_privilege('queen.message_traces_of(uuid, text, text)', 'execute');
-- by name: listings_bounded replaces it with a budgeted signature
SELECT 'queen.traces_by_name'::regproc;
SELECT has_function_privilege('queen.trace_names(int, int, text)', 'execute');
