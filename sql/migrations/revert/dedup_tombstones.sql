-- Revert queen:dedup_tombstones from pg
BEGIN;
SET LOCAL ROLE queen_owner;  -- the objects' owner (docs/procedures.md, Roles)
DROP TABLE queen.dedup_tombstones;
COMMIT;
