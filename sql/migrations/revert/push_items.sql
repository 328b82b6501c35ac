-- Revert queen:push_items from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP TYPE queen.push_result;
DROP FUNCTION queen_internal.check_push_items(jsonb);
DROP FUNCTION queen_internal.push_item_deliver_at(jsonb, int);
DROP FUNCTION queen_internal.push_item_partition(jsonb);
DROP FUNCTION queen_internal.queue_task_of(text);
DROP FUNCTION queen_internal.queue_namespace_of(text);
COMMIT;
