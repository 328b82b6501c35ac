-- Revert queen:delete_queue from pg
BEGIN;
DROP FUNCTION queen.delete_queue(text, text);
COMMIT;
