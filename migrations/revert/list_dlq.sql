-- Revert queen:list_dlq from pg
BEGIN;
DROP FUNCTION queen.list_dlq(text, text, text, timestamptz, timestamptz, int, int, text);
COMMIT;
