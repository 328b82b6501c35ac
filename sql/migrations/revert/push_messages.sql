-- Revert queen:push_messages from pg
BEGIN;
DROP FUNCTION queen.push_messages(jsonb, text);
DROP FUNCTION queen.check_push_items(jsonb);
DROP FUNCTION queen.queue_pending_count(uuid);
DROP FUNCTION queen.push_item_partition(jsonb);
DROP FUNCTION queen.queue_task_of(text);
DROP FUNCTION queen.queue_namespace_of(text);
COMMIT;
