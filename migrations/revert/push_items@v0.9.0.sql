-- Revert queen:push_items from pg
BEGIN;
DROP TYPE queen.push_result;
DROP FUNCTION queen.check_push_items(jsonb);
DROP FUNCTION queen.push_item_deliver_at(jsonb, int);
DROP FUNCTION queen.push_item_partition(jsonb);
DROP FUNCTION queen.queue_task_of(text);
DROP FUNCTION queen.queue_namespace_of(text);
COMMIT;
