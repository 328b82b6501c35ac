-- Revert queen:delete_queue from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.delete_queue(text, text);
COMMIT;
