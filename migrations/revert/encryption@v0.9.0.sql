-- Revert queen:encryption from pg
BEGIN;
DROP FUNCTION queen.dead_letter_undecryptable(jsonb, text, text);
DROP FUNCTION queen.encrypted_queue_names();
COMMIT;
