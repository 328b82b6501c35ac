-- Revert queen:ack_many from pg
BEGIN;
DROP FUNCTION queen.ack_many(jsonb, text, timestamptz);
COMMIT;
