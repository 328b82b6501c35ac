-- Revert queen:store_messages from pg
BEGIN;
DROP FUNCTION queen.store_messages(jsonb, text, uuid[], text);
DROP FUNCTION queen.lock_push_targets(jsonb, text);
DROP TYPE queen.push_target;
DROP FUNCTION queen.queue_pending_count(uuid);
COMMIT;
