-- Verify queen:store_messages on pg
BEGIN;
SELECT has_function_privilege('queen.queue_pending_count(uuid)', 'execute');
SELECT has_function_privilege('queen.store_messages(jsonb, text, uuid[], text)', 'execute');
SELECT has_function_privilege('queen.create_push_targets(jsonb, text, queen.push_target[])', 'execute');
SELECT has_function_privilege('queen.refused_push_partitions(jsonb, queen.push_target[])', 'execute');
SELECT has_function_privilege('queen.insert_push_items(jsonb, text, uuid[], queen.push_target[], uuid[], timestamptz)', 'execute');
ROLLBACK;
