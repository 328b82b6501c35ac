-- Revert queen:expire_messages from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen.expire_messages(int, timestamptz);
DROP FUNCTION queen_internal.expiry_cutoffs(timestamptz);
DROP FUNCTION queen_internal.expiry_rule(queen.queues);
COMMIT;
