-- Revert queen:list_dlq from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.list_dlq(text, text, text, timestamptz, timestamptz, int, int, text);
COMMIT;
