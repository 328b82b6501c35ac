-- Revert queen:pop_many from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.pop_many(int, text, text, text, int, int, bool, text, text, text, text, text, timestamptz);
COMMIT;
