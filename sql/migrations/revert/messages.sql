-- Revert queen:messages from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP TABLE queen.messages;
COMMIT;
