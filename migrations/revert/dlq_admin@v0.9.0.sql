-- Revert queen:dlq_admin from pg
BEGIN;
DROP FUNCTION queen.retry_dead_message(uuid, text, text);
DROP FUNCTION queen.delete_dead_letters(text, text, text, timestamptz, timestamptz, uuid, text);
DROP FUNCTION queen.requeue_dead_letters(text, text, text, timestamptz, timestamptz, uuid, text);
DROP FUNCTION queen.select_dead_letters(text, text, text, timestamptz, timestamptz, uuid, int, text);
DROP FUNCTION queen.requeued_transaction_id(text, uuid);
DROP FUNCTION queen.dlq_admin_max_per_call();
COMMIT;
