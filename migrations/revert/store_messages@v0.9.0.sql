-- Revert queen:store_messages from pg
BEGIN;
DROP FUNCTION queen.store_messages(jsonb, text, uuid[], text);
DROP FUNCTION queen.insert_push_items(jsonb, text, uuid[], queen.push_target[], uuid[], timestamptz);
DROP FUNCTION queen.refused_push_partitions(jsonb, queen.push_target[]);
DROP FUNCTION queen.create_push_targets(jsonb, text, queen.push_target[]);
DROP FUNCTION queen.lock_push_targets(jsonb, text);
DROP TYPE queen.push_target;
DROP FUNCTION queen.queue_pending_count(uuid);
COMMIT;
