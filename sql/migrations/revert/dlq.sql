-- Revert queen:dlq from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP FUNCTION queen_internal.dlq_matching(text, text, text, text, timestamptz, timestamptz, uuid);
DROP TABLE queen.dlq;
COMMIT;
