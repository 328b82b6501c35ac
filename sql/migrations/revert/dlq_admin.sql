-- Revert queen:dlq_admin from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.retry_dead_message(uuid, text, text);
DROP FUNCTION queen.delete_dead_letters(text, text, text, timestamptz, timestamptz, uuid, text);
DROP FUNCTION queen.requeue_dead_letters(text, text, text, timestamptz, timestamptz, uuid, text);
DROP FUNCTION queen_internal.select_dead_letters(text, text, text, timestamptz, timestamptz, uuid, int, text);
DROP FUNCTION queen_internal.requeued_transaction_id(text, uuid);
DROP FUNCTION queen_internal.dlq_admin_max_per_call();
COMMIT;
