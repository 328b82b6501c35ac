-- Revert queen:ack_many from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.ack_many(jsonb, text, timestamptz);
COMMIT;
