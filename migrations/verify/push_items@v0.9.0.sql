-- Verify queen:push_items on pg
BEGIN;
SELECT has_function_privilege('queen.queue_namespace_of(text)', 'execute');
SELECT has_function_privilege('queen.queue_task_of(text)', 'execute');
SELECT has_function_privilege('queen.push_item_partition(jsonb)', 'execute');
SELECT has_function_privilege('queen.push_item_deliver_at(jsonb, int)', 'execute');
SELECT has_function_privilege('queen.check_push_items(jsonb)', 'execute');
SELECT NULL::queen.push_result;
ROLLBACK;
