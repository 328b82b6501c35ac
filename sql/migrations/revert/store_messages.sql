-- Revert queen:store_messages from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen_internal.store_messages(jsonb, text, uuid[], text);
DROP FUNCTION queen_internal.insert_push_items(jsonb, text, uuid[], queen.push_target[], uuid[], timestamptz);
DROP FUNCTION queen_internal.refused_push_partitions(jsonb, queen.push_target[]);
DROP FUNCTION queen_internal.create_push_targets(jsonb, text, queen.push_target[]);
DROP FUNCTION queen_internal.lock_push_targets(jsonb, text);
DROP TYPE queen.push_target;
DROP FUNCTION queen_internal.queue_pending_count(uuid);
COMMIT;
