-- Revert queen:extend_lease from pg
BEGIN;
DROP FUNCTION queen.extend_lease(uuid, int, text, timestamptz);
COMMIT;
