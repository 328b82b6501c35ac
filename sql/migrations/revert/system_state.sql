-- Revert queen:system_state from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP TABLE queen.system_state;
COMMIT;
