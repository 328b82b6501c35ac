-- Revert queen:extend_lease from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.extend_lease(uuid, int, text, timestamptz);
COMMIT;
